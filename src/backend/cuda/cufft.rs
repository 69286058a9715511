//! cuFFT (loaded at run time) for the transforms on CUDA (`fft::FftKernels`, implemented in
//! `src/fft/cuda.rs` over these): each axis of a dense row-major array as batched rank-1 plans
//! of cuFFT's advanced layout (`calls`: rows in one call, columns per block or per lane
//! position). Real transforms whose real data would not be aligned as cuFFT's complex type (odd
//! offsets) go through the complex transform instead. Plans are kept per layout in the device
//! (a bounded cache). Scaling is one elementwise pass after the transform.

use core::any::TypeId;
use core::ffi::c_int;

use cudarc::cufft::{result as cufft, sys as cufft_sys};
use num_complex::Complex;

pub(crate) use super::copy::parts;
use super::device::{device_error, CudaDevice};
use super::{Cuda, CudaBuffer, CudaPtr};
use crate::element::{Float, Pod};
use crate::error::{Error, Result};
use crate::kernel::tokens::{Mul, ScalarRight};
use crate::kernel::{CopyKernels, Desc, ElementwiseKernels};

/// One cuFFT plan of rank 1: the transform type, the length, and the layouts (stride, distance)
/// of its input and output, and how many lanes.
#[derive(Clone, Copy, Debug, Hash, PartialEq, Eq)]
pub(crate) struct PlanKey {
    kind: cufft_sys::cufftType,
    n: c_int,
    input: (c_int, c_int),
    output: (c_int, c_int),
    batch: c_int,
}

impl PlanKey {
    /// A new cuFFT plan of this layout.
    pub(crate) fn plan(&self) -> core::result::Result<cufft_sys::cufftHandle, cufft::CufftError> {
        let mut n = [self.n];
        // Non-null embeddings select the advanced layout (rank 1 reads none of their entries).
        let (mut inembed, mut onembed) = ([self.n], [self.n]);
        // SAFETY: one int at each pointer, as a plan of rank 1 reads.
        unsafe {
            cufft::plan_many(
                1,
                n.as_mut_ptr(),
                inembed.as_mut_ptr(),
                self.input.0,
                self.input.1,
                onembed.as_mut_ptr(),
                self.output.0,
                self.output.1,
                self.kind,
                self.batch,
            )
        }
    }
}

/// The transform types of `T`: complex, real to complex, complex to real (`f32` and `f64`
/// only, as cuFFT's).
fn kinds<T: Float>(op: &'static str) -> Result<[cufft_sys::cufftType; 3]> {
    use cufft_sys::cufftType::*;
    if TypeId::of::<T>() == TypeId::of::<f32>() {
        Ok([CUFFT_C2C, CUFFT_R2C, CUFFT_C2R])
    } else if TypeId::of::<T>() == TypeId::of::<f64>() {
        Ok([CUFFT_Z2Z, CUFFT_D2Z, CUFFT_Z2D])
    } else {
        Err(Error::UnsupportedDType {
            op,
            got: core::any::type_name::<T>().into(),
            fix: "cuFFT transforms f32 and f64 (and their complex numbers); convert first",
        })
    }
}

/// `v` as one of cuFFT's 32-bit sizes.
fn size(op: &'static str, v: usize) -> Result<c_int> {
    c_int::try_from(v).map_err(|_| Error::Parameter {
        op,
        reason: format!("a lane layout of {v} elements exceeds cuFFT's 32-bit plan sizes"),
        fix: "transform the array in slices of fewer than 2^31 elements along the other axes",
    })
}

/// Runs `kind`'s execution of `plan` from `input` to `output` (device addresses).
///
/// # Safety
///
/// The addresses hold the plan's lanes, live on the plan's device and stream.
unsafe fn execute(
    plan: cufft_sys::cufftHandle,
    kind: cufft_sys::cufftType,
    input: u64,
    output: u64,
    forward: bool,
) -> core::result::Result<(), cufft::CufftError> {
    use cufft_sys::cufftType::*;
    let direction = if forward { -1 } else { 1 };
    // SAFETY: the caller's contract; each call gets the element types its plan was made for.
    unsafe {
        match kind {
            CUFFT_C2C => cufft::exec_c2c(plan, input as *mut _, output as *mut _, direction),
            CUFFT_Z2Z => cufft::exec_z2z(plan, input as *mut _, output as *mut _, direction),
            CUFFT_R2C => cufft::exec_r2c(plan, input as *mut _, output as *mut _),
            CUFFT_D2Z => cufft::exec_d2z(plan, input as *mut _, output as *mut _),
            CUFFT_C2R => cufft::exec_c2r(plan, input as *mut _, output as *mut _),
            CUFFT_Z2D => cufft::exec_z2d(plan, input as *mut _, output as *mut _),
        }
    }
}

/// One cuFFT call: its plan and the element offsets of its first lanes in the input and the
/// output.
struct Call {
    key: PlanKey,
    input: usize,
    output: usize,
}

/// The calls that transform every lane along `axis` of the dense row-major `shape` (`n_in`
/// points a lane in the input, `n_out` in the output, transforms of `n`):
/// - rows (the last axis), `n` apart: one call, or as many as cuFFT's 32-bit sizes need (an
///   even number of rows each, so that every call's real data stays complex-aligned);
/// - columns (another axis), `inner` apart: one call per block of the axes before it, or, for
///   complex transforms with more blocks than lanes in a block, one call per lane position
///   batching the blocks (`n inner` apart), whichever makes fewer calls.
fn calls<const N: usize>(
    op: &'static str,
    kind: cufft_sys::cufftType,
    shape: [usize; N],
    axis: usize,
    (n_in, n_out, n): (usize, usize, usize),
) -> Result<Vec<Call>> {
    let outer: usize = shape[..axis].iter().product();
    let inner: usize = shape[axis + 1..].iter().product();
    let key = |input, output, batch| -> Result<PlanKey> {
        Ok(PlanKey { kind, n: size(op, n)?, input, output, batch: size(op, batch)? })
    };
    if outer == 0 || inner == 0 {
        return Ok(Vec::new());
    }
    if inner == 1 {
        let fit = c_int::MAX as usize / n_in.max(n_out);
        let rows = if fit >= outer { outer } else { (fit & !1).max(1) };
        let layout = ((1, size(op, n_in)?), (1, size(op, n_out)?));
        return (0..outer.div_ceil(rows))
            .map(|c| {
                let first = c * rows;
                Ok(Call {
                    key: key(layout.0, layout.1, rows.min(outer - first))?,
                    input: first * n_in,
                    output: first * n_out,
                })
            })
            .collect();
    }
    size(op, n_in.max(n_out) * inner)?;
    let stride = size(op, inner)?;
    let complex =
        n_in == n && n_out == n && matches!(kind, cufft_sys::cufftType::CUFFT_C2C | cufft_sys::cufftType::CUFFT_Z2Z);
    let fits = n.checked_mul(inner).and_then(|x| x.checked_mul(outer)).is_some_and(|x| x <= c_int::MAX as usize);
    if complex && outer > inner && fits {
        let dist = size(op, n * inner)?;
        return (0..inner)
            .map(|r| Ok(Call { key: key((stride, dist), (stride, dist), outer)?, input: r, output: r }))
            .collect();
    }
    (0..outer)
        .map(|o| {
            Ok(Call { key: key((stride, 1), (stride, 1), inner)?, input: o * n_in * inner, output: o * n_out * inner })
        })
        .collect()
}

/// Runs `calls` from `input` (elements of `I`) to `output` (of `O`).
///
/// # Safety
///
/// `input` and `output` are live device arrays holding every lane the calls name (the same
/// array for an in-place transform).
unsafe fn run<I: Pod, O: Pod>(
    dev: &CudaDevice,
    op: &'static str,
    calls: &[Call],
    (input, output): (u64, u64),
    forward: bool,
) -> Result<()> {
    let (in_size, out_size) = (core::mem::size_of::<I>() as u64, core::mem::size_of::<O>() as u64);
    for call in calls {
        let (from, to) = (input + call.input as u64 * in_size, output + call.output as u64 * out_size);
        let PlanKey { kind, n, batch, .. } = call.key;
        // SAFETY: the lanes of this call lie inside the caller's arrays (offsets and extents
        // from their shape).
        dev.with_fft_plan(call.key, |plan| unsafe { execute(plan, kind, from, to, forward) })?
            .map_err(|e| device_error(format!("{op}: cuFFT {kind:?} of {batch} lanes of {n}: {e:?}")))?;
    }
    Ok(())
}

/// Whether every call's real data (`offset` of each call in elements of `T`, from `base`) is
/// aligned as cuFFT's complex type, as its real transforms need.
fn complex_aligned<T>(base: u64, offsets: impl IntoIterator<Item = usize>) -> bool {
    let size = core::mem::size_of::<T>() as u64;
    base % (2 * size) == 0 && offsets.into_iter().all(|o| o % 2 == 0)
}

/// Every element of `d` (complex of parts `T`, or real `T`) times `scale`, if any.
///
/// # Safety
///
/// `d` is dense, live and writable on `dev`.
unsafe fn scaled<T: Float, X: Pod, const N: usize>(
    dev: &CudaDevice,
    d: Desc<Cuda, X, N>,
    scale: Option<T>,
) -> Result<()> {
    let Some(s) = scale else { return Ok(()) };
    let floats = d.len() * (core::mem::size_of::<X>() / core::mem::size_of::<T>());
    let dense = Desc { handle: CudaPtr::<T>::new(d.handle.addr, d.handle.device), shape: [floats], strides: [1isize] };
    // SAFETY: `d` is dense (the caller's contract): its floats lie one after the other.
    unsafe { <Cuda as ElementwiseKernels>::update_unary(dev, ScalarRight(Mul, s), dense) }
}

/// A scratch buffer and its dense row-major descriptor.
type Scratch<T, const N: usize> = (CudaBuffer<Complex<T>>, Desc<Cuda, Complex<T>, N>);

/// A zeroed dense scratch of complex values of `shape` on `dev`.
fn scratch<T: Float, const N: usize>(dev: &CudaDevice, op: &'static str, shape: [usize; N]) -> Result<Scratch<T, N>> {
    let len = crate::shape::checked_len(op, &shape, core::mem::size_of::<Complex<T>>())?;
    let buffer = CudaBuffer::<Complex<T>>::allocate(*dev, op, len, true)?;
    let desc = Desc { handle: buffer.handle(0), shape, strides: crate::shape::row_major_strides(&shape) };
    Ok((buffer, desc))
}

/// `d` narrowed to `len` points from `start` along `axis`.
fn narrowed<X: Pod, const N: usize>(
    mut d: Desc<Cuda, X, N>,
    axis: usize,
    start: usize,
    len: usize,
) -> Desc<Cuda, X, N> {
    d.handle = d.handle.moved(start as isize * d.strides[axis]);
    d.shape[axis] = len;
    d
}

/// Every lane of the dense row-major `x` along `axis` transformed in place (cuFFT's C2C or
/// Z2Z), times `scale` when given.
///
/// # Safety
///
/// `x` is dense row-major, live and writable on `dev`; `x.shape[axis] >= 1`.
pub(crate) unsafe fn complex_axis<T: Float, const N: usize>(
    dev: &CudaDevice,
    op: &'static str,
    x: Desc<Cuda, Complex<T>, N>,
    axis: usize,
    forward: bool,
    scale: Option<T>,
) -> Result<()> {
    let n = x.shape[axis];
    let calls = calls(op, kinds::<T>(op)?[0], x.shape, axis, (n, n, n))?;
    let addr = x.handle.addr;
    // SAFETY: `x` is dense, live and writable (the trait's contract); in place.
    unsafe { run::<Complex<T>, Complex<T>>(dev, op, &calls, (addr, addr), forward) }?;
    // SAFETY: as above.
    unsafe { scaled(dev, x, scale) }
}

/// `out` the half spectra of the real lanes of `x` along `axis`, times `scale`: cuFFT's R2C or
/// D2Z where every call's real data is complex-aligned, else the complex transform of `x` with
/// zero imaginary parts, cropped.
///
/// # Safety
///
/// As `fft::FftKernels::real_axis`.
pub(crate) unsafe fn real_axis<T: Float, const N: usize>(
    dev: &CudaDevice,
    op: &'static str,
    x: Desc<Cuda, T, N>,
    out: Desc<Cuda, Complex<T>, N>,
    axis: usize,
    scale: Option<T>,
) -> Result<()> {
    let n = x.shape[axis];
    let calls = calls(op, kinds::<T>(op)?[1], x.shape, axis, (n, n / 2 + 1, n))?;
    if complex_aligned::<T>(x.handle.addr, calls.iter().map(|c| c.input)) {
        // SAFETY: both dense and live, `out` writable (the trait's contract); cuFFT's
        // out-of-place real-to-complex transform leaves its input as it was (only the
        // complex-to-real one overwrites its input, NVIDIA's documentation says).
        unsafe { run::<T, Complex<T>>(dev, op, &calls, (x.handle.addr, out.handle.addr), true) }?;
    } else {
        let (buffer, z) = scratch::<T, N>(dev, op, x.shape)?;
        // SAFETY: the real parts of the fresh scratch from the live `x`; the transform in the
        // scratch; its first `n / 2 + 1` values a lane into `out`, apart from it.
        unsafe {
            <Cuda as CopyKernels>::copy(dev, parts::<T, Complex<T>, N>(z)[0], x)?;
            complex_axis(dev, op, z, axis, true, None)?;
            <Cuda as CopyKernels>::copy(dev, out, narrowed(z, axis, 0, n / 2 + 1))?;
        }
        drop(buffer);
    }
    // SAFETY: as above.
    unsafe { scaled(dev, out, scale) }
}

/// `out` the real lanes along `axis` whose half spectra are `x`'s first `n / 2 + 1` values
/// (zeros past them, the imaginary parts of the zero and Nyquist frequencies dropped), times
/// `scale`: cuFFT's C2R or Z2D from a scratch (it overwrites its input) where every call's real
/// data is complex-aligned, else the complex inverse of the Hermitian-extended spectrum, its
/// real parts.
///
/// # Safety
///
/// As `fft::FftKernels::real_inverse_axis`.
pub(crate) unsafe fn real_inverse_axis<T: Float, const N: usize>(
    dev: &CudaDevice,
    op: &'static str,
    x: Desc<Cuda, Complex<T>, N>,
    out: Desc<Cuda, T, N>,
    axis: usize,
    scale: Option<T>,
) -> Result<()> {
    let (given, n) = (x.shape[axis], out.shape[axis]);
    let half = n / 2 + 1;
    let calls = calls(op, kinds::<T>(op)?[2], out.shape, axis, (half, n, n))?;
    let native = complex_aligned::<T>(out.handle.addr, calls.iter().map(|c| c.output));
    // The spectrum: `half` values a lane (the given ones, cropped, and zeros past them), or the
    // whole `n` of the Hermitian extension.
    let mut shape = x.shape;
    shape[axis] = if native { half } else { n };
    let (buffer, spectrum) = scratch::<T, N>(dev, op, shape)?;
    let kept = given.min(half);
    // SAFETY: inside the fresh scratch, from inside the live `x`.
    unsafe { <Cuda as CopyKernels>::copy(dev, narrowed(spectrum, axis, 0, kept), narrowed(x, axis, 0, kept)) }?;
    // The zero frequency's (and an even length's last) imaginary part is not part of a real
    // signal's spectrum: NumPy ignores it.
    let imaginary = parts::<T, Complex<T>, N>(spectrum)[1];
    for k in if n % 2 == 0 { vec![0, half - 1] } else { vec![0] } {
        // SAFETY: one hyperplane of the scratch's imaginary parts.
        unsafe { <Cuda as CopyKernels>::fill(dev, narrowed(imaginary, axis, k, 1), T::ZERO) }?;
    }
    if native {
        // SAFETY: the scratch and `out` are dense, live and apart (`out` the trait's contract).
        unsafe { run::<Complex<T>, T>(dev, op, &calls, (spectrum.handle.addr, out.handle.addr), false) }?;
    } else {
        // Points `half..n` are the conjugates of points `n - half..1` (disjoint from them).
        let tail = n - half;
        let mut mirrored = narrowed(spectrum, axis, 1, tail);
        mirrored.handle = mirrored.handle.moved((tail as isize - 1) * mirrored.strides[axis]);
        mirrored.strides[axis] = -mirrored.strides[axis];
        let extension = narrowed(spectrum, axis, half, tail);
        // SAFETY: two disjoint regions of the scratch; then its own floats; then `out`, apart.
        unsafe {
            <Cuda as CopyKernels>::copy(dev, extension, mirrored)?;
            let negated = parts::<T, Complex<T>, N>(extension)[1];
            <Cuda as ElementwiseKernels>::update_unary(dev, ScalarRight(Mul, T::ZERO - T::ONE), negated)?;
            complex_axis(dev, op, spectrum, axis, false, None)?;
            <Cuda as CopyKernels>::copy(dev, out, parts::<T, Complex<T>, N>(spectrum)[0])?;
        }
    }
    // The scratch is freed in stream order after the transform.
    drop(buffer);
    // SAFETY: as above.
    unsafe { scaled(dev, out, scale) }
}

/// Every complex value of `x` times the real value of `factors` at its index: both parts times
/// the factors, elementwise.
///
/// # Safety
///
/// `x` and `factors` are dense row-major, of one shape, live on `dev` and apart; `x` writable.
pub(crate) unsafe fn scale_modes<T: Float, const N: usize>(
    dev: &CudaDevice,
    x: Desc<Cuda, Complex<T>, N>,
    factors: Desc<Cuda, T, N>,
) -> Result<()> {
    for part in parts::<T, Complex<T>, N>(x) {
        // SAFETY: each part addresses the floats of `x`'s elements, apart from `factors`.
        unsafe { <Cuda as ElementwiseKernels>::update(dev, Mul, part, factors) }?;
    }
    Ok(())
}
