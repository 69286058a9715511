//! Geometric multigrid for stencils between zero walls, `Neumann` sides and periodic axes:
//! vertex-centred coarsening by two (`n → (n − 1) / 2` between walls, so `2^k − 1`
//! points coarsen all the way; `n → (n + 1) / 2` between `Neumann` sides, `2^k + 1` points, the
//! end points kept; `n → n / 2` with one of each or on a periodic axis, `2^k`), full-weighting
//! restriction, multilinear prolongation, Galerkin coarse operators (`R A P`, exactly: from the
//! taps of a constant stencil, point by point where the rows vary, as next to a `Neumann` side
//! or with coefficient fields) or, for a conductivity, rediscretized ones
//! ([`CoarseOperators::Rediscretized`]), damped-Jacobi, red-black or Chebyshev smoothing, V-, W- and
//! F-cycles, full multigrid, and CG on the coarsest grid (on the consistent part of its
//! right-hand side when constants are the null space: no wall, and rows that sum to zero). As a
//! solver ([`Multigrid::solve`], [`Multigrid::full_multigrid`]) or as CG's preconditioner (one
//! cycle from zero; symmetric when `pre == post`, as by default, so CG converges in a handful of
//! iterations whatever the grid size). On any backend with stencil kernels.

mod build;
mod cycle;
#[cfg(feature = "mpi")]
mod dist;
#[cfg(feature = "mpi")]
mod dist_galerkin;
#[cfg(feature = "mpi")]
mod dist_rediscretize;
mod galerkin;
mod grid;
mod level;
mod operator;
mod rediscretize;
mod rows;
mod smoother;

use std::sync::Mutex;

use self::level::Level;
pub use self::smoother::Smoother;
use super::krylov::Solve;
use super::operator::{LinearOperator, StencilOperator};
use super::options::{SolveOptions, SolveReport};
use super::precond::Preconditioner;
use super::vectors::{SolverBackend, SolverScalar};
use crate::array::Array;
use crate::error::{or_panic, Error, Result};
use crate::kernel::tokens::Second;
use crate::kernel::{Cpu, Desc, StencilKernels};
use crate::ops::elementwise::update;
use crate::stencil::DynStencil;

/// The cycle between levels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CycleKind {
    /// One coarse-grid visit per level.
    V,
    /// Two (more robust, dearer on the coarse levels).
    W,
    /// An F-cycle then a V-cycle: between V and W in cost and robustness.
    F,
}

/// Where [`Multigrid::solve`] starts its cycles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Start {
    /// From the caller's guess.
    Guess,
    /// From a pass of full multigrid (FMG) on the guess's residual: the right-hand side
    /// restricted to every level, solved on the coarsest, then each finer level started from the
    /// coarser solution interpolated and improved by `cycles` cycles. One pass with one cycle per
    /// level reaches the discretization error of a smooth problem in about ten sweeps' work (its
    /// [`SolveReport::work`]); later cycles go on to the tolerance.
    FullMultigrid {
        /// Cycles per level (1 usually suffices).
        cycles: usize,
    },
}

/// How a hierarchy's coarse operators are made.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CoarseOperators {
    /// The Galerkin product `R A P` of the level above (the default): exact for any stencil,
    /// it follows jumps in a conductivity, at `3^N` taps per coarse point (a field each where
    /// the coefficients vary).
    #[default]
    Galerkin,
    /// For a diffusion operator ([`VariableOperator::diffusion_in`](super::VariableOperator::diffusion_in),
    /// or over MPI `DistOperator::diffusion`, each process restricting its own block):
    /// its conductivity restricted by full weighting to each coarser grid and discretized there
    /// again at twice the spacing, `2N + 1` taps on every level: cheaper cycles where the
    /// conductivity varies smoothly (the averaged conductivity blurs sharp jumps, where Galerkin
    /// products converge faster). A constant stencil's coarse operators stay Galerkin products.
    Rediscretized,
}

/// What a [`Multigrid`] hierarchy does: smoother, sweeps, cycle, and where coarsening stops.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MultigridOptions {
    /// The smoother (default [`Smoother::DampedJacobi`]).
    pub smoother: Smoother,
    /// Sweeps before the coarse correction (default 2).
    pub pre: usize,
    /// Sweeps after it (default 2). As CG's preconditioner the cycle must be symmetric: keep
    /// `post == pre`.
    pub post: usize,
    /// V-, W- or F-cycles (default V).
    pub cycle: CycleKind,
    /// How [`Multigrid::solve`] starts (default [`Start::Guess`]; the preconditioner always
    /// applies one cycle from zero).
    pub start: Start,
    /// Coarsening stops once a level has at most this many points (default 1000) or an axis
    /// cannot halve (see [`Multigrid`]'s shapes); that level is solved by CG.
    pub coarsest: usize,
    /// How the coarse operators of a conductivity are made (default
    /// [`CoarseOperators::Galerkin`]).
    pub coarse: CoarseOperators,
}

impl Default for MultigridOptions {
    fn default() -> Self {
        MultigridOptions {
            smoother: Smoother::DampedJacobi,
            pre: 2,
            post: 2,
            cycle: CycleKind::V,
            start: Start::Guess,
            coarsest: 1000,
            coarse: CoarseOperators::Galerkin,
        }
    }
}

/// A multigrid hierarchy for a [`StencilOperator`] on backend `B`.
///
/// Its shapes: along each axis, an odd number of points between two zero walls (`Value(0)` or
/// `Fixed`: 2^k − 1 coarsen all the way) or two `Neumann` sides (2^k + 1), an even number
/// between a wall and a `Neumann` side (2^k), an even number of at least 4 on a periodic axis
/// (2^k). Without a zero wall, a stencil whose weights sum to zero is singular (pure `Neumann`
/// or periodic Poisson): give a right-hand side of zero sum; the solution is defined up to a
/// constant.
///
/// ```
/// use cnda::prelude::*;
/// use cnda::solve::{Cg, Multigrid, StencilOperator};
/// use cnda::stencil::{Boundary, LinearStencil};
/// let n = 127; // 2^7 - 1: coarsens to 63, 31, 15, 7
/// let a = StencilOperator::new(LinearStencil::laplacian_5pt(1.0 / 128.0), [n, n], [Boundary::Value(0.0); 2]);
/// let mg = Multigrid::new(&a);
/// let b = Array::<f64, 2>::ones([n, n]);
/// let mut x = Array::zeros([n, n]);
/// let alone = mg.solve(&a, &b, &mut x, cnda::solve::SolveOptions::default().rtol(1e-10));
/// assert!(alone.iterations <= 12, "{alone:?}"); // a tenth of the residual per V(2,2) cycle
/// let mut y = Array::zeros([n, n]);
/// let preconditioned = Cg::new().rtol(1e-10).preconditioner(mg).solve(&a, &b, &mut y);
/// assert!(preconditioned.iterations <= 8, "{preconditioned:?}");
/// ```
pub struct Multigrid<T: SolverScalar, const N: usize, B: SolverBackend = Cpu> {
    levels: Mutex<Vec<Level<T, N, B>>>,
    options: MultigridOptions,
    restriction: DynStencil<T, N>,
    prolongation: DynStencil<T, N>,
    /// A distributed hierarchy's coarsest level solved whole on process 0 (`None` elsewhere
    /// and on one process).
    gathered: Option<Box<Gathered<T, N>>>,
    /// Whether constants are the operator's null space (no zero wall, and its rows sum to
    /// zero): the coarsest solve then solves the consistent part of its right-hand side.
    singular: bool,
}

/// `z ≈ A⁻¹ r` (with the vectors' halo, and `Some(cycles)` for a full-multigrid pass): what
/// each of a solve's cycles computes.
type Correction<'a, T, const N: usize, B> =
    dyn Fn(&Array<T, N, B>, &mut Array<T, N, B>, [usize; N], Option<usize>) -> Result<()> + 'a;

/// The operator of a distributed hierarchy's coarsest grid, whole, on process 0 (its blocks
/// gathered there), and its own hierarchy where the grid coarsens further.
struct Gathered<T: SolverScalar, const N: usize> {
    op: operator::LevelOperator<T, N, crate::kernel::Cpu>,
    multigrid: Option<Multigrid<T, N>>,
    singular: bool,
}

impl<T: SolverScalar, const N: usize, B: SolverBackend + StencilKernels> core::fmt::Debug for Multigrid<T, N, B> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Multigrid").field("levels", &self.level_shapes()).field("options", &self.options).finish()
    }
}

impl<T: SolverScalar, const N: usize> Multigrid<T, N> {
    /// The hierarchy of `op` on the CPU, with the default options.
    ///
    /// # Panics
    ///
    /// As [`Multigrid::try_new_in`] errs.
    #[track_caller]
    pub fn new(op: &StencilOperator<T, N>) -> Self {
        or_panic(Self::try_new_in(&Cpu, op, MultigridOptions::default()))
    }
}

impl<T: SolverScalar, const N: usize, B: SolverBackend + StencilKernels> Multigrid<T, N, B> {
    /// Solves `a x = b` by cycles from the guess in `x`, stopping as the Krylov methods do
    /// ([`SolveOptions`]: `max_iters` counts cycles). `a` must be the operator the hierarchy was
    /// built for.
    ///
    /// # Panics
    ///
    /// As [`Multigrid::try_solve`] errs.
    #[track_caller]
    pub fn solve<A: LinearOperator<T, N, B> + ?Sized>(
        &self,
        a: &A,
        b: &Array<T, N, B>,
        x: &mut Array<T, N, B>,
        options: SolveOptions,
    ) -> SolveReport {
        or_panic(self.try_solve(a, b, x, options))
    }

    /// [`Multigrid::solve`], returning errors; `x` holds the last iterate after
    /// `Error::NotConverged`.
    ///
    /// # Errors
    ///
    /// `Error::ShapeMismatch` when `a`, `b` or `x` differs from the hierarchy's finest grid; as
    /// [`Cg::try_solve`](super::Cg::try_solve) otherwise.
    pub fn try_solve<A: LinearOperator<T, N, B> + ?Sized>(
        &self,
        a: &A,
        b: &Array<T, N, B>,
        x: &mut Array<T, N, B>,
        options: SolveOptions,
    ) -> Result<SolveReport> {
        self.check_operator("Multigrid::solve", a)?;
        let before = Preconditioner::<T, N, B>::work(self);
        let mut solve = Solve::start("multigrid", &options, a, b, x)?;
        let correct = |r: &Array<T, N, B>, z: &mut Array<T, N, B>, halo, full| self.correction(r, z, halo, full);
        let outcome = if solve.done() { Ok(()) } else { self.iterate(&mut solve, a, &correct) };
        let mut report = solve.finish(x, outcome)?;
        // The cycles' passes, and the residual before the first and after each.
        report.work = Preconditioner::<T, N, B>::work(self) - before + 1.0 + report.iterations as f64;
        Ok(report)
    }

    /// One pass of full multigrid on `a x = b`, improving the guess in `x` (see
    /// [`Start::FullMultigrid`]) with `cycles` cycles per level, whatever the residual it
    /// leaves: the solver of choice when the discretization error, not the residual, is the
    /// target. The report holds the residual before and after, and the work (ten fine-grid
    /// sweeps' worth or so for V(2,2) cycles, [`SolveReport::work`]).
    ///
    /// # Panics
    ///
    /// As [`Multigrid::try_full_multigrid`] errs.
    #[track_caller]
    pub fn full_multigrid<A: LinearOperator<T, N, B> + ?Sized>(
        &self,
        a: &A,
        b: &Array<T, N, B>,
        x: &mut Array<T, N, B>,
        cycles: usize,
    ) -> SolveReport {
        or_panic(self.try_full_multigrid(a, b, x, cycles))
    }

    /// [`Multigrid::full_multigrid`], returning errors.
    ///
    /// # Errors
    ///
    /// As [`Multigrid::try_solve`], but for `Error::NotConverged`.
    pub fn try_full_multigrid<A: LinearOperator<T, N, B> + ?Sized>(
        &self,
        a: &A,
        b: &Array<T, N, B>,
        x: &mut Array<T, N, B>,
        cycles: usize,
    ) -> Result<SolveReport> {
        self.check_operator("Multigrid::full_multigrid", a)?;
        let before = Preconditioner::<T, N, B>::work(self);
        let mut s = Solve::start("multigrid", &SolveOptions::default(), a, b, x)?;
        let mut pass = || -> Result<()> {
            let mut correction = s.space.vector()?;
            self.correction(&s.r, &mut correction, s.space.halo(), Some(cycles))?;
            s.space.axpy(&mut s.x, 1.0, &correction)?;
            a.try_apply(&mut s.x, &mut s.r)?;
            let norm = s.space.xpby_norm(&mut s.r, &s.b, -1.0)?;
            s.progress.push(norm)
        };
        let outcome = pass();
        let mut report = s.finish(x, outcome)?;
        report.work = Preconditioner::<T, N, B>::work(self) - before + 2.0;
        Ok(report)
    }

    /// Cycles: `x += cycle(r)`, `r = b − A x`, until the tolerance; the first a full-multigrid
    /// pass when the options start so. `correct` is [`Multigrid::correction`], or a distributed
    /// solve's, which defers its errors to the next norm.
    fn iterate<A: LinearOperator<T, N, B> + ?Sized>(
        &self,
        s: &mut Solve<T, N, B>,
        a: &A,
        correct: &Correction<'_, T, N, B>,
    ) -> Result<()> {
        let mut correction = s.space.vector()?;
        let mut full = match self.options.start {
            Start::FullMultigrid { cycles } => Some(cycles),
            Start::Guess => None,
        };
        loop {
            correct(&s.r, &mut correction, s.space.halo(), full.take())?;
            s.space.axpy(&mut s.x, 1.0, &correction)?;
            a.try_apply(&mut s.x, &mut s.r)?;
            let norm = s.space.xpby_norm(&mut s.r, &s.b, -1.0)?;
            if s.progress.record(norm)? {
                return Ok(());
            }
        }
    }

    /// The shape of each level, finest first.
    pub fn level_shapes(&self) -> Vec<[usize; N]> {
        self.levels.lock().unwrap_or_else(std::sync::PoisonError::into_inner).iter().map(|l| l.space.shape()).collect()
    }

    fn check_operator<A: LinearOperator<T, N, B> + ?Sized>(&self, op: &'static str, a: &A) -> Result<()> {
        let levels = self.levels.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let finest = levels[0].space.shape();
        let shape = a.shape();
        if shape != finest {
            return Err(Error::ShapeMismatch { op, expected: finest.to_vec(), got: shape.to_vec() });
        }
        Ok(())
    }
}

impl<T: SolverScalar, const N: usize, B: SolverBackend + StencilKernels> Preconditioner<T, N, B>
    for Multigrid<T, N, B>
{
    /// One cycle from zero on `r`: `z ≈ A⁻¹ r`.
    fn try_apply(&self, r: &Array<T, N, B>, z: &mut Array<T, N, B>, halo: [usize; N]) -> Result<()> {
        self.correction(r, z, halo, None)
    }

    /// The passes of every level so far, each weighted by its share of the finest grid's points.
    fn work(&self) -> f64 {
        let levels = self.levels.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let points = |l: &Level<T, N, B>| l.space.shape().iter().product::<usize>() as f64;
        let finest = points(&levels[0]);
        levels.iter().map(|l| l.passes as f64 * points(l) / finest).sum()
    }
}

impl<T: SolverScalar, const N: usize, B: SolverBackend + StencilKernels> Multigrid<T, N, B> {
    /// `z ≈ A⁻¹ r`: one cycle from zero, or a full-multigrid pass of `full` cycles per level.
    fn correction(
        &self,
        r: &Array<T, N, B>,
        z: &mut Array<T, N, B>,
        halo: [usize; N],
        full: Option<usize>,
    ) -> Result<()> {
        let mut levels = self.levels.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let finest = &mut levels[0];
        let (shape, own) = (finest.space.shape(), finest.space.halo());
        // The caller's vectors may be padded wider than the finest level's (an operator whose
        // coefficient fields reach further than its unknown): the same interior, narrowed to.
        let narrowed = |d: Desc<B, T, N>| -> Result<Desc<B, T, N>> {
            for k in 0..N {
                let padded = halo[k].checked_mul(2).and_then(|h| h.checked_add(shape[k]));
                if halo[k] < own[k] || padded != Some(d.shape[k]) {
                    return Err(Error::ShapeMismatch {
                        op: "Multigrid (preconditioner)",
                        expected: (0..N).map(|k| shape[k] + 2 * own[k]).collect(),
                        got: d.shape.to_vec(),
                    });
                }
            }
            Ok((0..N).fold(d, |d, k| d.narrowed(k, halo[k] - own[k], shape[k] + 2 * own[k])))
        };
        let (r, z) = (narrowed(r.desc())?, narrowed(z.desc_mut())?);
        let (to, from) = (finest.space.interior(finest.b.desc_mut())?, finest.space.interior(r)?);
        // SAFETY: the finest level's right-hand side (uniquely borrowed through the lock) and
        // the caller's residual, another array; both interiors of the checked padded shape.
        unsafe { update(Second, to, from) }?;
        match full {
            Some(cycles) => self.full(&mut levels, cycles)?,
            None => {
                finest.x.try_fill(T::ZERO)?;
                self.cycle(&mut levels, self.options.cycle)?;
            }
        }
        let finest = &levels[0];
        let (to, from) = (finest.space.interior(z)?, finest.space.interior(finest.x.desc())?);
        // SAFETY: `z` is uniquely borrowed (its descriptor narrowed within its checked padded
        // shape); the level's iterate is another array; both interiors of the level's shape.
        unsafe { update(Second, to, from) }
    }
}
