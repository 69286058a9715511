//! Direct solves of `c u - Δu = f` on periodic grids by Fourier transforms: the Laplacian is
//! diagonal in Fourier space, so one real transform, a division per wavenumber and the inverse
//! solve it exactly, in `O(n log n)`. The Laplacian is either the second-order finite-difference
//! one (the `2N + 1`-point stencil, as `LinearStencil::laplacian_5pt`/`laplacian_7pt` and the
//! solvers' operators apply it, with a spacing per axis; its discrete equations are solved to
//! rounding) or the exact one (spectral accuracy for smooth solutions).

use num_complex::Complex;

use super::{try_irfftn, try_rfftn, FftFloat, Norm};
use crate::array::Array;
use crate::element::Float;
use crate::error::{or_panic, Error, Result};
use crate::ops::operand::AsOperand;

/// Which Laplacian [`solve_periodic`] inverts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Laplacian {
    /// The second-order central difference along each axis, `(u[i-1] - 2 u[i] + u[i+1]) / h²`
    /// summed over the axes: wavenumber `k` of `n` points has the eigenvalue `4 sin²(π k / n) /
    /// h²`. The solution satisfies the finite-difference equations to rounding.
    #[default]
    SecondOrder,
    /// The derivative itself: eigenvalue `(2 π k / (n h))²` for the signed wavenumber `k` (the
    /// solution of the continuous equation for a band-limited right-hand side).
    Spectral,
}

/// The `u` with `shift u - Δu = f` on a grid periodic along every axis, `spacing[a]` apart along
/// axis `a`, the Laplacian as `laplacian` says. With `shift = 0` (Poisson) the constant is free
/// and `f` must average zero for a solution to exist: the solve takes `f`'s consistent part (its
/// mean removed, as the multigrid solvers do on periodic grids) and returns the `u` of mean
/// zero. Any layout of `f`; the result is row-major.
///
/// ```
/// use cnda::prelude::*;
/// use cnda::fft::{solve_periodic, Laplacian};
/// use std::f64::consts::PI;
///
/// // -Δu = f for u = sin(2 π x) cos(4 π y) on the unit square, 32 x 32 points.
/// let h = 1.0 / 32.0;
/// let u = Array::from_fn([32, 32], |[i, j]| (2.0 * PI * i as f64 * h).sin() * (4.0 * PI * j as f64 * h).cos());
/// let f = u.map(|x| 20.0 * PI * PI * x);
/// let solved = solve_periodic(&f, [h, h], 0.0, Laplacian::Spectral);
/// assert!((solved[[5, 7]] - u[[5, 7]]).abs() < 1e-12);
/// ```
///
/// # Panics
///
/// As [`try_solve_periodic`] errs.
#[track_caller]
pub fn solve_periodic<T: FftFloat, const N: usize>(
    f: impl AsOperand<T, N>,
    spacing: [T; N],
    shift: T,
    laplacian: Laplacian,
) -> Array<T, N> {
    or_panic(try_solve_periodic(f, spacing, shift, laplacian))
}

/// [`solve_periodic`], returning errors.
///
/// # Errors
///
/// `Error::Parameter` for a rank-0 grid, a spacing that is not positive and finite, a shift that
/// is not finite, or a shift that makes the operator singular (`shift` equal to minus an
/// eigenvalue of the Laplacian within rounding, a resonance of the Helmholtz equation); the
/// transforms' errors (an axis of length zero, `Error::Alloc`), in the transforms' names.
pub fn try_solve_periodic<T: FftFloat, const N: usize>(
    f: impl AsOperand<T, N>,
    spacing: [T; N],
    shift: T,
    laplacian: Laplacian,
) -> Result<Array<T, N>> {
    let op = "solve_periodic";
    let refuse = |reason: String, fix: &'static str| Err(Error::Parameter { op, reason, fix });
    if N == 0 {
        return refuse("a rank-0 grid has no axis to be periodic along".into(), "solve on a grid of rank 1 or more");
    }
    // Finite: below infinity in magnitude (NaN compares false).
    let finite = |x: T| x.abs() < T::LARGEST;
    if let Some(axis) = (0..N).find(|&a| !(finite(spacing[a]) && spacing[a] > T::ZERO)) {
        return refuse(
            format!("a spacing of {} along axis {axis}, which is not positive and finite", spacing[axis]),
            "give each axis's grid spacing, positive and finite",
        );
    }
    if !finite(shift) {
        return refuse(format!("a shift of {shift}"), "give a finite shift c of `c u - Δu = f` (0 for Poisson)");
    }
    let shape = f.operand_desc().shape;
    let axes: [usize; N] = core::array::from_fn(|a| a);
    let mut spectrum = try_rfftn(f, &axes, Norm::Backward)?;
    // Each axis's eigenvalues of -Δ, by wavenumber as the half spectrum stores them.
    let eigen: Vec<Vec<T>> = (0..N)
        .map(|a| {
            let len = if a + 1 == N { shape[a] / 2 + 1 } else { shape[a] };
            (0..len).map(|k| eigenvalue(laplacian, k, shape[a], spacing[a])).collect()
        })
        .collect();
    let half = spectrum.shape();
    // Below this an eigenvalue of the shifted operator is rounding: the mode would be multiplied
    // by ~1/eps, so the shift is taken as a resonance.
    let largest = eigen.iter().map(|e| e.iter().fold(T::ZERO, |m, &x| if x > m { x } else { m }));
    let size = largest.fold(shift.abs(), |s, m| s + m);
    let epsilon = <T as Float>::from_f64(if size_of::<T>() == 4 { f32::EPSILON as f64 } else { f64::EPSILON });
    let tolerance = <T as Float>::from_f64(16.0) * epsilon * size;
    let mut index = [0usize; N];
    for value in spectrum.as_mut_slice() {
        let lambda = shift + (0..N).fold(T::ZERO, |sum, a| sum + eigen[a][index[a]]);
        if index.iter().all(|&k| k == 0) && shift == T::ZERO {
            // The free constant: the solution of mean zero, `f`'s mean dropped.
            *value = Complex::new(T::ZERO, T::ZERO);
        } else if lambda.abs() <= tolerance {
            return refuse(
                format!("the operator is singular: the shift {shift} cancels the Laplacian at wavenumber {index:?}"),
                "pick a shift that is not minus an eigenvalue of the Laplacian (a resonance of the Helmholtz equation)",
            );
        } else {
            *value = value.unscale(lambda);
        }
        // The next index in row-major order.
        for a in (0..N).rev() {
            index[a] += 1;
            if index[a] < half[a] {
                break;
            }
            index[a] = 0;
        }
    }
    try_irfftn(&spectrum, &axes, shape[N - 1], Norm::Backward)
}

/// The eigenvalue of `-d²/dx²` at wavenumber `k` of `n` points `h` apart.
fn eigenvalue<T: FftFloat>(laplacian: Laplacian, k: usize, n: usize, h: T) -> T {
    let count = |x: usize| <T as Float>::from_f64(x as f64);
    let pi = <T as Float>::from_f64(core::f64::consts::PI);
    match laplacian {
        Laplacian::SecondOrder => {
            // (2 sin(π k / n) / h)², squared last so that no tiny or huge h squares out of range.
            let w = count(2) * (pi * count(k) / count(n)).sin() / h;
            w * w
        }
        Laplacian::Spectral => {
            // The signed wavenumber: k for k <= n / 2, k - n above.
            let signed = if k <= n / 2 { count(k) } else { -count(n - k) };
            let w = count(2) * pi * signed / (count(n) * h);
            w * w
        }
    }
}
