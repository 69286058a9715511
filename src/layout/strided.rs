//! Arbitrary `isize` strides: negative for flipped axes, zero for broadcast axes.

use super::{sealed::Sealed, Layout};

/// Layout with explicit per-axis strides, in elements.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Strided;

/// What a [`Strided`] array stores: its strides, in elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct StrideMeta<const N: usize> {
    strides: [isize; N],
}

impl<const N: usize> StrideMeta<N> {
    /// The strides, in elements.
    pub fn strides(&self) -> [isize; N] {
        self.strides
    }

    /// Metadata for these strides (any strides describe a `Strided` array).
    pub(crate) fn new(strides: [isize; N]) -> Self {
        StrideMeta { strides }
    }
}

impl Sealed for Strided {}

impl Layout for Strided {
    type Strides<const N: usize> = StrideMeta<N>;
    const NAME: &'static str = "Strided";
    const DENSE: bool = false;
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

    fn reversed_meta<const N: usize>(_: &[usize; N], meta: &StrideMeta<N>) -> StrideMeta<N> {
        let mut strides = meta.strides;
        strides.reverse();
        StrideMeta::new(strides)
    }

    fn from_strides<const N: usize>(_: &[usize; N], strides: &[isize; N]) -> Option<StrideMeta<N>> {
        Some(StrideMeta { strides: *strides })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flipped_axes_give_negative_offsets() {
        let meta = Strided::from_strides(&[3, 4], &[-4, 1]).unwrap();
        assert_eq!(Strided::offset(&[3, 4], &meta, &[2, 3]), -5);
        assert_eq!(Strided::strides(&[3, 4], &meta), [-4, 1]);
    }
}
