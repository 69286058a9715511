//! Halo modes: how NumPy's `np.pad` fills the points around an array ([`PadMode`], and which
//! interior point each halo point reads), and the view of the original region inside a padded
//! array. The fills themselves, on every backend, are in `halo.rs`.

use crate::check::BoundsCheck;
use crate::element::Pod;
use crate::error::or_panic;
use crate::error::{Error, Result};
use crate::layout::{Layout, Strided};
use crate::view::ArrayView;

/// How halo points are filled.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PadMode<T> {
    /// A fixed value (`np.pad(mode="constant")`), e.g. a Dirichlet boundary.
    Constant(T),
    /// The nearest edge value repeated (`mode="edge"`), a zero-gradient boundary.
    Edge,
    /// Mirrored about the edge, the edge itself not repeated (`mode="reflect"`).
    Reflect,
    /// Wrapped around (`mode="wrap"`), a periodic domain.
    Periodic,
    /// Mirrored about the face between the halo and the edge, the edge repeated
    /// (`mode="symmetric"`): a zero-gradient (Neumann) boundary of cell-centred values for any
    /// halo width.
    Symmetric,
}

/// Where padded position `p` (relative to the original start) reads from on an axis of length `n`,
/// or `None` for a constant halo point.
pub(super) fn source<T>(p: isize, n: usize, mode: &PadMode<T>) -> Option<usize> {
    let n = n as isize;
    if (0..n).contains(&p) {
        return Some(p as usize);
    }
    match mode {
        PadMode::Constant(_) => None,
        PadMode::Edge => Some(p.clamp(0, n - 1) as usize),
        PadMode::Periodic => Some(p.rem_euclid(n) as usize),
        PadMode::Symmetric => {
            // Mirroring about both faces has period 2n: fold into one period, mirror its second half.
            let q = p.rem_euclid(2 * n);
            Some(if q < n { q } else { 2 * n - 1 - q } as usize)
        }
        PadMode::Reflect => {
            if n == 1 {
                return Some(0);
            }
            // Reflection has period 2(n - 1): fold into one period, then mirror its second half.
            let period = 2 * (n - 1);
            let q = p.rem_euclid(period);
            Some(if q < n { q } else { period - q } as usize)
        }
    }
}

/// Every mode but `Constant` reads the interior: it must not be empty on that axis.
pub(super) fn check_modes<T, const N: usize>(
    op: &'static str,
    interior: [usize; N],
    modes: &[PadMode<T>; N],
) -> Result<()> {
    for k in 0..N {
        if interior[k] == 0 && !matches!(modes[k], PadMode::Constant(_)) {
            return Err(Error::Layout {
                op,
                reason: format!(
                    "axis {k} of the interior shape {interior:?} is empty, so edge, reflect and periodic modes have no values to copy"
                ),
                fix: "use `PadMode::Constant` on empty axes",
            });
        }
    }
    Ok(())
}

/// The region of a padded array inside a halo of `width`: a view of shape `n - 2 * width`.
///
/// # Panics
///
/// When an axis is shorter than twice `width`; [`try_interior`] returns the error instead.
#[track_caller]
pub fn interior<'a, T: Pod, const N: usize, L: Layout, C: BoundsCheck>(
    padded: ArrayView<'a, T, N, L, C>,
    width: usize,
) -> ArrayView<'a, T, N, Strided, C> {
    or_panic(try_interior(padded, width))
}

/// The region of a padded array inside a halo of `width`: a view of shape `n - 2 * width`.
///
/// # Errors
///
/// `Error::Range` when an axis is shorter than `2 * width`.
pub fn try_interior<'a, T: Pod, const N: usize, L: Layout, C: BoundsCheck>(
    padded: ArrayView<'a, T, N, L, C>,
    width: usize,
) -> Result<ArrayView<'a, T, N, Strided, C>> {
    let mut v = padded.into_strided();
    for axis in 0..N {
        let n = v.shape()[axis];
        let len = width.checked_mul(2).and_then(|both| n.checked_sub(both)).ok_or(Error::Range {
            op: "interior",
            axis,
            start: isize::try_from(width).unwrap_or(isize::MAX),
            end: (n as i128 - width as i128).clamp(isize::MIN as i128, isize::MAX as i128) as isize,
            size: n,
        })?;
        v = v.try_narrow(axis, width, len)?;
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn periodic_halo_indices_map_to_their_images() {
        // Width 2, interior 3 (indices 2, 3, 4): np.pad(x, 2, mode="wrap") takes positions
        // [1, 2, 0, 1, 2, 0, 1] of x, i.e. padded indices [3, 4, 2, 3, 4, 2, 3].
        let image =
            |p: usize, w: usize, n: usize| source::<u8>(p as isize - w as isize, n, &PadMode::Periodic).unwrap() + w;
        let got: Vec<usize> = [0, 1, 5, 6].iter().map(|&p| image(p, 2, 3)).collect();
        assert_eq!(got, vec![3, 4, 2, 3]);
        // A halo wider than the interior wraps several times.
        let got: Vec<usize> = [0, 1, 2, 4, 5, 6].iter().map(|&p| image(p, 3, 1)).collect();
        assert_eq!(got, vec![3; 6]);
    }

    #[test]
    fn reflect_folds_wide_halos_like_numpy() {
        // np.pad([1, 2, 3], 5, mode="reflect") == [2, 1, 2, 3, 2, 1, 2, 3, 2, 1, 2, 3, 2]
        // (NumPy 2.4), i.e. source positions [1, 0, 1, 2, 1, 0, 1, 2, 1, 0, 1, 2, 1].
        let got: Vec<usize> = (-5..8).map(|p| source::<u8>(p, 3, &PadMode::Reflect).unwrap()).collect();
        assert_eq!(got, vec![1, 0, 1, 2, 1, 0, 1, 2, 1, 0, 1, 2, 1]);
    }
}
