//! The discrete Hartley transform along one axis, `H[k] = sum_j x[j] cas(2 pi j k / n)` with
//! `cas = cos + sin`: a real transform that, like the real Fourier transform, diagonalizes the
//! periodic second difference (its basis functions are sums of the `k`-th cosine and sine, which
//! share an eigenvalue), but keeps real data real. That lets a distributed solve move real
//! points between processes on every axis (`dist.rs`), one transform per axis. Built from the
//! real transform on any backend: `H[k] = Re X[k] - Im X[k]` for the half spectrum's `k`, and
//! `H[n - k] = Re X[k] + Im X[k]` for the rest. Its own inverse but for a factor `1 / n`.

use super::{try_rfft, FftFloat, FftKernels, Norm};
use crate::array::Array;
use crate::error::Result;

/// `x`'s Hartley transform along `axis`, in place (divided by the axis's length for the
/// `inverse`), on `x`'s backend.
///
/// # Errors
///
/// The real transform's (an axis beyond the rank or of no points, `Error::Alloc`).
pub(super) fn in_place<T: FftFloat, const N: usize, B: FftKernels>(
    x: &mut Array<T, N, B>,
    axis: usize,
    inverse: bool,
) -> Result<()> {
    let spectrum = try_rfft(&*x, axis, if inverse { Norm::Forward } else { Norm::Backward })?;
    let n = x.shape()[axis];
    let half = n / 2 + 1;
    let (re, im) = spectrum.view().parts();
    let mut low = x.view_mut().into_strided().try_narrow(axis, 0, half)?;
    low.try_assign(&re.try_sub(im)?)?;
    // The frequencies past the middle, `n - k` for `k` from 1 up, are the conjugates' sums.
    let rest = n - half;
    if rest > 0 {
        let sums = re.try_narrow(axis, 1, rest)?.try_add(im.try_narrow(axis, 1, rest)?)?;
        let mut high = x.view_mut().into_strided().try_narrow(axis, half, rest)?.try_flip(axis)?;
        high.try_assign(&sums)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The definition, summed naively.
    fn naive(x: &[f64]) -> Vec<f64> {
        let n = x.len();
        (0..n)
            .map(|k| {
                let w = core::f64::consts::TAU * k as f64 / n as f64;
                x.iter().enumerate().map(|(j, v)| v * ((w * j as f64).cos() + (w * j as f64).sin())).sum()
            })
            .collect()
    }

    #[test]
    fn the_transform_is_the_definition_and_its_own_inverse() {
        for n in [1, 2, 3, 4, 7, 8, 12, 97] {
            let x = Array::from_fn([3, n], |[i, j]| ((i * 31 + j * 17) % 11) as f64 - 5.0);
            let mut h = x.clone();
            in_place(&mut h, 1, false).unwrap();
            for i in 0..3 {
                let row: Vec<f64> = (0..n).map(|j| x[[i, j]]).collect();
                let want = naive(&row);
                for (j, w) in want.iter().enumerate() {
                    assert!((h[[i, j]] - w).abs() <= 1e-10 * n as f64, "n {n}: {} != {w}", h[[i, j]]);
                }
            }
            in_place(&mut h, 1, true).unwrap();
            assert!(h.iter().zip(x.iter()).all(|(a, b)| (a - b).abs() <= 1e-12 * n as f64), "n {n}");
            // Along the other axis too.
            let mut c = x.clone();
            in_place(&mut c, 0, false).unwrap();
            let col: Vec<f64> = (0..3).map(|i| x[[i, n - 1]]).collect();
            let want = naive(&col);
            assert!((0..3).all(|i| (c[[i, n - 1]] - want[i]).abs() <= 1e-10));
        }
    }
}
