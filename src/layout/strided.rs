//! Arbitrary `isize` strides: negative for flipped axes, zero for broadcast axes.

use super::{sealed::Sealed, Layout};
use crate::shape;

/// Layout with explicit per-axis strides, in elements.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Strided;

/// What a [`Strided`] array stores: its strides and the range of element offsets its elements
/// occupy (the footprint that the flat check of `Unchecked` access tests against).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct StrideMeta<const N: usize> {
    strides: [isize; N],
    /// Lowest reachable offset; `lo > hi` for an empty array.
    lo: isize,
    /// Highest reachable offset.
    hi: isize,
}

impl<const N: usize> StrideMeta<N> {
    /// The strides, in elements.
    pub fn strides(&self) -> [isize; N] {
        self.strides
    }
}

impl Sealed for Strided {}

impl Layout for Strided {
    type Strides<const N: usize> = StrideMeta<N>;
    const NAME: &'static str = "Strided";
    type Reversed = Strided;
    type Reshaped = Strided;

    #[inline]
    fn strides<const N: usize>(_: &[usize; N], meta: &StrideMeta<N>) -> [isize; N] {
        meta.strides
    }

    #[inline(always)]
    fn offset<const N: usize>(_: &[usize; N], meta: &StrideMeta<N>, index: &[usize; N]) -> isize {
        let mut offset = 0isize;
        let mut axis = 0;
        while axis < N {
            offset = offset.wrapping_add((index[axis] as isize).wrapping_mul(meta.strides[axis]));
            axis += 1;
        }
        offset
    }

    #[inline(always)]
    fn covers<const N: usize>(meta: &StrideMeta<N>, _len: usize, offset: isize) -> bool {
        meta.lo <= offset && offset <= meta.hi
    }

    fn from_strides<const N: usize>(shape: &[usize; N], strides: &[isize; N]) -> Option<StrideMeta<N>> {
        let (lo, hi) = shape::footprint(shape, strides).unwrap_or((0, -1));
        Some(StrideMeta { strides: *strides, lo, hi })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flipped_axis_covers_negative_offsets_only_within_the_footprint() {
        let meta = Strided::from_strides(&[3, 4], &[-4, 1]).unwrap();
        assert_eq!(Strided::offset(&[3, 4], &meta, &[2, 3]), -5);
        assert!(Strided::covers(&meta, 12, -8));
        assert!(Strided::covers(&meta, 12, 3));
        assert!(!Strided::covers(&meta, 12, 4));
        assert!(!Strided::covers(&meta, 12, -9));
    }

    #[test]
    fn empty_arrays_cover_nothing() {
        let meta = Strided::from_strides(&[0, 4], &[4, 1]).unwrap();
        assert!(!Strided::covers(&meta, 0, 0));
    }
}
