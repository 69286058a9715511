//! Views whose rank is known only at run time: a NumPy array's, a `.npy` file's, a DLPack
//! tensor's. Shape and strides live in small vectors (inline up to six axes); the checks are the
//! typed views' (`foreign.rs`: every reachable element inside the slice, no two indices on one
//! element for a mutable view, NumPy's size rule), and [`DynView::into_rank`] gives the typed
//! view that cnda's operations take. Code that keeps run-time shapes (the Python module, file
//! readers) uses these instead of its own index arithmetic.
//!
//! ```
//! use cnda::view::DynView;
//!
//! let data: Vec<i32> = (0..24).collect();
//! let v = DynView::from_slice(&[2, 3, 4], &data).unwrap();
//! assert_eq!((v.ndim(), v.strides()), (3, &[12, 4, 1][..]));
//! assert_eq!(v.at(&[1, 2, 3]), Ok(&23));
//! assert!(v.at(&[2, 0, 0]).is_err()); // axis 0 has size 2
//! let typed = v.into_rank::<3>(); // an ArrayView<i32, 3> for cnda's ops (try_into_rank: Result)
//! assert_eq!(typed.sum(), 276);
//! ```

use core::marker::PhantomData;

use smallvec::SmallVec;

use super::base::{ArrayView, ArrayViewMut};
use super::foreign::{check_inside, check_raw, is_unique, overlap};
use crate::check::BoundsCheck;
use crate::element::Pod;
use crate::error::{or_panic, Error, Result};
use crate::layout::Layout;
use crate::raw::RawParts;
use crate::shape;

/// Lengths or strides of each axis, inline up to six axes.
type Axes<T> = SmallVec<[T; 6]>;

/// The geometry both forms share: shape, strides (in elements) and element count.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Geometry {
    shape: Axes<usize>,
    strides: Axes<isize>,
    len: usize,
}

impl Geometry {
    /// Row-major strides for `shape`, checked against `data_len` elements.
    fn dense(op: &'static str, shape: &[usize], data_len: usize, elem_size: usize) -> Result<Self> {
        let len = shape::checked_len(op, shape, elem_size)?;
        if len != data_len {
            return Err(Error::LengthMismatch { op, shape: shape.to_vec(), expected: len, got: data_len });
        }
        let mut strides: Axes<isize> = SmallVec::from_elem(1, shape.len());
        for axis in (0..shape.len().saturating_sub(1)).rev() {
            // Cannot overflow: `checked_len` bounded the product by isize::MAX.
            strides[axis] = strides[axis + 1] * shape[axis + 1].max(1) as isize;
        }
        Ok(Geometry { shape: shape.into(), strides, len })
    }

    /// `shape`/`strides` from element `offset` of a slice of `data_len`, checked to stay inside.
    fn strided(
        op: &'static str,
        shape: &[usize],
        strides: &[isize],
        offset: usize,
        data_len: usize,
        elem_size: usize,
    ) -> Result<Self> {
        if shape.len() != strides.len() {
            return Err(Error::RankMismatch { op, expected: shape.len(), got: strides.len() });
        }
        check_inside(op, shape, strides, offset, data_len, elem_size)?;
        let len = shape::checked_len(op, shape, elem_size)?;
        Ok(Geometry { shape: shape.into(), strides: strides.into(), len })
    }

    /// The element offset of `index`, every axis checked.
    fn offset(&self, op: &'static str, index: &[usize]) -> Result<isize> {
        if index.len() != self.shape.len() {
            return Err(Error::RankMismatch { op, expected: self.shape.len(), got: index.len() });
        }
        let mut offset = 0isize;
        for (axis, ((&i, &size), &stride)) in index.iter().zip(&self.shape).zip(&self.strides).enumerate() {
            if i >= size {
                return Err(Error::IndexOutOfBounds { axis, index: i, size });
            }
            // In range: the construction checked that every index reaches inside the slice.
            offset += i as isize * stride;
        }
        Ok(offset)
    }

    fn is_row_major(&self) -> bool {
        let mut step = 1isize;
        self.len == 0
            || self.shape.iter().zip(&self.strides).rev().all(|(&n, &s)| {
                let dense = n == 1 || s == step;
                step = step.wrapping_mul(n as isize);
                dense
            })
    }

    /// The typed shape and strides, or `Error::RankMismatch`.
    fn typed<const N: usize>(&self, op: &'static str) -> Result<([usize; N], [isize; N])> {
        let wrong = || Error::RankMismatch { op, expected: self.shape.len(), got: N };
        Ok((
            self.shape.as_slice().try_into().map_err(|_| wrong())?,
            self.strides.as_slice().try_into().map_err(|_| wrong())?,
        ))
    }

    /// Calls `f` with the offset of every element, in row-major index order.
    fn for_each_offset(&self, mut f: impl FnMut(isize)) {
        if self.len == 0 {
            return;
        }
        let mut index: Axes<usize> = SmallVec::from_elem(0, self.shape.len());
        let mut offset = 0isize;
        loop {
            f(offset);
            // The next index, last axis fastest, carrying the offset along. The offset only ever
            // takes values of visited elements (an axis of length 1 may have any stride, which is
            // never added), so nothing here can overflow.
            let mut axis = self.shape.len();
            loop {
                if axis == 0 {
                    return;
                }
                axis -= 1;
                if index[axis] + 1 < self.shape[axis] {
                    index[axis] += 1;
                    offset += self.strides[axis];
                    break;
                }
                offset -= self.strides[axis] * index[axis] as isize;
                index[axis] = 0;
            }
        }
    }
}

/// A shared view of run-time rank over host memory.
#[derive(Clone, Debug)]
pub struct DynView<'a, T: Pod> {
    /// The element at index `[0, ..]` (dangling-safe: never read when the view is empty).
    ptr: *const T,
    geometry: Geometry,
    life: PhantomData<&'a T>,
}

/// A mutable view of run-time rank over host memory: no two indices reach one element.
#[derive(Debug)]
pub struct DynViewMut<'a, T: Pod> {
    ptr: *mut T,
    geometry: Geometry,
    life: PhantomData<&'a mut T>,
}

// SAFETY: a `DynView` is a set of `&'a T` (checked inside one borrowed slice); sending or sharing
// it is sending or sharing those references, which needs `T: Sync`.
unsafe impl<T: Pod + Sync> Send for DynView<'_, T> {}
// SAFETY: as for `Send`.
unsafe impl<T: Pod + Sync> Sync for DynView<'_, T> {}
// SAFETY: a `DynViewMut` is a set of distinct `&'a mut T`: sending it needs `T: Send`, sharing it
// hands out `&T` only, which needs `T: Sync`.
unsafe impl<T: Pod + Send> Send for DynViewMut<'_, T> {}
// SAFETY: as for `Send`.
unsafe impl<T: Pod + Sync> Sync for DynViewMut<'_, T> {}

macro_rules! metadata {
    () => {
        /// The number of axes.
        pub fn ndim(&self) -> usize {
            self.geometry.shape.len()
        }

        /// The length of each axis.
        pub fn shape(&self) -> &[usize] {
            &self.geometry.shape
        }

        /// The distance between neighbours along each axis, in elements.
        pub fn strides(&self) -> &[isize] {
            &self.geometry.strides
        }

        /// The number of elements.
        pub fn len(&self) -> usize {
            self.geometry.len
        }

        /// Whether the view has no element.
        pub fn is_empty(&self) -> bool {
            self.geometry.len == 0
        }

        /// Whether the elements lie in one row-major block (axes of length 1 may have any stride).
        pub fn is_contiguous(&self) -> bool {
            self.geometry.is_row_major()
        }
    };
}

impl<'a, T: Pod> DynView<'a, T> {
    /// A row-major view of `data` with `shape`, without copying.
    ///
    /// # Errors
    ///
    /// `Error::LengthMismatch` when `data.len()` is not the product of `shape`; `Error::Overflow`
    /// for a shape beyond NumPy's size rule.
    pub fn from_slice(shape: &[usize], data: &'a [T]) -> Result<Self> {
        let geometry = Geometry::dense("DynView::from_slice", shape, data.len(), core::mem::size_of::<T>())?;
        Ok(DynView { ptr: data.as_ptr(), geometry, life: PhantomData })
    }

    /// A view of `data` with `shape` and `strides` (in elements, any sign, zero included) whose
    /// index `[0, ..]` is `data[offset]`, without copying.
    ///
    /// # Errors
    ///
    /// `Error::RankMismatch` when `shape` and `strides` differ in length; `Error::Layout` when some index
    /// reaches outside `data`; `Error::Overflow`.
    pub fn from_slice_strided(shape: &[usize], strides: &[isize], offset: usize, data: &'a [T]) -> Result<Self> {
        let op = "DynView::from_slice_strided";
        let geometry = Geometry::strided(op, shape, strides, offset, data.len(), core::mem::size_of::<T>())?;
        Ok(DynView { ptr: data.as_ptr().wrapping_add(offset.min(data.len())), geometry, life: PhantomData })
    }

    /// A view of the elements that `shape` and `strides` reach from `ptr`, for memory another
    /// library vouches for (a DLPack tensor, a NumPy array), without copying. The metadata is
    /// still checked: a null or misaligned `ptr`, or offsets beyond `isize`, are errors.
    ///
    /// # Safety
    ///
    /// Every element reached is an initialized `T` inside one allocation, valid and not written
    /// through any other path for `'a`.
    ///
    /// # Errors
    ///
    /// `Error::RankMismatch` when `shape` and `strides` differ in length; `Error::Layout` for a null or
    /// misaligned pointer or offsets beyond `isize`; `Error::Overflow`.
    pub unsafe fn from_raw_strided(ptr: *const T, shape: &[usize], strides: &[isize]) -> Result<Self> {
        let op = "DynView::from_raw_strided";
        if shape.len() != strides.len() {
            return Err(Error::RankMismatch { op, expected: shape.len(), got: strides.len() });
        }
        check_raw(op, ptr, shape, strides)?;
        let len = shape::checked_len(op, shape, core::mem::size_of::<T>())?;
        Ok(DynView { ptr, geometry: Geometry { shape: shape.into(), strides: strides.into(), len }, life: PhantomData })
    }

    metadata!();

    /// The element at `index`.
    ///
    /// # Errors
    ///
    /// `Error::RankMismatch` for an index of the wrong length; `Error::IndexOutOfBounds` naming the axis.
    pub fn at(&self, index: &[usize]) -> Result<&'a T> {
        let offset = self.geometry.offset("DynView::at", index)?;
        // SAFETY: every index of the geometry reaches an element of the borrowed slice (checked
        // at construction), and `index` is one of them.
        Ok(unsafe { &*self.ptr.offset(offset) })
    }

    /// The element at `index`, or `None` when the index is outside the view.
    pub fn get(&self, index: &[usize]) -> Option<&'a T> {
        self.at(index).ok()
    }

    /// The elements as one slice, when they lie in one row-major block.
    pub fn as_slice(&self) -> Option<&'a [T]> {
        if self.geometry.len == 0 {
            return Some(&[]);
        }
        // SAFETY: a row-major block of `len` elements from `ptr`, all inside the borrowed slice.
        self.is_contiguous().then(|| unsafe { core::slice::from_raw_parts(self.ptr, self.geometry.len) })
    }

    /// Copies the elements, in row-major index order, into `out` (a transposing or gathering
    /// copy when the view is not one row-major block).
    ///
    /// # Panics
    ///
    /// When `out` does not hold exactly the view's elements; [`DynView::try_copy_to_slice`]
    /// returns the error.
    #[track_caller]
    pub fn copy_to_slice(&self, out: &mut [T]) {
        or_panic(self.try_copy_to_slice(out))
    }

    /// [`DynView::copy_to_slice`], returning the error.
    ///
    /// # Errors
    ///
    /// `Error::LengthMismatch` when `out` does not hold exactly the view's elements.
    pub fn try_copy_to_slice(&self, out: &mut [T]) -> Result<()> {
        if out.len() != self.geometry.len {
            return Err(Error::LengthMismatch {
                op: "DynView::copy_to_slice",
                shape: self.geometry.shape.to_vec(),
                expected: self.geometry.len,
                got: out.len(),
            });
        }
        let mut k = 0;
        self.geometry.for_each_offset(|offset| {
            // SAFETY: every offset the geometry visits reaches an element of the borrowed memory;
            // it visits exactly `len` of them, one per slot of `out`.
            out[k] = unsafe { *self.ptr.offset(offset) };
            k += 1;
        });
        Ok(())
    }

    /// The elements in row-major index order, copied into a new vector.
    ///
    /// # Panics
    ///
    /// When the vector cannot be allocated; [`DynView::try_to_vec`] returns the error.
    #[track_caller]
    pub fn to_vec(&self) -> Vec<T> {
        or_panic(self.try_to_vec())
    }

    /// [`DynView::to_vec`], returning the error.
    ///
    /// # Errors
    ///
    /// `Error::Alloc` when the vector cannot be allocated.
    pub fn try_to_vec(&self) -> Result<Vec<T>> {
        let mut out = Vec::new();
        out.try_reserve_exact(self.geometry.len).map_err(|e| Error::Alloc {
            op: "DynView::to_vec",
            bytes: self.geometry.len * core::mem::size_of::<T>(),
            reason: e.to_string(),
        })?;
        // SAFETY: every offset the geometry visits reaches an element of the borrowed slice.
        self.geometry.for_each_offset(|offset| out.push(unsafe { *self.ptr.offset(offset) }));
        Ok(out)
    }

    /// The typed view of rank `N`, for cnda's operations.
    ///
    /// # Panics
    ///
    /// When the view's rank is not `N`; [`DynView::try_into_rank`] returns the error.
    #[track_caller]
    pub fn into_rank<const N: usize>(self) -> ArrayView<'a, T, N> {
        or_panic(self.try_into_rank())
    }

    /// [`DynView::into_rank`], returning the error.
    ///
    /// # Errors
    ///
    /// `Error::RankMismatch` when the view's rank is not `N`.
    pub fn try_into_rank<const N: usize>(self) -> Result<ArrayView<'a, T, N>> {
        let (shape, strides) = self.geometry.typed::<N>("DynView::into_rank")?;
        // SAFETY: the geometry was checked at construction to reach only elements of a slice
        // borrowed for 'a.
        Ok(unsafe { ArrayView::from_raw(RawParts::strided(self.ptr.cast_mut(), shape, strides)) })
    }
}

impl<'a, T: Pod> DynViewMut<'a, T> {
    /// A row-major mutable view of `data` with `shape`, without copying.
    ///
    /// # Errors
    ///
    /// As [`DynView::from_slice`].
    pub fn from_slice(shape: &[usize], data: &'a mut [T]) -> Result<Self> {
        let geometry = Geometry::dense("DynViewMut::from_slice", shape, data.len(), core::mem::size_of::<T>())?;
        Ok(DynViewMut { ptr: data.as_mut_ptr(), geometry, life: PhantomData })
    }

    /// A mutable view of `data` with `shape` and `strides` from element `offset`, without
    /// copying.
    ///
    /// # Errors
    ///
    /// As [`DynView::from_slice_strided`], and `Error::Layout` when two indices may reach one
    /// element.
    pub fn from_slice_strided(shape: &[usize], strides: &[isize], offset: usize, data: &'a mut [T]) -> Result<Self> {
        let op = "DynViewMut::from_slice_strided";
        let geometry = Geometry::strided(op, shape, strides, offset, data.len(), core::mem::size_of::<T>())?;
        if !is_unique(shape, strides) {
            return Err(overlap(op, shape, strides));
        }
        let ptr = data.as_mut_ptr().wrapping_add(offset.min(data.len()));
        Ok(DynViewMut { ptr, geometry, life: PhantomData })
    }

    metadata!();

    /// A shared view of the same elements, for as long as this borrow.
    pub fn view(&self) -> DynView<'_, T> {
        DynView { ptr: self.ptr, geometry: self.geometry.clone(), life: PhantomData }
    }

    /// The element at `index`.
    ///
    /// # Errors
    ///
    /// As [`DynView::at`].
    pub fn at(&self, index: &[usize]) -> Result<&T> {
        self.view().at(index)
    }

    /// The element at `index`, mutably.
    ///
    /// # Errors
    ///
    /// As [`DynView::at`].
    pub fn at_mut(&mut self, index: &[usize]) -> Result<&mut T> {
        let offset = self.geometry.offset("DynViewMut::at_mut", index)?;
        // SAFETY: as in `DynView::at`; the view is unique and borrowed mutably here.
        Ok(unsafe { &mut *self.ptr.offset(offset) })
    }

    /// Sets every element to `value`.
    pub fn fill(&mut self, value: T) {
        let ptr = self.ptr;
        // SAFETY: every offset visited reaches a distinct element of the uniquely borrowed slice.
        self.geometry.for_each_offset(|offset| unsafe { *ptr.offset(offset) = value });
    }

    /// The elements as one mutable slice, when they lie in one row-major block.
    pub fn as_mut_slice(&mut self) -> Option<&mut [T]> {
        if self.geometry.len == 0 {
            return Some(&mut []);
        }
        // SAFETY: as in `DynView::as_slice`, borrowed uniquely.
        self.is_contiguous().then(|| unsafe { core::slice::from_raw_parts_mut(self.ptr, self.geometry.len) })
    }

    /// The typed mutable view of rank `N`, for cnda's operations.
    ///
    /// # Panics
    ///
    /// When the view's rank is not `N`; [`DynViewMut::try_into_rank`] returns the error.
    #[track_caller]
    pub fn into_rank<const N: usize>(self) -> ArrayViewMut<'a, T, N> {
        or_panic(self.try_into_rank())
    }

    /// [`DynViewMut::into_rank`], returning the error.
    ///
    /// # Errors
    ///
    /// `Error::RankMismatch` when the view's rank is not `N`.
    pub fn try_into_rank<const N: usize>(self) -> Result<ArrayViewMut<'a, T, N>> {
        let (shape, strides) = self.geometry.typed::<N>("DynViewMut::into_rank")?;
        // SAFETY: checked at construction: inside a slice borrowed uniquely for 'a, no element
        // reached twice.
        Ok(unsafe { ArrayViewMut::from_raw(RawParts::strided(self.ptr, shape, strides)) })
    }
}

impl<'a, T: Pod, const N: usize, L: Layout, C: BoundsCheck> From<ArrayView<'a, T, N, L, C>> for DynView<'a, T> {
    fn from(v: ArrayView<'a, T, N, L, C>) -> Self {
        let geometry = Geometry { shape: v.shape()[..].into(), strides: v.strides()[..].into(), len: v.len() };
        DynView { ptr: v.raw.ptr.cast_const(), geometry, life: PhantomData }
    }
}

impl<'a, T: Pod, const N: usize, L: Layout, C: BoundsCheck> From<ArrayViewMut<'a, T, N, L, C>> for DynViewMut<'a, T> {
    fn from(v: ArrayViewMut<'a, T, N, L, C>) -> Self {
        let geometry = Geometry { shape: v.shape()[..].into(), strides: v.strides()[..].into(), len: v.len() };
        DynViewMut { ptr: v.raw.ptr, geometry, life: PhantomData }
    }
}
