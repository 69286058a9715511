//! Multigrid over a distributed grid ([`Multigrid::for_dist`]): every level split over the
//! processes as [`Decomposition::coarsened`] splits it (each coarse point on the process owning
//! its fine image, so the grid transfers need only halo exchanges), down to where a process
//! would own nothing or the grid is small; that level is gathered on process 0, solved there
//! whole (by its own hierarchy where it coarsens further) and scattered back.

use mpi::datatype::Equivalence;

use super::build::{check, sums_to_zero};
use super::dist_galerkin::{DistGrid, Finest};
use super::grid::Coarsening;
use super::level::{Level, LevelExchange};
use super::operator::{constant_taps, HostTaps, LevelOperator};
use super::rows::{ConstantRows, Folded};
use super::{galerkin, Gathered, Multigrid, MultigridOptions};
use crate::array::Array;
use crate::dist::bound::ThreadBound;
use crate::dist::{DistArray, DistBackend};
use crate::element::Pod;
use crate::error::{or_panic, Error, Result};
use crate::kernel::{Cpu, StencilKernels};
use crate::solve::dist::local_boundaries;
use crate::solve::krylov::Solve;
use crate::solve::operator::{LinearOperator, StencilOperator};
use crate::solve::precond::Preconditioner;
use crate::solve::processes::agreed;
use crate::solve::vectors::{SolverBackend, SolverScalar};
use crate::solve::{DistOperator, SolveOptions, SolveReport};
use crate::stencil::DynStencil;

const OP: &str = "Multigrid::for_dist";

/// A distributed level's grid: a spare array of the level's split, whose exchange plan and
/// communicator the level's vectors borrow (on the thread that made the hierarchy only).
pub(super) struct LevelGrid<T: Pod + Equivalence, const N: usize, B: DistBackend> {
    array: ThreadBound<DistArray<T, N, B>>,
    origin: [usize; N],
}

impl<T: Pod + Equivalence, const N: usize, B: DistBackend> LevelGrid<T, N, B> {
    pub(super) fn new(array: DistArray<T, N, B>) -> Self {
        let origin = array.decomposition().block(array.rank()).map(|r| r.start);
        LevelGrid { array: ThreadBound::new(array), origin }
    }
}

impl<T, const N: usize, B> LevelExchange<T, N, B> for LevelGrid<T, N, B>
where
    T: SolverScalar + Equivalence,
    B: SolverBackend + DistBackend,
{
    fn exchange(&mut self, v: &mut Array<T, N, B>) -> Result<()> {
        const OP: &str = "multigrid (halo exchange)";
        let array = self.array.get_mut(OP)?;
        let outcome = array.exchange_block(OP, v, false);
        array.agree_on_device(OP, outcome)
    }

    fn gather(&mut self, v: &mut Array<T, N, B>) -> Result<Option<Array<T, N>>> {
        const OP: &str = "multigrid (coarsest gather)";
        self.array.get_mut(OP)?.with_block(OP, v, |a| a.try_gather(0))?
    }

    fn scatter(&mut self, v: &mut Array<T, N, B>, global: Option<&Array<T, N>>) -> Result<()> {
        const OP: &str = "multigrid (coarsest scatter)";
        self.array.get_mut(OP)?.with_block(OP, v, |a| a.try_scatter(0, global))?
    }

    fn origin(&self) -> [usize; N] {
        self.origin
    }
}

impl<T, const N: usize, B> Multigrid<T, N, B>
where
    T: SolverScalar + Equivalence + 'static,
    B: SolverBackend + DistBackend + StencilKernels + 'static,
{
    /// The hierarchy of a stencil operator on a distributed grid (built by
    /// [`DistOperator::stencil`]): Galerkin coarse operators as [`Multigrid::new_in`] builds
    /// them, each level split over the processes as [`Decomposition::coarsened`](crate::dist::Decomposition::coarsened)
    /// splits it, its vectors on the blocks' backend. Next to `Neumann` sides the coarse operators
    /// vary point by point: each process computes them at its block (the level above's rows
    /// at and next to it, their halos exchanged) and keeps them as coefficient fields, and
    /// Chebyshev smoothing takes the largest of the processes' bounds. Coarsening goes on while a process keeps
    /// a point and the grid has more than `options.coarsest` points; that level is gathered on
    /// process 0 and solved there. As the preconditioner of a Krylov method's `solve_dist`, one
    /// cycle per application (its smoothing and transfers exchange halos; red-black colours by
    /// global index). Collective. Use it with `solve_dist` only: a one-process solve would run
    /// its exchanges in step on every process but sum its dot products on each alone.
    ///
    /// ```no_run
    /// use cnda::dist::DistArray;
    /// use cnda::solve::{Cg, DistOperator, Multigrid, MultigridOptions};
    /// use cnda::stencil::{Boundary, LinearStencil};
    /// let universe = mpi::initialize().unwrap();
    /// let (n, h) = (255, 1.0 / 256.0);
    /// let mut b = DistArray::<f64, 3>::new(&universe.world(), [n; 3], [1; 3], [false; 3]);
    /// b.fill_owned_with(|_| 1.0);
    /// let a = DistOperator::stencil(LinearStencil::laplacian_7pt(h), [Boundary::Value(0.0); 3], &b);
    /// let mg = Multigrid::for_dist(&a, MultigridOptions::default());
    /// let mut x = DistArray::new(&universe.world(), [n; 3], [1; 3], [false; 3]);
    /// let report = Cg::new().rtol(1e-8).preconditioner(mg).solve_dist(&a, &b, &mut x);
    /// ```
    ///
    /// # Panics
    ///
    /// As [`Multigrid::try_for_dist`] errs.
    #[track_caller]
    pub fn for_dist(a: &DistOperator<T, N, StencilOperator<T, N>, B>, options: MultigridOptions) -> Self {
        or_panic(Self::try_for_dist(a, options))
    }

    /// [`Multigrid::for_dist`], returning errors, the same on every process.
    ///
    /// # Errors
    ///
    /// `Error::Parameter` for an operator not built by [`DistOperator::stencil`], or as
    /// [`Multigrid::try_new_in`] refuses its grid and boundaries; `Error::Decomposition` when a
    /// level's blocks are thinner than its operator's halo (stencils of radius 2 or more on
    /// many processes); `Error::Alloc`; `Error::Device` from the coarse fields' uploads (next to
    /// `Neumann` sides); `Error::Mpi` on another thread than the operator's.
    pub fn try_for_dist(a: &DistOperator<T, N, StencilOperator<T, N>, B>, options: MultigridOptions) -> Result<Self> {
        let Some(boundaries) = a.boundaries() else {
            return Err(Error::Parameter {
                op: OP,
                reason: "the operator was not built from a stencil and its conditions on the whole grid".into(),
                fix: "build it with DistOperator::stencil",
            });
        };
        let grid = a.grid(OP)?;
        let (rank, alloc) = (grid.rank(), grid.allocator());
        let mut decomposition = *grid.decomposition();
        let mut shape = decomposition.global_shape();
        let stencil = a.local().stencil();
        let (coarsening, sides) = check(shape, stencil.radius(), boundaries)?;
        let HostTaps::Constant(mut taps) = constant_taps(a.local()) else {
            unreachable!("a stencil's taps are constant")
        };
        let singular = !coarsening.has_wall() && sums_to_zero::<T>(taps.iter().map(|&(_, w)| w));
        let mut levels = Vec::new();
        loop {
            let weights = DynStencil::try_new(taps.iter().map(|&(o, w)| (o, T::from_f64(w))))?;
            let halo = weights.radius();
            let exchange = DistArray::try_with_decomposition_in(&alloc, grid.communicator(), decomposition, halo)?;
            let level = StencilOperator::try_new(
                weights.clone(),
                decomposition.block_shape(rank),
                local_boundaries(&decomposition, rank, &sides),
            )
            .and_then(|op| {
                let taps = HostTaps::Constant(taps.clone());
                Level::new(
                    LevelOperator::Constant(op),
                    &taps,
                    &alloc,
                    options.smoother,
                    Some(Box::new(LevelGrid::new(exchange))),
                    coarsening.first(),
                )
            });
            levels.push(grid.agree(OP, level)?);
            if coarsening.has_neumann() {
                // The rows next to a Neumann side differ: coarse operators point by point.
                let (offsets, values) = taps.into_iter().unzip();
                let rows = Folded::new(ConstantRows { offsets, weights: values }, shape, &sides);
                let at = DistGrid { grid: &grid, decomposition, coarsening, sides, finest: Finest::Stencil(weights) };
                return Self::galerkin_dist_levels(levels, &rows, at, options, singular);
            }
            let coarse_taps = galerkin::coarse_operator(&taps);
            let next = match coarsening.halvable(shape) && shape.iter().product::<usize>() > options.coarsest {
                true => decomposition.try_coarsened().ok(),
                false => None,
            };
            // Coarsening goes on while every block keeps a point and is as deep as the coarse
            // operator's halo (which the exchange needs); the same answer on every process.
            let reach: [usize; N] =
                core::array::from_fn(|k| coarse_taps.iter().map(|(o, _)| o[k].unsigned_abs()).max().unwrap_or(0));
            let next = next.filter(|d| (0..d.ranks()).all(|r| (0..N).all(|k| d.block_shape(r)[k] >= reach[k])));
            let Some(coarse) = next else {
                // The coarsest distributed level, whole on process 0.
                let gathered = match rank {
                    0 => gathered(weights, shape, coarsening, sides, options, singular).map(|g| Some(Box::new(g))),
                    _ => Ok(None),
                };
                let gathered = grid.agree(OP, gathered)?;
                let mut multigrid = Self::from_levels(levels, options, singular)?;
                multigrid.gathered = gathered;
                return Ok(multigrid);
            };
            decomposition = coarse;
            shape = coarsening.coarser(shape);
            taps = coarse_taps;
        }
    }
}

impl<T, const N: usize, B> Multigrid<T, N, B>
where
    T: SolverScalar + Equivalence + 'static,
    B: SolverBackend + DistBackend + StencilKernels + 'static,
{
    /// Solves `a x = b` on a distributed grid by cycles of this hierarchy (built by
    /// [`Multigrid::for_dist`] from `a`), from the guess in `x`'s owned points, leaving the
    /// solution there (halos untouched) and stopping as [`Multigrid::solve`] does, the
    /// residual's norm summed over the processes in rank order: every process runs the same
    /// cycles and returns the same report, or the same error (but for a device failing inside a
    /// cycle on one process, between two of its halo exchanges, which can leave the others
    /// waiting in the next). Collective. A hierarchy of one process's block (not built by
    /// `for_dist`) is accepted and cycles on each block alone: build it with `for_dist`.
    ///
    /// ```no_run
    /// use cnda::dist::DistArray;
    /// use cnda::solve::{DistOperator, Multigrid, MultigridOptions, SolveOptions};
    /// use cnda::stencil::{Boundary, LinearStencil};
    /// let universe = mpi::initialize().unwrap();
    /// let (n, h) = (127, 1.0 / 128.0);
    /// let mut b = DistArray::<f64, 3>::new(&universe.world(), [n; 3], [1; 3], [false; 3]);
    /// b.fill_owned_with(|_| 1.0);
    /// let a = DistOperator::stencil(LinearStencil::laplacian_7pt(h), [Boundary::Value(0.0); 3], &b);
    /// let mg = Multigrid::for_dist(&a, MultigridOptions::default());
    /// let mut x = DistArray::new(&universe.world(), [n; 3], [1; 3], [false; 3]);
    /// let report = mg.solve_dist(&a, &b, &mut x, SolveOptions::default().rtol(1e-8));
    /// ```
    ///
    /// # Panics
    ///
    /// As [`Multigrid::try_solve_dist`] errs, on every process alike.
    #[track_caller]
    pub fn solve_dist<A: LinearOperator<T, N, B>>(
        &self,
        a: &DistOperator<T, N, A, B>,
        b: &DistArray<T, N, B>,
        x: &mut DistArray<T, N, B>,
        options: SolveOptions,
    ) -> SolveReport {
        or_panic(self.try_solve_dist(a, b, x, options))
    }

    /// [`Multigrid::solve_dist`], returning errors, the same on every process; `x` holds the
    /// last iterate after `Error::NotConverged`.
    ///
    /// # Errors
    ///
    /// `Error::Decomposition` when `b` or `x` is split otherwise than the operator's grid;
    /// `Error::ShapeMismatch` when the hierarchy's finest blocks are not the operator's; as
    /// [`Multigrid::try_solve`] otherwise (a process's own failure reaches the others as
    /// `Error::Mpi` naming it).
    pub fn try_solve_dist<A: LinearOperator<T, N, B>>(
        &self,
        a: &DistOperator<T, N, A, B>,
        b: &DistArray<T, N, B>,
        x: &mut DistArray<T, N, B>,
        options: SolveOptions,
    ) -> Result<SolveReport> {
        const SOLVE: &str = "Multigrid::solve_dist";
        a.check_split(SOLVE, "b", b)?;
        a.check_split(SOLVE, "x", x)?;
        a.check_device(SOLVE, b)?;
        let processes = a.processes();
        agreed(&*processes, SOLVE, self.check_operator(SOLVE, a))?;
        let (deferring, _) = a.deferring(self);
        let before = Preconditioner::<T, N, B>::work(self);
        let mut solve = Solve::start_on("multigrid", &options, &deferring, &b.owned(), &x.owned(), Some(processes))?;
        // A cycle's local failure waits for the next norm, which every process computes.
        let correct = |r: &Array<T, N, B>, z: &mut Array<T, N, B>, halo, full| {
            a.defer(self.correction(r, z, halo, full));
            Ok(())
        };
        let outcome = if solve.done() { Ok(()) } else { self.iterate(&mut solve, &deferring, &correct) };
        let mut report = solve.finish_on(&mut x.owned_mut(), outcome)?;
        report.work = Preconditioner::<T, N, B>::work(self) - before + 1.0 + report.iterations as f64;
        Ok(report)
    }
}

/// The gathered coarsest grid's operator and, where the grid coarsens further, its own
/// hierarchy on the host (CG alone solves it otherwise).
///
/// # Errors
///
/// As [`StencilOperator::try_new`] and [`Multigrid::try_new_in`].
pub(super) fn gathered<T: SolverScalar, const N: usize>(
    weights: DynStencil<T, N>,
    shape: [usize; N],
    coarsening: Coarsening<N>,
    sides: crate::stencil::Boundaries<T, N>,
    options: MultigridOptions,
    singular: bool,
) -> Result<Gathered<T, N>> {
    let op = StencilOperator::try_new(weights, shape, sides)?;
    let multigrid = match coarsening.halvable(shape) {
        true => Some(Multigrid::<T, N, Cpu>::try_new_in(&Cpu, &op, options)?),
        false => None,
    };
    Ok(Gathered { op: LevelOperator::Constant(op), multigrid, singular })
}
