//! [`Array`]: the owned N-dimensional array. It composes a backend buffer, a layout and a bounds
//! policy; index math lives in the layout, checks in the policy, views in `view/`.

mod borrow;
mod construct;
mod consume;
mod convert;
mod padded;
mod sequences;
mod views;

pub use borrow::{AsView, AsViewMut, CowArray};

use core::marker::PhantomData;

use crate::check::{BoundsCheck, DefaultCheck};
use crate::element::{DType, Element, Pod};
use crate::error::Result;
use crate::iter::{IndexedIter, Iter, IterMut, Rows, RowsMut};
use crate::kernel::Desc;
use crate::kernel::{Backend, Cpu, HostAccessible};
use crate::layout::{Dense, Layout, RowLayout, RowMajor};
use crate::rank::{Dec, IsMatrix, Rank};
use crate::raw::RawParts;
use crate::view::{ArrayView, ArrayViewMut, Shared, Unique, View};

/// An owned `N`-dimensional array of `T` on backend `B` with layout `L` and bounds policy `C`.
///
/// Make one with the plain constructors, on the CPU in row-major order: [`Array::zeros`],
/// [`Array::ones`], [`Array::full`], [`Array::from_fn`] (`|[i, j]| ...`), [`Array::from_shape_vec`]
/// (your data, checked), [`Array::linspace`] and [`Array::eye`]; their `try_` forms return the
/// error instead of panicking, and the `_in` forms (`zeros_in(&alloc, shape)`) take the
/// allocator first: a [`Pool`](crate::pool::Pool), or a device (`CudaDevice`, `WgpuDevice`).
///
/// ```
/// use cnda::prelude::*;
/// let mut a = Array::<f64, 2>::zeros([3, 4]);
/// a[[1, 2]] = 5.0;
/// assert_eq!(a.shape(), [3, 4]);
/// assert_eq!(a.at([1, 2]), Ok(&5.0));
/// assert!(a.at([3, 0]).is_err());
/// ```
pub struct Array<T: Pod, const N: usize, B: Backend = Cpu, L: Layout = RowMajor, C: BoundsCheck = DefaultCheck> {
    buf: B::Buffer<T>,
    /// Element offset, within `buf`, of the element at index `[0; N]` (may point past the
    /// buffer only when the array is empty).
    offset: isize,
    shape: [usize; N],
    meta: L::Strides<N>,
    len: usize,
    check: PhantomData<C>,
}

impl<T: Pod, const N: usize, B: Backend, L: Layout, C: BoundsCheck> Clone for Array<T, N, B, L, C>
where
    B::Buffer<T>: Clone,
{
    /// A deep copy, from the same pool when the array came from one.
    ///
    /// # Panics
    ///
    /// When the memory is refused (a pool at its byte cap, say); `try_clone` returns the error.
    #[track_caller]
    fn clone(&self) -> Self {
        Self {
            buf: self.buf.clone(),
            offset: self.offset,
            shape: self.shape,
            meta: self.meta,
            len: self.len,
            check: PhantomData,
        }
    }
}

impl<T: Pod, const N: usize, B: Backend, L: Dense, C: BoundsCheck> Array<T, N, B, L, C> {
    /// An array over all of `buf` in dense layout `L`; `buf` must hold the product of `shape`
    /// elements (an `Allocator`'s promise for the length it was asked).
    pub(crate) fn from_buffer_in(buf: B::Buffer<T>, shape: [usize; N]) -> Self {
        let len = crate::shape::element_count(&shape).expect("the caller allocated this shape");
        Array { buf, offset: 0, shape, meta: L::dense_meta::<N>(), len, check: PhantomData }
    }
}

impl<T: Pod, const N: usize, L: Layout, C: BoundsCheck> Array<T, N, Cpu, L, C> {
    /// A deep copy, from the same pool when the array came from one.
    ///
    /// # Errors
    ///
    /// `Error::Alloc` when the pool's byte cap or the system refuses the memory.
    pub fn try_clone(&self) -> Result<Self> {
        Ok(Self {
            buf: self.buf.try_clone()?,
            offset: self.offset,
            shape: self.shape,
            meta: self.meta,
            len: self.len,
            check: PhantomData,
        })
    }
}

/// Metadata and zero-cost conversions: available on every backend.
impl<T: Pod, const N: usize, B: Backend, L: Layout, C: BoundsCheck> Array<T, N, B, L, C> {
    /// The length of each axis.
    #[inline(always)]
    pub fn shape(&self) -> [usize; N] {
        self.shape
    }

    /// The distance between neighbours along each axis, in elements.
    pub fn strides(&self) -> [isize; N] {
        L::strides(&self.shape, &self.meta)
    }

    /// The number of axes, `N`.
    pub const fn ndim(&self) -> usize {
        N
    }

    /// The number of elements.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether some axis has length 0.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// A shared view of the whole array, with the same layout and bounds policy, on the
    /// array's backend (for `Cpu`, an [`ArrayView`]).
    #[inline(always)]
    pub fn view(&self) -> View<'_, T, N, Shared, B, L, C> {
        let raw =
            RawParts { ptr: B::handle(&self.buf, self.offset), shape: self.shape, meta: self.meta, len: self.len };
        // SAFETY: the array's own metadata over its own buffer, borrowed shared for `&self`.
        unsafe { View::from_raw(raw) }
    }

    /// A mutable view of the whole array, with the same layout and bounds policy, on the
    /// array's backend (for `Cpu`, an [`ArrayViewMut`]).
    #[inline(always)]
    pub fn view_mut(&mut self) -> View<'_, T, N, Unique, B, L, C> {
        let ptr = B::handle_mut(&mut self.buf, self.offset);
        let raw = RawParts { ptr, shape: self.shape, meta: self.meta, len: self.len };
        // SAFETY: owned arrays never have zero strides; borrowed uniquely for `&mut self`.
        unsafe { View::from_raw(raw) }
    }

    /// The allocator this array's memory came from (for `Cpu`: its pool while that pool lives,
    /// else the system). Ops on the array allocate their outputs from it.
    ///
    /// ```
    /// use cnda::prelude::*;
    /// let pool = Pool::new();
    /// let a = Array::<f64, 2>::zeros_in(&pool, [64, 64]);
    /// let b = &a + 1.0; // from the pool too
    /// assert!(matches!(b.allocator(), CpuAlloc::Pool(_)));
    /// assert_eq!(pool.stats().misses, 2);
    /// ```
    pub fn allocator(&self) -> B::Alloc {
        B::allocator_of(&self.buf)
    }

    /// The kernel descriptor of the whole array.
    #[inline]
    pub(crate) fn desc(&self) -> Desc<B, T, N> {
        Desc { handle: B::handle(&self.buf, self.offset), shape: self.shape, strides: self.strides() }
    }

    /// The kernel descriptor of the whole array, for writing.
    #[inline]
    pub(crate) fn desc_mut(&mut self) -> Desc<B, T, N> {
        Desc { handle: B::handle_mut(&mut self.buf, self.offset), shape: self.shape, strides: self.strides() }
    }

    /// The same array with bounds policy `C2`: a zero-cost type change.
    ///
    /// ```
    /// use cnda::prelude::*;
    /// let a = Array::<f32, 2>::zeros([2, 2]).with_check::<Checked>();
    /// let caught = std::panic::catch_unwind(|| a[[0, 2]]);
    /// assert!(caught.is_err()); // axis 1 has size 2
    /// ```
    pub fn with_check<C2: BoundsCheck>(self) -> Array<T, N, B, L, C2> {
        Array {
            buf: self.buf,
            offset: self.offset,
            shape: self.shape,
            meta: self.meta,
            len: self.len,
            check: PhantomData,
        }
    }
}

impl<T: Element, const N: usize, B: Backend, L: Layout, C: BoundsCheck> Array<T, N, B, L, C> {
    /// The runtime element type.
    pub fn dtype(&self) -> DType {
        T::DTYPE
    }
}

impl<T: Pod, const N: usize, B: Backend, L: Layout, C: BoundsCheck> Array<T, N, B, L, C> {
    /// Number of rows of a matrix (`shape()[0]`).
    pub fn nrows(&self) -> usize
    where
        Rank<N>: IsMatrix,
    {
        self.shape[0]
    }

    /// Number of columns of a matrix (`shape()[1]`).
    pub fn ncols(&self) -> usize
    where
        Rank<N>: IsMatrix,
    {
        self.shape[1]
    }
}

/// Element access and views: host-accessible backends only.
impl<T: Pod, const N: usize, B: HostAccessible, L: Layout, C: BoundsCheck> Array<T, N, B, L, C> {
    #[inline(always)]
    pub(crate) fn raw(&self) -> RawParts<T, N, L> {
        let ptr = B::host_ptr(&self.buf).cast_mut().wrapping_offset(self.offset);
        RawParts { ptr, shape: self.shape, meta: self.meta, len: self.len }
    }

    #[inline(always)]
    pub(crate) fn raw_mut(&mut self) -> RawParts<T, N, L> {
        let ptr = B::host_ptr_mut(&mut self.buf).wrapping_offset(self.offset);
        RawParts { ptr, shape: self.shape, meta: self.meta, len: self.len }
    }

    /// The whole array as a CPU view of its host memory (for host-accessible backends other
    /// than `Cpu`, whose views are typed by their own backend).
    #[inline(always)]
    pub(crate) fn host_view(&self) -> ArrayView<'_, T, N, L, C> {
        // SAFETY: the array's own metadata over its own host buffer, borrowed shared for `&self`.
        unsafe { ArrayView::from_raw(self.raw()) }
    }

    /// As [`Array::host_view`], mutably.
    #[inline(always)]
    pub(crate) fn host_view_mut(&mut self) -> ArrayViewMut<'_, T, N, L, C> {
        // SAFETY: owned arrays never have zero strides; borrowed uniquely for `&mut self`.
        unsafe { ArrayViewMut::from_raw(self.raw_mut()) }
    }

    /// Whether the elements are one dense block in row-major (C) order.
    pub fn is_contiguous(&self) -> bool {
        self.raw().is_row_major()
    }

    /// Whether the elements are one dense block in column-major (Fortran) order.
    pub fn is_fortran_contiguous(&self) -> bool {
        self.raw().is_col_major()
    }

    /// The element at `index`, or `None` when some axis is out of bounds.
    pub fn get(&self, index: [usize; N]) -> Option<&T> {
        self.host_view().get(index)
    }

    /// The element at `index`, always checked per axis whatever `C` is.
    ///
    /// # Errors
    ///
    /// `Error::IndexOutOfBounds` naming the first axis whose index is not below its length.
    pub fn at(&self, index: [usize; N]) -> Result<&T> {
        self.host_view().at(index)
    }

    /// The element at `index`, mutably, or `None` when out of bounds.
    pub fn get_mut(&mut self, index: [usize; N]) -> Option<&mut T> {
        // SAFETY: a checked pointer to an element of this uniquely borrowed array.
        self.raw_mut().try_element_ptr(index).ok().map(|p| unsafe { &mut *p })
    }

    /// The element at `index`, mutably, always checked per axis.
    ///
    /// # Errors
    ///
    /// `Error::IndexOutOfBounds` naming the first axis out of bounds.
    pub fn at_mut(&mut self, index: [usize; N]) -> Result<&mut T> {
        // SAFETY: as in `get_mut`.
        self.raw_mut().try_element_ptr(index).map(|p| unsafe { &mut *p })
    }

    /// The element at `index` with no bounds check (checked per axis under feature `bounds-check`).
    ///
    /// # Safety
    ///
    /// Every `index[k] < self.shape()[k]`.
    #[inline(always)]
    pub unsafe fn get_unchecked(&self, index: [usize; N]) -> &T {
        // SAFETY: the caller promises an in-bounds index.
        unsafe { &*self.raw().element_ptr_unchecked(index) }
    }

    /// The element at `index`, mutably, with no bounds check (checked under `bounds-check`).
    ///
    /// # Safety
    ///
    /// Every `index[k] < self.shape()[k]`.
    #[inline(always)]
    pub unsafe fn get_unchecked_mut(&mut self, index: [usize; N]) -> &mut T {
        // SAFETY: the caller promises an in-bounds index; `&mut self` makes the access unique.
        unsafe { &mut *self.raw_mut().element_ptr_unchecked(index) }
    }

    /// Iterator over the elements in logical row-major order, whatever the layout.
    pub fn iter(&self) -> Iter<'_, T, N> {
        self.host_view().iter()
    }

    /// Iterator over mutable elements in logical row-major order, whatever the layout.
    pub fn iter_mut(&mut self) -> IterMut<'_, T, N> {
        self.host_view_mut().into_iter_mut()
    }

    /// Iterator over `(index, &element)` in logical row-major order.
    pub fn indexed_iter(&self) -> IndexedIter<'_, T, N> {
        self.host_view().indexed_iter()
    }
}

impl<T: Pod, const N: usize, B: HostAccessible, L: Dense, C: BoundsCheck> Array<T, N, B, L, C> {
    /// The elements in memory order (logical order for `RowMajor`, Fortran order for `ColMajor`).
    pub fn as_slice(&self) -> &[T] {
        self.host_view().as_slice()
    }

    /// The elements in memory order, mutably.
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        self.host_view_mut().into_slice()
    }
}

impl<T: Pod, const N: usize, B: HostAccessible, L: Layout, C: BoundsCheck> Array<T, N, B, L, C> {
    /// Iterator over the rows (lanes along the last axis) as slices; row-major and padded
    /// arrays only (see [`ArrayView::rows`]).
    pub fn rows(&self) -> Rows<'_, T>
    where
        L: RowLayout,
        Rank<N>: Dec,
    {
        self.host_view().rows()
    }

    /// Iterator over the rows as mutable slices.
    ///
    /// ```
    /// use cnda::prelude::*;
    /// let mut a = Array::<i32, 2>::zeros([2, 3]);
    /// for (i, row) in a.rows_mut().enumerate() {
    ///     for (j, x) in row.iter_mut().enumerate() {
    ///         *x = (10 * i + j) as i32;
    ///     }
    /// }
    /// assert_eq!(a.as_slice(), &[0, 1, 2, 10, 11, 12]);
    /// ```
    pub fn rows_mut(&mut self) -> RowsMut<'_, T>
    where
        L: RowLayout,
        Rank<N>: Dec,
    {
        self.host_view_mut().into_rows_mut()
    }
}

impl<T, const N: usize, B, L, C, B2, L2, C2> PartialEq<Array<T, N, B2, L2, C2>> for Array<T, N, B, L, C>
where
    T: Pod + PartialEq,
    B: HostAccessible,
    B2: HostAccessible,
    L: Layout,
    L2: Layout,
    C: BoundsCheck,
    C2: BoundsCheck,
{
    /// Equal shapes and equal elements.
    fn eq(&self, other: &Array<T, N, B2, L2, C2>) -> bool {
        self.host_view() == other.host_view()
    }
}

impl<'b, T, const N: usize, B, L, C, L2, C2> PartialEq<ArrayView<'b, T, N, L2, C2>> for Array<T, N, B, L, C>
where
    T: Pod + PartialEq,
    B: HostAccessible,
    L: Layout,
    L2: Layout,
    C: BoundsCheck,
    C2: BoundsCheck,
{
    /// Equal shapes and equal elements.
    fn eq(&self, other: &ArrayView<'b, T, N, L2, C2>) -> bool {
        self.host_view() == *other
    }
}

impl<'a, 'b, T, const N: usize, L, C, L2, C2> PartialEq<ArrayView<'b, T, N, L2, C2>> for ArrayView<'a, T, N, L, C>
where
    T: Pod + PartialEq,
    L: Layout,
    L2: Layout,
    C: BoundsCheck,
    C2: BoundsCheck,
{
    /// Equal shapes and equal elements.
    fn eq(&self, other: &ArrayView<'b, T, N, L2, C2>) -> bool {
        self.shape() == other.shape() && self.iter().eq(other.iter())
    }
}
