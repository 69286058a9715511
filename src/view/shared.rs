//! Host access through [`ArrayView`], the shared CPU view: construction from a slice, checked
//! and unchecked element access, iteration, slices and rows.

use super::base::ArrayView;

use crate::check::{BoundsCheck, DefaultCheck};
use crate::element::Pod;
use crate::error::{Error, Result};
use crate::iter::{IndexedIter, Iter, Rows};
use crate::layout::{Dense, Layout, RowLayout, RowMajor};
use crate::rank::{Dec, Rank};
use crate::raw::RawParts;
use crate::shape;

impl<'a, T: Pod, const N: usize> ArrayView<'a, T, N, RowMajor, DefaultCheck> {
    /// A row-major view of `data` with `shape`, without copying.
    ///
    /// # Errors
    ///
    /// `Error::LengthMismatch` when `data.len()` is not the product of `shape`.
    pub fn from_slice(shape: [usize; N], data: &'a [T]) -> Result<Self> {
        let len = shape::checked_len("ArrayView::from_slice", &shape, core::mem::size_of::<T>())?;
        if len != data.len() {
            return Err(Error::LengthMismatch {
                op: "ArrayView::from_slice",
                shape: shape.to_vec(),
                expected: len,
                got: data.len(),
            });
        }
        let raw = RawParts { ptr: data.as_ptr().cast_mut(), shape, meta: (), len };
        // SAFETY: `data` holds exactly `len` elements in row-major order and is borrowed for 'a.
        Ok(unsafe { Self::from_raw(raw) })
    }
}

impl<'a, T: Pod, const N: usize, L: Layout, C: BoundsCheck> ArrayView<'a, T, N, L, C> {
    /// The element at `index`, or `None` when some axis is out of bounds.
    #[inline]
    pub fn get(&self, index: [usize; N]) -> Option<&'a T> {
        // SAFETY: a pointer that passed the per-axis check points at an element valid for 'a.
        self.raw.try_element_ptr(index).ok().map(|p| unsafe { &*p })
    }

    /// The element at `index`, always checked per axis whatever `C` is.
    ///
    /// # Errors
    ///
    /// `Error::IndexOutOfBounds` naming the first axis whose index is not below its length.
    #[inline]
    pub fn at(&self, index: [usize; N]) -> Result<&'a T> {
        // SAFETY: as in `get`.
        self.raw.try_element_ptr(index).map(|p| unsafe { &*p })
    }

    /// The element at `index` under the view's policy `C`, for the view's whole lifetime (what
    /// `Index` hands out for a shorter borrow).
    #[inline(always)]
    #[track_caller]
    pub(crate) fn index_ref(self, index: [usize; N]) -> &'a T {
        // SAFETY: `element_ptr` checks that the pointer is an element of the view, valid for 'a.
        unsafe { &*self.raw.element_ptr::<C>(index) }
    }

    /// The element at `index` with no bounds check (checked per axis under feature `bounds-check`).
    ///
    /// # Safety
    ///
    /// Every `index[k] < self.shape()[k]`.
    #[inline(always)]
    pub unsafe fn get_unchecked(&self, index: [usize; N]) -> &'a T {
        // SAFETY: the caller promises an in-bounds index.
        unsafe { &*self.raw.element_ptr_unchecked(index) }
    }

    /// Iterator over the elements in logical row-major order, whatever the layout.
    pub fn iter(&self) -> Iter<'a, T, N> {
        match self.row_major_slice() {
            Some(slice) => Iter::slice(slice),
            // SAFETY: the view's invariant covers every in-bounds index for 'a.
            None => unsafe { Iter::strided(self.raw.ptr, self.raw.shape, self.raw.strides()) },
        }
    }

    /// Iterator over `(index, &element)` in logical row-major order.
    pub fn indexed_iter(&self) -> IndexedIter<'a, T, N> {
        // SAFETY: as in `iter`.
        unsafe { IndexedIter::new(self.raw.ptr, self.raw.shape, self.raw.strides()) }
    }

    /// The elements as a slice in logical order, when the memory is row-major contiguous.
    pub(crate) fn row_major_slice(&self) -> Option<&'a [T]> {
        // SAFETY: row-major contiguous memory of `len` elements starts at `ptr` and lives for 'a.
        self.raw.is_row_major().then(|| unsafe { core::slice::from_raw_parts(self.raw.ptr, self.raw.len) })
    }
}

impl<'a, T: Pod, const N: usize, L: Dense, C: BoundsCheck> ArrayView<'a, T, N, L, C> {
    /// The elements in memory order (logical order for `RowMajor`, Fortran order for `ColMajor`).
    pub fn as_slice(&self) -> &'a [T] {
        // SAFETY: a dense view's `len` elements are contiguous from `ptr` and live for 'a.
        unsafe { core::slice::from_raw_parts(self.raw.ptr, self.raw.len) }
    }
}

impl<'a, T: Pod, const N: usize, L: Layout, C: BoundsCheck> ArrayView<'a, T, N, L, C> {
    /// Iterator over the rows (lanes along the last axis) as slices: hot loops index the slices
    /// and pay one bounds check per row instead of one per element. For row-major and padded
    /// views (the padding is skipped); other layouts get a compile error that says what to do.
    pub fn rows(&self) -> Rows<'a, T>
    where
        L: RowLayout,
        Rank<N>: Dec,
    {
        let row_len = self.raw.shape[N - 1];
        let rows = shape::row_count(self.raw.len, &self.raw.shape);
        let pitch = L::row_pitch(&self.raw.shape, &self.raw.meta);
        // SAFETY: row r is `row_len` initialized elements from `ptr + r * pitch`, valid for 'a.
        unsafe { Rows::with_pitch(self.raw.ptr, rows, row_len, pitch) }
    }
}
