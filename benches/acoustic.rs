//! Devito's own benchmark problem: the 3D acoustic wave equation, 8th order in space (the 25-point
//! `laplace(u, 8)`), second order in time, `f32`, 200^3 points updated per step (`CNDA_ACOUSTIC_N`
//! to change; the arrays carry a halo of 4 around them, padded by `pad` so that each interior row
//! starts on a cache line, as Devito's do), a Gaussian pulse
//! spreading from the centre. One time step is `stencil!` `apply` (one thread) or
//! `par_apply` (rayon's threads) into the third array of a rotation, against a raw loop in the
//! same operation order with unchecked loads (one thread, and rayon over planes). Throughput is grid points updated
//! per second. Devito's figure comes from `benches/devito_acoustic.py` in the same sitting.
//!
//! `cnda_state_8_steps`: the field as a `State` of two levels (`#[levels(2)]`) that owns its
//! halo (`from_interior_levels`), the squared slowness of the interior's shape, 8 steps per
//! `apply_steps` call, fused in passes of the depth measured at run time (`CNDA_FUSED_TUNE=show`
//! prints the search); `_padded_m`: the squared slowness padded as Devito pads it.
//!
//! `cargo bench --bench acoustic`

use cnda::prelude::*;
use cnda::stencil::{pad, stencil, Boundary, PadMode, State, StencilApply};
use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use rayon::prelude::*;

stencil! {
    /// `u(n+1) = 2 u - u(n-1) + (dt^2 / h^2) / m * laplace(u)`, `m` the squared slowness; the
    /// field at two time levels.
    #[levels(2)]
    struct Acoustic = |u, um, m; c: f32| 2.0 * u[0, 0, 0] - um[0, 0, 0] + c / m[0, 0, 0] * laplace(u, 8);
}

/// The state: the field at the last two time levels, the squared slowness, and `c`.
struct Wave {
    n: usize,
    levels: [Array<f32, 3>; 3],
    m: Array<f32, 3>,
    c: f32,
}

impl Wave {
    /// The state for `n^3` updated points: arrays of `(n + 8)^3`, padded by `pad` (so each
    /// interior row starts on a cache line, as Devito places them), the halo zero.
    fn new(n: usize) -> Wave {
        let (h, v) = (5.0_f32, 1.5_f32); // metres, km/s as Devito's examples
        let dt = 0.4 * h / v; // a CFL number of 0.4, in ms
        let centre = (n / 2 + 4) as f32;
        // sigma = 4 cells (20 m, as `devito_acoustic.py`).
        let pulse = Array::from_fn([n, n, n], |[i, j, k]| {
            let r2 = [i, j, k].iter().map(|&x| (x as f32 + 4.0 - centre).powi(2)).sum::<f32>();
            (-r2 / 32.0).exp()
        });
        let pulse = pad(pulse.view(), 4, PadMode::Constant(0.0));
        let m = pad(Array::full([n, n, n], 1.0 / (v * v)).view(), 4, PadMode::Edge);
        let next = pad(Array::zeros([n, n, n]).view(), 4, PadMode::Constant(0.0));
        Wave { n: n + 8, levels: [pulse.clone(), pulse, next], m, c: dt * dt / (h * h) }
    }

    /// The interior of `a` (without the halo of 4), a copy.
    fn interior(a: &Array<f32, 3>) -> Array<f32, 3> {
        let n = a.shape()[0] as isize;
        a.slice(s![4..n - 4, 4..n - 4, 4..n - 4]).to_owned()
    }

    /// The two levels as a `State` that owns their halo.
    fn state(&self) -> State<f32, 3, 1, 2> {
        let [u, um, _] = &self.levels;
        State::from_interior_levels([[Wave::interior(u), Wave::interior(um)]], Acoustic::RADIUS)
    }

    /// One step by `stencil!`: the new level goes into the oldest's place.
    fn step(&mut self, parallel: bool) {
        let [u, um, up] = &mut self.levels;
        if parallel {
            Acoustic.par_apply((&*u, &*um, &self.m), up, (self.c,));
        } else {
            Acoustic.apply((&*u, &*um, &self.m), up, (self.c,));
        }
        self.levels.rotate_right(1); // [up, u, um]: the new level first, the oldest last
    }

    /// One step by the raw loop, in `stencil!`'s operation order (subnormals flushed on store).
    fn raw_step(&mut self, parallel: bool) {
        let n = self.n;
        let [u, um, up] = &mut self.levels;
        let (u, um, m, c) = (u.as_slice(), um.as_slice(), self.m.as_slice(), self.c);
        let w = [-205.0_f32 / 24.0, 8.0 / 5.0, -1.0 / 5.0, 8.0 / 315.0, -1.0 / 560.0];
        let plane = |i: usize, out: &mut [f32]| {
            if i < 4 || i >= n - 4 {
                return;
            }
            assert!(u.len() == n * n * n && um.len() == u.len() && m.len() == u.len() && out.len() == n * n);
            for j in 4..n - 4 {
                for k in 4..n - 4 {
                    let at = (i * n + j) * n + k;
                    // SAFETY: `4 <= i, j, k < n - 4`, so `at` and every `at +- d (1, n, n^2)` for
                    // `d <= 4` lie in the `n^3` elements of `u`, `um` and `m` (asserted above),
                    // and `j * n + k` in the `n^2` of `out`.
                    unsafe {
                        let u = |o: usize| *u.get_unchecked(o);
                        let mut lap = w[0] * u(at);
                        for (d, &wd) in w.iter().enumerate().skip(1) {
                            let (x, y) = (d * n * n, d * n);
                            lap += wd * (((((u(at + x) + u(at - x)) + u(at + y)) + u(at - y)) + u(at + d)) + u(at - d));
                        }
                        let v = 2.0 * u(at) - *um.get_unchecked(at) + c / *m.get_unchecked(at) * lap;
                        *out.get_unchecked_mut(j * n + k) =
                            if v.abs() < f32::MIN_POSITIVE { 0.0f32.copysign(v) } else { v };
                    }
                }
            }
        };
        let out = up.as_mut_slice();
        if parallel {
            out.par_chunks_mut(n * n).enumerate().for_each(|(i, o)| plane(i, o));
        } else {
            out.chunks_mut(n * n).enumerate().for_each(|(i, o)| plane(i, o));
        }
        self.levels.rotate_right(1);
    }
}

fn acoustic(c: &mut Criterion) {
    let n = std::env::var("CNDA_ACOUSTIC_N").ok().and_then(|s| s.parse().ok()).unwrap_or(200);
    // Checked first: 20 steps of each agree bit for bit with the raw loop.
    let (mut a, mut b) = (Wave::new(n), Wave::new(n));
    for _ in 0..20 {
        a.step(true);
        b.raw_step(false);
    }
    assert_eq!(a.levels[0], b.levels[0], "stencil! against the raw loop");
    let w = Wave::new(n);
    let mut state = w.state();
    Acoustic.par_apply_steps_with(&mut state, 20, &Wave::interior(&w.m), (w.c,), [Boundary::Fixed; 3]);
    assert_eq!(state.interior(0).to_owned(), Wave::interior(&b.levels[0]), "the State's steps against the raw loop");

    let mut group = c.benchmark_group(format!("acoustic_so8_f32_{n}"));
    group.sample_size(10);
    // The points each step updates (the interior, `n^3`), as Devito counts them.
    group.throughput(Throughput::Elements((n * n * n) as u64));
    for parallel in [false, true] {
        let p = if parallel { "par_" } else { "" };
        let mut w = Wave::new(n);
        group.bench_function(format!("{p}raw_loop"), |bench| bench.iter(|| black_box(&mut w).raw_step(parallel)));
        let mut w = Wave::new(n);
        group.bench_function(format!("{p}cnda_stencil_macro"), |bench| bench.iter(|| black_box(&mut w).step(parallel)));
        // The `State` of two levels, 8 steps a call (the measured depth cuts them into passes).
        let w = Wave::new(n);
        group.throughput(Throughput::Elements((8 * n * n * n) as u64));
        // The coefficient as users pass it (the interior's shape, read at the point), and padded
        // as Devito pads it (each row on a cache line too).
        for (name, m) in [("cnda_state_8_steps", Wave::interior(&w.m)), ("cnda_state_8_steps_padded_m", w.m.clone())] {
            let mut state = w.state();
            group.bench_function(format!("{p}{name}"), |bench| {
                bench.iter(|| {
                    let s = black_box(&mut state);
                    if parallel {
                        Acoustic.par_apply_steps_with(s, 8, &m, (w.c,), [Boundary::Fixed; 3]);
                    } else {
                        Acoustic.apply_steps(s, 8, &m, (w.c,));
                    }
                })
            });
        }
        group.throughput(Throughput::Elements((n * n * n) as u64));
    }
    group.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(std::time::Duration::from_secs(2))
        .measurement_time(std::time::Duration::from_secs(5))
}

criterion_group! { name = benches; config = config(); targets = acoustic }
criterion_main!(benches);
