//! Discrete Fourier transforms (feature `fft`), with NumPy's names, arguments and `norm` modes:
//! [`fft`], [`ifft`], [`fftn`], [`ifftn`] of complex arrays, [`rfft`], [`irfft`], [`rfftn`],
//! [`irfftn`] between real arrays and their half spectra, the sample frequencies [`fftfreq`],
//! [`rfftfreq`]; the real-to-real cosine and sine transforms of types I to IV with SciPy's
//! definitions ([`dct`], [`idct`], [`dst`], [`idst`], [`dctn`], [`idctn`], [`dstn`], [`idstn`];
//! see [`DctType`]); and [`solve_box`], the direct solve of Poisson's and Helmholtz's equations
//! on grids whose axes are periodic, walled or mirrored ([`solve_periodic`] for periodic ones),
//! also as a preconditioner of the Krylov solvers ([`BoxPreconditioner`]), and with feature
//! `mpi` on distributed grids (`solve_box_dist`, by pencil transposes).
//!
//! Any length (rustfft: mixed radix, Rader and Bluestein for large primes; realfft for the real
//! transforms; rustdct for the cosine and sine ones), along any axis or set of axes of any rank, from arrays and views of any layout
//! (the input is read once into the result's row-major order, never modified). Plans are made
//! once per length and type for the whole process; batches of lanes run on rayon's threads. On
//! the CPU, real lanes of odd length and cosine and sine lanes of types II and III (lengths of 5
//! or more, not a power of two) go two through one complex transform, where realfft and rustdct
//! would take one: each lane keeps an error relative to its own size, and a lane that is zero,
//! not finite or near overflow goes alone, so that it changes no other lane's result.
//! The Fourier transforms are written once for every backend with [`FftKernels`]: with feature
//! `cuda` they take CUDA arrays and views too and run cuFFT's batched plans there (loaded at run
//! time, kept per layout on the device); with feature `wgpu`, WebGPU arrays, through cnda's
//! radix-2 Stockham shaders and Bluestein's algorithm for other lengths (f32, and f64 on adapters
//! with `SHADER_F64`). Transforms return new row-major arrays on their input's
//! backend; complex elements are [`Complex<f32>`](Complex) and `Complex<f64>` (num-complex,
//! re-exported at the crate root). The cosine and sine transforms of every type run on every
//! backend too (on CUDA and WebGPU built from the Fourier transforms), and so do [`solve_box`]
//! and [`solve_periodic`], and [`BoxPreconditioner`] preconditions the Krylov solvers there.
//!
//! On CUDA, a missing cuFFT library is `Error::Device`; a lane layout past cuFFT's 32-bit sizes
//! (an axis times the axes after it beyond 2^31 elements) is `Error::Parameter`. On WebGPU, work
//! arrays past the adapter's binding size or 2^31 floats are `Error::Alloc` or `Error::Device`.
//!
//! ```
//! use cnda::prelude::*;
//! use cnda::fft::{fft, ifft, rfft, irfft, Norm};
//! use cnda::Complex;
//!
//! let x = Array::from_fn([8], |[i]| Complex::new(i as f64, 0.0));
//! let spectrum = fft(&x, 0, Norm::Backward);
//! assert_eq!(spectrum[[0]], Complex::new(28.0, 0.0)); // the sum
//! let back = ifft(&spectrum, 0, Norm::Backward);
//! assert!((back[[3]] - x[[3]]).norm() < 1e-12);
//!
//! // A real signal's half spectrum, and back to its 6 points.
//! let s = Array::from_fn([4, 6], |[i, j]| (i * 6 + j) as f32);
//! let half = rfft(&s, 1, Norm::Ortho);
//! assert_eq!(half.shape(), [4, 4]);
//! let again = irfft(&half, 6, 1, Norm::Ortho);
//! assert!((again[[2, 5]] - s[[2, 5]]).abs() < 1e-4);
//! ```
//!
//! **Scaling** ([`Norm`], NumPy's `norm`): `Backward` (the default) leaves the forward transform
//! unscaled and divides the inverse by `n`; `Ortho` scales both by `1 / sqrt(n)`; `Forward`
//! divides the forward one by `n`. An n-dimensional transform scales by the product of its
//! axes' lengths.
//!
//! **Arguments** follow NumPy's but for its `n` and `s` of the forward transforms (slice or pad
//! the input first); [`irfft`] and [`irfftn`] take the output length along the (last) real axis,
//! `irfftn` after the axes.
//!
//! **Errors**: an axis beyond the rank is `Error::AxisOutOfRange`; an axis of length zero, an
//! empty or repeated list of axes, or an output length of zero is `Error::Parameter`; a result or
//! scratch the host (or the device) cannot allocate is `Error::Alloc` (`Error::Overflow` for a
//! size past `usize`). Each function panics with the error's message at the caller's line; its `try_` twin
//! returns it. A plan is made once per length and kept for the life of the process; rustfft and
//! realfft allocate their plans' tables without a fallible path, so a length whose tables the
//! host cannot hold (several times the length in complex values for a large prime) aborts there.

mod cpu;
#[cfg(feature = "cuda")]
mod cuda;
#[cfg(feature = "mpi")]
mod dist;
#[cfg(feature = "mpi")]
mod hartley;
mod kernels;
mod lanes;
mod plans;
mod poisson;
mod precond;
mod real_pairs;
mod trig;
mod trig_fft;
mod trig_pairs;
#[cfg(feature = "wgpu")]
mod wgpu;

use num_complex::Complex;

#[cfg(feature = "mpi")]
pub use dist::{solve_box_dist, try_solve_box_dist};
pub use kernels::FftKernels;
pub use plans::FftFloat;
pub use poisson::{solve_box, solve_periodic, try_solve_box, try_solve_periodic, Laplacian};
pub use precond::BoxPreconditioner;
pub use trig::{
    dct, dctn, dst, dstn, idct, idctn, idst, idstn, try_dct, try_dctn, try_dst, try_dstn, try_idct, try_idctn,
    try_idst, try_idstn, DctType,
};

use crate::array::Array;
use crate::element::{Arithmetic, Pod};
use crate::error::{or_panic, Error, Result};
use crate::kernel::{Allocator, CopyKernels, Desc};
use crate::ops::operand::AsOperand;
use crate::ops::output::fresh;

/// How a transform is scaled: NumPy's `norm` argument.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Norm {
    /// The forward transform unscaled, the inverse divided by `n` (NumPy's default).
    #[default]
    Backward,
    /// Both directions scaled by `1 / sqrt(n)`: the transform is unitary.
    Ortho,
    /// The forward transform divided by `n`, the inverse unscaled.
    Forward,
}

impl Norm {
    /// The factor of a forward or inverse transform of `n` points; `None` for none.
    fn factor<T: FftFloat>(self, n: usize, forward: bool) -> Option<T> {
        match (self, forward) {
            (Norm::Backward, true) | (Norm::Forward, false) => None,
            (Norm::Backward, false) | (Norm::Forward, true) => Some(T::ONE / count::<T>(n)),
            (Norm::Ortho, _) => Some(T::ONE / count::<T>(n).sqrt()),
        }
    }
}

/// The transform of `a` along `axis` (`X[k] = sum_j x[j] e^(-2 pi i j k / n)`, scaled as `norm`
/// says): NumPy's `np.fft.fft(a, axis=axis, norm=...)`.
///
/// # Panics
///
/// As [`try_fft`] errs.
#[track_caller]
pub fn fft<T: FftFloat, const N: usize, B: FftKernels>(
    a: impl AsOperand<Complex<T>, N, B>,
    axis: usize,
    norm: Norm,
) -> Array<Complex<T>, N, B> {
    or_panic(try_fft(a, axis, norm))
}

/// [`fft`], returning errors.
///
/// # Errors
///
/// See the [module](self).
pub fn try_fft<T: FftFloat, const N: usize, B: FftKernels>(
    a: impl AsOperand<Complex<T>, N, B>,
    axis: usize,
    norm: Norm,
) -> Result<Array<Complex<T>, N, B>> {
    complex_along_each("fft", &a, &[axis], norm, true)
}

/// The inverse transform of `a` along `axis` (`x[j] = sum_k X[k] e^(2 pi i j k / n)`, divided
/// by `n` under the default `norm`): NumPy's `np.fft.ifft`.
///
/// # Panics
///
/// As [`try_ifft`] errs.
#[track_caller]
pub fn ifft<T: FftFloat, const N: usize, B: FftKernels>(
    a: impl AsOperand<Complex<T>, N, B>,
    axis: usize,
    norm: Norm,
) -> Array<Complex<T>, N, B> {
    or_panic(try_ifft(a, axis, norm))
}

/// [`ifft`], returning errors.
///
/// # Errors
///
/// See the [module](self).
pub fn try_ifft<T: FftFloat, const N: usize, B: FftKernels>(
    a: impl AsOperand<Complex<T>, N, B>,
    axis: usize,
    norm: Norm,
) -> Result<Array<Complex<T>, N, B>> {
    complex_along_each("ifft", &a, &[axis], norm, false)
}

/// The transform of `a` along each of `axes` (NumPy's `np.fft.fftn(a, axes=axes)`, `fft2` for
/// two of them).
///
/// # Panics
///
/// As [`try_fftn`] errs.
#[track_caller]
pub fn fftn<T: FftFloat, const N: usize, B: FftKernels>(
    a: impl AsOperand<Complex<T>, N, B>,
    axes: &[usize],
    norm: Norm,
) -> Array<Complex<T>, N, B> {
    or_panic(try_fftn(a, axes, norm))
}

/// [`fftn`], returning errors.
///
/// # Errors
///
/// See the [module](self).
pub fn try_fftn<T: FftFloat, const N: usize, B: FftKernels>(
    a: impl AsOperand<Complex<T>, N, B>,
    axes: &[usize],
    norm: Norm,
) -> Result<Array<Complex<T>, N, B>> {
    complex_along_each("fftn", &a, axes, norm, true)
}

/// The inverse of [`fftn`] (NumPy's `np.fft.ifftn`, `ifft2` for two axes).
///
/// # Panics
///
/// As [`try_ifftn`] errs.
#[track_caller]
pub fn ifftn<T: FftFloat, const N: usize, B: FftKernels>(
    a: impl AsOperand<Complex<T>, N, B>,
    axes: &[usize],
    norm: Norm,
) -> Array<Complex<T>, N, B> {
    or_panic(try_ifftn(a, axes, norm))
}

/// [`ifftn`], returning errors.
///
/// # Errors
///
/// See the [module](self).
pub fn try_ifftn<T: FftFloat, const N: usize, B: FftKernels>(
    a: impl AsOperand<Complex<T>, N, B>,
    axes: &[usize],
    norm: Norm,
) -> Result<Array<Complex<T>, N, B>> {
    complex_along_each("ifftn", &a, axes, norm, false)
}

/// The half spectrum of the real array `a` along `axis`: the `n / 2 + 1` non-negative
/// frequencies of its transform (the others are their conjugates). NumPy's `np.fft.rfft`.
///
/// # Panics
///
/// As [`try_rfft`] errs.
#[track_caller]
pub fn rfft<T: FftFloat, const N: usize, B: FftKernels>(
    a: impl AsOperand<T, N, B>,
    axis: usize,
    norm: Norm,
) -> Array<Complex<T>, N, B> {
    or_panic(try_rfft(a, axis, norm))
}

/// [`rfft`], returning errors.
///
/// # Errors
///
/// See the [module](self).
pub fn try_rfft<T: FftFloat, const N: usize, B: FftKernels>(
    a: impl AsOperand<T, N, B>,
    axis: usize,
    norm: Norm,
) -> Result<Array<Complex<T>, N, B>> {
    checked_axes("rfft", &[axis], N)?;
    with_row_major("rfft", &a, |x| real_along("rfft", x, axis, norm))
}

/// The real array of `n` points along `axis` whose half spectrum is `a` (NumPy's
/// `np.fft.irfft(a, n, axis)`): `a`'s first `n / 2 + 1` values along the axis, zeros past its
/// end; the imaginary parts of the zero frequency (and of the last one for even `n`) are
/// ignored, as NumPy ignores them. `n` is usually the length the spectrum came from
/// (`2 (m - 1)` or `2 m - 1` for `m` values): it cannot be told from `a` alone.
///
/// # Panics
///
/// As [`try_irfft`] errs.
#[track_caller]
pub fn irfft<T: FftFloat, const N: usize, B: FftKernels>(
    a: impl AsOperand<Complex<T>, N, B>,
    n: usize,
    axis: usize,
    norm: Norm,
) -> Array<T, N, B> {
    or_panic(try_irfft(a, n, axis, norm))
}

/// [`irfft`], returning errors.
///
/// # Errors
///
/// See the [module](self).
pub fn try_irfft<T: FftFloat, const N: usize, B: FftKernels>(
    a: impl AsOperand<Complex<T>, N, B>,
    n: usize,
    axis: usize,
    norm: Norm,
) -> Result<Array<T, N, B>> {
    checked_axes("irfft", &[axis], N)?;
    output_length("irfft", n)?;
    with_row_major("irfft", &a, |x| real_inverse_along("irfft", x, n, axis, norm))
}

/// The real transform along the last of `axes`, then the complex one along the others
/// (NumPy's `np.fft.rfftn(a, axes=axes)`, `rfft2` for two).
///
/// # Panics
///
/// As [`try_rfftn`] errs.
#[track_caller]
pub fn rfftn<T: FftFloat, const N: usize, B: FftKernels>(
    a: impl AsOperand<T, N, B>,
    axes: &[usize],
    norm: Norm,
) -> Array<Complex<T>, N, B> {
    or_panic(try_rfftn(a, axes, norm))
}

/// [`rfftn`], returning errors.
///
/// # Errors
///
/// See the [module](self).
pub fn try_rfftn<T: FftFloat, const N: usize, B: FftKernels>(
    a: impl AsOperand<T, N, B>,
    axes: &[usize],
    norm: Norm,
) -> Result<Array<Complex<T>, N, B>> {
    let op = "rfftn";
    let (&last, rest) = checked_axes(op, axes, N)?;
    let mut x = with_row_major(op, &a, |x| real_along(op, x, last, norm))?;
    for &axis in rest.iter().rev() {
        complex_in_place(op, &mut x, axis, norm, true)?;
    }
    Ok(x)
}

/// The inverse of [`rfftn`]: the complex inverse along all of `axes` but the last, then
/// [`irfft`] to `n` points along the last (NumPy's `np.fft.irfftn(a, s, axes)` with `s` the
/// lengths of the others unchanged).
///
/// # Panics
///
/// As [`try_irfftn`] errs.
#[track_caller]
pub fn irfftn<T: FftFloat, const N: usize, B: FftKernels>(
    a: impl AsOperand<Complex<T>, N, B>,
    axes: &[usize],
    n: usize,
    norm: Norm,
) -> Array<T, N, B> {
    or_panic(try_irfftn(a, axes, n, norm))
}

/// [`irfftn`], returning errors.
///
/// # Errors
///
/// See the [module](self).
pub fn try_irfftn<T: FftFloat, const N: usize, B: FftKernels>(
    a: impl AsOperand<Complex<T>, N, B>,
    axes: &[usize],
    n: usize,
    norm: Norm,
) -> Result<Array<T, N, B>> {
    let op = "irfftn";
    let (&last, rest) = checked_axes(op, axes, N)?;
    output_length(op, n)?;
    if rest.is_empty() {
        return with_row_major(op, &a, |x| real_inverse_along(op, x, n, last, norm));
    }
    let mut x = row_major(op, a.operand_desc())?;
    for &axis in rest.iter().rev() {
        complex_in_place(op, &mut x, axis, norm, false)?;
    }
    real_inverse_along(op, x.desc(), n, last, norm)
}

/// The sample frequencies of a transform of `n` points `d` apart, in its order: `0, 1, ..,
/// (n - 1) / 2, -(n / 2), .., -1`, each divided by `n d` (NumPy's `np.fft.fftfreq`). `n = 0`
/// gives an empty array (NumPy raises); `d` must be non-zero (else infinities).
pub fn fftfreq<T: FftFloat>(n: usize, d: T) -> Array<T, 1> {
    let scale = T::ONE / (count::<T>(n) * d);
    Array::from_fn([n], |[k]| match k < n.div_ceil(2) {
        true => count::<T>(k) * scale,
        false => -(count::<T>(n - k) * scale),
    })
}

/// The sample frequencies of [`rfft`]'s `n / 2 + 1` values: `0, 1, .., n / 2`, each divided by
/// `n d` (NumPy's `np.fft.rfftfreq`). `n = 0` gives an empty array (NumPy raises); `d` must be
/// non-zero.
pub fn rfftfreq<T: FftFloat>(n: usize, d: T) -> Array<T, 1> {
    let scale = T::ONE / (count::<T>(n) * d);
    let len = if n == 0 { 0 } else { n / 2 + 1 };
    Array::from_fn([len], |[k]| count::<T>(k) * scale)
}

/// The elements of `src` in a new row-major array on its backend (from the allocator of its
/// handle: the system's on the host, its device's elsewhere).
fn row_major<B: CopyKernels, T: Pod, const N: usize>(op: &'static str, src: Desc<B, T, N>) -> Result<Array<T, N, B>> {
    let alloc = B::allocator_of_handle(src.handle);
    let dev = alloc.device();
    // SAFETY: the copy writes every element of the fresh array; `src` describes a live operand
    // borrowed for the call (`AsOperand`'s contract), distinct from it.
    unsafe { fresh(&alloc, op, src.shape, |out| B::copy(&dev, out, src)) }
}

/// `f(x)` with `x` describing `a`'s elements in dense row-major order: its own memory when it
/// lies so, else a copy.
fn with_row_major<B: CopyKernels, T: Pod, const N: usize, R>(
    op: &'static str,
    a: &impl AsOperand<T, N, B>,
    f: impl FnOnce(Desc<B, T, N>) -> Result<R>,
) -> Result<R> {
    let src = a.operand_desc();
    // Checked: a broadcast view's extents may multiply past `usize` (the copy then refuses it).
    let len = crate::shape::element_count(&src.shape).unwrap_or(0);
    if len > 0 && src.is_contiguous() {
        return f(src);
    }
    let copy = row_major(op, src)?;
    f(copy.desc())
}

/// The length of `axis` of `shape`, which must exist and hold a point.
fn length<const N: usize>(op: &'static str, shape: [usize; N], axis: usize) -> Result<usize> {
    let Some(&n) = shape.get(axis) else { return Err(Error::AxisOutOfRange { op, axis, rank: N }) };
    if n == 0 {
        return Err(Error::Parameter {
            op,
            reason: format!("axis {axis} of shape {shape:?} has no points, and a transform needs at least one"),
            fix: "transform an axis of length 1 or more (slice the array, or pick another axis)",
        });
    }
    Ok(n)
}

/// `axes` split into its last and the others, after checking that it names distinct axes below
/// `rank`, at least one.
fn checked_axes<'a>(op: &'static str, axes: &'a [usize], rank: usize) -> Result<(&'a usize, &'a [usize])> {
    if let Some(&axis) = axes.iter().find(|&&a| a >= rank) {
        return Err(Error::AxisOutOfRange { op, axis, rank });
    }
    let repeated = axes.iter().enumerate().any(|(k, a)| axes[..k].contains(a));
    let fix = "name each axis to transform once, at least one (all of them: `&[0, 1, .., N - 1]`)";
    match axes.split_last() {
        Some(split) if !repeated => Ok(split),
        Some(_) => {
            Err(Error::Parameter { op, reason: format!("the axes {axes:?} are not a list of distinct axes"), fix })
        }
        None => Err(Error::Parameter { op, reason: "no axes to transform along (the list is empty)".into(), fix }),
    }
}

/// The complex transform of `a` along each of `axes`, the last first (as NumPy orders them).
fn complex_along_each<B: FftKernels, T: FftFloat, const N: usize>(
    op: &'static str,
    a: &impl AsOperand<Complex<T>, N, B>,
    axes: &[usize],
    norm: Norm,
    forward: bool,
) -> Result<Array<Complex<T>, N, B>> {
    let (&last, rest) = checked_axes(op, axes, N)?;
    let mut x = row_major(op, a.operand_desc())?;
    for &axis in core::iter::once(&last).chain(rest.iter().rev()) {
        complex_in_place(op, &mut x, axis, norm, forward)?;
    }
    Ok(x)
}

/// The complex transform of the row-major `x` along `axis`, in place.
fn complex_in_place<B: FftKernels, T: FftFloat, const N: usize>(
    op: &'static str,
    x: &mut Array<Complex<T>, N, B>,
    axis: usize,
    norm: Norm,
    forward: bool,
) -> Result<()> {
    let n = length(op, x.shape(), axis)?;
    let d = x.desc_mut();
    // SAFETY: `d` is the dense row-major array `x`, borrowed uniquely; `n >= 1`.
    unsafe { B::complex_axis(&B::handle_device(d.handle), op, d, axis, forward, norm.factor(n, forward)) }
}

/// The half spectrum along `axis` of the real, dense row-major `x`.
fn real_along<B: FftKernels, T: FftFloat, const N: usize>(
    op: &'static str,
    x: Desc<B, T, N>,
    axis: usize,
    norm: Norm,
) -> Result<Array<Complex<T>, N, B>> {
    let n = length(op, x.shape, axis)?;
    let mut half = x.shape;
    half[axis] = n / 2 + 1;
    let alloc = B::allocator_of_handle(x.handle);
    let dev = alloc.device();
    // SAFETY: the kernel writes every element of the fresh `out`; `x` is live and dense (an
    // operand borrowed for the call, or a copy).
    unsafe { fresh(&alloc, op, half, |out| B::real_axis(&dev, op, x, out, axis, norm.factor(n, true))) }
}

/// The real signal of `n` points along `axis` whose half spectrum is the dense row-major `x`.
fn real_inverse_along<B: FftKernels, T: FftFloat, const N: usize>(
    op: &'static str,
    x: Desc<B, Complex<T>, N>,
    n: usize,
    axis: usize,
    norm: Norm,
) -> Result<Array<T, N, B>> {
    length(op, x.shape, axis)?;
    output_length(op, n)?;
    let mut signal_shape = x.shape;
    signal_shape[axis] = n;
    let alloc = B::allocator_of_handle(x.handle);
    let dev = alloc.device();
    // SAFETY: as in `real_along`; the result is allocated first, so a length the memory cannot
    // hold is refused before it is planned.
    unsafe {
        fresh(&alloc, op, signal_shape, |out| B::real_inverse_axis(&dev, op, x, out, axis, norm.factor(n, false)))
    }
}

/// An output length of at least one point.
fn output_length(op: &'static str, n: usize) -> Result<()> {
    if n == 0 {
        return Err(Error::Parameter {
            op,
            reason: "an output of 0 points along the axis".into(),
            fix: "ask for the length the spectrum came from: 2 (m - 1) or 2 m - 1 points for m values",
        });
    }
    Ok(())
}

/// `n` as a `T` (rounded).
fn count<T: FftFloat>(n: usize) -> T {
    <T as Arithmetic>::from_usize(n)
}

/// A realfft refusal (its buffers are sized here, and the imaginary parts it checks are
/// cleared): a defect of this module if it ever comes.
pub(super) fn realfft_error(op: &'static str, e: realfft::FftError) -> Error {
    Error::Parameter {
        op,
        reason: format!("the real transform refused its buffers: {e}"),
        fix: "report this as a bug of cnda",
    }
}
