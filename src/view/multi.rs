//! `multi_slice_mut`: several mutable regions of one view at once, checked to be disjoint.

use crate::check::BoundsCheck;
use crate::element::Pod;
use crate::error::or_panic;
use crate::error::{Error, Result};
use crate::geometry::Positions;
use crate::layout::{Layout, Strided};
use crate::slice::SliceSpec;
use crate::view::ArrayViewMut;

impl<'a, T: Pod, const N: usize, L: Layout, C: BoundsCheck> ArrayViewMut<'a, T, N, L, C> {
    /// `K` mutable views of the regions `specs` select, which must not overlap: the halves of a
    /// domain decomposition, or the red and black points of a Gauss-Seidel sweep.
    ///
    /// ```
    /// use cnda::prelude::*;
    /// let mut a = Array::<i32, 2>::zeros([4, 4]);
    /// let [mut red, mut black] = a.view_mut().multi_slice_mut([s![..;2, ..], s![1..;2, ..]]);
    /// red.fill(1);
    /// black.fill(2);
    /// assert_eq!(a.column(0).to_owned().as_slice(), &[1, 2, 1, 2]);
    /// ```
    ///
    /// # Panics
    ///
    /// When a spec is out of bounds or two regions may overlap;
    /// [`ArrayViewMut::try_multi_slice_mut`] returns the error instead.
    #[track_caller]
    pub fn multi_slice_mut<const M: usize, const CO: bool, const FO: bool, const K: usize>(
        self,
        specs: [SliceSpec<N, M, CO, FO>; K],
    ) -> [ArrayViewMut<'a, T, M, Strided, C>; K] {
        or_panic(self.try_multi_slice_mut(specs))
    }

    /// `K` mutable views of non-overlapping regions.
    ///
    /// # Errors
    ///
    /// As for `try_slice` per region; `Error::Layout` when two regions may share an element
    /// (they are disjoint when, on some axis, their positions provably never meet: the ranges
    /// do not overlap, or the steps keep them on different residues).
    pub fn try_multi_slice_mut<const M: usize, const CO: bool, const FO: bool, const K: usize>(
        self,
        specs: [SliceSpec<N, M, CO, FO>; K],
    ) -> Result<[ArrayViewMut<'a, T, M, Strided, C>; K]> {
        let shape = self.shape();
        let mut positions = Vec::with_capacity(K);
        for spec in &specs {
            let mut per_axis = [Positions::of(0, crate::slice::AxisSlice::FULL, 1)?; N];
            for (axis, (&item, &size)) in spec.items().iter().zip(&shape).enumerate() {
                per_axis[axis] = Positions::of(axis, item, size)?;
            }
            positions.push(per_axis);
        }
        for a in 0..K {
            for b in a + 1..K {
                let apart = (0..N).any(|axis| positions[a][axis].disjoint(positions[b][axis]));
                if !apart {
                    return Err(Error::Layout {
                        op: "multi_slice_mut",
                        reason: format!(
                            "regions {a} and {b} ({:?} and {:?}) may share elements",
                            specs[a].items(),
                            specs[b].items()
                        ),
                        fix: "give each region positions no other region has on at least one axis",
                    });
                }
            }
        }
        let raw = self.raw;
        let mut views = Vec::with_capacity(K);
        for spec in &specs {
            let g = raw.geometry().sliced(spec.items())?;
            let part = raw.remap::<M, Strided>(g)?;
            // SAFETY: each region selects elements of this uniquely borrowed view (no repeats, as
            // a mutable view has none), and the check above proved that no two regions share a
            // position on some axis, hence no element; `self` is consumed.
            views.push(unsafe { ArrayViewMut::from_raw(part) });
        }
        Ok(views.try_into().unwrap_or_else(|_| unreachable!("one view per spec")))
    }
}

impl<T: Pod, const N: usize, B: crate::kernel::HostAccessible, L: Layout, C: BoundsCheck> crate::Array<T, N, B, L, C> {
    /// Several mutable regions at once; see [`ArrayViewMut::multi_slice_mut`].
    #[track_caller]
    pub fn multi_slice_mut<const M: usize, const CO: bool, const FO: bool, const K: usize>(
        &mut self,
        specs: [SliceSpec<N, M, CO, FO>; K],
    ) -> [ArrayViewMut<'_, T, M, Strided, C>; K] {
        self.host_view_mut().multi_slice_mut(specs)
    }

    /// See [`ArrayViewMut::try_multi_slice_mut`].
    ///
    /// # Errors
    ///
    /// As for [`ArrayViewMut::try_multi_slice_mut`].
    pub fn try_multi_slice_mut<const M: usize, const CO: bool, const FO: bool, const K: usize>(
        &mut self,
        specs: [SliceSpec<N, M, CO, FO>; K],
    ) -> Result<[ArrayViewMut<'_, T, M, Strided, C>; K]> {
        self.host_view_mut().try_multi_slice_mut(specs)
    }
}
