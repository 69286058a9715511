//! View algebra on [`ArrayViewMut`]: the same ops as on `ArrayView` (same `geometry.rs` functions),
//! consuming the mutable view and returning mutable views. Broadcasting is absent: a stride-0 axis
//! would let two indices write one element. Use `view_mut()` first to keep the original.

use crate::check::BoundsCheck;
use crate::element::Pod;
use crate::error::Result;
use crate::geometry::Geometry;
use crate::layout::{Layout, Strided};
use crate::rank::{Dec, Inc, Rank};
use crate::slice::{SliceLayout, SliceSpec};
use crate::view::ops_shared::or_panic;
use crate::view::ArrayViewMut;

/// Two mutable halves of one view.
pub type SplitMut<'a, T, const N: usize, C> = (ArrayViewMut<'a, T, N, Strided, C>, ArrayViewMut<'a, T, N, Strided, C>);

impl<'a, T: Pod, const N: usize, L: Layout, C: BoundsCheck> ArrayViewMut<'a, T, N, L, C> {
    /// The elements `g` selects, as a mutable view in layout `L2`.
    fn remap<const M: usize, L2: Layout>(self, g: Geometry<M>) -> Result<ArrayViewMut<'a, T, M, L2, C>> {
        let raw = self.raw.remap(g)?;
        // SAFETY: `g` was derived from this view's geometry by an op that never repeats an element
        // (no broadcast here), so the new view uniquely borrows a subset of this view's elements
        // for 'a, and `self` is consumed.
        Ok(unsafe { ArrayViewMut::from_raw(raw) })
    }

    fn remap_strided<const M: usize>(self, g: Geometry<M>) -> ArrayViewMut<'a, T, M, Strided, C> {
        self.remap(g).expect("Strided expresses every geometry")
    }

    /// The same view with its layout forgotten (`Strided`).
    pub fn into_strided(self) -> ArrayViewMut<'a, T, N, Strided, C> {
        let g = self.raw.geometry();
        self.remap_strided(g)
    }

    /// The same view in layout `L2`, when its strides are `L2`'s (run-time check, no copy).
    ///
    /// # Errors
    ///
    /// `Error::Layout` when the strides are not `L2`'s.
    pub fn try_layout<L2: Layout>(self) -> Result<ArrayViewMut<'a, T, N, L2, C>> {
        let g = self.raw.geometry();
        self.remap(g)
    }

    /// All axes reversed.
    pub fn t(self) -> ArrayViewMut<'a, T, N, L::Reversed, C> {
        // SAFETY: the same elements, uniquely borrowed for the same 'a; `self` is consumed.
        unsafe { ArrayViewMut::from_raw(self.raw.reversed()) }
    }

    /// Axes `a` and `b` swapped.
    ///
    /// # Panics
    ///
    /// When an axis is not below `N`; [`ArrayViewMut::try_transpose`] returns the error.
    #[track_caller]
    pub fn transpose(self, a: usize, b: usize) -> ArrayViewMut<'a, T, N, Strided, C> {
        or_panic(self.try_transpose(a, b))
    }

    /// Axes `a` and `b` swapped.
    ///
    /// # Errors
    ///
    /// `Error::AxisOutOfRange`.
    pub fn try_transpose(self, a: usize, b: usize) -> Result<ArrayViewMut<'a, T, N, Strided, C>> {
        let g = self.raw.geometry().transposed(a, b)?;
        Ok(self.remap_strided(g))
    }

    /// Axis `k` of the result is axis `axes[k]` of `self`.
    ///
    /// # Panics
    ///
    /// When `axes` is not a permutation of `0..N`; [`ArrayViewMut::try_permute`] returns the error instead.
    #[track_caller]
    pub fn permute(self, axes: [usize; N]) -> ArrayViewMut<'a, T, N, Strided, C> {
        or_panic(self.try_permute(axes))
    }

    /// Axis `k` of the result is axis `axes[k]` of `self`.
    ///
    /// # Errors
    ///
    /// `Error::InvalidAxes` when `axes` is not a permutation of `0..N`.
    pub fn try_permute(self, axes: [usize; N]) -> Result<ArrayViewMut<'a, T, N, Strided, C>> {
        let g = self.raw.geometry().permuted(axes)?;
        Ok(self.remap_strided(g))
    }

    /// The same elements, in row-major order, as shape `shape`, without copying.
    ///
    /// # Panics
    ///
    /// When the element count differs or the strides cannot express the new shape; [`ArrayViewMut::try_reshape`] returns the error instead.
    #[track_caller]
    pub fn reshape<const M: usize>(self, shape: [usize; M]) -> ArrayViewMut<'a, T, M, L::Reshaped, C> {
        or_panic(self.try_reshape(shape))
    }

    /// The same elements, in row-major order, as shape `shape`, without copying.
    ///
    /// # Errors
    ///
    /// `Error::LengthMismatch` or `Error::Layout`, as for `ArrayView::reshape`.
    pub fn try_reshape<const M: usize>(self, shape: [usize; M]) -> Result<ArrayViewMut<'a, T, M, L::Reshaped, C>> {
        let g = self.raw.geometry().reshaped(shape)?;
        self.remap(g)
    }

    /// `len` positions of axis `axis` from `start`.
    ///
    /// # Panics
    ///
    /// When out of bounds; [`ArrayViewMut::try_narrow`] returns the error.
    #[track_caller]
    pub fn narrow(self, axis: usize, start: usize, len: usize) -> ArrayViewMut<'a, T, N, Strided, C> {
        or_panic(self.try_narrow(axis, start, len))
    }

    /// `len` positions of axis `axis` from `start`.
    ///
    /// # Errors
    ///
    /// `Error::AxisOutOfRange` or `Error::Range`.
    pub fn try_narrow(self, axis: usize, start: usize, len: usize) -> Result<ArrayViewMut<'a, T, N, Strided, C>> {
        let g = self.raw.geometry().narrowed(axis, start, len)?;
        Ok(self.remap_strided(g))
    }

    /// The sub-array at position `index` of axis `axis`: rank `N - 1`.
    ///
    /// # Panics
    ///
    /// When out of bounds; [`ArrayViewMut::try_index_axis`] returns the error.
    #[track_caller]
    pub fn index_axis<const M: usize>(self, axis: usize, index: usize) -> ArrayViewMut<'a, T, M, Strided, C>
    where
        Rank<N>: Dec<Output = Rank<M>>,
    {
        or_panic(self.try_index_axis(axis, index))
    }

    /// The sub-array at position `index` of axis `axis`: rank `N - 1`.
    ///
    /// # Errors
    ///
    /// `Error::AxisOutOfRange` or `Error::IndexOutOfBounds`.
    pub fn try_index_axis<const M: usize>(self, axis: usize, index: usize) -> Result<ArrayViewMut<'a, T, M, Strided, C>>
    where
        Rank<N>: Dec<Output = Rank<M>>,
    {
        let g = self.raw.geometry().indexed(axis, index)?;
        Ok(self.remap_strided(g))
    }

    /// Axis `axis` walked backwards.
    ///
    /// # Panics
    ///
    /// When `axis >= N`; [`ArrayViewMut::try_flip`] returns the error.
    #[track_caller]
    pub fn flip(self, axis: usize) -> ArrayViewMut<'a, T, N, Strided, C> {
        or_panic(self.try_flip(axis))
    }

    /// Axis `axis` walked backwards.
    ///
    /// # Errors
    ///
    /// `Error::AxisOutOfRange`.
    pub fn try_flip(self, axis: usize) -> Result<ArrayViewMut<'a, T, N, Strided, C>> {
        let g = self.raw.geometry().flipped(axis)?;
        Ok(self.remap_strided(g))
    }

    /// Two disjoint mutable views: axis `axis` before and from `index`. Each can go to its own
    /// thread.
    ///
    /// ```
    /// use cnda::prelude::*;
    /// let mut a = Array::<i32, 2>::zeros([4, 3]);
    /// let (mut top, mut bottom) = a.view_mut().split_at(0, 2);
    /// std::thread::scope(|s| {
    ///     s.spawn(move || top.fill(1));
    ///     s.spawn(move || bottom.fill(2));
    /// });
    /// assert_eq!(a.as_slice(), &[1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2]);
    /// ```
    ///
    /// # Panics
    ///
    /// When out of bounds; [`ArrayViewMut::try_split_at`] returns the error.
    #[track_caller]
    pub fn split_at(self, axis: usize, index: usize) -> SplitMut<'a, T, N, C> {
        or_panic(self.try_split_at(axis, index))
    }

    /// Two disjoint mutable views: axis `axis` before and from `index`.
    ///
    /// # Errors
    ///
    /// `Error::AxisOutOfRange` or `Error::Range`.
    pub fn try_split_at(self, axis: usize, index: usize) -> Result<SplitMut<'a, T, N, C>> {
        let (first, second) = self.raw.geometry().split(axis, index)?;
        let raw = self.raw;
        let first = raw.remap(first)?;
        let second = raw.remap(second)?;
        // SAFETY: the halves cover disjoint position ranges of one axis of a view without repeated
        // elements, so they share no element; `self` is consumed.
        Ok(unsafe { (ArrayViewMut::from_raw(first), ArrayViewMut::from_raw(second)) })
    }

    /// Removes axis `axis`, which must have length 1.
    ///
    /// # Panics
    ///
    /// When the axis is out of range or its length is not 1; [`ArrayViewMut::try_squeeze`] returns the error instead.
    #[track_caller]
    pub fn squeeze<const M: usize>(self, axis: usize) -> ArrayViewMut<'a, T, M, L, C>
    where
        Rank<N>: Dec<Output = Rank<M>>,
    {
        or_panic(self.try_squeeze(axis))
    }

    /// Removes axis `axis`, which must have length 1.
    ///
    /// # Errors
    ///
    /// `Error::AxisOutOfRange` or `Error::Layout`.
    pub fn try_squeeze<const M: usize>(self, axis: usize) -> Result<ArrayViewMut<'a, T, M, L, C>>
    where
        Rank<N>: Dec<Output = Rank<M>>,
    {
        let g = self.raw.geometry().squeezed(axis)?;
        self.remap(g)
    }

    /// Inserts an axis of length 1 before `axis` (`axis == N` appends); layout kept, rank inferred.
    ///
    /// # Panics
    ///
    /// When `axis > N`, or when the layout cannot hold the new axis (appending to a `Padded`
    /// view, whose last axis must stay its contiguous rows); [`ArrayViewMut::try_unsqueeze`] returns
    /// the error instead.
    #[track_caller]
    pub fn unsqueeze<const M: usize>(self, axis: usize) -> ArrayViewMut<'a, T, M, L, C>
    where
        Rank<N>: Inc<Output = Rank<M>>,
    {
        or_panic(self.try_unsqueeze(axis))
    }

    /// Inserts an axis of length 1 before `axis` (`axis == N` appends).
    ///
    /// # Errors
    ///
    /// `Error::AxisOutOfRange` when `axis > N`; `Error::Layout` when the layout cannot express
    /// the result (`axis == N` on a `Padded` view).
    pub fn try_unsqueeze<const M: usize>(self, axis: usize) -> Result<ArrayViewMut<'a, T, M, L, C>>
    where
        Rank<N>: Inc<Output = Rank<M>>,
    {
        let g = self.raw.geometry().unsqueezed(axis)?;
        self.remap(g)
    }

    /// The region `spec` (built with `s![...]`) selects, mutably.
    ///
    /// # Panics
    ///
    /// When a bound is out of range or a step is zero; see [`ArrayViewMut::try_slice`].
    #[track_caller]
    pub fn slice<const M: usize, const CO: bool, const FO: bool>(
        self,
        spec: SliceSpec<N, M, CO, FO>,
    ) -> ArrayViewMut<'a, T, M, <L as SliceLayout<CO, FO>>::Out, C>
    where
        L: SliceLayout<CO, FO>,
    {
        or_panic(self.try_slice(spec))
    }

    /// The region `spec` selects, mutably.
    ///
    /// # Errors
    ///
    /// `Error::Range`, `Error::ZeroStep`, or `Error::Layout` for a wrong hand-built spec.
    pub fn try_slice<const M: usize, const CO: bool, const FO: bool>(
        self,
        spec: SliceSpec<N, M, CO, FO>,
    ) -> Result<ArrayViewMut<'a, T, M, <L as SliceLayout<CO, FO>>::Out, C>>
    where
        L: SliceLayout<CO, FO>,
    {
        let g = self.raw.geometry().sliced(spec.items())?;
        self.remap(g)
    }
}
