//! What a multi-sweep stencil does at the edges of each axis: keep fixed values, or wrap around
//! (a periodic domain whose halo holds images of the interior).

use super::PadMode;
use crate::element::Pod;
use crate::error::Result;
use crate::kernel::CopyKernels;
use crate::kernel::Desc;

/// The boundary condition of one axis of a field swept by
/// [`LinearStencil::apply_steps_with`](super::LinearStencil::apply_steps_with).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Boundary {
    /// The `R` points at each end of the axis hold boundary values no sweep writes (Dirichlet):
    /// each field keeps what it had.
    #[default]
    Fixed,
    /// The axis wraps around: its `R` points at each end are a halo holding the periodic images
    /// of the interior, refreshed before every sweep and after the last, exactly as
    /// [`fill_halo`](super::fill_halo) with [`PadMode::Periodic`](super::PadMode::Periodic) of
    /// width `R` would refresh them.
    Periodic,
}

/// Copies, along `axis` of `d`, every halo slab (the `width` indices at each end) from its
/// periodic source in the interior, over the whole extent of the other axes; as the axis's pass
/// of [`fill_halo`](super::fill_halo) with `PadMode::Periodic`, which it is.
///
/// # Safety
///
/// `d` addresses live, writable memory on `dev`, accessed by nothing else during the call; the
/// axis has a non-empty interior (`shape[axis] > 2 width`).
///
/// # Errors
///
/// `Error::Device` from the copy kernel.
pub(super) unsafe fn wrap_axis<B: CopyKernels, T: Pod, const N: usize>(
    dev: &B::Device,
    d: Desc<B, T, N>,
    axis: usize,
    width: usize,
) -> Result<()> {
    // SAFETY: the caller's contract is `fill_axis_halo`'s.
    unsafe { super::pad::fill_axis_halo(dev, d, axis, width, &PadMode::Periodic) }
}

/// Refreshes the halos of hyperplane `i` of axis 0 of `d` along every periodic axis after the
/// first, in axis order (as [`fill_halo`](super::fill_halo) leaves that hyperplane).
///
/// # Safety
///
/// As for [`wrap_axis`], for every periodic axis after the first; `i < d.shape[0]`.
///
/// # Errors
///
/// `Error::Device` from the copy kernel.
pub(super) unsafe fn wrap_hyperplane<B: CopyKernels, T: Pod, const N: usize>(
    dev: &B::Device,
    d: Desc<B, T, N>,
    i: usize,
    boundaries: &[Boundary; N],
    width: usize,
) -> Result<()> {
    if width == 0 {
        return Ok(());
    }
    let plane = d.narrowed(0, i, 1);
    for (axis, boundary) in boundaries.iter().enumerate().skip(1) {
        if *boundary == Boundary::Periodic {
            // SAFETY: the caller's contract.
            unsafe { wrap_axis(dev, plane, axis, width) }?;
        }
    }
    Ok(())
}
