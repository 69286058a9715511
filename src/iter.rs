//! Iterators over elements (logical row-major order, any layout) and over rows of row-major arrays.

use core::iter::FusedIterator;
use core::marker::PhantomData;

/// Walks the indices of a shape in row-major order, tracking the element offset incrementally.
#[derive(Clone, Debug)]
pub(crate) struct Odometer<const N: usize> {
    shape: [usize; N],
    strides: [isize; N],
    index: [usize; N],
    offset: isize,
    remaining: usize,
}

impl<const N: usize> Odometer<N> {
    pub(crate) fn new(shape: [usize; N], strides: [isize; N]) -> Self {
        // Views' element counts fit (checked where views are made); an empty axis gives 0 whatever
        // the other axes are.
        let remaining = crate::shape::element_count(&shape).unwrap_or(0);
        Self { shape, strides, index: [0; N], offset: 0, remaining }
    }

    /// The current index and offset, then advance.
    #[inline]
    pub(crate) fn next(&mut self) -> Option<([usize; N], isize)> {
        if self.remaining == 0 {
            return None;
        }
        let current = (self.index, self.offset);
        self.remaining -= 1;
        if self.remaining > 0 {
            for axis in (0..N).rev() {
                self.index[axis] += 1;
                // Wrapping: one step past the end of an axis may leave the memory's offset range;
                // it is undone at once, and the offsets returned are exact.
                self.offset = self.offset.wrapping_add(self.strides[axis]);
                if self.index[axis] < self.shape[axis] {
                    break;
                }
                self.offset = self.offset.wrapping_sub(self.strides[axis].wrapping_mul(self.shape[axis] as isize));
                self.index[axis] = 0;
            }
        }
        Some(current)
    }

    pub(crate) fn remaining(&self) -> usize {
        self.remaining
    }
}

enum Walk<'a, T, const N: usize> {
    /// Row-major contiguous memory: a plain slice iterator, which LLVM vectorizes.
    Slice(core::slice::Iter<'a, T>),
    Strided {
        base: *const T,
        odometer: Odometer<N>,
    },
}

/// Iterator over `&T` in logical row-major order; see `ArrayView::iter`.
pub struct Iter<'a, T, const N: usize> {
    walk: Walk<'a, T, N>,
}

impl<'a, T, const N: usize> Iter<'a, T, N> {
    pub(crate) fn slice(slice: &'a [T]) -> Self {
        Self { walk: Walk::Slice(slice.iter()) }
    }

    /// # Safety
    ///
    /// Every in-bounds index of `shape` maps through `strides` from `base` to an element that stays
    /// valid and unmutated for `'a`.
    pub(crate) unsafe fn strided(base: *const T, shape: [usize; N], strides: [isize; N]) -> Self {
        Self { walk: Walk::Strided { base, odometer: Odometer::new(shape, strides) } }
    }
}

impl<'a, T, const N: usize> Iterator for Iter<'a, T, N> {
    type Item = &'a T;

    #[inline]
    fn next(&mut self) -> Option<&'a T> {
        match &mut self.walk {
            Walk::Slice(it) => it.next(),
            Walk::Strided { base, odometer } => {
                let (_, offset) = odometer.next()?;
                // SAFETY: the constructor's contract: every offset the odometer yields is an element.
                Some(unsafe { &*base.offset(offset) })
            }
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = match &self.walk {
            Walk::Slice(it) => it.len(),
            Walk::Strided { odometer, .. } => odometer.remaining(),
        };
        (n, Some(n))
    }

    fn fold<B, F: FnMut(B, &'a T) -> B>(self, init: B, f: F) -> B {
        match self.walk {
            Walk::Slice(it) => it.fold(init, f),
            walk => Iter { walk }.by_ref_fold(init, f),
        }
    }
}

impl<'a, T, const N: usize> Iter<'a, T, N> {
    fn by_ref_fold<B, F: FnMut(B, &'a T) -> B>(mut self, init: B, mut f: F) -> B {
        let mut acc = init;
        for x in self.by_ref() {
            acc = f(acc, x);
        }
        acc
    }
}

impl<T, const N: usize> ExactSizeIterator for Iter<'_, T, N> {}
impl<T, const N: usize> FusedIterator for Iter<'_, T, N> {}

/// Iterator over `&mut T` in logical row-major order; see `ArrayViewMut::iter_mut`.
pub struct IterMut<'a, T, const N: usize> {
    walk: WalkMut<'a, T, N>,
}

enum WalkMut<'a, T, const N: usize> {
    Slice(core::slice::IterMut<'a, T>),
    Strided { base: *mut T, odometer: Odometer<N>, life: PhantomData<&'a mut T> },
}

impl<'a, T, const N: usize> IterMut<'a, T, N> {
    pub(crate) fn slice(slice: &'a mut [T]) -> Self {
        Self { walk: WalkMut::Slice(slice.iter_mut()) }
    }

    /// # Safety
    ///
    /// As for [`Iter::strided`], plus: distinct indices map to distinct elements (no zero strides),
    /// and nothing else accesses them for `'a`.
    pub(crate) unsafe fn strided(base: *mut T, shape: [usize; N], strides: [isize; N]) -> Self {
        Self { walk: WalkMut::Strided { base, odometer: Odometer::new(shape, strides), life: PhantomData } }
    }
}

impl<'a, T, const N: usize> Iterator for IterMut<'a, T, N> {
    type Item = &'a mut T;

    #[inline]
    fn next(&mut self) -> Option<&'a mut T> {
        match &mut self.walk {
            WalkMut::Slice(it) => it.next(),
            WalkMut::Strided { base, odometer, .. } => {
                let (_, offset) = odometer.next()?;
                // SAFETY: the constructor's contract: each offset is a distinct element, yielded once.
                Some(unsafe { &mut *base.offset(offset) })
            }
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = match &self.walk {
            WalkMut::Slice(it) => it.len(),
            WalkMut::Strided { odometer, .. } => odometer.remaining(),
        };
        (n, Some(n))
    }
}

impl<T, const N: usize> ExactSizeIterator for IterMut<'_, T, N> {}
impl<T, const N: usize> FusedIterator for IterMut<'_, T, N> {}

/// Iterator over `(index, &T)` in logical row-major order; see `ArrayView::indexed_iter`.
pub struct IndexedIter<'a, T, const N: usize> {
    base: *const T,
    odometer: Odometer<N>,
    life: PhantomData<&'a T>,
}

impl<T, const N: usize> IndexedIter<'_, T, N> {
    /// # Safety
    ///
    /// As for [`Iter::strided`].
    pub(crate) unsafe fn new(base: *const T, shape: [usize; N], strides: [isize; N]) -> Self {
        Self { base, odometer: Odometer::new(shape, strides), life: PhantomData }
    }
}

impl<'a, T, const N: usize> Iterator for IndexedIter<'a, T, N> {
    type Item = ([usize; N], &'a T);

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        let (index, offset) = self.odometer.next()?;
        // SAFETY: the constructor's contract.
        Some((index, unsafe { &*self.base.offset(offset) }))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.odometer.remaining(), Some(self.odometer.remaining()))
    }
}

impl<T, const N: usize> ExactSizeIterator for IndexedIter<'_, T, N> {}
impl<T, const N: usize> FusedIterator for IndexedIter<'_, T, N> {}

/// Iterator over the rows (last-axis lanes) of a row-major array, as slices; see `ArrayView::rows`.
pub struct Rows<'a, T> {
    ptr: *const T,
    row_len: usize,
    pitch: usize,
    remaining: usize,
    life: PhantomData<&'a T>,
}

impl<T> Rows<'_, T> {
    /// # Safety
    ///
    /// Row `r < rows` is `row_len` initialized elements from `ptr + r * pitch`, valid and
    /// unmutated for `'a`.
    pub(crate) unsafe fn with_pitch(ptr: *const T, rows: usize, row_len: usize, pitch: usize) -> Self {
        // Empty rows never move the pointer: it stays the non-null, aligned one it was.
        let pitch = if row_len == 0 { 0 } else { pitch };
        Self { ptr, row_len, pitch, remaining: rows, life: PhantomData }
    }
}

impl<'a, T> Iterator for Rows<'a, T> {
    type Item = &'a [T];

    #[inline]
    fn next(&mut self) -> Option<&'a [T]> {
        if self.remaining == 0 {
            return None;
        }
        // SAFETY: the constructor's contract: this row lies within the block.
        let row = unsafe { core::slice::from_raw_parts(self.ptr, self.row_len) };
        self.ptr = self.ptr.wrapping_add(self.pitch);
        self.remaining -= 1;
        Some(row)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining, Some(self.remaining))
    }
}

impl<T> ExactSizeIterator for Rows<'_, T> {}
impl<T> FusedIterator for Rows<'_, T> {}

/// Iterator over the rows of a row-major array, as mutable slices; see `ArrayViewMut::rows_mut`.
pub struct RowsMut<'a, T> {
    ptr: *mut T,
    row_len: usize,
    pitch: usize,
    remaining: usize,
    life: PhantomData<&'a mut T>,
}

impl<T> RowsMut<'_, T> {
    /// # Safety
    ///
    /// As for [`Rows::with_pitch`], and nothing else accesses the rows for `'a`.
    pub(crate) unsafe fn with_pitch(ptr: *mut T, rows: usize, row_len: usize, pitch: usize) -> Self {
        // Empty rows never move the pointer: it stays the non-null, aligned one it was.
        let pitch = if row_len == 0 { 0 } else { pitch };
        Self { ptr, row_len, pitch, remaining: rows, life: PhantomData }
    }
}

impl<'a, T> Iterator for RowsMut<'a, T> {
    type Item = &'a mut [T];

    #[inline]
    fn next(&mut self) -> Option<&'a mut [T]> {
        if self.remaining == 0 {
            return None;
        }
        // SAFETY: the constructor's contract; rows are disjoint and each is yielded once.
        let row = unsafe { core::slice::from_raw_parts_mut(self.ptr, self.row_len) };
        self.ptr = self.ptr.wrapping_add(self.pitch);
        self.remaining -= 1;
        Some(row)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining, Some(self.remaining))
    }
}

impl<T> ExactSizeIterator for RowsMut<'_, T> {}
impl<T> FusedIterator for RowsMut<'_, T> {}

// SAFETY: these iterators hand out `&T` like `slice::Iter` does: Send and Sync when `T: Sync`.
unsafe impl<T: Sync, const N: usize> Send for Iter<'_, T, N> {}
// SAFETY: as above.
unsafe impl<T: Sync, const N: usize> Sync for Iter<'_, T, N> {}
// SAFETY: hands out `&mut T` like `slice::IterMut`: Send when `T: Send`.
unsafe impl<T: Send, const N: usize> Send for IterMut<'_, T, N> {}
// SAFETY: shared access to the iterator exposes nothing but `&T`-like state.
unsafe impl<T: Sync, const N: usize> Sync for IterMut<'_, T, N> {}
// SAFETY: hands out `&T` only.
unsafe impl<T: Sync, const N: usize> Send for IndexedIter<'_, T, N> {}
// SAFETY: hands out `&T` only.
unsafe impl<T: Sync, const N: usize> Sync for IndexedIter<'_, T, N> {}
// SAFETY: hands out `&[T]` like `slice::Chunks`.
unsafe impl<T: Sync> Send for Rows<'_, T> {}
// SAFETY: hands out `&[T]` like `slice::Chunks`.
unsafe impl<T: Sync> Sync for Rows<'_, T> {}
// SAFETY: hands out `&mut [T]` like `slice::ChunksMut`.
unsafe impl<T: Send> Send for RowsMut<'_, T> {}
// SAFETY: as `slice::ChunksMut`.
unsafe impl<T: Sync> Sync for RowsMut<'_, T> {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn odometer_walks_row_major_offsets() {
        let mut o = Odometer::new([2, 3], [1, 2]); // column-major memory, row-major walk
        let got: Vec<_> = core::iter::from_fn(|| o.next()).collect();
        assert_eq!(got, vec![([0, 0], 0), ([0, 1], 2), ([0, 2], 4), ([1, 0], 1), ([1, 1], 3), ([1, 2], 5)]);
    }

    #[test]
    fn odometer_handles_rank_zero_and_empty_shapes() {
        let mut o = Odometer::<0>::new([], []);
        assert_eq!(o.next(), Some(([], 0)));
        assert_eq!(o.next(), None);
        let mut e = Odometer::new([3, 0], [0, 1]);
        assert_eq!(e.next(), None);
    }
}
