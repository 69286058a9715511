//! Views of memory laid out by someone else: a slice plus a shape, strides (in elements, any
//! sign, zero included) and the position of the first element, as NumPy, ndarray and DLPack
//! describe their arrays. Every reachable element is checked to lie in the slice, so the views are
//! safe whatever the metadata; a mutable view also refuses strides under which two indices reach
//! the same element.

use super::base::{ArrayView, ArrayViewMut};

use crate::check::DefaultCheck;
use crate::element::Pod;
use crate::error::{Error, Result};
use crate::layout::Strided;
use crate::raw::RawParts;
use crate::shape;

/// The lowest and highest element offsets, relative to index `[0; N]`, that `shape` and `strides`
/// reach; `None` for an empty shape (which reaches nothing).
///
/// # Errors
///
/// `Error::Layout` when an offset does not fit an `isize`.
pub(crate) fn reach(op: &'static str, shape: &[usize], strides: &[isize]) -> Result<Option<(isize, isize)>> {
    if shape.contains(&0) {
        return Ok(None);
    }
    let too_far = || Error::Layout {
        op,
        reason: format!("shape {shape:?} with strides {strides:?} reaches offsets beyond isize::MAX"),
        fix: "check the strides; no allocation is that large",
    };
    let (mut low, mut high) = (0isize, 0isize);
    for (&n, &s) in shape.iter().zip(strides) {
        let last = isize::try_from(n - 1).ok().and_then(|m| m.checked_mul(s)).ok_or_else(too_far)?;
        if last < 0 {
            low = low.checked_add(last).ok_or_else(too_far)?;
        } else {
            high = high.checked_add(last).ok_or_else(too_far)?;
        }
    }
    Ok(Some((low, high)))
}

/// Checks that `shape`/`strides` from position `offset` stay inside a slice of `len` elements.
pub(crate) fn check_inside(
    op: &'static str,
    shape: &[usize],
    strides: &[isize],
    offset: usize,
    len: usize,
    elem_size: usize,
) -> Result<()> {
    shape::checked_len(op, shape, elem_size)?;
    let Some((low, high)) = reach(op, shape, strides)? else {
        return Ok(());
    };
    let outside = |what: String| {
        Error::Layout {
        op,
        reason: format!(
            "shape {shape:?} with strides {strides:?} from element {offset} reaches {what}, outside the {len} elements given"
        ),
        fix: "pass the slice that holds every element, and the position of index [0, ..] in it",
    }
    };
    let first = isize::try_from(offset)
        .ok()
        .and_then(|o| o.checked_add(low))
        .filter(|&f| f >= 0)
        .ok_or_else(|| outside(format!("offset {low} back")))?;
    match (first as usize).checked_add(high.abs_diff(low)) {
        Some(last) if last < len => Ok(()),
        _ => Err(outside(format!("offset {high} ahead"))),
    }
}

/// Whether no two indices of `shape`/`strides` reach the same element, by a sufficient test:
/// with the axes ordered by stride magnitude, each stride exceeds the span of all smaller ones
/// (true of every layout made by slicing, transposing or flipping one dense block).
pub(crate) fn is_unique(shape: &[usize], strides: &[isize]) -> bool {
    if shape.contains(&0) {
        return true;
    }
    let mut axes: Vec<(usize, usize)> =
        shape.iter().zip(strides).filter(|(&n, _)| n > 1).map(|(&n, &s)| (s.unsigned_abs(), n)).collect();
    axes.sort_unstable();
    let mut span = 0usize; // the largest offset the smaller axes reach
    for (stride, n) in axes {
        if stride <= span {
            return false;
        }
        span += stride * (n - 1); // fits: `reach` bounded the total by isize::MAX
    }
    true
}

impl<'a, T: Pod, const N: usize> ArrayView<'a, T, N, Strided, DefaultCheck> {
    /// A view of `data` with `shape` and `strides` (in elements; negative flips an axis, zero
    /// repeats), whose index `[0; N]` is `data[offset]`, without copying.
    ///
    /// ```
    /// use cnda::prelude::*;
    ///
    /// // Column 1 of a 3 x 4 row-major block, read bottom-up: stride -4 from element 9.
    /// let data: Vec<i32> = (0..12).collect();
    /// let col = ArrayView::from_slice_strided([3], [-4], 9, &data).unwrap();
    /// assert_eq!(col.iter().copied().collect::<Vec<_>>(), [9, 5, 1]);
    /// assert!(ArrayView::from_slice_strided([3], [4], 9, &data).is_err()); // would reach 17
    /// ```
    ///
    /// # Errors
    ///
    /// `Error::Layout` when some index reaches outside `data`; `Error::Overflow` when the shape
    /// holds more bytes than an allocation can.
    pub fn from_slice_strided(shape: [usize; N], strides: [isize; N], offset: usize, data: &'a [T]) -> Result<Self> {
        let op = "ArrayView::from_slice_strided";
        check_inside(op, &shape, &strides, offset, data.len(), core::mem::size_of::<T>())?;
        let ptr = data.as_ptr().cast_mut().wrapping_add(offset.min(data.len()));
        // SAFETY: every index of the shape reaches an element of `data` (checked above), borrowed
        // for 'a; an empty view reaches none, and its pointer stays aligned inside or one past
        // `data`.
        Ok(unsafe { Self::from_raw(RawParts::strided(ptr, shape, strides)) })
    }
}

impl<'a, T: Pod, const N: usize> ArrayView<'a, T, N, Strided, DefaultCheck> {
    /// A view of the elements that `shape` and `strides` reach from `ptr`, for memory another
    /// library vouches for (a NumPy or ndarray array, a DLPack tensor), without copying. The
    /// metadata is still checked: a null or misaligned `ptr`, or offsets beyond `isize`, are
    /// errors.
    ///
    /// # Safety
    ///
    /// Every element reached (index `i` at `ptr + sum(i[k] * strides[k])`) is an initialized `T`
    /// inside one allocation, valid and not written through any other path for `'a`.
    ///
    /// # Errors
    ///
    /// `Error::Layout` for a null or misaligned pointer or offsets that do not fit an `isize`;
    /// `Error::Overflow` when the shape holds more bytes than an allocation can.
    pub unsafe fn from_raw_strided(ptr: *const T, shape: [usize; N], strides: [isize; N]) -> Result<Self> {
        let op = "ArrayView::from_raw_strided";
        check_raw(op, ptr, &shape, &strides)?;
        // SAFETY: the caller vouches for every element reached; `check_raw` checked the pointer
        // and the size arithmetic the view relies on.
        Ok(unsafe { Self::from_raw(RawParts::strided(ptr.cast_mut(), shape, strides)) })
    }
}

/// The checks of the raw constructors: a non-null aligned pointer, a shape whose bytes fit an
/// allocation, and offsets that fit an `isize` (in bytes too).
pub(crate) fn check_raw<T>(op: &'static str, ptr: *const T, shape: &[usize], strides: &[isize]) -> Result<()> {
    if ptr.is_null() || !ptr.is_aligned() {
        return Err(Error::Layout {
            op,
            reason: format!("the pointer {ptr:p} is null or not aligned to {} bytes", core::mem::align_of::<T>()),
            fix: "pass the address of the element at index [0, ..]; copy misaligned data first",
        });
    }
    shape::checked_len(op, shape, core::mem::size_of::<T>())?;
    if let Some((low, high)) = reach(op, shape, strides)? {
        let bytes = core::mem::size_of::<T>() as isize;
        if low.checked_mul(bytes).is_none() || high.checked_mul(bytes).is_none() {
            return Err(Error::Layout {
                op,
                reason: format!("shape {shape:?} with strides {strides:?} reaches byte offsets beyond isize::MAX"),
                fix: "check the strides; no allocation is that large",
            });
        }
    }
    Ok(())
}

impl<'a, T: Pod, const N: usize> ArrayViewMut<'a, T, N, Strided, DefaultCheck> {
    /// A mutable view of the elements that `shape` and `strides` reach from `ptr`, for memory
    /// another library vouches for. Checked as [`ArrayView::from_raw_strided`], and refused when
    /// two indices may reach one element.
    ///
    /// # Safety
    ///
    /// Every element reached is an initialized `T` inside one allocation, valid, writable and
    /// reached through no other path for `'a`.
    ///
    /// # Errors
    ///
    /// As [`ArrayView::from_raw_strided`], and `Error::Layout` for overlapping strides.
    pub unsafe fn from_raw_strided(ptr: *mut T, shape: [usize; N], strides: [isize; N]) -> Result<Self> {
        let op = "ArrayViewMut::from_raw_strided";
        check_raw(op, ptr, &shape, &strides)?;
        if !is_unique(&shape, &strides) {
            return Err(overlap(op, &shape, &strides));
        }
        // SAFETY: the caller vouches for every element reached and its exclusive use; the checks
        // above cover the arithmetic and the uniqueness of the indices' elements.
        Ok(unsafe { Self::from_raw(RawParts::strided(ptr, shape, strides)) })
    }

    /// A mutable view of `data` with `shape` and `strides`, whose index `[0; N]` is
    /// `data[offset]`, without copying. Distinct indices must reach distinct elements.
    ///
    /// ```
    /// use cnda::prelude::*;
    ///
    /// let mut data = vec![0.0; 12];
    /// // The transpose of a 3 x 4 row-major block.
    /// let mut t = ArrayViewMut::from_slice_strided([4, 3], [1, 4], 0, &mut data).unwrap();
    /// t[[1, 2]] = 5.0;
    /// assert_eq!(data[9], 5.0);
    /// // Stride 0 would make every index the same element.
    /// assert!(ArrayViewMut::from_slice_strided([4], [0], 0, &mut data).is_err());
    /// ```
    ///
    /// # Errors
    ///
    /// As [`ArrayView::from_slice_strided`], and `Error::Layout` when two indices may reach one
    /// element (zero or overlapping strides).
    pub fn from_slice_strided(
        shape: [usize; N],
        strides: [isize; N],
        offset: usize,
        data: &'a mut [T],
    ) -> Result<Self> {
        let op = "ArrayViewMut::from_slice_strided";
        check_inside(op, &shape, &strides, offset, data.len(), core::mem::size_of::<T>())?;
        if !is_unique(&shape, &strides) {
            return Err(overlap(op, &shape, &strides));
        }
        let ptr = data.as_mut_ptr().wrapping_add(offset.min(data.len()));
        // SAFETY: as in `ArrayView::from_slice_strided`, and distinct indices reach distinct
        // elements (checked above), all in `data`, borrowed exclusively for 'a.
        Ok(unsafe { Self::from_raw(RawParts::strided(ptr, shape, strides)) })
    }
}

pub(crate) fn overlap(op: &'static str, shape: &[usize], strides: &[isize]) -> Error {
    Error::Layout {
        op,
        reason: format!("shape {shape:?} with strides {strides:?} reaches some elements from two indices"),
        fix: "write through a view whose strides do not overlap (no zero strides), or copy first",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extreme_strides_are_errors_not_overflow() {
        let data = [0u8; 4];
        assert!(ArrayView::from_slice_strided([2], [isize::MIN], 1, &data).is_err());
        assert!(ArrayView::from_slice_strided([2], [isize::MAX], 0, &data).is_err());
        assert!(ArrayView::from_slice_strided([usize::MAX], [1], 0, &data).is_err());
        assert!(ArrayView::from_slice_strided([3, 2], [isize::MAX / 2, isize::MAX / 2], 0, &data).is_err());
        assert!(ArrayView::from_slice_strided([2], [-1], 0, &data).is_err());
        assert!(ArrayView::from_slice_strided([2], [-1], usize::MAX, &data).is_err());
        // Empty shapes reach nothing, whatever the strides and offset.
        assert_eq!(ArrayView::from_slice_strided([0, 5], [isize::MIN, 7], 99, &data).unwrap().len(), 0);
    }

    #[test]
    fn raw_constructors_check_the_pointer_and_the_arithmetic() {
        let data = [1.0f64, 2.0, 3.0];
        // SAFETY: each call either fails its checks or reaches only `data`'s elements.
        unsafe {
            assert!(ArrayView::<f64, 1>::from_raw_strided(core::ptr::null(), [1], [1]).is_err());
            let odd = data.as_ptr().cast::<u8>().wrapping_add(1).cast::<f64>();
            assert!(ArrayView::from_raw_strided(odd, [0], [1]).is_err());
            assert!(ArrayView::from_raw_strided(data.as_ptr(), [2], [isize::MAX / 4]).is_err());
            let v = ArrayView::from_raw_strided(data.as_ptr().wrapping_add(2), [3], [-1]).unwrap();
            assert_eq!(v.iter().copied().collect::<Vec<_>>(), [3.0, 2.0, 1.0]);
        }
    }

    #[test]
    fn uniqueness_test_accepts_dense_permutations_and_refuses_overlap() {
        assert!(is_unique(&[3, 4], &[4, 1]));
        assert!(is_unique(&[4, 3], &[1, -4]));
        assert!(is_unique(&[2, 3, 4], &[1, 2, 6])); // column-major
        assert!(is_unique(&[1, 5], &[0, 1])); // a length-1 axis repeats nothing
        assert!(!is_unique(&[2, 3], &[0, 1]));
        assert!(!is_unique(&[3, 3], &[2, 1])); // [1, 0] and [0, 2] meet
    }
}
