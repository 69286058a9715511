//! BiCGSTAB (van der Vorst), right-preconditioned: for nonsymmetric operators, two operator
//! applications, six inner products (two of them norms) and six vector updates per iteration, in
//! fixed memory.

use super::krylov::{krylov_method, precondition, Solve};
use super::operator::LinearOperator;
use super::options::SolveOptions;
use super::precond::Preconditioner;
use super::vectors::{SolverBackend, SolverScalar};
use crate::array::Array;
use crate::error::Result;

krylov_method! {
    /// BiCGSTAB, for nonsymmetric operators (convection-diffusion, upwind stencils), with the
    /// preconditioner on the right (the residual it stops on is the unpreconditioned one, `b − A x`
    /// up to rounding).
    ///
    /// An iteration applies the operator twice; it may stop halfway when the intermediate
    /// residual meets the tolerance. Breakdowns (`r̂ · r = 0`, `ω = 0`) are rare; restart from
    /// the iterate, or use [`Gmres`](super::Gmres), which does not break down.
    ///
    /// ```
    /// use cnda::prelude::*;
    /// use cnda::solve::{Bicgstab, StencilOperator};
    /// use cnda::stencil::{Boundary, DynStencil};
    /// // -u'' + 20 u' = 1 on 100 points (central differences, h = 1/101), u = 0 outside.
    /// let (n, h) = (100, 1.0 / 101.0);
    /// let (d, c) = (1.0 / (h * h), 20.0 / (2.0 * h));
    /// let a = StencilOperator::new(DynStencil::new([([-1], -d - c), ([0], 2.0 * d), ([1], -d + c)]), [n], [Boundary::Value(0.0)]);
    /// let b = Array::<f64, 1>::ones([n]);
    /// let mut u = Array::zeros([n]);
    /// let report = Bicgstab::new().rtol(1e-10).solve(&a, &b, &mut u);
    /// assert!(report.residual_norm() <= 1e-10 * 10.0);
    /// ```
    Bicgstab, "bicgstab", iterate
}

/// BiCGSTAB from `s`'s start until the tolerance, a breakdown or the iteration limit.
fn iterate<T, const N: usize, B, A, P>(s: &mut Solve<T, N, B>, _: &SolveOptions, a: &A, m: &P) -> Result<()>
where
    T: SolverScalar,
    B: SolverBackend,
    A: LinearOperator<T, N, B> + ?Sized,
    P: Preconditioner<T, N, B>,
{
    let Solve { space, x, r, progress, .. } = s;
    let halo = space.halo();
    let mut r_hat = space.vector()?;
    space.copy(&mut r_hat, r)?;
    let (mut p, mut v, mut t) = (space.vector()?, space.vector()?, space.vector()?);
    let preconditioned = !m.is_identity();
    let (mut p_hat, mut s_hat) =
        if preconditioned { (Some(space.vector()?), Some(space.vector()?)) } else { (None, None) };
    let (mut rho, mut alpha, mut omega) = (1.0, 1.0, 1.0);
    loop {
        let rho_next = space.dot(&r_hat, r)?;
        let beta = progress.ratio("r̂ · r", rho_next, rho)? * progress.ratio("ω", alpha, omega)?;
        // p = r + β (p − ω v)
        space.axpy(&mut p, -omega, &v)?;
        space.xpby(&mut p, r, beta)?;
        let ph = precondition(m, &mut p, &mut p_hat, halo)?;
        a.try_apply(ph, &mut v)?;
        alpha = progress.ratio("r̂ · A p", rho_next, space.dot(&r_hat, &v)?)?;
        // s = r − α v, kept in r.
        let s_norm = space.axpy_norm(r, -alpha, &v)?;
        if progress.met(s_norm) {
            let ph = p_hat.as_ref().unwrap_or(&p);
            space.axpy(x, alpha, ph)?;
            progress.record(s_norm)?;
            return Ok(());
        }
        let sh = precondition(m, r, &mut s_hat, halo)?;
        a.try_apply(sh, &mut t)?;
        let sh: &Array<T, N, B> = if preconditioned { s_hat.as_ref().unwrap_or(r) } else { r };
        let tt = space.dot(&t, &t)?;
        omega = progress.ratio("t · t", space.dot(&t, r)?, tt)?;
        space.axpy(x, alpha, p_hat.as_ref().unwrap_or(&p))?;
        space.axpy(x, omega, sh)?;
        if progress.record(space.axpy_norm(r, -omega, &t)?)? {
            return Ok(());
        }
        if omega == 0.0 {
            return Err(progress.breakdown("ω = t · s / t · t is 0".into()));
        }
        rho = rho_next;
    }
}
