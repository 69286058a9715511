//! A 2D acoustic shot as `examples/shot2d.rs` runs it (`f32`, `laplace(u, 8)`, two time levels,
//! coefficient fields `c` and `e`; 1000 x 1200 cells by default, `CNDA_SHOT_NZ`/`CNDA_SHOT_NX`
//! to change), 8 steps per iteration: one `apply` per step with the three levels rotated by
//! hand (the baseline), the fused steps of a `State` without points, and the same with a source
//! off the grid and a receiver on every column of a row plus six down a well (`PointIo`), which
//! the fused wavefront injects and samples (item 12 of the systems issue: within 5% of the
//! fused steps without them). One thread, and rayon's threads (`par_`). Throughput: grid points
//! updated per second.
//!
//! `cargo bench --bench shot`

use cnda::prelude::*;
use cnda::stencil::{stencil, Boundary, PointIo, Points, State, StencilApply};
use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};

stencil! {
    /// One damped leapfrog step, the levels first.
    #[levels(2)]
    struct Shot = |u, um, c, e| (2.0 * u[0, 0] - (1.0 - e[0, 0]) * um[0, 0] + c[0, 0] * laplace(u, 8)) / (1.0 + e[0, 0]);
}

stencil! {
    /// The same update for `apply` (fields `u, um, c, e` as operands).
    struct ShotApply = |u, um, c, e| (2.0 * u[0, 0] - (1.0 - e[0, 0]) * um[0, 0] + c[0, 0] * laplace(u, 8)) / (1.0 + e[0, 0]);
}

const STEPS: usize = 8;
const R: usize = 4;

fn size(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|s| s.parse().ok()).unwrap_or(default)
}

/// `c`, `e` and a smooth initial wave, halo included.
fn model(nz: usize, nx: usize) -> [Array<f32, 2>; 3] {
    let shape = [nz + 2 * R, nx + 2 * R];
    let c = Array::from_fn(shape, |[i, _]| if i < nz / 3 { 0.05 } else { 0.12 });
    let e = Array::from_fn(shape, |[_, j]| if j < 40 { 0.01 } else { 0.0 });
    let u = Array::from_fn(shape, |[i, j]| {
        let (di, dj) = (i as f32 - nz as f32 / 2.0, j as f32 - nx as f32 / 2.0);
        (-(di * di + dj * dj) / 200.0).exp()
    });
    [c, e, u]
}

/// One `apply` per step into the oldest level, then the rotation.
fn apply_steps(levels: &mut [Array<f32, 2>; 3], c: &Array<f32, 2>, e: &Array<f32, 2>, parallel: bool) {
    for _ in 0..STEPS {
        let [u, um, next] = levels;
        if parallel {
            ShotApply.par_apply((&*u, &*um, c, e), next, ());
        } else {
            ShotApply.apply((&*u, &*um, c, e), next, ());
        }
        levels.rotate_right(1);
    }
}

fn shot(crit: &mut Criterion) {
    let (nz, nx) = (size("CNDA_SHOT_NZ", 1000), size("CNDA_SHOT_NX", 1200));
    let [c, e, u0] = model(nz, nx);
    let source = Points::new([[R as f64 + 6.5, (R + nx / 2) as f64 + 0.3]]);
    let line = Points::new((R..R + nx).map(|j| [(R + 3) as f64, j as f64]));
    let well =
        Points::new((0..6).map(|k| [R as f64 + (0.2 + 0.1 * k as f64) * nz as f64 + 0.3, (R + nx / 4) as f64 + 0.5]));
    let wavelet = Array::from_fn([STEPS, 1], |[t, _]| if t < 4 { 0.5 } else { -0.25 });
    let (mut record, mut traces) = (Array::<f32, 2>::zeros([STEPS, nx]), Array::<f32, 2>::zeros([STEPS, 6]));
    // Checked first: the fused steps with points equal one `apply` per step, injecting and
    // sampling by hand, bit for bit.
    let mut levels = [u0.clone(), u0.clone(), u0.clone()];
    let mut want = Array::<f32, 2>::zeros([STEPS, nx]);
    for t in 0..STEPS {
        let [u, um, next] = &mut levels;
        ShotApply.apply((&*u, &*um, &c, &e), &mut *next, ());
        source.inject(next.view_mut(), &[wavelet[[t, 0]]]);
        line.sample(next, want.view_mut().slice_mut(s![t, ..]));
        levels.rotate_right(1);
    }
    let mut state = State::from_levels([[u0.clone(), u0.clone()]]);
    let io = PointIo::new([Boundary::Fixed; 2])
        .inject(&source, 0, wavelet.view())
        .record(&line, 0, record.view_mut())
        .record(&well, 0, traces.view_mut());
    Shot.par_apply_steps_with(&mut state, STEPS, (&c, &e), (), io);
    assert_eq!(state.field(0), &levels[0], "the fused steps with points against apply");
    assert_eq!(record, want, "the fused receivers against Points::sample");

    let mut group = crit.benchmark_group(format!("shot_f32_{nz}x{nx}"));
    group.sample_size(10);
    group.throughput(Throughput::Elements((nz * nx * STEPS) as u64));
    for parallel in [false, true] {
        let p = if parallel { "par_" } else { "" };
        let mut levels = [u0.clone(), u0.clone(), u0.clone()];
        group.bench_function(format!("{p}apply_per_step"), |b| {
            b.iter(|| apply_steps(black_box(&mut levels), &c, &e, parallel))
        });
        let mut state = State::from_levels([[u0.clone(), u0.clone()]]);
        group.bench_function(format!("{p}fused_{STEPS}_steps"), |b| {
            b.iter(|| {
                let s = black_box(&mut state);
                if parallel {
                    Shot.par_apply_steps_with(s, STEPS, (&c, &e), (), [Boundary::Fixed; 2]);
                } else {
                    Shot.apply_steps_with(s, STEPS, (&c, &e), (), [Boundary::Fixed; 2]);
                }
            })
        });
        let mut state = State::from_levels([[u0.clone(), u0.clone()]]);
        group.bench_function(format!("{p}fused_{STEPS}_steps_with_points"), |b| {
            b.iter(|| {
                let s = black_box(&mut state);
                let io = PointIo::new([Boundary::Fixed; 2])
                    .inject(&source, 0, wavelet.view())
                    .record(&line, 0, record.view_mut())
                    .record(&well, 0, traces.view_mut());
                if parallel {
                    Shot.par_apply_steps_with(s, STEPS, (&c, &e), (), io);
                } else {
                    Shot.apply_steps_with(s, STEPS, (&c, &e), (), io);
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

criterion_group! { name = benches; config = config(); targets = shot }
criterion_main!(benches);
