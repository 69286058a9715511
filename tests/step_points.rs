//! Sources and receivers inside time steps (`PointIo`): injected and sampled after the sweep
//! (the stage) that writes their field, fused on the CPU (sequential and on rayon's threads,
//! slabs and the pipeline), against the reference of `common/rings.rs` with `Points::inject`
//! and `Points::sample` called on each new level before its halos are refilled. Bit for bit,
//! every level, every scratch array and every recorded sample.

use cnda::prelude::*;
use cnda::stencil::{Boundary, FieldBoundaries, PointIo, Points, Stages, State};
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
use system_stencils::{UpdateH, Wave};

stencil! {
    /// Yee's electric update in a vacuum (no permittivity field).
    #[writes(ez)]
    pub struct UpdateEVacuum = |ez, hx, hy; c: T| ez[0, 0] + c * ((hy[0, 0] - hy[-1, 0]) - (hx[0, 0] - hx[0, -1]));
}

/// `count` points in the interior of `shape` for halos `r` wide, on the grid or off it (from
/// `picks`), two of them on one node when there are several.
fn points(shape: [usize; 2], r: usize, picks: &[(u16, u16, u8)]) -> Points<2> {
    let coords = picks.iter().enumerate().map(|(k, &(a, b, kind))| {
        let pick = |x: u16, n: usize| {
            let span = n - 2 * r; // interior nodes along the axis
            let base = r + x as usize % span;
            match kind % 3 {
                0 => base as f64,                               // on a node
                _ if base + 1 >= n - r => base as f64,          // no room for a neighbour
                1 => base as f64 + 0.25 + 0.5 * (k % 2) as f64, // between two
                _ => base as f64 + 0.5,
            }
        };
        [pick(a, shape[0]), pick(b, shape[1])]
    });
    let mut coords: Vec<[f64; 2]> = coords.collect();
    if coords.len() > 2 {
        coords[2] = coords[0];
    }
    Points::new(coords)
}

fn series(steps: usize, count: usize, seed: u64) -> Array<f64, 2> {
    Array::from_fn([steps, count], |[t, p]| ((t as u64 * 7 + p as u64 * 3 + seed) % 11) as f64 * 0.125 - 0.5)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// A wave at two levels with two sets of sources and a line of receivers.
    #[test]
    fn a_wave_with_sources_and_receivers_steps_as_separate_steps(
        n0 in prop_oneof![5usize..14, 40usize..300], n1 in 5usize..12, steps in 0usize..10,
        picks in any::<[u8; 4]>(), periodic in any::<[bool; 2]>(), seed in 0u64..50, threads in 1usize..4,
        src in proptest::collection::vec(any::<(u16, u16, u8)>(), 1..4),
        rec in proptest::collection::vec(any::<(u16, u16, u8)>(), 1..6),
    ) {
        let shape = [n0, n1];
        let (u, um, m) = (field(shape, seed), field(shape, seed + 3), field(shape, seed + 7).map(|x| 1.0 + 0.2 * x));
        let b = boundaries(picks, periodic);
        let (sources, more, receivers) = (points(shape, 2, &src), points(shape, 2, &src[..1]), points(shape, 2, &rec));
        let (wavelet, other) = (series(steps, sources.len(), seed), series(steps, 1, seed + 1));
        let mut want_record = Array::<f64, 2>::zeros([steps, receivers.len()]);
        let mut want = Rings::new(&[vec![u.clone(), um.clone()]]);
        let sweep = |l: &[&Array<f64, 2>], out: &mut [Array<f64, 2>]| Wave.apply((l[0], l[1], &m), &mut out[0], (0.05,));
        want.run_stages_then(steps, [2, 2], &[b], &[(&[0], &sweep)], &mut |t, _, new| {
            let row = |s: &Array<f64, 2>| (0..s.shape()[1]).map(|p| s[[t, p]]).collect::<Vec<_>>();
            sources.inject(new.view_mut(), &row(&wavelet));
            more.inject(new.view_mut(), &row(&other));
            receivers.sample(new, want_record.view_mut().slice_mut(s![t, ..]));
        });
        let mut state = State::from_levels([[u, um]]);
        let mut record = Array::<f64, 2>::full([steps, receivers.len()], f64::NAN);
        on_threads(threads, |parallel| {
            let io = PointIo::new(b).inject(&sources, 0, wavelet.view()).inject(&more, 0, other.view()).record(&receivers, 0, record.view_mut());
            #[cfg(feature = "rayon")]
            if parallel {
                return Wave.par_apply_steps_with(&mut state, steps, &m, (0.05,), io);
            }
            let _ = parallel;
            Wave.apply_steps_with(&mut state, steps, &m, (0.05,), io);
        });
        same(state, &want)?;
        prop_assert_eq!(record, want_record);
    }

    /// Yee's stages: a source in the magnetic field (stage 1) read by the electric update in the
    /// same step, a source in the electric field (stage 2), receivers of both.
    #[test]
    fn staged_sources_and_receivers_step_as_separate_stages(
        n0 in prop_oneof![3usize..12, 40usize..200], n1 in 3usize..10, steps in 0usize..9,
        picks in any::<[u8; 4]>(), periodic in any::<[bool; 2]>(), seed in 0u64..50, threads in 1usize..4,
        src in proptest::collection::vec(any::<(u16, u16, u8)>(), 1..3),
        rec in proptest::collection::vec(any::<(u16, u16, u8)>(), 1..4),
    ) {
        let shape = [n0, n1];
        let (ez, hx, hy) = (field(shape, seed), field(shape, seed + 5), field(shape, seed + 9));
        let b = boundaries(picks, periodic);
        let (sources, receivers) = (points(shape, 1, &src), points(shape, 1, &rec));
        let (in_h, in_e) = (series(steps, sources.len(), seed), series(steps, sources.len(), seed + 4));
        let (mut want_h, mut want_e) = (Array::<f64, 2>::zeros([steps, receivers.len()]), Array::<f64, 2>::zeros([steps, receivers.len()]));
        let mut want = Rings::new(&[vec![ez.clone()], vec![hx.clone()], vec![hy.clone()]]);
        let h = |l: &[&Array<f64, 2>], out: &mut [Array<f64, 2>]| {
            let (x, y) = out.split_at_mut(1);
            UpdateH.apply((l[0], l[1], l[2]), (&mut x[0], &mut y[0]), (0.4,));
        };
        let e = |l: &[&Array<f64, 2>], out: &mut [Array<f64, 2>]| UpdateEVacuum.apply((l[0], l[1], l[2]), &mut out[0], (0.4,));
        let stages: [RefStage<'_>; 2] = [(&[1, 2], &h), (&[0], &e)];
        want.run_stages_then(steps, [1, 1], &[b], &stages, &mut |t, f, new| {
            let row = |s: &Array<f64, 2>| (0..s.shape()[1]).map(|p| s[[t, p]]).collect::<Vec<_>>();
            match f {
                1 => sources.inject(new.view_mut(), &row(&in_h)),
                2 => receivers.sample(new, want_h.view_mut().slice_mut(s![t, ..])),
                _ => {
                    sources.inject(new.view_mut(), &row(&in_e));
                    receivers.sample(new, want_e.view_mut().slice_mut(s![t, ..]));
                }
            }
        });
        let mut state = State::from_fields([ez, hx, hy]);
        let (mut rec_h, mut rec_e) = (Array::<f64, 2>::zeros([steps, receivers.len()]), Array::<f64, 2>::zeros([steps, receivers.len()]));
        let yee = Stages((UpdateH, UpdateEVacuum));
        on_threads(threads, |parallel| {
            let io = PointIo::new(b)
                .inject(&sources, 1, in_h.view())
                .inject(&sources, 0, in_e.view())
                .record(&receivers, 2, rec_h.view_mut())
                .record(&receivers, 0, rec_e.view_mut());
            #[cfg(feature = "rayon")]
            if parallel {
                return yee.par_apply_steps_with(&mut state, steps, ((), ()), ((0.4,), (0.4,)), io);
            }
            let _ = parallel;
            yee.apply_steps_with(&mut state, steps, ((), ()), ((0.4,), (0.4,)), io);
        });
        same(state, &want)?;
        prop_assert_eq!(rec_h, want_h);
        prop_assert_eq!(rec_e, want_e);
    }
}

stencil! {
    /// A wave in 3D at two levels, radius 1.
    #[levels(2)]
    struct Wave3 = |u, um; c: T| 2.0 * u[0, 0, 0] - um[0, 0, 0] + c * laplace(u, 2);
}

/// States that own their halo (on the CPU in rows of whole cache lines, past the padded width)
/// step with sources and receivers, in stages and in 3D as states padded by hand: bit for bit,
/// interiors and records, sequential and threaded.
#[test]
fn states_owning_their_halo_step_points_stages_and_3d_as_ones_padded_by_hand() {
    use cnda::stencil::{pad_axes, PadMode};
    let zero = [PadMode::Constant(0.0); 2];
    let steps = 7;
    for (shape, threads) in [([9, 11], 1), ([40, 13], 2)] {
        let (u, um, m) = (field(shape, 1), field(shape, 2), field(shape, 3).map(|x| 1.0 + 0.2 * x));
        let (sources, receivers) = (Points::new([[4.5, 5.25]]), Points::new([[3.0, 4.0], [5.5, 6.75]]));
        let wavelet = series(steps, 1, 5);
        let run = |state: &mut State<f64, 2, 1, 2>, m: &Array<f64, 2>| {
            let mut record = Array::<f64, 2>::zeros([steps, 2]);
            on_threads(threads, |parallel| {
                let b = FieldBoundaries([[Boundary::Periodic; 2].into()]);
                let io = PointIo::new(b).inject(&sources, 0, wavelet.view()).record(&receivers, 0, record.view_mut());
                #[cfg(feature = "rayon")]
                if parallel {
                    return Wave.par_apply_steps_with(state, steps, m, (0.05,), io);
                }
                let _ = parallel;
                Wave.apply_steps_with(state, steps, m, (0.05,), io);
            });
            record
        };
        let mut by_hand = State::from_levels([[pad_axes(&u, [2, 2], zero), pad_axes(&um, [2, 2], zero)]]);
        let want = run(&mut by_hand, &pad_axes(&m, [2, 2], zero));
        let mut owning = State::from_interior_levels([[u, um]], [2, 2]);
        assert!(owning.field(0).shape()[1] > shape[1] + 4, "rows of whole lines");
        assert_eq!(run(&mut owning, &m), want, "{shape:?}: the records");
        for l in 0..2 {
            let inner = by_hand.level(0, l).slice(s![2..-2, 2..-2]).to_owned();
            assert_eq!(owning.interior_level(0, l).to_owned(), inner, "{shape:?} level {l}");
        }

        let (ez, hx, hy) = (field(shape, 4), field(shape, 5), field(shape, 6));
        let pad = |a: &Array<f64, 2>| pad_axes(a, [1, 1], zero);
        let mut by_hand = State::from_fields([pad(&ez), pad(&hx), pad(&hy)]);
        let mut owning = State::from_interiors([ez, hx, hy], [1, 1]);
        let yee = Stages((UpdateH, UpdateEVacuum));
        for state in [&mut by_hand, &mut owning] {
            yee.apply_steps_with(state, steps, ((), ()), ((0.4,), (0.4,)), [Boundary::Periodic; 2]);
        }
        for f in 0..3 {
            let inner = by_hand.field(f).slice(s![1..-1, 1..-1]).to_owned();
            assert_eq!(owning.interior(f).to_owned(), inner, "{shape:?}: Yee's field {f}");
        }
    }
    let u = Array::<f32, 3>::from_fn([5, 6, 7], |[i, j, k]| ((i * 7 + j * 3 + k) % 5) as f32 * 0.25);
    let pad = |a: &Array<f32, 3>| pad_axes(a, [1; 3], [PadMode::Constant(0.0); 3]);
    let mut by_hand = State::from_levels([[pad(&u), pad(&u)]]);
    let mut owning = State::from_interior_levels([[u.clone(), u]], [1; 3]);
    assert_eq!(owning.field(0).shape(), [7, 8, 16], "rows of whole lines of f32");
    for state in [&mut by_hand, &mut owning] {
        Wave3.apply_steps_with(state, steps, (), (0.1,), [Boundary::Periodic; 3]);
    }
    assert_eq!(owning.interior(0).to_owned(), by_hand.field(0).slice(s![1..-1, 1..-1, 1..-1]).to_owned());
}

/// More steps than one pass stages (256): the records' rows continue across passes. A line of
/// receivers on the grid (one copy per step) beside off-grid ones.
#[test]
fn records_continue_across_passes() {
    let shape = [24, 20];
    let (u, um, m) = (field(shape, 1), field(shape, 2), Array::full(shape, 0.5));
    let b = FieldBoundaries([[Boundary::Periodic; 2].into()]);
    let (sources, receivers) = (Points::new([[9.5, 7.0]]), Points::new([[12.25, 3.5], [4.0, 15.0]]));
    let steps = 600;
    let wavelet = series(steps, 1, 3);
    let line = Points::new((2..18).map(|j| [10.0, j as f64]).chain([[11.0, 5.0], [11.0, 6.0]]));
    let mut want_record = Array::<f64, 2>::zeros([steps, 2]);
    let mut want_line = Array::<f64, 2>::zeros([steps, line.len()]);
    let mut want = Rings::new(&[vec![u.clone(), um.clone()]]);
    let sweep = |l: &[&Array<f64, 2>], out: &mut [Array<f64, 2>]| Wave.apply((l[0], l[1], &m), &mut out[0], (0.01,));
    let bs = [[[Boundary::Periodic; 2]; 2]];
    want.run_stages_then(steps, [2, 2], &bs, &[(&[0], &sweep)], &mut |t, _, new| {
        sources.inject(new.view_mut(), &[wavelet[[t, 0]]]);
        receivers.sample(new, want_record.view_mut().slice_mut(s![t, ..]));
        line.sample(new, want_line.view_mut().slice_mut(s![t, ..]));
    });
    let mut state = State::from_levels([[u, um]]);
    let mut record = Array::<f64, 2>::zeros([steps + 5, 2]);
    let mut line_record = Array::<f64, 2>::zeros([steps, line.len()]);
    let io = PointIo::new(b).inject(&sources, 0, wavelet.view()).record(&receivers, 0, record.view_mut()).record(
        &line,
        0,
        line_record.view_mut(),
    );
    Wave.apply_steps_with(&mut state, steps, &m, (0.01,), io);
    same(state, &want).unwrap();
    assert_eq!(line_record, want_line);
    assert_eq!(record.slice(s![..steps, ..]).to_owned(), want_record);
    assert!(record.slice(s![steps.., ..]).iter().all(|&x| x == 0.0), "rows past the steps untouched");
}

/// Points in the halo, series or records of the wrong shape, and fields past the state's are
/// refused before any step.
#[test]
fn bad_points_are_refused_before_any_step() {
    let shape = [16, 16];
    let fresh = || State::from_levels([[field(shape, 1), field(shape, 2)]]);
    let m = Array::full(shape, 1.0);
    let wavelet = series(10, 1, 0);
    let mut record = Array::<f64, 2>::zeros([10, 1]);
    let inside = Points::new([[8.0, 8.0]]);
    let cases: Vec<(Points<2>, usize, usize, &str)> = vec![
        (Points::new([[1.0, 8.0]]), 0, 10, "not in the interior"),
        (Points::new([[8.0, 13.5]]), 0, 10, "not in the interior"),
        (inside.clone(), 1, 10, "points on field 1 of a state of 1 fields"),
        (inside.clone(), 0, 11, "a series of shape [10, 1] for 11 steps of 1 points"),
    ];
    for (points, f, steps, msg) in cases {
        let mut state = fresh();
        let before = state.field(0).clone();
        let io =
            PointIo::new([Boundary::Fixed; 2]).inject(&points, f, wavelet.view()).record(&inside, 0, record.view_mut());
        let e = Wave.try_apply_steps_with(&mut state, steps, &m, (0.1,), io).unwrap_err();
        assert!(e.to_string().contains(msg), "{msg}: {e}");
        assert_eq!(state.field(0), &before, "nothing ran");
    }
}
