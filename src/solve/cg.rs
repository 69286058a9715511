//! The conjugate gradient method (Hestenes and Stiefel), preconditioned: for symmetric operators
//! that are definite (positive or negative), one operator application, two or three dot products
//! and three vector updates per iteration.

use super::krylov::{krylov_method, Solve};
use super::operator::LinearOperator;
use super::options::SolveOptions;
use super::precond::Preconditioner;
use super::vectors::{SolverBackend, SolverScalar, Space};
use crate::array::Array;
use crate::error::{Error, Result};

krylov_method! {
    /// Conjugate gradients, for a symmetric definite operator (a Laplacian with homogeneous
    /// Dirichlet, Neumann or periodic boundaries; mind the constant null space of the last two)
    /// and a symmetric preconditioner of the same definiteness.
    ///
    /// Each iteration applies the operator once and stops on the recurrence's residual `‖r‖₂`
    /// (`b − A x` up to rounding). A breakdown (`p · A p = 0`) means the operator is not definite: use
    /// [`Bicgstab`](super::Bicgstab) or [`Gmres`](super::Gmres).
    ///
    /// ```
    /// use cnda::prelude::*;
    /// use cnda::solve::{Cg, StencilOperator};
    /// use cnda::stencil::{Boundary, DynStencil};
    /// let n = 64;
    /// let second_difference = DynStencil::new([([-1], 1.0), ([0], -2.0), ([1], 1.0)]);
    /// let a = StencilOperator::new(second_difference, [n], [Boundary::Value(0.0)]);
    /// let b = Array::<f64, 1>::ones([n]);
    /// let mut x = Array::zeros([n]);
    /// let report = Cg::new().rtol(1e-12).solve(&a, &b, &mut x);
    /// assert!(report.iterations <= n); // exact in n steps, rounding aside
    /// let exact = |i: usize| -(((i + 1) * (n - i)) as f64) / 2.0; // x'' = 1, x(-1) = x(n) = 0
    /// assert!((0..n).all(|i| (x[[i]] - exact(i)).abs() < 1e-8));
    /// ```
    Cg, "cg", iterate
}

/// CG from `s`'s start until the tolerance, a breakdown or the iteration limit.
fn iterate<T, const N: usize, B, A, P>(s: &mut Solve<T, N, B>, _: &SolveOptions, a: &A, m: &P) -> Result<()>
where
    T: SolverScalar,
    B: SolverBackend,
    A: LinearOperator<T, N, B> + ?Sized,
    P: Preconditioner<T, N, B>,
{
    let Solve { space, x, r, progress, .. } = s;
    let halo = space.halo();
    let (mut p, mut q) = (space.vector()?, space.vector()?);
    // With no preconditioner `z` is `r` itself, and `r · z` is `‖r‖²`.
    let mut z = if m.is_identity() { None } else { Some(space.vector()?) };
    let mut rz = match &mut z {
        None => space.dot(r, r)?,
        Some(z) => {
            m.try_apply(r, z, halo)?;
            space.dot(r, z)?
        }
    };
    space.copy(&mut p, z.as_ref().unwrap_or(r))?;
    loop {
        let pq = space.apply_dot(a, &mut p, &mut q)?;
        let alpha = progress.ratio("p · A p (CG needs a definite operator)", rz, pq)?;
        let r_norm = match space.axpy_norm(r, -alpha, &q) {
            Ok(norm) => norm,
            Err(e) => return last_iterate(space, x, alpha, &p, e),
        };
        let rr = r_norm * r_norm;
        // `x += α p` waits for the next direction, whose pass it shares, but for the last
        // iterate (converged, or an error: `x` holds it then too).
        let next = progress.record(r_norm).and_then(|done| {
            if done {
                return Ok(None);
            }
            let rz_next = match &mut z {
                None => rr,
                Some(z) => {
                    m.try_apply(r, z, halo)?;
                    space.dot(r, z)?
                }
            };
            progress.ratio("r · z (the preconditioner must be definite)", rz_next, rz).map(|beta| Some((rz_next, beta)))
        });
        match next {
            Ok(Some((rz_next, beta))) => {
                space.axpy_xpby(x, alpha, &mut p, beta, z.as_ref().unwrap_or(r))?;
                rz = rz_next;
            }
            Ok(None) => return space.axpy(x, alpha, &p),
            Err(e) => return last_iterate(space, x, alpha, &p, e),
        }
    }
}

/// `x += α p`, the last iterate, before returning the error `e` (the first error: a failure of
/// the update itself is dropped for it).
fn last_iterate<T: SolverScalar, const N: usize, B: SolverBackend>(
    space: &mut Space<T, N, B>,
    x: &mut Array<T, N, B>,
    alpha: f64,
    p: &Array<T, N, B>,
    e: Error,
) -> Result<()> {
    let _ = space.axpy(x, alpha, p);
    Err(e)
}
