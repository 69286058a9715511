//! Sources and receivers inside time steps: [`PointIo`], the boundaries of a time loop with
//! point sources injected and receivers sampled at every step, fused with the sweeps.

use super::boundary::{Boundaries, StepBoundaries};
use super::points::Points;
use crate::element::Pod;
use crate::view::{ArrayView, ArrayViewMut};

/// The boundaries of a time loop together with point sources and receivers, for the time
/// steppers' last argument (`apply_steps_with` and its forms, and [`Stages`](super::Stages)).
///
/// Every step `t` (from 0, of this call), right after the sweep (the stage) that writes field
/// `f` of the state:
///
/// - each [`inject`](PointIo::inject) into `f` adds `series[[t, p]]` to the field at every source
///   point `p`, spread over its nodes with multilinear weights (as [`Points::inject`], in the
///   order the injections were given, point by point);
/// - then each [`record`](PointIo::record) of `f` stores the field at every receiver point `p`
///   (as [`Points::sample`]) in `record[[t, p]]`.
///
/// So a source term is part of the step that writes its field (later stages of the step read
/// it), and a receiver sees the field after the step. The result is bit for bit the same as
/// stepping once, injecting and sampling, `steps` times; on the CPU it happens inside the fused
/// wavefront, right after each block of hyperplanes is computed. The series and records are host arrays
/// of at least `steps` rows and one column per point, whatever the backend; every node of every
/// point must lie in the interior (not in the halo, which boundaries overwrite). Over MPI
/// (`StencilApplyDist::apply_steps_dist` on a `DistState`) the points are in global coordinates
/// and every process's record gets every receiver's samples.
///
/// ```
/// use cnda::prelude::*;
/// use cnda::stencil::{Boundary, PointIo, Points, State};
///
/// let wave = stencil!(#[levels(2)] |u, u_prev; c: T| 2.0 * u[0, 0] - u_prev[0, 0] + c * laplace(u, 2));
/// let mut state = State::from_levels([[Array::<f64, 2>::zeros([40, 40]), Array::zeros([40, 40])]]);
/// let source = Points::new([[20.0, 20.0]]);
/// let receivers = Points::new([[20.0, 25.0], [20.5, 30.25]]);
/// let wavelet = Array::from_fn([50, 1], |[t, _]| if t < 5 { 1.0 } else { 0.0 });
/// let mut record = Array::<f64, 2>::zeros([50, 2]);
/// let io = PointIo::new([Boundary::Fixed; 2])
///     .inject(&source, 0, wavelet.view())
///     .record(&receivers, 0, record.view_mut());
/// wave.apply_steps_with(&mut state, 50, (), (0.25,), io);
/// assert!(record[[10, 0]] != 0.0 && record[[2, 1]] == 0.0); // the wave reaches the receivers in turn
/// ```
pub struct PointIo<'a, T: Pod, const N: usize, const M: usize> {
    boundaries: [Boundaries<T, N>; M],
    points: StepPoints<'a, T, N>,
}

/// The sources and receivers of a [`PointIo`], as the steppers take them.
#[doc(hidden)]
pub struct StepPoints<'a, T: Pod, const N: usize> {
    pub(crate) sources: Vec<(&'a Points<N>, usize, ArrayView<'a, T, 2>)>,
    pub(crate) receivers: Vec<(&'a Points<N>, usize, ArrayViewMut<'a, T, 2>)>,
}

impl<'a, T: Pod, const N: usize, const M: usize> PointIo<'a, T, N, M> {
    /// No sources or receivers yet, with `boundaries` (as the steppers take them: one for every
    /// field, or a [`FieldBoundaries`](super::FieldBoundaries)).
    pub fn new(boundaries: impl StepBoundaries<T, N, M>) -> Self {
        PointIo {
            boundaries: boundaries.per_field(),
            points: StepPoints { sources: Vec::new(), receivers: Vec::new() },
        }
    }

    /// Also injects `series[[t, p]]` at `points[p]` into field `field` at every step `t`.
    pub fn inject(mut self, points: &'a Points<N>, field: usize, series: impl Into<ArrayView<'a, T, 2>>) -> Self {
        self.points.sources.push((points, field, series.into()));
        self
    }

    /// Also samples field `field` at `points[p]` into `record[[t, p]]` after every step `t`.
    pub fn record(mut self, points: &'a Points<N>, field: usize, record: impl Into<ArrayViewMut<'a, T, 2>>) -> Self {
        self.points.receivers.push((points, field, record.into()));
        self
    }
}

impl<T: Pod, const N: usize, const M: usize> StepBoundaries<T, N, M> for PointIo<'_, T, N, M> {
    fn per_field(self) -> [Boundaries<T, N>; M] {
        self.boundaries
    }

    fn into_parts<'s>(self) -> ([Boundaries<T, N>; M], Option<StepPoints<'s, T, N>>)
    where
        Self: Sized + 's,
        T: Pod,
    {
        (self.boundaries, Some(self.points))
    }
}
