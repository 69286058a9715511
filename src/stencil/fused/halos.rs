//! The halos a fused plan keeps as separate sweeps would refill them: the initial levels' before
//! the first sweep, the scratch arrays' constant ones, and each hyperplane's right after it is
//! computed (see the module documentation of `fused`).

use core::ops::Range;

use super::{Plan, Sweep};
use crate::element::Pod;
use crate::error::Result;
use crate::kernel::{CopyKernels, Desc};
use crate::stencil::boundary::{Boundaries, Which};
use crate::stencil::halo::Side;

impl<B: CopyKernels, T: Pod, const N: usize, S: Sweep<B, T, N>> Plan<'_, B, T, N, S> {
    /// The levels of sweep 0 and before, which the caller filled: refilled as one refill
    /// before the first sweep makes them.
    ///
    /// # Safety
    ///
    /// As for `run_unfused`.
    pub(super) unsafe fn fill_initial(&self) -> Result<()> {
        let levels = self.rings.levels();
        for (k, field) in self.rings.initial().into_iter().enumerate() {
            // SAFETY: the caller's contract.
            unsafe { self.boundaries[k / levels].fill_axes(&self.dev, field, 0..N, &self.radius, Which::All) }?;
        }
        Ok(())
    }

    /// Before the wavefront: the initial levels' halos as one refill makes them, the `Value`
    /// halos of the scratch arrays (no sweep writes them), and the following halos of the axes
    /// after the first on every hyperplane of the scratch arrays (those of hyperplanes no sweep
    /// computes, the halo hyperplanes of axis 0, are refreshed only here). The older levels'
    /// arrays, which later sweeps overwrite, have all their halos from the refill.
    ///
    /// # Safety
    ///
    /// As for `run_unfused`.
    ///
    /// # Errors
    ///
    /// `Error::Device` from a kernel.
    pub(super) unsafe fn prepare(&self) -> Result<()> {
        // SAFETY: the caller's contract; every axis has a non-empty interior.
        unsafe {
            self.fill_initial()?;
            for (f, other) in self.rings.scratch().into_iter().enumerate() {
                let b = &self.boundaries[f];
                for axis in 0..N {
                    for side in [Side::Low, Side::High] {
                        if matches!(b.at(axis, side), crate::stencil::Boundary::Value(_)) {
                            b.fill(&self.dev, other, axis, side, self.radius[axis], Which::All)?;
                        }
                    }
                }
                b.fill_axes(&self.dev, other, 1..N, &self.radius, Which::Following)?;
            }
        }
        Ok(())
    }

    /// The halos of hyperplanes `rows` of `dst` just computed: along the axes after the first,
    /// and axis 0's mirrored halos that these hyperplanes complete.
    ///
    /// # Safety
    ///
    /// As for [`Plan::compute`].
    pub(super) unsafe fn halos_after(
        &self,
        b: &Boundaries<T, N>,
        dst: Desc<B, T, N>,
        rows: Range<usize>,
    ) -> Result<()> {
        // SAFETY: the caller's contract.
        unsafe {
            if b.follows(1..N) {
                b.fill_axes(&self.dev, dst.narrowed(0, rows.start, rows.len()), 1..N, &self.radius, Which::Following)?;
            }
            // A mirrored side of axis 0 mirrors the `R` interior hyperplanes next to it: refilled
            // once the last of them is computed, before sweep `t + 1` reads the halo (a lag
            // later), and after the earlier sweeps have read the halo it replaces.
            let (interior, r) = (&self.interior[0], self.radius[0]);
            if r > 0 && rows.contains(&(interior.start + r - 1)) && b.mirrors(0, Side::Low) {
                b.fill(&self.dev, dst, 0, Side::Low, r, Which::Following)?;
            }
            if r > 0 && rows.contains(&(interior.end - 1)) && b.mirrors(0, Side::High) {
                b.fill(&self.dev, dst, 0, Side::High, r, Which::Following)?;
            }
        }
        Ok(())
    }
}
