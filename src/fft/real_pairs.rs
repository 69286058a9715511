//! Two real lanes of odd length through one complex transform. realfft computes a real signal of
//! odd length `n` through a complex transform of length `n` whose imaginary parts are zero: half
//! its work is wasted. Packed as `z = a + i b`, two signals share one transform, and the
//! spectrum's symmetries part them again: `A[k] = (Z[k] + conj Z[n-k]) / 2`, `B[k] = (Z[k] - conj
//! Z[n-k]) / 2i` (and backwards, two half spectra into one inverse transform).
//!
//! Rounding errors follow the larger of the two signals, so the smaller one is scaled up first by
//! a power of two (exact) to the other's magnitude, and down again after: each lane keeps an error
//! relative to its own size, as when transformed alone. Lanes that are zero, not finite (a NaN
//! would spread into the other lane) or near overflow are not paired: the caller transforms them
//! alone.

use num_complex::Complex;
use rustfft::Fft;

use super::FftFloat;
use crate::element::{Float, Numeric};

/// `x` in `T` (exact for the powers of two and the limits used here).
fn num<T: FftFloat>(x: f64) -> T {
    <T as Float>::from_f64(x)
}

/// The scales of two lanes of `n` points whose largest magnitudes are `a` and `b`: the smaller
/// lane's a power of two that brings it within a factor of two of the other, the other's 1.
/// `None` where they should not be paired: a lane zero or not finite, or so large that a packed
/// transform's sums (up to `2 n` times the larger lane, at most twice a lane's own) could
/// overflow where each lane's alone would not.
pub(super) fn scales<T: FftFloat>(a: T, b: T, n: usize) -> Option<(T, T)> {
    let zero = T::ZERO;
    let limit = super::plans::finite_max::<T>() / num::<T>(8.0 * n.max(1) as f64);
    let usable = |m: T| m > zero && m < limit;
    if !usable(a) || !usable(b) {
        return None;
    }
    let (big, small) = if a >= b { (a, b) } else { (b, a) };
    let ratio = big / small;
    if ratio >= num::<T>(2f64.powi(64)) {
        return None;
    }
    // The largest power of two `s <= ratio`, by halving steps of the exponent.
    let mut s = T::ONE;
    for p in [32, 16, 8, 4, 2, 1] {
        let f = num::<T>(2f64.powi(p));
        if s * f <= ratio {
            s = s * f;
        }
    }
    Some(if a >= b { (T::ONE, s) } else { (s, T::ONE) })
}

/// The largest magnitude of `values`, or NaN where one is not finite. (A select, not a branch:
/// the loop vectorizes.)
pub(super) fn largest<T: FftFloat>(values: &[T]) -> T {
    let mut m = T::ZERO;
    let mut finite = true;
    for &v in values {
        let v = v.abs();
        // `LARGEST` is infinity: false for infinities and NaNs.
        finite &= v < <T as Numeric>::LARGEST;
        m = if v > m { v } else { m };
    }
    if finite {
        m
    } else {
        num(f64::NAN)
    }
}

/// As [`largest`], over both parts of complex values.
fn largest_part<T: FftFloat>(values: &[Complex<T>]) -> T {
    largest(bytemuck::cast_slice(values))
}

/// The transforms of two real signals packed as `z = a + i b` (the transform of `z` given), at
/// frequency `k`, doubled: `(2 A[k], 2 B[k])`, as `A[k] = (Z[k] + conj Z[n-k]) / 2` and
/// `B[k] = (Z[k] - conj Z[n-k]) / 2i`.
pub(super) fn parted<T: FftFloat>(z: &[Complex<T>], k: usize) -> (Complex<T>, Complex<T>) {
    let mirror = if k == 0 { 0 } else { z.len() - k };
    let (p, q) = (z[k], z[mirror].conj());
    let (sum, diff) = (p + q, p - q);
    (sum, Complex::new(diff.im, -diff.re))
}

/// The scratch (complex values) [`forward`] and [`inverse`] need with `plan`.
pub(super) fn scratch_len<T: FftFloat>(plan: &dyn Fft<T>) -> usize {
    plan.len() + plan.get_inplace_scratch_len()
}

/// The half spectra (`n / 2 + 1` values each, unscaled, as realfft's) of the real lanes `a` and
/// `b` (odd length `n`), through `plan` (the forward complex transform of length `n`); `false`,
/// with nothing written, where the two should be transformed alone.
pub(super) fn forward<T: FftFloat>(
    plan: &dyn Fft<T>,
    (a, b): (&[T], &[T]),
    (spectrum_a, spectrum_b): (&mut [Complex<T>], &mut [Complex<T>]),
    work: &mut [Complex<T>],
) -> bool {
    let n = a.len();
    debug_assert!(n % 2 == 1 && b.len() == n && plan.len() == n);
    let Some((sa, sb)) = scales(largest(a), largest(b), n) else {
        return false;
    };
    let (z, scratch) = work.split_at_mut(n);
    for ((z, &x), &y) in z.iter_mut().zip(a).zip(b) {
        *z = Complex::new(x * sa, y * sb);
    }
    plan.process_with_scratch(z, scratch);
    let half = num::<T>(0.5);
    let (ha, hb) = (half / sa, half / sb);
    // The zero frequency: its own mirror, real for each lane.
    spectrum_a[0] = Complex::new(z[0].re / sa, T::ZERO);
    spectrum_b[0] = Complex::new(z[0].im / sb, T::ZERO);
    for k in 1..=n / 2 {
        let (a2, b2) = parted(z, k);
        spectrum_a[k] = a2.scale(ha);
        spectrum_b[k] = b2.scale(hb);
    }
    true
}

/// The real lanes `a` and `b` (odd length `n`, unscaled, as realfft's) of the half spectra
/// `spectrum_a` and `spectrum_b` (`n / 2 + 1` values each; the zero frequency's imaginary part is
/// ignored), through `plan` (the inverse complex transform of length `n`); `false`, with nothing
/// written, where the two should be transformed alone.
pub(super) fn inverse<T: FftFloat>(
    plan: &dyn Fft<T>,
    (spectrum_a, spectrum_b): (&[Complex<T>], &[Complex<T>]),
    (a, b): (&mut [T], &mut [T]),
    work: &mut [Complex<T>],
) -> bool {
    let n = a.len();
    debug_assert!(n % 2 == 1 && b.len() == n && plan.len() == n);
    let Some((sa, sb)) = scales(largest_part(spectrum_a), largest_part(spectrum_b), n) else {
        return false;
    };
    let (z, scratch) = work.split_at_mut(n);
    // Z = sa A + i sb B over the whole circle, with A[n-k] = conj A[k] (and so for B).
    z[0] = Complex::new(spectrum_a[0].re * sa, spectrum_b[0].re * sb);
    for k in 1..=n / 2 {
        let (x, y) = (spectrum_a[k].scale(sa), spectrum_b[k].scale(sb));
        z[k] = Complex::new(x.re - y.im, x.im + y.re);
        z[n - k] = Complex::new(x.re + y.im, y.re - x.im);
    }
    plan.process_with_scratch(z, scratch);
    let (ia, ib) = (T::ONE / sa, T::ONE / sb);
    for ((z, x), y) in z.iter().zip(a.iter_mut()).zip(b.iter_mut()) {
        *x = z.re * ia;
        *y = z.im * ib;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The direct sum of the DFT, in f64.
    fn dft(x: &[f64], sign: f64) -> Vec<Complex<f64>> {
        let n = x.len();
        (0..n)
            .map(|k| {
                x.iter().enumerate().fold(Complex::new(0.0, 0.0), |acc, (j, &v)| {
                    let t = sign * 2.0 * std::f64::consts::PI * (j * k % n) as f64 / n as f64;
                    acc + Complex::new(t.cos(), t.sin()) * v
                })
            })
            .collect()
    }

    #[test]
    fn scales_bring_the_smaller_lane_within_a_factor_of_two() {
        assert_eq!(scales(1.0f64, 1.0, 5), Some((1.0, 1.0)));
        assert_eq!(scales(1.0f64, 0.3, 5), Some((1.0, 2.0)));
        assert_eq!(scales(1e-9f64, 1.0, 5), Some((2f64.powi(29), 1.0)));
        assert_eq!(scales(1e30f32, 1e-5, 5), None, "too far apart");
        for (a, b) in [(0.0, 1.0), (1.0, 0.0), (f64::NAN, 1.0), (1.0, f64::INFINITY), (1e306, 1.0)] {
            assert_eq!(scales(a, b, 5), None, "{a} {b}");
        }
        // Near overflow, by the type's own range and the length.
        assert_eq!(scales(1e300f64, 1e299, 5).map(|s| s.0), Some(1.0));
        assert_eq!(scales(4e37f32, 4e37, 5), None);
        assert!(scales(1e36f32, 1e36, 5).is_some() && scales(1e36f32, 1e36, 5001).is_none());
    }

    #[test]
    fn two_lanes_of_any_magnitudes_transform_as_each_alone() {
        for n in [1, 3, 5, 9, 15, 21, 27, 101] {
            let fwd = crate::fft::plans::complex::<f64>(n, true);
            let inv = crate::fft::plans::complex::<f64>(n, false);
            for scale in [1.0, 1e-12, 1e9] {
                let a: Vec<f64> = (0..n).map(|j| ((j * 7 + 3) % 11) as f64 - 4.5).collect();
                let b: Vec<f64> = (0..n).map(|j| scale * (((j * 5 + 1) % 13) as f64 - 6.25)).collect();
                let mut work = vec![Complex::new(0.0, 0.0); scratch_len(&*fwd).max(scratch_len(&*inv))];
                let (mut fa, mut fb) =
                    (vec![Complex::new(0.0, 0.0); n / 2 + 1], vec![Complex::new(0.0, 0.0); n / 2 + 1]);
                assert!(forward(&*fwd, (&a, &b), (&mut fa, &mut fb), &mut work));
                for (lane, got) in [(&a, &fa), (&b, &fb)] {
                    let want = dft(lane, -1.0);
                    let size = lane.iter().map(|v| v.abs()).fold(0.0, f64::max);
                    for k in 0..=n / 2 {
                        assert!((got[k] - want[k]).norm() <= 1e-13 * size * n as f64, "n {n} scale {scale} k {k}");
                    }
                    assert_eq!(got[0].im, 0.0);
                }
                let (mut ra, mut rb) = (vec![0.0; n], vec![0.0; n]);
                assert!(inverse(&*inv, (&fa, &fb), (&mut ra, &mut rb), &mut work));
                for (lane, got) in [(&a, &ra), (&b, &rb)] {
                    let size = lane.iter().map(|v| v.abs()).fold(0.0, f64::max);
                    for j in 0..n {
                        assert!(
                            (got[j] / n as f64 - lane[j]).abs() <= 1e-13 * size * n as f64,
                            "n {n} scale {scale} j {j}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn lanes_that_would_spoil_each_other_are_left_alone() {
        let fwd = crate::fft::plans::complex::<f32>(5, true);
        let mut work = vec![Complex::new(0.0, 0.0); scratch_len(&*fwd)];
        let (mut fa, mut fb) = (vec![Complex::new(7.0, 7.0); 3], vec![Complex::new(7.0, 7.0); 3]);
        let one = [1.0f32; 5];
        for other in [[0.0; 5], [1.0, f32::NAN, 0.0, 0.0, 0.0], [f32::INFINITY; 5]] {
            assert!(!forward(&*fwd, (&one, &other), (&mut fa, &mut fb), &mut work));
            assert!(fa.iter().chain(&fb).all(|&c| c == Complex::new(7.0, 7.0)), "nothing written");
        }
    }
}
