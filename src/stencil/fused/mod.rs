//! Fused multi-sweep stencils: `k` sweeps of a [`LinearStencil`] over a [`DoubleBuffer`] in one
//! pass over memory, bit for bit equal to `k` separate sweeps (`apply` then `swap`, `k` times).
//!
//! One sweep over a grid larger than the caches is bound by memory bandwidth: every point is read
//! and written once per sweep. The fused form walks a **skewed wavefront** along the first axis:
//! at step `s` it computes hyperplane `s` of sweep 1, hyperplane `s - R` of sweep 2, ...,
//! hyperplane `s - (k - 1) R` of sweep `k`. Sweep `t` at hyperplane `i` reads sweep `t - 1` at
//! hyperplanes `i - R ..= i + R`, all computed earlier (the last one earlier in the same step), so
//! only about `(k + 1) R` hyperplanes of each field are in flight: they stay in the cache, and the
//! grid streams through memory once per `k` sweeps instead of once per sweep.
//!
//! Two fields suffice, as for separate sweeps: sweep `t` writes the field sweep `t - 2` wrote, and
//! overwrites hyperplane `i` of sweep `t - 2` only after every reader of it (sweep `t - 1` at
//! hyperplanes up to `i + R`) has run. Each hyperplane is computed by the backend's stencil kernel
//! with the same taps in the same order as a whole sweep, so the results are identical, not
//! merely close.

//!
//! On a **periodic** axis the `R` points at each end are a halo of periodic images, refreshed as
//! [`fill_halo`](super::fill_halo) would before every sweep: right after a hyperplane is computed
//! for the axes after the first, and by a short seam pass at the end for axis 0, whose wrap the
//! wavefront cannot follow (see `schedule`).

mod schedule;

#[cfg(feature = "rayon")]
mod parallel;

use super::boundary::{wrap_axis, wrap_hyperplane, Boundary};
use super::buffer::DoubleBuffer;
use super::linear::LinearStencil;
use crate::element::Numeric;
use crate::error::{or_panic, Error, Result};
use crate::kernel::CopyKernels;
use crate::kernel::Desc;
use crate::kernel::StencilKernels;
use crate::kernel::{Backend, Cpu};
use crate::shape::interior_range;
use schedule::Schedule;

impl<T: Numeric, const N: usize, const R: usize, const K: usize> LinearStencil<T, N, R, K> {
    /// `steps` sweeps over `field`, each reading the current field and writing the next one, then
    /// swapping them: the same result, bit for bit, as `steps` times
    /// `self.apply(current, next); field.swap()`, in one pass over memory (see the module
    /// documentation). The boundary (points within `R` of an edge) is never written, so each
    /// field keeps the boundary values it had.
    ///
    /// ```
    /// use cnda::prelude::*;
    /// use cnda::stencil::{DoubleBuffer, LinearStencil};
    ///
    /// let hot_top = |[i, _]: [usize; 2]| if i == 0 { 1.0 } else { 0.0 };
    /// let jacobi = LinearStencil::jacobi_5pt();
    /// let mut fused = DoubleBuffer::new(Array::from_fn([64, 64], hot_top));
    /// jacobi.apply_steps(&mut fused, 8);
    /// let mut one_by_one = DoubleBuffer::new(Array::from_fn([64, 64], hot_top));
    /// for _ in 0..8 {
    ///     let (u, v) = one_by_one.split();
    ///     jacobi.apply(u, v);
    ///     one_by_one.swap();
    /// }
    /// assert_eq!(fused.current(), one_by_one.current());
    /// ```
    ///
    /// # Panics
    ///
    /// As [`LinearStencil::try_apply_steps`] errs (never for a `DoubleBuffer` and a step count
    /// below about `usize::MAX / R`).
    #[track_caller]
    pub fn apply_steps(&self, field: &mut DoubleBuffer<T, N>, steps: usize) {
        or_panic(self.try_apply_steps(field, steps))
    }

    /// `steps` fused sweeps over `field`; see [`LinearStencil::apply_steps`].
    ///
    /// # Errors
    ///
    /// `Error::ShapeMismatch` when the fields' shapes differ; `Error::Decomposition` when `steps`
    /// is so large that the skewed wavefront's step count (the interior's end along axis 0 plus
    /// `steps` times the radius, at least 1) overflows `usize`: such a call could never finish, so
    /// it is refused at once rather than left to run with a wrapped count; `Error::Device` from
    /// the kernel.
    pub fn try_apply_steps(&self, field: &mut DoubleBuffer<T, N>, steps: usize) -> Result<()> {
        self.try_apply_steps_with(field, steps, [Boundary::Fixed; N])
    }

    /// `steps` fused sweeps over `field` with a [`Boundary`] per axis: fixed axes keep their
    /// boundary values, periodic ones wrap around. Bit for bit the same as, `steps` times,
    /// [`fill_halo`](super::fill_halo) of the current field (width `R` with
    /// [`PadMode::Periodic`](super::PadMode::Periodic) on the periodic axes, width 0 on the
    /// others), `apply`, `swap`, and a last `fill_halo`: both fields end with consistent halos.
    ///
    /// ```
    /// use cnda::prelude::*;
    /// use cnda::stencil::{pad, Boundary, DoubleBuffer, LinearStencil, PadMode};
    ///
    /// // A 16 x 16 torus with a halo of 1 (the radius) on both axes.
    /// let torus = Array::from_fn([16, 16], |[i, j]| ((3 * i + 5 * j) % 7) as f64);
    /// let mut field = DoubleBuffer::new(pad(torus.view(), 1, PadMode::Periodic));
    /// let jacobi = LinearStencil::jacobi_5pt();
    /// jacobi.apply_steps_with(&mut field, 6, [Boundary::Periodic; 2]);
    /// // Averaging on a torus keeps the mean.
    /// let mean = |a: &Array<f64, 2>| a.slice(s![1..17, 1..17]).sum() / 256.0;
    /// assert!((mean(field.current()) - mean(&pad(torus.view(), 1, PadMode::Periodic))).abs() < 1e-12);
    /// ```
    ///
    /// # Panics
    ///
    /// As [`LinearStencil::try_apply_steps_with`] errs.
    #[track_caller]
    pub fn apply_steps_with(&self, field: &mut DoubleBuffer<T, N>, steps: usize, boundaries: [Boundary; N]) {
        or_panic(self.try_apply_steps_with(field, steps, boundaries))
    }

    /// [`LinearStencil::apply_steps_with`], returning errors.
    ///
    /// # Errors
    ///
    /// As [`LinearStencil::try_apply_steps`].
    pub fn try_apply_steps_with(
        &self,
        field: &mut DoubleBuffer<T, N>,
        steps: usize,
        boundaries: [Boundary; N],
    ) -> Result<()> {
        // SAFETY: `run_fused` hands over the plan of two distinct fields, borrowed uniquely.
        self.run_fused(field, steps, boundaries, |plan| unsafe { plan.run_sequential() })
    }

    /// Plans `steps` sweeps over `field`'s two fields, runs the plan with `run` (when there is
    /// anything to sweep), and makes the field written last the current one. The plan's fields
    /// are distinct owned arrays, borrowed uniquely for the call.
    pub(super) fn run_fused(
        &self,
        field: &mut DoubleBuffer<T, N>,
        steps: usize,
        boundaries: [Boundary; N],
        run: impl FnOnce(&Plan<'_, Cpu, T, N, R, K>) -> Result<()>,
    ) -> Result<()> {
        let (a, b) = field.both_mut();
        let fields = [a.desc_mut(), b.desc_mut()];
        if let Some(plan) = Plan::<Cpu, T, N, R, K>::new(&Cpu, self.taps(), fields, steps, boundaries)? {
            run(&plan)?;
        }
        if steps % 2 == 1 {
            field.swap();
        }
        Ok(())
    }
}

/// One fused call: the stencil, the two fields (`fields[0]` holds sweep 0, the initial field),
/// the boundaries and the schedule.
pub(super) struct Plan<'t, B: Backend, T: Numeric, const N: usize, const R: usize, const K: usize> {
    dev: B::Device,
    taps: &'t [([isize; N], T); K],
    fields: [Desc<B, T, N>; 2],
    boundaries: [Boundary; N],
    schedule: Schedule,
}

impl<'t, B: StencilKernels + CopyKernels, T: Numeric, const N: usize, const R: usize, const K: usize>
    Plan<'t, B, T, N, R, K>
{
    /// The plan after checking that both fields have one shape and one device; `None` when no
    /// sweep writes anything (no interior point, or no sweep).
    ///
    /// # Errors
    ///
    /// `Error::ShapeMismatch`, `Error::DeviceMismatch`; `Error::Decomposition` when the
    /// wavefront's step count overflows `usize`.
    fn new(
        dev: &B::Device,
        taps: &'t [([isize; N], T); K],
        fields: [Desc<B, T, N>; 2],
        steps: usize,
        boundaries: [Boundary; N],
    ) -> Result<Option<Self>> {
        let op = "LinearStencil::apply_steps";
        if fields[0].shape != fields[1].shape {
            return Err(Error::ShapeMismatch { op, expected: fields[0].shape.to_vec(), got: fields[1].shape.to_vec() });
        }
        let devices = [B::handle_device(fields[0].handle), B::handle_device(fields[1].handle)];
        crate::ops::output::same_device::<B>(op, dev, &devices)?;
        let shape = fields[0].shape;
        if N == 0 || steps == 0 || (0..N).any(|k| interior_range(shape[k], R).is_empty()) {
            return Ok(None);
        }
        let rows = interior_range(shape[0], R);
        // The wavefront's last step is `rows.end - 1 + (steps - 1) lag` and the sweeps are
        // numbered `1..steps + 1`: both must fit, with room to spare.
        if steps.checked_mul(R.max(1)).and_then(|w| w.checked_add(rows.end)).is_none() {
            return Err(Error::Decomposition {
                op,
                reason: format!(
                    "{steps} sweeps of a radius-{R} stencil over {} hyperplanes along axis 0 need a \
                     wavefront of more than usize::MAX steps, which could never finish",
                    shape[0]
                ),
                fix: "ask for fewer sweeps (a step count computed by a subtraction that wrapped \
                      around is the usual cause), or split them over several calls",
            });
        }
        let schedule = Schedule::new(rows, steps, R, boundaries[0] == Boundary::Periodic);
        Ok(Some(Plan { dev: dev.clone(), taps, fields, boundaries, schedule }))
    }

    /// The sweeps on the wavefront, then the seam pass.
    ///
    /// # Safety
    ///
    /// The two fields are live, distinct, and nothing else accesses them during the call.
    ///
    /// # Errors
    ///
    /// `Error::Device` from a kernel.
    unsafe fn run_sequential(&self) -> Result<()> {
        let all = 1..self.schedule.sweeps() + 1;
        // SAFETY: the caller's contract.
        unsafe { self.prepare() }?;
        for s in self.schedule.steps() {
            for (t, i) in self.schedule.at_step(s, all.clone()) {
                // SAFETY: the caller's contract; the wavefront's order is the one `compute`
                // requires (module documentation).
                unsafe { self.compute(t, i) }?;
            }
        }
        // SAFETY: the caller's contract, after the wavefront.
        unsafe { self.finish() }
    }

    /// Refreshes the halos of the periodic axes after the first on every hyperplane of both
    /// fields (the halos of fixed hyperplanes are never computed, so they are refreshed here
    /// once), and the halo of axis 0 of the initial field.
    ///
    /// # Safety
    ///
    /// As for `run_sequential`.
    ///
    /// # Errors
    ///
    /// `Error::Device` from the copy kernel.
    pub(super) unsafe fn prepare(&self) -> Result<()> {
        if (1..N).any(|k| self.boundaries[k] == Boundary::Periodic) {
            for d in self.fields {
                for i in 0..d.shape[0] {
                    // SAFETY: the caller's contract; every axis has a non-empty interior.
                    unsafe { wrap_hyperplane(&self.dev, d, i, &self.boundaries, R) }?;
                }
            }
        }
        if self.boundaries[0] == Boundary::Periodic {
            // SAFETY: as above.
            unsafe { wrap_axis(&self.dev, self.fields[0], 0, R) }?;
        }
        Ok(())
    }

    /// Sweep `t` at interior hyperplane `i`, then the hyperplane's halos.
    ///
    /// # Safety
    ///
    /// As for `run_sequential`, and every hyperplane of sweep `t - 1` within `R` of `i` is
    /// computed (with its halos) and not yet overwritten, and no later computation reads
    /// hyperplane `i` of sweep `t - 2` (the schedule's order).
    ///
    /// # Errors
    ///
    /// `Error::Device` from a kernel.
    pub(super) unsafe fn compute(&self, t: usize, i: usize) -> Result<()> {
        let (src, dst) = (self.fields[(t - 1) % 2], self.fields[t % 2]);
        // SAFETY: hyperplane `i` is interior, so every tap of its points lies in `src`; `dst` is
        // the other field; the caller's contract orders the reads and writes.
        unsafe {
            B::linear(
                &self.dev,
                interior_hyperplane::<B, T, N, R>(dst, i),
                interior_hyperplane::<B, T, N, R>(src, i),
                self.taps,
            )?;
            wrap_hyperplane(&self.dev, dst, i, &self.boundaries, R)
        }
    }

    /// The seam pass of a periodic axis 0: sweep by sweep, the hyperplanes the wavefront left,
    /// then the sweep's halo along axis 0.
    ///
    /// # Safety
    ///
    /// As for `run_sequential`, after the wavefront.
    ///
    /// # Errors
    ///
    /// `Error::Device` from a kernel.
    pub(super) unsafe fn finish(&self) -> Result<()> {
        if self.boundaries[0] != Boundary::Periodic {
            return Ok(());
        }
        for t in 1..=self.schedule.sweeps() {
            for i in self.schedule.seam_rows(t) {
                // SAFETY: sweep `t - 1` is complete, with its halo, near the seam, and sweep
                // `t + 1` has overwritten sweep `t - 1` only beyond what this reads (`schedule`).
                unsafe { self.compute(t, i) }?;
            }
            // SAFETY: the caller's contract; sweep `t` is complete.
            unsafe { wrap_axis(&self.dev, self.fields[t % 2], 0, R) }?;
        }
        Ok(())
    }
}

/// Hyperplane `i` (of axis 0) of `d`'s interior for radius `R`.
fn interior_hyperplane<B: Backend, T: Numeric, const N: usize, const R: usize>(
    d: Desc<B, T, N>,
    i: usize,
) -> Desc<B, T, N> {
    (1..N).fold(d.narrowed(0, i, 1), |plane, k| {
        let r = interior_range(d.shape[k], R);
        plane.narrowed(k, r.start, r.len())
    })
}
