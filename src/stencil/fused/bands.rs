//! The fused sweeps on threads that share one wavefront: each thread computes its band of axis 1
//! of every unit, in the wavefront's order, and the first thread completes each unit (its points
//! and halos) once every band of it is in.

use core::ops::Range;
use core::sync::atomic::{AtomicUsize, Ordering};

use super::parallel::{on_threads, wait_past, SharedPlan};
use super::schedule::{self, Work};
use super::{Plan, Sweep};
use crate::element::Pod;
use crate::error::Result;
use crate::kernel::{CopyKernels, Cpu};

/// A band computes at least this many points of a unit, so that the wait between units (a few
/// hundred nanoseconds for a cache line to travel between cores) stays about a hundredth of the
/// work.
const BAND_POINTS: usize = 8192;

/// A thread's count of work items done, alone on its cache lines: the threads poll each other's
/// counters, which must not share a line with what another thread writes.
#[repr(align(128))]
struct Done(AtomicUsize);

/// The interior of axis 1 cut into `count >= 2` bands of nearly equal width, in order. In 2D,
/// where axis 1 is the contiguous one, each cut lies a whole number of cache lines from the
/// interior's start (the threads then never write one line, when the interior starts a line as
/// in padded arrays). `None` for rank 1 and for fewer points of axis 1 than threads; and unless
/// `forced`, for rank 2 (units of 2D grids are rows of a few thousand points, too little work
/// between two waits: Gray-Scott on 4096^2 ran at half the slabs' speed in bands) and when a
/// band would compute fewer than [`BAND_POINTS`] points of a unit.
pub(super) fn bands<T: Pod, const N: usize, S>(
    plan: &Plan<'_, Cpu, T, N, S>,
    count: usize,
    forced: bool,
) -> Option<Vec<Range<usize>>> {
    let axis = plan.interior.get(1)?;
    let width = axis.len() / count.max(1);
    if count < 2 || width == 0 || (!forced && N < 3) {
        return None;
    }
    let line = if N == 2 { (64 / size_of::<T>().max(1)).max(1) } else { 1 };
    // Whole lines only where every band still spans two.
    let bands = cuts(axis.clone(), count, if width >= 2 * line { line } else { 1 });
    let unit =
        plan.block.min(plan.interior[0].len()).saturating_mul(plan.interior[2..].iter().map(|r| r.len()).product());
    let least = bands.iter().map(|b| b.len()).min().unwrap_or(0);
    (forced || unit.saturating_mul(least) >= BAND_POINTS).then_some(bands)
}

/// `axis` (at least `count` points long) cut into `count` non-empty bands in order, each cut a
/// multiple of `line` points from the start (every band at least two lines wide when `line > 1`):
/// the widths differ by at most one point, or by less than two lines.
fn cuts(axis: Range<usize>, count: usize, line: usize) -> Vec<Range<usize>> {
    let (len, width) = (axis.len(), axis.len() / count);
    debug_assert!(width >= 1 && (line == 1 || width >= 2 * line));
    // The slabs' even cuts, rounded down to whole lines.
    let cut = |p: usize| match p {
        0 => axis.start,
        p if p == count => axis.end,
        p => axis.start + schedule::share(len, count, p) / line * line,
    };
    (0..count).map(|p| cut(p)..cut(p + 1)).collect()
}

/// The plan's wavefront, then its seam pass, on `bands.len()` threads, thread `p` computing
/// `bands[p]` of every unit.
///
/// Every thread walks the same [`Work`] in the sequential order and counts the items it has
/// done (`done[p]`, stored with `Release` after its writes, loaded with `Acquire`). Before item
/// `u` a thread waits until every other has done `u` items; the first thread, after its band of
/// item `u`, waits until every other has done `u + 1` and completes the item (points, halos)
/// before it counts it done. So every item is whole, every band of it and its completion, before
/// any thread starts the next, and the threads run at once only bands of one item: they write
/// disjoint points of the arrays the sweep writes, and read only arrays it does not write (its
/// inputs, and the coefficient fields no sweep writes). That is the sequential order, whatever
/// the bands; the result is the same, bit for bit.
///
/// **Failure.** A thread that stops early raises `stopped`, and a waiting thread then stops
/// without touching anything more: only a count published by every other thread lets one go on.
///
/// # Safety
///
/// As for `Plan::run_sequential`; `bands` lie in the interior of axis 1 and do not overlap.
pub(super) unsafe fn run_bands<T: Pod + Send + Sync, const N: usize, S: Sweep<Cpu, T, N>>(
    plan: &Plan<'_, Cpu, T, N, S>,
    bands: &[Range<usize>],
) -> Result<()>
where
    Cpu: CopyKernels,
{
    // SAFETY: the caller's contract; no thread runs yet.
    unsafe { plan.prepare() }?;
    let schedule = plan.schedule();
    let parts = core::slice::from_ref(schedule);
    let seams = schedule::seams(parts);
    let done: &[Done] = &(0..bands.len()).map(|_| Done(AtomicUsize::new(0))).collect::<Vec<_>>();
    let shared = &SharedPlan(plan);
    // `move`: the closure holds the `Sync` wrapper, not the plan inside it.
    on_threads(bands.len(), move |p, stopped| {
        let seam_work = seams.iter().flat_map(|seam| schedule::seam_work(parts, seam));
        let others = || done.iter().enumerate().filter(move |&(q, _)| q != p).map(|(_, d)| &d.0);
        for (u, work) in schedule::wavefront_work(schedule).chain(seam_work).enumerate() {
            // Every item before `u` is whole, on every thread.
            if u > 0 && !others().all(|d| wait_past(d, u - 1, stopped)) {
                return Ok(()); // another thread failed: the call's result is its failure
            }
            if let Work::Sweep { t, i } = work {
                // SAFETY: every item before this one is whole (the sequential order), the other
                // threads compute only other bands of this one, and no thread completes it yet.
                unsafe { shared.0.compute_band(t, i, Some(bands[p].clone())) }?;
            }
            if p == 0 {
                if !others().all(|d| wait_past(d, u, stopped)) {
                    return Ok(());
                }
                // SAFETY: every band of the item is computed, and the other threads wait for
                // this thread's count before they touch anything of the next.
                unsafe { shared.0.complete(work) }?;
            }
            done[p].0.store(u + 1, Ordering::Release);
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::cuts;

    #[test]
    fn bands_cover_the_axis_once_in_order_within_two_lines_of_even_on_whole_lines() {
        let starts = [0, 4, 13, usize::MAX / 2, usize::MAX - 5000];
        for start in starts {
            for len in [2usize, 3, 31, 32, 33, 100, 192, 1000, 4094] {
                for count in 2..=9usize.min(len) {
                    for line in [1usize, 8, 16] {
                        let line = if len / count >= 2 * line { line } else { 1 };
                        let Some(end) = start.checked_add(len) else { continue };
                        let bands = cuts(start..end, count, line);
                        assert_eq!(bands.len(), count);
                        assert_eq!((bands[0].start, bands[count - 1].end), (start, end));
                        for w in bands.windows(2) {
                            assert_eq!(w[0].end, w[1].start, "{start} {len} {count} {line}");
                            assert_eq!((w[0].end - start) % line, 0, "{start} {len} {count} {line}");
                        }
                        let widths: Vec<usize> = bands.iter().map(|b| b.len()).collect();
                        let (min, max) = (*widths.iter().min().unwrap(), *widths.iter().max().unwrap());
                        assert!(
                            min >= 1 && max - min <= if line == 1 { 1 } else { 2 * line },
                            "{start} {len} {count} {line}: {widths:?}"
                        );
                    }
                }
            }
        }
    }
}
