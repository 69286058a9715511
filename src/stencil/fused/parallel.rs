//! The fused sweeps on rayon's threads: one slab of the grid per thread, or a pipeline of sweep
//! groups along one wavefront.

use core::ops::Range;
use core::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use super::linear_steps::LinearSweep;
use super::schedule::Schedule;
use super::{run_steps, Plan, Sweep};
use crate::element::{Numeric, Pod};
use crate::error::{or_panic, Error, Result};
use crate::kernel::{CopyKernels, Cpu};
use crate::stencil::{Boundaries, Boundary, DoubleBuffer, LinearStencil};

impl<T: Numeric + Send + Sync, const N: usize, const R: usize, const K: usize> LinearStencil<T, N, R, K> {
    /// [`LinearStencil::apply_steps`] on rayon's threads, as many as its pool has. Where each
    /// thread's share of a hyperplane is large (grids of 3 axes or more, each thread's band of a
    /// hyperplane at least 8192 points: 3D planes of about 130^2 points on two threads), the threads
    /// share one wavefront, each computing its band of axis 1 of every hyperplane. Otherwise,
    /// where each thread gets at least 4 units of axis 0 (hyperplanes, or the blocks of them
    /// computed per call) per sweep and unit of the lag, each runs
    /// the whole wavefront on its own slab of axis 0, and one pass after they join computes the
    /// few hyperplanes near the cuts between slabs; otherwise (at most one thread per sweep) the
    /// sweeps are dealt out in contiguous groups, and the threads run one wavefront as a
    /// pipeline, each a few hyperplanes behind the one computing the sweep before its first. The
    /// result is the same, bit for bit. `CNDA_FUSED_THREADS=bands` or `slabs` in the
    /// environment chooses bands wherever axis 1 has a point per thread, or never.
    ///
    /// # Panics
    ///
    /// As [`LinearStencil::try_par_apply_steps`] errs. A panic of a thread (an integer overflow
    /// in a debug build) stops every thread before it writes anything another may still access,
    /// and is resumed on the caller's thread with its own message; the fields then hold a mix of
    /// sweeps.
    #[track_caller]
    pub fn par_apply_steps(&self, field: &mut DoubleBuffer<T, N>, steps: usize) {
        or_panic(self.try_par_apply_steps(field, steps))
    }

    /// [`LinearStencil::par_apply_steps`], returning errors.
    ///
    /// # Errors
    ///
    /// `Error::ShapeMismatch` when the fields' shapes differ; `Error::Decomposition` when
    /// `steps` is so large that the wavefront's step count overflows `usize` (see
    /// [`LinearStencil::try_apply_steps`]).
    pub fn try_par_apply_steps(&self, field: &mut DoubleBuffer<T, N>, steps: usize) -> Result<()> {
        self.try_par_apply_steps_with(field, steps, Boundaries::all(Boundary::Fixed))
    }

    /// [`LinearStencil::apply_steps_with`] (any boundaries) on rayon's threads, as
    /// [`LinearStencil::par_apply_steps`]; the same result, bit for bit.
    ///
    /// # Panics
    ///
    /// As [`LinearStencil::try_par_apply_steps_with`] errs, and as
    /// [`LinearStencil::par_apply_steps`] for a panicking thread.
    #[track_caller]
    pub fn par_apply_steps_with(
        &self,
        field: &mut DoubleBuffer<T, N>,
        steps: usize,
        boundaries: impl Into<Boundaries<T, N>>,
    ) {
        or_panic(self.try_par_apply_steps_with(field, steps, boundaries))
    }

    /// [`LinearStencil::par_apply_steps_with`], returning errors.
    ///
    /// # Errors
    ///
    /// As [`LinearStencil::try_par_apply_steps`].
    pub fn try_par_apply_steps_with(
        &self,
        field: &mut DoubleBuffer<T, N>,
        steps: usize,
        boundaries: impl Into<Boundaries<T, N>>,
    ) -> Result<()> {
        let sweep = LinearSweep { taps: self.taps(), radius: R };
        // SAFETY: `run_steps` hands over the plan of two distinct fields, borrowed uniquely.
        run_steps("LinearStencil::par_apply_steps", &sweep, field, steps, &[boundaries.into()], None, |plan| unsafe {
            run_parallel(plan)
        })
    }
}

/// A plan handed to the threads; `run_slabs`, `pipeline` and `bands::run_bands` argue why their
/// accesses do not race.
pub(super) struct SharedPlan<'p, 's, T: Pod, const N: usize, S>(pub(super) &'p Plan<'s, Cpu, T, N, S>);

// SAFETY: a plan is descriptors (pointers, shapes, strides), a sweep (taps, or coefficient fields
// that no thread writes, and parameters), a schedule and the points' plan (nodes, amplitudes read
// only, and a staging array whose slots each one hyperplane's computation writes); the threads'
// accesses through it follow the order `run_parallel` documents, and the points' work on a
// hyperplane touches only that hyperplane and its own slots (`points.rs`).
unsafe impl<T: Pod + Send + Sync, const N: usize, S> Sync for SharedPlan<'_, '_, T, N, S> {}

/// Raises the threads' `stopped` flag when a thread leaves before finishing its sweeps (an
/// error, or a panic unwinding), so that the threads waiting on it stop instead of computing from
/// sweeps that will never come.
struct StopOnDrop<'a> {
    stopped: &'a AtomicBool,
    finished: bool,
}

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        if !self.finished {
            self.stopped.store(true, Ordering::Release);
        }
    }
}

/// Waits until `progress` exceeds `needed` (`true`), or until a thread of the pipeline or of
/// the bands has stopped early (`false`: the caller must stop without touching the fields, since
/// the work it needs will never be published and other threads may still be writing).
pub(super) fn wait_past(progress: &AtomicUsize, needed: usize, stopped: &AtomicBool) -> bool {
    let mut spins = 0u32;
    loop {
        // Progress first: a value published by the predecessor is a real order, whatever happened
        // elsewhere since.
        if progress.load(Ordering::Acquire) > needed {
            return true;
        }
        if stopped.load(Ordering::Acquire) {
            return false;
        }
        if spins < 1 << 12 {
            core::hint::spin_loop();
            spins += 1;
        } else {
            std::thread::yield_now();
        }
    }
}

/// The sweeps `1..=steps` dealt out to `threads <= steps` threads in contiguous, non-empty
/// groups. The first thread also streams the grid from memory (its first sweep reads hyperplanes
/// no other sweep has brought into the caches), which costs about one sweep more: so the
/// `steps + 1` units of work, that stream and the sweeps, are dealt out evenly (sizes differing
/// by at most one), and the first group is one sweep smaller (8 sweeps on 2 threads: 3 and 5,
/// measured 1.15x faster than 4 and 4 on 4096^2 grids). The arithmetic is done in `u128`, so
/// `p * (steps + 1)` cannot overflow whatever the step count; `steps < usize::MAX` (the plan
/// refuses more), so `1 + steps` fits.
fn groups(steps: usize, threads: usize) -> Vec<Range<usize>> {
    debug_assert!(1 <= threads && threads <= steps, "{threads} threads for {steps} sweeps");
    let first = |p: usize| match p {
        0 => 1,
        p if p == threads => steps + 1,
        // At least one sweep for each group before and after.
        p => ((p as u128 * (steps as u128 + 1) / threads as u128) as usize).clamp(1 + p, steps + 1 - (threads - p)),
    };
    (0..threads).map(|p| first(p)..first(p + 1)).collect()
}

/// The fused sweeps on several threads; see [`LinearStencil::par_apply_steps`]. Three ways, the
/// same result bit for bit:
///
/// - **Bands** (where each thread's band computes enough of a unit, [`super::bands::bands`]):
///   the threads share one wavefront, each computing its band of axis 1 of every unit, see
///   [`super::bands::run_bands`]. One window in the shared cache, not one per slab, and no seam
///   pass on one thread: measured 1.06-1.10x faster than slabs for the 3D acoustic wave on 200^3 on
///   two threads (docs/BENCHMARKS.md).
/// - **Slabs** (when each of rayon's threads gets a slab of at least 4 units of axis 0,
///   hyperplanes or blocks of them, per sweep and unit of the lag, as `Schedule::slabs` decides): each thread runs the
///   whole wavefront on its own slab, cut where slabs meet, and streams its own part of the grid;
///   the threads never wait on each other, and after they join one seam pass computes what the
///   cuts left (see `schedule`). No waiting and no hand-off between cores: measured 1.04-1.14x
///   faster than the pipeline for 8 sweeps of 4096^2 and 1024^2 grids on two threads
///   (docs/BENCHMARKS.md).
/// - **A pipeline** otherwise (few hyperplanes for many sweeps): the sweeps are dealt out in
///   contiguous groups along one wavefront, see [`pipeline`].
///
/// # Safety
///
/// As for `Plan::run_sequential`.
pub(in crate::stencil) unsafe fn run_parallel<T: Pod + Send + Sync, const N: usize, S: Sweep<Cpu, T, N>>(
    plan: &Plan<'_, Cpu, T, N, S>,
) -> Result<()>
where
    Cpu: CopyKernels,
{
    let schedule = plan.schedule();
    let threads = rayon::current_num_threads().max(1);
    let split = split(plan.op)?;
    if split != Split::Slabs {
        if let Some(bands) = super::bands::bands(plan, threads, split == Split::Bands) {
            // SAFETY: the caller's contract; the bands cut the interior of axis 1.
            return unsafe { super::bands::run_bands(plan, &bands) };
        }
    }
    if let Some(slabs) = schedule.slabs(threads) {
        // SAFETY: the caller's contract.
        return unsafe { run_slabs(plan, &slabs) };
    }
    let threads = threads.min(schedule.sweeps());
    if threads == 1 {
        // SAFETY: the caller's contract.
        return unsafe { plan.run_sequential() };
    }
    // SAFETY: the caller's contract.
    unsafe { pipeline(plan, threads) }
}

/// How a fused pass is shared among threads, as `CNDA_FUSED_THREADS` sets it (read once).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Split {
    /// Bands where each computes enough of a unit, else slabs or the pipeline (unset, `auto`).
    Auto,
    /// Bands wherever axis 1 has a point for each thread (`bands`).
    Bands,
    /// Slabs, or the pipeline where slabs would be too thin; never bands (`slabs`).
    Slabs,
}

/// [`Split`] as `CNDA_FUSED_THREADS` sets it.
///
/// # Errors
///
/// `Error::Decomposition` for any other value (a typo must not silently keep the default).
fn split(op: &'static str) -> Result<Split> {
    static SETTING: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    let text = SETTING.get_or_init(|| std::env::var("CNDA_FUSED_THREADS").ok());
    parse_split(op, text.as_deref())
}

fn parse_split(op: &'static str, text: Option<&str>) -> Result<Split> {
    let Some(text) = text else { return Ok(Split::Auto) };
    match text.trim().to_ascii_lowercase().as_str() {
        "auto" => Ok(Split::Auto),
        "bands" => Ok(Split::Bands),
        "slabs" => Ok(Split::Slabs),
        _ => Err(Error::Decomposition {
            op,
            reason: format!(
                "CNDA_FUSED_THREADS is {text:?}, not auto, bands or slabs (how the threads of a fused \
                 pass share it: bands of axis 1 of one wavefront, or slabs of axis 0 each with its own)"
            ),
            fix: "set it to auto, bands or slabs, or unset it to let the stepper choose",
        }),
    }
}

/// Every sweep on `slabs.len()` threads, thread `p` on the wavefront of `slabs[p]`, then the
/// seam pass, one task per cut on threads of their own.
///
/// Why the threads do not race: on its wavefront, a slab's sweep `t` writes only its own
/// hyperplanes (with their halos along the other axes, and, at an end of the grid that is not
/// cut, the mirrored halo there, which only that slab reads), and reads the hyperplanes of
/// sweeps before it (the `L` levels, back `L S` sweeps for `S` stages) within `R` of them. Where those lie in the next
/// slab, `t` is 1 (every later sweep stops `(t - 1) R` short of a cut) and they hold the initial
/// levels (or are the separate source), which no thread writes before the join: the next slab
/// overwrites an initial level's array only from sweep 2 on, and only from `R` past the cut. So no hyperplane that one thread writes is accessed by another before they
/// join (checked against a model for every small case in `schedule`'s tests). The halos are
/// filled before the threads start (`prepare`); after that a thread writes only those of its
/// own hyperplanes (along the other axes), and the mirrored halo of axis 0 next to its slab when
/// it is the first or the last, which no other slab reads. The seam tasks likewise touch
/// disjoint hyperplanes, near their own cuts (`schedule::seams`), and the wrap-around's task
/// alone refills the halo of a periodic axis 0.
///
/// # Safety
///
/// As for `Plan::run_sequential`; `slabs` cut the plan's schedule (`Schedule::slabs`).
unsafe fn run_slabs<T: Pod + Send + Sync, const N: usize, S: Sweep<Cpu, T, N>>(
    plan: &Plan<'_, Cpu, T, N, S>,
    slabs: &[Schedule],
) -> Result<()>
where
    Cpu: CopyKernels,
{
    // SAFETY: the caller's contract; no thread runs yet.
    unsafe { plan.prepare() }?;
    let shared = &SharedPlan(plan);
    let all = 1..plan.schedule().sweeps() + 1;
    // `move`: the closure holds the `Sync` wrapper, not the plan inside it.
    on_threads(slabs.len(), move |p, stopped| {
        let slab = &slabs[p];
        for s in slab.steps() {
            if stopped.load(Ordering::Relaxed) {
                return Ok(()); // another thread failed: the call's result is its failure
            }
            for (t, i) in slab.at_step(s, all.clone()) {
                // SAFETY: the wavefront's order within the slab (as in `run_sequential`), and no
                // hyperplane this thread writes is accessed by another (see above); the fields
                // are the caller's, borrowed uniquely for the call.
                unsafe { shared.0.compute(t, i) }?;
            }
        }
        Ok(())
    })?;
    // The seam pass, one task per cut on threads of its own: the tasks touch disjoint
    // hyperplanes (`schedule::seams`, for slabs as tall as `Schedule::slabs` makes them).
    debug_assert!(super::schedule::independent(slabs), "slabs too short for independent seams");
    let seams = super::schedule::seams(slabs);
    match seams.as_slice() {
        // SAFETY: every thread has joined; the slabs' wavefronts are complete.
        [one] => unsafe { plan.seam(slabs, one) },
        _ => on_threads(seams.len(), move |k, _| {
            // SAFETY: the slabs' wavefronts are complete (their threads have joined), and no
            // other task accesses the hyperplanes near this one's cut.
            unsafe { shared.0.seam(slabs, &seams[k]) }
        }),
    }
}

/// Runs `body(p, stopped)` for `p` in `0..count`, each on its own scoped thread. A thread that
/// leaves early (an error, or a panic unwinding) raises `stopped` for the others to see. Every
/// thread is joined; the first panic (in thread order) is then resumed on the caller's thread
/// with its own payload and message, or the first error returned.
pub(super) fn on_threads(count: usize, body: impl Fn(usize, &AtomicBool) -> Result<()> + Sync) -> Result<()> {
    let stopped = AtomicBool::new(false);
    let failed = std::sync::Mutex::new(None::<Error>);
    let panic = std::thread::scope(|scope| {
        // A thread that cannot be started (`spawn` panics) must not leave the started ones
        // waiting for it: the guard raises `stopped` as the panic leaves this loop.
        let mut starting = StopOnDrop { stopped: &stopped, finished: false };
        let handles: Vec<_> = (0..count)
            .map(|p| {
                let (body, stopped, failed) = (&body, &stopped, &failed);
                scope.spawn(move || {
                    let mut guard = StopOnDrop { stopped, finished: false };
                    if let Err(e) = body(p, stopped) {
                        failed.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert(e);
                        return; // `guard` stops the other threads
                    }
                    guard.finished = true;
                })
            })
            .collect();
        starting.finished = true;
        // Joined here, not by the scope, which would replace a panic's payload by its own message.
        let joined: Vec<_> = handles.into_iter().map(|h| h.join()).collect();
        joined.into_iter().find_map(|r| r.err())
    });
    if let Some(payload) = panic {
        std::panic::resume_unwind(payload);
    }
    match failed.into_inner().unwrap_or_else(|e| e.into_inner()) {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// The sweeps on `2 <= threads <= steps` threads as a pipeline along one wavefront.
///
/// Thread `p` computes the sweeps `groups[p]` on the sequential wavefront. Before computing a
/// hyperplane `i` of its first sweep `t` it waits until thread `p - 1` has published sweep
/// `t - 1` up to hyperplane `i + lag` (its `progress`, stored with `Release` after the writes and
/// loaded with `Acquire`). That is the sequential order's dependency, and it also orders every
/// overwrite after its last reader: sweep `t` at `i` overwrites an array whose readers (earlier
/// sweeps, up to `i + R`; with stages the last is `t - S`) are done: sweep `t - 1` up to `i + R` by the
/// wait, and each older sweep `t - l` up to `i + l R` by the waits its own successors made; a
/// thread never waits on a later one. Each
/// group runs on its own scoped thread, so every waiter's predecessor is running. The halos
/// (`prepare`) are refreshed before the threads start and the seam pass (`finish`) runs after
/// they have all joined.
///
/// **Failure.** A thread that stops early (a kernel error, or a panic such as an integer
/// overflow in a debug build) raises `stopped`. A waiting thread then stops without computing
/// anything more: released without its predecessor's progress it would overwrite hyperplanes that
/// earlier threads, still running, have yet to write or read. Only a published progress lets a
/// thread go on, so every access that happens keeps the order above.
///
/// # Safety
///
/// As for `Plan::run_sequential`.
unsafe fn pipeline<T: Pod + Send + Sync, const N: usize, S: Sweep<Cpu, T, N>>(
    plan: &Plan<'_, Cpu, T, N, S>,
    threads: usize,
) -> Result<()>
where
    Cpu: CopyKernels,
{
    let schedule = plan.schedule();
    // SAFETY: the caller's contract; no thread runs yet.
    unsafe { plan.prepare() }?;
    let groups = groups(schedule.sweeps(), threads);
    let progress: &[AtomicUsize] = &(0..threads).map(|_| AtomicUsize::new(0)).collect::<Vec<_>>();
    let (shared, groups) = (&SharedPlan(plan), &groups);
    // `move`: the closure holds the `Sync` wrapper, not the plan inside it.
    on_threads(threads, move |p, stopped| {
        let levels = groups[p].clone();
        for s in schedule.steps() {
            if stopped.load(Ordering::Relaxed) {
                return Ok(()); // another thread failed: the call's result is its failure
            }
            for (t, i) in schedule.at_step(s, levels.clone()) {
                if p > 0 && t == levels.start {
                    // `t - 1` computes these hyperplanes, which contain `i`'s neighbours.
                    let before = schedule.wavefront_rows(t - 1);
                    let needed = (i + schedule.lag()).min(before.end - 1);
                    if !wait_past(&progress[p - 1], needed, stopped) {
                        return Ok(());
                    }
                }
                // SAFETY: as in `run_sequential`, with the cross-thread order above (a published
                // progress, never a failure, let this thread past the wait): sweep `t - 1` is
                // complete up to unit `i + lag` (and the older sweeps further), and no thread
                // reads the unit of the arrays this overwrites any more; the arrays are the
                // caller's, borrowed uniquely for the call.
                unsafe { shared.0.compute(t, i) }?;
                if t + 1 == levels.end {
                    progress[p].store(i + 1, Ordering::Release);
                }
            }
        }
        // Every sweep of the group is written: nothing left to wait for.
        progress[p].store(usize::MAX, Ordering::Release);
        Ok(())
    })?;
    // SAFETY: every thread has joined; the wavefront is complete.
    unsafe { plan.finish(core::slice::from_ref(schedule)) }
}

#[cfg(test)]
mod tests {
    use super::{groups, parse_split, Split};

    #[test]
    fn the_thread_setting_is_auto_bands_slabs_or_an_error() {
        assert_eq!(parse_split("op", None).unwrap(), Split::Auto);
        assert_eq!(parse_split("op", Some(" Bands ")).unwrap(), Split::Bands);
        assert_eq!(parse_split("op", Some("slabs")).unwrap(), Split::Slabs);
        assert_eq!(parse_split("op", Some("auto")).unwrap(), Split::Auto);
        let message = parse_split("op", Some("band")).unwrap_err().to_string();
        assert!(message.contains("CNDA_FUSED_THREADS") && message.contains("\"band\""), "{message}");
    }

    #[test]
    fn groups_cover_every_sweep_once_even_near_usize_max_the_first_one_sweep_lighter() {
        for steps in [1, 2, 7, 64, 1000, usize::MAX / 3, usize::MAX - 2, usize::MAX - 1] {
            for threads in 1..=9usize.min(steps) {
                let g = groups(steps, threads);
                assert_eq!(g.len(), threads);
                assert_eq!((g[0].start, g[threads - 1].end), (1, steps + 1), "{steps} {threads}");
                for w in g.windows(2) {
                    assert_eq!(w[0].end, w[1].start);
                }
                // The units of work: the first group's sweeps and its stream from memory.
                let units: Vec<usize> = g.iter().enumerate().map(|(p, r)| r.len() + usize::from(p == 0)).collect();
                let (min, max) = (units.iter().min().unwrap(), units.iter().max().unwrap());
                assert!(g.iter().all(|r| !r.is_empty()), "{steps} {threads}: {g:?}");
                assert!(max - min <= 1, "{steps} {threads}: {g:?}");
            }
        }
    }
}
