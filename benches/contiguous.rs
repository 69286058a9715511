//! `contiguous()` of a transposed 4096 x 4096 f64 view (the view tax), against a plain copy of the
//! same bytes (the bandwidth limit), a naive transposing loop and ndarray's
//! `as_standard_layout()`, in the same run.
//!
//! `cargo bench --bench contiguous`

use cnda::prelude::*;
use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};

const N: usize = 4096;

#[inline(never)]
fn naive_transpose(n: usize, src: &[f64], dst: &mut [f64]) {
    for i in 0..n {
        for j in 0..n {
            dst[i * n + j] = src[j * n + i];
        }
    }
}

fn contiguous(c: &mut Criterion) {
    let data: Vec<f64> = (0..N * N).map(|k| k as f64).collect();
    let mut group = c.benchmark_group("transpose_copy_4096");
    // Bytes read plus bytes written.
    group.throughput(Throughput::Bytes((2 * N * N * 8) as u64));
    group.sample_size(15);

    let mut dst = vec![0.0; N * N];
    group.bench_function("plain_copy_same_bytes", |b| b.iter(|| dst.copy_from_slice(black_box(&data))));

    let a = Array::from_shape_vec([N, N], data.clone()).unwrap();
    // The same plain copy into a fresh allocation, as `contiguous()` must make one.
    group.bench_function("plain_copy_into_fresh_array", |b| b.iter(|| black_box(black_box(&a).to_owned())));
    group.bench_function("cnda_t_contiguous", |b| b.iter(|| black_box(a.t().contiguous())));
    // The same kernel into a reused buffer: no page faults of a fresh allocation.
    let mut out = Array::<f64, 2>::zeros([N, N]);
    group.bench_function("cnda_assign_t_into_reused", |b| b.iter(|| out.assign(&black_box(&a).t())));
    let expected = a.t().contiguous();
    assert_eq!(out.as_slice(), expected.as_slice());

    group.bench_function("naive_transpose_loop", |b| b.iter(|| naive_transpose(N, black_box(&data), &mut dst)));
    assert_eq!(dst.as_slice(), expected.as_slice());

    let nd = ndarray::Array2::from_shape_vec((N, N), data).unwrap();
    group.bench_function("ndarray_as_standard_layout", |b| {
        b.iter(|| black_box(nd.t().as_standard_layout().into_owned()))
    });
    group.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(std::time::Duration::from_secs(1))
        .measurement_time(std::time::Duration::from_secs(5))
}

criterion_group! { name = benches; config = config(); targets = contiguous }
criterion_main!(benches);
