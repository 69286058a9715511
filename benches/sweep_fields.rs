//! Closure sweeps over several fields (`sweep_fields`, `par_sweep_fields`) against the raw loop
//! they replace, on the variable-coefficient diffusion `v = u + k (lap u)` (`f64`, 4096^2, one
//! and two threads), with `stencil!` (the same update as data) beside them.
//!
//! `cargo bench --bench sweep_fields`

use cnda::prelude::*;
use cnda::stencil::{par_sweep_fields, stencil, sweep_fields, StencilApply, Window2};
use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use rayon::prelude::*;

const N: usize = 4096;

/// The raw loop over rows `rows` of the output (`v` holds those rows only), in the closure's
/// operation order, with unchecked loads.
fn raw_rows(u: &[f64], k: &[f64], v: &mut [f64], rows: core::ops::Range<usize>) {
    assert!(u.len() == N * N && k.len() == N * N && v.len() == rows.len() * N && rows.start >= 1 && rows.end < N);
    for (r, i) in rows.enumerate() {
        for j in 1..N - 1 {
            let at = i * N + j;
            // SAFETY: `1 <= i < N - 1` and `1 <= j < N - 1`, so `at +- 1` and `at +- N` lie in the
            // `N^2` elements of `u` and `k` (asserted), and `r * N + j` in `v`'s rows.
            unsafe {
                let u = |o: usize| *u.get_unchecked(o);
                let lap = u(at - N) + u(at + N) + u(at - 1) + u(at + 1) - 4.0 * u(at);
                *v.get_unchecked_mut(r * N + j) = u(at) + *k.get_unchecked(at) * lap;
            }
        }
    }
}

fn update(out: &mut f64, [u, k]: [Window2<'_, f64, 1>; 2], _: [usize; 2]) {
    let lap = u[(-1, 0)] + u[(1, 0)] + u[(0, -1)] + u[(0, 1)] - 4.0 * u[(0, 0)];
    *out = u[(0, 0)] + k[(0, 0)] * lap;
}

fn fields(c: &mut Criterion) {
    let u = Array::from_fn([N, N], |[i, j]| ((i * 7 + j * 13) % 17) as f64 / 17.0);
    let k = Array::from_fn([N, N], |[i, j]| 0.05 + 0.01 * ((i + j) % 5) as f64);
    let diffuse = stencil!(|u, k| u[0, 0] + k[0, 0] * (u[-1, 0] + u[1, 0] + u[0, -1] + u[0, 1] - 4.0 * u[0, 0]));
    let mut reference = Array::<f64, 2>::zeros([N, N]);
    raw_rows(u.as_slice(), k.as_slice(), &mut reference.as_mut_slice()[N..(N - 1) * N], 1..N - 1);
    let mut v = Array::<f64, 2>::zeros([N, N]);
    sweep_fields([u.view().into(), k.view().into()], v.view_mut(), update);
    assert_eq!(v, reference, "sweep_fields against the raw loop");
    v.fill(0.0);
    par_sweep_fields([u.view().into(), k.view().into()], v.view_mut(), update);
    assert_eq!(v, reference, "par_sweep_fields against the raw loop");
    v.fill(0.0);
    diffuse.apply((&u, &k), &mut v, ());
    assert_eq!(v, reference, "stencil! against the raw loop");

    let mut group = c.benchmark_group(format!("sweep_fields_2_fields_f64_{N}"));
    group.sample_size(10);
    group.throughput(Throughput::Elements(((N - 2) * (N - 2)) as u64));
    group.bench_function("raw_loop", |b| {
        b.iter(|| raw_rows(black_box(u.as_slice()), k.as_slice(), &mut v.as_mut_slice()[N..(N - 1) * N], 1..N - 1))
    });
    group.bench_function("sweep_fields", |b| {
        b.iter(|| sweep_fields([black_box(&u).view().into(), k.view().into()], v.view_mut(), update))
    });
    group.bench_function("stencil_macro", |b| b.iter(|| diffuse.apply((black_box(&u), &k), &mut v, ())));
    group.bench_function("par_raw_loop", |b| {
        b.iter(|| {
            let (u, k) = (black_box(u.as_slice()), k.as_slice());
            v.as_mut_slice()[N..(N - 1) * N].par_chunks_mut(N * 64).enumerate().for_each(|(c, rows)| {
                let first = 1 + c * 64;
                raw_rows(u, k, rows, first..first + rows.len() / N);
            })
        })
    });
    group.bench_function("par_sweep_fields", |b| {
        b.iter(|| par_sweep_fields([black_box(&u).view().into(), k.view().into()], v.view_mut(), update))
    });
    group.bench_function("par_stencil_macro", |b| b.iter(|| diffuse.par_apply((black_box(&u), &k), &mut v, ())));
    group.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(std::time::Duration::from_secs(1))
        .measurement_time(std::time::Duration::from_secs(4))
}

criterion_group! { name = benches; config = config(); targets = fields }
criterion_main!(benches);
