//! `y = A x` for the matrix of the 7-point Laplacian with zero walls on `n^3` unknowns (128^3 by
//! default, `CNDA_SPMV_N`; `f64`, 7 n^3 − 6 n^2 entries): cnda's `CsrMatrix::spmv`, a raw CSR loop
//! on `Vec`s (the same algorithm, the baseline), the matrix-free `StencilOperator` (what the
//! solvers use instead), and a read of the matrix's values and columns (the memory-traffic bound:
//! an `spmv` must read them once; `x` and `y` add 20 bytes per row to their 12 per entry). SciPy's `csr_matrix @ x` on the same matrix: run
//! `benches/scipy_spmv.py` in the same sitting. Throughput in stored entries per second.
//!
//! `cargo bench --bench sparse`

use cnda::prelude::*;
use cnda::solve::{LinearOperator, StencilOperator};
use cnda::sparse::CsrMatrix;
use cnda::stencil::{Boundary, LinearStencil};
use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};

/// The baseline: `y[i] = Σ values[j] x[columns[j]]`, one row at a time.
fn raw_spmv(offsets: &[i32], columns: &[i32], values: &[f64], x: &[f64], y: &mut [f64]) {
    for (row, out) in y.iter_mut().enumerate() {
        let (start, end) = (offsets[row] as usize, offsets[row + 1] as usize);
        let mut sum = 0.0;
        for j in start..end {
            sum += values[j] * x[columns[j] as usize];
        }
        *out = sum;
    }
}

fn spmv(c: &mut Criterion) {
    let n: usize = std::env::var("CNDA_SPMV_N").ok().and_then(|s| s.parse().ok()).unwrap_or(128);
    let shape = [n, n, n];
    let op = StencilOperator::new(LinearStencil::laplacian_7pt(1.0), shape, [Boundary::Value(0.0); 3]);
    let a = CsrMatrix::from_stencil(&op);
    let rows = n * n * n;
    let x = Array::from_fn([rows], |[i]| ((i * 7) % 13) as f64 - 6.0);
    let mut y = Array::zeros([rows]);
    let mut group = c.benchmark_group(format!("spmv_laplacian_7pt_{n}_f64"));
    group.sample_size(20).throughput(Throughput::Elements(a.nnz() as u64));
    group.bench_function("cnda_csr", |bench| {
        bench.iter(|| {
            a.spmv(&x, &mut y);
            black_box(y[[rows / 2]])
        })
    });
    let (offsets, columns, values) = (a.offsets().as_slice(), a.columns().as_slice(), a.values().as_slice());
    let (xs, mut ys) = (x.as_slice().to_vec(), vec![0.0; rows]);
    group.bench_function("raw_csr", |bench| {
        bench.iter(|| {
            raw_spmv(offsets, columns, values, &xs, &mut ys);
            black_box(ys[rows / 2])
        })
    });
    let mut padded = Array::zeros([n + 2, n + 2, n + 2]);
    let mut out = Array::zeros([n + 2, n + 2, n + 2]);
    padded.fill(1.0);
    group.bench_function("matrix_free_stencil", |bench| {
        bench.iter(|| {
            LinearOperator::<f64, 3, Cpu>::try_apply(&op, &mut padded, &mut out).unwrap();
            black_box(out[[1, 1, 1]])
        })
    });
    group.bench_function("read_values_and_columns", |bench| {
        bench.iter(|| {
            // Eight accumulators, so the sum vectorizes and only the memory limits it.
            let sum = black_box(values).chunks_exact(8).fold([0.0f64; 8], |mut acc, chunk| {
                acc.iter_mut().zip(chunk).for_each(|(a, v)| *a += v);
                acc
            });
            let count: i64 = black_box(columns).iter().map(|&c| i64::from(c)).sum();
            black_box((sum, count))
        })
    });
    group.finish();
}

criterion_group!(benches, spmv);
criterion_main!(benches);
