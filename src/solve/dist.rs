//! Solves over a distributed grid: [`DistOperator`], an operator on each process's block of a
//! [`DistArray`]'s grid that exchanges its operand's halos before applying itself, and the
//! distributed form of every Krylov method (`solve_dist`), the same iteration code as on one
//! process with its dot products summed over the processes.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use mpi::datatype::Equivalence;

use super::operator::{check_linear, LinearOperator, StencilOperator};
use super::precond::Preconditioner;
use super::processes::Processes;
use super::variable_operator::VariableOperator;
use super::vectors::{SolverBackend, SolverScalar};
use crate::array::Array;
use crate::dist::bound::ThreadBound;
use crate::dist::{Decomposition, DistArray, DistBackend};
use crate::element::{Numeric, Pod};
use crate::error::{or_panic, Error, Result};
use crate::kernel::{Cpu, ElementwiseKernels, StencilKernels};
use crate::stencil::{Boundaries, Boundary, DynStencil, Side, SlabPass, VariableStencil};

/// A linear operator on a grid distributed over MPI processes: on each process, an operator
/// `local` on the block the process owns, which fills its operand's halo only at the grid's
/// global edges (its boundary conditions); the halos between blocks (and across periodic
/// axes) come from the neighbours, by one exchange per application. The Krylov methods take it
/// with [`DistArray`]s through `solve_dist` (for example [`Cg::solve_dist`](super::Cg::solve_dist)):
/// the same iterations as on one process, each dot product summed over the processes in rank
/// order (the same bits on every process, so every process stops at the same iteration).
///
/// [`DistOperator::stencil`] and [`DistOperator::variable`] build it from a stencil with its
/// boundary conditions on the whole grid, as [`StencilOperator`] and [`VariableOperator`] do
/// on one process ([`DistOperator::diffusion`] from a distributed conductivity);
/// [`DistOperator::csr`] and [`DistOperator::csr_rows`] from a sparse matrix
/// (the whole matrix, or each process's rows); [`DistOperator::new`] wraps an operator of your
/// own. A one-process `solve`
/// refuses it (its dot products would be this process's alone). It may move between threads,
/// but calls MPI on the thread that made it only (MPI's default thread level): elsewhere its
/// applications and solves fail with `Error::Mpi`.
///
/// ```no_run
/// use cnda::dist::DistArray;
/// use cnda::solve::{Cg, DistOperator};
/// use cnda::stencil::{Boundary, LinearStencil};
/// let universe = mpi::initialize().unwrap();
/// let world = universe.world();
/// let (n, h) = (255, 1.0 / 256.0);
/// let mut b = DistArray::<f64, 2>::new(&world, [n, n], [1, 1], [false, false]);
/// b.fill_owned_with(|_| -1.0);
/// let a = DistOperator::stencil(LinearStencil::laplacian_5pt(h), [Boundary::Value(0.0); 2], &b);
/// let mut u = DistArray::new(&world, [n, n], [1, 1], [false, false]);
/// let report = Cg::new().rtol(1e-8).solve_dist(&a, &b, &mut u); // the same on every process
/// ```
pub struct DistOperator<T: Pod + Equivalence, const N: usize, A, B: DistBackend = Cpu> {
    local: A,
    shared: Arc<Shared<T, N, B>>,
    faces_only: bool,
    /// The conditions on the whole grid, where the operator was built from them.
    boundaries: Option<Boundaries<T, N>>,
}

/// What the operator and the solves on it share: the array whose exchange plan the operands
/// borrow (its own block is a spare), and the error a process defers to the next collective.
struct Shared<T: Pod + Equivalence, const N: usize, B: DistBackend> {
    /// MPI state: on the thread that made the operator only.
    exchange: ThreadBound<Mutex<DistArray<T, N, B>>>,
    deferred: Mutex<Option<Error>>,
}

/// `m` locked, whether or not a panic poisoned it (its contents stay consistent: every update is
/// one assignment).
fn lock<X>(m: &Mutex<X>) -> MutexGuard<'_, X> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl<T: Pod + Equivalence, const N: usize, B: DistBackend> Shared<T, N, B> {
    /// The deferred error, taken.
    fn take(&self) -> Option<Error> {
        lock(&self.deferred).take()
    }

    /// The array whose exchange plan and communicator the operator uses, locked.
    ///
    /// # Errors
    ///
    /// `Error::Mpi` on another thread than the one that made the operator.
    fn grid(&self, op: &'static str) -> Result<MutexGuard<'_, DistArray<T, N, B>>> {
        Ok(lock(self.exchange.get(op)?))
    }
}

impl<T: Pod + Equivalence, const N: usize, B: DistBackend> Processes for Shared<T, N, B> {
    fn defer(&self, local: Result<()>) {
        if let Err(error) = local {
            lock(&self.deferred).get_or_insert(error);
        }
    }

    fn sum(&self, op: &'static str, local: Result<f64>) -> Result<f64> {
        let local = match self.take() {
            Some(error) => Err(error),
            None => local,
        };
        self.grid(op)?.sum_in_rank_order(op, local)
    }

    fn settle(&self, op: &'static str) -> Result<()> {
        let local = self.take().map_or(Ok(()), Err);
        self.grid(op)?.agree(op, local)
    }
}

impl<T: Pod + Equivalence, const N: usize, A, B: DistBackend> core::fmt::Debug for DistOperator<T, N, A, B> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let mut d = f.debug_struct("DistOperator");
        if let Ok(exchange) = self.shared.grid("DistOperator (Debug)") {
            d.field("global", &exchange.decomposition().global_shape())
                .field("block", &exchange.decomposition().block_shape(exchange.rank()))
                .field("halo", &exchange.halo());
        }
        d.field("backend", &B::NAME).finish_non_exhaustive()
    }
}

impl<T: Pod + Equivalence, const N: usize, A: LinearOperator<T, N, B>, B: DistBackend> DistOperator<T, N, A, B> {
    /// The operator that applies `local` on this process's block of `like`'s grid (split as
    /// `like` is, on its processes and backend) after exchanging the operand's halos (`local`'s
    /// [`halo`](LinearOperator::halo) wide, every face, edge and corner). `local`'s shape must
    /// be the block's; it fills the halo at the grid's global edges, and must leave the rest as
    /// the exchange left it. Collective.
    ///
    /// # Panics
    ///
    /// As [`DistOperator::try_new`] errs.
    #[track_caller]
    pub fn new(local: A, like: &DistArray<T, N, B>) -> Self {
        or_panic(Self::try_new(local, like))
    }

    /// [`DistOperator::new`], returning errors.
    ///
    /// # Errors
    ///
    /// `Error::ShapeMismatch` when `local`'s shape is not the block's; as
    /// [`DistArray::try_with_decomposition_in`] for the halo. The same error on every process.
    pub fn try_new(local: A, like: &DistArray<T, N, B>) -> Result<Self> {
        Self::with_exchange("DistOperator::new", Ok(local), like, false, None)
    }

    /// The operator from a `local` built on each process (or its error), checked and agreed
    /// on; `faces_only` when `local` reads no edge or corner of the halo.
    pub(crate) fn with_exchange(
        op: &'static str,
        local: Result<A>,
        like: &DistArray<T, N, B>,
        faces_only: bool,
        boundaries: Option<Boundaries<T, N>>,
    ) -> Result<Self> {
        let block = like.decomposition().block_shape(like.rank());
        let local = local.and_then(|local| match local.shape() == block {
            true => Ok(local),
            false => Err(Error::ShapeMismatch { op, expected: block.to_vec(), got: local.shape().to_vec() }),
        });
        let local = like.agree(op, local)?;
        let exchange = DistArray::try_with_decomposition_in(
            &like.allocator(),
            like.communicator(),
            *like.decomposition(),
            local.halo(),
        )?;
        let shared = Arc::new(Shared { exchange: ThreadBound::new(Mutex::new(exchange)), deferred: Mutex::new(None) });
        Ok(DistOperator { local, shared, faces_only, boundaries })
    }

    /// The operator on this process's block (for its diagonal, say).
    pub fn local(&self) -> &A {
        &self.local
    }

    /// The boundary conditions on the whole grid (`None` for an operator of your own).
    pub fn boundaries(&self) -> Option<&Boundaries<T, N>> {
        self.boundaries.as_ref()
    }

    /// The array whose split, processes and backend the operator's vectors share (locked).
    ///
    /// # Errors
    ///
    /// `Error::Mpi` on another thread than the one that made the operator.
    pub(super) fn grid(&self, op: &'static str) -> Result<MutexGuard<'_, DistArray<T, N, B>>> {
        self.shared.grid(op)
    }

    /// `y = A x` on this process's block, its outcome this process's own: `x`'s halos
    /// exchanged, then `local` applied.
    fn apply_here(&self, x: &mut Array<T, N, B>, y: &mut Array<T, N, B>) -> Result<()> {
        self.shared.grid("DistOperator::apply")?.exchange_block("DistOperator::apply", x, self.faces_only)?;
        self.local.try_apply(x, y)
    }

    /// Checks that `v` is split as the operator's grid (the same answer on every process).
    ///
    /// # Errors
    ///
    /// `Error::Decomposition` naming `what`.
    pub(super) fn check_split(&self, op: &'static str, what: &str, v: &DistArray<T, N, B>) -> Result<()> {
        let mine = *self.shared.grid(op)?.decomposition();
        if *v.decomposition() != mine {
            return Err(Error::Decomposition {
                op,
                reason: format!(
                    "{what} is a {:?} grid split {:?}, the operator's a {:?} grid split {:?}",
                    v.decomposition().global_shape(),
                    v.decomposition().dims(),
                    mine.global_shape(),
                    mine.dims()
                ),
                fix: "make the vectors with the operator's grid and process grid (as the array the operator was \
                      made like)",
            });
        }
        Ok(())
    }

    /// Checks, agreed on by every process, that `v`'s block lives on the operator's device (each
    /// process's own: a process whose vectors live elsewhere would refuse its exchanges alone).
    ///
    /// # Errors
    ///
    /// `Error::DeviceMismatch` (`Error::Mpi` naming the process on the others).
    pub(super) fn check_device(&self, op: &'static str, v: &DistArray<T, N, B>) -> Result<()> {
        let grid = self.shared.grid(op)?;
        let mine = B::handle_device(grid.local().desc().handle);
        let local = crate::ops::output::same_device::<B>(op, &mine, &[B::handle_device(v.local().desc().handle)]);
        grid.agree(op, local)
    }

    /// The processes the solves on this operator run over.
    pub(super) fn processes(&self) -> Arc<dyn Processes>
    where
        T: 'static,
        B: 'static,
    {
        self.shared.clone()
    }

    /// Keeps `local`'s error for the solve's next collective ([`Processes::defer`]).
    pub(super) fn defer(&self, local: Result<()>) {
        self.shared.defer(local);
    }

    /// This operator and `m` with their errors deferred to the solve's next collective, for
    /// the iterations of a distributed solve.
    pub(super) fn deferring<'a, P>(&'a self, m: &'a P) -> (Deferring<'a, Self, T, N, B>, Deferring<'a, P, T, N, B>) {
        (Deferring { inner: self, shared: &self.shared }, Deferring { inner: m, shared: &self.shared })
    }
}

impl<T: Numeric + Equivalence, const N: usize, B: DistBackend + StencilKernels>
    DistOperator<T, N, StencilOperator<T, N>, B>
{
    /// `stencil` with `boundaries` on the whole grid of `like` (as [`StencilOperator`] on one
    /// process: `Value(0)` or `Fixed`, `Neumann`, or `Periodic` on the axes `like`'s
    /// decomposition wraps), each process applying it to its block. Collective.
    ///
    /// # Panics
    ///
    /// As [`DistOperator::try_stencil`] errs.
    #[track_caller]
    pub fn stencil(
        stencil: impl Into<DynStencil<T, N>>,
        boundaries: impl Into<Boundaries<T, N>>,
        like: &DistArray<T, N, B>,
    ) -> Self {
        or_panic(Self::try_stencil(stencil, boundaries, like))
    }

    /// [`DistOperator::stencil`], returning errors.
    ///
    /// # Errors
    ///
    /// As [`StencilOperator::try_new`] on the whole grid; `Error::Layout` when `Periodic` is not
    /// on exactly the axes the decomposition wraps; `Error::Decomposition` when a block at a
    /// global edge is thinner than twice the stencil's radius where its condition is `Value` or
    /// `Neumann`. The same error on every process.
    pub fn try_stencil(
        stencil: impl Into<DynStencil<T, N>>,
        boundaries: impl Into<Boundaries<T, N>>,
        like: &DistArray<T, N, B>,
    ) -> Result<Self> {
        const OP: &str = "DistOperator::stencil";
        let (stencil, boundaries) = (stencil.into(), boundaries.into());
        let radius = stencil.radius();
        let faces_only = stencil.taps().iter().all(|(o, _)| o.iter().filter(|&&o| o != 0).count() <= 1);
        let local = check_global(OP, like, radius, &boundaries).and_then(|()| {
            let block = like.decomposition().block_shape(like.rank());
            StencilOperator::try_new(stencil, block, local_boundaries(like.decomposition(), like.rank(), &boundaries))
        });
        Self::with_exchange(OP, local, like, faces_only, Some(boundaries))
    }
}

impl<T: Numeric + Equivalence, const N: usize, B: DistBackend + StencilKernels + ElementwiseKernels>
    DistOperator<T, N, VariableOperator<T, N, B>, B>
{
    /// `stencil` with its coefficient fields (one per tap, in the stencil's order; distributed
    /// like the unknowns with halos of the stencil's radius, which the operator does not read)
    /// and `boundaries` on the whole grid, as [`VariableOperator`] on one process. The
    /// coefficients' blocks are copied. Collective.
    ///
    /// # Panics
    ///
    /// As [`DistOperator::try_variable`] errs.
    #[track_caller]
    pub fn variable(
        stencil: VariableStencil<N>,
        coefficients: &[DistArray<T, N, B>],
        boundaries: impl Into<Boundaries<T, N>>,
    ) -> Self {
        or_panic(Self::try_variable(stencil, coefficients, boundaries))
    }

    /// [`DistOperator::variable`], returning errors.
    ///
    /// # Errors
    ///
    /// As [`DistOperator::try_stencil`] and [`VariableOperator::try_new`]; `Error::Layout` when
    /// no field is given; `Error::Decomposition` when the fields are split differently or their
    /// halos are not the stencil's radius. The same error on every process.
    pub fn try_variable(
        stencil: VariableStencil<N>,
        coefficients: &[DistArray<T, N, B>],
        boundaries: impl Into<Boundaries<T, N>>,
    ) -> Result<Self> {
        const OP: &str = "DistOperator::variable";
        let Some(like) = coefficients.first() else {
            return Err(Error::Layout {
                op: OP,
                reason: "no coefficient field".into(),
                fix: "give one field per tap, in the stencil's order",
            });
        };
        let (boundaries, radius) = (boundaries.into(), stencil.radius());
        let faces_only = stencil.offsets().iter().all(|o| o.iter().filter(|&&o| o != 0).count() <= 1);
        let split = coefficients.iter().try_for_each(|c| {
            if c.decomposition() != like.decomposition() || c.halo() != radius {
                return Err(Error::Decomposition {
                    op: OP,
                    reason: format!(
                        "a coefficient field is split {:?} with halos {:?}, the first {:?} and the stencil's radius {radius:?}",
                        c.decomposition().dims(),
                        c.halo(),
                        like.decomposition().dims()
                    ),
                    fix: "make every field on the same grid and process grid, with halos of the stencil's radius",
                });
            }
            Ok(())
        });
        let local = split.and_then(|()| check_global(OP, like, radius, &boundaries)).and_then(|()| {
            let blocks = coefficients.iter().map(|c| c.local().view().try_to_owned()).collect::<Result<Vec<_>>>()?;
            VariableOperator::try_new(stencil, blocks, local_boundaries(like.decomposition(), like.rank(), &boundaries))
        });
        Self::with_exchange(OP, local, like, faces_only, Some(boundaries))
    }
}

/// The checks on the whole grid that every process makes alike: linear conditions, periodic on
/// the axes the decomposition wraps, and edge blocks as deep as the mirrored halos.
pub(super) fn check_global<T: Numeric + Equivalence, const N: usize, B: DistBackend>(
    op: &'static str,
    like: &DistArray<T, N, B>,
    radius: [usize; N],
    boundaries: &Boundaries<T, N>,
) -> Result<()> {
    check_linear(op, like.decomposition().global_shape(), radius, boundaries)?;
    like.check_boundaries(op, radius, boundaries)
}

/// The conditions of process `rank`'s block: the grid's at its global edges, `Fixed` (left to
/// the exchange) between blocks and across periodic axes.
pub(super) fn local_boundaries<T: Copy, const N: usize>(
    d: &Decomposition<N>,
    rank: usize,
    boundaries: &Boundaries<T, N>,
) -> Boundaries<T, N> {
    let mut local = *boundaries;
    for k in 0..N {
        for (side, step) in [(Side::Low, -1), (Side::High, 1)] {
            if d.periodic()[k] || d.neighbour(rank, k, step).is_some() {
                local = local.with(k, side, Boundary::Fixed);
            }
        }
    }
    local
}

impl<T: Pod + Equivalence, const N: usize, A: LinearOperator<T, N, B>, B: DistBackend> LinearOperator<T, N, B>
    for DistOperator<T, N, A, B>
{
    fn shape(&self) -> [usize; N] {
        self.local.shape()
    }

    fn halo(&self) -> [usize; N] {
        self.local.halo()
    }

    /// `y = A x` on this process's block; collective, with the same outcome on every process.
    fn try_apply(&self, x: &mut Array<T, N, B>, y: &mut Array<T, N, B>) -> Result<()> {
        let outcome = self.apply_here(x, y);
        self.shared.grid("DistOperator::apply")?.agree("DistOperator::apply", outcome)
    }

    fn distributed(&self) -> bool {
        true
    }
}

/// An operator or a preconditioner of a distributed solve, whose errors wait for the solve's
/// next collective ([`Processes::defer`]) instead of being agreed on at each application.
pub(super) struct Deferring<'a, X, T: Pod + Equivalence, const N: usize, B: DistBackend> {
    inner: &'a X,
    shared: &'a Shared<T, N, B>,
}

impl<T: Pod + Equivalence, const N: usize, A: LinearOperator<T, N, B>, B: DistBackend> LinearOperator<T, N, B>
    for Deferring<'_, DistOperator<T, N, A, B>, T, N, B>
{
    fn shape(&self) -> [usize; N] {
        self.inner.shape()
    }

    fn halo(&self) -> [usize; N] {
        self.inner.halo()
    }

    fn try_apply(&self, x: &mut Array<T, N, B>, y: &mut Array<T, N, B>) -> Result<()> {
        self.shared.defer(self.inner.apply_here(x, y));
        Ok(())
    }

    /// The block's product in slabs after the halo exchange, where the local operator takes
    /// slabs; an error is returned, for the sum that follows (every process takes part in it).
    fn try_apply_in_slabs(
        &self,
        x: &mut Array<T, N, B>,
        y: &mut Array<T, N, B>,
        scratch: &mut Array<T, N, B>,
        each: &mut SlabPass<'_, B, T, N>,
    ) -> Result<bool> {
        if !self.applies_in_slabs() {
            return Ok(false);
        }
        const OP: &str = "DistOperator::apply";
        self.shared.grid(OP)?.exchange_block(OP, x, self.inner.faces_only)?;
        let fused = self.inner.local.try_apply_in_slabs(x, y, scratch, each)?;
        // `applies_in_slabs`'s promise: a fallback would exchange again (on this process only).
        debug_assert!(fused, "an operator that applies in slabs declined the solver's vectors");
        Ok(fused)
    }

    fn applies_in_slabs(&self) -> bool {
        self.inner.local.applies_in_slabs()
    }

    fn distributed(&self) -> bool {
        true
    }
}

impl<T, const N: usize, B, P> Preconditioner<T, N, B> for Deferring<'_, P, T, N, B>
where
    T: SolverScalar + Equivalence,
    B: SolverBackend + DistBackend,
    P: Preconditioner<T, N, B>,
{
    fn try_apply(&self, r: &Array<T, N, B>, z: &mut Array<T, N, B>, halo: [usize; N]) -> Result<()> {
        self.shared.defer(self.inner.try_apply(r, z, halo));
        Ok(())
    }

    fn work(&self) -> f64 {
        self.inner.work()
    }

    fn is_identity(&self) -> bool {
        self.inner.is_identity()
    }
}
