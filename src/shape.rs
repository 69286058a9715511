//! Shape arithmetic shared by every layout: overflow-checked sizes and the strides of dense orders.
//!
//! Public for code that keeps shapes of run-time rank (the Python module, file readers): one
//! size rule for every array cnda makes, [`checked_len`].

use crate::error::Error;

/// Number of elements of `shape`, checked so that the memory the shape spans fits an allocation.
///
/// NumPy's and ndarray's rule: the product of the **non-zero** axes times `elem_size` must not
/// exceed `isize::MAX`, even when another axis is 0. An empty `[0, 2^62]` array of `f64` is
/// refused: strides of its non-empty axes would overflow, and `ndarray::ArrayView::from_shape_ptr`
/// and NumPy both require the rule. Every constructor, view, interop conversion and file reader
/// asks this one function.
///
/// ```
/// use cnda::shape::checked_len;
/// assert_eq!(checked_len("zeros", &[3, 4], 8), Ok(12));
/// assert_eq!(checked_len("zeros", &[0, 1 << 20], 8), Ok(0));
/// assert!(checked_len("zeros", &[0, 1 << 62], 8).is_err()); // NumPy refuses it too
/// ```
///
/// # Errors
///
/// `Error::Overflow` naming `op`, the shape and the element size.
pub fn checked_len(op: &'static str, shape: &[usize], elem_size: usize) -> Result<usize, Error> {
    let overflow = || Error::Overflow { op, shape: shape.to_vec(), elem_size };
    let spanned =
        shape.iter().filter(|&&n| n != 0).try_fold(1usize, |acc, &n| acc.checked_mul(n)).ok_or_else(overflow)?;
    let bytes = spanned.checked_mul(elem_size.max(1)).ok_or_else(overflow)?;
    if bytes > isize::MAX as usize {
        return Err(overflow());
    }
    Ok(if shape.contains(&0) { 0 } else { spanned })
}

/// Number of elements of `shape`: 0 when an axis is empty (whatever the others), `None` when
/// the product overflows `usize`.
pub(crate) fn element_count(shape: &[usize]) -> Option<usize> {
    if shape.contains(&0) {
        return Some(0);
    }
    shape.iter().try_fold(1usize, |acc, &n| acc.checked_mul(n))
}

/// Number of lanes along the last axis (rows) of an array of `len` elements and `shape`: `len`
/// divided by the row length when rows are non-empty; otherwise the product of the other axes
/// (`[3, 0]` has three empty rows), saturating, since nothing is addressed in them.
pub(crate) fn row_count<const N: usize>(len: usize, shape: &[usize; N]) -> usize {
    match N {
        0 => 1,
        _ if shape[N - 1] != 0 => len / shape[N - 1],
        _ => shape[..N - 1].iter().try_fold(1usize, |acc, &n| acc.checked_mul(n)).unwrap_or(usize::MAX),
    }
}

/// Strides of a C-order (last axis fastest) array of `shape`, in elements.
/// The index of element `i` of `shape` in row-major order (`i` below the element count).
pub(crate) fn row_major_index<const N: usize>(mut i: usize, shape: [usize; N]) -> [usize; N] {
    let mut index = [0; N];
    for k in (0..N).rev() {
        index[k] = i % shape[k];
        i /= shape[k];
    }
    index
}

pub(crate) fn row_major_strides<const N: usize>(shape: &[usize; N]) -> [isize; N] {
    let mut strides = [0isize; N];
    let mut step = 1isize;
    for axis in (0..N).rev() {
        strides[axis] = step;
        step = step.wrapping_mul(shape[axis] as isize);
    }
    strides
}

/// Strides of an F-order (first axis fastest) array of `shape`, in elements.
pub(crate) fn col_major_strides<const N: usize>(shape: &[usize; N]) -> [isize; N] {
    let mut strides = [0isize; N];
    let mut step = 1isize;
    for axis in 0..N {
        strides[axis] = step;
        step = step.wrapping_mul(shape[axis] as isize);
    }
    strides
}

/// Whether memory described by `shape`/`strides` is one dense block in the order of `dense`
/// (axes of length 1 may carry any stride; an empty array is dense in every order).
pub(crate) fn matches_dense<const N: usize>(shape: &[usize; N], strides: &[isize; N], dense: &[isize; N]) -> bool {
    shape.contains(&0) || (0..N).all(|axis| shape[axis] == 1 || strides[axis] == dense[axis])
}

/// The interior range of a stencil along an axis of length `n` for radius `r` (empty when `n < 2r + 1`).
/// Written without `2 * r`, which overflows for radii near `usize::MAX / 2`. The one definition of
/// a stencil's interior: sweeps, stencil kernels, fused steps and distributed blocks use it.
pub(crate) fn interior_range(n: usize, r: usize) -> core::ops::Range<usize> {
    if r < n && n - r > r {
        r..n - r
    } else {
        0..0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_major_strides_of_fixed_shapes() {
        assert_eq!(row_major_strides(&[3, 4, 5]), [20, 5, 1]);
        assert_eq!(row_major_strides(&[2, 3, 4]), [12, 4, 1]);
        assert_eq!(col_major_strides(&[2, 3, 4]), [1, 2, 6]);
    }

    #[test]
    fn checked_len_rejects_overflow_and_huge_byte_counts() {
        assert_eq!(checked_len("t", &[2, 3], 8), Ok(6));
        assert_eq!(checked_len("t", &[], 8), Ok(1));
        assert!(matches!(checked_len("t", &[usize::MAX, 2], 1), Err(Error::Overflow { .. })));
        assert!(matches!(checked_len("t", &[1 << 62], 8), Err(Error::Overflow { .. })));
        assert!(matches!(checked_len("t", &[1 << 40, 1 << 40], 1), Err(Error::Overflow { .. })));
    }

    #[test]
    fn checked_len_applies_numpys_rule_to_empty_shapes() {
        assert_eq!(checked_len("t", &[0, 1 << 20], 8), Ok(0));
        assert_eq!(checked_len("t", &[0, usize::MAX / 16], 8), Ok(0));
        assert!(matches!(checked_len("t", &[0, 1 << 62], 8), Err(Error::Overflow { .. })));
        assert!(matches!(checked_len("t", &[1 << 40, 0, 1 << 40], 1), Err(Error::Overflow { .. })));
        assert!(matches!(checked_len("t", &[0, isize::MAX as usize + 1], 0), Err(Error::Overflow { .. })));
    }

    #[test]
    fn dense_match_ignores_unit_axes() {
        assert!(matches_dense(&[1, 4], &[99, 1], &row_major_strides(&[1, 4])));
        assert!(!matches_dense(&[2, 4], &[1, 2], &row_major_strides(&[2, 4])));
        assert!(matches_dense(&[0, 4], &[7, 7], &row_major_strides(&[0, 4])));
    }
}
