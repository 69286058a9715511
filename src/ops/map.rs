//! `map`, `map_inplace` and `zip_with`: elementwise functions over any layout, through the lane
//! engine (contiguous operands run as one slice loop).

use crate::array::Array;
use crate::array::AsView;
use crate::check::BoundsCheck;
use crate::element::Pod;
use crate::error::or_panic;
use crate::error::Result;
use crate::kernel::host::HostEngine;
use crate::kernel::host::{Dst, Src};
use crate::kernel::{Cpu, HostAccessible};
use crate::layout::{Layout, RowMajor};
use crate::rank::{BroadcastInto, Rank};
use crate::shape;
use crate::view::{ArrayView, ArrayViewMut};

/// A fresh row-major array of `shape` whose every element `fill` writes through the given
/// destination (row-major strides).
///
/// # Safety
///
/// `fill` must write every element of the destination exactly once and read none.
pub(crate) unsafe fn collect<R: Pod, const N: usize, C: BoundsCheck>(
    op: &'static str,
    shape: [usize; N],
    fill: impl FnOnce(Dst<R, N>),
) -> Result<Array<R, N, Cpu, RowMajor, C>> {
    let len = shape::checked_len(op, &shape, core::mem::size_of::<R>())?;
    let strides = shape::row_major_strides(&shape);
    // SAFETY: the caller's `fill` initializes all `len` elements.
    let buf = unsafe { crate::kernel::init_buffer(&Cpu, op, len, |ptr| fill(Dst { ptr, strides })) }?;
    Ok(Array::from_buffer_in(buf, shape))
}

impl<'a, T: Pod, const N: usize, L: Layout, C: BoundsCheck> ArrayView<'a, T, N, L, C> {
    pub(crate) fn src(&self) -> Src<T, N> {
        Src { ptr: self.raw.ptr.cast_const(), strides: self.raw.strides() }
    }

    /// This view as a read operand broadcast to `shape` (stride 0 on stretched axes).
    ///
    /// # Errors
    ///
    /// `Error::Broadcast` when the shapes do not broadcast.
    pub(crate) fn src_broadcast<const M: usize>(&self, shape: [usize; M]) -> Result<Src<T, M>> {
        let g = self.geometry().broadcast(shape)?;
        Ok(Src { ptr: self.raw.ptr.cast_const(), strides: g.strides })
    }

    /// A new row-major array of `f(x)` for every element `x`.
    ///
    /// # Panics
    ///
    /// When the result cannot be allocated.
    #[track_caller]
    pub fn map<R: Pod>(&self, f: impl FnMut(T) -> R) -> Array<R, N, Cpu, RowMajor, C> {
        let src = self.src();
        // SAFETY: `unary_map` writes every element of the fresh row-major destination once.
        let out = unsafe { collect("map", self.shape(), |dst| Cpu::unary_map(self.shape(), src, dst, f)) };
        or_panic(out)
    }

    /// A new row-major array of `f(x, y)` for the elements of `self` and `other` at each index;
    /// `other` is broadcast to this shape.
    ///
    /// # Panics
    ///
    /// When `other` does not broadcast to this shape, or the result cannot be allocated; [`ArrayView::try_zip_with`] returns the error instead.
    #[track_caller]
    pub fn zip_with<U: Pod, R: Pod, const M: usize, S: AsView<U, M>>(
        &self,
        other: &S,
        f: impl FnMut(T, U) -> R,
    ) -> Array<R, N, Cpu, RowMajor, C>
    where
        Rank<M>: BroadcastInto<Rank<N>>,
    {
        or_panic(self.try_zip_with(other, f))
    }

    /// A new row-major array of `f(x, y)` for the elements of `self` and `other` at each index;
    /// `other` is broadcast to this shape.
    ///
    /// # Errors
    ///
    /// `Error::Broadcast` when `other` does not broadcast to this shape; `Error::Alloc`.
    pub fn try_zip_with<U: Pod, R: Pod, const M: usize, S: AsView<U, M>>(
        &self,
        other: &S,
        f: impl FnMut(T, U) -> R,
    ) -> Result<Array<R, N, Cpu, RowMajor, C>>
    where
        Rank<M>: BroadcastInto<Rank<N>>,
    {
        let b = other.as_view().src_broadcast(self.shape())?;
        let a = self.src();
        // SAFETY: both sources cover the shape; the destination is fresh and written once per index.
        unsafe { collect("zip_with", self.shape(), |dst| Cpu::binary_map(self.shape(), a, b, dst, f)) }
    }
}

impl<T: Pod, const N: usize, L: Layout, C: BoundsCheck> ArrayViewMut<'_, T, N, L, C> {
    pub(crate) fn dst(&mut self) -> Dst<T, N> {
        Dst { ptr: self.raw.ptr, strides: self.raw.strides() }
    }

    /// Applies `f` to every element in place.
    pub fn map_inplace(&mut self, f: impl FnMut(&mut T)) {
        let (shape, dst) = (self.shape(), self.dst());
        // SAFETY: a mutable view's indices address distinct elements it borrows uniquely.
        unsafe { Cpu::update(shape, dst, f) };
    }

    /// Calls `f(&mut x, y)` for every element `x` of this view and the element `y` of `other` at
    /// the same index (`other` broadcast to this shape).
    ///
    /// # Panics
    ///
    /// When `other` does not broadcast to this shape; [`ArrayViewMut::try_zip_mut_with`] returns the error instead.
    #[track_caller]
    pub fn zip_mut_with<U: Pod, const M: usize, S: AsView<U, M>>(&mut self, other: &S, f: impl FnMut(&mut T, U))
    where
        Rank<M>: BroadcastInto<Rank<N>>,
    {
        or_panic(self.try_zip_mut_with(other, f))
    }

    /// Calls `f(&mut x, y)` for every element `x` of this view and the element `y` of `other` at
    /// the same index (`other` broadcast to this shape).
    ///
    /// # Errors
    ///
    /// `Error::Broadcast` when `other` does not broadcast to this shape.
    pub fn try_zip_mut_with<U: Pod, const M: usize, S: AsView<U, M>>(
        &mut self,
        other: &S,
        f: impl FnMut(&mut T, U),
    ) -> Result<()>
    where
        Rank<M>: BroadcastInto<Rank<N>>,
    {
        let src = other.as_view().src_broadcast(self.shape())?;
        let (shape, dst) = (self.shape(), self.dst());
        // SAFETY: distinct destination elements, uniquely borrowed; `other` is a shared borrow,
        // so it cannot overlap them.
        unsafe { Cpu::update_with(shape, dst, src, f) };
        Ok(())
    }
}

impl<T: Pod, const N: usize, B: HostAccessible, L: Layout, C: BoundsCheck> Array<T, N, B, L, C> {
    /// A new row-major array of `f(x)` for every element `x`; see [`ArrayView::map`].
    ///
    /// ```
    /// use cnda::prelude::*;
    /// let a = Array::from_fn([2, 2], |[i, j]| (i + j) as f64);
    /// assert_eq!(a.map(|x| x * x).as_slice(), &[0.0, 1.0, 1.0, 4.0]);
    /// let b = a.zip_with(&Array::from_shape_vec([2], vec![10.0, 20.0]).unwrap(), |x, y| x + y);
    /// assert_eq!(b.as_slice(), &[10.0, 21.0, 11.0, 22.0]);
    /// ```
    pub fn map<R: Pod>(&self, f: impl FnMut(T) -> R) -> Array<R, N, Cpu, RowMajor, C> {
        self.host_view().map(f)
    }

    /// See [`ArrayView::zip_with`].
    ///
    /// # Panics
    ///
    /// When `other` does not broadcast to this shape, or the result cannot be allocated; [`ArrayView::try_zip_with`] returns the error instead.
    #[track_caller]
    pub fn zip_with<U: Pod, R: Pod, const M: usize, S: AsView<U, M>>(
        &self,
        other: &S,
        f: impl FnMut(T, U) -> R,
    ) -> Array<R, N, Cpu, RowMajor, C>
    where
        Rank<M>: BroadcastInto<Rank<N>>,
    {
        or_panic(self.try_zip_with(other, f))
    }

    /// See [`ArrayView::zip_with`].
    ///
    /// # Errors
    ///
    /// As for [`ArrayView::zip_with`].
    pub fn try_zip_with<U: Pod, R: Pod, const M: usize, S: AsView<U, M>>(
        &self,
        other: &S,
        f: impl FnMut(T, U) -> R,
    ) -> Result<Array<R, N, Cpu, RowMajor, C>>
    where
        Rank<M>: BroadcastInto<Rank<N>>,
    {
        self.host_view().try_zip_with(other, f)
    }

    /// Applies `f` to every element in place.
    pub fn map_inplace(&mut self, f: impl FnMut(&mut T)) {
        self.host_view_mut().map_inplace(f)
    }

    /// See [`ArrayViewMut::zip_mut_with`].
    ///
    /// # Panics
    ///
    /// When `other` does not broadcast to this shape; [`ArrayViewMut::try_zip_mut_with`] returns the error instead.
    #[track_caller]
    pub fn zip_mut_with<U: Pod, const M: usize, S: AsView<U, M>>(&mut self, other: &S, f: impl FnMut(&mut T, U))
    where
        Rank<M>: BroadcastInto<Rank<N>>,
    {
        or_panic(self.try_zip_mut_with(other, f))
    }

    /// See [`ArrayViewMut::zip_mut_with`].
    ///
    /// # Errors
    ///
    /// As for [`ArrayViewMut::zip_mut_with`].
    pub fn try_zip_mut_with<U: Pod, const M: usize, S: AsView<U, M>>(
        &mut self,
        other: &S,
        f: impl FnMut(&mut T, U),
    ) -> Result<()>
    where
        Rank<M>: BroadcastInto<Rank<N>>,
    {
        self.host_view_mut().try_zip_mut_with(other, f)
    }
}
