//! The Fourier transforms on WebGPU (`kernels/wgpu/fft.wgsl`), for `fft::FftKernels`
//! (implemented in `src/fft/wgpu.rs` over [`transform`]): every lane of one axis of a dense
//! row-major array at once, gathered into a work array of `m` points a lane, `log2 m` radix-2
//! Stockham passes between two work arrays, scattered back. A length that is not a power of two
//! goes through Bluestein's algorithm (a chirp, and a convolution of length `m >= 2n - 1` by a
//! forward and an inverse transform). The twiddles, the chirp and the filter's spectrum are
//! computed on the host in f64 (the filter by rustfft) and uploaded with each transform.

use rustfft::num_complex::Complex as C64;

pub(crate) use super::copy::parts;
use super::device::WgpuDevice;
use super::dispatch::{elem, params, run, to_i32};
use super::shaders::family;
use super::{Wgpu, WgpuBuffer};
use crate::element::{Float, Pod};
use crate::error::Result;
use crate::kernel::tokens::Mul;
use crate::kernel::{Desc, ElementwiseKernels, WriteFromHost};

/// How the gather reads the input's lanes, and the scatter writes the output's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Lanes {
    /// Complex points.
    Complex,
    /// Real points (gather: imaginary parts zero; scatter: real parts kept).
    Real,
    /// Half spectra, extended to full ones by Hermitian symmetry (gather only).
    HalfSpectrum,
}

impl Lanes {
    fn mode(self) -> i32 {
        match self {
            Lanes::Complex => 0,
            Lanes::Real => 1,
            Lanes::HalfSpectrum => 2,
        }
    }
}

/// `e^(i angle)` in f64.
fn unit(angle: f64) -> C64<f64> {
    C64::new(angle.cos(), angle.sin())
}

/// The host tables of one transform: twiddles `e^(-2 pi i t / m)` for `t < m / 2`, and for
/// Bluestein the chirp `w_j = e^(s i pi j^2 / n)` (`s` the direction's sign) and the spectrum of
/// the filter `conj(w)` (circular, length `m`) divided by `m`. Returns the floats and the offsets
/// (in floats) of the chirp and the filter.
fn tables(n: usize, m: usize, forward: bool) -> (Vec<f64>, Option<(usize, usize)>) {
    let tau = 2.0 * core::f64::consts::PI;
    let mut floats: Vec<f64> = (0..m / 2)
        .flat_map(|t| {
            let w = unit(-tau * t as f64 / m as f64);
            [w.re, w.im]
        })
        .collect();
    if m == n {
        return (floats, None);
    }
    let sign = if forward { -1.0 } else { 1.0 };
    // j^2 modulo 2n keeps the angle small and exact for long lanes.
    let chirp: Vec<C64<f64>> = (0..n)
        .map(|j| unit(sign * core::f64::consts::PI * ((j as u64 * j as u64) % (2 * n as u64)) as f64 / n as f64))
        .collect();
    let mut filter = vec![C64::new(0.0, 0.0); m];
    for (t, w) in chirp.iter().enumerate() {
        filter[t] = w.conj();
        if t > 0 {
            filter[m - t] = w.conj();
        }
    }
    rustfft::FftPlanner::<f64>::new().plan_fft_forward(m).process(&mut filter);
    let chirp_at = floats.len();
    floats.extend(chirp.iter().flat_map(|w| [w.re, w.im]));
    let filter_at = floats.len();
    floats.extend(filter.iter().flat_map(|f| [f.re / m as f64, f.im / m as f64]));
    (floats, Some((chirp_at, filter_at)))
}

/// The output lanes of `n`-point transforms along `axis` of `input`'s lanes into `output`,
/// each read as `from` says and written as `to` says, scaled by `scale`: the forward transform
/// (`e^(-2 pi i j k / n)`) or the unnormalized inverse.
///
/// # Safety
///
/// `input` and `output` are dense row-major and live on `dev`, of one shape but along `axis`
/// (where `input` has its own length, and `output` `n`, or `n / 2 + 1` for half spectra);
/// `output` is writable; they may be the same array only when both are complex `n`-point lanes.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn transform<T: Float, I: Pod, O: Pod, const N: usize>(
    dev: &WgpuDevice,
    op: &'static str,
    (input, from): (Desc<Wgpu, I, N>, Lanes),
    (output, to): (Desc<Wgpu, O, N>, Lanes),
    axis: usize,
    n: usize,
    forward: bool,
    scale: T,
) -> Result<()> {
    let t = elem::<T>(dev, op)?;
    let outer: usize = input.shape[..axis].iter().product();
    let inner: usize = input.shape[axis + 1..].iter().product();
    let lanes = outer * inner;
    if lanes == 0 || n == 0 {
        return Ok(());
    }
    // The gather reads `n` points a lane (or a half spectrum of any length), the scatter writes
    // at most `n`: what the callers in `src/fft/wgpu.rs` pass.
    assert!(from == Lanes::HalfSpectrum || input.shape[axis] == n, "whole input lanes");
    assert!(output.shape[axis] <= n, "output lanes of at most n points");
    let m = if n.is_power_of_two() { n } else { (2 * n - 1).next_power_of_two() };
    // Every index a shader computes stays below 2^31 (in floats: twice the complex elements).
    let work = lanes.checked_mul(m).and_then(|x| x.checked_mul(2)).unwrap_or(usize::MAX);
    to_i32("a transform's work array", work)?;
    let end =
        |offset: isize, len: usize, size: usize| (offset.max(0) as usize + len) * (size / core::mem::size_of::<T>());
    to_i32("an operand's extent", end(input.handle.offset, input.len(), core::mem::size_of::<I>()))?;
    to_i32("an operand's extent", end(output.handle.offset, output.len(), core::mem::size_of::<O>()))?;
    let (floats, bluestein) = tables(n, m, forward);
    let mut table = WgpuBuffer::<T>::allocate(*dev, op, floats.len().max(1))?;
    let values: Vec<T> = floats.iter().map(|&x| T::from_f64(x)).collect();
    // SAFETY: `table` is a fresh buffer of `values.len()` elements.
    unsafe { <Wgpu as WriteFromHost>::try_write_from_host(&mut table, &values) }?;
    let work =
        [WgpuBuffer::<T>::allocate(*dev, op, 2 * lanes * m)?, WgpuBuffer::<T>::allocate(*dev, op, 2 * lanes * m)?];
    let floats_per = |size: usize| size / core::mem::size_of::<T>();
    let (chirp, filter) = bluestein.map_or((-1, 0), |(c, f)| (c as i32, f as i32));
    let words = |base: isize, size: usize, mode: Lanes, len: usize, sign: i32, ns: usize| -> Result<Vec<i32>> {
        Ok(vec![
            to_i32("lanes", outer)?,
            to_i32("a length", n)?,
            to_i32("lanes", inner)?,
            to_i32("a work length", m)?,
            to_i32("an offset", base * floats_per(size) as isize)?,
            mode.mode(),
            to_i32("a length", len)?,
            chirp,
            sign,
            to_i32("a block", ns)?,
            0,
            filter,
        ])
    };
    let fam = family("fft");
    // SAFETY: the operands are live (the caller's contract).
    let (bin, bout) = unsafe { (super::dispatch::buffer(&input), super::dispatch::buffer(&output)) };
    let gather = words(input.handle.offset, core::mem::size_of::<I>(), from, input.shape[axis], 0, 1)?;
    let p = params(lanes * m, [], &gather)?;
    run(dev, fam, t, "fft_gather", lanes * m, &[(0, work[0].raw()), (1, bin), (2, table.raw())], &p)?;
    // The passes, ping-ponging between the work arrays; Bluestein's convolution is a forward
    // transform, the filter, an inverse one.
    let mut current = 0;
    let signs: &[i32] = if bluestein.is_some() {
        &[-1, 1]
    } else if forward {
        &[-1]
    } else {
        &[1]
    };
    for (round, &sign) in signs.iter().enumerate() {
        if round == 1 {
            let p = params(lanes * m, [], &words(0, 1, from, 0, sign, 1)?)?;
            run(dev, fam, t, "fft_pointwise", lanes * m, &[(0, work[current].raw()), (2, table.raw())], &p)?;
        }
        let mut ns = 1;
        while ns < m {
            let p = params(lanes * m / 2, [], &words(0, 1, from, 0, sign, ns)?)?;
            let (src, dst) = (work[current].raw(), work[1 - current].raw());
            run(dev, fam, t, "fft_pass", lanes * m / 2, &[(0, dst), (1, src), (2, table.raw())], &p)?;
            current = 1 - current;
            ns *= 2;
        }
    }
    let len = output.shape[axis];
    let scatter = words(output.handle.offset, core::mem::size_of::<O>(), to, len, 0, 1)?;
    let p = params(lanes * len, [], &scatter)?.with(&[scale]);
    run(dev, fam, t, "fft_scatter", lanes * len, &[(0, bout), (1, work[current].raw()), (2, table.raw())], &p)
}

/// Every complex value of `x` (complex of parts `T`) times the real value of `factors` at its
/// index: both parts times the factors, elementwise.
///
/// # Safety
///
/// `x` and `factors` are dense row-major, of one shape, live on `dev` and in different buffers;
/// `x` writable.
pub(crate) unsafe fn scale_modes<T: Float, X: Pod, const N: usize>(
    dev: &WgpuDevice,
    x: Desc<Wgpu, X, N>,
    factors: Desc<Wgpu, T, N>,
) -> Result<()> {
    for part in parts::<T, X, N>(x) {
        // SAFETY: each part addresses the floats of `x`'s elements, apart from `factors`.
        unsafe { <Wgpu as ElementwiseKernels>::update(dev, Mul, part, factors) }?;
    }
    Ok(())
}
