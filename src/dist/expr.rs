//! `stencil!` stencils over distributed fields: the same split sweep as
//! [`LinearStencil::apply_dist`](crate::stencil::LinearStencil::apply_dist), each box through the
//! generic [`StencilApply::try_apply`], so on every backend.

use mpi::datatype::Equivalence;

use super::stencil::{sweep_split, Limits};
use super::{DistArray, DistBackend};
use crate::error::{or_panic, Result};
use crate::kernel::expr::{radius, Arity, Scalar, Stencil};
use crate::kernel::ExprStencilKernels;
use crate::stencil::StencilApply;

/// [`apply_dist`](StencilApplyDist::apply_dist) for `stencil!` stencils of one field: in the
/// prelude under feature `mpi`, implemented for every such stencil.
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
pub trait StencilApplyDist<T: Scalar + Equivalence, const N: usize>:
    Stencil<T, N, Arity = Arity<1>, Values = T>
{
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
    ) {
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
    ) -> Result<()> {
        let faces_only = Self::TAPS.iter().all(|tap| tap.offset.iter().filter(|&&o| o != 0).count() <= 1);
        let r = radius::<Self, T, N>();
        // The expression kernels' limits are the backend's to check at the launch.
        let limits = Limits::AtLaunch;
        sweep_split("StencilApplyDist::apply_dist", u, v, r, limits, faces_only, |input, output| {
            self.try_apply((input,), output, params)
        })
    }
}

impl<S: Stencil<T, N, Arity = Arity<1>, Values = T>, T: Scalar + Equivalence, const N: usize> StencilApplyDist<T, N>
    for S
{
}
