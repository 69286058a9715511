//! Time steps, written once for every stencil and backend: `k` sweeps of a
//! [`LinearStencil`](crate::stencil::LinearStencil) or a `stencil!` stencil over a
//! [`DoubleBuffer`], with a [`Boundary`] at each side of each axis,
//! bit for bit equal to `k` separate sweeps (refill the halo, `apply`, `swap`, `k` times, and a
//! last refill). On a backend whose calls are cheap (the CPU: `WAVEFRONT` in the stencil kernel
//! traits) the sweeps are **fused**, in one pass over memory; elsewhere each sweep is one call.
//!
//! One sweep over a grid larger than the caches is bound by memory bandwidth: every point is read
//! and written once per sweep. The fused form walks a **skewed wavefront** along the first axis:
//! at step `s` it computes hyperplane `s` of sweep 1, hyperplane `s - R` of sweep 2, ...,
//! hyperplane `s - (k - 1) R` of sweep `k`. Sweep `t` at hyperplane `i` reads sweep `t - 1` at
//! hyperplanes `i - R ..= i + R`, all computed earlier (the last one earlier in the same step), so
//! only about `(k + 1) R` hyperplanes of each field are in flight: they stay in the cache, and the
//! grid streams through memory once per `k` sweeps instead of once per sweep.
//!
//! A ring of `L + 1` arrays per evolving field suffices, as for separate sweeps (two for one
//! level, a `DoubleBuffer`): sweep `t` reads the `L` sweeps before it and writes the array sweep
//! `t - L - 1` wrote, overwriting its hyperplane `i` only after every reader of it (sweeps
//! `t - L ..= t - 1` at hyperplanes up to `i + R`; the last of them, sweep `t - 1` at `i + R`,
//! earlier in the same step) has run. A step of `S` stages is `S` consecutive sweeps, each
//! writing some fields (`rings.rs`): a sweep then reads back at most `L S` sweeps, the array it
//! overwrites was last read `S` sweeps before it, and every earlier sweep is as far ahead on
//! the wavefront, so the same order serves. The wavefront's unit may be a block of
//! hyperplanes, with the lag in blocks (`Plan::unit`). Each hyperplane is computed by the backend's stencil kernel
//! with the same taps in the same order as a whole sweep, so the results are identical, not
//! merely close.

//!
//! The halos follow the boundaries as [`fill_halo`](super::fill_halo) would refresh them before
//! every sweep: `Value` halos are filled once (no sweep writes them); periodic and mirrored
//! (`Neumann`) halos of the axes after the first right after each hyperplane is computed; a
//! mirrored halo of axis 0 right after the hyperplanes it mirrors (the `R` first or last interior
//! ones), before any later sweep reads it; a periodic axis 0 by a short seam pass at the end,
//! whose wrap the wavefront cannot follow (see `schedule`).

mod depth;
mod halos;
mod linear_steps;
mod points;
mod rings;
mod schedule;
mod sweep;
mod tune;
mod unfused;
mod wavefront;

#[cfg(feature = "rayon")]
mod bands;
#[cfg(feature = "rayon")]
mod parallel;

#[cfg(feature = "rayon")]
pub(super) use parallel::run_parallel;

use core::ops::Range;

use smallvec::SmallVec;

use super::boundary::Boundaries;
use super::halo::Side;
use super::state::State;
use crate::element::Pod;
use crate::error::{Error, Result};
use crate::kernel::{Backend, CopyKernels, Desc};
use crate::shape::interior_range;
#[cfg(feature = "mpi")]
pub(in crate::stencil) use points::PointPlan;
pub(in crate::stencil) use points::{point_plan, PointHook};
pub(in crate::stencil) use rings::{partitions, StageWrites};
use rings::{Group, Rings};
pub(in crate::stencil) use sweep::Sweep;

/// One [`Boundaries`] per evolving field.
type PerField<T, const N: usize> = SmallVec<[Boundaries<T, N>; 4]>;
use schedule::Schedule;

/// Plans `steps` sweeps of `sweep` over `state`'s fields (each at its levels, with a scratch),
/// runs the plan (the wavefront by `fused`, or one call per sweep), and makes the levels written
/// last the newest. The plan's arrays are distinct owned arrays, borrowed uniquely for the call.
///
/// # Errors
///
/// `Error::ShapeMismatch`, `Error::DeviceMismatch`, `Error::Layout`, `Error::Decomposition`
/// (see [`Plan::new`]); the kernels' errors.
pub(super) fn run_steps<B: CopyKernels, T: Pod, const N: usize, const M: usize, const L: usize, S>(
    op: &'static str,
    sweep: &S,
    state: &mut State<T, N, M, L, B>,
    steps: usize,
    boundaries: &[Boundaries<T, N>],
    points: Option<&mut dyn PointHook<B, T, N>>,
    fused: impl Fn(&Plan<'_, B, T, N, S>) -> Result<()>,
) -> Result<()>
where
    S: Sweep<B, T, N>,
{
    state.check_halo(op, sweep.radius())?;
    // SAFETY: distinct owned arrays, borrowed uniquely for the call.
    unsafe { run_steps_on(op, sweep, state.rings_mut(), L + 1, steps, boundaries, points, fused) }?;
    state.advance(steps);
    Ok(())
}

/// [`run_steps`] on rings of `ring` arrays per field given as descriptors, each from its newest
/// level (a state's, or a distributed state's blocks narrowed to what a process steps), one
/// field per `Boundaries`. The caller advances the rings by `steps` once it returns `Ok`.
///
/// # Safety
///
/// As for [`run_steps_between`], for every array of the rings.
///
/// # Errors
///
/// As [`run_steps`].
#[allow(clippy::too_many_arguments)] // the stepper's inputs, each of another kind
pub(super) unsafe fn run_steps_on<B: CopyKernels, T: Pod, const N: usize, S: Sweep<B, T, N>>(
    op: &'static str,
    sweep: &S,
    rings: SmallVec<[Desc<B, T, N>; 4]>,
    ring: usize,
    steps: usize,
    boundaries: &[Boundaries<T, N>],
    points: Option<&mut dyn PointHook<B, T, N>>,
    fused: impl Fn(&Plan<'_, B, T, N, S>) -> Result<()>,
) -> Result<()> {
    assert_eq!(boundaries.len() * ring, rings.len(), "one `Boundaries` per field");
    let mut rings = Rings::new(rings, boundaries.len(), ring);
    if let Some(stages) = sweep.stages() {
        rings = rings.staged(stages);
    }
    let extra = points.map_or(Extra::Nothing, Extra::Points);
    // SAFETY: the caller's contract.
    unsafe { run_rings(op, sweep, extra, rings, steps, boundaries.into(), fused) }
}

/// [`run_steps`] on two fields given as descriptors: `fields[0]` holds sweep 0, and sweep
/// `steps` ends in `fields[steps % 2]`.
///
/// # Safety
///
/// The fields address distinct, live, writable elements that nothing else accesses during the
/// call (two uniquely borrowed operands).
///
/// # Errors
///
/// As [`run_steps`].
pub(super) unsafe fn run_steps_between<B: CopyKernels, T: Pod, const N: usize, S: Sweep<B, T, N>>(
    op: &'static str,
    sweep: &S,
    fields: [Desc<B, T, N>; 2],
    steps: usize,
    boundaries: Boundaries<T, N>,
    fused: impl Fn(&Plan<'_, B, T, N, S>) -> Result<()>,
) -> Result<()> {
    // SAFETY: the caller's contract; the source is `fields[0]`.
    unsafe { run_rings(op, sweep, Extra::Nothing, Rings::pair(fields), steps, smallvec::smallvec![boundaries], fused) }
}

/// [`run_steps_between`] with sweep 1 reading `source` instead of `fields[0]` (when given): the
/// initial field is then never copied, and `fields[0]`'s interior is first written by sweep 2.
/// Only with `Fixed` sides (`Error::Layout` otherwise): sweep 1 reads the halo of `source`, and
/// any other boundary would have to write it there.
///
/// # Safety
///
/// As for [`run_steps_between`], and `source` addresses live, readable elements that overlap
/// neither field and that nothing writes during the call (a shared operand).
///
/// # Errors
///
/// As [`run_steps`]; `Error::ShapeMismatch` and `Error::DeviceMismatch` for the source.
pub(super) unsafe fn run_steps_from<B: CopyKernels, T: Pod, const N: usize, S: Sweep<B, T, N>>(
    op: &'static str,
    sweep: &S,
    source: Option<Desc<B, T, N>>,
    fields: [Desc<B, T, N>; 2],
    steps: usize,
    boundaries: Boundaries<T, N>,
    fused: impl Fn(&Plan<'_, B, T, N, S>) -> Result<()>,
) -> Result<()> {
    let extra = source.map_or(Extra::Nothing, Extra::Source);
    // SAFETY: the caller's contract.
    unsafe { run_rings(op, sweep, extra, Rings::pair(fields), steps, smallvec::smallvec![boundaries], fused) }
}

/// The one stepper: `steps` steps over `rings` (step `t` of field `f` at `rings.at(f, t, 0)`),
/// field `f`'s halos refilled as `boundaries[f]` says, sweep 1 of a one-field one-level ring
/// reading `source` when given (`run_steps_from`), `points` injected and sampled after each
/// sweep that writes their fields.
///
/// # Safety
///
/// As for [`run_steps_from`], for every array of the rings.
///
/// # Errors
///
/// As [`run_steps_from`].
unsafe fn run_rings<B: CopyKernels, T: Pod, const N: usize, S: Sweep<B, T, N>>(
    op: &'static str,
    sweep: &S,
    extra: Extra<'_, B, T, N>,
    rings: Rings<B, T, N>,
    steps: usize,
    boundaries: PerField<T, N>,
    fused: impl Fn(&Plan<'_, B, T, N, S>) -> Result<()>,
) -> Result<()> {
    let (source, mut points) = match extra {
        Extra::Nothing => (None, None),
        Extra::Source(source) => (Some(source), None),
        Extra::Points(points) => (None, Some(points)),
    };
    let fields = rings.all();
    if let Some(source) = source {
        assert_eq!(rings.all().len(), 2, "a separate source for one field at one level");
        if source.shape != fields[0].shape {
            return Err(Error::ShapeMismatch { op, expected: fields[0].shape.to_vec(), got: source.shape.to_vec() });
        }
        crate::ops::output::same_device::<B>(
            op,
            &B::handle_device(fields[0].handle),
            &[B::handle_device(source.handle)],
        )?;
        let fixed = (0..N)
            .all(|a| [Side::Low, Side::High].iter().all(|&s| matches!(boundaries[0].at(a, s), super::Boundary::Fixed)));
        if !fixed {
            return Err(Error::Layout {
                op,
                reason: "sweeps from a separate source field need fixed boundaries on every side".into(),
                fix: "copy the source into the first field and call the form without a source",
            });
        }
    }
    let in_flight = fields.len() + sweep.coefficient_fields();
    let stages = rings.stages();
    let Some(sweeps) = steps.checked_mul(stages) else {
        return Err(Error::Decomposition {
            op,
            reason: format!("{steps} steps of {stages} stages are more than usize::MAX sweeps"),
            fix: "ask for fewer steps (a step count computed by a subtraction that wrapped around is the usual cause)",
        });
    };
    let Some(plan) = Plan::new(op, sweep, rings.clone(), sweeps, boundaries.clone())? else { return Ok(()) };
    // Steps per pass: the fused wavefront's depth (measured, `tune`), at most the steps whose
    // samples the points stage; all of them in one call per sweep.
    let staged = points.as_ref().map_or(usize::MAX, |p| p.pass_steps()).max(1);
    let whole = |sweeps: usize| (sweeps / stages).clamp(1, staged);
    let block = plan.block;
    let (first, most) = match &plan.schedule {
        Some(schedule) => {
            // The window is the schedule's lag in units of `block` hyperplanes per sweep.
            let unit =
                fields[0].shape[1..].iter().product::<usize>().saturating_mul(size_of::<T>()).saturating_mul(block);
            let (first, most) = depth::pass_depths(op, unit, in_flight, schedule.lag())?;
            (whole(first), whole(most))
        }
        None => (whole(sweeps), whole(sweeps)),
    };
    drop(plan);
    let key = tune::Key {
        op,
        sweep: core::any::type_name::<S>(),
        radius: sweep.radius().into_iter().collect(),
        shape: fields[0].shape.into_iter().collect(),
        block,
        element: size_of::<T>(),
        fields: in_flight,
        stages,
        depths: (first, most),
        threads: threads(),
    };
    let tuner = tune::Tuner::new(key, first, most);
    // Passes of whole steps: each starts from the levels the last one wrote (step
    // `done / stages` at ring position `done / stages`), so together they are the same sweeps.
    let mut done = 0;
    while done < sweeps {
        let timing = tuner.next((sweeps - done) / stages);
        let k = timing.steps * stages;
        let mut pass =
            Plan::new(op, sweep, rings.rotated(done), k, boundaries.clone())?.expect("the same interior, and k > 0");
        pass.source = if done == 0 { source } else { None };
        pass.first = done / stages;
        pass.points = points.as_deref();
        if pass.schedule.is_some() {
            fused(&pass)?;
        } else {
            // SAFETY: the plan's arrays are distinct, borrowed uniquely (the caller's contract).
            unsafe { pass.run_unfused() }?;
        }
        timing.finish();
        drop(pass);
        if let Some(points) = points.as_deref_mut() {
            points.flush(done / stages, k / stages)?;
        }
        done += k;
    }
    Ok(())
}

/// The threads a parallel pass runs on (rayon's), which the best depth depends on.
fn threads() -> usize {
    #[cfg(feature = "rayon")]
    return rayon::current_num_threads();
    #[cfg(not(feature = "rayon"))]
    1
}

/// What a run takes besides the sweeps: nothing, a separate source that sweep 1 reads
/// (`run_steps_from`), or points injected and sampled after each sweep (`run_steps`).
enum Extra<'p, B: Backend, T: Pod, const N: usize> {
    Nothing,
    Source(Desc<B, T, N>),
    Points(&'p mut dyn PointHook<B, T, N>),
}

/// One call: the sweep, the rings of arrays (step `t` of field `f` at `rings.at(f, t, 0)`; the
/// initial levels are steps `0, -1, ..`), the boundaries, the interior, the number of sweeps
/// (every stage of every step), and the wavefront's schedule (`None`: one call per sweep).
pub(super) struct Plan<'s, B: Backend, T: Pod, const N: usize, S> {
    /// The operation the plan runs for, which its errors name (those of the threads' setting).
    #[cfg_attr(not(feature = "rayon"), allow(dead_code))]
    op: &'static str,
    dev: B::Device,
    sweep: &'s S,
    rings: Rings<B, T, N>,
    /// What sweep 1 reads when not `fields[0]` (`run_steps_from`).
    source: Option<Desc<B, T, N>>,
    /// The sources and receivers, and the steps of the call before this plan's.
    points: Option<&'s dyn PointHook<B, T, N>>,
    first: usize,
    radius: [usize; N],
    /// Per evolving field.
    boundaries: PerField<T, N>,
    interior: [Range<usize>; N],
    sweeps: usize,
    schedule: Option<Schedule>,
    /// The hyperplanes of one unit of the schedule (`unit`).
    block: usize,
}

impl<'s, B: CopyKernels, T: Pod, const N: usize, S: Sweep<B, T, N>> Plan<'s, B, T, N, S> {
    /// The plan after checking that every array has one shape and one device; `None` when no
    /// sweep writes anything (no interior point, or no sweep).
    ///
    /// # Errors
    ///
    /// `Error::ShapeMismatch`, `Error::DeviceMismatch`; `Error::Layout` for an axis periodic on
    /// one side only; `Error::Decomposition` when the wavefront's step count overflows `usize`.
    fn new(
        op: &'static str,
        sweep: &'s S,
        rings: Rings<B, T, N>,
        sweeps: usize,
        boundaries: PerField<T, N>,
    ) -> Result<Option<Self>> {
        let fields = rings.all();
        if let Some(other) = fields.iter().find(|f| f.shape != fields[0].shape) {
            return Err(Error::ShapeMismatch { op, expected: fields[0].shape.to_vec(), got: other.shape.to_vec() });
        }
        if boundaries.len() != rings.fields() {
            return Err(Error::Layout {
                op,
                reason: format!("{} boundaries for {} fields", boundaries.len(), rings.fields()),
                fix: "give one `Boundaries` for every field, or one per field",
            });
        }
        for b in boundaries.iter() {
            b.check(op)?;
        }
        // The wavefront walks the fields together: its seams follow their periodic axes.
        if let Some(axis) = (0..N).find(|&a| boundaries.iter().any(|b| b.periodic(a) != boundaries[0].periodic(a))) {
            return Err(Error::Layout {
                op,
                reason: format!("axis {axis} is periodic for some fields of the system and not for others"),
                fix: "make an axis periodic for every field or for none",
            });
        }
        let dev = B::handle_device(fields[0].handle);
        let devices: SmallVec<[B::Device; 4]> = fields.iter().map(|f| B::handle_device(f.handle)).collect();
        crate::ops::output::same_device::<B>(op, &dev, &devices)?;
        let (shape, radius) = (fields[0].shape, sweep.radius());
        let interior: [Range<usize>; N] = core::array::from_fn(|k| interior_range(shape[k], radius[k]));
        if sweeps == 0 || interior.iter().any(|r| r.is_empty()) {
            return Ok(None);
        }
        // Rank 0 (one point, no axis to walk): one call per sweep.
        let (schedule, block) = if let Some(rows) = interior.first().cloned() {
            // The wavefront's last step is `rows.end - 1 + (steps - 1) lag` and the sweeps are
            // numbered `1..steps + 1`: both must fit, with room to spare.
            if sweeps.checked_mul(radius[0].max(1)).and_then(|w| w.checked_add(rows.end)).is_none() {
                return Err(Error::Decomposition {
                    op,
                    reason: format!(
                        "{sweeps} sweeps of a radius-{} stencil over {} hyperplanes along axis 0 need a \
                         wavefront of more than usize::MAX steps, which could never finish",
                        radius[0], shape[0]
                    ),
                    fix: "ask for fewer sweeps (a step count computed by a subtraction that wrapped \
                          around is the usual cause), or split them over several calls",
                });
            }
            // A mirrored axis 0 is refreshed right after the `R` hyperplanes it mirrors, which the
            // interior must hold; a shorter one takes one call per sweep.
            let mirrors_short = rows.len() < radius[0]
                && boundaries.iter().any(|b| [Side::Low, Side::High].iter().any(|&side| b.mirrors(0, side)));
            // The wavefront's unit: a block of hyperplanes, as many as make a call long enough to
            // pay for itself (one on a periodic axis 0, whose seam the blocks would not tile).
            let periodic = boundaries[0].periodic(0);
            let points = interior[1..].iter().map(|r| r.len()).product();
            let block = if periodic { 1 } else { depth::block_rows(op, points)?.min(rows.len()) };
            let (blocks, lag) = (rows.len().div_ceil(block), radius[0].div_ceil(block));
            let schedule = (sweep.wavefront() && !mirrors_short).then(|| match periodic {
                true => Schedule::new(rows, sweeps, radius[0], true),
                false => Schedule::new(0..blocks, sweeps, lag, false),
            });
            (schedule, block)
        } else {
            (None, 1)
        };
        Ok(Some(Plan {
            op,
            dev,
            sweep,
            rings,
            source: None,
            points: None,
            first: 0,
            radius,
            boundaries,
            interior,
            sweeps,
            schedule,
            block,
        }))
    }

    /// The hyperplanes of the schedule's unit `i`: itself on a periodic axis 0 (whose schedule
    /// counts interior hyperplanes), else block `i` of the interior.
    fn unit(&self, i: usize) -> Range<usize> {
        let rows = &self.interior[0];
        if self.boundaries[0].periodic(0) {
            return i..i + 1;
        }
        let start = rows.start + i * self.block;
        start..(start + self.block).min(rows.end)
    }

    /// The arrays sweep `t` reads: each field's levels, newest first (sweep 1 of a separate
    /// source reads it instead).
    fn inputs(&self, t: usize) -> Group<B, T, N> {
        match self.source {
            Some(source) if t == 1 => smallvec::smallvec![source],
            _ => self.rings.inputs(t),
        }
    }

    /// Whether one field at one level in one stage: the backends' time-tiled kernels take only
    /// those.
    fn one_field(&self) -> bool {
        self.rings.fields() == 1 && self.rings.levels() == 1 && self.rings.stages() == 1
    }

    /// The fused plan's schedule.
    fn schedule(&self) -> &Schedule {
        self.schedule.as_ref().expect("a fused plan has a schedule")
    }
}
