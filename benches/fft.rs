//! `cnda::fft` against the same transforms by SciPy (`benches/scipy_fft.py`, run in the same
//! sitting): complex transforms over every axis (`fftn`) of 2D and 3D grids whose lengths are
//! powers of 2, powers of 3, and products of small primes (2 3 5^2 7 = 1050), in `f64` and
//! `f32`, on rayon's pool (`RAYON_NUM_THREADS=1` or `2`); the real transform (`rfftn`) and the
//! cosine transform (`dctn`, type II) of the 2D `f64` grids; and the direct Poisson solve of a
//! 1024^2 grid between mirrors (`solve_box`, Neumann: a DCT-II, a division per mode, a DCT-III)
//! against the same three steps written with SciPy. Throughput is grid points per second.
//!
//! `cargo bench --features fft --bench fft`

use cnda::fft::{dctn, fftn, rfftn, solve_box, DctType, Laplacian, Norm};
use cnda::prelude::*;
use cnda::stencil::Boundary;
use cnda::Complex;
use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};

/// The grids: 2D (lengths 1024, 729, 1050) and 3D (128, 81, 105).
const SIZES_2D: [usize; 3] = [1024, 729, 1050];
const SIZES_3D: [usize; 3] = [128, 81, 105];

fn signal(len: usize) -> impl Fn(usize) -> f64 {
    move |k| ((k * 7919) % len.max(1)) as f64 / len.max(1) as f64 - 0.5
}

fn fft_benches(c: &mut Criterion) {
    let mut group = c.benchmark_group("fftn");
    group.sample_size(10);
    for n in SIZES_2D {
        let s = signal(n * n);
        let x = Array::from_fn([n, n], |[i, j]| Complex::new(s(i * n + j), s(j * n + i)));
        let x32 = x.map(|c| Complex::new(c.re as f32, c.im as f32));
        let real = x.map(|c| c.re);
        group.throughput(Throughput::Elements((n * n) as u64));
        group.bench_function(format!("c128_{n}x{n}"), |b| b.iter(|| fftn(black_box(&x), &[0, 1], Norm::Backward)));
        group.bench_function(format!("c64_{n}x{n}"), |b| b.iter(|| fftn(black_box(&x32), &[0, 1], Norm::Backward)));
        group.bench_function(format!("rfftn_f64_{n}x{n}"), |b| {
            b.iter(|| rfftn(black_box(&real), &[0, 1], Norm::Backward))
        });
        group.bench_function(format!("dctn_f64_{n}x{n}"), |b| {
            b.iter(|| dctn(black_box(&real), DctType::II, &[0, 1], Norm::Backward))
        });
    }
    let n = 1024;
    let s = signal(n * n);
    let f = Array::from_fn([n, n], |[i, j]| s(i * n + j));
    let h = 1.0 / n as f64;
    group.throughput(Throughput::Elements((n * n) as u64));
    group.bench_function(format!("solve_box_neumann_{n}x{n}"), |b| {
        b.iter(|| solve_box(black_box(&f), [h, h], 0.0, [Boundary::Neumann; 2], Laplacian::SecondOrder))
    });
    for n in SIZES_3D {
        let s = signal(n * n * n);
        let x = Array::from_fn([n, n, n], |[i, j, k]| Complex::new(s((i * n + j) * n + k), s((k * n + j) * n + i)));
        let x32 = x.map(|c| Complex::new(c.re as f32, c.im as f32));
        group.throughput(Throughput::Elements((n * n * n) as u64));
        group.bench_function(format!("c128_{n}^3"), |b| b.iter(|| fftn(black_box(&x), &[0, 1, 2], Norm::Backward)));
        group.bench_function(format!("c64_{n}^3"), |b| b.iter(|| fftn(black_box(&x32), &[0, 1, 2], Norm::Backward)));
    }
    group.finish();
}

criterion_group!(benches, fft_benches);
criterion_main!(benches);
