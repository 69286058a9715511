//! One call per sweep, for backends whose calls are costly (devices) and plans the wavefront
//! cannot walk: refill the halos of what the last sweep wrote, sweep the whole interior, inject
//! and sample the points, and so on.

use core::ops::Range;

use super::rings::Group;
use super::{Plan, Sweep};
use crate::element::Pod;
use crate::error::Result;
use crate::kernel::{CopyKernels, Desc};
use crate::stencil::boundary::Which;

impl<B: CopyKernels, T: Pod, const N: usize, S: Sweep<B, T, N>> Plan<'_, B, T, N, S> {
    /// Refills the halos of what sweep `t` wrote (at its whole extent along `axes`).
    ///
    /// # Safety
    ///
    /// As for `run_unfused`, and nothing reads those halos during the call.
    pub(super) unsafe fn refill_written(&self, t: usize, axes: Range<usize>, which: Which) -> Result<()> {
        for (f, written) in self.rings.writes(t).zip(self.rings.outputs(t)) {
            // SAFETY: the caller's contract.
            unsafe { self.boundaries[f].fill_axes(&self.dev, written, axes.clone(), &self.radius, which) }?;
        }
        Ok(())
    }

    /// One call per sweep: refill the source field's halos, sweep the whole interior; then
    /// refill the last field's halos.
    ///
    /// # Safety
    ///
    /// The arrays are live, distinct, and nothing else accesses them during the call.
    ///
    /// # Errors
    ///
    /// `Error::Device` from a kernel.
    pub(super) unsafe fn run_unfused(&self) -> Result<()> {
        // Constant halos (fixed or a value on every side): filled once, then the backend's
        // time-tiled kernel may take all the sweeps (of one field at one level).
        if self.one_field()
            && self.boundaries[0].constant()
            && self.sweeps >= 2
            && self.source.is_none()
            && self.points.is_none()
        {
            // SAFETY: the caller's contract; the halos then hold what every sweep reads.
            unsafe {
                for &field in self.rings.all() {
                    self.boundaries[0].fill_axes(&self.dev, field, 0..N, &self.radius, Which::All)?;
                }
                if self.sweep.all_steps(&self.dev, [self.rings.at(0, 0, 0), self.rings.at(0, 1, 0)], self.sweeps)? {
                    return Ok(());
                }
            }
        }
        let start = self.interior.clone().map(|r| r.start);
        let shape = self.interior.clone().map(|r| r.len());
        let region = |d: &Desc<B, T, N>| (0..N).fold(*d, |d, k| d.narrowed(k, start[k], shape[k]));
        // A separate source (sweep 1 of `run_steps_from`) is only read: never filled (its
        // boundaries are all `Fixed`, checked there, so there is nothing to fill).
        debug_assert!(self.source.is_none() || self.boundaries[0].constant());
        if self.source.is_none() {
            // SAFETY: the caller's contract.
            unsafe { self.fill_initial() }?;
        }
        for t in 1..=self.sweeps {
            // SAFETY: the caller's contract; the newest levels (what the last sweep wrote) are
            // refilled, the older ones were when they were the newest; the region is the
            // interior, and the outputs are the arrays of the fields the sweep writes at its
            // step, read by no level it reads (`rings.rs`).
            unsafe {
                if t > 1 {
                    self.refill_written(t - 1, 0..N, Which::All)?;
                }
                let inputs: Group<B, T, N> = self.inputs(t).iter().map(region).collect();
                let outputs: Group<B, T, N> = self.rings.outputs(t).iter().map(region).collect();
                self.sweep.region(&self.dev, self.rings.stage(t), &outputs, &inputs, start, shape)?;
                self.points_after(t, self.interior.first().cloned().unwrap_or(0..1))?;
            }
        }
        // SAFETY: the caller's contract.
        unsafe { self.refill_written(self.sweeps, 0..N, Which::All) }
    }
}
