//! Restarted GMRES (Saad and Schultz), right-preconditioned, with modified Gram-Schmidt and
//! Givens rotations: for any nonsingular operator, one operator application per iteration and a
//! growing orthogonalization, restarted every `restart` iterations to bound memory.

use super::krylov::{krylov_method, precondition, Solve};
use super::operator::LinearOperator;
use super::options::SolveOptions;
use super::precond::Preconditioner;
use super::vectors::{SolverBackend, SolverScalar};
use crate::error::Result;

krylov_method! {
    /// GMRES(m), for any nonsingular operator, with the preconditioner on the right (the
    /// residual it minimizes is the true one). Keeps `restart + 1` vectors (the default 30 + 1);
    /// its residual never grows, and it breaks down only on an exact solution.
    ///
    /// ```
    /// use cnda::prelude::*;
    /// use cnda::solve::{Gmres, SolveOptions, StencilOperator};
    /// use cnda::stencil::{Boundary, DynStencil};
    /// // Upwind convection-diffusion on a periodic ring: nonsymmetric, nonsingular.
    /// let a = StencilOperator::new(DynStencil::new([([-1], -1.5), ([0], 2.6), ([1], -1.0)]), [200], [Boundary::Periodic]);
    /// let b = Array::from_fn([200], |[i]| (i as f64 * 0.1).sin());
    /// let mut x = Array::zeros([200]);
    /// let report = Gmres::new().options(SolveOptions::default().restart(20).rtol(1e-9)).solve(&a, &b, &mut x);
    /// assert!(report.residual_norm() <= 1e-9 * b.map(|v| v * v).sum().sqrt());
    /// ```
    Gmres, "gmres", iterate
}

/// GMRES(m) from `s`'s start until the tolerance, a breakdown or the iteration limit.
fn iterate<T, const N: usize, B, A, P>(s: &mut Solve<T, N, B>, options: &SolveOptions, a: &A, m: &P) -> Result<()>
where
    T: SolverScalar,
    B: SolverBackend,
    A: LinearOperator<T, N, B> + ?Sized,
    P: Preconditioner<T, N, B>,
{
    let Solve { space, x, r, b, progress } = s;
    let (halo, restart) = (space.halo(), options.restart.min(options.max_iters.max(1)));
    let mut basis = (0..=restart).map(|_| space.vector()).collect::<Result<Vec<_>>>()?;
    let mut z = if m.is_identity() { None } else { Some(space.vector()?) };
    let mut beta = progress.report.residual_history[0];
    loop {
        // The cycle's first vector, r / ‖r‖.
        space.copy(&mut basis[0], r)?;
        space.scale(&mut basis[0], 1.0 / beta)?;
        let mut cycle = Cycle::new(restart, beta);
        let mut outcome = Ok(false);
        for j in 0..restart {
            let (done, rest) = basis.split_at_mut(j + 1);
            let w = &mut rest[0];
            a.try_apply(precondition(m, &mut done[j], &mut z, halo)?, w)?;
            // Modified Gram-Schmidt, the last projection fused with the norm.
            let mut norm = 0.0;
            for (i, v) in done.iter().enumerate() {
                let h = space.dot(w, v)?;
                cycle.h[i][j] = h;
                if i == j {
                    norm = space.axpy_norm(w, -h, v)?;
                } else {
                    space.axpy(w, -h, v)?;
                }
            }
            cycle.h[j + 1][j] = norm;
            let estimate = cycle.rotate(j);
            outcome = progress.record(estimate);
            if !matches!(outcome, Ok(false)) || norm == 0.0 {
                break;
            }
            space.scale(w, 1.0 / norm)?;
        }
        if matches!(outcome, Err(crate::Error::Breakdown { .. })) {
            // A non-finite estimate: the cycle's update would be too; keep the last iterate.
            return outcome.map(|_| ());
        }
        // x += M (V y), with the basis's last slot as scratch (the cycle is over).
        let k = cycle.columns;
        let y = cycle.solve(k).map_err(|what| progress.breakdown(what))?;
        let (used, spare) = basis.split_at_mut(k);
        let u = &mut spare[0];
        space.copy(u, &used[0])?;
        space.scale(u, y[0])?;
        for (v, &yi) in used.iter().zip(&y).skip(1) {
            space.axpy(u, yi, v)?;
        }
        space.axpy(x, 1.0, precondition(m, u, &mut z, halo)?)?;
        if outcome? {
            return Ok(());
        }
        // Restart from the true residual (the estimate drifts from it by rounding).
        a.try_apply(x, r)?;
        beta = space.xpby_norm(r, b, -1.0)?;
        // The history's last entry becomes the iterate's true residual norm.
        if let Some(last) = progress.report.residual_history.last_mut() {
            *last = beta;
        }
        if progress.met(beta) {
            return Ok(());
        }
        if !beta.is_finite() {
            return Err(progress.breakdown(format!("the true residual norm is {beta}")));
        }
    }
}

/// One cycle's Hessenberg matrix, reduced to triangular form by Givens rotations as it grows, and
/// the rotated right-hand side `g` (whose last entry is the residual norm).
struct Cycle {
    h: Vec<Vec<f64>>,
    rotations: Vec<(f64, f64)>,
    g: Vec<f64>,
    columns: usize,
}

impl Cycle {
    fn new(restart: usize, beta: f64) -> Self {
        let mut g = vec![0.0; restart + 1];
        g[0] = beta;
        Cycle { h: vec![vec![0.0; restart]; restart + 1], rotations: Vec::with_capacity(restart), g, columns: 0 }
    }

    /// Rotates column `j` by the earlier rotations, adds the one that zeroes `h[j+1][j]`, and
    /// returns the residual norm after `j + 1` columns.
    fn rotate(&mut self, j: usize) -> f64 {
        for (i, &(c, s)) in self.rotations.iter().enumerate() {
            let (a, b) = (self.h[i][j], self.h[i + 1][j]);
            self.h[i][j] = c * a + s * b;
            self.h[i + 1][j] = -s * a + c * b;
        }
        let (a, b) = (self.h[j][j], self.h[j + 1][j]);
        let d = a.hypot(b);
        let (c, s) = if d == 0.0 { (1.0, 0.0) } else { (a / d, b / d) };
        self.h[j][j] = d;
        self.h[j + 1][j] = 0.0;
        self.g[j + 1] = -s * self.g[j];
        self.g[j] *= c;
        self.rotations.push((c, s));
        self.columns = j + 1;
        self.g[j + 1].abs()
    }

    /// The coefficients `y` of the first `k` basis vectors: `H y = g` by back substitution.
    fn solve(&self, k: usize) -> core::result::Result<Vec<f64>, String> {
        let mut y = vec![0.0; k];
        for i in (0..k).rev() {
            let sum: f64 = ((i + 1)..k).map(|l| self.h[i][l] * y[l]).sum();
            if self.h[i][i] == 0.0 {
                return Err(format!(
                    "the rotated Hessenberg matrix is singular at column {i} (the operator is singular)"
                ));
            }
            y[i] = (self.g[i] - sum) / self.h[i][i];
        }
        Ok(y)
    }
}

#[cfg(test)]
mod tests {
    use super::Cycle;

    /// Givens rotations leave the residual estimate of a 2 x 2 system at zero after two columns
    /// and back substitution solves it.
    #[test]
    fn a_cycle_solves_its_small_least_squares_problem() {
        // H = [[2, 1], [1, 3], [0, 0]] (a lucky end), g = [5, 0, 0].
        let mut c = Cycle::new(2, 5.0);
        c.h[0][0] = 2.0;
        c.h[1][0] = 1.0;
        let r1 = c.rotate(0);
        assert!((r1 - 5.0 / 5f64.sqrt()).abs() < 1e-12, "{r1}");
        c.h[0][1] = 1.0;
        c.h[1][1] = 3.0;
        let r2 = c.rotate(1);
        assert!(r2.abs() < 1e-12, "{r2}");
        let y = c.solve(2).unwrap();
        // [[2, 1], [1, 3]] y = [5, 0]: y = [3, -1].
        assert!((y[0] - 3.0).abs() < 1e-12 && (y[1] + 1.0).abs() < 1e-12, "{y:?}");
    }

    #[test]
    fn a_singular_cycle_is_an_error_not_a_division() {
        let mut c = Cycle::new(1, 1.0);
        c.rotate(0);
        assert!(c.solve(1).is_err());
    }
}
