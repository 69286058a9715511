//! cuFFT (loaded at run time) for the transforms on CUDA (`fft::FftKernels`, implemented in
//! `src/fft/cuda.rs` over these): each axis of a dense row-major array as one batched plan of
//! cuFFT's advanced layout. Along the last axis the lanes are rows,
//! `n` apart: one call. Along another, the lanes of one block of the axes before it are `1`
//! apart with stride `inner`: one call per such block. Plans are made once per layout and
//! device and kept. Scaling is one elementwise pass after the transform.

use core::any::TypeId;
use core::ffi::c_int;

use cudarc::cufft::{result as cufft, sys as cufft_sys};
use num_complex::Complex;

use super::copy::parts;
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

/// Every lane along `axis` of the dense row-major `shape` transformed from `input` (`n_in`
/// points a lane, `T_IN`s) to `output` (`n_out`, `T_OUT`s): one batched call over the rows for
/// the last axis, one call per block of the axes before it otherwise.
///
/// # Safety
///
/// `input` and `output` are live device arrays of `shape` with `n_in` and `n_out` along `axis`
/// (the same array for an in-place transform).
#[allow(clippy::too_many_arguments)]
unsafe fn lanes<I: Pod, O: Pod, const N: usize>(
    dev: &CudaDevice,
    op: &'static str,
    kind: cufft_sys::cufftType,
    (input, output): (u64, u64),
    shape: [usize; N],
    axis: usize,
    (n_in, n_out, n): (usize, usize, usize),
    forward: bool,
) -> Result<()> {
    let outer: usize = shape[..axis].iter().product();
    let inner: usize = shape[axis + 1..].iter().product();
    if outer == 0 || inner == 0 {
        return Ok(());
    }
    let (in_size, out_size) = (core::mem::size_of::<I>() as u64, core::mem::size_of::<O>() as u64);
    size(op, n)?;
    // Rows (the last axis): `n` apart, as many a call as cuFFT's 32-bit sizes allow. Columns
    // (another axis): `inner` apart, neighbours 1 apart, one block of the axes before a call.
    let (rows_per_call, layout, calls) = if inner == 1 {
        let rows = (c_int::MAX as usize / n_in.max(n_out)).clamp(1, outer);
        (rows, ((1, size(op, n_in)?), (1, size(op, n_out)?)), outer.div_ceil(rows))
    } else {
        size(op, n_in.max(n_out) * inner)?;
        let stride = size(op, inner)?;
        (0, ((stride, 1), (stride, 1)), outer)
    };
    for call in 0..calls {
        // The call's first lane's offsets (in elements) and its number of lanes.
        let (lanes_in, lanes_out, count) = if inner == 1 {
            let first = call * rows_per_call;
            (first * n_in, first * n_out, rows_per_call.min(outer - first))
        } else {
            (call * n_in * inner, call * n_out * inner, inner)
        };
        let key = PlanKey { kind, n: n as c_int, input: layout.0, output: layout.1, batch: size(op, count)? };
        let (from, to) = (input + lanes_in as u64 * in_size, output + lanes_out as u64 * out_size);
        // SAFETY: the lanes of this call lie inside the caller's arrays (offsets and extents
        // from their shape).
        dev.with_fft_plan(key, |plan| unsafe { execute(plan, kind, from, to, forward) })?
            .map_err(|e| device_error(format!("{op}: cuFFT {kind:?} of {count} lanes of {n}: {e:?}")))?;
    }
    Ok(())
}

/// Every element of `d` (complex of parts `T`, or real `T`) times `scale`, if any.
///
/// # Safety
///
/// `d` is live and writable on `dev`.
unsafe fn scaled<T: Float, X: Pod, const N: usize>(
    dev: &CudaDevice,
    d: Desc<Cuda, X, N>,
    scale: Option<T>,
) -> Result<()> {
    let Some(s) = scale else { return Ok(()) };
    let floats = d.len() * (core::mem::size_of::<X>() / core::mem::size_of::<T>());
    let dense = Desc { handle: CudaPtr::<T>::new(d.handle.addr, d.handle.device), shape: [floats], strides: [1isize] };
    // SAFETY: `d` is dense (the trait's contract): its floats lie one after the other.
    unsafe { <Cuda as ElementwiseKernels>::update_unary(dev, ScalarRight(Mul, s), dense) }
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
    let addr = x.handle.addr;
    // SAFETY: `x` is dense, live and writable (the trait's contract); in place.
    unsafe {
        lanes::<Complex<T>, Complex<T>, N>(dev, op, kinds::<T>(op)?[0], (addr, addr), x.shape, axis, (n, n, n), forward)
    }?;
    // SAFETY: as above.
    unsafe { scaled(dev, x, scale) }
}

/// `out` the half spectra of the real lanes of `x` along `axis` (R2C or D2Z), times `scale`.
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
    let lengths = (n, n / 2 + 1, n);
    // SAFETY: both dense and live, `out` writable (the trait's contract); cuFFT's
    // out-of-place real-to-complex transform leaves its input as it was.
    unsafe {
        lanes::<T, Complex<T>, N>(
            dev,
            op,
            kinds::<T>(op)?[1],
            (x.handle.addr, out.handle.addr),
            x.shape,
            axis,
            lengths,
            true,
        )
    }?;
    // SAFETY: as above.
    unsafe { scaled(dev, out, scale) }
}

/// `out` the real lanes along `axis` whose half spectra are `x`'s first `n / 2 + 1` values
/// (zeros past them; C2R or Z2D from a scratch, which cuFFT overwrites), times `scale`.
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
    // cuFFT's complex-to-real transform overwrites its input: the spectrum goes into a
    // scratch of `half` values a lane, the given ones (cropped) and zeros past them.
    let mut shape = x.shape;
    shape[axis] = half;
    let len = crate::shape::checked_len(op, &shape, core::mem::size_of::<Complex<T>>())?;
    let scratch = CudaBuffer::<Complex<T>>::allocate(*dev, op, len, true)?;
    let strides = crate::shape::row_major_strides(&shape);
    let spectrum = Desc { handle: scratch.handle(0), shape, strides };
    let kept = given.min(half);
    let (mut to, mut from) = (spectrum, x);
    (to.shape[axis], from.shape[axis]) = (kept, kept);
    // SAFETY: `to` is inside the fresh scratch, `from` inside the live `x`.
    unsafe { <Cuda as CopyKernels>::copy(dev, to, from) }?;
    // The zero frequency's (and an even length's last) imaginary part is not part of a real
    // signal's spectrum: NumPy ignores it.
    let imaginary = parts::<T, Complex<T>, N>(spectrum)[1];
    for k in if n % 2 == 0 { vec![0, half - 1] } else { vec![0] } {
        let mut plane = imaginary;
        plane.handle = plane.handle.moved(k as isize * plane.strides[axis]);
        plane.shape[axis] = 1;
        // SAFETY: one hyperplane of the scratch's imaginary parts.
        unsafe { <Cuda as CopyKernels>::fill(dev, plane, T::ZERO) }?;
    }
    let lengths = (half, n, n);
    // SAFETY: the scratch and `out` are dense, live and apart (`out` the trait's contract).
    unsafe {
        lanes::<Complex<T>, T, N>(
            dev,
            op,
            kinds::<T>(op)?[2],
            (spectrum.handle.addr, out.handle.addr),
            shape,
            axis,
            lengths,
            false,
        )
    }?;
    // The scratch is freed in stream order after the transform.
    drop(scratch);
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
