//! Row-major with padded rows (C++26's `layout_right_padded`): the last axis is contiguous, and
//! consecutive rows start `pitch` elements apart, with `pitch` the row length rounded up so that
//! every row of an owned array starts on a 64-byte boundary.

use super::{sealed::Sealed, Layout, StrideMeta, Strided};

/// Row-major layout whose rows are `pitch` elements apart (`pitch >= row length`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Padded;

/// What a [`Padded`] array stores: the row pitch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PaddedMeta {
    pitch: usize,
}

impl PaddedMeta {
    /// Distance between the starts of consecutive rows, in elements.
    pub fn pitch(&self) -> usize {
        self.pitch
    }
}

/// The row pitch, in elements, that starts every row of `row_len` elements of `elem_size` bytes on
/// a 64-byte boundary: the smallest multiple of `64 / gcd(64, elem_size)` not below `row_len`.
pub(crate) fn aligned_pitch(row_len: usize, elem_size: usize) -> Option<usize> {
    let step = if elem_size == 0 { 1 } else { 64 / gcd(64, elem_size) };
    row_len.max(1).checked_next_multiple_of(step)
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

impl PaddedMeta {
    /// Metadata for rows `pitch` apart.
    pub(crate) fn new(pitch: usize) -> Self {
        PaddedMeta { pitch }
    }
}

impl Sealed for Padded {}

impl Layout for Padded {
    type Strides<const N: usize> = PaddedMeta;
    const NAME: &'static str = "Padded";
    const DENSE: bool = false;
    type Reversed = Strided;
    type Reshaped = Strided;

    fn strides<const N: usize>(shape: &[usize; N], meta: &PaddedMeta) -> [isize; N] {
        let mut strides = [0isize; N];
        if N == 0 {
            return strides;
        }
        strides[N - 1] = 1;
        let mut step = meta.pitch as isize;
        for axis in (0..N - 1).rev() {
            strides[axis] = step;
            step *= shape[axis] as isize;
        }
        strides
    }

    #[inline(always)]
    fn offset<const N: usize>(shape: &[usize; N], meta: &PaddedMeta, index: &[usize; N]) -> isize {
        if N == 0 {
            return 0;
        }
        // Horner over the row axes, then one multiply by the pitch: `i * pitch + j` in 2D.
        let mut row = 0usize;
        let mut axis = 0;
        while axis + 1 < N {
            row = row.wrapping_mul(shape[axis]).wrapping_add(index[axis]);
            axis += 1;
        }
        row.wrapping_mul(meta.pitch).wrapping_add(index[N - 1]) as isize
    }

    fn reversed_meta<const N: usize>(shape: &[usize; N], meta: &PaddedMeta) -> StrideMeta<N> {
        let mut strides = Self::strides(shape, meta);
        strides.reverse();
        StrideMeta::new(strides)
    }

    fn from_strides<const N: usize>(shape: &[usize; N], strides: &[isize; N]) -> Option<PaddedMeta> {
        if N == 0 {
            return Some(PaddedMeta::new(1));
        }
        let row_len = shape[N - 1];
        // The pitch is the stride of the innermost row axis that has more than one position.
        let mut pitch = row_len.max(1);
        let mut below = 1usize;
        for axis in (0..N - 1).rev() {
            if shape[axis] > 1 {
                let s = strides[axis];
                if s <= 0 || s as usize % below != 0 {
                    return None;
                }
                pitch = s as usize / below;
                break;
            }
            below *= shape[axis].max(1);
        }
        if pitch < row_len {
            return None;
        }
        let meta = PaddedMeta::new(pitch);
        let expected = Self::strides(shape, &meta);
        let fits = shape.contains(&0) || (0..N).all(|axis| shape[axis] == 1 || strides[axis] == expected[axis]);
        fits.then_some(meta)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pitches_round_rows_to_cache_lines() {
        assert_eq!(aligned_pitch(4095, 8), Some(4096));
        assert_eq!(aligned_pitch(8, 8), Some(8));
        assert_eq!(aligned_pitch(17, 4), Some(32));
        assert_eq!(aligned_pitch(5, 3), Some(64)); // 3-byte elements: 64 elements per 192 bytes
        assert_eq!(aligned_pitch(0, 8), Some(8));
    }

    #[test]
    fn offsets_skip_the_padding() {
        let meta = PaddedMeta::new(8);
        assert_eq!(Padded::offset(&[3, 5], &meta, &[2, 4]), 20);
        assert_eq!(Padded::strides(&[2, 3, 5], &meta), [24, 8, 1]);
    }

    #[test]
    fn strides_round_trip() {
        let meta = Padded::from_strides(&[3, 5], &[8, 1]).unwrap();
        assert_eq!(meta.pitch(), 8);
        assert!(Padded::from_strides(&[3, 5], &[4, 1]).is_none(), "pitch below the row length");
        assert!(Padded::from_strides(&[3, 5], &[8, 2]).is_none(), "rows not contiguous");
        assert_eq!(Padded::from_strides(&[2, 3, 5], &[24, 8, 1]).unwrap().pitch(), 8);
        assert!(Padded::from_strides(&[2, 3, 5], &[25, 8, 1]).is_none());
    }
}
