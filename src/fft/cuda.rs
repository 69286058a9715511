//! The transforms' kernels on CUDA: cuFFT's batched plans (`backend/cuda/cufft.rs`).

use num_complex::Complex;

use super::kernels::FftKernels;
use super::FftFloat;
use crate::backend::cuda::{cufft, Cuda, CudaDevice};
use crate::error::Result;
use crate::kernel::Desc;

// SAFETY: cuFFT writes every lane of each output (the batched calls cover all of them); the
// spectrum copy and the scaling write only the arrays named.
unsafe impl FftKernels for Cuda {
    unsafe fn complex_axis<T: FftFloat, const N: usize>(
        dev: &CudaDevice,
        op: &'static str,
        x: Desc<Cuda, Complex<T>, N>,
        axis: usize,
        forward: bool,
        scale: Option<T>,
    ) -> Result<()> {
        // SAFETY: the trait's contract, which `cufft::complex_axis` shares.
        unsafe { cufft::complex_axis(dev, op, x, axis, forward, scale) }
    }

    unsafe fn real_axis<T: FftFloat, const N: usize>(
        dev: &CudaDevice,
        op: &'static str,
        x: Desc<Cuda, T, N>,
        out: Desc<Cuda, Complex<T>, N>,
        axis: usize,
        scale: Option<T>,
    ) -> Result<()> {
        // SAFETY: as above.
        unsafe { cufft::real_axis(dev, op, x, out, axis, scale) }
    }

    unsafe fn real_inverse_axis<T: FftFloat, const N: usize>(
        dev: &CudaDevice,
        op: &'static str,
        x: Desc<Cuda, Complex<T>, N>,
        out: Desc<Cuda, T, N>,
        axis: usize,
        scale: Option<T>,
    ) -> Result<()> {
        // SAFETY: as above.
        unsafe { cufft::real_inverse_axis(dev, op, x, out, axis, scale) }
    }

    unsafe fn scale_modes<T: FftFloat, const N: usize>(
        dev: &CudaDevice,
        x: Desc<Cuda, Complex<T>, N>,
        factors: Desc<Cuda, T, N>,
    ) -> Result<()> {
        // SAFETY: as above.
        unsafe { cufft::scale_modes(dev, x, factors) }
    }
}
