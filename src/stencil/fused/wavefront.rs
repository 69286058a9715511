//! A plan's wavefront: its units in order on one thread, what each unit computes, and the seam
//! pass after it (see the module documentation of `fused`, and `schedule`).

use core::ops::Range;

use super::rings::Group;
use super::schedule::{self, Schedule, Work};
use super::{Plan, Sweep};
use crate::element::Pod;
use crate::error::Result;
use crate::kernel::{CopyKernels, Desc};
use crate::stencil::boundary::Which;

impl<B: CopyKernels, T: Pod, const N: usize, S: Sweep<B, T, N>> Plan<'_, B, T, N, S> {
    /// The sweeps on the wavefront, then the seam pass.
    ///
    /// # Safety
    ///
    /// As for `run_unfused`.
    ///
    /// # Errors
    ///
    /// `Error::Device` from a kernel.
    pub(in crate::stencil) unsafe fn run_sequential(&self) -> Result<()> {
        let schedule = self.schedule();
        // SAFETY: the caller's contract.
        unsafe { self.prepare() }?;
        for work in schedule::wavefront_work(schedule) {
            // SAFETY: the caller's contract; the wavefront's order is the one `compute`
            // requires (module documentation).
            unsafe { self.work(work) }?;
        }
        // SAFETY: the caller's contract, after the wavefront.
        unsafe { self.finish(core::slice::from_ref(schedule)) }
    }

    /// Sweep `t` at the interior hyperplanes of the schedule's unit `i` (`unit`: a block of
    /// them, or one), then their halos, and the mirrored halos of axis 0 that they complete.
    ///
    /// # Safety
    ///
    /// As for `run_unfused`, and every unit of every earlier sweep that `t` reads (back to `L S`
    /// sweeps for `S` stages) within the schedule's lag of `i` (which covers the hyperplanes
    /// within `R` of the unit's) is computed (with its halos) and not yet overwritten, and no
    /// later computation reads unit `i` of the arrays `t` overwrites (their last reader, sweep
    /// `t - S` at most at unit `i + lag`, runs earlier in the wavefront, as every older sweep).
    ///
    /// # Errors
    ///
    /// `Error::Device` from a kernel.
    #[cfg_attr(not(feature = "rayon"), allow(dead_code))] // slabs and the pipeline
    pub(super) unsafe fn compute(&self, t: usize, i: usize) -> Result<()> {
        // SAFETY: the caller's contract, for the whole unit and then after it.
        unsafe {
            self.compute_band(t, i, None)?;
            self.after(t, i)
        }
    }

    /// The stencil part of [`Plan::compute`]: sweep `t` at unit `i`, only at the points whose
    /// index along axis 1 lies in `band` when given (a sub-range of the interior's; `N >= 2`).
    /// [`Plan::after`] completes the unit once every band of it is computed.
    ///
    /// # Safety
    ///
    /// As for [`Plan::compute`]; `band`, when given, lies in the interior of axis 1 (`N >= 2`);
    /// during the call nothing else accesses the band's points of the unit's hyperplanes of the
    /// arrays `t` writes, and nothing writes what the band reads (the other bands of the unit may
    /// be computed at once: they write other points of the arrays `t` writes, which no sweep
    /// reads in the same sweep).
    ///
    /// # Errors
    ///
    /// `Error::Device` from a kernel.
    pub(super) unsafe fn compute_band(&self, t: usize, i: usize, band: Option<Range<usize>>) -> Result<()> {
        let rows = self.unit(i);
        let mut start = self.interior.clone().map(|r| r.start);
        let mut shape = self.interior.clone().map(|r| r.len());
        (start[0], shape[0]) = (rows.start, rows.len());
        if let Some(band) = band {
            debug_assert!(N >= 2 && band.start >= start[1] && band.end <= start[1] + shape[1]);
            (start[1], shape[1]) = (band.start, band.len());
        }
        let region = |d: &Desc<B, T, N>| (0..N).fold(*d, |d, k| d.narrowed(k, start[k], shape[k]));
        let inputs: Group<B, T, N> = self.inputs(t).iter().map(region).collect();
        let targets: Group<B, T, N> = self.rings.outputs(t).iter().map(region).collect();
        // SAFETY: the region is interior, so every tap of its points lies in the inputs; the
        // outputs are the arrays sweep `t` writes, which no input is; the caller's contract
        // orders the reads and writes.
        unsafe { self.sweep.region(&self.dev, self.rings.stage(t), &targets, &inputs, start, shape) }
    }

    /// What completes sweep `t` at unit `i` once its stencil part is computed: the points'
    /// injections and samples there, then the unit's halos along the axes after the first and the
    /// mirrored halos of axis 0 that it completes.
    ///
    /// # Safety
    ///
    /// As for [`Plan::compute`], after [`Plan::compute_band`] of every band of the unit.
    ///
    /// # Errors
    ///
    /// `Error::Device` from a kernel.
    pub(super) unsafe fn after(&self, t: usize, i: usize) -> Result<()> {
        let rows = self.unit(i);
        // SAFETY: the caller's contract, for the hyperplanes just written, before their halos.
        unsafe { self.points_after(t, rows.clone()) }?;
        for (f, dst) in self.rings.writes(t).zip(self.rings.outputs(t)) {
            // SAFETY: as above, for the halos of the hyperplanes just written.
            unsafe { self.halos_after(&self.boundaries[f], dst, rows.clone()) }?;
        }
        Ok(())
    }

    /// The seam pass: the hyperplanes the wavefronts of `parts` left (near a periodic axis 0's
    /// ends, and near the cuts between slabs), one task after the other (`schedule::seams`).
    ///
    /// # Safety
    ///
    /// As for `run_unfused`, after the wavefronts of `parts`, which cover the interior.
    ///
    /// # Errors
    ///
    /// `Error::Device` from a kernel.
    pub(super) unsafe fn finish(&self, parts: &[Schedule]) -> Result<()> {
        debug_assert!(schedule::independent(parts), "seam tasks that depend on each other");
        for seam in schedule::seams(parts) {
            // SAFETY: the caller's contract.
            unsafe { self.seam(parts, &seam) }?;
        }
        Ok(())
    }

    /// One task of the seam pass: sweep by sweep, the hyperplanes `seam` names, then, for a
    /// periodic axis 0's wrap-around, the sweep's halo along it.
    ///
    /// # Safety
    ///
    /// As for `run_unfused`, after the wavefronts of `parts`; nothing else accesses the
    /// hyperplanes within `steps R` of the seam's cut (and, for the wrap-around, the halo along
    /// axis 0) during the call.
    ///
    /// # Errors
    ///
    /// `Error::Device` from a kernel.
    pub(super) unsafe fn seam(&self, parts: &[Schedule], seam: &schedule::Seam) -> Result<()> {
        for work in schedule::seam_work(parts, seam) {
            // SAFETY: the sweeps `t` reads are complete, with their halos, near the cut (their
            // wavefront, and this task's previous sweeps), and the sweeps that overwrite their
            // arrays (`t + 1` and later) have done so on the wavefront only beyond what this
            // reads (`schedule`); the caller's contract.
            unsafe { self.work(work) }?;
        }
        Ok(())
    }

    /// One [`Work`](schedule::Work) item whole: a unit of a sweep, or a wrap-around's halo.
    ///
    /// # Safety
    ///
    /// As for [`Plan::compute`] (a unit), or after sweep `t` is complete near both ends of a
    /// periodic axis 0 (its halo).
    ///
    /// # Errors
    ///
    /// `Error::Device` from a kernel.
    pub(super) unsafe fn work(&self, work: Work) -> Result<()> {
        // SAFETY: the caller's contract.
        unsafe {
            if let Work::Sweep { t, i } = work {
                self.compute_band(t, i, None)?;
            }
            self.complete(work)
        }
    }

    /// What completes a [`Work`](schedule::Work) item after its stencil part (every band of
    /// it): a unit's points and halos ([`Plan::after`]), or the wrap-around's halo.
    ///
    /// # Safety
    ///
    /// As for [`Plan::work`], after [`Plan::compute_band`] of every band of a unit.
    ///
    /// # Errors
    ///
    /// `Error::Device` from a kernel.
    pub(super) unsafe fn complete(&self, work: Work) -> Result<()> {
        // SAFETY: the caller's contract.
        unsafe {
            match work {
                Work::Sweep { t, i } => self.after(t, i),
                Work::WrapHalo(t) => self.refill_written(t, 0..1, Which::Following),
            }
        }
    }
}
