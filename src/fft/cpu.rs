//! The CPU's transform kernels: rustfft's and realfft's plans (one per length and type for the
//! process) over the lanes of an axis (`lanes.rs`: rows where they lie, other axes in gathered
//! blocks), on rayon's threads, the scale applied to each batch while it is in cache. Real lanes
//! of odd length go two through one complex transform (`real_pairs.rs`).

use num_complex::Complex;

use super::kernels::FftKernels;
use super::lanes::{self, Around};
use super::trig::{self, DctType, Family};
use super::{plans, real_pairs, realfft_error, FftFloat, Norm};
use crate::error::Result;
use crate::kernel::{Cpu, Desc};

/// The elements of the dense row-major `d`.
///
/// # Safety
///
/// `d` is dense row-major and live, and nothing else accesses it for `'a`.
unsafe fn elements_mut<'a, X, const N: usize>(d: Desc<Cpu, X, N>) -> &'a mut [X]
where
    X: crate::element::Pod,
{
    // SAFETY: the caller's contract; `len` elements lie one after the other from the handle.
    unsafe { core::slice::from_raw_parts_mut(d.handle, d.len()) }
}

/// As [`elements_mut`], read only.
///
/// # Safety
///
/// `d` is dense row-major and live, and nothing writes it for `'a`.
unsafe fn elements<'a, X: crate::element::Pod, const N: usize>(d: Desc<Cpu, X, N>) -> &'a [X] {
    // SAFETY: the caller's contract.
    unsafe { core::slice::from_raw_parts(d.handle.cast_const(), d.len()) }
}

/// The half spectrum of a real signal of `n` points from a lane of given values, as NumPy takes
/// it: the first `n / 2 + 1` values, zeros beyond the given ones; the zero frequency's (and an
/// even length's last) imaginary part dropped, which no real signal's spectrum has (realfft would
/// refuse it).
fn half_spectrum<T: FftFloat>(lane: &[Complex<T>], spectrum: &mut [Complex<T>], n: usize) {
    let half = spectrum.len();
    let kept = lane.len().min(half);
    spectrum[..kept].copy_from_slice(&lane[..kept]);
    spectrum[kept..].fill(Complex::new(T::ZERO, T::ZERO));
    spectrum[0].im = T::ZERO;
    if n % 2 == 0 {
        spectrum[half - 1].im = T::ZERO;
    }
}

/// Every value of `values` times `scale`, if any.
fn scaled<T: FftFloat>(values: &mut [Complex<T>], scale: Option<T>) {
    if let Some(s) = scale {
        values.iter_mut().for_each(|v| *v = v.scale(s));
    }
}

// SAFETY: each method writes every lane of its output through `lanes`, which visits every lane
// once, and touches nothing else.
unsafe impl FftKernels for Cpu {
    unsafe fn complex_axis<T: FftFloat, const N: usize>(
        _: &Cpu,
        op: &'static str,
        x: Desc<Cpu, Complex<T>, N>,
        axis: usize,
        forward: bool,
        scale: Option<T>,
    ) -> Result<()> {
        let n = x.shape[axis];
        let plan = plans::complex::<T>(n, forward);
        // SAFETY: `x` is dense, live and the caller's alone (the trait's contract).
        let data = unsafe { elements_mut(x) };
        lanes::in_place(
            op,
            data,
            Around::new(x.shape, axis),
            (n, 1),
            plan.get_inplace_scratch_len(),
            |mut lanes, work| {
                // Lanes back to back go to rustfft in one call; others one by one.
                if let Some(all) = lanes.whole() {
                    plan.process_with_scratch(all, work);
                    scaled(all, scale);
                } else {
                    for i in 0..lanes.count() {
                        let lane = lanes.lane(i);
                        plan.process_with_scratch(lane, work);
                        scaled(lane, scale);
                    }
                }
                Ok(())
            },
        )
    }

    unsafe fn real_axis<T: FftFloat, const N: usize>(
        _: &Cpu,
        op: &'static str,
        x: Desc<Cpu, T, N>,
        out: Desc<Cpu, Complex<T>, N>,
        axis: usize,
        scale: Option<T>,
    ) -> Result<()> {
        let n = x.shape[axis];
        let plan = plans::real::<T>(n);
        // Odd lengths: two lanes through one complex transform where they allow (`real_pairs.rs`).
        let paired = (n % 2 == 1).then(|| plans::complex::<T>(n, true));
        let scratch = plan.get_scratch_len().max(paired.as_ref().map_or(0, |p| real_pairs::scratch_len(&**p)));
        // SAFETY: both dense and live, `out` writable and apart from `x` (the trait's contract).
        let (input, output) = unsafe { (elements(x), elements_mut(out)) };
        let around = Around::new(x.shape, axis);
        // Pairs need two rows to a task.
        let rows = if paired.is_some() { 2 } else { 1 };
        lanes::between(op, input, output, around, ((n, n / 2 + 1), rows), scratch, |mut lanes, mut spectra, work| {
            let mut i = 0;
            while i < lanes.count() {
                if let Some(p) = paired.as_ref().filter(|_| i + 1 < lanes.count()) {
                    let ((a, b), (sa, sb)) = (lanes.pair(i), spectra.pair(i));
                    if real_pairs::forward(&**p, (a, b), (&mut *sa, &mut *sb), work) {
                        scaled(sa, scale);
                        scaled(sb, scale);
                        i += 2;
                        continue;
                    }
                }
                let spectrum = spectra.lane(i);
                plan.process_with_scratch(lanes.lane(i), spectrum, work).map_err(|e| realfft_error(op, e))?;
                scaled(spectrum, scale);
                i += 1;
            }
            Ok(())
        })
    }

    unsafe fn real_inverse_axis<T: FftFloat, const N: usize>(
        _: &Cpu,
        op: &'static str,
        x: Desc<Cpu, Complex<T>, N>,
        out: Desc<Cpu, T, N>,
        axis: usize,
        scale: Option<T>,
    ) -> Result<()> {
        let (given, n) = (x.shape[axis], out.shape[axis]);
        let half = n / 2 + 1;
        let plan = plans::real_inverse::<T>(n);
        let paired = (n % 2 == 1).then(|| plans::complex::<T>(n, false));
        let scratch =
            2 * half + plan.get_scratch_len().max(paired.as_ref().map_or(0, |p| real_pairs::scratch_len(&**p)));
        // SAFETY: both dense and live, `out` writable and apart from `x` (the trait's contract).
        let (input, output) = unsafe { (elements(x), elements_mut(out)) };
        let around = Around::new(x.shape, axis);
        let scaled_signal = |signal: &mut [T]| {
            if let Some(s) = scale {
                signal.iter_mut().for_each(|v| *v = *v * s);
            }
        };
        let rows = if paired.is_some() { 2 } else { 1 };
        lanes::between(op, input, output, around, ((given, n), rows), scratch, |mut lanes, mut signals, work| {
            let (spectrum_a, work) = work.split_at_mut(half);
            let (spectrum_b, work) = work.split_at_mut(half);
            let mut i = 0;
            while i < lanes.count() {
                half_spectrum(lanes.lane(i), spectrum_a, n);
                if let Some(p) = paired.as_ref().filter(|_| i + 1 < lanes.count()) {
                    half_spectrum(lanes.lane(i + 1), spectrum_b, n);
                    let (a, b) = signals.pair(i);
                    if real_pairs::inverse(&**p, (spectrum_a, spectrum_b), (&mut *a, &mut *b), work) {
                        scaled_signal(a);
                        scaled_signal(b);
                        i += 2;
                        continue;
                    }
                }
                let signal = signals.lane(i);
                plan.process_with_scratch(spectrum_a, signal, work).map_err(|e| realfft_error(op, e))?;
                scaled_signal(signal);
                i += 1;
            }
            Ok(())
        })
    }

    unsafe fn trig_axis<T: FftFloat, const N: usize>(
        _: &Cpu,
        op: &'static str,
        x: Desc<Cpu, T, N>,
        axis: usize,
        kind: (Family, DctType),
        norm: Norm,
        inverse: bool,
    ) -> Result<()> {
        // SAFETY: `x` is dense, live and the caller's alone (the trait's contract).
        let data = unsafe { elements_mut(x) };
        trig::on_lanes(op, data, x.shape, axis, kind, norm, inverse)
    }

    unsafe fn scale_modes<T: FftFloat, const N: usize>(
        _: &Cpu,
        x: Desc<Cpu, Complex<T>, N>,
        factors: Desc<Cpu, T, N>,
    ) -> Result<()> {
        // SAFETY: both dense, live and apart, `x` writable (the trait's contract).
        let (values, factors) = unsafe { (elements_mut(x), elements(factors)) };
        values.iter_mut().zip(factors).for_each(|(v, &f)| *v = v.scale(f));
        Ok(())
    }
}
