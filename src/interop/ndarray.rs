//! Zero-copy conversion between cnda views and `ndarray` views (feature `ndarray`): any strides
//! both ways, negative ones included (ndarray keeps flipped axes as inverted axes of a view with
//! non-negative strides, which the conversion rebuilds).

use ndarray::{Axis, Dim, Dimension, ShapeBuilder};

use crate::check::{BoundsCheck, DefaultCheck};
use crate::element::Pod;
use crate::error::{Error, Result};
use crate::layout::{Layout, Strided};
use crate::view::{ArrayView, ArrayViewMut};

/// The shape and strides of an ndarray view as cnda's rank-`N` arrays.
fn metadata<const N: usize>(op: &'static str, shape: &[usize], strides: &[isize]) -> Result<([usize; N], [isize; N])> {
    match (<[usize; N]>::try_from(shape), <[isize; N]>::try_from(strides)) {
        (Ok(shape), Ok(strides)) => Ok((shape, strides)),
        _ => Err(Error::Layout {
            op,
            reason: format!("the ndarray view has {} axes, the cnda view {N}", shape.len()),
            fix: "convert into a cnda view of the same rank (or reshape the ndarray view first)",
        }),
    }
}

impl<'a, T: Pod, const N: usize> ArrayView<'a, T, N, Strided, DefaultCheck> {
    /// A cnda view of the same elements as the ndarray view `v`, without copying.
    ///
    /// ```
    /// use cnda::prelude::*;
    ///
    /// let a = ndarray::Array2::from_shape_fn((3, 4), |(i, j)| (i * 4 + j) as f64);
    /// let v = ArrayView::<f64, 2>::from_ndarray(a.t().slice_move(ndarray::s![..;-1, ..])).unwrap();
    /// assert_eq!(v.shape(), [4, 3]);
    /// assert_eq!(v[[0, 1]], 7.0); // row 3 of the transpose, column 1
    /// ```
    ///
    /// # Errors
    ///
    /// `Error::Layout` when `v` does not have `N` axes.
    pub fn from_ndarray<D: Dimension>(v: ndarray::ArrayView<'a, T, D>) -> Result<Self> {
        let (shape, strides) = metadata::<N>("ArrayView::from_ndarray", v.shape(), v.strides())?;
        // SAFETY: an ndarray view guarantees every element its shape and strides reach from
        // `as_ptr` is valid and not written through another path for 'a.
        unsafe { ArrayView::from_raw_strided(v.as_ptr(), shape, strides) }
    }
}

impl<'a, T: Pod, const N: usize> ArrayViewMut<'a, T, N, Strided, DefaultCheck> {
    /// A mutable cnda view of the same elements as the ndarray view `v`, without copying.
    ///
    /// # Errors
    ///
    /// `Error::Layout` when `v` does not have `N` axes.
    pub fn from_ndarray<D: Dimension>(mut v: ndarray::ArrayViewMut<'a, T, D>) -> Result<Self> {
        let (shape, strides) = metadata::<N>("ArrayViewMut::from_ndarray", v.shape(), v.strides())?;
        // SAFETY: an ndarray mutable view reaches distinct elements, valid and exclusively
        // borrowed for 'a; `from_raw_strided` checks the rest.
        unsafe { ArrayViewMut::from_raw_strided(v.as_mut_ptr(), shape, strides) }
    }
}

/// ndarray's description of a cnda view: the pointer to its lowest element, the shape and the
/// strides' magnitudes, and which axes to invert after construction.
struct Flipped<const N: usize> {
    offset: isize,
    shape: Dim<[usize; N]>,
    strides: Dim<[usize; N]>,
    inverted: [bool; N],
}

fn flipped<const N: usize>(shape: [usize; N], strides: [isize; N]) -> Flipped<N>
where
    Dim<[usize; N]>: Dimension,
{
    let empty = shape.contains(&0);
    let (mut dim, mut abs) = (Dim::<[usize; N]>::default(), Dim::<[usize; N]>::default());
    let mut inverted = [false; N];
    let mut offset = 0isize;
    for k in 0..N {
        dim[k] = shape[k];
        abs[k] = strides[k].unsigned_abs();
        if strides[k] < 0 && !empty {
            inverted[k] = true;
            // The view's own offsets fit an isize (RawParts invariant).
            offset += (shape[k] as isize - 1) * strides[k];
        }
    }
    Flipped { offset, shape: dim, strides: abs, inverted }
}

impl<'a, T: Pod, const N: usize, L: Layout, C: BoundsCheck> ArrayView<'a, T, N, L, C>
where
    Dim<[usize; N]>: Dimension,
{
    /// An ndarray view of the same elements, without copying.
    ///
    /// ```
    /// use cnda::prelude::*;
    ///
    /// let a = Array::from_fn([2, 3], |[i, j]| (i * 3 + j) as f32);
    /// let t = a.t().to_ndarray();
    /// assert_eq!(t.shape(), &[3, 2]);
    /// assert_eq!(t[[2, 1]], 5.0);
    /// assert_eq!(a.flip(1).to_ndarray().row(0).to_vec(), [2.0, 1.0, 0.0]);
    /// ```
    pub fn to_ndarray(self) -> ndarray::ArrayView<'a, T, Dim<[usize; N]>> {
        let f = flipped(self.shape(), self.strides());
        // SAFETY: `f.offset` moves to the view's lowest element (0 when empty), inside its
        // allocation; from there the non-negative strides reach exactly the view's elements, which
        // are valid and unwritten for 'a; offsets fit an isize (RawParts invariant).
        let mut v = unsafe {
            ndarray::ArrayView::from_shape_ptr(f.shape.strides(f.strides), self.raw.ptr.wrapping_offset(f.offset))
        };
        for (k, _) in f.inverted.iter().enumerate().filter(|(_, &inv)| inv) {
            v.invert_axis(Axis(k));
        }
        v
    }
}

impl<'a, T: Pod, const N: usize, L: Layout, C: BoundsCheck> ArrayViewMut<'a, T, N, L, C>
where
    Dim<[usize; N]>: Dimension,
{
    /// A mutable ndarray view of the same elements, without copying.
    pub fn to_ndarray(self) -> ndarray::ArrayViewMut<'a, T, Dim<[usize; N]>> {
        let f = flipped(self.shape(), self.strides());
        // SAFETY: as in `ArrayView::to_ndarray`; this view's elements are distinct and exclusively
        // borrowed for 'a, and `self` is consumed.
        let mut v = unsafe {
            ndarray::ArrayViewMut::from_shape_ptr(f.shape.strides(f.strides), self.raw.ptr.wrapping_offset(f.offset))
        };
        for (k, _) in f.inverted.iter().enumerate().filter(|(_, &inv)| inv) {
            v.invert_axis(Axis(k));
        }
        v
    }
}
