//! The transforms' kernels on WebGPU: the Stockham and Bluestein shaders of
//! `backend/wgpu/stockham.rs` (f32, and f64 on adapters with `SHADER_F64`).

use num_complex::Complex;

use super::kernels::FftKernels;
use super::FftFloat;
use crate::backend::wgpu::stockham::{scale_modes, transform, Lanes};
use crate::backend::wgpu::{Wgpu, WgpuDevice};
use crate::error::Result;
use crate::kernel::Desc;

// SAFETY: the scatter writes every lane of each output (one work item per output element), and
// nothing else is written.
unsafe impl FftKernels for Wgpu {
    unsafe fn complex_axis<T: FftFloat, const N: usize>(
        dev: &WgpuDevice,
        op: &'static str,
        x: Desc<Wgpu, Complex<T>, N>,
        axis: usize,
        forward: bool,
        scale: Option<T>,
    ) -> Result<()> {
        let n = x.shape[axis];
        let scale = scale.unwrap_or(T::ONE);
        // SAFETY: the trait's contract; in place, complex lanes of `n` points both ways.
        unsafe { transform(dev, op, (x, Lanes::Complex), (x, Lanes::Complex), axis, n, forward, scale) }
    }

    unsafe fn real_axis<T: FftFloat, const N: usize>(
        dev: &WgpuDevice,
        op: &'static str,
        x: Desc<Wgpu, T, N>,
        out: Desc<Wgpu, Complex<T>, N>,
        axis: usize,
        scale: Option<T>,
    ) -> Result<()> {
        let n = x.shape[axis];
        let scale = scale.unwrap_or(T::ONE);
        // SAFETY: the trait's contract; `out` has `n / 2 + 1` points along `axis`.
        unsafe { transform(dev, op, (x, Lanes::Real), (out, Lanes::Complex), axis, n, true, scale) }
    }

    unsafe fn real_inverse_axis<T: FftFloat, const N: usize>(
        dev: &WgpuDevice,
        op: &'static str,
        x: Desc<Wgpu, Complex<T>, N>,
        out: Desc<Wgpu, T, N>,
        axis: usize,
        scale: Option<T>,
    ) -> Result<()> {
        let n = out.shape[axis];
        let scale = scale.unwrap_or(T::ONE);
        // SAFETY: the trait's contract; the gather extends `x`'s half spectra (cropped or padded
        // to `n / 2 + 1`, the zero and Nyquist frequencies made real) to full ones.
        unsafe { transform(dev, op, (x, Lanes::HalfSpectrum), (out, Lanes::Real), axis, n, false, scale) }
    }

    unsafe fn scale_modes<T: FftFloat, const N: usize>(
        dev: &WgpuDevice,
        x: Desc<Wgpu, Complex<T>, N>,
        factors: Desc<Wgpu, T, N>,
    ) -> Result<()> {
        // SAFETY: the trait's contract (a `factors` in `x`'s buffer is read from a staged copy).
        unsafe { scale_modes(dev, x, factors) }
    }
}
