//! Sources and receivers inside the stepper ([`PointIo`](crate::stencil::PointIo)): after a
//! sweep writes a field on some hyperplanes of axis 0 (a unit of the wavefront, the whole
//! interior in a call per sweep), the injections into that field on those hyperplanes, then the samples of
//! it there. A sample's node values are copied into a staging array on the fields' device, one
//! slot per step, receiver and node, and combined on the host after each pass in the order
//! [`Points::sample`] adds them; so the work on a hyperplane touches only that hyperplane and
//! its own slots, whichever thread computes it and in whatever order the hyperplanes come.

use core::ops::Range;

use crate::array::Array;
use crate::element::Float;
use crate::error::{Error, Result};
use crate::kernel::tokens::{self, ScalarRight};
use crate::kernel::{Backend, CopyKernels, Desc, Download, ElementwiseKernels};
use crate::stencil::point_io::StepPoints;
use crate::view::ArrayViewMut;

/// The most steps whose samples one pass stages: passes with receivers are cut to it.
const STAGED_STEPS: usize = 256;

/// What the stepper calls after each sweep writes a field.
pub(in crate::stencil) trait PointHook<B: Backend, T: crate::element::Pod, const N: usize> {
    /// The most steps one pass may take.
    fn pass_steps(&self) -> usize;

    /// After step `step` (from 1, of the pass) wrote field `f` into `dst` (the whole array) on
    /// the hyperplanes `rows` of axis 0: its injections there, then its samples there.
    ///
    /// # Safety
    ///
    /// `dst` is live and writable; nothing else accesses its hyperplanes `rows` during the call
    /// (the caller's, as for the sweep that wrote them); `step` is at most `pass_steps`.
    ///
    /// # Errors
    ///
    /// `Error::Device` from a kernel.
    unsafe fn after(
        &self,
        f: usize,
        dst: Desc<B, T, N>,
        pass_first: usize,
        step: usize,
        rows: Range<usize>,
    ) -> Result<()>;

    /// After a pass of `steps` steps that followed `first` steps of the call: the records' rows
    /// `first..first + steps`.
    ///
    /// # Errors
    ///
    /// `Error::Device` from the download.
    fn flush(&mut self, first: usize, steps: usize) -> Result<()>;
}

impl<B: CopyKernels, T: crate::element::Pod, const N: usize, S: super::Sweep<B, T, N>> super::Plan<'_, B, T, N, S> {
    /// After sweep `t` wrote its fields on the hyperplanes `rows` of axis 0: the points'
    /// injections into them there, and their samples (none without a `PointIo`).
    ///
    /// # Safety
    ///
    /// As for `run_unfused`, and nothing else accesses those hyperplanes of the written arrays
    /// during the call.
    pub(super) unsafe fn points_after(&self, t: usize, rows: Range<usize>) -> Result<()> {
        let Some(points) = self.points else { return Ok(()) };
        let (step, _) = self.rings.step_and_stage(t);
        for (f, written) in self.rings.writes(t).zip(self.rings.outputs(t)) {
            // SAFETY: the caller's contract; `step` is within the pass, which `run_rings` cut
            // to the points' `pass_steps`.
            unsafe { points.after(f, written, self.first, step, rows.clone()) }?;
        }
        Ok(())
    }
}

/// The plan of `points` (when given) for `steps` steps of `state`, whose halos are `radius` wide.
///
/// # Errors
///
/// As [`PointPlan::new`].
pub(in crate::stencil) fn point_plan<'a, B, T, const N: usize, const M: usize, const L: usize>(
    op: &'static str,
    points: Option<StepPoints<'a, T, N>>,
    steps: usize,
    state: &crate::stencil::State<T, N, M, L, B>,
    radius: [usize; N],
) -> Result<Option<PointPlan<'a, B, T, N>>>
where
    B: ElementwiseKernels + CopyKernels + Download,
    T: Float,
{
    points.map(|p| PointPlan::new(op, p, steps, M, state.first_desc(), radius)).transpose()
}

/// Per point of a recording, its nodes' staging slots and weights.
type PointSlots = Vec<Vec<(usize, f64)>>;

/// One node of one point of one injection or recording, by the hyperplane it lies on.
#[derive(Clone, Copy)]
struct Node<const N: usize> {
    field: usize,
    at: [usize; N],
    weight: f64,
    /// Injection: the amplitude's column in its series (`amplitudes[set]`). Sample: its slot in
    /// a step's block of the staging array.
    index: usize,
    set: usize,
}

/// A run of sample nodes along the last axis (of rank 2 and up) whose slots follow one another
/// too: copied in one call (a line of receivers on the grid is one run per step).
#[derive(Clone, Copy)]
struct Run<const N: usize> {
    field: usize,
    at: [usize; N],
    len: usize,
    slot: usize,
}

/// Where a node or a run lies: its field and its hyperplane of axis 0.
trait Placed {
    fn field(&self) -> usize;
    fn row(&self) -> Option<usize>;
}

impl<const N: usize> Placed for Node<N> {
    fn field(&self) -> usize {
        self.field
    }
    fn row(&self) -> Option<usize> {
        self.at.first().copied()
    }
}

impl<const N: usize> Placed for Run<N> {
    fn field(&self) -> usize {
        self.field
    }
    fn row(&self) -> Option<usize> {
        self.at.first().copied()
    }
}

/// The nodes of `samples` (sorted by hyperplane, their slots their indices) as runs.
fn runs<const N: usize>(samples: &[Node<N>]) -> Vec<Run<N>> {
    let mut runs: Vec<Run<N>> = Vec::new();
    for n in samples {
        if let Some(last) = runs.last_mut() {
            let along = N >= 2 && last.field == n.field && last.at[..N - 1] == n.at[..N - 1];
            if along && last.at[N - 1] + last.len == n.at[N - 1] && last.slot + last.len == n.index {
                last.len += 1;
                continue;
            }
        }
        runs.push(Run { field: n.field, at: n.at, len: 1, slot: n.index });
    }
    runs
}

/// The injections and samples of one call, and the staging of its samples.
pub(in crate::stencil) struct PointPlan<'a, B: Backend, T: Float, const N: usize> {
    /// Sorted (stably) by hyperplane, so in the order `Points::inject` adds them per node.
    injections: Vec<Node<N>>,
    /// Per source set, its series' first `steps` rows, row by row.
    amplitudes: Vec<(Vec<T>, usize)>,
    /// The sample nodes (one slot each per step), in runs sorted by hyperplane.
    samples: usize,
    runs: Vec<Run<N>>,
    /// Per recording set: the record, and per point its nodes' slots and weights.
    records: Vec<(ArrayViewMut<'a, T, 2>, PointSlots)>,
    /// `STAGED_STEPS` blocks of one slot per sample node (empty without receivers), owned here
    /// and written only through `slots`.
    _staging: Array<T, 1, B>,
    slots: Desc<B, T, 1>,
}

impl<'a, B, T, const N: usize> PointPlan<'a, B, T, N>
where
    B: ElementwiseKernels + CopyKernels + Download,
    T: Float,
{
    /// The plan of `points` for `steps` steps of a state of `fields` fields of shape `shape`
    /// (the first field's array `like`, on whose device the staging goes), with halos `radius`
    /// wide.
    ///
    /// # Errors
    ///
    /// `Error::Coordinate` for a node in the halo or outside the field; `Error::Layout` for a
    /// series or record of too few rows or not one column per point, or a field past the
    /// state's; `Error::Alloc`.
    pub(in crate::stencil) fn new(
        op: &'static str,
        points: StepPoints<'a, T, N>,
        steps: usize,
        fields: usize,
        like: Desc<B, T, N>,
        radius: [usize; N],
    ) -> Result<Self> {
        let shape = like.shape;
        let check = |p: &crate::stencil::Points<N>, field: usize, rows: usize, cols: usize, what: &str| -> Result<()> {
            if field >= fields {
                return Err(Error::Layout {
                    op,
                    reason: format!("points on field {field} of a state of {fields} fields"),
                    fix: "name a field of the state (from 0) for each injection and recording",
                });
            }
            if rows < steps || cols != p.len() {
                return Err(Error::Layout {
                    op,
                    reason: format!("a {what} of shape [{rows}, {cols}] for {steps} steps of {} points", p.len()),
                    fix: "give each series and record a row per step (at least) and a column per point: \
                          `[steps, points.len()]`, or a slice of a longer one",
                });
            }
            interior(op, p, shape, radius)
        };
        let (mut injections, mut amplitudes) = (Vec::new(), Vec::new());
        for (set, (p, field, series)) in points.sources.into_iter().enumerate() {
            let [rows, cols] = series.shape();
            check(p, field, rows, cols, "series")?;
            let mut row_major = Vec::new();
            let len = steps.saturating_mul(cols);
            row_major.try_reserve_exact(len).map_err(|_| alloc_error(op, len.saturating_mul(size_of::<T>())))?;
            row_major.extend((0..steps).flat_map(|t| (0..cols).map(move |q| (t, q))).map(|(t, q)| series[[t, q]]));
            amplitudes.push((row_major, cols));
            for q in 0..p.len() {
                injections.extend(p.nodes(q).iter().map(|&(at, weight)| Node { field, at, weight, index: q, set }));
            }
        }
        let (mut samples, mut records) = (Vec::new(), Vec::new());
        for (set, (p, field, record)) in points.receivers.into_iter().enumerate() {
            let [rows, cols] = record.shape();
            check(p, field, rows, cols, "record")?;
            let mut slots = Vec::with_capacity(p.len());
            for q in 0..p.len() {
                let nodes = p.nodes(q);
                slots.push(nodes.iter().enumerate().map(|(k, &(_, w))| (samples.len() + k, w)).collect());
                samples.extend(nodes.iter().map(|&(at, weight)| Node { field, at, weight, index: 0, set }));
            }
            records.push((record, slots));
        }
        // The slots were numbered in the order given; the lists are walked by hyperplane.
        for (k, s) in samples.iter_mut().enumerate() {
            s.index = k;
        }
        injections.sort_by_key(|n| n.at.first().copied());
        samples.sort_by_key(|n| n.at.first().copied());
        // At most `STAGED_STEPS` rows of the samples (`Points` hold at most `2^N` nodes per point,
        // each a slot): no product of lengths held in memory overflows.
        let len = STAGED_STEPS.min(steps.max(1)) * samples.len();
        let runs = runs(&samples);
        let mut staging = Array::try_zeros_in(&B::allocator_of_handle(like.handle), [len])?;
        let slots = staging.desc_mut();
        Ok(PointPlan { injections, amplitudes, samples: samples.len(), runs, records, _staging: staging, slots })
    }

    /// The nodes (or runs) of `list` on hyperplanes `rows` of field `f`.
    fn on<X: Placed>(list: &[X], f: usize, rows: Range<usize>) -> impl Iterator<Item = &X> {
        let start = list.partition_point(|n| n.row().is_some_and(|i| i < rows.start));
        list[start..].iter().take_while(move |n| n.row().is_none_or(|i| i < rows.end)).filter(move |n| n.field() == f)
    }
}

impl<B, T, const N: usize> PointHook<B, T, N> for PointPlan<'_, B, T, N>
where
    B: ElementwiseKernels + CopyKernels + Download,
    T: Float,
{
    fn pass_steps(&self) -> usize {
        if self.samples == 0 {
            usize::MAX
        } else {
            STAGED_STEPS
        }
    }

    unsafe fn after(
        &self,
        f: usize,
        dst: Desc<B, T, N>,
        pass_first: usize,
        step: usize,
        rows: Range<usize>,
    ) -> Result<()> {
        let node = |at: [usize; N]| (0..N).fold(dst, |d, k| d.narrowed(k, at[k], 1));
        for n in Self::on(&self.injections, f, rows.clone()) {
            let (series, cols) = &self.amplitudes[n.set];
            let a = series[(pass_first + step - 1) * cols + n.index];
            // SAFETY: the node is an interior element of `dst` (`interior`, checked in `new`) on
            // hyperplanes `rows`, which the caller's contract gives this call alone.
            unsafe {
                crate::ops::elementwise::update_unary(ScalarRight(tokens::Add, T::from_f64(n.weight) * a), node(n.at))
            }?;
        }
        if self.samples == 0 {
            return Ok(());
        }
        let block = (step - 1) * self.samples;
        let dev = B::handle_device(dst.handle);
        for run in Self::on(&self.runs, f, rows) {
            let slots = self.slots.narrowed(0, block + run.slot, run.len);
            let mut shape = [1; N];
            let mut strides = [0; N];
            if let (Some(last), Some(step)) = (shape.last_mut(), strides.last_mut()) {
                (*last, *step) = (run.len, 1);
            }
            let slots = Desc { handle: slots.handle, shape, strides };
            let nodes = (0..N).fold(dst, |d, k| d.narrowed(k, run.at[k], if k + 1 == N { run.len } else { 1 }));
            // SAFETY: the slots are this step's and these nodes' alone (`step` within the staged
            // steps, the caller's contract), written by no other call; the nodes as above (a
            // run's nodes follow one another along the last axis, all in the interior).
            unsafe { B::copy(&dev, slots, nodes) }?;
        }
        Ok(())
    }

    fn flush(&mut self, first: usize, steps: usize) -> Result<()> {
        if self.samples == 0 || steps == 0 {
            return Ok(());
        }
        let count = self.samples;
        let staged = self.slots.narrowed(0, 0, steps * count);
        let records = &mut self.records;
        // SAFETY: the staging array is live, contiguous and written by the finished pass only.
        unsafe {
            B::try_with_host(staged, |values| {
                for (record, slots) in records.iter_mut() {
                    for t in 0..steps {
                        let block = &values[t * count..(t + 1) * count];
                        for (q, nodes) in slots.iter().enumerate() {
                            record[[first + t, q]] = combine(block, nodes);
                        }
                    }
                }
                Ok(())
            })
        }
    }
}

/// The sample of one point from its nodes' values, in [`Points::sample`]'s operations: the
/// first node's value times its weight (unless 1), plus each other's value times its weight.
fn combine<T: Float>(values: &[T], nodes: &[(usize, f64)]) -> T {
    let mut sum = values[nodes[0].0];
    if nodes[0].1 != 1.0 {
        sum = sum * T::from_f64(nodes[0].1);
    }
    for &(slot, w) in &nodes[1..] {
        sum = sum + values[slot] * T::from_f64(w);
    }
    sum
}

/// Every node of `points` lies in the interior of a field of `shape` with halos `radius` wide.
fn interior<const N: usize>(
    op: &'static str,
    points: &crate::stencil::Points<N>,
    shape: [usize; N],
    radius: [usize; N],
) -> Result<()> {
    for q in 0..points.len() {
        for &(at, _) in points.nodes(q) {
            if let Some(axis) = (0..N).find(|&k| at[k] < radius[k] || at[k] >= shape[k].saturating_sub(radius[k])) {
                let reason = format!(
                    "at {:?} needs node {at:?}, which is not in the interior of a field of shape {shape:?} with \
                     halos {radius:?} wide (axis {axis}): the boundaries overwrite the halo every step, so move the \
                     point at least a halo's width (plus one for an off-grid point) from the edge",
                    points.coords()[q]
                );
                return Err(Error::Coordinate { op, point: q, reason });
            }
        }
    }
    Ok(())
}

fn alloc_error(op: &'static str, bytes: usize) -> Error {
    Error::Alloc {
        op,
        bytes,
        reason: "the host refused the memory for the sources' series or receivers' samples".into(),
    }
}
