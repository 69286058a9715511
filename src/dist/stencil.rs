//! Stencil sweeps over distributed grids: [`LinearStencil::apply_dist`], which hides the halo
//! exchange behind the interior of the block, and [`DistDoubleBuffer`].

use core::ops::Range;

use mpi::datatype::Equivalence;

use super::{DistArray, DistBackend};
use crate::element::{Numeric, Pod};
use crate::error::{or_panic, Error, Result};
use crate::kernel::{Backend, Cpu, StencilKernels};
use crate::layout::Strided;
use crate::shape::interior_range;
use crate::stencil::LinearStencil;
use crate::stencil::Window;
use crate::view::{Shared, Unique, View};

impl<T: Numeric + Equivalence, const N: usize, const R: usize, const K: usize> LinearStencil<T, N, R, K> {
    /// One sweep over a distributed grid: `v = stencil(u)` at every global point at least `R`
    /// from a fixed global edge (every point along periodic axes), the same bit for bit as
    /// [`LinearStencil::apply`] on the whole grid; `v`'s other points are left alone. `u`'s
    /// halos are exchanged first (the faces only when no tap is diagonal), and the points whose
    /// taps stay inside the owned block are swept while the messages travel; the strip next to
    /// the halos follows. On any backend the blocks live on (a device's sweep is queued while
    /// the messages travel). Collective.
    ///
    /// # Panics
    ///
    /// As [`LinearStencil::try_apply_dist`] errs.
    #[track_caller]
    pub fn apply_dist<B: DistBackend + StencilKernels>(&self, u: &mut DistArray<T, N, B>, v: &mut DistArray<T, N, B>) {
        or_panic(self.try_apply_dist(u, v))
    }

    /// [`LinearStencil::apply_dist`], returning errors.
    ///
    /// # Errors
    ///
    /// `Error::ShapeMismatch` when `u` and `v` are split differently or have different halos;
    /// `Error::Decomposition` when a halo is narrower than the radius on an axis with neighbours;
    /// `Error::Limit` when the stencil has more taps than the backend's kernel takes
    /// ([`StencilKernels::MAX_LINEAR_TAPS`]); `Error::Mpi` when an MPI call of the exchange
    /// fails, or the checks fail on some processes only (the processes agree on them before
    /// communicating: the same error everywhere); `Error::Device` from a device, on every
    /// process (the others get `Error::Mpi` naming it: on device blocks the processes agree on
    /// the exchange's and the sweeps' outcome before returning).
    pub fn try_apply_dist<B: DistBackend + StencilKernels>(
        &self,
        u: &mut DistArray<T, N, B>,
        v: &mut DistArray<T, N, B>,
    ) -> Result<()> {
        const OP: &str = "LinearStencil::apply_dist";
        // A stencil without diagonal taps reads no edge or corner of the halo: faces suffice.
        let faces_only = self.taps().iter().all(|(offset, _)| offset.iter().filter(|&&o| o != 0).count() <= 1);
        let limits = Limits::Checked(check_taps::<B>(OP, K, B::MAX_LINEAR_TAPS));
        sweep_split(OP, u, v, [R; N], limits, faces_only, |input, output| self.try_apply(input, output))
    }
}

/// What a distributed sweep knows before any work of the limits of its kernel.
pub(super) enum Limits {
    /// Checked against the stencil, the same on every process (the stencil and the backend
    /// are): `Err` when past them. A host kernel can then fail no more, so the processes agree
    /// on a sweep's outcome only when the blocks live on a device.
    Checked(Result<()>),
    /// Known to the kernel alone (`stencil!` stencils), which fails at the launch on the
    /// processes that sweep: they agree on the outcome on every backend.
    AtLaunch,
}

/// `Ok` when backend `B`'s kernels take a stencil of `taps` taps (`max`: its
/// [`StencilKernels::MAX_TAPS`] or [`StencilKernels::MAX_LINEAR_TAPS`]), else the `Error::Limit`
/// its kernel would return at the launch. Checked before any work, with the other checks the
/// processes agree on: a process with nothing to sweep never launches the kernel, so it would
/// not fail with the others.
pub(super) fn check_taps<B: Backend>(op: &'static str, taps: usize, max: usize) -> Result<()> {
    if taps > max {
        return Err(Error::Limit {
            op,
            backend: B::NAME,
            what: "the number of stencil taps",
            got: taps as u64,
            max: max as u64,
            fix: "split the stencil into sums of smaller ones, or sweep on a backend that takes more taps",
        });
    }
    Ok(())
}

/// The one distributed sweep behind [`LinearStencil::apply_dist`] and [`sweep_dist`]: after
/// checking the split (and `limits`, the kernel's limits for the stencil), exchanges `u`'s halos
/// (the faces only with `faces_only`) while `sweep` writes the inner box of `v` (the points
/// whose taps stay inside the owned block), then sweeps the strips next to the halos. `sweep`
/// gets an input and an output view reaching `radius[k]` points around the box it must write
/// along each axis `k` (their interior).
///
/// Collective, and fails on every process alike: the checks are agreed on before the exchange,
/// and where a kernel or a device can fail on some processes only (a process whose block has
/// nothing to update launches no kernel) the outcome of the exchange and the sweeps after them
/// too, so the caller's next collective does not wait for a process that returned an error.
pub(super) fn sweep_split<T: Pod + Equivalence, const N: usize, B: DistBackend>(
    op: &'static str,
    u: &mut DistArray<T, N, B>,
    v: &mut DistArray<T, N, B>,
    radius: [usize; N],
    limits: Limits,
    faces_only: bool,
    mut sweep: impl FnMut(View<'_, T, N, Shared, B, Strided>, View<'_, T, N, Unique, B, Strided>) -> Result<()>,
) -> Result<()> {
    let (checked, agree_after) = match limits {
        Limits::Checked(checked) => (checked, u.on_device()),
        Limits::AtLaunch => (Ok(()), true),
    };
    // The processes agree on the checks before the exchange, so all fail or none does.
    let Regions { update, inner } = u.agree(op, checked.and_then(|()| Regions::new(op, u, v, radius)))?;
    let halo = u.halo();
    let mut out = v.local_mut();
    // The box `at` with the radius around it, `origin` being where owned coordinates start.
    let around = |at: &[Range<usize>; N], origin: [usize; N], k: usize| {
        (origin[k] + at[k].start - radius[k], at[k].len() + 2 * radius[k])
    };
    let empty = |at: &[Range<usize>; N]| at.iter().any(|r| r.is_empty());
    let mut local = || -> Result<()> {
        u.exchange(op, faces_only, |owned| {
            if empty(&inner) {
                return Ok(());
            }
            let (mut input, mut output) = (owned, out.view_mut().into_strided());
            for k in 0..N {
                let (s, n) = around(&inner, [0; N], k);
                input = input.narrow(k, s, n);
                let (s, n) = around(&inner, halo, k);
                output = output.narrow(k, s, n);
            }
            sweep(input, output)
        })??;
        for strip in strips(&update, &inner).iter().filter(|b| !empty(b)) {
            let (mut input, mut output) = (u.local().view().into_strided(), out.view_mut().into_strided());
            for k in 0..N {
                let (s, n) = around(strip, halo, k);
                input = input.narrow(k, s, n);
                output = output.narrow(k, s, n);
            }
            sweep(input, output)?;
        }
        Ok(())
    };
    let outcome = local();
    if agree_after {
        u.agree(op, outcome)
    } else {
        outcome
    }
}

/// Where one distributed sweep writes (owned coordinates): `update`, the points at least `R` from
/// a fixed global edge, and `inner`, those of them whose taps stay inside the owned block (swept
/// while the halos travel).
struct Regions<const N: usize> {
    update: [Range<usize>; N],
    inner: [Range<usize>; N],
}

impl<const N: usize> Regions<N> {
    /// The regions of `u`'s block for radius `R`, after checking that `v` is split alike.
    ///
    /// # Errors
    ///
    /// `Error::ShapeMismatch` when `u` and `v` are split differently or have different halos;
    /// `Error::Decomposition` when a halo is narrower than `R` on an axis with neighbours.
    fn new<T: Pod + Equivalence, B: DistBackend>(
        op: &'static str,
        u: &DistArray<T, N, B>,
        v: &DistArray<T, N, B>,
        radius: [usize; N],
    ) -> Result<Self> {
        check_pair(op, u, v, radius)?;
        let (d, halo) = (*u.decomposition(), u.halo());
        let block = d.block_shape(u.rank());
        let local = sweep_region(u, radius, 0);
        let update: [Range<usize>; N] = core::array::from_fn(|k| local[k].start - halo[k]..local[k].end - halo[k]);
        // A side with no neighbour is a fixed global edge, already `R` away from every updated
        // point, so the inner box reaches it: no strip there.
        let rank = u.rank();
        let inner: [Range<usize>; N] = core::array::from_fn(|k| {
            let r = radius[k];
            let lo = if d.neighbour(rank, k, -1).is_some() { update[k].start.max(r) } else { update[k].start };
            let hi = if d.neighbour(rank, k, 1).is_some() {
                update[k].end.min(block[k].saturating_sub(r))
            } else {
                update[k].end
            };
            if lo < hi {
                lo..hi
            } else {
                update[k].start..update[k].start
            }
        });
        Ok(Regions { update, inner })
    }
}

/// Checks a pair of fields a stencil of `radius` sweeps from one into the other: split alike,
/// with equal halos, each at least the radius on every axis with neighbours.
///
/// # Errors
///
/// `Error::ShapeMismatch` when `u` and `v` are split differently or have different halos;
/// `Error::Decomposition` when a halo is narrower than the radius on an axis with neighbours.
pub(super) fn check_pair<T: Pod + Equivalence, const N: usize, B: DistBackend>(
    op: &'static str,
    u: &DistArray<T, N, B>,
    v: &DistArray<T, N, B>,
    radius: [usize; N],
) -> Result<()> {
    let (d, halo) = (u.decomposition(), u.halo());
    if d != v.decomposition() || halo != v.halo() {
        return Err(Error::ShapeMismatch { op, expected: u.local().shape().to_vec(), got: v.local().shape().to_vec() });
    }
    if let Some(k) = (0..N).find(|&k| d.exchanges_along(k) && halo[k] < radius[k]) {
        return Err(Error::Decomposition {
            op,
            reason: format!(
                "the halo of axis {k} is {} wide, narrower than the stencil's radius {}",
                halo[k], radius[k]
            ),
            fix: "build the arrays with a halo at least as wide as the radius (k radii for k sweeps per exchange \
                  with `apply_steps_dist`)",
        });
    }
    Ok(())
}

/// The local points (halo included, so owned point `i` is `halo + i`) a sweep of radius `radius`
/// updates, widened by `extra` radii into the halo towards every neighbour: every point along a
/// periodic axis, and along a fixed one only points at least the radius from the global edges
/// (the fixed boundary). `extra` is 0 for one sweep after an exchange, more for the earlier
/// sweeps of a deep-halo batch (`steps.rs`); `extra * radius` must not exceed the halo.
pub(super) fn sweep_region<T: Pod + Equivalence, const N: usize, B: DistBackend>(
    u: &DistArray<T, N, B>,
    radius: [usize; N],
    extra: usize,
) -> [Range<usize>; N] {
    let d = u.decomposition();
    let (rank, halo) = (u.rank(), u.halo());
    let (block, start) = (d.block_shape(rank), u.owned_range().map(|r| r.start));
    core::array::from_fn(|k| {
        // In global coordinates, shifted by the halo so that nothing is negative.
        // Only towards a neighbour, where `extra * radius` is at most the halo (so no overflow,
        // however many sweeps a batch has where no axis exchanges).
        let reach = |side: isize| if d.neighbour(rank, k, side).is_some() { extra * radius[k] } else { 0 };
        let mut lo = start[k] + halo[k] - reach(-1);
        let mut hi = start[k] + halo[k] + block[k] + reach(1);
        if !d.periodic()[k] {
            let global = interior_range(d.global_shape()[k], radius[k]);
            lo = lo.max(global.start + halo[k]);
            hi = hi.min(global.end + halo[k]);
        }
        let (lo, hi) = (lo - start[k], hi.saturating_sub(start[k]));
        lo..hi.max(lo)
    })
}

/// One sweep of the closure stencil `f` over a distributed grid: `f(&mut v[x], window of u
/// around x)` at every global point at least `R` from a fixed global edge (every point along
/// periodic axes), as [`sweep`](crate::stencil::sweep) over the whole grid would; `v`'s other
/// points are left alone. The halos (every neighbour: a closure may read diagonals) are
/// exchanged while the block's interior is swept. Collective.
///
/// ```no_run
/// use cnda::dist::{sweep_dist, DistArray};
/// use cnda::stencil::Window2;
/// let universe = mpi::initialize().unwrap();
/// let mut u = DistArray::<f64, 2>::new(&universe.world(), [512, 512], [1, 1], [false; 2]);
/// let mut v = u.clone();
/// sweep_dist(&mut u, &mut v, |out, w: Window2<f64, 1>| *out = 0.25 * (w[(-1, 0)] + w[(1, 0)] + w[(0, -1)] + w[(0, 1)]));
/// ```
///
/// # Panics
///
/// As [`try_sweep_dist`] errs.
#[track_caller]
pub fn sweep_dist<T: Pod + Equivalence, const N: usize, const R: usize>(
    u: &mut DistArray<T, N>,
    v: &mut DistArray<T, N>,
    f: impl FnMut(&mut T, Window<'_, T, N, R>),
) {
    or_panic(try_sweep_dist(u, v, f))
}

/// [`sweep_dist`], returning errors.
///
/// # Errors
///
/// As [`LinearStencil::try_apply_dist`].
pub fn try_sweep_dist<T: Pod + Equivalence, const N: usize, const R: usize>(
    u: &mut DistArray<T, N>,
    v: &mut DistArray<T, N>,
    mut f: impl FnMut(&mut T, Window<'_, T, N, R>),
) -> Result<()> {
    // A closure on host blocks: nothing that can fail on one process only.
    let limits = Limits::Checked(Ok(()));
    sweep_split::<T, N, Cpu>("sweep_dist", u, v, [R; N], limits, false, |input, output| {
        crate::stencil::try_sweep(input, output, &mut f)
    })
}

/// `update` minus `inner` as at most `2 N` disjoint boxes: along each axis `k`, the slabs below
/// and above `inner`, over `inner` on the axes before `k` and all of `update` on those after.
fn strips<const N: usize>(update: &[Range<usize>; N], inner: &[Range<usize>; N]) -> Vec<[Range<usize>; N]> {
    let mut boxes = Vec::with_capacity(2 * N);
    for k in 0..N {
        let around = |below: bool| -> [Range<usize>; N] {
            core::array::from_fn(|j| match j.cmp(&k) {
                core::cmp::Ordering::Less => inner[j].clone(),
                core::cmp::Ordering::Greater => update[j].clone(),
                core::cmp::Ordering::Equal if below => update[k].start..inner[k].start,
                core::cmp::Ordering::Equal => inner[k].end..update[k].end,
            })
        };
        boxes.push(around(true));
        boxes.push(around(false));
    }
    boxes
}

/// Two distributed fields of one split whose roles swap after every sweep, as
/// [`DoubleBuffer`](crate::stencil::DoubleBuffer) for one process.
///
/// ```no_run
/// use cnda::dist::{DistArray, DistDoubleBuffer};
/// use cnda::stencil::LinearStencil;
/// let universe = mpi::initialize().unwrap();
/// let mut field = DistDoubleBuffer::new(DistArray::<f64, 2>::new(&universe.world(), [256, 256], [1, 1], [false; 2]));
/// for _ in 0..100 {
///     let (u, v) = field.both_mut();
///     LinearStencil::jacobi_5pt().apply_dist(u, v);
///     field.swap();
/// }
/// ```
pub struct DistDoubleBuffer<T: Numeric + Equivalence, const N: usize, B: DistBackend = Cpu> {
    current: DistArray<T, N, B>,
    next: DistArray<T, N, B>,
}

impl<T: Numeric + Equivalence, const N: usize, B: DistBackend> DistDoubleBuffer<T, N, B> {
    /// Starts from `initial`; the scratch field is a copy (boundary values persist in both).
    /// Collective.
    pub fn new(initial: DistArray<T, N, B>) -> Self {
        let next = initial.clone();
        DistDoubleBuffer { current: initial, next }
    }

    /// The current field.
    pub fn current(&self) -> &DistArray<T, N, B> {
        &self.current
    }

    /// The current field, mutably.
    pub fn current_mut(&mut self) -> &mut DistArray<T, N, B> {
        &mut self.current
    }

    /// The current field to read and the next one to write.
    pub fn both_mut(&mut self) -> (&mut DistArray<T, N, B>, &mut DistArray<T, N, B>) {
        (&mut self.current, &mut self.next)
    }

    /// Makes the field just written the current one.
    pub fn swap(&mut self) {
        core::mem::swap(&mut self.current, &mut self.next);
    }

    /// The current field, consuming the buffer.
    pub fn into_current(self) -> DistArray<T, N, B> {
        self.current
    }
}

#[cfg(test)]
mod tests {
    use super::strips;

    #[test]
    fn strips_and_inner_box_tile_the_update_region() {
        let update = [0..7, 2..9];
        for inner in [[1..6, 3..8], [0..7, 2..9], [3..3, 4..6], [1..2, 2..2]] {
            let mut seen = [0u8; 7 * 9];
            let mut mark = |b: &[core::ops::Range<usize>; 2]| {
                for i in b[0].clone() {
                    for j in b[1].clone() {
                        seen[i * 9 + j] += 1;
                    }
                }
            };
            mark(&inner);
            for b in strips(&update, &inner) {
                mark(&b);
            }
            for i in 0..7 {
                for j in 0..9 {
                    assert_eq!(seen[i * 9 + j], u8::from(update[1].contains(&j)), "{inner:?} {i} {j}");
                }
            }
        }
    }
}
