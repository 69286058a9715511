//! Gray-Scott reaction-diffusion (two fields, periodic, `f32`, 4096^2 by default;
//! `CNDA_GRAY_SCOTT_N` to change): one step as one pass of a two-valued `stencil!` (`apply`),
//! and `k = 8` steps at once through `apply_steps_with` on a `State` of both fields that owns
//! their halo (`from_interiors`; fused: eight steps per pass over memory where the cache
//! allows), against a raw loop that updates both
//! fields in one pass, in the stencil's operation order with unchecked loads, its periodic halos
//! refilled by hand. One thread, and rayon's threads (`par_`). Throughput: grid points (of both
//! fields) updated per second.
//!
//! `cargo bench --bench gray_scott`

use cnda::prelude::*;
use cnda::stencil::{fill_halo, stencil, Boundary, PadMode, State, StencilApply};
use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use rayon::prelude::*;

stencil! {
    /// One explicit step of both species.
    struct GrayScott = |u, v; du: f32, dv: f32, feed: f32, kill: f32, dt: f32| {
        let uvv = u[0, 0] * v[0, 0] * v[0, 0];
        (
            u[0, 0] + dt * (du * laplace(u, 2) - uvv + feed * (1.0 - u[0, 0])),
            v[0, 0] + dt * (dv * laplace(v, 2) + uvv - (feed + kill) * v[0, 0]),
        )
    };
}

const PARAMS: (f32, f32, f32, f32, f32) = (0.16, 0.08, 0.037, 0.06, 1.0);
const FUSED: usize = 8;

/// Both fields with a one-cell halo around `n x n`: a seeded square in a resting state.
fn initial(n: usize) -> [Array<f32, 2>; 2] {
    let seeded = |i: usize, j: usize| (n / 3..2 * n / 3).contains(&i) && (n / 3..2 * n / 3).contains(&j);
    let u = Array::from_fn([n + 2, n + 2], |[i, j]| if seeded(i, j) { 0.5 } else { 1.0 });
    let v =
        Array::from_fn([n + 2, n + 2], |[i, j]| if seeded(i, j) { 0.25 + ((i * j) % 7) as f32 * 0.01 } else { 0.0 });
    [u, v]
}

const WRAP: [PadMode<f32>; 2] = [PadMode::Periodic; 2];

/// One step of the raw loop: the halos refilled, both fields in one pass, in `GrayScott`'s
/// operation order (`laplace(u, 2)` expands to `-4 u + (((u[1,0] + u[-1,0]) + u[0,1]) + u[0,-1])`
/// times 1; subnormals flushed on store), then the arrays swapped.
fn raw_step(fields: &mut [Array<f32, 2>; 4], parallel: bool) {
    let [u, v, u2, v2] = fields;
    fill_halo(&mut *u, [1, 1], WRAP);
    fill_halo(&mut *v, [1, 1], WRAP);
    let w = u.shape()[1];
    let (du, dv, feed, kill, dt) = PARAMS;
    let (us, vs) = (u.as_slice(), v.as_slice());
    let flush = |x: f32| if x.abs() < f32::MIN_POSITIVE { 0.0f32.copysign(x) } else { x };
    let row = |i: usize, (ou, ov): (&mut [f32], &mut [f32])| {
        if i == 0 || i + 1 == us.len() / w {
            return;
        }
        assert!(us.len() == vs.len() && ou.len() == w && ov.len() == w && (i + 1) * w < us.len());
        for j in 1..w - 1 {
            let at = i * w + j;
            // SAFETY: `1 <= i < rows - 1` and `1 <= j < w - 1`, so `at +- 1` and `at +- w` lie in
            // both fields (asserted above), and `j` in the output rows.
            unsafe {
                let (u, v) = (|o: usize| *us.get_unchecked(o), |o: usize| *vs.get_unchecked(o));
                let (uc, vc) = (u(at), v(at));
                let uvv = uc * vc * vc;
                let lu = -4.0 * uc + (((u(at + w) + u(at - w)) + u(at + 1)) + u(at - 1));
                let lv = -4.0 * vc + (((v(at + w) + v(at - w)) + v(at + 1)) + v(at - 1));
                *ou.get_unchecked_mut(j) = flush(uc + dt * (du * lu - uvv + feed * (1.0 - uc)));
                *ov.get_unchecked_mut(j) = flush(vc + dt * (dv * lv + uvv - (feed + kill) * vc));
            }
        }
    };
    let (ou, ov) = (u2.as_mut_slice(), v2.as_mut_slice());
    if parallel {
        ou.par_chunks_mut(w).zip(ov.par_chunks_mut(w)).enumerate().for_each(|(i, o)| row(i, o));
    } else {
        ou.chunks_mut(w).zip(ov.chunks_mut(w)).enumerate().for_each(|(i, o)| row(i, o));
    }
    fields.swap(0, 2);
    fields.swap(1, 3);
}

/// One step of `stencil!`'s one pass: the halos refilled, `apply` into the other pair.
fn step(fields: &mut [Array<f32, 2>; 4], parallel: bool) {
    let [u, v, u2, v2] = fields;
    fill_halo(&mut *u, [1, 1], WRAP);
    fill_halo(&mut *v, [1, 1], WRAP);
    if parallel {
        GrayScott.par_apply((&*u, &*v), (u2, v2), PARAMS);
    } else {
        GrayScott.apply((&*u, &*v), (u2, v2), PARAMS);
    }
    fields.swap(0, 2);
    fields.swap(1, 3);
}

/// Both fields' interiors as a `State` that owns their halo (rows of whole cache lines, each
/// interior row starting one).
fn owning(n: usize) -> State<f32, 2, 2> {
    let inner = |a: Array<f32, 2>| a.slice(s![1..-1, 1..-1]).to_owned();
    let [u, v] = initial(n);
    State::from_interiors([inner(u), inner(v)], GrayScott::RADIUS)
}

fn pairs(n: usize) -> [Array<f32, 2>; 4] {
    let [u, v] = initial(n);
    [u.clone(), v.clone(), u, v]
}

fn gray_scott(c: &mut Criterion) {
    let n = std::env::var("CNDA_GRAY_SCOTT_N").ok().and_then(|s| s.parse().ok()).unwrap_or(4096);
    // Checked first: 16 steps of each agree bit for bit (interiors; the fused steps' halos are
    // refilled after the last step, the others' before each).
    let (mut raw, mut one) = (pairs(n.min(512)), pairs(n.min(512)));
    let mut fused = owning(n.min(512));
    for _ in 0..16 {
        raw_step(&mut raw, false);
        step(&mut one, true);
    }
    GrayScott.par_apply_steps_with(&mut fused, 16, (), PARAMS, [Boundary::Periodic; 2]);
    let inner = |a: &Array<f32, 2>| a.slice(s![1..-1, 1..-1]).to_owned();
    for f in 0..2 {
        assert_eq!(inner(&raw[f]), inner(&one[f]), "apply against the raw loop, field {f}");
        assert_eq!(inner(&raw[f]), fused.interior(f).to_owned(), "fused steps against the raw loop, field {f}");
    }

    let mut group = c.benchmark_group(format!("gray_scott_f32_{n}"));
    group.sample_size(10);
    for parallel in [false, true] {
        let p = if parallel { "par_" } else { "" };
        group.throughput(Throughput::Elements((n * n) as u64));
        let mut f = pairs(n);
        group.bench_function(format!("{p}raw_loop"), |b| b.iter(|| raw_step(black_box(&mut f), parallel)));
        let mut f = pairs(n);
        group.bench_function(format!("{p}cnda_one_pass"), |b| b.iter(|| step(black_box(&mut f), parallel)));
        group.throughput(Throughput::Elements((n * n * FUSED) as u64));
        let mut state = owning(n);
        group.bench_function(format!("{p}cnda_fused_{FUSED}_steps"), |b| {
            b.iter(|| {
                let s = black_box(&mut state);
                if parallel {
                    GrayScott.par_apply_steps_with(s, FUSED, (), PARAMS, [Boundary::Periodic; 2]);
                } else {
                    GrayScott.apply_steps_with(s, FUSED, (), PARAMS, [Boundary::Periodic; 2]);
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

criterion_group! { name = benches; config = config(); targets = gray_scott }
criterion_main!(benches);
