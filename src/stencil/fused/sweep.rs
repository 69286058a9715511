//! What a plan runs: one sweep of a stencil over a region of the rings' arrays.

use super::StageWrites;
use crate::element::Pod;
use crate::error::Result;
use crate::kernel::{Backend, Desc};

/// One sweep of a stencil over a region, what a plan runs: the stencil kernel of a
/// `LinearStencil` (here) or of a `stencil!` stencil with its coefficient fields (`steps.rs`).
/// The threads of `par_apply_steps` share a sweep: an implementation holds only data they may
/// read at once (taps, parameters, fields no sweep writes).
pub(in crate::stencil) trait Sweep<B: Backend, T: Pod, const N: usize> {
    /// The radius along each axis.
    fn radius(&self) -> [usize; N];

    /// Whether the backend runs the fused wavefront (many small calls); else one call per sweep.
    fn wavefront(&self) -> bool;

    /// How many fields every sweep reads besides the evolving fields' levels and scratch arrays (they are in
    /// flight in a fused pass too, `depth.rs`).
    fn coefficient_fields(&self) -> usize {
        0
    }

    /// `outputs = stencil(inputs)` of stage `stage` (0 for a step of one stage) over the region
    /// `start..start + shape` of the fields: `outputs` (one per field the stage writes) and
    /// `inputs` (each field's levels, newest first, field by field) are that region of the
    /// destination and source arrays; other fields the sweep reads are narrowed alike. A stencil
    /// of one field at one level takes one of each.
    ///
    /// # Safety
    ///
    /// The region lies in the interior for the sweep's radius, so every tap lies in the fields;
    /// the outputs are live, writable, and overlap no field the sweep reads and one another;
    /// nothing else accesses them during the call.
    ///
    /// # Errors
    ///
    /// `Error::Device` from a kernel.
    unsafe fn region(
        &self,
        dev: &B::Device,
        stage: usize,
        outputs: &[Desc<B, T, N>],
        inputs: &[Desc<B, T, N>],
        start: [usize; N],
        shape: [usize; N],
    ) -> Result<()>;

    /// `steps` sweeps of one field at one level over the whole fields at once, where the backend
    /// has a time-tiled kernel: `Ok(true)` when done (`fields[steps % 2]` holds sweep `steps`, the other sweep
    /// `steps - 1`), `Ok(false)` with nothing written otherwise. None by default.
    ///
    /// # Safety
    ///
    /// As for `ExprStencilKernels::expression_steps`: the halos hold what every sweep reads
    /// there (constant boundaries) and nothing else accesses the fields.
    ///
    /// # Errors
    ///
    /// `Error::Device` from a kernel.
    unsafe fn all_steps(&self, dev: &B::Device, fields: [Desc<B, T, N>; 2], steps: usize) -> Result<bool> {
        let _ = (dev, fields, steps);
        Ok(false)
    }

    /// The stages of a step, when more than one: the fields each writes (every field exactly
    /// once, `rings.rs`). `None` for one stage writing every field.
    fn stages(&self) -> Option<StageWrites> {
        None
    }
}
