//! The systems checks of tests/mpi.rs (a module of that binary): `stencil!` systems of several
//! fields, time levels and coefficient fields stepped over distributed grids with deep halos
//! (`apply_steps_dist` on a `DistState`), each against one process stepping the whole grid with
//! `apply_steps_with` on a `State`, bit for bit.

use cnda::dist::{DistArray, DistState, StencilApplyDist};
use cnda::prelude::*;
use cnda::stencil::{pad_axes, Boundaries, Boundary, FieldBoundaries, PadMode, PointIo, Points, Stages, State};
use mpi::traits::Communicator;

use super::system_stencils::{Reaction, UpdateE, UpdateH, Wave};

/// A grid's values, different per field `salt`.
fn values<const N: usize>(salt: usize) -> impl Fn([usize; N]) -> f64 {
    move |g| g.iter().enumerate().map(|(k, &i)| ((i * (5 + k + salt) + 3 * k + salt) % 13) as f64 * 0.05).sum()
}

/// The whole grid of `f` for one process, padded with periodic images along the periodic axes
/// (by `widths`).
fn whole<const N: usize>(
    global: [usize; N],
    widths: [usize; N],
    periodic: [bool; N],
    f: impl Fn([usize; N]) -> f64,
) -> Array<f64, N> {
    let modes = periodic.map(|p| if p { PadMode::Periodic } else { PadMode::Constant(0.0) });
    pad_axes(Array::from_fn(global, f).view(), widths, modes)
}

/// A distributed field holding `f` at its owned points.
fn distributed<const N: usize>(
    comm: &impl Communicator,
    (global, halo, periodic): ([usize; N], [usize; N], [bool; N]),
    f: impl Fn([usize; N]) -> f64,
) -> DistArray<f64, N> {
    let mut a = DistArray::<f64, N>::new(comm, global, halo, periodic);
    a.fill_owned_with(f);
    a
}

/// Asserts that the gathered `field` equals the one-process `reference` (without its periodic
/// padding).
fn assert_same<const N: usize>(field: &DistArray<f64, N>, reference: &Array<f64, N>, widths: [usize; N], what: &str) {
    let global = field.decomposition().global_shape();
    if let Some(g) = field.gather(0) {
        let strip = (0..N).fold(reference.view().into_strided(), |v, k| v.narrow(k, widths[k], global[k]));
        assert_eq!(g, strip.to_owned(), "{what}");
    }
}

/// Two fields and a coefficient field stepped `steps` times (`Reaction`, one exchange per
/// `halo / 1` steps) with `boundaries` per field; the periodic axes `Periodic`.
pub fn check_reaction_dist(
    comm: &impl Communicator,
    grid: ([usize; 2], [usize; 2], [bool; 2]),
    sides: [[Boundary<f64>; 2]; 2],
    steps: usize,
) {
    let (global, halo, periodic) = grid;
    let with_periodic = |sides: [[Boundary<f64>; 2]; 2]| {
        let mut b = Boundaries::from(sides);
        for (k, &p) in periodic.iter().enumerate() {
            if p {
                b = b.with(k, cnda::stencil::Side::Low, Boundary::Periodic).with(
                    k,
                    cnda::stencil::Side::High,
                    Boundary::Periodic,
                );
            }
        }
        b
    };
    // The second field's conditions mirrored, so the fields differ.
    let boundaries = FieldBoundaries([with_periodic(sides), with_periodic([sides[1], sides[0]])]);
    let widths = periodic.map(usize::from);
    let mut one = State::from_fields([0, 1].map(|salt| whole(global, widths, periodic, values(salt))));
    let k = whole(global, widths, periodic, values(2));
    Reaction.apply_steps_with(&mut one, steps, &k, (0.1, 0.02), boundaries);

    let mut state = DistState::from_fields([0, 1].map(|salt| distributed(comm, grid, values(salt))));
    let mut kd = distributed(comm, grid, values(2));
    Reaction.apply_steps_dist(&mut state, steps, &mut kd, (0.1, 0.02), boundaries);
    // Each process's steps on the global pool's threads too (a `DistArray` stays on its thread:
    // no `pool.install`).
    let mut par = DistState::from_fields([0, 1].map(|salt| distributed(comm, grid, values(salt))));
    Reaction.par_apply_steps_dist(&mut par, steps, &mut kd, (0.1, 0.02), boundaries);
    for f in 0..2 {
        let what = format!("Reaction field {f}: {global:?} halo {halo:?} {periodic:?} {sides:?}, {steps} steps");
        assert_same(state.field(f), one.field(f), widths, &what);
        assert_same(par.field(f), one.field(f), widths, &format!("{what}, on threads"));
    }
}

/// A wave of two time levels (radius 2) stepped `steps` times with `Fixed` or periodic sides.
pub fn check_wave_dist(comm: &impl Communicator, grid: ([usize; 2], [usize; 2], [bool; 2]), steps: usize) {
    let (global, halo, periodic) = grid;
    let widths = periodic.map(|p| if p { 2 } else { 0 });
    let boundaries = periodic.map(|p| if p { Boundary::Periodic } else { Boundary::Fixed });
    let mut one = State::from_levels([[0, 1].map(|salt| whole(global, widths, periodic, values(salt)))]);
    let m = whole(global, widths, periodic, values(3));
    Wave.apply_steps_with(&mut one, steps, &m, (0.04,), boundaries);

    let mut state = DistState::from_levels([[0, 1].map(|salt| distributed(comm, grid, values(salt)))]);
    let mut md = distributed(comm, grid, values(3));
    Wave.apply_steps_dist(&mut state, steps, &mut md, (0.04,), boundaries);
    let what = format!("Wave: {global:?} halo {halo:?} {periodic:?}, {steps} steps");
    assert_same(state.field(0), one.field(0), widths, &what);
    assert_same(state.level(0, 1), one.level(0, 1), widths, &format!("{what}, the level before"));
}

/// Yee's two stages (each of radius 1: a step reaches 2 points) stepped `steps` times with
/// `Fixed` or periodic sides.
pub fn check_yee_dist(comm: &impl Communicator, grid: ([usize; 2], [usize; 2], [bool; 2]), steps: usize) {
    let (global, halo, periodic) = grid;
    let widths = periodic.map(usize::from);
    let boundaries = periodic.map(|p| if p { Boundary::Periodic } else { Boundary::Fixed });
    let yee = Stages((UpdateH, UpdateE));
    let mut one = State::from_fields([4, 5, 6].map(|salt| whole(global, widths, periodic, values(salt))));
    let eps = whole(global, widths, periodic, |g| 1.0 + values(7)(g));
    yee.apply_steps_with(&mut one, steps, ((), &eps), ((0.3,), (0.3,)), boundaries);

    let mut state = DistState::from_fields([4, 5, 6].map(|salt| distributed(comm, grid, values(salt))));
    let mut epsd = distributed(comm, grid, |g| 1.0 + values(7)(g));
    yee.apply_steps_dist(&mut state, steps, ((), &mut epsd), ((0.3,), (0.3,)), boundaries);
    let mut par = DistState::from_fields([4, 5, 6].map(|salt| distributed(comm, grid, values(salt))));
    yee.par_apply_steps_dist(&mut par, steps, ((), &mut epsd), ((0.3,), (0.3,)), boundaries);
    for f in 0..3 {
        let what = format!("Yee field {f}: {global:?} halo {halo:?} {periodic:?}, {steps} steps");
        assert_same(state.field(f), one.field(f), widths, &what);
        assert_same(par.field(f), one.field(f), widths, &format!("{what}, on threads"));
    }
}

/// The wave with two sources (one near a block edge, one across the wrap of a periodic axis)
/// and a line of receivers across the blocks (`PointIo`), stepped `steps` times: the field and
/// every process's record equal one process's, bit for bit.
pub fn check_wave_points_dist(comm: &impl Communicator, grid: ([usize; 2], [usize; 2], [bool; 2]), steps: usize) {
    let (global, halo, periodic) = grid;
    let widths = periodic.map(|p| if p { 2 } else { 0 });
    let boundaries = periodic.map(|p| if p { Boundary::Periodic } else { Boundary::Fixed });
    let g = global.map(|n| n as f64);
    // Near the end of an axis: across the wrap from the first block's halo on a periodic one.
    let near_end = |a: usize| if periodic[a] { g[a] - 1.25 } else { g[a] - 3.25 };
    let sources = [[g[0] / 2.0 + 0.3, 5.6], [7.0, near_end(1)], [near_end(0), 8.4]];
    let receivers: Vec<[f64; 2]> =
        (3..global[1] - 3).map(|j| [g[0] / 2.0 - 1.5, j as f64 + 0.25]).chain([[9.0, 6.0]]).collect();
    let shifted = |p: &[[f64; 2]]| Points::new(p.iter().map(|c| [c[0] + widths[0] as f64, c[1] + widths[1] as f64]));
    let wavelet = Array::from_fn([steps, 3], |[t, q]| (t as f64 * 0.7 + q as f64).sin());

    let mut one = State::from_levels([[0, 1].map(|salt| whole(global, widths, periodic, values(salt)))]);
    let m = whole(global, widths, periodic, values(3));
    let mut expected = Array::<f64, 2>::zeros([steps, receivers.len()]);
    let (src, rec) = (shifted(&sources), shifted(&receivers));
    let io = PointIo::new(boundaries).inject(&src, 0, wavelet.view()).record(&rec, 0, expected.view_mut());
    Wave.apply_steps_with(&mut one, steps, &m, (0.04,), io);

    let mut state = DistState::from_levels([[0, 1].map(|salt| distributed(comm, grid, values(salt)))]);
    let mut md = distributed(comm, grid, values(3));
    let mut record = Array::<f64, 2>::full([steps + 1, receivers.len()], 9.0);
    let (src, rec) = (Points::new(sources), Points::new(receivers));
    let io = PointIo::new(boundaries).inject(&src, 0, wavelet.view()).record(&rec, 0, record.view_mut());
    Wave.apply_steps_dist(&mut state, steps, &mut md, (0.04,), io);
    let what = format!("Wave with points: {global:?} halo {halo:?} {periodic:?}, {steps} steps");
    assert_same(state.field(0), one.field(0), widths, &what);
    let same =
        (0..steps).all(|t| (0..expected.shape()[1]).all(|q| record[[t, q]].to_bits() == expected[[t, q]].to_bits()));
    assert!(same, "{what}: the record differs on process {}", comm.rank());
    assert!(record.view().into_strided().narrow(0, steps, 1).iter().all(|&x| x == 9.0), "{what}: a row past the steps");
    assert!(expected.iter().any(|&x| x != 0.0), "{what}: the receivers heard nothing");
}

/// What the distributed stepper refuses, on every process alike: a coefficient field split
/// otherwise, a halo narrower than the radius, sources and receivers.
pub fn check_systems_dist_errors(comm: &impl Communicator) {
    let grid = ([12, 10], [2, 2], [false, false]);
    // A state of fields split alike only, and of at least one field and level.
    let wider = distributed(comm, ([12, 10], [3, 2], [false, false]), values(1));
    let e = DistState::try_from_fields([distributed(comm, grid, values(0)), wider]).err().expect("other halos");
    assert!(matches!(e, cnda::Error::ShapeMismatch { .. }), "{e}");
    let e = DistState::<f64, 2, 0, 1>::try_from_levels([]).err().expect("no field");
    assert!(matches!(e, cnda::Error::Layout { .. }), "{e}");
    let mut state = DistState::from_levels([[distributed(comm, grid, values(0)), distributed(comm, grid, values(1))]]);
    let mut other = distributed(comm, ([12, 10], [3, 3], [false, false]), values(3));
    let e = Wave.try_apply_steps_dist(&mut state, 2, &mut other, (0.04,), [Boundary::Fixed; 2]).unwrap_err();
    assert!(matches!(e, cnda::Error::ShapeMismatch { .. }), "{e}");
    let narrow = ([12, 10], [1, 1], [true, true]);
    let mut state =
        DistState::from_levels([[distributed(comm, narrow, values(0)), distributed(comm, narrow, values(1))]]);
    let mut m = distributed(comm, narrow, values(3));
    let e = Wave.try_apply_steps_dist(&mut state, 2, &mut m, (0.04,), [Boundary::Periodic; 2]).unwrap_err();
    assert!(e.to_string().contains("narrower than the stencil's radius 2"), "{e}");
    // Receivers need the halo one point wider than a step reaches (periodic: every axis exchanges).
    let wrapped = ([12, 10], [2, 2], [true, true]);
    let points = Points::new(vec![[5.5, 5.0]]);
    let mut record = Array::<f64, 2>::zeros([2, 1]);
    let mut round =
        DistState::from_levels([[distributed(comm, wrapped, values(0)), distributed(comm, wrapped, values(1))]]);
    let mut m = distributed(comm, wrapped, values(3));
    let io = PointIo::new([Boundary::Periodic; 2]).record(&points, 0, record.view_mut());
    let e = Wave.try_apply_steps_dist(&mut round, 2, &mut m, (0.04,), io).unwrap_err();
    assert!(e.to_string().contains("(and one more for receivers)"), "{e}");
    let mut state = DistState::from_levels([[distributed(comm, grid, values(0)), distributed(comm, grid, values(1))]]);
    let mut m = distributed(comm, grid, values(3));
    // A source in the boundary layer, as one process refuses it.
    let near = Points::new(vec![[1.5, 5.0]]);
    let series = Array::<f64, 2>::zeros([2, 1]);
    let io = PointIo::new([Boundary::Fixed; 2]).inject(&near, 0, series.view());
    let e = Wave.try_apply_steps_dist(&mut state, 2, &mut m, (0.04,), io).unwrap_err();
    assert!(matches!(e, cnda::Error::Coordinate { .. }), "{e}");
    // Two stages of radius 1 reach 2 points a step: a halo of 1 is too narrow.
    let thin = ([12, 10], [1, 1], [true, false]);
    let mut state = DistState::from_fields([0, 1, 2].map(|salt| distributed(comm, thin, values(salt))));
    let mut eps = distributed(comm, thin, values(3));
    let yee = Stages((UpdateH, UpdateE));
    let b = [Boundary::Periodic, Boundary::Fixed];
    let e = yee.try_apply_steps_dist(&mut state, 2, ((), &mut eps), ((0.3,), (0.3,)), b).unwrap_err();
    assert!(e.to_string().contains("narrower than the 2 points one step's stages reach"), "{e}");
}

/// A wave of two levels stepped, saved whole (`DistState::save`: both levels in one file),
/// resumed on one process fewer and stepped on: the same as stepping without a stop, bit for
/// bit. The file stays in `CNDA_CHECKPOINT_DIR` for the h5py test.
#[cfg(feature = "hdf5")]
pub fn check_state_checkpoint(world: &mpi::topology::SimpleCommunicator) {
    use cnda::dist::Checkpoint;
    use mpi::topology::Color;
    use mpi::traits::CommunicatorCollectives;
    let grid = ([19, 15], [4, 4], [false, true]);
    let (global, halo, periodic) = grid;
    let widths = periodic.map(|p| if p { 2 } else { 0 });
    let boundaries = [Boundary::Fixed, Boundary::Periodic];
    // Both levels hold the same fixed rows (the scratch, which a checkpoint does not hold, starts
    // as a copy of the newest level when resumed).
    let level = |salt: usize| {
        move |g: [usize; 2]| if g[0] < 2 || g[0] + 2 >= global[0] { values(0)(g) } else { values(salt)(g) }
    };
    let mut one = State::from_levels([[0, 1].map(|salt| whole(global, widths, periodic, level(salt)))]);
    let m = whole(global, widths, periodic, values(3));
    Wave.apply_steps_with(&mut one, 12, &m, (0.04,), boundaries);

    let mut state = DistState::from_levels([[0, 1].map(|salt| distributed(world, grid, level(salt)))]);
    Wave.apply_steps_dist(&mut state, 5, &mut distributed(world, grid, values(3)), (0.04,), boundaries);
    let dir = std::env::var_os("CNDA_CHECKPOINT_DIR").map_or_else(std::env::temp_dir, Into::into);
    let size = world.size();
    let path = dir.join(format!("cnda-state-checkpoint-{size}.h5"));
    state.save(&path, Checkpoint { step: 5, time: 0.25 });
    let resumers = (size - 1).max(1);
    let color = if world.rank() < resumers { Color::with_value(0) } else { Color::undefined() };
    if let Some(sub) = world.split_by_color(color) {
        let (mut resumed, at) = DistState::<f64, 2, 1, 2>::load(&sub, &path, halo);
        assert_eq!(at, Checkpoint { step: 5, time: 0.25 });
        let mut md = distributed(&sub, grid, values(3));
        Wave.apply_steps_dist(&mut resumed, 7, &mut md, (0.04,), boundaries);
        let what = format!("saved on {size}, resumed on {resumers}");
        assert_same(resumed.field(0), one.field(0), widths, &what);
        assert_same(resumed.level(0, 1), one.level(0, 1), widths, &what);
        // A state of more levels than the file holds.
        let e = DistState::<f64, 2, 1, 3>::try_load(&sub, &path, halo).err().expect("no third level");
        assert!(e.to_string().contains("field0_level2"), "{e}");
    }
    // The distributed checkpoint resumes on one process too (`State::load`, its interiors padded
    // by the one-process arrays' halo): both levels as one process had them after 5 steps.
    if world.rank() == 0 {
        let mut five = State::from_levels([[0, 1].map(|salt| whole(global, widths, periodic, level(salt)))]);
        Wave.apply_steps_with(&mut five, 5, &m, (0.04,), boundaries);
        let (single, at) = State::<f64, 2, 1, 2>::load(&path, widths);
        assert_eq!(at, Checkpoint { step: 5, time: 0.25 });
        for l in 0..2 {
            let want = five.level(0, l).slice(s![.., widths[1]..widths[1] + global[1]]).to_owned();
            assert_eq!(single.interior_level(0, l).to_owned(), want, "level {l} on one process");
        }
    }
    world.barrier();
}

cnda::stencil! {
    /// `Reaction`'s system over f32 fields, accumulated in f64 (mixed precision).
    #[compute(f64)]
    struct Reaction64 = |u, v, k; a: f64, b: f64| {
        let uvv = u[0, 0] * v[0, 0] * v[0, 0];
        (
            u[0, 0] + a * (u[-1, 0] + u[1, 0] + u[0, -1] + u[0, 1] - 4.0 * u[0, 0]) - uvv + b * k[0, 0],
            v[0, 0] + a * 0.5 * (v[-1, 1] + v[1, -1] - 2.0 * v[0, 0]) + uvv - b * v[0, 0],
        )
    };
}

/// Mixed precision over MPI: f32 fields of a `#[compute(f64)]` system stepped with deep halos,
/// bit for bit one process's `State`.
pub fn check_mixed_dist(comm: &impl Communicator, grid: ([usize; 2], [usize; 2], [bool; 2]), steps: usize) {
    let (global, halo, periodic) = grid;
    let narrow = |a: Array<f64, 2>| a.map(|x| x as f32);
    let widths = periodic.map(usize::from);
    let sides = periodic.map(|p| if p { Boundary::Periodic } else { Boundary::Neumann });
    let mut one = State::from_fields([0, 1].map(|salt| narrow(whole(global, widths, periodic, values(salt)))));
    let k = narrow(whole(global, widths, periodic, values(2)));
    Reaction64.apply_steps_with(&mut one, steps, &k, (0.1, 0.02), sides);
    let field = |salt: usize| {
        let mut a = DistArray::<f32, 2>::new(comm, global, halo, periodic);
        a.fill_owned_with(|g| values(salt)(g) as f32);
        a
    };
    let mut state = DistState::from_fields([field(0), field(1)]);
    Reaction64.apply_steps_dist(&mut state, steps, &mut field(2), (0.1, 0.02), sides);
    for f in 0..2 {
        if let Some(g) = state.field(f).gather(0) {
            let strip = one.field(f).slice(s![widths[0]..widths[0] + global[0], widths[1]..widths[1] + global[1]]);
            assert_eq!(g, strip.to_owned(), "f32 field {f} in f64: {global:?} halo {halo:?} {periodic:?}");
        }
    }
}
