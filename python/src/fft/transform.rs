//! A call's transform on any backend, written once for NumPy arrays (on the CPU) and CUDA arrays
//! (on their device): the crops and zero pads of NumPy's `n` and `s`, a real input promoted to
//! complex for the complex transforms (zeros, then its values copied into the real parts' view;
//! a complex input is read where it lies), and the transform itself.

use cnda::fft::{self as transforms, FftFloat, FftKernels};
use cnda::layout::Strided;
use cnda::{Array, Complex, Pod, Shared, View};

use super::{Call, Transform};

/// A view of an operand as the transforms take it, on backend `B`.
pub type Source<'a, X, const N: usize, B> = View<'a, X, N, Shared, B, Strided>;

/// A transform's result: a spectrum, or real values (`irfftn`, the cosine and sine transforms).
pub enum Transformed<T: FftFloat, const N: usize, B: FftKernels> {
    Spectrum(Array<Complex<T>, N, B>),
    Real(Array<T, N, B>),
}

/// `call`'s transform of `v`, on `v`'s backend. A complex `S` only reaches complex transforms
/// (the callers refuse it for the others).
pub fn transformed<T: FftFloat, S: Transformable<T>, const N: usize, B: FftKernels>(
    v: Source<'_, S, N, B>,
    call: &Call<'_>,
) -> cnda::Result<Transformed<T, N, B>> {
    let norm = call.norm;
    let source = resized(v, call.resize)?;
    let v = source.as_ref().map_or(v, |s| s.view().into_strided());
    if call.transform.takes_complex() {
        let mut slot = None;
        let z = S::as_complex(v, &mut slot)?;
        return match &call.transform {
            Transform::Complex { axes, forward: true } => {
                transforms::try_fftn(z, axes, norm).map(Transformed::Spectrum)
            }
            Transform::Complex { axes, forward: false } => {
                transforms::try_ifftn(z, axes, norm).map(Transformed::Spectrum)
            }
            Transform::RealInverse { axes, n } => {
                let last = axes[axes.len() - 1];
                let n = n.unwrap_or(2 * z.shape()[last].saturating_sub(1));
                transforms::try_irfftn(z, axes, n, norm).map(Transformed::Real)
            }
            other => unreachable!("{other:?} takes a real input"),
        };
    }
    let x = S::as_real(v).expect("complex input to a real transform is refused before");
    match &call.transform {
        Transform::Real { axes } => transforms::try_rfftn(x, axes, norm).map(Transformed::Spectrum),
        &Transform::Trig { ref axes, cosine, ty, inverse } => match (cosine, inverse) {
            (true, false) => transforms::try_dctn(x, ty, axes, norm),
            (true, true) => transforms::try_idctn(x, ty, axes, norm),
            (false, false) => transforms::try_dstn(x, ty, axes, norm),
            (false, true) => transforms::try_idstn(x, ty, axes, norm),
        }
        .map(Transformed::Real),
        other => unreachable!("{other:?} takes a complex input"),
    }
}

/// The element types the transforms take: a real `T`, or `Complex<T>`.
pub trait Transformable<T: FftFloat>: Pod {
    /// `v` as complex numbers: `v` itself, or a new array in `slot` of its values with zero
    /// imaginary parts.
    fn as_complex<'a, const N: usize, B: FftKernels>(
        v: Source<'a, Self, N, B>,
        slot: &'a mut Option<Array<Complex<T>, N, B>>,
    ) -> cnda::Result<Source<'a, Complex<T>, N, B>>;

    /// `v` as real numbers, when it is.
    fn as_real<'a, const N: usize, B: FftKernels>(v: Source<'a, Self, N, B>) -> Option<Source<'a, T, N, B>>;
}

impl<T: FftFloat> Transformable<T> for T {
    fn as_complex<'a, const N: usize, B: FftKernels>(
        v: Source<'a, T, N, B>,
        slot: &'a mut Option<Array<Complex<T>, N, B>>,
    ) -> cnda::Result<Source<'a, Complex<T>, N, B>> {
        let mut z = Array::<Complex<T>, N, B>::try_zeros_in(&v.allocator(), v.shape())?;
        z.re_mut().try_assign(&v)?;
        Ok(slot.insert(z).view().into_strided())
    }

    fn as_real<'a, const N: usize, B: FftKernels>(v: Source<'a, T, N, B>) -> Option<Source<'a, T, N, B>> {
        Some(v)
    }
}

impl<T: FftFloat> Transformable<T> for Complex<T> {
    fn as_complex<'a, const N: usize, B: FftKernels>(
        v: Source<'a, Complex<T>, N, B>,
        _: &'a mut Option<Array<Complex<T>, N, B>>,
    ) -> cnda::Result<Source<'a, Complex<T>, N, B>> {
        Ok(v)
    }

    fn as_real<'a, const N: usize, B: FftKernels>(_: Source<'a, Complex<T>, N, B>) -> Option<Source<'a, T, N, B>> {
        None
    }
}

/// `v` cropped or zero-padded to `n` points along each `(axis, n)` of `resize` (NumPy's `n` and
/// `s`), on `v`'s backend; `None` when that changes nothing.
fn resized<X: Pod, const N: usize, B: FftKernels>(
    v: Source<'_, X, N, B>,
    resize: &[(usize, usize)],
) -> cnda::Result<Option<Array<X, N, B>>> {
    let mut shape = v.shape();
    for &(axis, n) in resize {
        shape[axis] = n;
    }
    if shape == v.shape() {
        return Ok(None);
    }
    let mut out = Array::try_zeros_in(&v.allocator(), shape)?;
    let (mut from, mut to) = (v, out.view_mut().into_strided());
    for (axis, &n) in shape.iter().enumerate() {
        let kept = n.min(from.shape()[axis]);
        from = from.try_narrow(axis, 0, kept)?;
        to = to.try_narrow(axis, 0, kept)?;
    }
    to.try_assign(&from)?;
    Ok(Some(out))
}
