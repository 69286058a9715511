//! Distributed levels whose coarse operators vary point by point (next to `Neumann` sides, where
//! the folded rows differ from the interior's): each process computes the Galerkin products at
//! its own block of every coarse level, reading the level above's rows at its block and one
//! point beyond it (the fields' halos exchanged, so no process needs the whole grid), and the
//! coarsest distributed level's fields are gathered on process 0, which builds the rest of the
//! hierarchy there.

use mpi::collective::SystemOperation;
use mpi::datatype::Equivalence;
use mpi::traits::CommunicatorCollectives;

use super::dist::{gathered, LevelGrid};
use super::grid::{transfer_sides, Coarsening};
use super::level::Level;
use super::operator::{HostTaps, LevelOperator};
use super::rows::{BlockRows, FieldRows, FineRows};
use super::smoother::LevelSmoother;
use super::{galerkin, Gathered, Multigrid, MultigridOptions};
use crate::array::Array;
use crate::dist::{Decomposition, DistArray, DistBackend};
use crate::error::Result;
use crate::kernel::{Cpu, StencilKernels};
use crate::ops::transfer::upload;
use crate::solve::dist::local_boundaries;
use crate::solve::variable_operator::VariableOperator;
use crate::solve::vectors::{SolverBackend, SolverScalar};
use crate::stencil::{Boundaries, DynStencil, VariableStencil};

const OP: &str = "Multigrid::for_dist";

/// A distributed level's coefficient fields on the host, this process's block padded by `halo`
/// (halos exchanged), with the block's first global point.
struct HostBlock<const N: usize> {
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
    /// The finest level's stencil (gathered whole where no coarse level is distributed).
    pub(super) weights: DynStencil<T, N>,
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
        let DistGrid { grid, mut decomposition, coarsening, sides, weights } = at;
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
                    let coarse = coarsening.coarser(shape);
                    decomposition.try_coarsened_onto(core::array::from_fn(|k| (first[k], coarse[k]))).ok()
                }
                false => None,
            };
            // The same answer on every process: every block as deep as the reach.
            let next = next.filter(|d| (0..d.ranks()).all(|r| (0..N).all(|k| d.block_shape(r)[k] >= reach[k])));
            let Some(coarse) = next else {
                let gathered = match above {
                    Some(above) => {
                        gather_coarsest(grid, decomposition, above, coarsening, coarse_sides, options, singular)?
                    }
                    // Nothing coarsened on the processes: the finest operator, whole.
                    None => {
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
            let host_grid = DistArray::<f64, N, Cpu>::try_with_decomposition_in(&Cpu, comm, coarse, halo);
            let mut host_grid = grid.agree(OP, host_grid)?;
            for field in &mut fields {
                let exchanged = host_grid.exchange_block(OP, field, false);
                grid.agree(OP, exchanged)?;
            }
            let level = (|| {
                let on_backend = fields
                    .iter()
                    .map(|f| upload(&alloc, f.map(|v| T::from_f64(v)).as_slice(), f.shape()))
                    .collect::<Result<Vec<_>>>()?;
                let stencil = VariableStencil::try_new(offsets.iter().copied())?;
                let op =
                    VariableOperator::try_new(stencil, on_backend, local_boundaries(&coarse, rank, &coarse_sides))?;
                let exchange = DistArray::try_with_decomposition_in(&alloc, comm, coarse, halo)?;
                let host = HostTaps::Variable { offsets: offsets.clone(), fields: fields.clone() };
                let grid = Some(Box::new(LevelGrid::new(exchange)) as _);
                Level::new(LevelOperator::Variable(op), &host, &alloc, options.smoother, grid, first)
            })();
            let mut level = grid.agree(OP, level)?;
            // Chebyshev's interval from the largest of the processes' bounds: one polynomial.
            if let LevelSmoother::Chebyshev { low, high } = &mut level.smoother {
                let mut largest = 0.0;
                comm.all_reduce_into(high, &mut largest, SystemOperation::max());
                let ratio = if *high > 0.0 { *low / *high } else { 0.0 };
                (*low, *high) = (ratio * largest, largest);
            }
            levels.push(level);
            above = Some(HostBlock { offsets, fields, halo, origin: block.map(|r| r.start) });
            decomposition = coarse;
            shape = coarsening.coarser(shape);
        }
    }
}

/// The coarsest distributed level whole on process 0 (`None` elsewhere): its fields gathered
/// there and, where its grid coarsens further, its own hierarchy.
///
/// # Errors
///
/// The gathers' and the hierarchy's, the same on every process.
fn gather_coarsest<T, const N: usize, B>(
    grid: &DistArray<T, N, B>,
    decomposition: Decomposition<N>,
    above: HostBlock<N>,
    coarsening: Coarsening<N>,
    sides: Boundaries<T, N>,
    options: MultigridOptions,
    singular: bool,
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
                    Some(Multigrid::<T, N, Cpu>::galerkin_levels(
                        vec![level],
                        &rows,
                        coarsening,
                        &cpu,
                        options,
                        singular,
                    )?)
                }
                false => None,
            };
            Ok(Some(Gathered { op, multigrid, singular }))
        })(),
        _ => Ok(None),
    };
    grid.agree(OP, built)
}
