//! Subnormal floats in a decaying field: 8 time steps of a `stencil!` diffusion (`f32`, 2048^2,
//! zero walls) over a Gaussian whose tail crosses the subnormal range (about an eighth of the grid
//! holds subnormals, as in a decaying wave), with subnormals kept (`#[subnormals(keep)]`) and
//! flushed (`stencil!`'s default; from the tail with its subnormals zeroed, the state a flushed
//! run holds), against the raw loop (IEEE arithmetic: it keeps them, and
//! flushing by hand) and against the same steps over a field with no tail (no subnormal at all:
//! the speed the flushed steps should reach). Fused `apply_steps` on the calling thread, and
//! `par_apply_steps` on rayon's threads.
//!
//! `cargo bench --bench subnormals`

use cnda::prelude::*;
use cnda::stencil::{self, DoubleBuffer};
use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};

const N: usize = 2048;
const STEPS: usize = 8;
const A: f32 = 0.2;

stencil! {
    /// The diffusion step, subnormals flushed (the default).
    struct Flushed = |u; a: f32| u[0, 0] + a * (u[-1, 0] + u[1, 0] + u[0, -1] + u[0, 1] - 4.0 * u[0, 0]);
}

stencil! {
    /// The same step keeping subnormals.
    #[subnormals(keep)]
    struct Kept = |u; a: f32| u[0, 0] + a * (u[-1, 0] + u[1, 0] + u[0, -1] + u[0, 1] - 4.0 * u[0, 0]);
}

/// A Gaussian of width `sigma` cells centred on the grid, zero on the walls.
fn gaussian(sigma: f64) -> Array<f32, 2> {
    let c = (N / 2) as f64;
    Array::from_fn([N, N], |[i, j]| {
        if i == 0 || j == 0 || i == N - 1 || j == N - 1 {
            return 0.0;
        }
        let r2 = (i as f64 - c).powi(2) + (j as f64 - c).powi(2);
        (-r2 / (2.0 * sigma * sigma)).exp() as f32
    })
}

/// One raw-loop sweep, in the stencil's operation order; `flush` stores subnormals as zeros.
fn raw_sweep(u: &[f32], v: &mut [f32], flush: bool) {
    for i in 1..N - 1 {
        for j in 1..N - 1 {
            let at = i * N + j;
            let x = u[at] + A * (u[at - N] + u[at + N] + u[at - 1] + u[at + 1] - 4.0 * u[at]);
            v[at] = if flush && x.abs() < f32::MIN_POSITIVE { 0.0f32.copysign(x) } else { x };
        }
    }
}

fn raw_steps(u: &Array<f32, 2>, flush: bool) -> Array<f32, 2> {
    let (mut a, mut b) = (u.clone(), u.clone());
    for _ in 0..STEPS {
        raw_sweep(a.as_slice(), b.as_mut_slice(), flush);
        core::mem::swap(&mut a, &mut b);
    }
    a
}

fn steps<S>(s: S, u: &Array<f32, 2>, parallel: bool) -> Array<f32, 2>
where
    S: stencil::StencilApply<f32, 2>
        + stencil::Stencil<f32, 2, Params = (f32,)>
        + stencil::Evolves<1, 1, Coefficients = stencil::Arity<1>>,
{
    let mut f = DoubleBuffer::new(u.clone());
    let walls = [[stencil::Boundary::Value(0.0); 2]; 2];
    if parallel {
        s.par_apply_steps_with(&mut f, STEPS, (), (A,), walls);
    } else {
        s.apply_steps_with(&mut f, STEPS, (), (A,), walls);
    }
    f.into_current()
}

fn subnormals(c: &mut Criterion) {
    let tail = gaussian(70.0);
    let no_tail = gaussian(4.0 * N as f64);
    let subnormal = tail.iter().filter(|x| x.is_subnormal()).count();
    assert!(subnormal > N * N / 10, "the tail holds subnormals: {subnormal}");
    assert!(no_tail.iter().all(|x| !x.is_subnormal()));
    // The state a flushed run holds: its own steps stored no subnormal.
    let flushed_tail = tail.map(|x: f32| if x.is_subnormal() { 0.0f32.copysign(x) } else { x });
    // Checked before any benchmark: kept equals the IEEE raw loop, flushed the flushing one.
    assert_eq!(steps(Kept, &tail, false), raw_steps(&tail, false), "kept against the raw loop");
    assert_eq!(steps(Flushed, &tail, false), raw_steps(&tail, true), "flushed against the raw loop");
    assert_eq!(steps(Flushed, &tail, true), raw_steps(&tail, true), "par flushed against the raw loop");
    assert_eq!(steps(Flushed, &flushed_tail, false), raw_steps(&flushed_tail, true), "from a flushed state");

    let mut group = c.benchmark_group(format!("subnormals_f32_{N}_k{STEPS}"));
    group.sample_size(10);
    group.throughput(Throughput::Elements(((N - 2) * (N - 2) * STEPS) as u64));
    group.bench_function("raw_loop_keeps", |b| b.iter(|| raw_steps(black_box(&tail), false)));
    group.bench_function("raw_loop_flushes", |b| b.iter(|| raw_steps(black_box(&flushed_tail), true)));
    group.bench_function("raw_loop_no_tail", |b| b.iter(|| raw_steps(black_box(&no_tail), false)));
    for parallel in [false, true] {
        let p = if parallel { "par_" } else { "" };
        group.bench_function(format!("{p}cnda_keep"), |b| b.iter(|| steps(Kept, black_box(&tail), parallel)));
        group.bench_function(format!("{p}cnda_flush"), |b| {
            b.iter(|| steps(Flushed, black_box(&flushed_tail), parallel))
        });
        group.bench_function(format!("{p}cnda_flush_no_tail"), |b| {
            b.iter(|| steps(Flushed, black_box(&no_tail), parallel))
        });
    }
    group.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(std::time::Duration::from_secs(1))
        .measurement_time(std::time::Duration::from_secs(3))
}

criterion_group! { name = benches; config = config(); targets = subnormals }
criterion_main!(benches);
