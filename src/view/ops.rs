//! The view algebra, written once for every access and backend: each op runs one function of
//! `geometry.rs` and re-describes the result in the layout its type promises (`t()` gives
//! `L::Reversed` with no run-time check). Ops take `self`: shared views are `Copy`, and a unique
//! view is consumed (reborrow with `view_mut()` to keep it). Broadcasting is for shared views
//! only (a stride-0 axis would let two indices write one element); `split_at` gives two shared
//! views or two disjoint unique ones. Owned arrays forward here (`array/views.rs`).
//!
//! Ops that can fail (an index, a shape or a layout the op cannot take) panic with the error's
//! message and have a `try_` twin that returns it (`reshape`/`try_reshape`, `permute`,
//! `broadcast_to`, `squeeze`, ...); `try_layout` has only the `Result` form.

use super::base::{Access, Shared, Unique, View};
use crate::check::BoundsCheck;
use crate::element::Pod;
use crate::error::Result;
use crate::geometry::Geometry;
use crate::kernel::{Backend, Cpu};
use crate::layout::{Layout, Strided};
use crate::rank::{BroadcastInto, Dec, Inc, Rank};
use crate::slice::{SliceLayout, SliceSpec};

pub(crate) use crate::error::or_panic;

/// Two shared parts of one view.
pub type Split<'a, T, const N: usize, C, B = Cpu> =
    (View<'a, T, N, Shared, B, Strided, C>, View<'a, T, N, Shared, B, Strided, C>);

/// Two mutable halves of one view.
pub type SplitMut<'a, T, const N: usize, C, B = Cpu> =
    (View<'a, T, N, Unique, B, Strided, C>, View<'a, T, N, Unique, B, Strided, C>);

impl<'a, T: Pod, const N: usize, A: Access, B: Backend, L: Layout, C: BoundsCheck> View<'a, T, N, A, B, L, C> {
    /// The elements `g` selects, as a view in layout `L2`.
    fn remap<const M: usize, L2: Layout>(self, g: Geometry<M>) -> Result<View<'a, T, M, A, B, L2, C>> {
        let raw = self.raw.remap(g)?;
        // SAFETY: `g` was derived from this view's geometry, so it selects elements this view may
        // access for 'a (see `RawParts::remap`); the generic ops never select an element twice
        // (broadcasting is `Shared`-only), so a unique view stays unique; `self` is consumed.
        Ok(unsafe { View::from_raw(raw) })
    }

    fn remap_strided<const M: usize>(self, g: Geometry<M>) -> View<'a, T, M, A, B, Strided, C> {
        self.remap(g).expect("Strided expresses every geometry")
    }

    /// The same view with its layout forgotten (`Strided`), for code that takes any layout.
    pub fn into_strided(self) -> View<'a, T, N, A, B, Strided, C> {
        let g = self.geometry();
        self.remap_strided(g)
    }

    /// The same view in layout `L2`, when its strides are `L2`'s (a run-time check, no copy):
    /// recovers a dense layout after ops that return `Strided`.
    ///
    /// ```
    /// use cnda::prelude::*;
    /// let a = Array::<f64, 2>::zeros([4, 3]);
    /// let rows = a.narrow(0, 1, 2);                       // Strided by type
    /// let rows: ArrayView<f64, 2, RowMajor> = rows.try_layout().unwrap();
    /// assert!(a.narrow(1, 1, 2).try_layout::<RowMajor>().is_err());
    /// ```
    ///
    /// # Errors
    ///
    /// `Error::Layout` when the strides are not `L2`'s.
    pub fn try_layout<L2: Layout>(self) -> Result<View<'a, T, N, A, B, L2, C>> {
        let g = self.geometry();
        self.remap(g)
    }

    /// All axes reversed (the transpose of a matrix). Row-major becomes column-major and back.
    pub fn t(self) -> View<'a, T, N, A, B, L::Reversed, C> {
        // SAFETY: the same elements, borrowed for the same 'a.
        unsafe { View::from_raw(self.raw.reversed()) }
    }

    /// Axes `a` and `b` swapped.
    ///
    /// # Panics
    ///
    /// When an axis is not below `N`; [`View::try_transpose`] returns the error instead.
    #[track_caller]
    pub fn transpose(self, a: usize, b: usize) -> View<'a, T, N, A, B, Strided, C> {
        or_panic(self.try_transpose(a, b))
    }

    /// Axes `a` and `b` swapped.
    ///
    /// # Errors
    ///
    /// `Error::AxisOutOfRange` when an axis is not below `N`.
    pub fn try_transpose(self, a: usize, b: usize) -> Result<View<'a, T, N, A, B, Strided, C>> {
        let g = self.geometry().transposed(a, b)?;
        Ok(self.remap_strided(g))
    }

    /// Axis `k` of the result is axis `axes[k]` of `self`. The arity is checked by the type.
    ///
    /// # Panics
    ///
    /// When `axes` is not a permutation of `0..N`; [`View::try_permute`] returns the error instead.
    #[track_caller]
    pub fn permute(self, axes: [usize; N]) -> View<'a, T, N, A, B, Strided, C> {
        or_panic(self.try_permute(axes))
    }

    /// Axis `k` of the result is axis `axes[k]` of `self`. The arity is checked by the type.
    ///
    /// # Errors
    ///
    /// `Error::InvalidAxes` when `axes` is not a permutation of `0..N`.
    pub fn try_permute(self, axes: [usize; N]) -> Result<View<'a, T, N, A, B, Strided, C>> {
        let g = self.geometry().permuted(axes)?;
        Ok(self.remap_strided(g))
    }

    /// The same elements, read in row-major order, as shape `shape`, without copying.
    ///
    /// # Panics
    ///
    /// When the element count differs or the strides cannot express the new shape; [`View::try_reshape`] returns the error instead.
    #[track_caller]
    pub fn reshape<const M: usize>(self, shape: [usize; M]) -> View<'a, T, M, A, B, L::Reshaped, C> {
        or_panic(self.try_reshape(shape))
    }

    /// The same elements, read in row-major order, as shape `shape`, without copying.
    ///
    /// # Errors
    ///
    /// `Error::LengthMismatch` when the element count differs; `Error::Layout` when the strides
    /// cannot express the new shape (a transposed view, say): `contiguous()` first.
    pub fn try_reshape<const M: usize>(self, shape: [usize; M]) -> Result<View<'a, T, M, A, B, L::Reshaped, C>> {
        let g = self.geometry().reshaped(shape)?;
        self.remap(g)
    }

    /// `len` positions of axis `axis` from `start`.
    ///
    /// # Panics
    ///
    /// When the axis or range is out of bounds; [`View::try_narrow`] returns the error.
    #[track_caller]
    pub fn narrow(self, axis: usize, start: usize, len: usize) -> View<'a, T, N, A, B, Strided, C> {
        or_panic(self.try_narrow(axis, start, len))
    }

    /// `len` positions of axis `axis` from `start`.
    ///
    /// # Errors
    ///
    /// `Error::AxisOutOfRange`, or `Error::Range` when `start + len` passes the end of the axis.
    pub fn try_narrow(self, axis: usize, start: usize, len: usize) -> Result<View<'a, T, N, A, B, Strided, C>> {
        let g = self.geometry().narrowed(axis, start, len)?;
        Ok(self.remap_strided(g))
    }

    /// The sub-array at position `index` of axis `axis`: rank `N - 1`, inferred.
    ///
    /// # Panics
    ///
    /// When the axis or index is out of bounds; [`View::try_index_axis`] returns the error.
    #[track_caller]
    pub fn index_axis<const M: usize>(self, axis: usize, index: usize) -> View<'a, T, M, A, B, Strided, C>
    where
        Rank<N>: Dec<Output = Rank<M>>,
    {
        or_panic(self.try_index_axis(axis, index))
    }

    /// The sub-array at position `index` of axis `axis`: rank `N - 1`, inferred.
    ///
    /// # Errors
    ///
    /// `Error::AxisOutOfRange` or `Error::IndexOutOfBounds`.
    pub fn try_index_axis<const M: usize>(self, axis: usize, index: usize) -> Result<View<'a, T, M, A, B, Strided, C>>
    where
        Rank<N>: Dec<Output = Rank<M>>,
    {
        let g = self.geometry().indexed(axis, index)?;
        Ok(self.remap_strided(g))
    }

    /// Axis `axis` walked backwards (a negative stride; no copy).
    ///
    /// # Panics
    ///
    /// When `axis >= N`; [`View::try_flip`] returns the error.
    #[track_caller]
    pub fn flip(self, axis: usize) -> View<'a, T, N, A, B, Strided, C> {
        or_panic(self.try_flip(axis))
    }

    /// Axis `axis` walked backwards.
    ///
    /// # Errors
    ///
    /// `Error::AxisOutOfRange`.
    pub fn try_flip(self, axis: usize) -> Result<View<'a, T, N, A, B, Strided, C>> {
        let g = self.geometry().flipped(axis)?;
        Ok(self.remap_strided(g))
    }

    /// Removes axis `axis`, which must have length 1; the layout is kept and the rank inferred.
    ///
    /// # Panics
    ///
    /// When the axis is out of range or its length is not 1; [`View::try_squeeze`] returns the error instead.
    #[track_caller]
    pub fn squeeze<const M: usize>(self, axis: usize) -> View<'a, T, M, A, B, L, C>
    where
        Rank<N>: Dec<Output = Rank<M>>,
    {
        or_panic(self.try_squeeze(axis))
    }

    /// Removes axis `axis`, which must have length 1; the layout is kept and the rank inferred.
    ///
    /// # Errors
    ///
    /// `Error::AxisOutOfRange`, or `Error::Layout` when the axis is not of length 1.
    pub fn try_squeeze<const M: usize>(self, axis: usize) -> Result<View<'a, T, M, A, B, L, C>>
    where
        Rank<N>: Dec<Output = Rank<M>>,
    {
        let g = self.geometry().squeezed(axis)?;
        self.remap(g)
    }

    /// Inserts an axis of length 1 before `axis` (`axis == N` appends); layout kept, rank inferred.
    ///
    /// # Panics
    ///
    /// When `axis > N`, or when the layout cannot hold the new axis (appending to a `Padded`
    /// view, whose last axis must stay its contiguous rows); [`View::try_unsqueeze`] returns
    /// the error instead.
    #[track_caller]
    pub fn unsqueeze<const M: usize>(self, axis: usize) -> View<'a, T, M, A, B, L, C>
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
    pub fn try_unsqueeze<const M: usize>(self, axis: usize) -> Result<View<'a, T, M, A, B, L, C>>
    where
        Rank<N>: Inc<Output = Rank<M>>,
    {
        let g = self.geometry().unsqueezed(axis)?;
        self.remap(g)
    }

    /// The region `spec` (built with `s![...]`) selects; rank and layout follow from the items.
    ///
    /// # Panics
    ///
    /// When a bound is out of range or a step is zero; [`View::try_slice`] returns the error.
    #[track_caller]
    pub fn slice<const M: usize, const CO: bool, const FO: bool>(
        self,
        spec: SliceSpec<N, M, CO, FO>,
    ) -> View<'a, T, M, A, B, <L as SliceLayout<CO, FO>>::Out, C>
    where
        L: SliceLayout<CO, FO>,
    {
        or_panic(self.try_slice(spec))
    }

    /// The region `spec` selects.
    ///
    /// # Errors
    ///
    /// `Error::Range` for bounds outside the axis, `Error::ZeroStep`, `Error::Layout` for a
    /// hand-built `SliceSpec` whose layout flags are wrong.
    pub fn try_slice<const M: usize, const CO: bool, const FO: bool>(
        self,
        spec: SliceSpec<N, M, CO, FO>,
    ) -> Result<View<'a, T, M, A, B, <L as SliceLayout<CO, FO>>::Out, C>>
    where
        L: SliceLayout<CO, FO>,
    {
        let g = self.geometry().sliced(spec.items())?;
        self.remap(g)
    }
}

/// Ops of shared views only: splits into two shared views, and broadcasting.
impl<'a, T: Pod, const N: usize, B: Backend, L: Layout, C: BoundsCheck> View<'a, T, N, Shared, B, L, C> {
    /// The parts of axis `axis` before and from `index`.
    ///
    /// # Panics
    ///
    /// When the axis is out of range or `index` past the axis; see [`View::try_split_at`].
    #[track_caller]
    pub fn split_at(self, axis: usize, index: usize) -> Split<'a, T, N, C, B> {
        or_panic(self.try_split_at(axis, index))
    }

    /// The parts of axis `axis` before and from `index`.
    ///
    /// # Errors
    ///
    /// `Error::AxisOutOfRange`, or `Error::Range` when `index` is past the end of the axis.
    pub fn try_split_at(self, axis: usize, index: usize) -> Result<Split<'a, T, N, C, B>> {
        let (first, second) = self.geometry().split(axis, index)?;
        Ok((self.remap_strided(first), self.remap_strided(second)))
    }

    /// A read-only view of shape `shape` that repeats this one along new leading axes and along
    /// its axes of length 1 (stride 0), following NumPy's rules. `M >= N` is checked by the type;
    /// the result has no `IndexMut`, so it cannot be written through.
    ///
    /// # Panics
    ///
    /// When the shapes do not broadcast or the result's element count overflows; [`View::try_broadcast_to`] returns the error instead.
    #[track_caller]
    pub fn broadcast_to<const M: usize>(self, shape: [usize; M]) -> View<'a, T, M, Shared, B, Strided, C>
    where
        Rank<N>: BroadcastInto<Rank<M>>,
    {
        or_panic(self.try_broadcast_to(shape))
    }

    /// A read-only view of shape `shape` that repeats this one along new leading axes and along
    /// its axes of length 1 (stride 0), following NumPy's rules. `M >= N` is checked by the type;
    /// the result has no `IndexMut`, so it cannot be written through.
    ///
    /// # Errors
    ///
    /// `Error::Broadcast` naming the first axis whose length is neither 1 nor the target's;
    /// `Error::Overflow` when the target's element count overflows or its bytes exceed
    /// `isize::MAX`.
    pub fn try_broadcast_to<const M: usize>(self, shape: [usize; M]) -> Result<View<'a, T, M, Shared, B, Strided, C>>
    where
        Rank<N>: BroadcastInto<Rank<M>>,
    {
        let g = self.geometry().broadcast(shape)?;
        // Not `remap_strided`: a broadcast's element count may overflow (`Error::Overflow`).
        self.remap(g)
    }
}

/// Ops of unique views only: splits into two disjoint unique views.
impl<'a, T: Pod, const N: usize, B: Backend, L: Layout, C: BoundsCheck> View<'a, T, N, Unique, B, L, C> {
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
    /// When out of bounds; [`View::try_split_at`] returns the error.
    #[track_caller]
    pub fn split_at(self, axis: usize, index: usize) -> SplitMut<'a, T, N, C, B> {
        or_panic(self.try_split_at(axis, index))
    }

    /// Two disjoint mutable views: axis `axis` before and from `index`.
    ///
    /// # Errors
    ///
    /// `Error::AxisOutOfRange` or `Error::Range`.
    pub fn try_split_at(self, axis: usize, index: usize) -> Result<SplitMut<'a, T, N, C, B>> {
        let (first, second) = self.raw.geometry().split(axis, index)?;
        let raw = self.raw;
        let first = raw.remap(first)?;
        let second = raw.remap(second)?;
        // SAFETY: the halves cover disjoint position ranges of one axis of a view without repeated
        // elements, so they share no element; `self` is consumed.
        Ok(unsafe { (View::from_raw(first), View::from_raw(second)) })
    }
}
