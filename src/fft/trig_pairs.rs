//! Cosine and sine transforms of types II and III, two real lanes through one complex transform.
//! rustdct computes these for a length that is not a power of two through a complex transform of
//! the same length whose input is real (type II: the lane reordered, Makhoul's algorithm) or
//! whose output is (type III): half its work is wasted. Two lanes packed as `a + i b` share one
//! transform, as in `real_pairs.rs` (whose scaling and refusals this follows), and rustdct's own
//! steps before and after are applied to each: the same definition, scaled as rustdct's.

use std::sync::Arc;

use num_complex::Complex;
use rustfft::Fft;

use super::real_pairs::{largest, parted, scales};
use super::trig::{DctType, Family};
use super::{plans, FftFloat};
use crate::element::Float;

/// Types II and III of one family for `n` points, computed in pairs.
pub(super) struct PairedTrig<T> {
    fft: Arc<dyn Fft<T>>,
    family: Family,
    ty: DctType,
    /// `e^(-2 pi i k / 4n)` for `k < n`.
    twiddles: Vec<Complex<T>>,
}

impl<T: FftFloat> PairedTrig<T> {
    /// For the transform rustdct computes through a complex one of the same length: types II and
    /// III of a length that is neither a power of two nor one of its small kernels (3).
    pub(super) fn new(family: Family, ty: DctType, n: usize) -> Option<Self> {
        if !matches!(ty, DctType::II | DctType::III) || n < 5 || n.is_power_of_two() {
            return None;
        }
        let twiddles = (0..n)
            .map(|k| {
                let angle = -2.0 * std::f64::consts::PI * (k as f64 / (4 * n) as f64);
                Complex::new(<T as Float>::from_f64(angle.cos()), <T as Float>::from_f64(angle.sin()))
            })
            .collect();
        Some(PairedTrig { fft: plans::complex::<T>(n, true), family, ty, twiddles })
    }

    /// The scratch (complex values) [`process`](Self::process) needs.
    pub(super) fn scratch_len(&self) -> usize {
        self.twiddles.len() + self.fft.get_inplace_scratch_len()
    }

    /// rustdct's transform of `a` and of `b` in place; `false`, with nothing written, where the
    /// two should be transformed alone.
    pub(super) fn process(&self, a: &mut [T], b: &mut [T], work: &mut [Complex<T>]) -> bool {
        let n = self.twiddles.len();
        debug_assert!(a.len() == n && b.len() == n);
        let Some((sa, sb)) = scales(largest(a), largest(b), n) else {
            return false;
        };
        let (z, scratch) = work[..self.scratch_len()].split_at_mut(n);
        let sine = matches!(self.family, Family::Sine);
        match self.ty {
            DctType::II => {
                // The even points in order, then the odd ones backwards (negated for the sine).
                let even_end = n.div_ceil(2);
                let odd_end = n - 1 - n % 2;
                let sign = if sine { -T::ONE } else { T::ONE };
                for i in 0..even_end {
                    z[i] = Complex::new(a[2 * i] * sa, b[2 * i] * sb);
                }
                for i in 0..n / 2 {
                    z[even_end + i] = Complex::new(a[odd_end - 2 * i] * sa * sign, b[odd_end - 2 * i] * sb * sign);
                }
                self.fft.process_with_scratch(z, scratch);
                // Each lane's spectrum from the packed one, times the twiddle, real part; the
                // sine's outputs backwards.
                let (ha, hb) = (<T as Float>::from_f64(0.5) / sa, <T as Float>::from_f64(0.5) / sb);
                for k in 0..n {
                    let ((va, vb), w) = (parted(z, k), self.twiddles[k]);
                    let at = if sine { n - 1 - k } else { k };
                    a[at] = (va.re * w.re - va.im * w.im) * ha;
                    b[at] = (vb.re * w.re - vb.im * w.im) * hb;
                }
            }
            _ => {
                // The twiddled, half-weighted input whose transform is real, for each lane.
                let half = <T as Float>::from_f64(0.5);
                let input = |x: &[T], i: usize| -> Complex<T> {
                    if i == 0 {
                        Complex::new(x[if sine { n - 1 } else { 0 }] * half, T::ZERO)
                    } else if sine {
                        Complex::new(x[n - 1 - i], x[i - 1]) * self.twiddles[i] * half
                    } else {
                        Complex::new(x[i], x[n - i]) * self.twiddles[i] * half
                    }
                };
                for (i, z) in z.iter_mut().enumerate() {
                    let (u, v) = (input(a, i).scale(sa), input(b, i).scale(sb));
                    // u + i v
                    *z = Complex::new(u.re - v.im, u.im + v.re);
                }
                self.fft.process_with_scratch(z, scratch);
                let (ia, ib) = (T::ONE / sa, T::ONE / sb);
                let even_end = n.div_ceil(2);
                let odd_end = n - 1 - n % 2;
                let sign = if sine { -T::ONE } else { T::ONE };
                for i in 0..even_end {
                    a[2 * i] = z[i].re * ia;
                    b[2 * i] = z[i].im * ib;
                }
                for i in 0..n / 2 {
                    a[odd_end - 2 * i] = sign * z[i + even_end].re * ia;
                    b[odd_end - 2 * i] = sign * z[i + even_end].im * ib;
                }
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// rustdct's definitions, summed directly in f64.
    fn direct(family: Family, ty: DctType, x: &[f64]) -> Vec<f64> {
        let n = x.len() as f64;
        let pi = std::f64::consts::PI;
        (0..x.len())
            .map(|k| {
                let k = k as f64;
                x.iter()
                    .enumerate()
                    .map(|(j, &v)| {
                        let j = j as f64;
                        match (family, ty) {
                            (Family::Cosine, DctType::II) => v * (pi * k * (2.0 * j + 1.0) / (2.0 * n)).cos(),
                            (Family::Sine, DctType::II) => v * (pi * (k + 1.0) * (2.0 * j + 1.0) / (2.0 * n)).sin(),
                            (Family::Cosine, _) if j == 0.0 => v / 2.0,
                            (Family::Cosine, _) => v * (pi * j * (2.0 * k + 1.0) / (2.0 * n)).cos(),
                            (Family::Sine, _) if j == n - 1.0 => v * (pi * (2.0 * k + 1.0) / 2.0).sin() / 2.0,
                            (Family::Sine, _) => v * (pi * (j + 1.0) * (2.0 * k + 1.0) / (2.0 * n)).sin(),
                        }
                    })
                    .sum()
            })
            .collect()
    }

    /// Each lane as rustdct's definition gives it, for both families and types, odd and even
    /// lengths, lanes of very different sizes; and rustdct's own plan agrees.
    #[test]
    fn pairs_compute_rustdct_definitions_lane_by_lane() {
        for n in [5, 6, 7, 9, 10, 12, 15, 27, 30, 105] {
            for family in [Family::Cosine, Family::Sine] {
                for ty in [DctType::II, DctType::III] {
                    let plan = PairedTrig::<f64>::new(family, ty, n).expect("a paired plan");
                    for scale in [1.0, 1e-10, 1e8] {
                        let a: Vec<f64> = (0..n).map(|j| ((j * 7 + 3) % 11) as f64 - 4.5).collect();
                        let b: Vec<f64> = (0..n).map(|j| scale * (((j * 5 + 1) % 13) as f64 - 6.25)).collect();
                        let (mut pa, mut pb) = (a.clone(), b.clone());
                        let mut work = vec![Complex::new(0.0, 0.0); plan.scratch_len()];
                        assert!(plan.process(&mut pa, &mut pb, &mut work));
                        for (x, got) in [(&a, &pa), (&b, &pb)] {
                            let want = direct(family, ty, x);
                            let mut theirs = x.clone();
                            plans::with_trig_planner::<f64, _>(|p| {
                                let plan = p.plan_dct2(n);
                                match (family, ty) {
                                    (Family::Cosine, DctType::II) => plan.process_dct2(&mut theirs),
                                    (Family::Sine, DctType::II) => plan.process_dst2(&mut theirs),
                                    (Family::Cosine, _) => plan.process_dct3(&mut theirs),
                                    (Family::Sine, _) => plan.process_dst3(&mut theirs),
                                }
                            });
                            let size = want.iter().fold(1e-300, |m: f64, v| m.max(v.abs()));
                            for k in 0..n {
                                let err = (got[k] - want[k]).abs() / size;
                                assert!(err < 1e-12, "{family:?} {ty:?} n {n} scale {scale} k {k}: {err}");
                                let err = (theirs[k] - want[k]).abs() / size;
                                assert!(err < 1e-12, "rustdct's {family:?} {ty:?} n {n} k {k}: {err}");
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn only_the_lengths_rustdct_takes_through_a_complex_transform() {
        for n in [1, 2, 3, 4, 8, 16, 1024] {
            assert!(PairedTrig::<f32>::new(Family::Cosine, DctType::II, n).is_none(), "{n}");
        }
        assert!(PairedTrig::<f32>::new(Family::Cosine, DctType::I, 9).is_none());
        assert!(PairedTrig::<f32>::new(Family::Sine, DctType::IV, 9).is_none());
        let plan = PairedTrig::<f32>::new(Family::Sine, DctType::III, 9).unwrap();
        let mut work = vec![Complex::new(0.0, 0.0); plan.scratch_len()];
        let (mut a, mut b) = ([1.0f32; 9], [0.0f32; 9]);
        assert!(!plan.process(&mut a, &mut b, &mut work), "a zero lane goes alone");
        assert_eq!((a, b), ([1.0; 9], [0.0; 9]), "nothing written");
    }
}
