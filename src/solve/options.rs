//! What every iterative solver takes (tolerances, an iteration limit) and returns (the residual
//! history), and the stopping rule they share: `‖r‖₂ ≤ max(rtol ‖b‖₂, atol)` for the method's
//! residual `r` (`b − A x` up to rounding; GMRES's estimate within a cycle).

use crate::error::{Error, Result};

/// The stopping rule and limits of an iterative solve. The solve stops once the residual's
/// 2-norm `‖b − A x‖₂` is at most `max(rtol ‖b‖₂, atol)` (SciPy's rule), and fails with
/// [`Error::NotConverged`] after `max_iters` iterations without it.
///
/// ```
/// use cnda::solve::SolveOptions;
/// let o = SolveOptions::default().rtol(1e-10).max_iters(500);
/// assert_eq!((o.rtol, o.atol, o.max_iters, o.restart), (1e-10, 0.0, 500, 30));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SolveOptions {
    /// Tolerance relative to `‖b‖₂` (default `1e-8`).
    pub rtol: f64,
    /// Absolute tolerance on `‖b − A x‖₂` (default `0`).
    pub atol: f64,
    /// The most iterations (operator applications for CG; two per BiCGSTAB iteration) before
    /// [`Error::NotConverged`] (default 10 000).
    pub max_iters: usize,
    /// GMRES's restart length: the Krylov vectors kept (default 30); other methods ignore it.
    pub restart: usize,
}

impl Default for SolveOptions {
    fn default() -> Self {
        SolveOptions { rtol: 1e-8, atol: 0.0, max_iters: 10_000, restart: 30 }
    }
}

impl SolveOptions {
    /// These options with tolerance `rtol` relative to `‖b‖₂`.
    pub fn rtol(mut self, rtol: f64) -> Self {
        self.rtol = rtol;
        self
    }

    /// These options with absolute tolerance `atol`.
    pub fn atol(mut self, atol: f64) -> Self {
        self.atol = atol;
        self
    }

    /// These options with at most `max_iters` iterations.
    pub fn max_iters(mut self, max_iters: usize) -> Self {
        self.max_iters = max_iters;
        self
    }

    /// These options with GMRES restarted every `restart` iterations.
    pub fn restart(mut self, restart: usize) -> Self {
        self.restart = restart;
        self
    }

    /// The residual norm that stops a solve of right-hand side norm `b_norm`, after checking the
    /// options.
    ///
    /// # Errors
    ///
    /// `Error::Parameter` for a negative or non-finite tolerance, both tolerances zero, or an
    /// iteration limit or restart length of zero.
    pub(super) fn threshold(&self, method: &'static str, b_norm: f64) -> Result<f64> {
        let bad = |reason: String, fix| Err(Error::Parameter { op: method, reason, fix });
        for (name, value) in [("rtol", self.rtol), ("atol", self.atol)] {
            if !(value.is_finite() && value >= 0.0) {
                return bad(format!("{name} is {value}, not a finite tolerance >= 0"), "pass a tolerance such as 1e-8");
            }
        }
        if self.rtol == 0.0 && self.atol == 0.0 {
            return bad(
                "rtol and atol are both 0, a residual rounding never reaches".into(),
                "give rtol (relative to the right-hand side's norm) or atol a positive value",
            );
        }
        if self.max_iters == 0 {
            return bad("max_iters is 0".into(), "allow at least one iteration (the default is 10 000)");
        }
        if self.restart == 0 {
            return bad("restart is 0".into(), "keep at least one Krylov vector (the default is 30)");
        }
        Ok((self.rtol * b_norm).max(self.atol))
    }
}

/// What a converged solve did: iterations and the residual norm after each.
#[derive(Clone, Debug, PartialEq)]
pub struct SolveReport {
    /// The method (`"cg"`, `"minres"`, `"bicgstab"`, `"gmres"`, `"multigrid"`).
    pub method: &'static str,
    /// The iterations run (0 when the initial guess already met the tolerance).
    pub iterations: usize,
    /// `‖b − A x₀‖₂` followed by the residual norm after each iteration: the recurrence's
    /// residual for CG and BiCGSTAB (equal to `‖b − A x‖₂` up to rounding), the true one for
    /// multigrid, and for GMRES its estimate within a cycle, replaced by the true norm at each
    /// restart.
    pub residual_history: Vec<f64>,
    /// The norm at which the solve stopped: `max(rtol ‖b‖₂, atol)`.
    pub threshold: f64,
    /// The work, in operator applications on the grid of the unknowns: the method's own (the
    /// first residual's included) and its preconditioner's
    /// ([`Preconditioner::work`](super::Preconditioner::work): multigrid counts each stencil
    /// pass over a level as that level's share of the finest grid's points).
    pub work: f64,
}

impl SolveReport {
    /// The final residual norm.
    pub fn residual_norm(&self) -> f64 {
        self.residual_history.last().copied().unwrap_or(0.0)
    }
}

/// The record of a solve in progress: the history, and the checks each iteration ends with.
pub(super) struct Progress {
    pub(super) report: SolveReport,
    max_iters: usize,
}

impl Progress {
    /// A solve by `method` that stops at `threshold`, from initial residual norm `r0`.
    pub(super) fn new(method: &'static str, threshold: f64, r0: f64, max_iters: usize) -> Self {
        let report = SolveReport { method, iterations: 0, residual_history: vec![r0], threshold, work: 0.0 };
        Progress { report, max_iters }
    }

    /// Whether `r` meets the tolerance.
    pub(super) fn met(&self, r: f64) -> bool {
        r <= self.report.threshold
    }

    /// Records an iteration's residual norm: `Ok(true)` when it meets the tolerance, `Ok(false)`
    /// when another iteration may run.
    ///
    /// # Errors
    ///
    /// `Error::Breakdown` for a non-finite norm; `Error::NotConverged` when the iterations are
    /// used up.
    pub(super) fn record(&mut self, r: f64) -> Result<bool> {
        self.push(r)?;
        if self.met(r) {
            return Ok(true);
        }
        if self.report.iterations >= self.max_iters {
            let method = self.report.method;
            return Err(Error::NotConverged {
                method,
                iterations: self.report.iterations,
                reason: format!("residual {r:.3e}, asked for {:.3e}", self.report.threshold),
                fix: "allow more iterations (max_iters), loosen rtol/atol, add a preconditioner, or \
                      check that the operator suits the method (CG: symmetric and definite)",
            });
        }
        Ok(false)
    }

    /// Records an iteration's residual norm, whatever the tolerance.
    ///
    /// # Errors
    ///
    /// `Error::Breakdown` for a non-finite norm.
    pub(super) fn push(&mut self, r: f64) -> Result<()> {
        self.report.iterations += 1;
        self.report.residual_history.push(r);
        if !r.is_finite() {
            return Err(self.breakdown(format!("the residual norm is {r}")));
        }
        Ok(())
    }

    /// A breakdown at the current iteration.
    pub(super) fn breakdown(&self, reason: String) -> Error {
        Error::Breakdown {
            method: self.report.method,
            iteration: self.report.iterations,
            reason,
            fix: "check the operator and right-hand side for NaN or infinity; CG needs a symmetric \
                  definite operator (use BiCGSTAB or GMRES otherwise); GMRES breaks down least",
        }
    }

    /// `num / den` as the recurrence's coefficient, or a breakdown naming `what` when it is zero
    /// or not finite.
    ///
    /// # Errors
    ///
    /// `Error::Breakdown`.
    pub(super) fn ratio(&self, what: &str, num: f64, den: f64) -> Result<f64> {
        let q = num / den;
        if den == 0.0 || !q.is_finite() {
            return Err(self.breakdown(format!("{what}: {num:.3e} / {den:.3e}")));
        }
        Ok(q)
    }
}
