//! Halo padding: a copy of an array with `width` extra points on both sides of every axis, filled
//! like NumPy's `np.pad` modes, and the view of the original region inside a padded array.

use crate::array::Array;
use crate::check::BoundsCheck;
use crate::element::Pod;
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
}

/// Where padded position `p` (relative to the original start) reads from on an axis of length `n`,
/// or `None` for a constant halo point.
fn source<T>(p: isize, n: usize, mode: &PadMode<T>) -> Option<usize> {
    let n = n as isize;
    if (0..n).contains(&p) {
        return Some(p as usize);
    }
    match mode {
        PadMode::Constant(_) => None,
        PadMode::Edge => Some(p.clamp(0, n - 1) as usize),
        PadMode::Periodic => Some(p.rem_euclid(n) as usize),
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

/// A copy of `a` with `width` halo points on both ends of every axis (shape `n + 2 * width`).
///
/// ```
/// use cnda::prelude::*;
/// use cnda::stencil::{pad, PadMode};
/// let a = Array::from_shape_vec([3], vec![1, 2, 3]).unwrap();
/// assert_eq!(pad(a.view(), 2, PadMode::Reflect).unwrap().as_slice(), &[3, 2, 1, 2, 3, 2, 1]);
/// assert_eq!(pad(a.view(), 2, PadMode::Periodic).unwrap().as_slice(), &[2, 3, 1, 2, 3, 1, 2]);
/// assert_eq!(pad(a.view(), 1, PadMode::Edge).unwrap().as_slice(), &[1, 1, 2, 3, 3]);
/// assert_eq!(pad(a.view(), 1, PadMode::Constant(0)).unwrap().as_slice(), &[0, 1, 2, 3, 0]);
/// ```
///
/// # Errors
///
/// `Error::Layout` when an axis is empty and the mode needs values from it (every mode but
/// `Constant`); `Error::Overflow` / `Error::Alloc` for a padded shape too large.
pub fn pad<T: Pod, const N: usize, L: Layout, C: BoundsCheck>(
    a: ArrayView<'_, T, N, L, C>,
    width: usize,
    mode: PadMode<T>,
) -> Result<Array<T, N>> {
    let shape = a.shape();
    if !matches!(mode, PadMode::Constant(_)) && shape.contains(&0) {
        return Err(Error::Layout {
            op: "pad",
            reason: format!(
                "shape {shape:?} has an empty axis, so edge, reflect and periodic modes have no values to copy"
            ),
            fix: "pad empty arrays with `PadMode::Constant`",
        });
    }
    let mut padded = [0usize; N];
    for k in 0..N {
        padded[k] = width.checked_mul(2).and_then(|w| w.checked_add(shape[k])).ok_or(Error::Overflow {
            op: "pad",
            shape: shape.to_vec(),
            elem_size: core::mem::size_of::<T>(),
        })?;
    }
    let fill = match mode {
        PadMode::Constant(value) => value,
        _ => T::zeroed(),
    };
    Array::try_from_fn(padded, |index| {
        let mut from = [0usize; N];
        for k in 0..N {
            match source(index[k] as isize - width as isize, shape[k], &mode) {
                Some(p) => from[k] = p,
                None => return fill,
            }
        }
        a[from]
    })
}

/// The region of a padded array inside a halo of `width`: a view of shape `n - 2 * width`.
///
/// # Errors
///
/// `Error::Range` when an axis is shorter than `2 * width`.
pub fn interior<'a, T: Pod, const N: usize, L: Layout, C: BoundsCheck>(
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
    fn reflect_folds_wide_halos_like_numpy() {
        // np.pad([1, 2, 3], 5, mode="reflect") == [2, 1, 2, 3, 2, 1, 2, 3, 2, 1, 2, 3, 2]
        // (NumPy 2.4), i.e. source positions [1, 0, 1, 2, 1, 0, 1, 2, 1, 0, 1, 2, 1].
        let got: Vec<usize> = (-5..8).map(|p| source::<u8>(p, 3, &PadMode::Reflect).unwrap()).collect();
        assert_eq!(got, vec![1, 0, 1, 2, 1, 0, 1, 2, 1, 0, 1, 2, 1]);
    }
}
