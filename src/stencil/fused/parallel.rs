//! The fused sweeps on rayon's threads: a pipeline of sweep groups along one wavefront.

use core::sync::atomic::{AtomicUsize, Ordering};

use super::{Boundary, Plan};
use crate::backend::Cpu;
use crate::element::Numeric;
use crate::error::{or_panic, Error, Result};
use crate::stencil::{DoubleBuffer, LinearStencil};

impl<T: Numeric + Send + Sync, const N: usize, const R: usize, const K: usize> LinearStencil<T, N, R, K> {
    /// [`LinearStencil::apply_steps`] on rayon's threads (as many as its pool has, at most one
    /// per sweep): the sweeps are dealt out in contiguous groups, one per thread, and the threads
    /// run the same wavefront as a pipeline, each a few hyperplanes behind the one computing the
    /// sweep before its first. The result is the same, bit for bit.
    ///
    /// # Panics
    ///
    /// Never for a `DoubleBuffer`; see [`LinearStencil::try_par_apply_steps`].
    #[track_caller]
    pub fn par_apply_steps(&self, field: &mut DoubleBuffer<T, N>, steps: usize) {
        or_panic(self.try_par_apply_steps(field, steps))
    }

    /// [`LinearStencil::par_apply_steps`], returning errors.
    ///
    /// # Errors
    ///
    /// `Error::ShapeMismatch` when the fields' shapes differ.
    pub fn try_par_apply_steps(&self, field: &mut DoubleBuffer<T, N>, steps: usize) -> Result<()> {
        self.try_par_apply_steps_with(field, steps, [Boundary::Fixed; N])
    }

    /// [`LinearStencil::apply_steps_with`] (fixed or periodic axes) on rayon's threads, as
    /// [`LinearStencil::par_apply_steps`]; the same result, bit for bit.
    ///
    /// # Panics
    ///
    /// Never for a `DoubleBuffer`; see [`LinearStencil::try_par_apply_steps_with`].
    #[track_caller]
    pub fn par_apply_steps_with(&self, field: &mut DoubleBuffer<T, N>, steps: usize, boundaries: [Boundary; N]) {
        or_panic(self.try_par_apply_steps_with(field, steps, boundaries))
    }

    /// [`LinearStencil::par_apply_steps_with`], returning errors.
    ///
    /// # Errors
    ///
    /// `Error::ShapeMismatch` when the fields' shapes differ.
    pub fn try_par_apply_steps_with(
        &self,
        field: &mut DoubleBuffer<T, N>,
        steps: usize,
        boundaries: [Boundary; N],
    ) -> Result<()> {
        // SAFETY: `run_fused` hands over the plan of two distinct fields, borrowed uniquely.
        self.run_fused(field, steps, boundaries, |plan| unsafe { run_parallel(plan) })
    }
}

/// A plan handed to the pipeline's threads; `run_parallel` argues why their accesses do not race.
struct SharedPlan<'p, 't, T: Numeric, const N: usize, const R: usize, const K: usize>(&'p Plan<'t, Cpu, T, N, R, K>);

// SAFETY: a plan is descriptors (pointers, shapes, strides), taps and a schedule; the threads'
// accesses through it follow the order `run_parallel` documents.
unsafe impl<T: Numeric + Send + Sync, const N: usize, const R: usize, const K: usize> Sync
    for SharedPlan<'_, '_, T, N, R, K>
{
}

/// Releases the successor of a thread that stops early (an error or a panic), so that it does
/// not wait forever; the call's result is then the error (or the panic).
struct ReleaseOnDrop<'a>(&'a AtomicUsize);

impl Drop for ReleaseOnDrop<'_> {
    fn drop(&mut self) {
        self.0.store(usize::MAX, Ordering::Release);
    }
}

/// Waits until `progress` exceeds `needed`.
fn wait_past(progress: &AtomicUsize, needed: usize) {
    let mut spins = 0u32;
    while progress.load(Ordering::Acquire) <= needed {
        if spins < 1 << 12 {
            core::hint::spin_loop();
            spins += 1;
        } else {
            std::thread::yield_now();
        }
    }
}

/// The fused sweeps on several threads; see [`LinearStencil::par_apply_steps`].
///
/// Thread `p` computes the sweeps `groups[p]` on the sequential wavefront. Before computing a
/// hyperplane `i` of its first sweep `t` it waits until thread `p - 1` has published sweep
/// `t - 1` up to hyperplane `i + lag` (its `progress`, stored with `Release` after the writes and
/// loaded with `Acquire`). That is the sequential order's dependency, and it also orders every
/// overwrite after its last reader: sweep `t` at `i` overwrites sweep `t - 2` at `i`, whose
/// readers (sweep `t - 1` up to `i + R`) are done; a thread never waits on a later one. Each
/// group runs on its own scoped thread, so every waiter's predecessor is running. The halos
/// (`prepare`) are refreshed before the threads start and the seam pass (`finish`) runs after
/// they have all joined.
///
/// # Safety
///
/// As for `Plan::run_sequential`.
unsafe fn run_parallel<T: Numeric + Send + Sync, const N: usize, const R: usize, const K: usize>(
    plan: &Plan<'_, Cpu, T, N, R, K>,
) -> Result<()> {
    let schedule = &plan.schedule;
    let steps = schedule.sweeps();
    let threads = rayon::current_num_threads().min(steps).max(1);
    if threads == 1 {
        // SAFETY: the caller's contract.
        return unsafe { plan.run_sequential() };
    }
    // SAFETY: the caller's contract; no thread runs yet.
    unsafe { plan.prepare() }?;
    // Contiguous groups of sweeps, sizes differing by at most one.
    let groups: Vec<core::ops::Range<usize>> =
        (0..threads).map(|p| 1 + p * steps / threads..1 + (p + 1) * steps / threads).collect();
    let progress: Vec<AtomicUsize> = (0..threads).map(|_| AtomicUsize::new(0)).collect();
    let shared = SharedPlan(plan);
    let failed = std::sync::Mutex::new(None::<Error>);
    std::thread::scope(|scope| {
        for (p, levels) in groups.iter().enumerate() {
            let (shared, progress, failed, levels) = (&shared, &progress, &failed, levels.clone());
            scope.spawn(move || {
                let release = ReleaseOnDrop(&progress[p]);
                let schedule = &shared.0.schedule;
                for s in schedule.steps() {
                    for (t, i) in schedule.at_step(s, levels.clone()) {
                        if p > 0 && t == levels.start {
                            // `t - 1` computes these hyperplanes, which contain `i`'s neighbours.
                            let before = schedule.wavefront_rows(t - 1);
                            wait_past(&progress[p - 1], (i + schedule.lag()).min(before.end - 1));
                        }
                        // SAFETY: as in `run_sequential`, with the cross-thread order above:
                        // sweep `t - 1` is complete up to `i + R`, and no thread reads the
                        // hyperplane of sweep `t - 2` this overwrites; the fields are the
                        // caller's, borrowed uniquely for the call.
                        if let Err(e) = unsafe { shared.0.compute(t, i) } {
                            *failed.lock().unwrap_or_else(|e| e.into_inner()) = Some(e);
                            return; // `release` lets the next thread finish
                        }
                        if t + 1 == levels.end {
                            progress[p].store(i + 1, Ordering::Release);
                        }
                    }
                }
                drop(release);
            });
        }
    });
    if let Some(e) = failed.into_inner().unwrap_or_else(|e| e.into_inner()) {
        return Err(e);
    }
    // SAFETY: every thread has joined; the wavefront is complete.
    unsafe { plan.finish() }
}
