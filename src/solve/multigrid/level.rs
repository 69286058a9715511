//! One level of the hierarchy: its operator, vectors (padded by the operator's halo) and the
//! smoothers and grid transfers that run on them, through the backend's stencil, vector and copy
//! kernels.

use super::grid::transfer_sides;
use super::operator::{HostTaps, InverseDiagonal, LevelOperator};
use super::smoother::{LevelSmoother, Smoother};
use crate::array::Array;
use crate::element::Pod;
use crate::error::Result;
use crate::kernel::tokens::Second;
use crate::kernel::{Backend, Desc, StencilKernels};
use crate::ops::elementwise::update;
use crate::ops::fill_copy::fill;
use crate::solve::vectors::{SolverBackend, SolverScalar, Space};
use crate::stencil::{try_fill_boundaries, Boundaries, DynStencil};

/// The processes a distributed level's grid is split over ([`Multigrid::for_dist`](super::Multigrid::for_dist)):
/// the level's vectors are each process's block, padded as one process's vectors are, and its
/// halos between blocks (and across periodic axes) come from the neighbours.
pub(crate) trait LevelExchange<T: Pod, const N: usize, B: Backend>: Send + Sync {
    /// Fills `v`'s halos between blocks from the neighbours. Collective, with the same outcome
    /// on every process where blocks live on a device.
    fn exchange(&mut self, v: &mut Array<T, N, B>) -> Result<()>;

    /// `v`'s owned points gathered on process 0 (`None` elsewhere). Collective.
    fn gather(&mut self, v: &mut Array<T, N, B>) -> Result<Option<Array<T, N>>>;

    /// `v`'s owned points set from `global`, which process 0 gives. Collective.
    fn scatter(&mut self, v: &mut Array<T, N, B>, global: Option<&Array<T, N>>) -> Result<()>;

    /// The global index of this process's first owned point.
    fn origin(&self) -> [usize; N];
}

/// A level's exchange where it has one (distributed levels), then its boundary conditions:
/// `v`'s halo filled.
///
/// # Errors
///
/// The exchange's and the copy kernels' errors.
pub(super) fn fill_halos<T: SolverScalar, const N: usize, B: SolverBackend>(
    exchange: &mut Option<Box<dyn LevelExchange<T, N, B>>>,
    v: &mut Array<T, N, B>,
    halo: [usize; N],
    boundaries: crate::stencil::Boundaries<T, N>,
) -> Result<()> {
    exchange_halos(exchange, v)?;
    try_fill_boundaries(v, halo, boundaries)
}

/// `v`'s halos between blocks exchanged on a distributed level (nothing on one process): before
/// an operator that fills its own boundaries.
///
/// # Errors
///
/// The exchange's.
pub(super) fn exchange_halos<T: SolverScalar, const N: usize, B: SolverBackend>(
    exchange: &mut Option<Box<dyn LevelExchange<T, N, B>>>,
    v: &mut Array<T, N, B>,
) -> Result<()> {
    match exchange {
        Some(exchange) => exchange.exchange(v),
        None => Ok(()),
    }
}

/// A level: `A x = b` on its grid, with the residual `r` and a scratch vector.
pub(super) struct Level<T: SolverScalar, const N: usize, B: SolverBackend> {
    pub(super) op: LevelOperator<T, N, B>,
    pub(super) space: Space<T, N, B>,
    pub(super) x: Array<T, N, B>,
    pub(super) b: Array<T, N, B>,
    pub(super) r: Array<T, N, B>,
    pub(super) scratch: Array<T, N, B>,
    /// `D⁻¹`: the inverse of the centre weight, or its field.
    pub(super) inverse_diagonal: InverseDiagonal<T, N, B>,
    pub(super) smoother: LevelSmoother<T, N, B>,
    /// Stencil passes over this level so far (smoothing, residuals, transfers, coarse solves):
    /// the hierarchy's work count.
    pub(super) passes: usize,
    /// The processes the level is split over (`None` on one process).
    pub(super) exchange: Option<Box<dyn LevelExchange<T, N, B>>>,
    /// The global index of the first point of the level's vectors' interior (zero on one process).
    pub(super) origin: [usize; N],
    /// The global fine index of the next coarser level's first point along each axis
    /// ([`Coarsening::first`](super::grid::Coarsening::first)).
    first: [usize; N],
    /// The conditions the grid transfers fill halos with.
    transfer: Boundaries<T, N>,
}

impl<T: SolverScalar, const N: usize, B: SolverBackend + StencilKernels> Level<T, N, B> {
    /// The level of `op` (its taps on the host: `taps`), its vectors from `alloc`, the next
    /// coarser level's first point at fine index `first` along each axis.
    ///
    /// # Errors
    ///
    /// `Error::Alloc`; `Error::Parameter` for a zero diagonal, or as the smoother refuses.
    pub(super) fn new(
        op: LevelOperator<T, N, B>,
        taps: &HostTaps<N>,
        alloc: &B::Alloc,
        smoother: Smoother,
        exchange: Option<Box<dyn LevelExchange<T, N, B>>>,
        first: [usize; N],
    ) -> Result<Self> {
        let space = Space::for_shape("multigrid", op.shape(), op.halo(), alloc.clone())?;
        let (x, b, r, scratch) = (space.vector()?, space.vector()?, space.vector()?, space.vector()?);
        let inverse_diagonal = op.inverse_diagonal(taps, &space)?;
        let origin = exchange.as_ref().map_or([0; N], |e| e.origin());
        let transfer = transfer_sides(op.boundaries());
        // Red-black colours by the global index's parity.
        let parity = origin.iter().sum::<usize>() % 2;
        let smoother = LevelSmoother::new(smoother, taps, &inverse_diagonal, &space, parity)?;
        Ok(Level {
            op,
            space,
            x,
            b,
            r,
            scratch,
            inverse_diagonal,
            smoother,
            passes: 0,
            exchange,
            origin,
            first,
            transfer,
        })
    }

    /// `r = b − A x`.
    ///
    /// # Errors
    ///
    /// The kernels' errors.
    pub(super) fn residual(&mut self) -> Result<()> {
        self.passes += 1;
        exchange_halos(&mut self.exchange, &mut self.x)?;
        self.op.try_apply(&mut self.x, &mut self.r)?;
        self.space.xpby(&mut self.r, &self.b, -1.0)
    }

    /// Where each axis's first coincident point lies in the interior, for a coarse level whose
    /// first point is global point `coarse_origin`: `2 I + first` coincides with coarse point `I`.
    fn starts(&self, coarse_origin: [usize; N]) -> Option<[usize; N]> {
        let mut starts = [0; N];
        for k in 0..N {
            let first = coarse_origin[k].checked_mul(2)?.checked_add(self.first[k])?;
            // A process's coarse points are those whose images it owns: `first >= origin`.
            starts[k] = first.checked_sub(self.origin[k])?;
        }
        Some(starts)
    }

    /// The points of this level that coincide with the points of `coarse` (a level of `shape`
    /// from `origin` on), as a descriptor of `v` with the coarse shape.
    fn coincident(&self, v: Desc<B, T, N>, (coarse, origin): ([usize; N], [usize; N])) -> Result<Desc<B, T, N>> {
        let inner = self.space.interior(v)?;
        let fine = self.space.shape();
        let starts = self.starts(origin);
        // Points `s, s + 2, ..., s + 2 (coarse − 1)` of each axis (and `s` itself, where
        // `lattice` narrows to it, however few the coarse points) must lie inside the fine
        // interior.
        let fits = |starts: [usize; N], k: usize| {
            let last = (coarse[k].max(1) - 1).checked_mul(2).and_then(|c| c.checked_add(starts[k]));
            last.is_some_and(|last| last < fine[k])
        };
        let Some(starts) = starts.filter(|&s| (0..N).all(|k| fits(s, k))) else {
            return Err(crate::Error::ShapeMismatch {
                op: "multigrid (grid transfer)",
                expected: core::array::from_fn::<usize, N, _>(|k| fine[k].div_ceil(2)).to_vec(),
                got: coarse.to_vec(),
            });
        };
        Ok(lattice(inner, starts, coarse))
    }

    /// `coarse.b = R r` (full weighting of this level's residual), `coarse.x = 0`.
    ///
    /// # Errors
    ///
    /// The kernels' errors.
    pub(super) fn restrict_to(&mut self, coarse: &mut Self, weighting: &DynStencil<T, N>) -> Result<()> {
        self.passes += 1;
        fill_halos(&mut self.exchange, &mut self.r, self.space.halo(), self.transfer)?;
        weighting.try_apply(&self.r, &mut self.scratch)?;
        let from = self.coincident(self.scratch.desc(), (coarse.space.shape(), coarse.origin))?;
        let to = coarse.space.interior(coarse.b.desc_mut())?;
        // SAFETY: `to` is the coarse level's right-hand side (uniquely borrowed), `from` points of
        // this level's scratch vector (another array), both of the coarse shape.
        unsafe { update(Second, to, from) }?;
        coarse.x.try_fill(T::ZERO)
    }

    /// `x += P coarse.x` (multilinear interpolation of the coarse correction).
    ///
    /// # Errors
    ///
    /// The kernels' errors.
    pub(super) fn correct_from(&mut self, coarse: &Self, interpolation: &DynStencil<T, N>) -> Result<()> {
        self.passes += 1;
        self.scratch.try_fill(T::ZERO)?;
        let scratch = self.scratch.desc_mut();
        let to = self.coincident(scratch, (coarse.space.shape(), coarse.origin))?;
        let from = coarse.space.interior(coarse.x.desc())?;
        // SAFETY: `to` addresses distinct points of this level's scratch vector (uniquely
        // borrowed), `from` the coarse iterate (another array), both of the coarse shape.
        unsafe { update(Second, to, from) }?;
        // Periodic axes interpolate across the wrap from the scattered values' images.
        fill_halos(&mut self.exchange, &mut self.scratch, self.space.halo(), self.transfer)?;
        interpolation.try_apply(&self.scratch, &mut self.r)?;
        self.space.axpy(&mut self.x, 1.0, &self.r)
    }
}

/// The points `start + 2 i` (for `i` below `shape`) of `d`.
fn lattice<B: SolverBackend, T: SolverScalar, const N: usize>(
    d: Desc<B, T, N>,
    start: [usize; N],
    shape: [usize; N],
) -> Desc<B, T, N> {
    let d = (0..N).fold(d, |d, k| d.narrowed(k, start[k], 1));
    Desc { shape, strides: d.strides.map(|s| 2 * s), ..d }
}

/// Ones on the interior points whose index sum has parity `parity`, zeros elsewhere.
pub(super) fn checkerboard<T: SolverScalar, const N: usize, B: SolverBackend>(
    space: &Space<T, N, B>,
    parity: usize,
) -> Result<Array<T, N, B>> {
    let mut mask = space.vector()?;
    let shape = space.shape();
    for corner in 0..1usize << N {
        let start: [usize; N] = core::array::from_fn(|k| (corner >> k) & 1);
        if start.iter().sum::<usize>() % 2 != parity {
            continue;
        }
        let counts: [usize; N] = core::array::from_fn(|k| shape[k].saturating_sub(start[k]).div_ceil(2));
        if counts.contains(&0) {
            continue;
        }
        let d = lattice(space.interior(mask.desc_mut())?, start, counts);
        // SAFETY: `d` addresses distinct interior points of `mask` (uniquely borrowed): `start_k
        // + 2 (counts_k − 1) < shape_k` on every axis.
        unsafe { fill(d, T::ONE) }?;
    }
    Ok(mask)
}
