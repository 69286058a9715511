//! Distributed levels whose coarse operators vary point by point (next to `Neumann` sides, where
//! the folded rows differ from the interior's): each process computes the Galerkin products at
//! its own block of every coarse level, reading the level above's rows at its block and one
//! point beyond it (the fields' halos exchanged, so no process needs the whole grid), and the
//! coarsest distributed level's fields are gathered on process 0, which builds the rest of the
//! hierarchy there.

use mpi::collective::SystemOperation;
use mpi::datatype::Equivalence;
use mpi::traits::CommunicatorCollectives;

use super::build::{check, rows_annihilate_constants};
use super::dist::{gathered, LevelGrid};
use super::grid::{transfer_sides, Coarsening};
use super::level::Level;
use super::operator::{HostTaps, LevelOperator};
use super::rows::{BlockRows, FieldRows, FineRows, Folded};
use super::smoother::LevelSmoother;
use super::{galerkin, Gathered, Multigrid, MultigridOptions};
use crate::array::Array;
use crate::dist::{Decomposition, DistArray, DistBackend};
use crate::error::{or_panic, Error, Result};
use crate::kernel::{Cpu, StencilKernels};
use crate::ops::transfer::upload;
use crate::solve::dist::local_boundaries;
use crate::solve::variable_operator::VariableOperator;
use crate::solve::vectors::{SolverBackend, SolverScalar};
use crate::solve::DistOperator;
use crate::stencil::{Boundaries, DynStencil, VariableStencil};

const OP: &str = "Multigrid::for_dist";

/// A distributed level's coefficient fields on the host, this process's block padded by `halo`
/// (halos exchanged), with the block's first global point.
#[derive(Clone)]
pub(super) struct HostBlock<const N: usize> {
    offsets: Vec<[isize; N]>,
    fields: Vec<Array<f64, N>>,
    halo: [usize; N],
    origin: [usize; N],
}

/// The grid a distributed hierarchy is built over: its split, rows and conditions.
pub(super) struct DistGrid<'a, T: SolverScalar + Equivalence, const N: usize, B: DistBackend> {
    /// A spare array of the finest split (its communicator, rank and allocator).
    pub(super) grid: &'a DistArray<T, N, B>,
    pub(super) decomposition: Decomposition<N>,
    pub(super) coarsening: Coarsening<N>,
    /// The finest level's conditions on the whole grid (walls as `Value(0)`).
    pub(super) sides: Boundaries<T, N>,
    /// The finest level's operator (gathered whole where no coarse level is distributed).
    pub(super) finest: Finest<'a, T, N>,
}

/// A distributed hierarchy's finest operator.
pub(super) enum Finest<'a, T, const N: usize> {
    /// Constant taps.
    Stencil(DynStencil<T, N>),
    /// This process's block of the coefficient fields (as its rows read them; copied only to
    /// be gathered, where no coarse level is distributed).
    Fields(&'a HostBlock<N>),
}

impl<T, const N: usize, B> Multigrid<T, N, B>
where
    T: SolverScalar + Equivalence + 'static,
    B: SolverBackend + DistBackend + StencilKernels + 'static,
{
    /// The coarse levels below the distributed `levels` (the finest, whose rows on the whole
    /// grid are `finest`), each the Galerkin product computed block by block, down to where a
    /// process would own no point, a block is thinner than the coarse operator's reach or the
    /// grid has `options.coarsest` points; that level whole on process 0, with its own
    /// hierarchy there.
    ///
    /// # Errors
    ///
    /// As [`Multigrid::try_for_dist`], the same on every process.
    pub(super) fn galerkin_dist_levels(
        mut levels: Vec<Level<T, N, B>>,
        finest: &impl FineRows<N>,
        at: DistGrid<'_, T, N, B>,
        options: MultigridOptions,
        singular: bool,
    ) -> Result<Self> {
        let DistGrid { grid, mut decomposition, coarsening, sides, finest: top } = at;
        let (rank, alloc, comm) = (grid.rank(), grid.allocator(), grid.communicator());
        let coarse_sides = transfer_sides(&sides);
        let (first, periodic) = (coarsening.first(), coarsening.periodic());
        let mut shape = decomposition.global_shape();
        let mut above: Option<HostBlock<N>> = None;
        loop {
            // The coarse operator reaches (r + 2) / 2 for fine rows of radius r.
            let offsets = above.as_ref().map_or(finest.offsets(), |a| &a.offsets[..]);
            let reach: [usize; N] =
                core::array::from_fn(|k| (offsets.iter().map(|o| o[k].unsigned_abs()).max().unwrap_or(0) + 2) / 2);
            let next = match coarsening.halvable(shape) && shape.iter().product::<usize>() > options.coarsest {
                true => {
                    let coarse = decomposition.try_coarsened_onto(first).ok();
                    debug_assert!(coarse.is_none_or(|d| d.global_shape() == coarsening.coarser(shape)));
                    coarse
                }
                false => None,
            };
            // The same answer on every process: every block as deep as the reach.
            let next = next.filter(|d| (0..d.ranks()).all(|r| (0..N).all(|k| d.block_shape(r)[k] >= reach[k])));
            let Some(coarse) = next else {
                let at = (grid, decomposition, coarsening, options, singular);
                let gathered = match (above, top) {
                    (Some(above), _) => gather_coarsest(at, above, coarse_sides, false)?,
                    // Nothing coarsened on the processes: the finest operator, whole.
                    (None, Finest::Fields(block)) => {
                        gather_coarsest(at, block.clone(), sides, coarsening.has_neumann())?
                    }
                    (None, Finest::Stencil(weights)) => {
                        let gathered = match rank {
                            0 => gathered(weights, shape, coarsening, sides, options, singular).map(Some),
                            _ => Ok(None),
                        };
                        grid.agree(OP, gathered)?
                    }
                };
                let mut multigrid = Self::from_levels(levels, options, singular)?;
                multigrid.gathered = gathered.map(Box::new);
                return Ok(multigrid);
            };
            let block = coarse.block(rank);
            let (offsets, mut fields) = match &above {
                None => galerkin::coarse_fields(finest, shape, &block, first, periodic),
                Some(a) => {
                    let (offsets, fields, halo, origin) = (&a.offsets[..], &a.fields[..], a.halo, a.origin);
                    let rows = BlockRows { offsets, fields, halo, origin, global: shape };
                    galerkin::coarse_fields(&rows, shape, &block, first, periodic)
                }
            };
            // The fields' halos, for the next level's products (faces and corners).
            let halo = reach;
            exchange_fields(grid, coarse, halo, &mut fields)?;
            // Collective (its outcome agreed), so before the work that may fail on one process.
            let exchange = DistArray::try_with_decomposition_in(&alloc, comm, coarse, halo)?;
            let host = HostTaps::Variable { offsets, fields };
            let HostTaps::Variable { offsets, fields } = &host else { unreachable!("variable taps") };
            let level = (|| {
                let on_backend = fields
                    .iter()
                    .map(|f| upload(&alloc, f.map(|v| T::from_f64(v)).as_slice(), f.shape()))
                    .collect::<Result<Vec<_>>>()?;
                let stencil = VariableStencil::try_new(offsets.iter().copied())?;
                let op =
                    VariableOperator::try_new(stencil, on_backend, local_boundaries(&coarse, rank, &coarse_sides))?;
                let grid = Some(Box::new(LevelGrid::new(exchange)) as _);
                Level::new(LevelOperator::Variable(op), &host, &alloc, options.smoother, grid, first)
            })();
            let mut level = grid.agree(OP, level)?;
            one_chebyshev_interval(comm, &mut level);
            levels.push(level);
            let HostTaps::Variable { offsets, fields } = host else { unreachable!("variable taps") };
            above = Some(HostBlock { offsets, fields, halo, origin: block.map(|r| r.start) });
            decomposition = coarse;
            shape = coarsening.coarser(shape);
        }
    }
}

impl<T, const N: usize, B> Multigrid<T, N, B>
where
    T: SolverScalar + Equivalence + 'static,
    B: SolverBackend + DistBackend + StencilKernels + 'static,
{
    /// The hierarchy of a variable-coefficient operator on a distributed grid (built by
    /// [`DistOperator::variable`] or [`DistOperator::diffusion`]), as [`Multigrid::for_variable`]
    /// builds one on one process: each coarse operator the Galerkin product `R A P`, which each
    /// process computes at its block of the coarse grid from the rows at and next to its block
    /// above (the fields' halos exchanged), or with
    /// [`CoarseOperators::Rediscretized`](super::CoarseOperators) (a `DistOperator::diffusion`)
    /// the diffusion operator of the conductivity each process restricts to its block; each level split as [`Multigrid::for_dist`]'s are, smoothing with the
    /// inverse diagonal as a field (Chebyshev's bound the largest over the processes), the
    /// coarsest distributed level gathered on process 0 with its own hierarchy there. Zero
    /// walls, periodic axes and `Neumann` sides. Collective; use it with `solve_dist`.
    ///
    /// # Panics
    ///
    /// As [`Multigrid::try_for_dist_variable`] errs.
    #[track_caller]
    pub fn for_dist_variable(a: &DistOperator<T, N, VariableOperator<T, N, B>, B>, options: MultigridOptions) -> Self {
        or_panic(Self::try_for_dist_variable(a, options))
    }

    /// [`Multigrid::for_dist_variable`], returning errors, the same on every process.
    ///
    /// # Errors
    ///
    /// `Error::Parameter` for an operator not built by [`DistOperator::variable`] or
    /// [`DistOperator::diffusion`], a zero diagonal,
    /// [`CoarseOperators::Rediscretized`](super::CoarseOperators) for an operator not built by
    /// [`DistOperator::diffusion`], or as [`Multigrid::try_for_variable`] refuses its grid and
    /// boundaries;
    /// `Error::Alloc`; `Error::Device` from the fields' transfers; `Error::Mpi` on another
    /// thread than the operator's.
    pub fn try_for_dist_variable(
        a: &DistOperator<T, N, VariableOperator<T, N, B>, B>,
        options: MultigridOptions,
    ) -> Result<Self> {
        let Some(boundaries) = a.boundaries() else {
            return Err(Error::Parameter {
                op: OP,
                reason: "the operator was not built from coefficient fields and their conditions on the whole grid"
                    .into(),
                fix: "build it with DistOperator::variable or DistOperator::diffusion",
            });
        };
        let rediscretize = match options.coarse {
            super::CoarseOperators::Galerkin => None,
            // The same on every process (every block built alike), before any collective.
            super::CoarseOperators::Rediscretized => Some(a.local().conductivity().ok_or_else(|| {
                Error::Parameter {
                    op: OP,
                    reason: "rediscretized coarse operators need the operator's conductivity, and this operator was \
                         built from coefficient fields"
                        .into(),
                    fix: "build the operator with DistOperator::diffusion, or use CoarseOperators::Galerkin (from any \
                      coefficient fields)",
                }
            })?),
        };
        let grid = a.grid(OP)?;
        let (rank, alloc, comm) = (grid.rank(), grid.allocator(), grid.communicator());
        let decomposition = *grid.decomposition();
        let shape = decomposition.global_shape();
        let local = a.local();
        let radius = local.stencil().radius();
        let (coarsening, sides) = grid.agree(OP, check(shape, radius, boundaries))?;
        // The finest level on this block, and its fields on the host (halos exchanged). The
        // level's exchange first: collective, so before the work that may fail on one process.
        let exchange = DistArray::try_with_decomposition_in(&alloc, comm, decomposition, radius)?;
        let finest = (|| {
            let fields = local.coefficients().iter().map(|f| f.try_to_owned()).collect::<Result<Vec<_>>>()?;
            let op = VariableOperator::try_new(
                local.stencil().clone(),
                fields,
                local_boundaries(&decomposition, rank, &sides),
            )?;
            let op = LevelOperator::Variable(op);
            let host = op.host_taps()?;
            let grid = Some(Box::new(LevelGrid::new(exchange)) as _);
            let level = Level::new(op, &host, &alloc, options.smoother, grid, coarsening.first())?;
            let HostTaps::Variable { offsets, fields } = host else { unreachable!("variable taps") };
            Ok((level, offsets, fields))
        })();
        let (mut level, offsets, mut fields) = grid.agree(OP, finest)?;
        one_chebyshev_interval(comm, &mut level);
        exchange_fields(&grid, decomposition, radius, &mut fields)?;
        let origin = decomposition.block(rank).map(|r| r.start);
        let block = HostBlock { offsets, fields, halo: radius, origin };
        // Singular where no side is a wall and every process's rows sum to zero.
        let rows = BlockRows { offsets: &block.offsets, fields: &block.fields, halo: radius, origin, global: shape };
        let block_shape = decomposition.block_shape(rank);
        let mine = !coarsening.has_wall() && rows_annihilate_constants::<T, N>(&rows, origin, block_shape);
        let mut every = false;
        comm.all_reduce_into(&mine, &mut every, SystemOperation::logical_and());
        let levels = vec![level];
        let grid_ref: &DistArray<T, N, B> = &grid;
        let at = |finest| DistGrid { grid: grid_ref, decomposition, coarsening, sides, finest };
        if let Some(conductivity) = rediscretize {
            return Self::rediscretized_dist_levels(levels, conductivity, at(Finest::Fields(&block)), options, every);
        }
        match coarsening.has_neumann() {
            true => {
                let folded = Folded::new(rows, shape, &sides);
                Self::galerkin_dist_levels(levels, &folded, at(Finest::Fields(&block)), options, every)
            }
            false => Self::galerkin_dist_levels(levels, &rows, at(Finest::Fields(&block)), options, every),
        }
    }
}

/// The coarsest distributed level whole on process 0 (`None` elsewhere): its fields gathered
/// there and, where its grid coarsens further, its own hierarchy (its rows folded at `Neumann`
/// sides where `fold`: the finest level's own fields).
///
/// # Errors
///
/// The gathers' and the hierarchy's, the same on every process.
#[allow(clippy::type_complexity)]
fn gather_coarsest<T, const N: usize, B>(
    (grid, decomposition, coarsening, options, singular): (
        &DistArray<T, N, B>,
        Decomposition<N>,
        Coarsening<N>,
        MultigridOptions,
        bool,
    ),
    above: HostBlock<N>,
    sides: Boundaries<T, N>,
    fold: bool,
) -> Result<Option<Gathered<T, N>>>
where
    T: SolverScalar + Equivalence + 'static,
    B: SolverBackend + DistBackend + StencilKernels + 'static,
{
    let HostBlock { offsets, mut fields, halo, .. } = above;
    let (shape, rank) = (decomposition.global_shape(), grid.rank());
    let host_grid = DistArray::<f64, N, Cpu>::try_with_decomposition_in(&Cpu, grid.communicator(), decomposition, halo);
    let mut host_grid = grid.agree(OP, host_grid)?;
    let mut whole = Vec::new();
    for field in &mut fields {
        let gathered = host_grid.with_block(OP, field, |a| a.try_gather(0)).and_then(|g| g);
        whole.push(grid.agree(OP, gathered)?);
    }
    let built = match rank {
        0 => (|| {
            let padded: [usize; N] = core::array::from_fn(|k| shape[k] + 2 * halo[k]);
            let fields: Vec<Array<f64, N>> = whole
                .into_iter()
                .map(|g| {
                    let g = g.expect("process 0 holds the gathered grid");
                    Array::from_fn(padded, |i| match (0..N).all(|k| (halo[k]..halo[k] + shape[k]).contains(&i[k])) {
                        true => g[core::array::from_fn(|k| i[k] - halo[k])],
                        false => 0.0,
                    })
                })
                .collect();
            let stencil = VariableStencil::try_new(offsets.iter().copied())?;
            let on_host = fields.iter().map(|f| f.map(|v| T::from_f64(v))).collect();
            let op = LevelOperator::Variable(VariableOperator::try_new(stencil, on_host, sides)?);
            let multigrid = match coarsening.halvable(shape) {
                true => {
                    let host = HostTaps::Variable { offsets: offsets.clone(), fields: fields.clone() };
                    let finest = LevelOperator::Variable(VariableOperator::try_new(
                        VariableStencil::try_new(offsets.iter().copied())?,
                        fields.iter().map(|f| f.map(|v| T::from_f64(v))).collect(),
                        sides,
                    )?);
                    let cpu = Array::<T, N>::try_zeros_in(&Cpu, [0; N])?.allocator();
                    let level = Level::new(finest, &host, &cpu, options.smoother, None, coarsening.first())?;
                    let rows = FieldRows { offsets: &offsets, fields: &fields, halo };
                    let levels = vec![level];
                    Some(match fold {
                        true => {
                            let rows = Folded::new(rows, shape, &sides);
                            Multigrid::<T, N, Cpu>::galerkin_levels(levels, &rows, coarsening, &cpu, options, singular)?
                        }
                        false => {
                            Multigrid::<T, N, Cpu>::galerkin_levels(levels, &rows, coarsening, &cpu, options, singular)?
                        }
                    })
                }
                false => None,
            };
            Ok(Some(Gathered { op, multigrid, singular }))
        })(),
        _ => Ok(None),
    };
    grid.agree(OP, built)
}

/// `fields` (this process's blocks of a level split as `decomposition`, padded by `halo`) with
/// their halos exchanged, faces and corners. Collective.
///
/// # Errors
///
/// `Error::Alloc`; `Error::Mpi`; the same on every process.
pub(super) fn exchange_fields<T: SolverScalar + Equivalence, const N: usize, B: DistBackend>(
    grid: &DistArray<T, N, B>,
    decomposition: Decomposition<N>,
    halo: [usize; N],
    fields: &mut [Array<f64, N>],
) -> Result<()> {
    let host_grid = DistArray::<f64, N, Cpu>::try_with_decomposition_in(&Cpu, grid.communicator(), decomposition, halo);
    let mut host_grid = grid.agree(OP, host_grid)?;
    for field in fields {
        let exchanged = host_grid.exchange_block(OP, field, false);
        grid.agree(OP, exchanged)?;
    }
    Ok(())
}

/// A distributed level's Chebyshev interval from the largest of the processes' bounds of
/// `λ_max` (each bounds its own block's rows): one polynomial on every block. Collective.
pub(super) fn one_chebyshev_interval<T: SolverScalar, const N: usize, B: SolverBackend>(
    comm: &impl CommunicatorCollectives,
    level: &mut Level<T, N, B>,
) {
    if let LevelSmoother::Chebyshev { low, high } = &mut level.smoother {
        let mut largest = 0.0;
        comm.all_reduce_into(high, &mut largest, SystemOperation::max());
        let ratio = if *high > 0.0 { *low / *high } else { 0.0 };
        (*low, *high) = (ratio * largest, largest);
    }
}
