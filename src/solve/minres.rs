//! MINRES (Paige and Saunders), preconditioned: for symmetric operators that need not be
//! definite, one operator application, two inner products (three preconditioned) and about eight
//! vector updates per iteration; the residual norm it minimizes never grows.

use super::krylov::{krylov_method, Solve};
use super::operator::LinearOperator;
use super::options::{Progress, SolveOptions};
use super::precond::Preconditioner;
use super::vectors::{SolverBackend, SolverScalar};
use crate::error::Result;

krylov_method! {
    /// MINRES, for a symmetric operator that may be indefinite (a Helmholtz operator `Δ + k²`,
    /// saddle points) where CG breaks down, in fixed memory where GMRES grows; with a symmetric
    /// positive definite preconditioner (Jacobi of a positive diagonal, a multigrid cycle of a
    /// definite operator).
    ///
    /// It minimizes the residual over the Krylov space: `‖b − A x‖₂` without a preconditioner,
    /// so the history (the method's estimate of it, the true norm up to rounding) never grows;
    /// with a preconditioner `M` (the approximate inverse applied) the norm `√(r · M r)`, and the
    /// history holds the true `‖b − A x‖₂`, updated by recurrence as CG does, which may grow a
    /// little between iterations. A breakdown means the operator is not symmetric (use
    /// [`Gmres`](super::Gmres)) or the preconditioner not positive definite.
    ///
    /// ```
    /// use cnda::prelude::*;
    /// use cnda::solve::{Minres, StencilOperator};
    /// use cnda::stencil::{Boundary, DynStencil};
    /// // u'' + k² u = 1 on 100 points (h = 1/101), u = 0 outside: indefinite for k = 20.
    /// let (n, h, k) = (100, 1.0 / 101.0, 20.0);
    /// let d = 1.0 / (h * h);
    /// let a = StencilOperator::new(DynStencil::new([([-1], d), ([0], k * k - 2.0 * d), ([1], d)]), [n], [Boundary::Value(0.0)]);
    /// let b = Array::<f64, 1>::ones([n]);
    /// let mut u = Array::zeros([n]);
    /// let report = Minres::new().rtol(1e-10).solve(&a, &b, &mut u);
    /// assert!(report.residual_history.windows(2).all(|w| w[1] <= w[0] * (1.0 + 1e-12)));
    /// ```
    Minres, "minres", iterate
}

/// MINRES from `s`'s start until the tolerance, a breakdown or the iteration limit.
fn iterate<T, const N: usize, B, A, P>(s: &mut Solve<T, N, B>, _: &SolveOptions, a: &A, m: &P) -> Result<()>
where
    T: SolverScalar,
    B: SolverBackend,
    A: LinearOperator<T, N, B> + ?Sized,
    P: Preconditioner<T, N, B>,
{
    let Solve { space, x, r, progress, .. } = s;
    let halo = space.halo();
    // The Lanczos vectors: `r1` the previous, `r2` the current (unnormalized), `y = M r2`.
    let (mut r1, mut r2, mut y, mut v) = (space.vector()?, space.vector()?, space.vector()?, space.vector()?);
    space.copy(&mut r1, r)?;
    space.copy(&mut r2, r)?;
    let preconditioned = !m.is_identity();
    if preconditioned {
        m.try_apply(r, &mut y, halo)?;
    } else {
        space.copy(&mut y, r)?;
    }
    let mut beta = m_norm(progress, space.dot(r, &y)?)?;
    // The search directions `w` (this one and the two before) and, when preconditioned, their
    // images under `A`, which update the true residual.
    let mut w = [space.vector()?, space.vector()?, space.vector()?];
    let mut aw = if preconditioned { Some([space.vector()?, space.vector()?, space.vector()?]) } else { None };
    let (mut old_beta, mut epsilon, mut dbar, mut phibar, mut cs, mut sn) = (0.0, 0.0, 0.0, beta, -1.0, 0.0);
    loop {
        // v = y / β, y = A v − (β / β_old) r1 − (α / β) r2: the Lanczos step.
        space.copy(&mut v, &y)?;
        space.scale(&mut v, 1.0 / beta)?;
        a.try_apply(&mut v, &mut y)?;
        if let Some(aw) = &mut aw {
            // This step's `A v`, for `A w` below (`aw[0]` is the oldest direction's, free now).
            space.copy(&mut aw[0], &y)?;
        }
        if old_beta != 0.0 {
            space.axpy(&mut y, -beta / old_beta, &r1)?;
        }
        let alpha = space.dot(&v, &y)?;
        space.axpy(&mut y, -alpha / beta, &r2)?;
        core::mem::swap(&mut r1, &mut r2);
        core::mem::swap(&mut r2, &mut y);
        if preconditioned {
            m.try_apply(&r2, &mut y, halo)?;
        } else {
            space.copy(&mut y, &r2)?;
        }
        old_beta = beta;
        let squared = space.dot(&r2, &y)?;
        // Zero: the Krylov space is invariant and this step's iterate the minimizer.
        beta = if squared == 0.0 { 0.0 } else { m_norm(progress, squared)? };
        // The QR factorization of the tridiagonal matrix, one Givens rotation per step.
        let old_epsilon = epsilon;
        let delta = cs * dbar + sn * alpha;
        let gbar = sn * dbar - cs * alpha;
        epsilon = sn * beta;
        dbar = -cs * beta;
        let gamma = gbar.hypot(beta);
        let symmetric = "the rotated diagonal (MINRES needs a symmetric operator)";
        let inverse = progress.ratio(symmetric, 1.0, gamma)?;
        cs = gbar * inverse;
        sn = beta * inverse;
        let phi = cs * phibar;
        phibar *= sn;
        // w = (v − ε_old w_{k−2} − δ w_{k−1}) / γ, into the oldest direction's vector.
        w.rotate_left(1);
        let [older, previous, current] = &mut w;
        space.copy(current, &v)?;
        space.axpy(current, -old_epsilon, older)?;
        space.axpy(current, -delta, previous)?;
        space.scale(current, inverse)?;
        space.axpy(x, phi, current)?;
        let norm = match &mut aw {
            None => phibar,
            Some(aw) => {
                // A w, the same combination of A v and the older images; r −= φ A w.
                aw.rotate_left(1);
                let [older, previous, current] = aw;
                space.axpy(current, -old_epsilon, older)?;
                space.axpy(current, -delta, previous)?;
                space.scale(current, inverse)?;
                space.axpy_norm(r, -phi, current)?
            }
        };
        if progress.record(norm)? {
            return Ok(());
        }
        if beta == 0.0 {
            // The Krylov space is invariant: the iterate is the minimizer, which the tolerance
            // did not accept (a singular operator and an inconsistent right-hand side).
            return Err(progress.breakdown(format!("the Krylov space stopped growing at residual {norm:.3e}")));
        }
    }
}

/// `√(r · M r)`, or a breakdown when it is negative, zero or not finite (the preconditioner is
/// not positive definite, or the operator gives NaN).
///
/// # Errors
///
/// `Error::Breakdown`.
fn m_norm(progress: &Progress, squared: f64) -> Result<f64> {
    if squared > 0.0 && squared.is_finite() {
        Ok(squared.sqrt())
    } else {
        Err(progress.breakdown(format!("r · M r = {squared:.3e} (MINRES needs a positive definite preconditioner)")))
    }
}
