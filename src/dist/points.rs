//! Sources and receivers of distributed time steps (a [`PointIo`](crate::stencil::PointIo) given
//! to `apply_steps_dist`), in global coordinates. Every process injects every source node that
//! falls inside its stepped view (the widened steps compute the points a neighbour owns again, so
//! they need that neighbour's sources too, and on a periodic axis the sources' images across the
//! wrap), with the weights computed once in global coordinates: bit for bit what one process
//! injects. A receiver is sampled by the process owning its lowest node (its other nodes lie in
//! that process's halo, right after every step when the halo is one point wider than a step
//! reaches), into a record of its own; after the steps the records are combined by a bitwise OR
//! over the processes (the others' entries are all zero bits), so every process's record holds
//! every receiver's samples exactly.

use core::ops::Range;

use mpi::collective::SystemOperation;
use mpi::datatype::Equivalence;
use mpi::traits::CommunicatorCollectives;

use super::{DistArray, DistBackend};
use crate::array::Array;
use crate::element::Pod;
use crate::error::{Error, Result};
use crate::stencil::point_io::StepPoints;
use crate::stencil::Points;
use crate::view::{ArrayView, ArrayViewMut};

/// One process's share of the sources and receivers, in its stepped view's coordinates.
pub(super) struct DistPoints<'a, T: Pod, const N: usize> {
    /// The sources' nodes inside the view (their periodic images too), the field, the series.
    sources: Vec<(Points<N>, usize, ArrayView<'a, T, 2>)>,
    receivers: Vec<Receivers<'a, T, N>>,
}

/// The receivers of one recording this process samples.
struct Receivers<'a, T: Pod, const N: usize> {
    /// The owned receivers, in the view's coordinates, and their columns in the record.
    points: Points<N>,
    columns: Vec<usize>,
    field: usize,
    /// Their samples, a row per step of the call.
    samples: Array<T, 2>,
    record: ArrayViewMut<'a, T, 2>,
}

/// One batch's series rows and record rows, as host arrays the stepper reads and writes.
pub(super) struct Batch<T: Pod> {
    series: Vec<Array<T, 2>>,
    records: Vec<Array<T, 2>>,
}

impl<'a, T: Pod + Equivalence, const N: usize> DistPoints<'a, T, N> {
    /// The share of `points` of the process of `first` (its stepped view `view`), for `steps`
    /// steps of radius `radius`.
    ///
    /// # Errors
    ///
    /// `Error::Coordinate` for a node outside the global interior (within `radius` of a fixed
    /// edge: the boundaries overwrite it); `Error::Layout` for a field past the state's or a
    /// series or record of the wrong shape. The same on every process.
    pub(super) fn new<B: DistBackend>(
        op: &'static str,
        points: StepPoints<'a, T, N>,
        first: &DistArray<T, N, B>,
        view: &[Range<usize>; N],
        (radius, fields, steps): ([usize; N], usize, usize),
    ) -> Result<Self> {
        let d = first.decomposition();
        let (global, periodic) = (d.global_shape(), d.periodic());
        let owned = first.owned_range();
        let halo = first.halo();
        // View coordinates: global ones less the view's origin.
        let origin: [isize; N] = core::array::from_fn(|a| (owned[a].start + view[a].start) as isize - halo[a] as isize);
        let inside = |at: [usize; N]| (0..N).all(|a| at[a] >= radius[a] && at[a] + radius[a] < view[a].len());
        let check = |p: &Points<N>, field: usize, [rows, cols]: [usize; 2], what: &str| -> Result<()> {
            if field >= fields || rows < steps || cols != p.len() {
                return Err(Error::Layout {
                    op,
                    reason: format!(
                        "a {what} of shape [{rows}, {cols}] on field {field} for {steps} steps of {} points of a \
                         state of {fields} fields",
                        p.len()
                    ),
                    fix: "name a field of the state (from 0), and give each series and record a row per step and a \
                          column per point",
                });
            }
            for q in 0..p.len() {
                for &(at, _) in p.nodes(q) {
                    let outside = (0..N).find(|&a| {
                        if periodic[a] {
                            at[a] >= global[a]
                        } else {
                            at[a] < radius[a] || at[a] + radius[a] >= global[a]
                        }
                    });
                    if let Some(axis) = outside {
                        let reason = format!(
                            "at {:?} needs node {at:?}, outside the interior of the global grid {global:?} with \
                             boundary layers {radius:?} wide (axis {axis}): move the point at least that far (plus \
                             one for an off-grid point) from a fixed edge, inside the grid along a periodic one",
                            p.coords()[q]
                        );
                        return Err(Error::Coordinate { op, point: q, reason });
                    }
                }
            }
            Ok(())
        };
        // Each image of the grid across the periodic axes, as a move into view coordinates.
        let home = origin.map(|o| -o);
        let mut moves = vec![home];
        for a in (0..N).filter(|&a| periodic[a]) {
            let g = global[a] as isize;
            moves = moves
                .into_iter()
                .flat_map(|m| [-g, 0, g].map(|s| core::array::from_fn(|k| m[k] + if k == a { s } else { 0 })))
                .collect();
        }
        let mut sources = Vec::with_capacity(points.sources.len());
        for (p, field, series) in points.sources {
            check(p, field, series.shape(), "series")?;
            sources.push((p.moved(&moves, inside), field, series));
        }
        let mut receivers = Vec::with_capacity(points.receivers.len());
        for (p, field, record) in points.receivers {
            check(p, field, record.shape(), "record")?;
            let lowest = |q: usize| -> [usize; N] {
                core::array::from_fn(|a| p.nodes(q).iter().map(|(at, _)| at[a]).min().unwrap_or(0))
            };
            let columns: Vec<usize> = (0..p.len()).filter(|&q| first.owner(lowest(q)) == first.rank()).collect();
            let owned_points = Points::try_new(columns.iter().map(|&q| p.coords()[q]))?;
            let points = owned_points.moved(&[home], |_| true);
            let samples = Array::try_zeros([steps, columns.len()])?;
            receivers.push(Receivers { points, columns, field, samples, record });
        }
        Ok(DistPoints { sources, receivers })
    }

    /// Whether there are receivers (their nodes then reach one point into the halo).
    pub(super) fn records(&self) -> bool {
        !self.receivers.is_empty()
    }

    /// The series rows `done..done + steps` and empty record rows, for one batch.
    ///
    /// # Errors
    ///
    /// `Error::Alloc` when the host refuses their memory.
    pub(super) fn batch(&self, done: usize, steps: usize) -> Result<Batch<T>> {
        let mut series = Vec::with_capacity(self.sources.len());
        for (_, _, s) in &self.sources {
            series.push(Array::try_from_fn([steps, s.shape()[1]], |[t, q]| s[[done + t, q]])?);
        }
        let mut records = Vec::with_capacity(self.receivers.len());
        for r in &self.receivers {
            records.push(Array::try_zeros([steps, r.columns.len()])?);
        }
        Ok(Batch { series, records })
    }

    /// The stepper's points for `batch`.
    pub(super) fn step_points<'b>(&'b self, batch: &'b mut Batch<T>) -> StepPoints<'b, T, N> {
        StepPoints {
            sources: self
                .sources
                .iter()
                .zip(&batch.series)
                .map(|((p, f, _), s)| (p, *f, s.view().into_strided()))
                .collect(),
            receivers: self
                .receivers
                .iter()
                .zip(&mut batch.records)
                .map(|(r, rec)| (&r.points, r.field, rec.view_mut().into_strided()))
                .collect(),
        }
    }

    /// Keeps a batch's samples, rows `done..`.
    pub(super) fn keep(&mut self, done: usize, batch: &Batch<T>) {
        for (r, rec) in self.receivers.iter_mut().zip(&batch.records) {
            let [rows, cols] = rec.shape();
            for t in 0..rows {
                for j in 0..cols {
                    r.samples[[done + t, j]] = rec[[t, j]];
                }
            }
        }
    }

    /// Combines every process's samples into every process's records (bitwise OR: the entries a
    /// process does not own are zero bits there). Collective.
    pub(super) fn gather(self, comm: &impl CommunicatorCollectives) {
        for r in self.receivers {
            let Receivers { columns, samples, mut record, .. } = r;
            let steps = samples.shape()[0];
            let cols = record.shape()[1];
            let mut mine = vec![T::zeroed(); steps * cols];
            for t in 0..steps {
                for (j, &c) in columns.iter().enumerate() {
                    mine[t * cols + c] = samples[[t, j]];
                }
            }
            let mut all = vec![T::zeroed(); steps * cols];
            let (mine, all_bytes): (&[u8], &mut [u8]) =
                (bytemuck::cast_slice(&mine), bytemuck::cast_slice_mut(&mut all));
            comm.all_reduce_into(mine, all_bytes, SystemOperation::bitwise_or());
            for t in 0..steps {
                for c in 0..cols {
                    record[[t, c]] = all[t * cols + c];
                }
            }
        }
    }
}
