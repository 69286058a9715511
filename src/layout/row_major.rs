//! C order: the last axis varies fastest; no strides stored.

use super::{sealed::Sealed, ColMajor, Dense, Layout};
use crate::shape;

/// Row-major (C order) dense layout: element `[i, j]` of an `m x n` array sits at `i * n + j`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct RowMajor;

impl Sealed for RowMajor {}

impl Layout for RowMajor {
    type Strides<const N: usize> = ();
    const NAME: &'static str = "RowMajor";
    const DENSE: bool = true;
    type Reversed = ColMajor;
    type Reshaped = RowMajor;

    #[inline]
    fn strides<const N: usize>(shape: &[usize; N], _: &()) -> [isize; N] {
        shape::row_major_strides(shape)
    }

    #[inline(always)]
    fn offset<const N: usize>(shape: &[usize; N], _: &(), index: &[usize; N]) -> isize {
        // Horner's scheme over a constant N unrolls to `i * n + j` in 2D: no stride loads.
        let mut offset = 0usize;
        let mut axis = 0;
        while axis < N {
            offset = offset.wrapping_mul(shape[axis]).wrapping_add(index[axis]);
            axis += 1;
        }
        offset as isize
    }

    fn reversed_meta<const N: usize>(_: &[usize; N], _: &()) {}

    fn from_strides<const N: usize>(shape: &[usize; N], strides: &[isize; N]) -> Option<()> {
        shape::matches_dense(shape, strides, &shape::row_major_strides(shape)).then_some(())
    }
}

impl Dense for RowMajor {
    const LAST_AXIS_FASTEST: bool = true;

    #[inline(always)]
    fn dense_meta<const N: usize>() {}
}
