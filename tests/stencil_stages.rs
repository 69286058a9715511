//! Staged time steps (`Stages`): stencils that each write some fields of a `State`, later
//! stages reading the new values of earlier ones, fused on the CPU (sequential and on rayon's
//! threads, slabs and the pipeline) against the reference of `common/rings.rs` (each field's
//! ring rotated by hand after the stage that writes it, halos refilled by their definitions,
//! one `apply` per stage). Bit for bit, every level and every scratch array.

use cnda::prelude::*;
use cnda::stencil::{Boundary, FieldBoundaries, Stages, State};
use proptest::prelude::*;

#[path = "common/naive_halos.rs"]
mod naive_halos;
#[cfg(feature = "rayon")]
#[path = "common/pool_install.rs"]
mod pool_install;
#[path = "common/rings.rs"]
mod rings;
#[path = "common/stepping.rs"]
mod stepping;
#[path = "common/system_stencils.rs"]
#[allow(dead_code)] // each test file uses some of them
mod system_stencils;

use naive_halos::boundaries;
use rings::{same, RefStage, Rings};
use stepping::{field, on_threads};
use system_stencils::{UpdateE, UpdateH};

stencil! {
    /// Stage 1 of 3: a slope from `u` (radius 1).
    #[writes(k1)]
    pub struct Slope1 = |u, k1, k2; a: T| a * (u[-1, 0] + u[1, 0] + u[0, -1] + u[0, 1] - 4.0 * u[0, 0]);
}

stencil! {
    /// Stage 2 of 3: a slope at `u + k1` (radius 1, diagonal).
    #[writes(k2)]
    pub struct Slope2 = |u, k1, k2; a: T| a * ((u[1, 1] + k1[1, 1]) - (u[-1, -1] + k1[-1, -1])) - 0.5 * k2[0, 0];
}

stencil! {
    /// Stage 3 of 3: `u` from both slopes, radius 2 along axis 0 (wider than the others).
    #[writes(u)]
    pub struct Combine = |u, k1, k2, m; b: T| u[0, 0] + b * m[0, 0] * (k1[0, 0] + k2[0, 0]) + 0.125 * (u[2, 0] - u[-2, 0]);
}

stencil! {
    /// A staggered wave at two levels: the velocity from the pressure's gradient...
    #[levels(2)]
    #[writes(v)]
    pub struct Velocity = |p, pm, v, vm; c: T| v[0, 0] - c * diff_half(p, 0, 2, 1) + 0.01 * (vm[0, 0] - pm[0, 1]);
}

stencil! {
    /// ... then the pressure from the new velocity's divergence, and its level before.
    #[levels(2)]
    #[writes(p)]
    pub struct Pressure = |p, pm, v, vm; c: T| p[0, 0] - c * diff_half(v, 0, 2, -1) + 0.02 * (pm[0, 0] - vm[0, -1]);
}

stencil! {
    /// Two fields in the first stage of two.
    #[writes(a, c)]
    pub struct Outer = |a, b, c; s: T| (a[0, 0] + s * b[0, 1], c[0, 0] - s * (a[1, 0] - b[-1, 0]));
}

stencil! {
    /// The middle field from both new outer ones.
    #[writes(b)]
    pub struct Middle = |a, b, c; s: T| b[0, 0] + s * (a[0, -1] * c[1, 0]);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Yee's two stages over three fields, a coefficient field in the second.
    #[test]
    fn yee_stages_step_as_separate_sweeps(
        n0 in prop_oneof![1usize..12, 40usize..300], n1 in 1usize..11, steps in 0usize..10,
        picks in any::<[u8; 4]>(), periodic in any::<[bool; 2]>(), seed in 0u64..50, threads in 1usize..4,
    ) {
        let shape = [n0, n1];
        let (ez, hx, hy) = (field(shape, seed), field(shape, seed + 5), field(shape, seed + 9));
        let eps = field(shape, seed + 2).map(|x| 1.5 + x);
        let b = boundaries(picks, periodic);
        let mut want = Rings::new(&[vec![ez.clone()], vec![hx.clone()], vec![hy.clone()]]);
        let h = |l: &[&Array<f64, 2>], out: &mut [Array<f64, 2>]| {
            let (x, y) = out.split_at_mut(1);
            UpdateH.apply((l[0], l[1], l[2]), (&mut x[0], &mut y[0]), (0.4,));
        };
        let e = |l: &[&Array<f64, 2>], out: &mut [Array<f64, 2>]| UpdateE.apply((l[0], l[1], l[2], &eps), &mut out[0], (0.4,));
        let stages: [RefStage<'_>; 2] = [(&[1, 2], &h), (&[0], &e)];
        want.run_stages(steps, [1, 1], &[b], &stages);
        let mut state = State::from_fields([ez, hx, hy]);
        let yee = Stages((UpdateH, UpdateE));
        on_threads(threads, |parallel| {
            #[cfg(feature = "rayon")]
            if parallel {
                return yee.par_apply_steps_with(&mut state, steps, ((), &eps), ((0.4,), (0.4,)), b);
            }
            let _ = parallel;
            yee.apply_steps_with(&mut state, steps, ((), &eps), ((0.4,), (0.4,)), b);
        });
        same(state, &want)?;
    }

    /// Three stages of different radii (the halo as wide as the widest), a field per stage.
    #[test]
    fn three_stages_of_different_radii_step_as_separate_sweeps(
        n0 in prop_oneof![1usize..14, 40usize..300], n1 in 1usize..10, steps in 0usize..9,
        picks in any::<[u8; 4]>(), periodic in any::<[bool; 2]>(), seed in 0u64..50, threads in 1usize..4,
    ) {
        let shape = [n0, n1];
        let (u, k1, k2) = (field(shape, seed), field(shape, seed + 1), field(shape, seed + 2));
        let m = field(shape, seed + 3).map(|x| 1.0 + 0.5 * x);
        let b = boundaries(picks, periodic);
        let mut want = Rings::new(&[vec![u.clone()], vec![k1.clone()], vec![k2.clone()]]);
        let s1 = |l: &[&Array<f64, 2>], out: &mut [Array<f64, 2>]| Slope1.apply((l[0], l[1], l[2]), &mut out[0], (0.1,));
        let s2 = |l: &[&Array<f64, 2>], out: &mut [Array<f64, 2>]| Slope2.apply((l[0], l[1], l[2]), &mut out[0], (0.2,));
        let s3 = |l: &[&Array<f64, 2>], out: &mut [Array<f64, 2>]| Combine.apply((l[0], l[1], l[2], &m), &mut out[0], (0.3,));
        let stages: [RefStage<'_>; 3] = [(&[1], &s1), (&[2], &s2), (&[0], &s3)];
        want.run_stages(steps, [2, 1], &[b], &stages);
        let mut state = State::from_fields([u, k1, k2]);
        let rk = Stages((Slope1, Slope2, Combine));
        let (c, p) = (((), (), &m), ((0.1,), (0.2,), (0.3,)));
        on_threads(threads, |parallel| {
            #[cfg(feature = "rayon")]
            if parallel {
                return rk.par_apply_steps_with(&mut state, steps, c, p, b);
            }
            let _ = parallel;
            rk.apply_steps_with(&mut state, steps, c, p, b);
        });
        same(state, &want)?;
    }

    /// Two fields at two levels each, staggered, each with its own boundaries: the second stage
    /// reads the first's new level 0 and its level 1 (the step before).
    #[test]
    fn staged_levels_step_as_separate_sweeps(
        n0 in prop_oneof![2usize..12, 40usize..200], n1 in 2usize..10, steps in 0usize..9,
        picks in any::<[u8; 8]>(), periodic in any::<[bool; 2]>(), seed in 0u64..50, threads in 1usize..4,
    ) {
        let shape = [n0, n1];
        let levels = [field(shape, seed), field(shape, seed + 1), field(shape, seed + 2), field(shape, seed + 3)];
        let (bp, bv) = (boundaries([picks[0], picks[1], picks[2], picks[3]], periodic), boundaries([picks[4], picks[5], picks[6], picks[7]], periodic));
        let mut want = Rings::new(&[levels[..2].to_vec(), levels[2..].to_vec()]);
        let v = |l: &[&Array<f64, 2>], out: &mut [Array<f64, 2>]| Velocity.apply((l[0], l[1], l[2], l[3]), &mut out[0], (0.3,));
        let p = |l: &[&Array<f64, 2>], out: &mut [Array<f64, 2>]| Pressure.apply((l[0], l[1], l[2], l[3]), &mut out[0], (0.3,));
        let stages: [RefStage<'_>; 2] = [(&[1], &v), (&[0], &p)];
        want.run_stages(steps, [1, 1], &[bp, bv], &stages);
        let [p0, p1, v0, v1] = levels;
        let mut state = State::from_levels([[p0, p1], [v0, v1]]);
        let wave = Stages((Velocity, Pressure));
        let b = FieldBoundaries([bp.into(), bv.into()]);
        on_threads(threads, |parallel| {
            #[cfg(feature = "rayon")]
            if parallel {
                return wave.par_apply_steps_with(&mut state, steps, ((), ()), ((0.3,), (0.3,)), b);
            }
            let _ = parallel;
            wave.apply_steps_with(&mut state, steps, ((), ()), ((0.3,), (0.3,)), b);
        });
        same(state, &want)?;
    }

    /// A stage writing two fields that are not neighbours in the state, then the one between.
    #[test]
    fn a_stage_of_several_fields_steps_as_separate_sweeps(
        n0 in prop_oneof![1usize..12, 40usize..200], n1 in 1usize..10, steps in 0usize..9,
        picks in any::<[u8; 4]>(), periodic in any::<[bool; 2]>(), seed in 0u64..50, threads in 1usize..4,
    ) {
        let shape = [n0, n1];
        let (a, b0, c) = (field(shape, seed), field(shape, seed + 4), field(shape, seed + 8));
        let b = boundaries(picks, periodic);
        let mut want = Rings::new(&[vec![a.clone()], vec![b0.clone()], vec![c.clone()]]);
        let outer = |l: &[&Array<f64, 2>], out: &mut [Array<f64, 2>]| {
            let (x, y) = out.split_at_mut(1);
            Outer.apply((l[0], l[1], l[2]), (&mut x[0], &mut y[0]), (0.25,));
        };
        let middle = |l: &[&Array<f64, 2>], out: &mut [Array<f64, 2>]| Middle.apply((l[0], l[1], l[2]), &mut out[0], (0.5,));
        let stages: [RefStage<'_>; 2] = [(&[0, 2], &outer), (&[1], &middle)];
        want.run_stages(steps, [1, 1], &[b], &stages);
        let mut state = State::from_fields([a, b0, c]);
        let s = Stages((Outer, Middle));
        on_threads(threads, |parallel| {
            #[cfg(feature = "rayon")]
            if parallel {
                return s.par_apply_steps_with(&mut state, steps, ((), ()), ((0.25,), (0.5,)), b);
            }
            let _ = parallel;
            s.apply_steps_with(&mut state, steps, ((), ()), ((0.25,), (0.5,)), b);
        });
        same(state, &want)?;
    }
}

/// Stages that leave a field unwritten, or write one twice, are refused before anything runs.
#[test]
fn stages_must_write_each_field_once() {
    let mut state =
        State::from_fields([Array::<f64, 2>::full([6, 6], 1.0), Array::zeros([6, 6]), Array::zeros([6, 6])]);
    let eps = Array::full([6, 6], 1.0);
    let twice = Stages((UpdateE, UpdateE));
    let e =
        twice.try_apply_steps_with(&mut state, 2, (&eps, &eps), ((0.1,), (0.1,)), [Boundary::Fixed; 2]).unwrap_err();
    assert!(e.to_string().contains("exactly one stage"), "{e}");
    assert_eq!(state.field(0)[[3, 3]], 1.0, "nothing ran");
}
