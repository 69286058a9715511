//! What a backend supplies for the transforms: the transform of every lane of one axis of a
//! dense row-major array, complex in place, real to half spectrum and back, each lane scaled.
//! The generic algorithm (`mod.rs`) checks the axes, reads the input into row-major order when
//! it does not lie so, allocates the results and orders the axes; the CPU's kernels are
//! rustfft/realfft on rayon's threads (`cpu.rs`), CUDA's cuFFT's batched plans (`cuda.rs`),
//! WebGPU's cnda's Stockham and Bluestein shaders (`wgpu.rs`).

use num_complex::Complex;

use super::trig::{DctType, Family};
use super::FftFloat;
use super::Norm;
use crate::error::Result;
use crate::kernel::{CopyKernels, Desc, ElementwiseKernels, WriteFromHost};

/// The per-axis transforms of a backend.
///
/// # Safety
///
/// Implementations write every element of the output they are given (all of `x` for
/// [`complex_axis`](FftKernels::complex_axis)) with the transform the method names, and touch no
/// memory outside the descriptors. The provided `trig_axis` and the solves write through the
/// part descriptors of [`complex_parts`](crate::kernel::complex_parts), which trust the
/// backend's [`Backend::part_handle`](crate::kernel::Backend::part_handle).
pub unsafe trait FftKernels: CopyKernels + ElementwiseKernels + WriteFromHost {
    /// Every lane of `x` along `axis` replaced by its transform (forward: `e^(-2 pi i j k / n)`;
    /// inverse: `e^(+...)`, unnormalized), times `scale` when given.
    ///
    /// # Safety
    ///
    /// `x` is dense row-major, live and writable on `dev`; `x.shape[axis] >= 1`.
    ///
    /// # Errors
    ///
    /// `Error::Alloc` for a scratch; `Error::Device` when a device fails (or lacks its FFT
    /// library); `Error::Parameter` for lanes past a device library's sizes (cuFFT's 32-bit
    /// plans); `Error::UnsupportedDType` for an element type the device lacks (f64 on a WebGPU
    /// adapter without `SHADER_F64`).
    unsafe fn complex_axis<T: FftFloat, const N: usize>(
        dev: &Self::Device,
        op: &'static str,
        x: Desc<Self, Complex<T>, N>,
        axis: usize,
        forward: bool,
        scale: Option<T>,
    ) -> Result<()>;

    /// `out`, `n / 2 + 1` values along `axis`, the half spectra of the real lanes of `x`
    /// (`n = x.shape[axis]` points), times `scale` when given.
    ///
    /// # Safety
    ///
    /// `x` and `out` are dense row-major, live on `dev` and apart; `out` is writable, of `x`'s
    /// shape but `n / 2 + 1` along `axis`; `n >= 1`.
    ///
    /// # Errors
    ///
    /// As for [`complex_axis`](FftKernels::complex_axis).
    unsafe fn real_axis<T: FftFloat, const N: usize>(
        dev: &Self::Device,
        op: &'static str,
        x: Desc<Self, T, N>,
        out: Desc<Self, Complex<T>, N>,
        axis: usize,
        scale: Option<T>,
    ) -> Result<()>;

    /// `out`, real lanes of `n = out.shape[axis]` points along `axis`, whose half spectra are
    /// the lanes of `x`: their first `n / 2 + 1` values, zeros past their end, the imaginary
    /// parts of the zero frequency (and of the last for even `n`) ignored, as NumPy does; times
    /// `scale` when given. `x` is only read.
    ///
    /// # Safety
    ///
    /// `x` and `out` are dense row-major, live on `dev` and apart; `out` is writable, of `x`'s
    /// shape but along `axis`; both have at least one point along `axis`.
    ///
    /// # Errors
    ///
    /// As for [`complex_axis`](FftKernels::complex_axis).
    unsafe fn real_inverse_axis<T: FftFloat, const N: usize>(
        dev: &Self::Device,
        op: &'static str,
        x: Desc<Self, Complex<T>, N>,
        out: Desc<Self, T, N>,
        axis: usize,
        scale: Option<T>,
    ) -> Result<()>;

    /// Every complex value of `x` times the real value of `factors` at its index (a spectrum
    /// weighted mode by mode: the spectral solves' division, filters).
    ///
    /// # Safety
    ///
    /// `x` and `factors` are dense row-major, of one shape, live on `dev` and apart; `x` is
    /// writable.
    ///
    /// # Errors
    ///
    /// `Error::Device` when a device fails.
    unsafe fn scale_modes<T: FftFloat, const N: usize>(
        dev: &Self::Device,
        x: Desc<Self, Complex<T>, N>,
        factors: Desc<Self, T, N>,
    ) -> Result<()>;

    /// The dense row-major `x` transformed along `axis` in place by the cosine or sine transform
    /// of `kind` (or its inverse), scaled as SciPy's under `norm`. Provided for every type
    /// through the Fourier transforms (`trig_fft.rs`); the CPU computes them with rustdct.
    ///
    /// # Safety
    ///
    /// `x` is dense row-major, live and writable on `dev`, with a point along `axis`.
    ///
    /// # Errors
    ///
    /// As for [`complex_axis`](FftKernels::complex_axis); `Error::Parameter` for a type the
    /// backend lacks.
    #[doc(hidden)]
    unsafe fn trig_axis<T: FftFloat, const N: usize>(
        dev: &Self::Device,
        op: &'static str,
        x: Desc<Self, T, N>,
        axis: usize,
        kind: (Family, DctType),
        norm: Norm,
        inverse: bool,
    ) -> Result<()> {
        // SAFETY: the caller's contract, passed on.
        unsafe { super::trig_fft::trig_axis(dev, op, x, axis, kind, norm, inverse) }
    }
}
