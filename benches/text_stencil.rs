//! Stencils read from text (`TextStencil`, the CPU's block interpreter) against the same text
//! compiled by `stencil!`, in the same run: Gray-Scott (two fields, periodic, `f32`, 4096^2 by
//! default, `CNDA_TEXT_N` to change) one pass (`apply`) and 8 fused steps (`apply_steps_with` on
//! a `State` owning its halo), and the 3D acoustic wave of order 8 (two levels, a coefficient
//! field, 200^3 `f32` by default, `CNDA_TEXT_N3`), 8 fused steps. One thread and rayon's
//! (`par_`). Throughput: grid points updated per second. The ratio the issue asks for: the text's
//! time at most 1.5x the macro's on memory-bound grids.
//!
//! `cargo bench --features text --bench text_stencil`

use cnda::prelude::*;
use cnda::stencil::{Boundary, State, StencilApply, TextStencil};
use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};

/// The text of both stencils, given to `stencil!` as tokens and to `TextStencil` as a string.
macro_rules! both {
    ($n:literal; $($t:tt)*) => {
        (cnda::stencil!($($t)*), TextStencil::<$n>::parse(stringify!($($t)*)))
    };
}

const FUSED: usize = 8;

fn gray_scott(c: &mut Criterion) {
    let (compiled, text) = both!(2; |u, v; du, dv, feed, kill, dt| {
        let uvv = u[0, 0] * v[0, 0] * v[0, 0];
        (
            u[0, 0] + dt * (du * laplace(u, 2) - uvv + feed * (1.0 - u[0, 0])),
            v[0, 0] + dt * (dv * laplace(v, 2) + uvv - (feed + kill) * v[0, 0]),
        )
    });
    let p: [f32; 5] = [0.16, 0.08, 0.037, 0.06, 1.0];
    let tuple = (p[0], p[1], p[2], p[3], p[4]);
    let n = std::env::var("CNDA_TEXT_N").ok().and_then(|s| s.parse().ok()).unwrap_or(4096);
    let seeded = move |i: usize, j: usize| (n / 3..2 * n / 3).contains(&i) && (n / 3..2 * n / 3).contains(&j);
    let u = Array::from_fn([n, n], |[i, j]| if seeded(i, j) { 0.5f32 } else { 1.0 });
    let v = Array::from_fn([n, n], |[i, j]| if seeded(i, j) { 0.25 + ((i * j) % 7) as f32 * 0.01 } else { 0.0 });
    let state = || State::from_interiors([u.clone(), v.clone()], [1, 1]);
    // Checked first: the same steps, bit for bit.
    let (mut a, mut b) = (state(), state());
    compiled.apply_steps_with(&mut a, 3, (), tuple, [Boundary::Periodic; 2]);
    text.apply_steps_with(&mut b, 3, &[] as &[&Array<f32, 2>], &p, [Boundary::Periodic; 2]);
    assert!(a.field(0).iter().zip(b.field(0).iter()).all(|(x, y)| x.to_bits() == y.to_bits()));

    let mut group = c.benchmark_group(format!("text_gray_scott_f32_{n}"));
    group.sample_size(10);
    group.throughput(Throughput::Elements((n * n) as u64));
    let (mut ou, mut ov) = (Array::zeros([n, n]), Array::zeros([n, n]));
    group.bench_function("macro_one_pass", |bench| bench.iter(|| compiled.apply((&u, &v), (&mut ou, &mut ov), tuple)));
    group.bench_function("text_one_pass", |bench| bench.iter(|| text.apply(&[&u, &v], &mut [&mut ou, &mut ov], &p)));
    group.throughput(Throughput::Elements((n * n * FUSED) as u64));
    for parallel in [false, true] {
        let pre = if parallel { "par_" } else { "" };
        let mut s = state();
        group.bench_function(format!("{pre}macro_fused_{FUSED}_steps"), |bench| {
            bench.iter(|| {
                let s = black_box(&mut s);
                if parallel {
                    compiled.par_apply_steps_with(s, FUSED, (), tuple, [Boundary::Periodic; 2]);
                } else {
                    compiled.apply_steps_with(s, FUSED, (), tuple, [Boundary::Periodic; 2]);
                }
            })
        });
        let mut s = state();
        group.bench_function(format!("{pre}text_fused_{FUSED}_steps"), |bench| {
            bench.iter(|| {
                let s = black_box(&mut s);
                let none: &[&Array<f32, 2>] = &[];
                if parallel {
                    text.par_apply_steps_with(s, FUSED, none, &p, [Boundary::Periodic; 2]);
                } else {
                    text.apply_steps_with(s, FUSED, none, &p, [Boundary::Periodic; 2]);
                }
            })
        });
    }
    group.finish();
}

fn acoustic(c: &mut Criterion) {
    let (compiled, text) =
        both!(3; #[levels(2)] |u, u_prev, m; c| 2.0 * u[0, 0, 0] - u_prev[0, 0, 0] + c * m[0, 0, 0] * laplace(u, 8));
    let n = std::env::var("CNDA_TEXT_N3").ok().and_then(|s| s.parse().ok()).unwrap_or(200);
    let pulse = move |[i, j, k]: [usize; 3]| {
        let d = |x: usize| (x as f32 - n as f32 / 2.0) / 8.0;
        (-(d(i) * d(i) + d(j) * d(j) + d(k) * d(k))).exp()
    };
    let u = Array::from_fn([n, n, n], pulse);
    let m = Array::from_fn([n, n, n], |[i, _, _]| if i < n / 2 { 1.0f32 } else { 0.6 });
    let state = || State::from_interior_levels([[u.clone(), u.clone()]], [4, 4, 4]);
    let cp = 0.01f32;
    let mut group = c.benchmark_group(format!("text_acoustic_so8_f32_{n}"));
    group.sample_size(10);
    group.throughput(Throughput::Elements((n * n * n * FUSED) as u64));
    for parallel in [false, true] {
        let pre = if parallel { "par_" } else { "" };
        let mut s = state();
        group.bench_function(format!("{pre}macro_fused_{FUSED}_steps"), |bench| {
            bench.iter(|| {
                let s = black_box(&mut s);
                if parallel {
                    compiled.par_apply_steps_with(s, FUSED, &m, (cp,), [Boundary::Fixed; 3]);
                } else {
                    compiled.apply_steps_with(s, FUSED, &m, (cp,), [Boundary::Fixed; 3]);
                }
            })
        });
        let mut s = state();
        group.bench_function(format!("{pre}text_fused_{FUSED}_steps"), |bench| {
            bench.iter(|| {
                let s = black_box(&mut s);
                if parallel {
                    text.par_apply_steps_with(s, FUSED, &[&m], &[cp], [Boundary::Fixed; 3]);
                } else {
                    text.apply_steps_with(s, FUSED, &[&m], &[cp], [Boundary::Fixed; 3]);
                }
            })
        });
    }
    group.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(std::time::Duration::from_secs(2))
        .measurement_time(std::time::Duration::from_secs(5))
}

criterion_group! { name = benches; config = config(); targets = gray_scott, acoustic }
criterion_main!(benches);
