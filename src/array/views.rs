//! View ops on owned arrays: each borrows the array and forwards to the `ArrayView` /
//! `ArrayViewMut` op of the same name (which documents it), so the algebra exists once.

use super::Array;
use crate::backend::HostAccessible;
use crate::check::BoundsCheck;
use crate::element::Pod;
use crate::error::Result;
use crate::layout::{Layout, Strided};
use crate::rank::{BroadcastInto, Dec, Inc, Rank};
use crate::slice::{SliceLayout, SliceSpec};
use crate::view::ops_shared::or_panic;
use crate::view::{ArrayView, ArrayViewMut, SplitMut};

impl<T: Pod, const N: usize, B: HostAccessible, L: Layout, C: BoundsCheck> Array<T, N, B, L, C> {
    /// A view of the region `spec` (`s![...]`) selects; see [`ArrayView::slice`].
    #[track_caller]
    pub fn slice<const M: usize, const CO: bool, const FO: bool>(
        &self,
        spec: SliceSpec<N, M, CO, FO>,
    ) -> ArrayView<'_, T, M, <L as SliceLayout<CO, FO>>::Out, C>
    where
        L: SliceLayout<CO, FO>,
    {
        self.view().slice(spec)
    }

    /// See [`ArrayView::try_slice`].
    ///
    /// # Errors
    ///
    /// As for [`ArrayView::try_slice`].
    pub fn try_slice<const M: usize, const CO: bool, const FO: bool>(
        &self,
        spec: SliceSpec<N, M, CO, FO>,
    ) -> Result<ArrayView<'_, T, M, <L as SliceLayout<CO, FO>>::Out, C>>
    where
        L: SliceLayout<CO, FO>,
    {
        self.view().try_slice(spec)
    }

    /// A mutable view of the region `spec` selects; see [`ArrayViewMut::slice`].
    ///
    /// ```
    /// use cnda::prelude::*;
    /// let mut a = Array::<i32, 2>::zeros([3, 4]);
    /// a.slice_mut(s![1..-1, 1..-1]).fill(7); // the interior
    /// assert_eq!(a.as_slice(), &[0, 0, 0, 0, 0, 7, 7, 0, 0, 0, 0, 0]);
    /// ```
    #[track_caller]
    pub fn slice_mut<const M: usize, const CO: bool, const FO: bool>(
        &mut self,
        spec: SliceSpec<N, M, CO, FO>,
    ) -> ArrayViewMut<'_, T, M, <L as SliceLayout<CO, FO>>::Out, C>
    where
        L: SliceLayout<CO, FO>,
    {
        self.view_mut().slice(spec)
    }

    /// See [`ArrayViewMut::try_slice`].
    ///
    /// # Errors
    ///
    /// As for [`ArrayViewMut::try_slice`].
    pub fn try_slice_mut<const M: usize, const CO: bool, const FO: bool>(
        &mut self,
        spec: SliceSpec<N, M, CO, FO>,
    ) -> Result<ArrayViewMut<'_, T, M, <L as SliceLayout<CO, FO>>::Out, C>>
    where
        L: SliceLayout<CO, FO>,
    {
        self.view_mut().try_slice(spec)
    }

    /// All axes reversed; see [`ArrayView::t`].
    pub fn t(&self) -> ArrayView<'_, T, N, L::Reversed, C> {
        self.view().t()
    }

    /// Axes `a` and `b` swapped; see [`ArrayView::transpose`].
    #[track_caller]
    pub fn transpose(&self, a: usize, b: usize) -> ArrayView<'_, T, N, Strided, C> {
        self.view().transpose(a, b)
    }

    /// Axes permuted; see [`ArrayView::permute`].
    ///
    /// # Panics
    ///
    /// When `axes` is not a permutation of `0..N`; [`Array::try_permute`] returns the error instead.
    #[track_caller]
    pub fn permute(&self, axes: [usize; N]) -> ArrayView<'_, T, N, Strided, C> {
        or_panic(self.try_permute(axes))
    }

    /// Axes permuted; see [`ArrayView::permute`].
    ///
    /// # Errors
    ///
    /// As for [`ArrayView::permute`].
    pub fn try_permute(&self, axes: [usize; N]) -> Result<ArrayView<'_, T, N, Strided, C>> {
        self.view().try_permute(axes)
    }

    /// A reshaped view without copying; see [`ArrayView::reshape`].
    ///
    /// # Panics
    ///
    /// When the element count differs or the strides cannot express the new shape; [`Array::try_reshape`] returns the error instead.
    #[track_caller]
    pub fn reshape<const M: usize>(&self, shape: [usize; M]) -> ArrayView<'_, T, M, L::Reshaped, C> {
        or_panic(self.try_reshape(shape))
    }

    /// A reshaped view without copying; see [`ArrayView::reshape`].
    ///
    /// # Errors
    ///
    /// As for [`ArrayView::reshape`].
    pub fn try_reshape<const M: usize>(&self, shape: [usize; M]) -> Result<ArrayView<'_, T, M, L::Reshaped, C>> {
        self.view().try_reshape(shape)
    }

    /// A range of one axis; see [`ArrayView::narrow`].
    #[track_caller]
    pub fn narrow(&self, axis: usize, start: usize, len: usize) -> ArrayView<'_, T, N, Strided, C> {
        self.view().narrow(axis, start, len)
    }

    /// One position of one axis; see [`ArrayView::index_axis`].
    #[track_caller]
    pub fn index_axis<const M: usize>(&self, axis: usize, index: usize) -> ArrayView<'_, T, M, Strided, C>
    where
        Rank<N>: Dec<Output = Rank<M>>,
    {
        self.view().index_axis(axis, index)
    }

    /// One position of one axis, mutably; see [`ArrayViewMut::index_axis`].
    #[track_caller]
    pub fn index_axis_mut<const M: usize>(&mut self, axis: usize, index: usize) -> ArrayViewMut<'_, T, M, Strided, C>
    where
        Rank<N>: Dec<Output = Rank<M>>,
    {
        self.view_mut().index_axis(axis, index)
    }

    /// One axis walked backwards; see [`ArrayView::flip`].
    #[track_caller]
    pub fn flip(&self, axis: usize) -> ArrayView<'_, T, N, Strided, C> {
        self.view().flip(axis)
    }

    /// A length-1 axis removed; see [`ArrayView::squeeze`].
    ///
    /// # Panics
    ///
    /// When the axis is out of range or its length is not 1; [`Array::try_squeeze`] returns the error instead.
    #[track_caller]
    pub fn squeeze<const M: usize>(&self, axis: usize) -> ArrayView<'_, T, M, L, C>
    where
        Rank<N>: Dec<Output = Rank<M>>,
    {
        or_panic(self.try_squeeze(axis))
    }

    /// A length-1 axis removed; see [`ArrayView::squeeze`].
    ///
    /// # Errors
    ///
    /// As for [`ArrayView::squeeze`].
    pub fn try_squeeze<const M: usize>(&self, axis: usize) -> Result<ArrayView<'_, T, M, L, C>>
    where
        Rank<N>: Dec<Output = Rank<M>>,
    {
        self.view().try_squeeze(axis)
    }

    /// A length-1 axis inserted; see [`ArrayView::unsqueeze`].
    #[track_caller]
    pub fn unsqueeze<const M: usize>(&self, axis: usize) -> ArrayView<'_, T, M, L, C>
    where
        Rank<N>: Inc<Output = Rank<M>>,
    {
        or_panic(self.try_unsqueeze(axis))
    }

    /// See [`ArrayView::try_unsqueeze`].
    ///
    /// # Errors
    ///
    /// As for [`ArrayView::try_unsqueeze`].
    pub fn try_unsqueeze<const M: usize>(&self, axis: usize) -> Result<ArrayView<'_, T, M, L, C>>
    where
        Rank<N>: Inc<Output = Rank<M>>,
    {
        self.view().try_unsqueeze(axis)
    }

    /// A read-only broadcast view; see [`ArrayView::broadcast_to`].
    ///
    /// # Panics
    ///
    /// When the shapes do not broadcast or the result's element count overflows; [`Array::try_broadcast_to`] returns the error instead.
    #[track_caller]
    pub fn broadcast_to<const M: usize>(&self, shape: [usize; M]) -> ArrayView<'_, T, M, Strided, C>
    where
        Rank<N>: BroadcastInto<Rank<M>>,
    {
        or_panic(self.try_broadcast_to(shape))
    }

    /// A read-only broadcast view; see [`ArrayView::broadcast_to`].
    ///
    /// # Errors
    ///
    /// As for [`ArrayView::broadcast_to`].
    pub fn try_broadcast_to<const M: usize>(&self, shape: [usize; M]) -> Result<ArrayView<'_, T, M, Strided, C>>
    where
        Rank<N>: BroadcastInto<Rank<M>>,
    {
        self.view().try_broadcast_to(shape)
    }

    /// Two views split along one axis; see [`ArrayView::split_at`].
    #[track_caller]
    #[allow(clippy::type_complexity)]
    pub fn split_at(
        &self,
        axis: usize,
        index: usize,
    ) -> (ArrayView<'_, T, N, Strided, C>, ArrayView<'_, T, N, Strided, C>) {
        self.view().split_at(axis, index)
    }

    /// Two disjoint mutable views split along one axis; see [`ArrayViewMut::split_at`].
    #[track_caller]
    pub fn split_at_mut(&mut self, axis: usize, index: usize) -> SplitMut<'_, T, N, C> {
        self.view_mut().split_at(axis, index)
    }

    /// Axes `a` and `b` swapped; see [`ArrayView::try_transpose`].
    ///
    /// # Errors
    ///
    /// `Error::AxisOutOfRange`.
    pub fn try_transpose(&self, a: usize, b: usize) -> Result<ArrayView<'_, T, N, Strided, C>> {
        self.view().try_transpose(a, b)
    }

    /// A range of one axis; see [`ArrayView::try_narrow`].
    ///
    /// # Errors
    ///
    /// `Error::AxisOutOfRange` or `Error::Range`.
    pub fn try_narrow(&self, axis: usize, start: usize, len: usize) -> Result<ArrayView<'_, T, N, Strided, C>> {
        self.view().try_narrow(axis, start, len)
    }

    /// One position of one axis; see [`ArrayView::try_index_axis`].
    ///
    /// # Errors
    ///
    /// `Error::AxisOutOfRange` or `Error::IndexOutOfBounds`.
    pub fn try_index_axis<const M: usize>(&self, axis: usize, index: usize) -> Result<ArrayView<'_, T, M, Strided, C>>
    where
        Rank<N>: Dec<Output = Rank<M>>,
    {
        self.view().try_index_axis(axis, index)
    }

    /// One position of one axis, mutably; see [`ArrayViewMut::try_index_axis`].
    ///
    /// # Errors
    ///
    /// `Error::AxisOutOfRange` or `Error::IndexOutOfBounds`.
    pub fn try_index_axis_mut<const M: usize>(
        &mut self,
        axis: usize,
        index: usize,
    ) -> Result<ArrayViewMut<'_, T, M, Strided, C>>
    where
        Rank<N>: Dec<Output = Rank<M>>,
    {
        self.view_mut().try_index_axis(axis, index)
    }

    /// One axis walked backwards; see [`ArrayView::try_flip`].
    ///
    /// # Errors
    ///
    /// `Error::AxisOutOfRange`.
    pub fn try_flip(&self, axis: usize) -> Result<ArrayView<'_, T, N, Strided, C>> {
        self.view().try_flip(axis)
    }

    /// Two views split along one axis; see [`ArrayView::try_split_at`].
    ///
    /// # Errors
    ///
    /// `Error::AxisOutOfRange` or `Error::Range`.
    #[allow(clippy::type_complexity)]
    pub fn try_split_at(
        &self,
        axis: usize,
        index: usize,
    ) -> Result<(ArrayView<'_, T, N, Strided, C>, ArrayView<'_, T, N, Strided, C>)> {
        self.view().try_split_at(axis, index)
    }

    /// Two disjoint mutable views split along one axis; see [`ArrayViewMut::try_split_at`].
    ///
    /// # Errors
    ///
    /// `Error::AxisOutOfRange` or `Error::Range`.
    pub fn try_split_at_mut(&mut self, axis: usize, index: usize) -> Result<SplitMut<'_, T, N, C>> {
        self.view_mut().try_split_at(axis, index)
    }
}
