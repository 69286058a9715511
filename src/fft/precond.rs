//! The direct box solve as a preconditioner of the Krylov solvers: `z = (c - Δ_h)⁻¹ r`, the
//! constant-coefficient operator inverted exactly by transforms, approximates the inverse of a
//! variable-coefficient or otherwise perturbed operator with the same boundaries, at a number of
//! iterations that does not grow with the grid where the coefficients vary smoothly.

use super::poisson::{check_modes, check_sides, try_solve_box, Laplacian};
use super::{FftFloat, FftKernels};
use crate::array::Array;
use crate::error::{or_panic, Error, Result};
use crate::solve::Preconditioner;
use crate::stencil::{Boundaries, Boundary};
use std::sync::atomic::{AtomicUsize, Ordering};

/// `z = (shift - Δ_h)⁻¹ r` by [`solve_box`](super::solve_box) with the second-order Laplacian
/// on a grid of `shape`, `spacing` apart, with `boundaries` (each axis periodic, walled or
/// mirrored; a wall's value is taken as zero: a preconditioner is linear). With `shift >= 0` it
/// is symmetric positive (semi)definite, as CG and MINRES need; with `shift = 0` and no wall it
/// drops the constant (the null space of the periodic and Neumann Laplacians), as a Poisson solve
/// does. A negative shift (Helmholtz past its first resonance) makes it indefinite: use it with
/// GMRES or BiCGStab; a shift at a resonance is refused when the preconditioner is made.
///
/// Its [`work`](Preconditioner::work) is an estimate from flop counts: a forward and an inverse
/// transform along each axis, `5 log2(n)` flops per point each, against the `2 (2N + 1)` of one
/// application of the operator's second-order stencil, times the applications so far.
///
/// A good preconditioner for `-∇·(k ∇u) + c u` with a smoothly varying `k`: scale it by a
/// typical `k` (precondition `A / k̄`) or leave it, CG does not mind a constant factor.
///
/// ```
/// use cnda::prelude::*;
/// use cnda::fft::BoxPreconditioner;
/// use cnda::solve::{Cg, FnOperator};
/// use cnda::stencil::Boundary;
///
/// // -(k u')' = 1 on 255 points between zero walls, k from 1 to 3.
/// let (n, h) = (255, 1.0 / 256.0);
/// let k = |x: f64| 2.0 + (6.0 * x).sin();
/// let a = FnOperator::new([n], move |u: &Array<f64, 1>, y: &mut Array<f64, 1>| {
///     let at = |i: isize| if (0..n as isize).contains(&i) { u[[i as usize]] } else { 0.0 };
///     for i in 0..n as isize {
///         let (left, right) = (k((i as f64 + 0.5) * h), k((i as f64 + 1.5) * h));
///         y[[i as usize]] = (left * (at(i) - at(i - 1)) - right * (at(i + 1) - at(i))) / (h * h);
///     }
/// });
/// let b = Array::<f64, 1>::ones([n]);
/// let mut u = Array::zeros([n]);
/// let m = BoxPreconditioner::new([n], [h], 0.0, [Boundary::Value(0.0)]);
/// let report = Cg::new().rtol(1e-10).preconditioner(m).solve(&a, &b, &mut u);
/// assert!(report.iterations < 30); // 20 here; plain CG takes 320
/// ```
#[derive(Debug)]
pub struct BoxPreconditioner<T, const N: usize> {
    shape: [usize; N],
    spacing: [T; N],
    shift: T,
    boundaries: Boundaries<T, N>,
    /// Applications so far, for [`work`](Preconditioner::work).
    applications: AtomicUsize,
}

impl<T: Copy, const N: usize> Clone for BoxPreconditioner<T, N> {
    fn clone(&self) -> Self {
        BoxPreconditioner { applications: AtomicUsize::new(self.applications.load(Ordering::Relaxed)), ..*self }
    }
}

impl<T: FftFloat, const N: usize> BoxPreconditioner<T, N> {
    /// The preconditioner of the box operator of `shape`, `spacing`, `shift` and `boundaries`.
    ///
    /// # Panics
    ///
    /// As [`BoxPreconditioner::try_new`] errs.
    #[track_caller]
    pub fn new(shape: [usize; N], spacing: [T; N], shift: T, boundaries: impl Into<Boundaries<T, N>>) -> Self {
        or_panic(Self::try_new(shape, spacing, shift, boundaries))
    }

    /// [`BoxPreconditioner::new`], returning errors.
    ///
    /// # Errors
    ///
    /// `Error::Parameter` as [`try_solve_box`](super::try_solve_box) refuses the spacing, the
    /// shift or the sides (checked here, once); an axis of no points.
    pub fn try_new(
        shape: [usize; N],
        spacing: [T; N],
        shift: T,
        boundaries: impl Into<Boundaries<T, N>>,
    ) -> Result<Self> {
        let op = "BoxPreconditioner::new";
        let given: Boundaries<T, N> = boundaries.into();
        // Walls of zeros: the preconditioner is the operator's linear part.
        let sides: [[Boundary<T>; 2]; N] = core::array::from_fn(|a| {
            [given.at(a, crate::stencil::Side::Low), given.at(a, crate::stencil::Side::High)].map(|b| match b {
                Boundary::Value(_) => Boundary::Fixed,
                other => other,
            })
        });
        let boundaries = Boundaries::from(sides);
        let sides = check_sides(op, &boundaries, spacing, shift, Laplacian::SecondOrder)?;
        if let Some(axis) = shape.iter().position(|&n| n == 0) {
            return Err(Error::Parameter {
                op,
                reason: format!("axis {axis} of shape {shape:?} has no points"),
                fix: "give the operator's shape, every axis of one point or more",
            });
        }
        // A resonant shift is refused here, not at the solver's first application.
        check_modes(op, &sides, shape, spacing, shift, Laplacian::SecondOrder)?;
        Ok(BoxPreconditioner { shape, spacing, shift, boundaries, applications: AtomicUsize::new(0) })
    }
}

/// On the residual's backend: the CPU, or a device with transforms (CUDA, WebGPU), where the
/// solve runs as [`solve_box`](super::solve_box) does there.
impl<T: FftFloat, const N: usize, B: FftKernels> Preconditioner<T, N, B> for BoxPreconditioner<T, N> {
    fn try_apply(&self, r: &Array<T, N, B>, z: &mut Array<T, N, B>, halo: [usize; N]) -> Result<()> {
        let padded: Option<Vec<usize>> =
            (0..N).map(|a| halo[a].checked_mul(2).and_then(|h| h.checked_add(self.shape[a]))).collect();
        for (got, op) in
            [(r.shape(), "BoxPreconditioner (the residual)"), (z.shape(), "BoxPreconditioner (the output)")]
        {
            if padded.as_deref() != Some(&got[..]) {
                let expected = padded.clone().unwrap_or_else(|| self.shape.to_vec());
                return Err(Error::ShapeMismatch { op, expected, got: got.to_vec() });
            }
        }
        let mut inner_r = r.view().into_strided();
        for (a, (&start, &len)) in halo.iter().zip(&self.shape).enumerate() {
            inner_r = inner_r.try_narrow(a, start, len)?;
        }
        let solved = try_solve_box(inner_r, self.spacing, self.shift, self.boundaries, Laplacian::SecondOrder)?;
        self.applications.fetch_add(1, Ordering::Relaxed);
        let mut inner_z = z.view_mut().into_strided();
        for (a, (&start, &len)) in halo.iter().zip(&self.shape).enumerate() {
            inner_z = inner_z.try_narrow(a, start, len)?;
        }
        inner_z.try_assign(&solved)
    }

    fn work(&self) -> f64 {
        let transforms: f64 = self.shape.iter().map(|&n| 5.0 * (n.max(2) as f64).log2()).sum();
        self.applications.load(Ordering::Relaxed) as f64 * transforms / (2.0 * (2 * N + 1) as f64)
    }
}
