//! Shape arithmetic shared by every layout: overflow-checked sizes and the strides of dense orders.

use crate::error::Error;

/// Number of elements of `shape`, checked so that the byte size fits an allocation
/// (`len * elem_size <= isize::MAX`).
pub(crate) fn checked_len(op: &'static str, shape: &[usize], elem_size: usize) -> Result<usize, Error> {
    let overflow = || Error::Overflow { op, shape: shape.to_vec(), elem_size };
    let len = shape.iter().try_fold(1usize, |acc, &n| acc.checked_mul(n)).ok_or_else(overflow)?;
    let bytes = len.checked_mul(elem_size).ok_or_else(overflow)?;
    if bytes > isize::MAX as usize {
        return Err(overflow());
    }
    Ok(len)
}

/// Strides of a C-order (last axis fastest) array of `shape`, in elements.
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

/// Smallest and largest element offset reachable from the first element, or `None` when the
/// array is empty.
pub(crate) fn footprint<const N: usize>(shape: &[usize; N], strides: &[isize; N]) -> Option<(isize, isize)> {
    if shape.contains(&0) {
        return None;
    }
    let mut lo = 0isize;
    let mut hi = 0isize;
    for axis in 0..N {
        let reach = strides[axis] * (shape[axis] as isize - 1);
        if reach < 0 {
            lo += reach;
        } else {
            hi += reach;
        }
    }
    Some((lo, hi))
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
    fn footprint_spans_negative_and_positive_strides() {
        assert_eq!(footprint(&[3, 4], &[-4, 1]), Some((-8, 3)));
        assert_eq!(footprint(&[3, 0], &[1, 1]), None);
        assert_eq!(footprint::<0>(&[], &[]), Some((0, 0)));
    }

    #[test]
    fn dense_match_ignores_unit_axes() {
        assert!(matches_dense(&[1, 4], &[99, 1], &row_major_strides(&[1, 4])));
        assert!(!matches_dense(&[2, 4], &[1, 2], &row_major_strides(&[2, 4])));
        assert!(matches_dense(&[0, 4], &[7, 7], &row_major_strides(&[0, 4])));
    }
}
