//! Fortran order: the first axis varies fastest; no strides stored.

use super::{sealed::Sealed, Dense, Layout, RowMajor, Strided};
use crate::shape;

/// Column-major (F order) dense layout: element `[i, j]` of an `m x n` array sits at `i + j * m`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ColMajor;

impl Sealed for ColMajor {}

impl Layout for ColMajor {
    type Strides<const N: usize> = ();
    const NAME: &'static str = "ColMajor";
    const DENSE: bool = true;
    type Reversed = RowMajor;
    type Reshaped = Strided;

    #[inline]
    fn strides<const N: usize>(shape: &[usize; N], _: &()) -> [isize; N] {
        shape::col_major_strides(shape)
    }

    #[inline(always)]
    fn offset<const N: usize>(shape: &[usize; N], _: &(), index: &[usize; N]) -> isize {
        let mut offset = 0usize;
        let mut axis = N;
        while axis > 0 {
            axis -= 1;
            offset = offset.wrapping_mul(shape[axis]).wrapping_add(index[axis]);
        }
        offset as isize
    }

    fn reversed_meta<const N: usize>(_: &[usize; N], _: &()) {}

    fn from_strides<const N: usize>(shape: &[usize; N], strides: &[isize; N]) -> Option<()> {
        shape::matches_dense(shape, strides, &shape::col_major_strides(shape)).then_some(())
    }
}

impl Dense for ColMajor {
    const LAST_AXIS_FASTEST: bool = false;

    #[inline(always)]
    fn dense_meta<const N: usize>() {}
}
