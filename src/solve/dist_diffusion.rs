//! [`DistOperator::diffusion`]: the diffusion operator `−∇·(k ∇u) + shift u` of a conductivity
//! distributed over MPI processes, each process's coefficient fields computed from its block of
//! `k` and its neighbours' conductivities next to it (one halo exchange), as
//! [`VariableOperator::diffusion_in`] computes the whole grid's.

use mpi::datatype::Equivalence;

use super::diffusion::{diffusion_fields, offsets, Conductivity};
use super::dist::{check_global, local_boundaries, DistOperator};
use super::variable_operator::VariableOperator;
use super::vectors::SolverScalar;
use crate::array::Array;
use crate::dist::{DistArray, DistBackend};
use crate::error::{or_panic, Error, Result};
use crate::kernel::{ElementwiseKernels, StencilKernels};
use crate::shape::row_major_index as index;
use crate::stencil::{Boundaries, Side, VariableStencil};

impl<T: SolverScalar + Equivalence, const N: usize, B: DistBackend + StencilKernels + ElementwiseKernels>
    DistOperator<T, N, VariableOperator<T, N, B>, B>
{
    /// `−∇·(k ∇u) + shift u` on the grid of `k` (split as `k` is, its blocks' backend) with
    /// spacing `h` per axis and `boundaries` on the whole grid, each face's conductivity the
    /// harmonic mean of its two points' (across blocks too): the same coefficients, bit for bit,
    /// as [`VariableOperator::diffusion_in`] on the whole grid. `Multigrid::for_dist_variable`
    /// builds its hierarchy, Galerkin or rediscretized from each block's conductivity
    /// ([`CoarseOperators`](super::CoarseOperators)). Collective.
    ///
    /// ```no_run
    /// use cnda::dist::DistArray;
    /// use cnda::solve::{Cg, DistOperator, Multigrid, MultigridOptions};
    /// use cnda::stencil::Boundary;
    /// let universe = mpi::initialize().unwrap();
    /// let world = universe.world();
    /// let (n, h) = (127, 1.0 / 128.0);
    /// // Conductivity 1 below the middle, 100 above.
    /// let mut k = DistArray::<f64, 2>::new(&world, [n, n], [0, 0], [false, false]);
    /// k.fill_owned_with(|[i, _]| if i < n / 2 { 1.0 } else { 100.0 });
    /// let a = DistOperator::diffusion(&k, [h; 2], 0.0, [Boundary::Value(0.0); 2]);
    /// let mut b = DistArray::new(&world, [n, n], [1, 1], [false, false]);
    /// b.fill_owned_with(|_| 1.0);
    /// let mut u = DistArray::new(&world, [n, n], [1, 1], [false, false]);
    /// let mg = Multigrid::for_dist_variable(&a, MultigridOptions::default());
    /// let report = Cg::new().rtol(1e-8).preconditioner(mg).solve_dist(&a, &b, &mut u);
    /// ```
    ///
    /// # Panics
    ///
    /// As [`DistOperator::try_diffusion`] errs.
    #[track_caller]
    pub fn diffusion(k: &DistArray<T, N, B>, h: [f64; N], shift: f64, boundaries: impl Into<Boundaries<T, N>>) -> Self {
        or_panic(Self::try_diffusion(k, h, shift, boundaries))
    }

    /// [`DistOperator::diffusion`], returning errors.
    ///
    /// # Errors
    ///
    /// As [`VariableOperator::try_diffusion_in`] (a conductivity that is not positive and finite
    /// on some process: on every process) and [`DistOperator::try_stencil`] (the conditions on
    /// the whole grid; a block at a global edge at least two points deep where the side is
    /// `Value` or `Neumann`); `Error::Mpi`,
    /// `Error::Device` from the conductivity's halo exchange. The same error on every process.
    pub fn try_diffusion(
        k: &DistArray<T, N, B>,
        h: [f64; N],
        shift: f64,
        boundaries: impl Into<Boundaries<T, N>>,
    ) -> Result<Self> {
        const OP: &str = "DistOperator::diffusion";
        let boundaries = boundaries.into();
        let (d, rank) = (*k.decomposition(), k.rank());
        // The conductivity with a halo of one: the neighbours' next to this block.
        let mut padded = DistArray::try_with_decomposition_in(&k.allocator(), k.communicator(), d, [1; N])?;
        let copied = padded.owned_mut().try_assign(&k.owned());
        padded.agree_on_device(OP, copied)?;
        padded.try_exchange_halos()?;
        let local = check_global(OP, k, [1; N], &boundaries).and_then(|()| {
            if let Some(&s) = h.iter().find(|&&s| s <= 0.0 || !s.is_finite()) {
                return Err(refuse(format!("the spacing {s}")));
            }
            let host = padded.local().try_to_host()?;
            let block = d.block_shape(rank);
            let inside = |p: [usize; N]| (0..N).all(|a| (1..=block[a]).contains(&p[a]));
            let start = d.block(rank).map(|r| r.start);
            for p in (0..host.len()).map(|i| index(i, host.shape())).filter(|&p| inside(p)) {
                let v: f64 = host[p].into();
                if !(v > 0.0 && v.is_finite()) {
                    let g: [usize; N] = core::array::from_fn(|a| start[a] + p[a] - 1);
                    return Err(refuse(format!("the conductivity at {g:?} is {v:?}")));
                }
            }
            // A neighbour's value past the block where a block (or a periodic image) lies there;
            // none past the grid's walls and `Neumann` sides.
            let beyond = |a: usize, side: Side| {
                let step = if side == Side::Low { -1 } else { 1 };
                d.periodic()[a] || d.neighbour(rank, a, step).is_some()
            };
            let k_at = |p: [usize; N]| -> Option<f64> {
                for a in 0..N {
                    if (p[a] == 0 && !beyond(a, Side::Low)) || (p[a] == block[a] + 1 && !beyond(a, Side::High)) {
                        return None;
                    }
                }
                Some(host[p].into())
            };
            let fields = diffusion_fields::<T, N>(block, k_at, h, shift)?
                .iter()
                .map(|f| B::upload(&k.allocator(), f))
                .collect::<Result<Vec<_>>>()?;
            let stencil = VariableStencil::try_new(offsets::<N>())?;
            let mut op = VariableOperator::try_new(stencil, fields, local_boundaries(&d, rank, &boundaries))?;
            // This block's conductivity, for rediscretized coarse levels.
            let own = Array::try_from_fn(block, |l| host[l.map(|i| i + 1)])?;
            op.conductivity = Some(Conductivity { k: own, h, shift });
            Ok(op)
        });
        Self::with_exchange(OP, local, k, true, Some(boundaries))
    }
}

fn refuse(reason: String) -> Error {
    Error::Parameter {
        op: "DistOperator::diffusion",
        reason,
        fix: "give a positive, finite conductivity at every point and positive spacings",
    }
}
