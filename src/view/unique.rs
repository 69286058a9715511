//! Host access through [`ArrayViewMut`], the unique CPU view: construction from a mutable
//! slice, checked and unchecked element access, iteration, slices and rows.

use super::base::ArrayViewMut;

use crate::check::{BoundsCheck, DefaultCheck};
use crate::element::Pod;
use crate::error::{Error, Result};
use crate::iter::{IterMut, RowsMut};
use crate::layout::{Dense, Layout, RowLayout, RowMajor};
use crate::rank::{Dec, Rank};
use crate::raw::RawParts;
use crate::shape;

impl<'a, T: Pod, const N: usize> ArrayViewMut<'a, T, N, RowMajor, DefaultCheck> {
    /// A row-major mutable view of `data` with `shape`, without copying.
    ///
    /// # Errors
    ///
    /// `Error::LengthMismatch` when `data.len()` is not the product of `shape`.
    pub fn from_slice(shape: [usize; N], data: &'a mut [T]) -> Result<Self> {
        let len = shape::checked_len("ArrayViewMut::from_slice", &shape, core::mem::size_of::<T>())?;
        if len != data.len() {
            return Err(Error::LengthMismatch {
                op: "ArrayViewMut::from_slice",
                shape: shape.to_vec(),
                expected: len,
                got: data.len(),
            });
        }
        let raw = RawParts { ptr: data.as_mut_ptr(), shape, meta: (), len };
        // SAFETY: `data` holds exactly `len` elements and is uniquely borrowed for 'a.
        Ok(unsafe { Self::from_raw(raw) })
    }
}

impl<'a, T: Pod, const N: usize, L: Layout, C: BoundsCheck> ArrayViewMut<'a, T, N, L, C> {
    /// The element at `index`, or `None` when out of bounds.
    pub fn get(&self, index: [usize; N]) -> Option<&T> {
        self.view().get(index)
    }

    /// The element at `index`, always checked per axis.
    ///
    /// # Errors
    ///
    /// `Error::IndexOutOfBounds` naming the first axis out of bounds.
    pub fn at(&self, index: [usize; N]) -> Result<&T> {
        self.view().at(index)
    }

    /// The element at `index`, mutably, or `None` when out of bounds.
    pub fn get_mut(&mut self, index: [usize; N]) -> Option<&mut T> {
        // SAFETY: a checked pointer to an element this view borrows uniquely.
        self.raw.try_element_ptr(index).ok().map(|p| unsafe { &mut *p })
    }

    /// The element at `index`, mutably, always checked per axis.
    ///
    /// # Errors
    ///
    /// `Error::IndexOutOfBounds` naming the first axis out of bounds.
    pub fn at_mut(&mut self, index: [usize; N]) -> Result<&mut T> {
        // SAFETY: as in `get_mut`.
        self.raw.try_element_ptr(index).map(|p| unsafe { &mut *p })
    }

    /// The element at `index` with no bounds check (checked under feature `bounds-check`).
    ///
    /// # Safety
    ///
    /// Every `index[k] < self.shape()[k]`.
    #[inline(always)]
    pub unsafe fn get_unchecked(&self, index: [usize; N]) -> &T {
        // SAFETY: the caller promises an in-bounds index.
        unsafe { &*self.raw.element_ptr_unchecked(index) }
    }

    /// The element at `index`, mutably, with no bounds check (checked under `bounds-check`).
    ///
    /// # Safety
    ///
    /// Every `index[k] < self.shape()[k]`.
    #[inline(always)]
    pub unsafe fn get_unchecked_mut(&mut self, index: [usize; N]) -> &mut T {
        // SAFETY: the caller promises an in-bounds index; `&mut self` makes the access unique.
        unsafe { &mut *self.raw.element_ptr_unchecked(index) }
    }

    /// Iterator over the elements in logical row-major order, whatever the layout.
    pub fn iter(&self) -> crate::iter::Iter<'_, T, N> {
        self.view().iter()
    }

    /// Iterator over mutable elements in logical row-major order, whatever the layout.
    pub fn iter_mut(&mut self) -> IterMut<'_, T, N> {
        self.view_mut().into_iter_mut()
    }

    /// Turns the view into an iterator over mutable elements for the whole lifetime `'a`.
    pub fn into_iter_mut(self) -> IterMut<'a, T, N> {
        if self.raw.is_row_major() {
            // SAFETY: row-major contiguous memory of `len` elements, uniquely borrowed for 'a.
            let slice = unsafe { core::slice::from_raw_parts_mut(self.raw.ptr, self.raw.len) };
            IterMut::slice(slice)
        } else {
            // SAFETY: mutable views never have zero strides, so each index is a distinct element.
            unsafe { IterMut::strided(self.raw.ptr, self.raw.shape, self.raw.strides()) }
        }
    }

    /// Iterator over `(index, &element)` in logical row-major order.
    pub fn indexed_iter(&self) -> crate::iter::IndexedIter<'_, T, N> {
        self.view().indexed_iter()
    }
}

impl<'a, T: Pod, const N: usize, L: Dense, C: BoundsCheck> ArrayViewMut<'a, T, N, L, C> {
    /// The elements in memory order.
    pub fn as_slice(&self) -> &[T] {
        self.view().as_slice()
    }

    /// The elements in memory order, mutably.
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        // SAFETY: a dense view's `len` elements are contiguous from `ptr`, uniquely borrowed.
        unsafe { core::slice::from_raw_parts_mut(self.raw.ptr, self.raw.len) }
    }

    /// Turns the view into a mutable slice in memory order for the whole lifetime `'a`.
    pub fn into_slice(self) -> &'a mut [T] {
        // SAFETY: as in `as_mut_slice`, for the view's own lifetime.
        unsafe { core::slice::from_raw_parts_mut(self.raw.ptr, self.raw.len) }
    }
}

impl<'a, T: Pod, const N: usize, L: Layout, C: BoundsCheck> ArrayViewMut<'a, T, N, L, C> {
    /// Iterator over the rows (lanes along the last axis) as slices; see `ArrayView::rows`.
    pub fn rows(&self) -> crate::iter::Rows<'_, T>
    where
        L: RowLayout,
        Rank<N>: Dec,
    {
        self.view().rows()
    }

    /// Iterator over the rows as mutable slices: write loops index each row slice and pay one
    /// bounds check per row, so they vectorize.
    pub fn rows_mut(&mut self) -> RowsMut<'_, T>
    where
        L: RowLayout,
        Rank<N>: Dec,
    {
        self.view_mut().into_rows_mut()
    }

    /// Turns the view into an iterator over mutable rows for the whole lifetime `'a`.
    pub fn into_rows_mut(self) -> RowsMut<'a, T>
    where
        L: RowLayout,
        Rank<N>: Dec,
    {
        let row_len = self.raw.shape[N - 1];
        let rows = crate::shape::row_count(self.raw.len, &self.raw.shape);
        let pitch = L::row_pitch(&self.raw.shape, &self.raw.meta);
        // SAFETY: row r is `row_len` elements from `ptr + r * pitch`, disjoint from the other
        // rows and uniquely borrowed for 'a.
        unsafe { RowsMut::with_pitch(self.raw.ptr, rows, row_len, pitch) }
    }
}
