//! Rediscretized coarse levels over MPI processes (a `DistOperator::diffusion`'s hierarchy with
//! [`CoarseOperators::Rediscretized`](super::CoarseOperators)): each process restricts its
//! block's conductivity to its block of the coarse grid (the fine conductivity's halo of one
//! exchanged), exchanges the coarse conductivity's halo, and discretizes the diffusion operator
//! there again, the same additions as on one process; the coarsest distributed level's
//! conductivity is gathered on process 0, which rediscretizes the rest of the hierarchy.

use super::dist::LevelGrid;
use super::dist_galerkin::{exchange_fields, one_chebyshev_interval, DistGrid};
use super::grid::Coarsening;
use super::level::Level;
use super::operator::{HostTaps, LevelOperator};
use super::rediscretize::full_weighting;
use super::{Gathered, Multigrid, MultigridOptions};
use crate::array::Array;
use crate::dist::{Decomposition, DistArray, DistBackend};
use crate::error::Result;
use crate::kernel::{Cpu, StencilKernels};
use crate::ops::transfer::upload;
use crate::solve::diffusion::{diffusion_fields, offsets, Conductivity};
use crate::solve::dist::local_boundaries;
use crate::solve::variable_operator::VariableOperator;
use crate::solve::vectors::{SolverBackend, SolverScalar};
use crate::stencil::{Boundaries, Side, VariableStencil};
use mpi::datatype::Equivalence;

const OP: &str = "Multigrid::for_dist_variable";

impl<T, const N: usize, B> Multigrid<T, N, B>
where
    T: SolverScalar + Equivalence + 'static,
    B: SolverBackend + DistBackend + StencilKernels + 'static,
{
    /// The coarse levels below the distributed `levels` (the finest, a diffusion operator whose
    /// block's conductivity, spacing and shift are `conductivity`), each rediscretized from the
    /// conductivity restricted block by block, split as [`Multigrid::for_dist`]'s levels are,
    /// down to where a process would own no point or the grid has `options.coarsest` points;
    /// that level whole on process 0, rediscretized further there.
    ///
    /// # Errors
    ///
    /// As [`Multigrid::try_for_dist_variable`], the same on every process.
    pub(super) fn rediscretized_dist_levels(
        mut levels: Vec<Level<T, N, B>>,
        conductivity: &Conductivity<T, N>,
        at: DistGrid<'_, T, N, B>,
        options: MultigridOptions,
        singular: bool,
    ) -> Result<Self> {
        let DistGrid { grid, mut decomposition, coarsening, sides, .. } = at;
        let (rank, alloc, comm) = (grid.rank(), grid.allocator(), grid.communicator());
        let (first, periodic) = (coarsening.first(), coarsening.periodic());
        let (mut shape, mut h) = (decomposition.global_shape(), conductivity.h);
        // This block's conductivity padded by one, its halo exchanged.
        let k = padded(conductivity.k.shape(), |i| conductivity.k[i].into());
        let mut k = grid.agree(OP, k)?;
        exchange_fields(grid, decomposition, [1; N], core::slice::from_mut(&mut k))?;
        loop {
            let next = match coarsening.halvable(shape) && shape.iter().product::<usize>() > options.coarsest {
                true => decomposition.try_coarsened_onto(first).ok(),
                false => None,
            };
            let Some(coarse) = next else {
                let at = (grid, decomposition, coarsening, options, singular);
                let gathered = gather_conductivity(at, k, h, conductivity.shift, &sides)?;
                let mut multigrid = Self::from_levels(levels, options, singular)?;
                multigrid.gathered = gathered.map(Box::new);
                return Ok(multigrid);
            };
            // The coarse block's conductivity: fine points read from this block and its halo
            // (a coarse point's image is this process's; periodic images lie in the halo).
            let origin = decomposition.block(rank).map(|r| r.start);
            let (block, start) = (coarse.block_shape(rank), coarse.block(rank).map(|r| r.start));
            let restricted = padded(block, |l| {
                let c: [usize; N] = core::array::from_fn(|a| start[a] + l[a]);
                let sum = full_weighting(c, first, shape, periodic, |j| {
                    k[core::array::from_fn(|a| (j[a] - origin[a] as isize + 1) as usize)]
                });
                // Rounded to `T` as one process's restriction rounds it.
                T::from_f64(sum).into()
            });
            h = h.map(|s| 2.0 * s);
            let mut coarse_k = grid.agree(OP, restricted)?;
            exchange_fields(grid, coarse, [1; N], core::slice::from_mut(&mut coarse_k))?;
            // Collective (its outcome agreed), so before the work that may fail on one process.
            let exchange = DistArray::try_with_decomposition_in(&alloc, comm, coarse, [1; N])?;
            let level = (|| {
                let beyond = |a: usize, side: Side| {
                    coarse.periodic()[a] || coarse.neighbour(rank, a, if side == Side::Low { -1 } else { 1 }).is_some()
                };
                let k_at = |p: [usize; N]| -> Option<f64> {
                    let outside = (0..N).any(|a| {
                        (p[a] == 0 && !beyond(a, Side::Low)) || (p[a] == block[a] + 1 && !beyond(a, Side::High))
                    });
                    (!outside).then(|| coarse_k[p])
                };
                let fields: Vec<Array<T, N>> = diffusion_fields(block, k_at, h, conductivity.shift)?;
                let host_fields: Vec<Array<f64, N>> = fields.iter().map(|f| f.map(|v| v.into())).collect();
                let on_backend =
                    fields.iter().map(|f| upload(&alloc, f.as_slice(), f.shape())).collect::<Result<Vec<_>>>()?;
                let stencil = VariableStencil::try_new(offsets::<N>())?;
                let op = VariableOperator::try_new(stencil, on_backend, local_boundaries(&coarse, rank, &sides))?;
                let host = HostTaps::Variable { offsets: offsets::<N>(), fields: host_fields };
                let grid = Some(Box::new(LevelGrid::new(exchange)) as _);
                Level::new(LevelOperator::Variable(op), &host, &alloc, options.smoother, grid, first)
            })();
            let mut level = grid.agree(OP, level)?;
            one_chebyshev_interval(comm, &mut level);
            levels.push(level);
            (k, decomposition, shape) = (coarse_k, coarse, coarsening.coarser(shape));
        }
    }
}

/// A block of `shape` padded by one point of zeros, its points from `at` (their block index).
///
/// # Errors
///
/// `Error::Alloc`.
fn padded<const N: usize>(shape: [usize; N], at: impl Fn([usize; N]) -> f64) -> Result<Array<f64, N>> {
    Array::try_from_fn(core::array::from_fn(|a| shape[a] + 2), |p| {
        match (0..N).all(|a| (1..=shape[a]).contains(&p[a])) {
            true => at(p.map(|i| i - 1)),
            false => 0.0,
        }
    })
}

/// The coarsest distributed level's conductivity (this process's block padded by one) gathered
/// on process 0, which builds that level's diffusion operator and, where its grid coarsens
/// further, its rediscretized hierarchy (`None` elsewhere).
///
/// # Errors
///
/// The gather's and the hierarchy's, the same on every process.
#[allow(clippy::type_complexity)]
fn gather_conductivity<T, const N: usize, B>(
    (grid, decomposition, coarsening, options, singular): (
        &DistArray<T, N, B>,
        Decomposition<N>,
        Coarsening<N>,
        MultigridOptions,
        bool,
    ),
    mut k: Array<f64, N>,
    h: [f64; N],
    shift: f64,
    sides: &Boundaries<T, N>,
) -> Result<Option<Gathered<T, N>>>
where
    T: SolverScalar + Equivalence + 'static,
    B: SolverBackend + DistBackend + StencilKernels + 'static,
{
    let host_grid =
        DistArray::<f64, N, Cpu>::try_with_decomposition_in(&Cpu, grid.communicator(), decomposition, [1; N]);
    let mut host_grid = grid.agree(OP, host_grid)?;
    let whole = host_grid.with_block(OP, &mut k, |a| a.try_gather(0)).and_then(|g| g);
    let whole = grid.agree(OP, whole)?;
    let built = match whole {
        Some(whole) => (|| {
            let k = whole.map(|v| T::from_f64(v));
            let op = VariableOperator::try_diffusion_in(&Cpu, &k, h, shift, *sides)?;
            let multigrid = match coarsening.halvable(decomposition.global_shape()) {
                true => {
                    let mut multigrid = Multigrid::<T, N, Cpu>::try_for_variable(&op, options)?;
                    // The processes' agreed null space, not the gathered rows' own rounding.
                    multigrid.singular = singular;
                    Some(multigrid)
                }
                false => None,
            };
            Ok(Some(Gathered { op: LevelOperator::Variable(op), multigrid, singular }))
        })(),
        None => Ok(None),
    };
    grid.agree(OP, built)
}
