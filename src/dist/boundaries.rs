//! Boundary conditions at the global edges of a distributed field, as the one-process time
//! steppers apply them to a whole field: the points within the stencil's radius of a fixed
//! (non-periodic) global edge are the boundary layer, refilled before each sweep (`Value`: a
//! constant; `Neumann`: the interior mirrored about the face; `Fixed`: left alone). Each process
//! refills the layer of its own block from its own points (the mirrored points lie in the same
//! block: checked), so a refill needs no message; the next exchange passes the refilled points on.

use mpi::datatype::Equivalence;

use super::{DistArray, DistBackend};
use crate::element::Pod;
use crate::error::{or_panic, Error, Result};
use crate::stencil::{Boundaries, Boundary, Side, Which};

impl<T: Pod + Equivalence, const N: usize, B: DistBackend> DistArray<T, N, B> {
    /// Refills the boundary layer of the grid: the owned points within `width[k]` of a fixed
    /// global edge of axis `k`, as `boundaries` says at that side, axis by axis in order over
    /// the whole local extent of the other axes, so that the grid's boundary layer ends as
    /// [`fill_boundaries`](crate::stencil::fill_boundaries) leaves the halo of one array holding
    /// the whole grid. Local to each process: no communication (exchange afterwards for the
    /// neighbours' halos).
    ///
    /// # Panics
    ///
    /// As [`DistArray::try_fill_boundaries`] errs.
    #[track_caller]
    pub fn fill_boundaries(&mut self, width: [usize; N], boundaries: impl Into<Boundaries<T, N>>) {
        or_panic(self.try_fill_boundaries(width, boundaries))
    }

    /// [`DistArray::fill_boundaries`], returning errors.
    ///
    /// # Errors
    ///
    /// `Error::Layout` for `Boundary::Periodic` on an axis the decomposition does not wrap (or
    /// another condition on one it does); `Error::Decomposition` when a block at a global edge
    /// has fewer than `2 * width` points along the axis where its condition fills the layer (the
    /// same error on every process: the split is known to all); `Error::Device` from a device's
    /// kernel.
    pub fn try_fill_boundaries(&mut self, width: [usize; N], boundaries: impl Into<Boundaries<T, N>>) -> Result<()> {
        let boundaries = boundaries.into();
        self.check_boundaries("DistArray::fill_boundaries", width, &boundaries)?;
        let (rank, block, halo) = (self.rank, self.decomposition.block_shape(self.rank), self.halo());
        let periodic = self.decomposition.periodic();
        let local = self.local_desc_mut();
        let dev = B::handle_device(local.handle);
        for k in (0..N).filter(|&k| !periodic[k]) {
            for (side, step) in [(Side::Low, -1), (Side::High, 1)] {
                if self.decomposition.neighbour(rank, k, step).is_some() {
                    continue; // not a global edge
                }
                // The block without the ghost points beyond this edge: its first (last) `width`
                // points along `k` are the boundary layer.
                let d = match side {
                    Side::Low => local.narrowed(k, halo[k], local.shape[k] - halo[k]),
                    Side::High => local.narrowed(k, 0, halo[k] + block[k]),
                };
                // SAFETY: the block's own live memory, borrowed uniquely through `&mut self`; the
                // axis holds at least `2 * width` points there where the condition fills (checked).
                unsafe { boundaries.fill(&dev, d, k, side, width[k], Which::All) }?;
            }
        }
        Ok(())
    }

    /// Checks `boundaries` against the split: `Periodic` only on the decomposition's periodic
    /// axes (whose wrap the exchange does), and every block at a global edge at least
    /// `2 * width` deep where its condition fills the layer, on every process alike (the
    /// decomposition is the same everywhere).
    ///
    /// # Errors
    ///
    /// `Error::Layout` for a periodic condition on a non-periodic axis (or a periodic axis with
    /// another condition); `Error::Decomposition` for a block too thin at a global edge.
    pub(crate) fn check_boundaries(&self, op: &'static str, width: [usize; N], b: &Boundaries<T, N>) -> Result<()> {
        let d = &self.decomposition;
        for (k, &width) in width.iter().enumerate() {
            for side in [Side::Low, Side::High] {
                let condition = b.at(k, side);
                let name = match condition {
                    Boundary::Fixed => "Fixed",
                    Boundary::Periodic => "Periodic",
                    Boundary::Value(_) => "Value",
                    Boundary::Neumann => "Neumann",
                };
                if matches!(condition, Boundary::Periodic) != d.periodic()[k] {
                    return Err(Error::Layout {
                        op,
                        reason: format!(
                            "axis {k} is {}periodic in the decomposition but its boundary is {name}",
                            if d.periodic()[k] { "" } else { "not " }
                        ),
                        fix: "make the axis periodic in the decomposition (`DistArray::new`'s `periodic`) and \
                              give it `Boundary::Periodic`, or neither",
                    });
                }
                // The layer and as many interior points (the mirror's sources, and the one-array
                // fills' rule: an interior beside the halo).
                let need = match condition {
                    Boundary::Neumann | Boundary::Value(_) => width.saturating_mul(2),
                    Boundary::Fixed | Boundary::Periodic => 0,
                };
                let edge = |r: usize| d.neighbour(r, k, if side == Side::Low { -1 } else { 1 }).is_none();
                if let Some(r) = (0..d.ranks()).find(|&r| edge(r) && d.block_shape(r)[k] < need) {
                    return Err(Error::Decomposition {
                        op,
                        reason: format!(
                            "process {r}'s block has {} points along axis {k} at the global edge, fewer than the \
                             {need} its {name} boundary reads",
                            d.block_shape(r)[k]
                        ),
                        fix: "use fewer processes along that axis, or a larger grid",
                    });
                }
            }
        }
        Ok(())
    }
}
