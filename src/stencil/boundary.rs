//! What a multi-sweep stencil does at the edges of each axis: keep fixed values, or wrap around
//! (a periodic domain whose halo holds images of the interior).

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

/// The interior index whose periodic image halo index `p` of an axis with `width` halo points
/// at each end and `inner` interior points holds (`inner > 0`).
fn periodic_source(p: usize, width: usize, inner: usize) -> usize {
    (p as isize - width as isize).rem_euclid(inner as isize) as usize + width
}

/// Copies, along `axis` of `d`, every halo slab (the `width` indices at each end) from its
/// periodic source in the interior, over the whole extent of the other axes; as the axis's pass
/// of [`fill_halo`](super::fill_halo).
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
    let inner = d.shape[axis] - 2 * width;
    for p in (0..width).chain(width + inner..2 * width + inner) {
        let q = periodic_source(p, width, inner);
        // SAFETY: `p` is a halo index and `q` an interior one, so the two slabs are distinct
        // elements of `d` (the caller's contract).
        unsafe { B::copy(dev, d.narrowed(axis, p, 1), d.narrowed(axis, q, 1)) }?;
    }
    Ok(())
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

#[cfg(test)]
mod tests {
    use super::periodic_source;

    #[test]
    fn halo_indices_map_to_their_periodic_images() {
        // Width 2, interior 3 (indices 2, 3, 4): np.pad(x, 2, mode="wrap") takes positions
        // [1, 2, 0, 1, 2, 0, 1] of x, i.e. padded indices [3, 4, 2, 3, 4, 2, 3].
        let got: Vec<usize> = [0, 1, 5, 6].iter().map(|&p| periodic_source(p, 2, 3)).collect();
        assert_eq!(got, vec![3, 4, 2, 3]);
        // A halo wider than the interior wraps several times.
        let got: Vec<usize> = [0, 1, 2, 4, 5, 6].iter().map(|&p| periodic_source(p, 3, 1)).collect();
        assert_eq!(got, vec![3; 6]);
    }
}
