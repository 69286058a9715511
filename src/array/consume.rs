//! Consuming view ops on owned arrays: the buffer is kept and re-described, on any backend (these
//! touch metadata only). They run the same `geometry.rs` functions as the view ops, and panic on
//! bad input (with `#[track_caller]`, at the caller's line); they have no `try_` forms, because a
//! failed consuming op would drop the array: check first with the borrowing view form
//! (`a.view().try_slice(..)`, `try_reshape`, ...), which fails without consuming.

use super::Array;
use crate::check::BoundsCheck;
use crate::element::Pod;
use crate::error::or_panic;
use crate::geometry::Geometry;
use crate::kernel::Backend;
use crate::layout::{Layout, Strided};
use crate::rank::{Dec, Inc, Rank};
use crate::slice::{SliceLayout, SliceSpec};

impl<T: Pod, const N: usize, B: Backend, L: Layout, C: BoundsCheck> Array<T, N, B, L, C> {
    fn geometry(&self) -> Geometry<N> {
        Geometry::new(self.shape, self.strides())
    }

    /// The same buffer under geometry `g`, which must select a subset of this array's elements
    /// without repeating any (every op below except broadcasting, which owned arrays lack).
    #[track_caller]
    fn regeometry<const M: usize, L2: Layout>(self, g: Geometry<M>) -> Array<T, M, B, L2, C> {
        let meta = or_panic(g.meta::<L2>());
        // A subset of this array's elements: the count cannot exceed `self.len`.
        let len = crate::shape::element_count(&g.shape).unwrap_or(usize::MAX);
        debug_assert!(len <= self.len);
        // An empty selection's offset may point anywhere; keep the old one, which is in the buffer.
        let offset = if len == 0 { self.offset } else { self.offset.wrapping_add(g.offset) };
        Array { buf: self.buf, offset, shape: g.shape, meta, len, check: self.check }
    }

    /// All axes reversed, keeping the buffer: a row-major array becomes a column-major one.
    pub fn into_t(self) -> Array<T, N, B, L::Reversed, C> {
        let meta = L::reversed_meta(&self.shape, &self.meta);
        let mut shape = self.shape;
        shape.reverse();
        Array { buf: self.buf, offset: self.offset, shape, meta, len: self.len, check: self.check }
    }

    /// Axes `a` and `b` swapped.
    ///
    /// # Panics
    ///
    /// When an axis is not below `N`.
    #[track_caller]
    pub fn into_transposed(self, a: usize, b: usize) -> Array<T, N, B, Strided, C> {
        let g = or_panic(self.geometry().transposed(a, b));
        self.regeometry(g)
    }

    /// Axis `k` of the result is axis `axes[k]` of `self`.
    ///
    /// # Panics
    ///
    /// When `axes` is not a permutation of `0..N`.
    #[track_caller]
    pub fn into_permuted(self, axes: [usize; N]) -> Array<T, N, B, Strided, C> {
        let g = or_panic(self.geometry().permuted(axes));
        self.regeometry(g)
    }

    /// The same elements, in row-major order, as shape `shape`.
    ///
    /// # Panics
    ///
    /// When the element count differs or the strides cannot express the shape.
    #[track_caller]
    pub fn into_reshaped<const M: usize>(self, shape: [usize; M]) -> Array<T, M, B, L::Reshaped, C> {
        let g = or_panic(self.geometry().reshaped(shape));
        self.regeometry(g)
    }

    /// Axis `axis` walked backwards.
    ///
    /// # Panics
    ///
    /// When `axis >= N`.
    #[track_caller]
    pub fn into_flipped(self, axis: usize) -> Array<T, N, B, Strided, C> {
        let g = or_panic(self.geometry().flipped(axis));
        self.regeometry(g)
    }

    /// The region `spec` selects; the rest of the buffer stays allocated until the array drops.
    ///
    /// # Panics
    ///
    /// When a bound is out of range or a step is zero.
    #[track_caller]
    pub fn into_sliced<const M: usize, const CO: bool, const FO: bool>(
        self,
        spec: SliceSpec<N, M, CO, FO>,
    ) -> Array<T, M, B, <L as SliceLayout<CO, FO>>::Out, C>
    where
        L: SliceLayout<CO, FO>,
    {
        let g = or_panic(self.geometry().sliced(spec.items()));
        self.regeometry(g)
    }

    /// Axis `axis`, of length 1, removed; layout kept, rank inferred.
    ///
    /// # Panics
    ///
    /// When the axis does not exist or is not of length 1, or when the layout cannot express the
    /// result (the last axis of a `Padded` array, whose rows must stay the last axis). Check
    /// first with `a.view().try_squeeze(axis)`, which borrows instead of consuming.
    #[track_caller]
    pub fn into_squeezed<const M: usize>(self, axis: usize) -> Array<T, M, B, L, C>
    where
        Rank<N>: Dec<Output = Rank<M>>,
    {
        let g = or_panic(self.geometry().squeezed(axis));
        self.regeometry(g)
    }

    /// A new axis of length 1 before `axis`; layout kept, rank inferred.
    ///
    /// # Panics
    ///
    /// When `axis > N`, or when the layout cannot express the result (`axis == N` on a
    /// `Padded` array). Check first with `a.view().try_unsqueeze(axis)`.
    #[track_caller]
    pub fn into_unsqueezed<const M: usize>(self, axis: usize) -> Array<T, M, B, L, C>
    where
        Rank<N>: Inc<Output = Rank<M>>,
    {
        let g = or_panic(self.geometry().unsqueezed(axis));
        self.regeometry(g)
    }
}
