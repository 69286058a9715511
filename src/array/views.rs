//! View ops on owned arrays of any backend: each borrows the array and forwards to the [`View`]
//! op of the same name (which documents it), so the algebra exists once.

use super::Array;
use crate::check::BoundsCheck;
use crate::element::Pod;
use crate::error::or_panic;
use crate::error::Result;
use crate::kernel::Backend;
use crate::layout::{Layout, Strided};
use crate::rank::{BroadcastInto, Dec, Inc, Rank};
use crate::slice::{SliceLayout, SliceSpec};
use crate::view::{Shared, Split, SplitMut, Unique, View};

impl<T: Pod, const N: usize, B: Backend, L: Layout, C: BoundsCheck> Array<T, N, B, L, C> {
    /// A view of the region `spec` (`s![...]`) selects; see [`View::slice`].
    #[track_caller]
    pub fn slice<const M: usize, const CO: bool, const FO: bool>(
        &self,
        spec: SliceSpec<N, M, CO, FO>,
    ) -> View<'_, T, M, Shared, B, <L as SliceLayout<CO, FO>>::Out, C>
    where
        L: SliceLayout<CO, FO>,
    {
        self.view().slice(spec)
    }

    /// See [`View::try_slice`].
    ///
    /// # Errors
    ///
    /// As for [`View::try_slice`].
    pub fn try_slice<const M: usize, const CO: bool, const FO: bool>(
        &self,
        spec: SliceSpec<N, M, CO, FO>,
    ) -> Result<View<'_, T, M, Shared, B, <L as SliceLayout<CO, FO>>::Out, C>>
    where
        L: SliceLayout<CO, FO>,
    {
        self.view().try_slice(spec)
    }

    /// A mutable view of the region `spec` selects; see [`View::slice`].
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
    ) -> View<'_, T, M, Unique, B, <L as SliceLayout<CO, FO>>::Out, C>
    where
        L: SliceLayout<CO, FO>,
    {
        self.view_mut().slice(spec)
    }

    /// See [`View::try_slice`].
    ///
    /// # Errors
    ///
    /// As for [`View::try_slice`].
    pub fn try_slice_mut<const M: usize, const CO: bool, const FO: bool>(
        &mut self,
        spec: SliceSpec<N, M, CO, FO>,
    ) -> Result<View<'_, T, M, Unique, B, <L as SliceLayout<CO, FO>>::Out, C>>
    where
        L: SliceLayout<CO, FO>,
    {
        self.view_mut().try_slice(spec)
    }

    /// All axes reversed; see [`View::t`].
    pub fn t(&self) -> View<'_, T, N, Shared, B, L::Reversed, C> {
        self.view().t()
    }

    /// Axes `a` and `b` swapped; see [`View::transpose`].
    #[track_caller]
    pub fn transpose(&self, a: usize, b: usize) -> View<'_, T, N, Shared, B, Strided, C> {
        self.view().transpose(a, b)
    }

    /// Axes permuted; see [`View::permute`].
    ///
    /// # Panics
    ///
    /// When `axes` is not a permutation of `0..N`; [`Array::try_permute`] returns the error instead.
    #[track_caller]
    pub fn permute(&self, axes: [usize; N]) -> View<'_, T, N, Shared, B, Strided, C> {
        or_panic(self.try_permute(axes))
    }

    /// Axes permuted; see [`View::permute`].
    ///
    /// # Errors
    ///
    /// As for [`View::permute`].
    pub fn try_permute(&self, axes: [usize; N]) -> Result<View<'_, T, N, Shared, B, Strided, C>> {
        self.view().try_permute(axes)
    }

    /// A reshaped view without copying; see [`View::reshape`].
    ///
    /// # Panics
    ///
    /// When the element count differs or the strides cannot express the new shape; [`Array::try_reshape`] returns the error instead.
    #[track_caller]
    pub fn reshape<const M: usize>(&self, shape: [usize; M]) -> View<'_, T, M, Shared, B, L::Reshaped, C> {
        or_panic(self.try_reshape(shape))
    }

    /// A reshaped view without copying; see [`View::reshape`].
    ///
    /// # Errors
    ///
    /// As for [`View::reshape`].
    pub fn try_reshape<const M: usize>(&self, shape: [usize; M]) -> Result<View<'_, T, M, Shared, B, L::Reshaped, C>> {
        self.view().try_reshape(shape)
    }

    /// A range of one axis; see [`View::narrow`].
    #[track_caller]
    pub fn narrow(&self, axis: usize, start: usize, len: usize) -> View<'_, T, N, Shared, B, Strided, C> {
        self.view().narrow(axis, start, len)
    }

    /// One position of one axis; see [`View::index_axis`].
    #[track_caller]
    pub fn index_axis<const M: usize>(&self, axis: usize, index: usize) -> View<'_, T, M, Shared, B, Strided, C>
    where
        Rank<N>: Dec<Output = Rank<M>>,
    {
        self.view().index_axis(axis, index)
    }

    /// One position of one axis, mutably; see [`View::index_axis`].
    #[track_caller]
    pub fn index_axis_mut<const M: usize>(&mut self, axis: usize, index: usize) -> View<'_, T, M, Unique, B, Strided, C>
    where
        Rank<N>: Dec<Output = Rank<M>>,
    {
        self.view_mut().index_axis(axis, index)
    }

    /// One axis walked backwards; see [`View::flip`].
    #[track_caller]
    pub fn flip(&self, axis: usize) -> View<'_, T, N, Shared, B, Strided, C> {
        self.view().flip(axis)
    }

    /// A length-1 axis removed; see [`View::squeeze`].
    ///
    /// # Panics
    ///
    /// When the axis is out of range or its length is not 1; [`Array::try_squeeze`] returns the error instead.
    #[track_caller]
    pub fn squeeze<const M: usize>(&self, axis: usize) -> View<'_, T, M, Shared, B, L, C>
    where
        Rank<N>: Dec<Output = Rank<M>>,
    {
        or_panic(self.try_squeeze(axis))
    }

    /// A length-1 axis removed; see [`View::squeeze`].
    ///
    /// # Errors
    ///
    /// As for [`View::squeeze`].
    pub fn try_squeeze<const M: usize>(&self, axis: usize) -> Result<View<'_, T, M, Shared, B, L, C>>
    where
        Rank<N>: Dec<Output = Rank<M>>,
    {
        self.view().try_squeeze(axis)
    }

    /// A length-1 axis inserted; see [`View::unsqueeze`].
    #[track_caller]
    pub fn unsqueeze<const M: usize>(&self, axis: usize) -> View<'_, T, M, Shared, B, L, C>
    where
        Rank<N>: Inc<Output = Rank<M>>,
    {
        or_panic(self.try_unsqueeze(axis))
    }

    /// See [`View::try_unsqueeze`].
    ///
    /// # Errors
    ///
    /// As for [`View::try_unsqueeze`].
    pub fn try_unsqueeze<const M: usize>(&self, axis: usize) -> Result<View<'_, T, M, Shared, B, L, C>>
    where
        Rank<N>: Inc<Output = Rank<M>>,
    {
        self.view().try_unsqueeze(axis)
    }

    /// A read-only broadcast view; see [`View::broadcast_to`].
    ///
    /// # Panics
    ///
    /// When the shapes do not broadcast or the result's element count overflows; [`Array::try_broadcast_to`] returns the error instead.
    #[track_caller]
    pub fn broadcast_to<const M: usize>(&self, shape: [usize; M]) -> View<'_, T, M, Shared, B, Strided, C>
    where
        Rank<N>: BroadcastInto<Rank<M>>,
    {
        or_panic(self.try_broadcast_to(shape))
    }

    /// A read-only broadcast view; see [`View::broadcast_to`].
    ///
    /// # Errors
    ///
    /// As for [`View::broadcast_to`].
    pub fn try_broadcast_to<const M: usize>(&self, shape: [usize; M]) -> Result<View<'_, T, M, Shared, B, Strided, C>>
    where
        Rank<N>: BroadcastInto<Rank<M>>,
    {
        self.view().try_broadcast_to(shape)
    }

    /// Two views split along one axis; see [`View::split_at`].
    #[track_caller]
    pub fn split_at(&self, axis: usize, index: usize) -> Split<'_, T, N, C, B> {
        self.view().split_at(axis, index)
    }

    /// Two disjoint mutable views split along one axis; see [`View::split_at`].
    #[track_caller]
    pub fn split_at_mut(&mut self, axis: usize, index: usize) -> SplitMut<'_, T, N, C, B> {
        self.view_mut().split_at(axis, index)
    }

    /// Axes `a` and `b` swapped; see [`View::try_transpose`].
    ///
    /// # Errors
    ///
    /// `Error::AxisOutOfRange`.
    pub fn try_transpose(&self, a: usize, b: usize) -> Result<View<'_, T, N, Shared, B, Strided, C>> {
        self.view().try_transpose(a, b)
    }

    /// A range of one axis; see [`View::try_narrow`].
    ///
    /// # Errors
    ///
    /// `Error::AxisOutOfRange` or `Error::Range`.
    pub fn try_narrow(&self, axis: usize, start: usize, len: usize) -> Result<View<'_, T, N, Shared, B, Strided, C>> {
        self.view().try_narrow(axis, start, len)
    }

    /// One position of one axis; see [`View::try_index_axis`].
    ///
    /// # Errors
    ///
    /// `Error::AxisOutOfRange` or `Error::IndexOutOfBounds`.
    pub fn try_index_axis<const M: usize>(
        &self,
        axis: usize,
        index: usize,
    ) -> Result<View<'_, T, M, Shared, B, Strided, C>>
    where
        Rank<N>: Dec<Output = Rank<M>>,
    {
        self.view().try_index_axis(axis, index)
    }

    /// One position of one axis, mutably; see [`View::try_index_axis`].
    ///
    /// # Errors
    ///
    /// `Error::AxisOutOfRange` or `Error::IndexOutOfBounds`.
    pub fn try_index_axis_mut<const M: usize>(
        &mut self,
        axis: usize,
        index: usize,
    ) -> Result<View<'_, T, M, Unique, B, Strided, C>>
    where
        Rank<N>: Dec<Output = Rank<M>>,
    {
        self.view_mut().try_index_axis(axis, index)
    }

    /// One axis walked backwards; see [`View::try_flip`].
    ///
    /// # Errors
    ///
    /// `Error::AxisOutOfRange`.
    pub fn try_flip(&self, axis: usize) -> Result<View<'_, T, N, Shared, B, Strided, C>> {
        self.view().try_flip(axis)
    }

    /// Two views split along one axis; see [`View::try_split_at`].
    ///
    /// # Errors
    ///
    /// `Error::AxisOutOfRange` or `Error::Range`.
    pub fn try_split_at(&self, axis: usize, index: usize) -> Result<Split<'_, T, N, C, B>> {
        self.view().try_split_at(axis, index)
    }

    /// Two disjoint mutable views split along one axis; see [`View::try_split_at`].
    ///
    /// # Errors
    ///
    /// `Error::AxisOutOfRange` or `Error::Range`.
    pub fn try_split_at_mut(&mut self, axis: usize, index: usize) -> Result<SplitMut<'_, T, N, C, B>> {
        self.view_mut().try_split_at(axis, index)
    }
}
