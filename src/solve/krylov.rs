//! What every Krylov method shares: the method types' builder (options, preconditioner), the
//! start of a solve (the vectors, `r = b − A x`, the stopping norm) and its end (the iterate
//! copied back into the caller's `x`, converged or not).

use std::sync::Arc;

use super::operator::LinearOperator;
use super::options::{Progress, SolveOptions, SolveReport};
use super::precond::Preconditioner;
use super::processes::{agreed, Processes};
use super::vectors::{SolverBackend, SolverScalar, Space};
use crate::array::Array;
use crate::error::{Error, Result};
use crate::layout::Strided;
use crate::stencil::SlabPass;
use crate::view::{Shared, Unique, View};

/// A solve in progress: the space, the iterate `x`, the residual `r = b − A x`, the right-hand
/// side, and the record.
pub(super) struct Solve<T: SolverScalar, const N: usize, B: SolverBackend> {
    pub(super) space: Space<T, N, B>,
    pub(super) x: Array<T, N, B>,
    pub(super) r: Array<T, N, B>,
    pub(super) b: Array<T, N, B>,
    pub(super) progress: Progress,
}

impl<T: SolverScalar, const N: usize, B: SolverBackend> Solve<T, N, B> {
    /// The start of a solve of `a x = b` from the caller's `x` by `method`: `None` when `b` is zero
    /// (then `x` is set to zero, as SciPy does).
    ///
    /// # Errors
    ///
    /// `Error::ShapeMismatch`, `Error::DeviceMismatch`, `Error::Parameter` (the options);
    /// `Error::Alloc`; whatever the operator returns.
    pub(super) fn start<A: LinearOperator<T, N, B> + ?Sized>(
        method: &'static str,
        options: &SolveOptions,
        a: &A,
        b_user: &Array<T, N, B>,
        x_user: &Array<T, N, B>,
    ) -> Result<Self> {
        Self::start_on(method, options, a, &b_user.view().into_strided(), &x_user.view().into_strided(), None)
    }

    /// [`Solve::start`] with the unknowns as views, shared by `processes` (`None`: this
    /// process alone). Collective on several processes, which return the same error.
    ///
    /// # Errors
    ///
    /// As [`Solve::start`].
    pub(super) fn start_on<A: LinearOperator<T, N, B> + ?Sized>(
        method: &'static str,
        options: &SolveOptions,
        a: &A,
        b_user: &View<'_, T, N, Shared, B, Strided>,
        x_user: &View<'_, T, N, Shared, B, Strided>,
        processes: Option<Arc<dyn Processes>>,
    ) -> Result<Self> {
        if processes.is_none() && a.distributed() {
            return Err(Error::Parameter {
                op: method,
                reason: "the operator's unknowns are split over MPI processes (a DistOperator)".into(),
                fix: "solve with solve_dist on DistArrays, which sums the dot products over the processes",
            });
        }
        let space = Space::new(method, a.shape(), a.halo(), b_user, x_user, processes.clone());
        // The checks and the first allocation agreed on before the first dot product.
        let mut space = match processes {
            None => space?,
            Some(p) => agreed(&*p, method, space)?,
        };
        let (mut b, mut x, mut r) = (space.vector()?, space.vector()?, space.vector()?);
        space.load(&mut b, b_user)?;
        space.load(&mut x, x_user)?;
        let b_norm = space.norm(&b)?;
        if !b_norm.is_finite() {
            return Err(Error::Parameter {
                op: method,
                reason: format!("the right-hand side's norm is {b_norm}: it holds NaN or infinity"),
                fix: "pass a finite right-hand side",
            });
        }
        let threshold = options.threshold(method, b_norm)?;
        if b_norm == 0.0 {
            space.copy(&mut x, &b)?;
        }
        a.try_apply(&mut x, &mut r)?;
        let r0 = space.xpby_norm(&mut r, &b, -1.0)?;
        if !r0.is_finite() {
            return Err(Error::Parameter {
                op: method,
                reason: format!("the initial residual's norm is {r0}: the guess or the operator gives NaN or infinity"),
                fix: "start from a finite guess (zeros) and check the operator",
            });
        }
        let progress = Progress::new(method, threshold, r0, options.max_iters);
        Ok(Solve { space, x, r, b, progress })
    }

    /// Whether the start already meets the tolerance (a zero right-hand side, a good guess).
    pub(super) fn done(&self) -> bool {
        self.progress.met(self.progress.report.residual_history[0])
    }

    /// The end of a solve: the iterate copied into the caller's `x` whatever `outcome` was (the
    /// last iterate on an error), then the report or the error.
    ///
    /// # Errors
    ///
    /// `outcome`'s error, else the copy's.
    pub(super) fn finish(self, x_user: &mut Array<T, N, B>, outcome: Result<()>) -> Result<SolveReport> {
        self.finish_on(&mut x_user.view_mut().into_strided(), outcome)
    }

    /// [`Solve::finish`] into a view of the unknowns; on several processes the copy's outcome
    /// is agreed on (`outcome` already is: every decision is made on sums the same everywhere).
    ///
    /// # Errors
    ///
    /// As [`Solve::finish`].
    pub(super) fn finish_on(
        self,
        x_user: &mut View<'_, T, N, Unique, B, Strided>,
        outcome: Result<()>,
    ) -> Result<SolveReport> {
        let mut stored = self.space.store(x_user, &self.x);
        if let Some(processes) = self.space.processes() {
            stored = stored.and_then(|()| processes.settle(self.space.method()));
        }
        outcome?;
        stored?;
        Ok(self.progress.report)
    }
}

/// An operator that counts its applications (a solve's work).
pub(super) struct Counted<'a, A: ?Sized> {
    inner: &'a A,
    applications: core::cell::Cell<usize>,
}

impl<'a, A: ?Sized> Counted<'a, A> {
    pub(super) fn new(inner: &'a A) -> Self {
        Counted { inner, applications: core::cell::Cell::new(0) }
    }

    /// The applications so far.
    pub(super) fn applications(&self) -> usize {
        self.applications.get()
    }
}

impl<T: SolverScalar, const N: usize, B: SolverBackend, A: LinearOperator<T, N, B> + ?Sized> LinearOperator<T, N, B>
    for Counted<'_, A>
{
    fn shape(&self) -> [usize; N] {
        self.inner.shape()
    }

    fn halo(&self) -> [usize; N] {
        self.inner.halo()
    }

    fn try_apply(&self, x: &mut Array<T, N, B>, y: &mut Array<T, N, B>) -> Result<()> {
        self.applications.set(self.applications.get() + 1);
        self.inner.try_apply(x, y)
    }

    fn try_apply_in_slabs(
        &self,
        x: &mut Array<T, N, B>,
        y: &mut Array<T, N, B>,
        scratch: &mut Array<T, N, B>,
        each: &mut SlabPass<'_, B, T, N>,
    ) -> Result<bool> {
        let fused = self.inner.try_apply_in_slabs(x, y, scratch, each)?;
        self.applications.set(self.applications.get() + usize::from(fused));
        Ok(fused)
    }

    fn applies_in_slabs(&self) -> bool {
        self.inner.applies_in_slabs()
    }

    fn distributed(&self) -> bool {
        self.inner.distributed()
    }
}

/// `M p` into `into`, or `p` itself when there is no preconditioner (`into` is `None`): what the
/// right-preconditioned methods apply the operator to.
///
/// # Errors
///
/// The preconditioner's.
pub(super) fn precondition<'a, T, const N: usize, B, P>(
    m: &P,
    p: &'a mut Array<T, N, B>,
    into: &'a mut Option<Array<T, N, B>>,
    halo: [usize; N],
) -> Result<&'a mut Array<T, N, B>>
where
    T: SolverScalar,
    B: SolverBackend,
    P: Preconditioner<T, N, B>,
{
    match into {
        None => Ok(p),
        Some(z) => {
            m.try_apply(p, z, halo)?;
            Ok(z)
        }
    }
}

/// A Krylov method's type: its options and preconditioner, builder methods, and `solve` /
/// `try_solve` around the method's iteration `$iterate`.
macro_rules! krylov_method {
    ($(#[$doc:meta])* $Method:ident, $name:literal, $iterate:path) => {
        $(#[$doc])*
        #[derive(Clone, Debug, Default)]
        pub struct $Method<P = $crate::solve::Identity> {
            options: $crate::solve::SolveOptions,
            preconditioner: P,
        }

        impl $Method {
            /// The method with the default options and no preconditioner.
            pub fn new() -> Self {
                Self::default()
            }
        }

        impl<P> $Method<P> {
            /// This method with `options`.
            pub fn options(mut self, options: $crate::solve::SolveOptions) -> Self {
                self.options = options;
                self
            }

            /// This method stopping at `rtol` relative to `‖b‖₂` ([`SolveOptions::rtol`]).
            pub fn rtol(mut self, rtol: f64) -> Self {
                self.options.rtol = rtol;
                self
            }

            /// This method stopping at `atol` ([`SolveOptions::atol`]).
            pub fn atol(mut self, atol: f64) -> Self {
                self.options.atol = atol;
                self
            }

            /// This method with at most `max_iters` iterations ([`SolveOptions::max_iters`]).
            pub fn max_iters(mut self, max_iters: usize) -> Self {
                self.options.max_iters = max_iters;
                self
            }

            /// This method with preconditioner `preconditioner`.
            pub fn preconditioner<Q>(self, preconditioner: Q) -> $Method<Q> {
                $Method { options: self.options, preconditioner }
            }

            /// Solves `a x = b`, starting from the guess in `x` and leaving the solution there.
            ///
            /// # Panics
            ///
            #[doc = concat!("As [`", stringify!($Method), "::try_solve`] errs.")]
            #[track_caller]
            pub fn solve<T, const N: usize, B, A>(
                &self,
                a: &A,
                b: &$crate::array::Array<T, N, B>,
                x: &mut $crate::array::Array<T, N, B>,
            ) -> $crate::solve::SolveReport
            where
                T: $crate::solve::SolverScalar,
                B: $crate::solve::SolverBackend,
                A: $crate::solve::LinearOperator<T, N, B> + ?Sized,
                P: $crate::solve::Preconditioner<T, N, B>,
            {
                $crate::error::or_panic(self.try_solve(a, b, x))
            }

            #[doc = concat!("[`", stringify!($Method), "::solve`], returning errors. `x` holds the last iterate after")]
            /// `Error::NotConverged` and `Error::Breakdown`.
            ///
            /// # Errors
            ///
            /// `Error::ShapeMismatch` when `b` or `x` differs from the operator's shape;
            /// `Error::DeviceMismatch`; `Error::Parameter` for options out of their domain;
            /// `Error::NotConverged`; `Error::Breakdown`; `Error::Alloc`; the operator's and the
            /// preconditioner's errors.
            pub fn try_solve<T, const N: usize, B, A>(
                &self,
                a: &A,
                b: &$crate::array::Array<T, N, B>,
                x: &mut $crate::array::Array<T, N, B>,
            ) -> $crate::error::Result<$crate::solve::SolveReport>
            where
                T: $crate::solve::SolverScalar,
                B: $crate::solve::SolverBackend,
                A: $crate::solve::LinearOperator<T, N, B> + ?Sized,
                P: $crate::solve::Preconditioner<T, N, B>,
            {
                let m = &self.preconditioner;
                let before = m.work();
                let a = $crate::solve::krylov::Counted::new(a);
                let mut solve = $crate::solve::krylov::Solve::start($name, &self.options, &a, b, x)?;
                let outcome = if solve.done() { Ok(()) } else { $iterate(&mut solve, &self.options, &a, m) };
                let mut report = solve.finish(x, outcome)?;
                report.work = a.applications() as f64 + (m.work() - before);
                Ok(report)
            }

            /// Solves `a x = b` on a grid distributed over MPI processes, starting from the
            /// guess in `x`'s owned points and leaving the solution there (halos untouched):
            /// the iterations of [`solve`](Self::solve), with each dot product summed over the
            /// processes (in rank order: every process stops at the same iteration) and one
            /// halo exchange per operator application. The preconditioner acts on each
            /// process's block (`Jacobi` from the block's diagonal) or over the processes
            /// (`Multigrid::for_dist`). Collective; the same report on every process.
            ///
            /// # Panics
            ///
            #[doc = concat!("As [`", stringify!($Method), "::try_solve_dist`] errs, on every process alike.")]
            #[cfg(feature = "mpi")]
            #[track_caller]
            pub fn solve_dist<T, const N: usize, B, A>(
                &self,
                a: &$crate::solve::DistOperator<T, N, A, B>,
                b: &$crate::dist::DistArray<T, N, B>,
                x: &mut $crate::dist::DistArray<T, N, B>,
            ) -> $crate::solve::SolveReport
            where
                T: $crate::solve::SolverScalar + mpi::datatype::Equivalence + 'static,
                B: $crate::solve::SolverBackend + $crate::dist::DistBackend + 'static,
                A: $crate::solve::LinearOperator<T, N, B>,
                P: $crate::solve::Preconditioner<T, N, B>,
            {
                $crate::error::or_panic(self.try_solve_dist(a, b, x))
            }

            #[doc = concat!("[`", stringify!($Method), "::solve_dist`], returning errors, the same on every process.")]
            ///
            /// # Errors
            ///
            /// `Error::Decomposition` when `b` or `x` is split otherwise than the operator's
            /// grid; as [`try_solve`](Self::try_solve) otherwise (a process's own failure, a
            /// device's say, reaches the others as `Error::Mpi` naming it).
            #[cfg(feature = "mpi")]
            pub fn try_solve_dist<T, const N: usize, B, A>(
                &self,
                a: &$crate::solve::DistOperator<T, N, A, B>,
                b: &$crate::dist::DistArray<T, N, B>,
                x: &mut $crate::dist::DistArray<T, N, B>,
            ) -> $crate::error::Result<$crate::solve::SolveReport>
            where
                T: $crate::solve::SolverScalar + mpi::datatype::Equivalence + 'static,
                B: $crate::solve::SolverBackend + $crate::dist::DistBackend + 'static,
                A: $crate::solve::LinearOperator<T, N, B>,
                P: $crate::solve::Preconditioner<T, N, B>,
            {
                const OP: &str = concat!(stringify!($Method), "::solve_dist");
                a.check_split(OP, "b", b)?;
                a.check_split(OP, "x", x)?;
                a.check_device(OP, b)?;
                let (deferring, m) = a.deferring(&self.preconditioner);
                let before = m.work();
                let counted = $crate::solve::krylov::Counted::new(&deferring);
                let mut solve = $crate::solve::krylov::Solve::start_on(
                    $name,
                    &self.options,
                    &counted,
                    &b.owned(),
                    &x.owned(),
                    Some(a.processes()),
                )?;
                let outcome = if solve.done() { Ok(()) } else { $iterate(&mut solve, &self.options, &counted, &m) };
                let mut report = solve.finish_on(&mut x.owned_mut(), outcome)?;
                report.work = counted.applications() as f64 + (m.work() - before);
                Ok(report)
            }
        }
    };
}

pub(super) use krylov_method;
