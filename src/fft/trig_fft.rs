//! The cosine and sine transforms of every type, built from the Fourier transforms for backends
//! without a trigonometric transform of their own (CUDA, WebGPU): `FftKernels`' provided
//! `trig_axis`. Each lane is extended to a sequence a Fourier transform diagonalizes,
//! transformed, and read back through the complex values' real and imaginary parts
//! ([`complex_parts`]), with copies and elementwise products on the device:
//!
//! - DST-I of `n` points: the odd extension `[0, x, 0, -reverse(x)]` of period `2 (n + 1)`;
//!   `y_k = -Im Y_(k+1)`.
//! - DCT-I: the even extension `[x, reverse(x_1 .. x_(n-2))]` of period `2 (n - 1)`;
//!   `y_k = Re Y_k`.
//! - DCT-II: the even extension `[x, reverse(x)]` of period `2n`; `y_k = Re(e^(-i π k / 2n) Y_k)`.
//! - DCT-III (DCT-II's inverse): the half spectrum `Z_j = x_j e^(i π j / 2n)` (`Z_n = 0`), whose
//!   unnormalized inverse real transform of `2n` points holds `y` in its first `n`.
//! - DCT-IV: the complex transform of `2n` points of `x_j e^(-i π j / 2n)` (zeros past `n`);
//!   `y_k = Re(e^(-i π (2k + 1) / 4n) Y_k)`.
//! - DST-II, III and IV from the cosine transform of their type: DST-II is the reversed DCT-II
//!   of `(-1)^j x_j`, DST-III and DST-IV are `(-1)^k` times the DCT-III and DCT-IV of the
//!   reversed `x`.
//!
//! SciPy's scaling and `Ortho` end weights are applied as on the CPU.

use num_complex::Complex;

use super::kernels::FftKernels;
use super::trig::{DctType, Family, Weights};
use super::{complex_in_place, real_along, real_inverse_along, FftFloat, Norm};
use crate::array::Array;
use crate::error::Result;
use crate::kernel::tokens::{Add, Mul, ScalarRight};
use crate::kernel::{complex_parts, Allocator, Desc};
use crate::ops::output::fresh;
use crate::ops::transfer::upload;

/// `d` narrowed to `len` points from `start` along `axis`.
fn narrowed<B: FftKernels, X: crate::element::Pod, const N: usize>(
    mut d: Desc<B, X, N>,
    axis: usize,
    start: usize,
    len: usize,
) -> Desc<B, X, N> {
    d.handle = B::moved(d.handle, start as isize * d.strides[axis]);
    d.shape[axis] = len;
    d
}

/// `d` with `axis` reversed.
fn reversed<B: FftKernels, X: crate::element::Pod, const N: usize>(mut d: Desc<B, X, N>, axis: usize) -> Desc<B, X, N> {
    d.handle = B::moved(d.handle, (d.shape[axis] as isize - 1) * d.strides[axis]);
    d.strides[axis] = -d.strides[axis];
    d
}

/// A zeroed row-major array of `shape` on `x`'s backend and device.
fn zeros_like<B: FftKernels, T: crate::element::Pod, X: crate::element::Pod, const N: usize>(
    op: &'static str,
    x: &Desc<B, X, N>,
    shape: [usize; N],
    zero: T,
) -> Result<Array<T, N, B>> {
    let alloc = B::allocator_of_handle(x.handle);
    let dev = alloc.device();
    // SAFETY: the fill writes every element of the fresh array.
    unsafe { fresh(&alloc, op, shape, |out| B::fill(&dev, out, zero)) }
}

/// `values` (one per point along `axis`) on `x`'s device, as a descriptor of `shape` that
/// repeats them along every other axis (strides zero).
fn along_axis<B: FftKernels, T: FftFloat, const N: usize>(
    x: &Desc<B, T, N>,
    values: &[T],
    shape: [usize; N],
    axis: usize,
) -> Result<(Array<T, 1, B>, Desc<B, T, N>)> {
    let line = upload(&B::allocator_of_handle(x.handle), values, [values.len()])?;
    let mut strides = [0isize; N];
    strides[axis] = 1;
    let desc = Desc { handle: line.desc().handle, shape, strides };
    Ok((line, desc))
}

/// The cosines and sines of `π k / (2n)` for `k < n`.
fn quarter_turns<T: FftFloat>(n: usize) -> (Vec<T>, Vec<T>) {
    let angle = |k: usize| core::f64::consts::PI * k as f64 / (2 * n) as f64;
    let from = <T as crate::element::Float>::from_f64;
    ((0..n).map(|k| from(angle(k).cos())).collect(), (0..n).map(|k| from(angle(k).sin())).collect())
}

/// The cosines and sines of `π (2k + 1) / (4n)` for `k < n`.
fn half_quarter_turns<T: FftFloat>(n: usize) -> (Vec<T>, Vec<T>) {
    let angle = |k: usize| core::f64::consts::PI * (2 * k + 1) as f64 / (4 * n) as f64;
    let from = <T as crate::element::Float>::from_f64;
    ((0..n).map(|k| from(angle(k).cos())).collect(), (0..n).map(|k| from(angle(k).sin())).collect())
}

/// Every other hyperplane of `x` along `axis` from the second negated: `x_j (-1)^j`.
///
/// # Safety
///
/// As [`trig_axis`].
unsafe fn alternate<B: FftKernels, T: FftFloat, const N: usize>(
    dev: &B::Device,
    x: Desc<B, T, N>,
    axis: usize,
) -> Result<()> {
    let n = x.shape[axis];
    if n < 2 {
        return Ok(());
    }
    let mut odd = narrowed::<B, T, N>(x, axis, 1, n / 2);
    odd.strides[axis] = 2 * x.strides[axis];
    // SAFETY: the odd hyperplanes of the caller's `x` (each once).
    unsafe { B::update_unary(dev, ScalarRight(Mul, -T::ONE), odd) }
}

/// `x` reversed along `axis`, in place (through a copy).
///
/// # Safety
///
/// As [`trig_axis`].
unsafe fn reverse<B: FftKernels, T: FftFloat, const N: usize>(
    dev: &B::Device,
    op: &'static str,
    x: Desc<B, T, N>,
    axis: usize,
) -> Result<()> {
    let mut copy = zeros_like(op, &x, x.shape, T::ZERO)?;
    let c = copy.desc_mut();
    // SAFETY: the fresh copy from the caller's `x`, then `x` from the copy (apart).
    unsafe {
        B::copy(dev, c, reversed::<B, T, N>(x, axis))?;
        B::copy(dev, x, c)
    }
}

/// The dense row-major `x` transformed along `axis` in place: the transform of `kind` or its
/// inverse, scaled as SciPy's under `norm`.
///
/// # Safety
///
/// `x` is dense row-major, live and writable on `dev`, `x.shape[axis] >= 1`.
pub(super) unsafe fn trig_axis<B: FftKernels, T: FftFloat, const N: usize>(
    dev: &B::Device,
    op: &'static str,
    x: Desc<B, T, N>,
    axis: usize,
    (family, ty): (Family, DctType),
    norm: Norm,
    inverse: bool,
) -> Result<()> {
    let n = x.shape[axis];
    let computed = if inverse { ty.inverse() } else { ty };
    let weights = Weights::<T>::new(family, computed, n, norm, inverse);
    // The weights before the transform, on `x` itself (the callers' own copy).
    for (point, factor) in weights.before_points(n) {
        // SAFETY: one hyperplane of the caller's `x`.
        unsafe { B::update_unary(dev, ScalarRight(Mul, factor), narrowed::<B, T, N>(x, axis, point, 1)) }?;
    }
    // SAFETY: the caller's contract, passed on to each transform.
    unsafe {
        match (family, computed) {
            (Family::Sine, DctType::I) => dst1(dev, op, x, axis)?,
            (Family::Cosine, DctType::I) => dct1(dev, op, x, axis)?,
            (Family::Cosine, DctType::II) => dct2(dev, op, x, axis)?,
            (Family::Cosine, DctType::III) => dct3(dev, op, x, axis)?,
            (Family::Cosine, DctType::IV) => dct4(dev, op, x, axis)?,
            (Family::Sine, DctType::II) => {
                alternate(dev, x, axis)?;
                dct2(dev, op, x, axis)?;
                reverse(dev, op, x, axis)?
            }
            (Family::Sine, DctType::III) => {
                reverse(dev, op, x, axis)?;
                dct3(dev, op, x, axis)?;
                alternate(dev, x, axis)?
            }
            (Family::Sine, DctType::IV) => {
                reverse(dev, op, x, axis)?;
                dct4(dev, op, x, axis)?;
                alternate(dev, x, axis)?
            }
        }
    }
    // SAFETY: all of `x`, then hyperplanes of it.
    unsafe { B::update_unary(dev, ScalarRight(Mul, weights.scale()), x) }?;
    for (point, factor) in weights.after_points(n) {
        // SAFETY: as above.
        unsafe { B::update_unary(dev, ScalarRight(Mul, factor), narrowed::<B, T, N>(x, axis, point, 1)) }?;
    }
    Ok(())
}

/// rustdct's unnormalized DST-I of `x`'s lanes (half of SciPy's), in place.
///
/// # Safety
///
/// As [`trig_axis`].
unsafe fn dst1<B: FftKernels, T: FftFloat, const N: usize>(
    dev: &B::Device,
    op: &'static str,
    x: Desc<B, T, N>,
    axis: usize,
) -> Result<()> {
    let n = x.shape[axis];
    let mut shape = x.shape;
    shape[axis] = 2 * (n + 1);
    let mut odd = zeros_like(op, &x, shape, T::ZERO)?;
    let e = odd.desc_mut();
    let tail = narrowed::<B, T, N>(e, axis, n + 2, n);
    // SAFETY: regions of the fresh extension, from the caller's `x`.
    unsafe {
        B::copy(dev, narrowed::<B, T, N>(e, axis, 1, n), x)?;
        B::copy(dev, tail, reversed::<B, T, N>(x, axis))?;
        B::update_unary(dev, ScalarRight(Mul, -T::ONE), tail)?;
    }
    let spectrum = real_along(op, odd.desc(), axis, Norm::Backward)?;
    let imaginary = complex_parts::<T, Complex<T>, B, N>(spectrum.desc())[1];
    // SAFETY: `x` from the spectrum's imaginary parts (another array); halved and negated:
    // rustdct's convention, which the weights scale back.
    unsafe {
        B::copy(dev, x, narrowed::<B, T, N>(imaginary, axis, 1, n))?;
        B::update_unary(dev, ScalarRight(Mul, -T::ONE / (T::ONE + T::ONE)), x)
    }
}

/// rustdct's unnormalized DCT-II of `x`'s lanes (half of SciPy's), in place.
///
/// # Safety
///
/// As [`trig_axis`].
unsafe fn dct2<B: FftKernels, T: FftFloat, const N: usize>(
    dev: &B::Device,
    op: &'static str,
    x: Desc<B, T, N>,
    axis: usize,
) -> Result<()> {
    let n = x.shape[axis];
    let mut shape = x.shape;
    shape[axis] = 2 * n;
    let mut even = zeros_like(op, &x, shape, T::ZERO)?;
    let e = even.desc_mut();
    // SAFETY: the two halves of the fresh extension, from the caller's `x`.
    unsafe {
        B::copy(dev, narrowed::<B, T, N>(e, axis, 0, n), x)?;
        B::copy(dev, narrowed::<B, T, N>(e, axis, n, n), reversed::<B, T, N>(x, axis))?;
    }
    let spectrum = real_along(op, even.desc(), axis, Norm::Backward)?;
    // SAFETY: the caller's `x`, from the spectrum's parts (another array); halved: rustdct's
    // convention.
    unsafe {
        turned_real(dev, op, x, spectrum.desc(), quarter_turns::<T>(n), axis)?;
        B::update_unary(dev, ScalarRight(Mul, T::ONE / (T::ONE + T::ONE)), x)
    }
}

/// `x = Re(e^(-i θ_k) Z_k) = Re Z_k cos θ_k + Im Z_k sin θ_k` for the first `x.shape[axis]` values
/// `Z` of `spectrum` along `axis`, `(cos, sin)` the angles' cosines and sines.
///
/// # Safety
///
/// As [`trig_axis`] for `x`; `spectrum` is live on `dev`, of `x`'s shape but at least as long
/// along `axis`, and apart from `x`.
unsafe fn turned_real<B: FftKernels, T: FftFloat, const N: usize>(
    dev: &B::Device,
    op: &'static str,
    x: Desc<B, T, N>,
    spectrum: Desc<B, Complex<T>, N>,
    (cos, sin): (Vec<T>, Vec<T>),
    axis: usize,
) -> Result<()> {
    let n = x.shape[axis];
    let [re, im] = complex_parts::<T, Complex<T>, B, N>(spectrum).map(|p| narrowed::<B, T, N>(p, axis, 0, n));
    let (_c, c) = along_axis(&x, &cos, x.shape, axis)?;
    let (_s, s) = along_axis(&x, &sin, x.shape, axis)?;
    let mut products = zeros_like(op, &x, x.shape, T::ZERO)?;
    let p = products.desc_mut();
    // SAFETY: `x` and `products` written from the spectrum's parts and the factors (other
    // arrays); then `x` plus `products`, apart.
    unsafe {
        B::binary(dev, Mul, x, re, c)?;
        B::binary(dev, Mul, p, im, s)?;
        B::update(dev, Add, x, p)
    }
}

/// rustdct's unnormalized DCT-III of `x`'s lanes (half of SciPy's), in place.
///
/// # Safety
///
/// As [`trig_axis`].
unsafe fn dct3<B: FftKernels, T: FftFloat, const N: usize>(
    dev: &B::Device,
    op: &'static str,
    x: Desc<B, T, N>,
    axis: usize,
) -> Result<()> {
    let n = x.shape[axis];
    let mut shape = x.shape;
    shape[axis] = n + 1;
    let mut half = zeros_like(op, &x, shape, Complex::new(T::ZERO, T::ZERO))?;
    let [re, im] = complex_parts::<T, Complex<T>, B, N>(half.desc_mut()).map(|p| narrowed::<B, T, N>(p, axis, 0, n));
    let (cos, sin) = quarter_turns::<T>(n);
    let (_c, c) = along_axis(&x, &cos, x.shape, axis)?;
    let (_s, s) = along_axis(&x, &sin, x.shape, axis)?;
    // SAFETY: the fresh half spectrum's parts from `x` and the factors.
    unsafe {
        B::binary(dev, Mul, re, x, c)?;
        B::binary(dev, Mul, im, x, s)?;
    }
    let signal = real_inverse_along(op, half.desc(), 2 * n, axis, Norm::Forward)?;
    // SAFETY: `x` from the first `n` points of the signal (another array); halved: rustdct's
    // convention.
    unsafe {
        B::copy(dev, x, narrowed::<B, T, N>(signal.desc(), axis, 0, n))?;
        B::update_unary(dev, ScalarRight(Mul, T::ONE / (T::ONE + T::ONE)), x)
    }
}

/// rustdct's unnormalized DCT-I of `x`'s lanes (half of SciPy's), in place; `n >= 2` (the
/// callers refuse one point).
///
/// # Safety
///
/// As [`trig_axis`].
unsafe fn dct1<B: FftKernels, T: FftFloat, const N: usize>(
    dev: &B::Device,
    op: &'static str,
    x: Desc<B, T, N>,
    axis: usize,
) -> Result<()> {
    let n = x.shape[axis];
    let mut shape = x.shape;
    shape[axis] = 2 * (n - 1);
    let mut even = zeros_like(op, &x, shape, T::ZERO)?;
    let e = even.desc_mut();
    // SAFETY: the two parts of the fresh extension, from the caller's `x`.
    unsafe {
        B::copy(dev, narrowed::<B, T, N>(e, axis, 0, n), x)?;
        if n > 2 {
            let inner = narrowed::<B, T, N>(x, axis, 1, n - 2);
            B::copy(dev, narrowed::<B, T, N>(e, axis, n, n - 2), reversed::<B, T, N>(inner, axis))?;
        }
    }
    let spectrum = real_along(op, even.desc(), axis, Norm::Backward)?;
    let real = narrowed::<B, T, N>(complex_parts::<T, Complex<T>, B, N>(spectrum.desc())[0], axis, 0, n);
    // SAFETY: `x` from the spectrum's real parts (another array); halved: rustdct's convention.
    unsafe {
        B::copy(dev, x, real)?;
        B::update_unary(dev, ScalarRight(Mul, T::ONE / (T::ONE + T::ONE)), x)
    }
}

/// rustdct's unnormalized DCT-IV of `x`'s lanes (half of SciPy's), in place.
///
/// # Safety
///
/// As [`trig_axis`].
unsafe fn dct4<B: FftKernels, T: FftFloat, const N: usize>(
    dev: &B::Device,
    op: &'static str,
    x: Desc<B, T, N>,
    axis: usize,
) -> Result<()> {
    let n = x.shape[axis];
    let mut shape = x.shape;
    shape[axis] = 2 * n;
    let mut z = zeros_like(op, &x, shape, Complex::new(T::ZERO, T::ZERO))?;
    let [re, im] = complex_parts::<T, Complex<T>, B, N>(z.desc_mut()).map(|p| narrowed::<B, T, N>(p, axis, 0, n));
    let (cos, sin) = quarter_turns::<T>(n);
    let (_c, c) = along_axis(&x, &cos, x.shape, axis)?;
    let (_s, s) = along_axis(&x, &sin, x.shape, axis)?;
    // SAFETY: the fresh sequence's parts from `x` and the factors: `x_j e^(-i π j / 2n)`.
    unsafe {
        B::binary(dev, Mul, re, x, c)?;
        B::binary(dev, Mul, im, x, s)?;
        B::update_unary(dev, ScalarRight(Mul, -T::ONE), im)?;
    }
    complex_in_place(op, &mut z, axis, Norm::Backward, true)?;
    // SAFETY: the caller's `x`, from the transform (another array): `Re(e^(-i π (2k + 1) / 4n) Y_k)`.
    unsafe { turned_real(dev, op, x, z.desc(), half_quarter_turns::<T>(n), axis) }
}
