//! `stencil!` stencils over distributed fields: the same split sweep as
//! [`LinearStencil::apply_dist`](crate::stencil::LinearStencil::apply_dist), each box through the
//! generic [`StencilApply::try_apply`], so on every backend.

use mpi::datatype::Equivalence;

use super::stencil::{sweep_split, Limits};
use super::systems::{steps_dist, DistCoefficients};
use super::{DistArray, DistBackend, DistState};
use crate::error::{or_panic, Result};
use crate::kernel::expr::{radius, Arity, Evolves, Scalar, Stencil};
use crate::kernel::{CopyKernels, ExprStencilKernels};
use crate::stencil::{step_rings, StencilApply, StepBoundaries};

/// `stencil!` stencils over distributed grids: [`apply_dist`](StencilApplyDist::apply_dist), one
/// sweep of a stencil of one field, and
/// [`apply_steps_dist`](StencilApplyDist::apply_steps_dist), time steps of a system (every field
/// the stencil evolves, at its time levels) in a [`DistState`] with deep halos. In the prelude
/// under feature `mpi`, implemented for every `stencil!` stencil.
///
/// ```no_run
/// use cnda::dist::{DistArray, StencilApplyDist};
/// use cnda::prelude::*;
/// let universe = mpi::initialize().unwrap();
/// let heat = stencil!(|u; a: T| u[0, 0] + a * (u[-1, 0] + u[1, 0] + u[0, -1] + u[0, 1] - 4.0 * u[0, 0]));
/// let mut u = DistArray::<f64, 2>::new(&universe.world(), [512, 512], [1, 1], [false; 2]);
/// let mut v = u.clone();
/// heat.apply_dist(&mut u, &mut v, (0.1,));
/// ```
pub trait StencilApplyDist<T: Scalar + Equivalence, const N: usize>: Stencil<T, N> {
    /// One sweep over a distributed grid: `v = self(u, params)` at every global point at least
    /// the stencil's radius (per axis) from a fixed global edge, the same bit for bit as
    /// [`StencilApply::apply`] on the whole grid; `v`'s other points are left alone. `u`'s halos
    /// are exchanged (the faces only when no tap is diagonal) while the points whose taps stay
    /// inside the owned block are swept. On any backend the blocks live on. Collective.
    ///
    /// # Panics
    ///
    /// As [`StencilApplyDist::try_apply_dist`] errs.
    #[track_caller]
    fn apply_dist<B: DistBackend + ExprStencilKernels>(
        &self,
        u: &mut DistArray<T, N, B>,
        v: &mut DistArray<T, N, B>,
        params: Self::Params,
    ) where
        Self: Stencil<T, N, Arity = Arity<1>, Values = T>,
    {
        or_panic(self.try_apply_dist(u, v, params))
    }

    /// [`StencilApplyDist::apply_dist`], returning errors.
    ///
    /// # Errors
    ///
    /// As [`LinearStencil::try_apply_dist`](crate::stencil::LinearStencil::try_apply_dist), and
    /// as [`StencilApply::try_apply`], on every process: the kernel finds its limits at the
    /// launch, on the processes that sweep, so the processes agree on the outcome before
    /// returning (one small all-reduce), on every backend.
    fn try_apply_dist<B: DistBackend + ExprStencilKernels>(
        &self,
        u: &mut DistArray<T, N, B>,
        v: &mut DistArray<T, N, B>,
        params: Self::Params,
    ) -> Result<()>
    where
        Self: Stencil<T, N, Arity = Arity<1>, Values = T>,
    {
        let faces_only = Self::TAPS.iter().all(|tap| tap.offset.iter().filter(|&&o| o != 0).count() <= 1);
        let r = radius::<Self, T, N>();
        // The expression kernels' limits are the backend's to check at the launch.
        let limits = Limits::AtLaunch;
        sweep_split("StencilApplyDist::apply_dist", u, v, r, limits, faces_only, |input, output| {
            self.try_apply((input,), output, params)
        })
    }

    /// `steps` time steps of the fields the stencil evolves in `state` (a system of `M` fields
    /// at `L` levels), `coefficients` read by every step, `boundaries` at the global edges (one
    /// for every field alike or a [`FieldBoundaries`](crate::stencil::FieldBoundaries)):
    /// the same bit for bit as
    /// [`StencilApply::apply_steps_with`](crate::stencil::StencilApply::apply_steps_with) on one
    /// [`State`](crate::stencil::State) holding the whole grid (padded with periodic images
    /// along the periodic axes: a periodic axis is the decomposition's, given
    /// `Boundary::Periodic`, and only it). Deep halos: one exchange, carrying every field's
    /// levels in one message per neighbour, serves `halo / radius` steps (the fewest an
    /// exchanged axis holds), each process stepping its block widened into the halos with the
    /// fused stepper between exchanges. Collective.
    ///
    /// The halos hold unspecified values afterwards (the widened steps' leftovers): exchange
    /// them before reading them.
    ///
    /// With a [`PointIo`](crate::stencil::PointIo) as the boundaries, sources and receivers in
    /// global coordinates, the same on every process: every process injects the sources where
    /// its widened steps need them, the process owning a receiver's lowest node samples it, and
    /// every process's record ends with every receiver's samples (a receiver's nodes reach one
    /// point past a block: the halo must be one point wider than a step reaches, so one
    /// exchange serves `(halo - 1) / radius` steps).
    ///
    /// ```no_run
    /// use cnda::dist::{DistArray, DistState, StencilApplyDist};
    /// use cnda::prelude::*;
    /// use cnda::stencil::Boundary;
    /// stencil! {
    ///     /// A wave: u at n and n - 1 (two levels), the squared Courant number per point;
    ///     /// the 4th-order Laplacian, radius 2.
    ///     #[levels(2)]
    ///     struct Wave = |u, um, c| 2.0 * u[0, 0] - um[0, 0] + c[0, 0] * laplace(u, 4);
    /// }
    /// let universe = mpi::initialize().unwrap();
    /// // Halos of 8, the radius 2: one exchange every 4 steps.
    /// let mut u = DistArray::<f64, 2>::new(&universe.world(), [512, 512], [8, 8], [false; 2]);
    /// u.fill_owned_with(|[i, j]| if (i, j) == (256, 256) { 1.0 } else { 0.0 });
    /// let mut c = DistArray::<f64, 2>::new(&universe.world(), [512, 512], [8, 8], [false; 2]);
    /// c.fill_owned_with(|_| 0.1);
    /// let mut wave = DistState::from_levels([[u.clone(), u]]);
    /// Wave.apply_steps_dist(&mut wave, 100, &mut c, (), [Boundary::Fixed; 2]);
    /// ```
    ///
    /// # Panics
    ///
    /// As [`StencilApplyDist::try_apply_steps_dist`] errs.
    #[track_caller]
    fn apply_steps_dist<B, const M: usize, const L: usize, C>(
        &self,
        state: &mut DistState<T, N, M, L, B>,
        steps: usize,
        coefficients: C,
        params: Self::Params,
        boundaries: impl StepBoundaries<T, N, M>,
    ) where
        Self: Evolves<M, L>,
        B: DistBackend + ExprStencilKernels + CopyKernels,
        C: DistCoefficients<T, N, B, <Self as Evolves<M, L>>::Coefficients>,
    {
        or_panic(self.try_apply_steps_dist(state, steps, coefficients, params, boundaries))
    }

    /// [`StencilApplyDist::apply_steps_dist`], returning errors.
    ///
    /// # Errors
    ///
    /// `Error::ShapeMismatch` when a coefficient field is split differently from the state or
    /// has other halos; `Error::Decomposition` when a halo is narrower than the stencil's radius
    /// on an axis with neighbours (with receivers, narrower than the radius plus one), or a block
    /// at a global edge is too thin for its boundary condition; `Error::Layout` for a periodic
    /// condition on an axis the decomposition does not wrap (or the reverse), and as
    /// [`StencilApply::try_apply_steps_with`](crate::stencil::StencilApply::try_apply_steps_with);
    /// `Error::Coordinate` for a point's node outside the global interior; the kernels' errors. On every process alike: the processes agree on the checks and on
    /// each batch of steps.
    fn try_apply_steps_dist<B, const M: usize, const L: usize, C>(
        &self,
        state: &mut DistState<T, N, M, L, B>,
        steps: usize,
        mut coefficients: C,
        params: Self::Params,
        boundaries: impl StepBoundaries<T, N, M>,
    ) -> Result<()>
    where
        Self: Evolves<M, L>,
        B: DistBackend + ExprStencilKernels + CopyKernels,
        C: DistCoefficients<T, N, B, <Self as Evolves<M, L>>::Coefficients>,
    {
        const OP: &str = "StencilApplyDist::apply_steps_dist";
        let r = radius::<Self, T, N>();
        let groups = vec![coefficients.dist_arrays()];
        steps_dist(OP, state, steps, groups, (r, r), boundaries, |batch| {
            // SAFETY: `steps_dist` hands over the state's distinct blocks, borrowed uniquely, and
            // the coefficient fields' (other arrays, only read), all narrowed to one view.
            unsafe { step_rings::<Self, B, T, N, M, L>(OP, batch, &params) }
        })
    }

    /// [`StencilApplyDist::apply_steps_dist`] with each process's steps on rayon's threads (as
    /// [`StencilApply::par_apply_steps_with`](crate::stencil::StencilApply::par_apply_steps_with)),
    /// as many as the global pool has (a `DistArray` stays on the thread that made it, so no
    /// `pool.install`: size the global pool per process as the [`dist`](crate::dist) module
    /// says); the same result, bit for bit. Host blocks.
    ///
    /// # Panics
    ///
    /// As [`StencilApplyDist::try_par_apply_steps_dist`] errs.
    #[cfg(feature = "rayon")]
    #[track_caller]
    fn par_apply_steps_dist<const M: usize, const L: usize, C>(
        &self,
        state: &mut DistState<T, N, M, L>,
        steps: usize,
        coefficients: C,
        params: Self::Params,
        boundaries: impl StepBoundaries<T, N, M>,
    ) where
        Self: Evolves<M, L>,
        C: DistCoefficients<T, N, crate::kernel::Cpu, <Self as Evolves<M, L>>::Coefficients>,
    {
        or_panic(self.try_par_apply_steps_dist(state, steps, coefficients, params, boundaries))
    }

    /// [`StencilApplyDist::par_apply_steps_dist`], returning errors.
    ///
    /// # Errors
    ///
    /// As [`StencilApplyDist::try_apply_steps_dist`].
    #[cfg(feature = "rayon")]
    fn try_par_apply_steps_dist<const M: usize, const L: usize, C>(
        &self,
        state: &mut DistState<T, N, M, L>,
        steps: usize,
        mut coefficients: C,
        params: Self::Params,
        boundaries: impl StepBoundaries<T, N, M>,
    ) -> Result<()>
    where
        Self: Evolves<M, L>,
        C: DistCoefficients<T, N, crate::kernel::Cpu, <Self as Evolves<M, L>>::Coefficients>,
    {
        const OP: &str = "StencilApplyDist::par_apply_steps_dist";
        let r = radius::<Self, T, N>();
        let groups = vec![coefficients.dist_arrays()];
        steps_dist(OP, state, steps, groups, (r, r), boundaries, |batch| {
            // SAFETY: as in `try_apply_steps_dist`.
            unsafe { crate::stencil::par_step_rings::<Self, T, N, M, L>(OP, batch, &params) }
        })
    }
}

impl<S: Stencil<T, N>, T: Scalar + Equivalence, const N: usize> StencilApplyDist<T, N> for S {}
