//! The region a single stencil sweep writes, written once for every stencil described by data
//! (`LinearStencil`, `DynStencil`, `VariableStencil`): the interior of the output (the points at
//! least the radius from every edge, per axis), the fields narrowed to it, and, on the CPU, its
//! bands for rayon's threads.

use core::ops::Range;

use crate::element::Pod;
use crate::error::{Error, Result};
use crate::kernel::{Backend, Desc};
use crate::ops::output::same_device;
use crate::shape::interior_range;

/// The interior of a sweep's output: one range per axis.
pub(super) struct Interior<const N: usize> {
    ranges: [Range<usize>; N],
}

impl<const N: usize> Interior<N> {
    /// The interior for `radius` after checking that the input, the output and every other field
    /// (coefficients, read at the output's points) have one shape and one device; `None` when no
    /// point is at least the radius from every edge.
    ///
    /// # Errors
    ///
    /// `Error::ShapeMismatch`, `Error::DeviceMismatch`.
    pub(super) fn of<B: Backend, T: Pod>(
        op: &'static str,
        radius: [usize; N],
        input: &Desc<B, T, N>,
        output: &Desc<B, T, N>,
        fields: &[Desc<B, T, N>],
    ) -> Result<Option<Self>> {
        for d in core::iter::once(output).chain(fields) {
            if d.shape != input.shape {
                return Err(Error::ShapeMismatch { op, expected: input.shape.to_vec(), got: d.shape.to_vec() });
            }
        }
        let others: smallvec::SmallVec<[B::Device; 4]> =
            core::iter::once(input).chain(fields).map(|d| B::handle_device(d.handle)).collect();
        same_device::<B>(op, &B::handle_device(output.handle), &others)?;
        let ranges: [Range<usize>; N] = core::array::from_fn(|k| interior_range(input.shape[k], radius[k]));
        Ok((!ranges.iter().any(|r| r.is_empty())).then_some(Interior { ranges }))
    }

    /// `d` narrowed to the interior.
    pub(super) fn narrow<B: Backend, T: Pod>(&self, d: Desc<B, T, N>) -> Desc<B, T, N> {
        (0..N).fold(d, |d, k| d.narrowed(k, self.ranges[k].start, self.ranges[k].len()))
    }
}

/// The axes of `descs` (the output first) reordered so that the output's stride magnitudes
/// decrease, with the order taken (`order[k]` is the axis now at `k`): a sweep walks lanes along
/// the last axis, so a column-major or transposed output is swept along its contiguous axis.
/// Taps must be reordered alike (`order.map(|a| offset[a])`).
pub(super) fn orient<B: Backend, T: Pod, const N: usize, const M: usize>(
    descs: [Desc<B, T, N>; M],
) -> ([usize; N], [Desc<B, T, N>; M]) {
    let mut order: [usize; N] = core::array::from_fn(|k| k);
    if let Some(out) = descs.first() {
        // Stable: axes of equal stride keep their order (the identity for row-major outputs).
        // A length-1 axis (any stride) goes outermost: a lane along it would be one point.
        order.sort_by_key(|&a| {
            core::cmp::Reverse(if out.shape[a] <= 1 { usize::MAX } else { out.strides[a].unsigned_abs() })
        });
    }
    let permuted = descs.map(|d| Desc {
        handle: d.handle,
        shape: order.map(|a| d.shape[a]),
        strides: order.map(|a| d.strides[a]),
    });
    (order, permuted)
}

/// `d`'s rows `rows` of axis 0 (`N >= 1`).
#[cfg(feature = "rayon")]
pub(super) fn band<B: Backend, T: Pod, const N: usize>(d: Desc<B, T, N>, rows: Range<usize>) -> Desc<B, T, N> {
    d.narrowed(0, rows.start, rows.len())
}

/// The bytes a sweep writes into `out` (saturating: only compared with a cache's size), for the
/// CPU's choice of stores (`HostEngine::taps_in_sweep`).
#[cfg(feature = "rayon")]
pub(super) fn sweep_bytes<B: Backend, T: Pod, const N: usize>(out: &Desc<B, T, N>) -> usize {
    out.shape.iter().fold(core::mem::size_of::<T>(), |bytes, &n| bytes.saturating_mul(n))
}

/// Runs `sweep(rows)` on rayon's threads over disjoint bands of `rows` rows of axis 0, a couple
/// per thread; the first error is returned (the other bands still run).
///
/// # Errors
///
/// The first error of a band.
#[cfg(feature = "rayon")]
pub(super) fn par_bands(rows: usize, sweep: impl Fn(Range<usize>) -> Result<()> + Sync + Send) -> Result<()> {
    use crate::kernel::host::HostEngine;
    let failure = std::sync::Mutex::new(None);
    crate::kernel::Cpu::for_each_subrange(0..rows, 2, |band| {
        if let Err(e) = sweep(band) {
            failure.lock().unwrap_or_else(|p| p.into_inner()).get_or_insert(e);
        }
    });
    failure.into_inner().unwrap_or_else(|p| p.into_inner()).map_or(Ok(()), Err)
}
