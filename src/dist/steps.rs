//! Deep halos: several sweeps between two halo exchanges. With a halo `H` wide on an axis and a
//! stencil of radius `R`, one exchange serves `k = H / R` sweeps: sweep `s` of a batch of `k`
//! updates the owned block widened by `(k - s) R` into the halos on every side with a neighbour
//! (points a neighbour owns, computed here again from the same inputs in the same order), so the
//! last sweep of the batch has exactly the owned block right. One exchange (and its latency) per
//! `k` sweeps instead of per sweep, for `k` times the message volume and a little recomputation:
//! the trade every production code makes on small blocks and slow networks. The results are
//! those of one process sweeping the whole grid, bit for bit.

use mpi::datatype::Equivalence;

use super::stencil::{check_pair, check_taps, sweep_region, DistDoubleBuffer};
use super::{DistArray, DistBackend};
use crate::element::Numeric;
use crate::error::{or_panic, Result};
use crate::kernel::StencilKernels;
use crate::layout::Strided;
use crate::stencil::{Boundaries, DynStencil, LinearStencil};
use crate::view::{Shared, Unique, View};

impl<T: Numeric + Equivalence, const N: usize, const R: usize, const K: usize> LinearStencil<T, N, R, K> {
    /// `steps` sweeps over a distributed field, exchanging its halos once every `k` sweeps,
    /// where `k` is how many radii the narrowest exchanged halo holds (see the module
    /// documentation); the same bit for bit as `steps` calls of
    /// [`LinearStencil::apply_dist`] (and as one process sweeping the whole grid). Points within
    /// `R` of a fixed global edge keep their values. Collective.
    ///
    /// # Panics
    ///
    /// As [`LinearStencil::try_apply_steps_dist`] errs.
    #[track_caller]
    pub fn apply_steps_dist<B: DistBackend + StencilKernels>(
        &self,
        field: &mut DistDoubleBuffer<T, N, B>,
        steps: usize,
    ) {
        or_panic(self.try_apply_steps_dist(field, steps))
    }

    /// [`LinearStencil::apply_steps_dist`], returning errors.
    ///
    /// # Errors
    ///
    /// `Error::ShapeMismatch` when the two fields are split differently or have different halos;
    /// `Error::Decomposition` when a halo is narrower than the radius on an axis with neighbours;
    /// `Error::Limit` when the stencil has more taps than the backend's kernel takes
    /// ([`StencilKernels::MAX_LINEAR_TAPS`], [`StencilKernels::MAX_TAPS`] for a `DynStencil`);
    /// `Error::Mpi` when an exchange fails (the processes agree on the checks first: the same
    /// error everywhere); `Error::Device` from a device, on every process (the others get
    /// `Error::Mpi` naming it: on device blocks the processes agree on each batch's outcome).
    pub fn try_apply_steps_dist<B: DistBackend + StencilKernels>(
        &self,
        field: &mut DistDoubleBuffer<T, N, B>,
        steps: usize,
    ) -> Result<()> {
        const OP: &str = "LinearStencil::apply_steps_dist";
        let limits = check_taps::<B>(OP, K, B::MAX_LINEAR_TAPS);
        steps_dist(OP, field, steps, [R; N], limits, None, |input, output| self.try_apply(input, output))
    }

    /// `steps` sweeps over a distributed field with `boundaries` at the global edges: before
    /// each sweep the boundary layer (the points within `R` of a fixed global edge) is refilled
    /// as [`DistArray::fill_boundaries`] says (then the halos are exchanged, when due), then the
    /// rest is swept; the boundary layer is refilled once more at the end. The same bit for bit as
    /// [`LinearStencil::apply_steps_with`] on one array holding the whole grid (padded with
    /// periodic images along the periodic axes: a periodic axis is the decomposition's, given
    /// `Boundary::Periodic`, and only it). Deep halos as in
    /// [`LinearStencil::apply_steps_dist`]: one exchange per `halo / R` sweeps. Collective.
    ///
    /// # Panics
    ///
    /// As [`LinearStencil::try_apply_steps_dist_with`] errs.
    #[track_caller]
    pub fn apply_steps_dist_with<B: DistBackend + StencilKernels>(
        &self,
        field: &mut DistDoubleBuffer<T, N, B>,
        steps: usize,
        boundaries: impl Into<Boundaries<T, N>>,
    ) {
        or_panic(self.try_apply_steps_dist_with(field, steps, boundaries))
    }

    /// [`LinearStencil::apply_steps_dist_with`], returning errors.
    ///
    /// # Errors
    ///
    /// As [`LinearStencil::try_apply_steps_dist`] and [`DistArray::try_fill_boundaries`].
    pub fn try_apply_steps_dist_with<B: DistBackend + StencilKernels>(
        &self,
        field: &mut DistDoubleBuffer<T, N, B>,
        steps: usize,
        boundaries: impl Into<Boundaries<T, N>>,
    ) -> Result<()> {
        const OP: &str = "LinearStencil::apply_steps_dist_with";
        let (limits, b) = (check_taps::<B>(OP, K, B::MAX_LINEAR_TAPS), Some(boundaries.into()));
        steps_dist(OP, field, steps, [R; N], limits, b, |input, output| self.try_apply(input, output))
    }
}

impl<T: Numeric + Equivalence, const N: usize> DynStencil<T, N> {
    /// `steps` sweeps over a distributed field with deep halos, as
    /// [`LinearStencil::apply_steps_dist`] (the radius per axis is the stencil's).
    ///
    /// # Panics
    ///
    /// As [`DynStencil::try_apply_steps_dist`] errs.
    #[track_caller]
    pub fn apply_steps_dist<B: DistBackend + StencilKernels>(
        &self,
        field: &mut DistDoubleBuffer<T, N, B>,
        steps: usize,
    ) {
        or_panic(self.try_apply_steps_dist(field, steps))
    }

    /// [`DynStencil::apply_steps_dist`], returning errors.
    ///
    /// # Errors
    ///
    /// As [`LinearStencil::try_apply_steps_dist`].
    pub fn try_apply_steps_dist<B: DistBackend + StencilKernels>(
        &self,
        field: &mut DistDoubleBuffer<T, N, B>,
        steps: usize,
    ) -> Result<()> {
        const OP: &str = "DynStencil::apply_steps_dist";
        let limits = check_taps::<B>(OP, self.taps().len(), B::MAX_TAPS);
        steps_dist(OP, field, steps, self.radius(), limits, None, |input, output| self.try_apply(input, output))
    }

    /// [`LinearStencil::apply_steps_dist_with`] for a run-time stencil (the radius per axis is
    /// the stencil's): the same bit for bit as [`DynStencil::apply_steps_with`] on one array.
    ///
    /// # Panics
    ///
    /// As [`DynStencil::try_apply_steps_dist_with`] errs.
    #[track_caller]
    pub fn apply_steps_dist_with<B: DistBackend + StencilKernels>(
        &self,
        field: &mut DistDoubleBuffer<T, N, B>,
        steps: usize,
        boundaries: impl Into<Boundaries<T, N>>,
    ) {
        or_panic(self.try_apply_steps_dist_with(field, steps, boundaries))
    }

    /// [`DynStencil::apply_steps_dist_with`], returning errors.
    ///
    /// # Errors
    ///
    /// As [`LinearStencil::try_apply_steps_dist_with`].
    pub fn try_apply_steps_dist_with<B: DistBackend + StencilKernels>(
        &self,
        field: &mut DistDoubleBuffer<T, N, B>,
        steps: usize,
        boundaries: impl Into<Boundaries<T, N>>,
    ) -> Result<()> {
        const OP: &str = "DynStencil::apply_steps_dist_with";
        let (limits, b) = (check_taps::<B>(OP, self.taps().len(), B::MAX_TAPS), Some(boundaries.into()));
        steps_dist(OP, field, steps, self.radius(), limits, b, |input, output| self.try_apply(input, output))
    }
}

/// How many sweeps one exchange serves: the fewest radii an exchanged halo holds (`usize::MAX`
/// when no axis exchanges or the stencil reaches along none of them).
///
/// # Errors
///
/// As [`check_pair`].
fn depth<T: Numeric + Equivalence, const N: usize, B: DistBackend>(
    op: &'static str,
    u: &DistArray<T, N, B>,
    v: &DistArray<T, N, B>,
    radius: [usize; N],
) -> Result<usize> {
    check_pair(op, u, v, radius)?;
    let (d, halo) = (u.decomposition(), u.halo());
    let exchanged = (0..N).filter(|&a| d.exchanges_along(a) && radius[a] > 0);
    Ok(exchanged.map(|a| halo[a] / radius[a]).min().unwrap_or(usize::MAX))
}

/// The one algorithm behind every `apply_steps_dist`: `steps` sweeps of `sweep` (which writes
/// the interior of its output view, at least the radius from each edge) in batches of
/// [`depth`] sweeps, one full exchange (faces, edges and corners: a second sweep reaches
/// diagonally) before each batch. With `boundaries`, the boundary layer is refilled before each
/// sweep (before the batch's exchange for its first), and once more at the end.
///
/// Fails on every process alike: the checks (the split, the boundaries, `limits`: the kernel's
/// limits for the stencil, which a process with nothing to sweep would never meet at a launch)
/// are agreed on before any work; on device blocks, whose refills, exchanges and sweeps can
/// fail on one process alone, each batch's outcome too, before the next batch's exchange and
/// before returning. A process that failed skips its remaining work but takes part in every
/// exchange until then, so no process waits for one that left. (A host block's kernels fail
/// only past the limits, checked up front.)
fn steps_dist<T: Numeric + Equivalence, const N: usize, B: DistBackend>(
    op: &'static str,
    field: &mut DistDoubleBuffer<T, N, B>,
    steps: usize,
    radius: [usize; N],
    limits: Result<()>,
    boundaries: Option<Boundaries<T, N>>,
    sweep: impl Fn(View<'_, T, N, Shared, B, Strided>, View<'_, T, N, Unique, B, Strided>) -> Result<()>,
) -> Result<()> {
    let (k, on_device) = {
        let (u, v) = field.both_mut();
        let checked = limits
            .and_then(|()| depth(op, u, v, radius))
            .and_then(|k| boundaries.as_ref().map_or(Ok(k), |b| u.check_boundaries(op, radius, b).map(|()| k)));
        (u.agree(op, checked)?, u.on_device())
    };
    if steps == 0 {
        return Ok(());
    }
    // Both fields' halos from the neighbours once: the fixed global boundary a neighbour owns is
    // read from the halos of either field and never written. Both exchanges whatever the first
    // gives: the neighbours wait for every message.
    let mut local = {
        let (u, v) = field.both_mut();
        let first = u.exchange(op, false, |_| ());
        first.and(v.exchange(op, false, |_| ()))
    };
    let mut done = 0;
    while done < steps {
        let batch = k.min(steps - done);
        for s in 1..=batch {
            // The boundary layer of the field about to be read, refilled over the whole block
            // (the rows a widened sweep computed in the halos too: the rule reads along its axis
            // only, so it gives the values the neighbour gives its own rows).
            if let Some(b) = boundaries {
                local = local.and_then(|()| field.current_mut().try_fill_boundaries(radius, b));
            }
            if s == 1 && (done > 0 || boundaries.is_some()) {
                local = local.and(field.current_mut().exchange(op, false, |_| ()));
            }
            if local.is_ok() {
                local = sweep_once(field, radius, batch - s, &sweep);
            }
            // Swapped on every process alike, failed or not: the fields' roles (and so the
            // communicators the processes agree over below) stay the same everywhere.
            field.swap();
        }
        done += batch;
        if let (true, Some(b)) = (done == steps, boundaries) {
            local = local.and_then(|()| field.current_mut().try_fill_boundaries(radius, b));
        }
        let outcome = core::mem::replace(&mut local, Ok(()));
        if on_device {
            field.current().agree(op, outcome)?;
        } else {
            outcome?;
        }
    }
    Ok(())
}

/// One sweep from `field`'s current field into its next one over [`sweep_region`] widened by
/// `extra` radii (nothing where that region is empty).
fn sweep_once<T: Numeric + Equivalence, const N: usize, B: DistBackend>(
    field: &mut DistDoubleBuffer<T, N, B>,
    radius: [usize; N],
    extra: usize,
    sweep: &impl Fn(View<'_, T, N, Shared, B, Strided>, View<'_, T, N, Unique, B, Strided>) -> Result<()>,
) -> Result<()> {
    let (u, v) = field.both_mut();
    let r = sweep_region(u, radius, extra);
    if r.iter().any(|r| r.is_empty()) {
        return Ok(());
    }
    // The input reaches one radius further than the region on every side.
    let input = (0..N)
        .fold(u.local().view().into_strided(), |d, a| d.narrow(a, r[a].start - radius[a], r[a].len() + 2 * radius[a]));
    let mut output = v.local_mut();
    let output = (0..N)
        .fold(output.view_mut().into_strided(), |o, a| o.narrow(a, r[a].start - radius[a], r[a].len() + 2 * radius[a]));
    sweep(input, output)
}
