//! Time steps of `stencil!` systems over distributed grids: every field a stencil
//! [`Evolves`] advances in a [`DistState`], with deep halos. One exchange, carrying every field's
//! levels in one message per neighbour (`together.rs`), serves `k = halo / radius` steps; between
//! exchanges each process runs the one time stepper of `stencil/fused/` (the fused wavefront on
//! the CPU) over its block widened into the halos towards its neighbours, so that the points a
//! neighbour owns are computed here again from the same inputs in the same order. Each step the
//! widened points that are still right shrink by the radius; after `k` steps exactly the owned
//! block is, bit for bit as one process stepping the whole grid.

use core::ops::Range;

use mpi::datatype::Equivalence;
use smallvec::SmallVec;

use super::points::DistPoints;
use super::stencil::check_pair;
use super::together::exchange_together;
use super::{DistArray, DistBackend, DistState};
use crate::error::{Error, Result};
use crate::kernel::expr::{Arity, Scalar};
use crate::kernel::{CopyKernels, Desc, ExprStencilKernels};
use crate::stencil::{Boundaries, Boundary, RingBatch, Side, StepBoundaries};

mod sealed {
    pub trait Sealed {}
}

/// The coefficient fields of a distributed time-stepped stencil, as
/// [`Coefficients`](crate::stencil::Coefficients) are for one process: `()` for none, `&mut u`
/// for one, a tuple for more, each a [`DistArray`] split as the state is. Passed mutably: their
/// halos are exchanged once at the start of each call (they are never written otherwise).
#[diagnostic::on_unimplemented(
    message = "a stencil taking `{K}` (one more than its coefficient fields) cannot take `{Self}` as its coefficient fields",
    label = "not one `&mut DistArray` per field after the evolving fields' levels",
    note = "the evolving fields are in the DistState; pass the others (`()` when there are none, `&mut k`, or `(&mut k, &mut c)`) in the stencil's order"
)]
pub trait DistCoefficients<T: Scalar + Equivalence, const N: usize, B: DistBackend, K>: sealed::Sealed {
    /// Each coefficient field.
    #[doc(hidden)]
    fn dist_arrays(&mut self) -> Vec<&mut DistArray<T, N, B>>;
}

impl sealed::Sealed for () {}
impl<T: Scalar + Equivalence, const N: usize, B: DistBackend> DistCoefficients<T, N, B, Arity<1>> for () {
    fn dist_arrays(&mut self) -> Vec<&mut DistArray<T, N, B>> {
        Vec::new()
    }
}

impl<T: Scalar + Equivalence, const N: usize, B: DistBackend> sealed::Sealed for &mut DistArray<T, N, B> {}
impl<T: Scalar + Equivalence, const N: usize, B: DistBackend> DistCoefficients<T, N, B, Arity<2>>
    for &mut DistArray<T, N, B>
{
    fn dist_arrays(&mut self) -> Vec<&mut DistArray<T, N, B>> {
        vec![&mut **self]
    }
}

macro_rules! dist_coefficient_tuple {
    ($arity:expr; $($name:ident $i:tt),+) => {
        impl<'a, T: Scalar + Equivalence, const N: usize, B: DistBackend> sealed::Sealed
            for ($(dist_coefficient_tuple!(@ty $name 'a T N B),)+) {}
        impl<'a, T: Scalar + Equivalence, const N: usize, B: DistBackend> DistCoefficients<T, N, B, Arity<$arity>>
            for ($(dist_coefficient_tuple!(@ty $name 'a T N B),)+)
        {
            fn dist_arrays(&mut self) -> Vec<&mut DistArray<T, N, B>> {
                vec![$(&mut *self.$i),+]
            }
        }
    };
    (@ty $name:ident $a:lifetime $t:ident $n:ident $b:ident) => { &$a mut DistArray<$t, $n, $b> };
}

dist_coefficient_tuple!(2; A 0);
dist_coefficient_tuple!(3; A 0, C 1);
dist_coefficient_tuple!(4; A 0, C 1, D 2);
dist_coefficient_tuple!(5; A 0, C 1, D 2, E 3);
dist_coefficient_tuple!(6; A 0, C 1, D 2, E 3, F 4);
dist_coefficient_tuple!(7; A 0, C 1, D 2, E 3, F 4, G 5);
dist_coefficient_tuple!(8; A 0, C 1, D 2, E 3, F 4, G 5, H 6);

/// `steps` steps over `state` with `boundaries` at the global edges, `coefficients` (one group
/// per stage) read by every step, stages of `radius` (the widest) reaching `reach` per step (the
/// sum of the stages' radii); each batch of steps between two exchanges is run by `batch` on
/// the stepped view: see the module documentation.
///
/// `batch` gets a [`RingBatch`]: its descriptors address the state's distinct blocks, borrowed
/// uniquely for the call, and the coefficient fields' (other arrays, only read), all of the
/// view's shape; it returns once the steps are done and its caller advances the rings.
///
/// # Errors
///
/// As `StencilApplyDist::try_apply_steps_dist`.
#[allow(clippy::too_many_arguments)] // the stepper's inputs, each of another kind
pub(crate) fn steps_dist<B, T, const N: usize, const M: usize, const L: usize>(
    op: &'static str,
    state: &mut DistState<T, N, M, L, B>,
    steps: usize,
    coefficients: Vec<Vec<&mut DistArray<T, N, B>>>,
    (radius, reach): ([usize; N], [usize; N]),
    boundaries: impl StepBoundaries<T, N, M>,
    mut batch: impl FnMut(RingBatch<'_, B, T, N, M>) -> Result<()>,
) -> Result<()>
where
    B: DistBackend + ExprStencilKernels + CopyKernels,
    T: Scalar + Equivalence,
{
    let groups: Vec<usize> = coefficients.iter().map(Vec::len).collect();
    let mut coefficients: Vec<&mut DistArray<T, N, B>> = coefficients.into_iter().flatten().collect();
    let (boundaries, points) = boundaries.into_parts();
    let first = state.field(0);
    let view = stepped_view(first);
    let checked =
        points.map(|p| DistPoints::new(op, p, first, &view, (radius, M, steps))).transpose().and_then(|points| {
            // A receiver's nodes reach one point past the block it belongs to.
            let beyond = usize::from(points.as_ref().is_some_and(DistPoints::records));
            check_state(op, first, &coefficients, &boundaries, radius, reach, beyond).map(|k| (k, points))
        });
    let (k, mut points) = first.agree(op, checked)?;
    if steps == 0 {
        return Ok(());
    }
    let local_boundaries = boundaries.map(|b| inside_sides(first, b));
    let narrow = |d: Desc<B, T, N>| (0..N).fold(d, |d, a| d.narrowed(a, view[a].start, view[a].len()));
    // Every array's halos once (the scratch's too: its boundary layer beside a neighbour is read
    // once it is a level, and only the exchange gives it there), the coefficient fields' too.
    let mut local = exchange_together(op, &mut coefficients);
    local = local.and(exchange_together(op, &mut state.in_ring_order_mut()));
    let mut narrowed = coefficients.iter_mut().map(|c| narrow(c.local_desc_mut()));
    let coefficient_descs: Vec<SmallVec<[Desc<B, T, N>; 3]>> =
        groups.iter().map(|&n| narrowed.by_ref().take(n).collect()).collect();
    let mut done = 0;
    while done < steps {
        let steps_now = k.min(steps - done);
        if done > 0 {
            // The levels a step reads (every ring position but the scratch's, the second).
            let mut levels: Vec<&mut DistArray<T, N, B>> = state
                .in_ring_order_mut()
                .into_iter()
                .enumerate()
                .filter(|(i, _)| i % (L + 1) != 1)
                .map(|(_, a)| a)
                .collect();
            local = local.and(exchange_together(op, &mut levels));
        }
        if local.is_ok() {
            let rings = state.in_ring_order_mut().into_iter().map(|a| narrow(a.local_desc_mut())).collect();
            let (coefficients, boundaries) = (&coefficient_descs[..], &local_boundaries);
            local = match points.as_mut() {
                None => batch(RingBatch { rings, coefficients, steps: steps_now, boundaries, points: None }),
                Some(points) => points.batch(done, steps_now).and_then(|mut rows| {
                    let points_now = Some(points.step_points(&mut rows));
                    batch(RingBatch { rings, coefficients, steps: steps_now, boundaries, points: points_now })?;
                    points.keep(done, &rows);
                    Ok(())
                }),
            };
        }
        // Advanced on every process alike, failed or not, so the arrays' roles stay the same.
        state.advance(steps_now);
        done += steps_now;
        // The expression kernels fail at the launch, on the processes that step: agreed on
        // every backend.
        let outcome = core::mem::replace(&mut local, Ok(()));
        state.field(0).agree(op, outcome)?;
    }
    if let Some(points) = points {
        points.gather(&*state.field(0).comm);
    }
    Ok(())
}

/// Checks the state's first field against the coefficient fields (split alike), the boundaries
/// (against the split) and the stencil's radius (at most the halo on every axis that
/// exchanges); returns how many steps one exchange serves (the fewest `halo / reach` of an axis
/// that exchanges).
///
/// # Errors
///
/// `Error::ShapeMismatch`, `Error::Decomposition` (also for a halo narrower than one step's
/// reach, plus `beyond`: 1 with receivers), `Error::Layout`.
fn check_state<T: Scalar + Equivalence, const N: usize, const M: usize, B: DistBackend>(
    op: &'static str,
    first: &DistArray<T, N, B>,
    coefficients: &[&mut DistArray<T, N, B>],
    boundaries: &[Boundaries<T, N>; M],
    radius: [usize; N],
    reach: [usize; N],
    beyond: usize,
) -> Result<usize> {
    for c in coefficients {
        check_pair(op, first, c, radius)?;
    }
    check_pair(op, first, first, radius)?;
    for b in boundaries {
        first.check_boundaries(op, radius, b)?;
    }
    let (d, halo) = (first.decomposition(), first.halo());
    let exchanged = (0..N).filter(|&a| d.exchanges_along(a) && reach[a] > 0);
    if let Some(a) = exchanged.clone().find(|&a| halo[a] < reach[a] + beyond) {
        return Err(Error::Decomposition {
            op,
            reason: format!(
                "the halo of axis {a} is {} wide, narrower than the {} points one step's stages reach{}",
                halo[a],
                reach[a] + beyond,
                if beyond > 0 { " (and one more for receivers)" } else { "" }
            ),
            fix: "build the arrays with a halo at least the sum of the stages' radii, one more with receivers \
                  (k times the sum for one exchange per k steps)",
        });
    }
    Ok(exchanged.map(|a| (halo[a] - beyond) / reach[a]).min().unwrap_or(usize::MAX))
}

/// The local points a process steps (its owned block widened into every halo towards a
/// neighbour), as ranges of the local block: the stencil then updates this view's interior.
fn stepped_view<T: Scalar + Equivalence, const N: usize, B: DistBackend>(u: &DistArray<T, N, B>) -> [Range<usize>; N] {
    let (d, rank, halo) = (u.decomposition(), u.rank(), u.halo());
    let block = d.block_shape(rank);
    core::array::from_fn(|a| {
        let lo = if d.neighbour(rank, a, -1).is_some() { 0 } else { halo[a] };
        let hi = halo[a] + block[a] + if d.neighbour(rank, a, 1).is_some() { halo[a] } else { 0 };
        lo..hi
    })
}

/// `b` on the sides of the stepped view: the program's conditions at the global edges,
/// `Fixed` (left alone: the halo the exchange filled) towards a neighbour.
fn inside_sides<T: Scalar + Equivalence, const N: usize, B: DistBackend>(
    u: &DistArray<T, N, B>,
    b: Boundaries<T, N>,
) -> Boundaries<T, N> {
    let (d, rank) = (u.decomposition(), u.rank());
    let mut sides = b;
    for a in 0..N {
        for (side, step) in [(Side::Low, -1), (Side::High, 1)] {
            if d.neighbour(rank, a, step).is_some() {
                sides = sides.with(a, side, Boundary::Fixed);
            }
        }
    }
    sides
}
