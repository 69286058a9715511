//! Fused multi-sweep stencils: `k` sweeps of a [`LinearStencil`] over a [`DoubleBuffer`] in one
//! pass over memory, bit for bit equal to `k` separate sweeps (`apply` then `swap`, `k` times).
//!
//! One sweep over a grid larger than the caches is bound by memory bandwidth: every point is read
//! and written once per sweep. The fused form walks a **skewed wavefront** along the first axis:
//! at step `s` it computes hyperplane `s` of sweep 1, hyperplane `s - R` of sweep 2, ...,
//! hyperplane `s - (k - 1) R` of sweep `k`. Sweep `t` at hyperplane `i` reads sweep `t - 1` at
//! hyperplanes `i - R ..= i + R`, all computed earlier (the last one earlier in the same step), so
//! only about `(k + 1) R` hyperplanes of each field are in flight: they stay in the cache, and the
//! grid streams through memory once per `k` sweeps instead of once per sweep.
//!
//! Two fields suffice, as for separate sweeps: sweep `t` writes the field sweep `t - 2` wrote, and
//! overwrites hyperplane `i` of sweep `t - 2` only after every reader of it (sweep `t - 1` at
//! hyperplanes up to `i + R`) has run. Each hyperplane is computed by the backend's stencil kernel
//! with the same taps in the same order as a whole sweep, so the results are identical, not
//! merely close.

use super::buffer::DoubleBuffer;
use super::linear::{LinearStencil, StencilKernels};
use core::ops::{Range, RangeInclusive};

use super::sweep::interior_range;
use crate::backend::{Backend, Cpu};
use crate::element::Numeric;
use crate::error::{or_panic, Error, Result};
use crate::ops::desc::Desc;

impl<T: Numeric, const N: usize, const R: usize, const K: usize> LinearStencil<T, N, R, K> {
    /// `steps` sweeps over `field`, each reading the current field and writing the next one, then
    /// swapping them: the same result, bit for bit, as `steps` times
    /// `self.apply(current, next); field.swap()`, in one pass over memory (see the module
    /// documentation). The boundary (points within `R` of an edge) is never written, so each
    /// field keeps the boundary values it had.
    ///
    /// ```
    /// use cnda::prelude::*;
    /// use cnda::stencil::{DoubleBuffer, LinearStencil};
    ///
    /// let hot_top = |[i, _]: [usize; 2]| if i == 0 { 1.0 } else { 0.0 };
    /// let jacobi = LinearStencil::jacobi_5pt();
    /// let mut fused = DoubleBuffer::new(Array::from_fn([64, 64], hot_top));
    /// jacobi.apply_steps(&mut fused, 8);
    /// let mut one_by_one = DoubleBuffer::new(Array::from_fn([64, 64], hot_top));
    /// for _ in 0..8 {
    ///     let (u, v) = one_by_one.split();
    ///     jacobi.apply(u, v);
    ///     one_by_one.swap();
    /// }
    /// assert_eq!(fused.current(), one_by_one.current());
    /// ```
    ///
    /// # Panics
    ///
    /// Never for a `DoubleBuffer` (its fields share one shape); see
    /// [`LinearStencil::try_apply_steps`].
    #[track_caller]
    pub fn apply_steps(&self, field: &mut DoubleBuffer<T, N>, steps: usize) {
        or_panic(self.try_apply_steps(field, steps))
    }

    /// `steps` fused sweeps over `field`; see [`LinearStencil::apply_steps`].
    ///
    /// # Errors
    ///
    /// `Error::ShapeMismatch` when the fields' shapes differ; `Error::Device` from the kernel.
    pub fn try_apply_steps(&self, field: &mut DoubleBuffer<T, N>, steps: usize) -> Result<()> {
        let (a, b) = field.both_mut();
        let fields = [a.desc_mut(), b.desc_mut()];
        // SAFETY: the two fields are distinct owned arrays, borrowed uniquely for the call.
        unsafe { fused_sweeps::<Cpu, T, N, R, K>(self.taps(), fields, steps) }?;
        if steps % 2 == 1 {
            field.swap();
        }
        Ok(())
    }
}

/// Hyperplane `i` (of axis 0) of `d`'s interior for radius `R`.
fn hyperplane<B: Backend, T: Numeric, const N: usize, const R: usize>(d: Desc<B, T, N>, i: usize) -> Desc<B, T, N> {
    let ranges: [core::ops::Range<usize>; N] =
        core::array::from_fn(|k| if k == 0 { i..i + 1 } else { interior_range(d.shape[k], R) });
    let offset = (0..N).fold(0isize, |acc, k| acc + ranges[k].start as isize * d.strides[k]);
    Desc { handle: B::moved(d.handle, offset), shape: ranges.map(|r| r.len()), strides: d.strides }
}

/// The interior hyperplanes of the first axis, after checking that both fields have one shape and
/// one device; `None` when no sweep writes anything (no interior point, or no sweep).
///
/// # Errors
///
/// `Error::ShapeMismatch`, `Error::DeviceMismatch`.
fn interior_rows<B: Backend, T: Numeric, const N: usize, const R: usize>(
    fields: &[Desc<B, T, N>; 2],
    steps: usize,
) -> Result<Option<Range<usize>>> {
    let op = "LinearStencil::apply_steps";
    if fields[0].shape != fields[1].shape {
        return Err(Error::ShapeMismatch { op, expected: fields[0].shape.to_vec(), got: fields[1].shape.to_vec() });
    }
    let dev = B::handle_device(fields[0].handle);
    crate::ops::output::same_device::<B>(op, &dev, &[B::handle_device(fields[1].handle)])?;
    let shape = fields[0].shape;
    if N == 0 || steps == 0 || (0..N).any(|k| interior_range(shape[k], R).is_empty()) {
        return Ok(None);
    }
    Ok(Some(interior_range(shape[0], R)))
}

/// `steps` sweeps alternating between `fields[0]` (read first) and `fields[1]`, on the skewed
/// wavefront of the module documentation.
///
/// # Safety
///
/// The two fields are live, distinct, of one shape, and nothing else accesses them during the
/// call.
///
/// # Errors
///
/// `Error::ShapeMismatch` when the shapes differ; `Error::Device`.
unsafe fn fused_sweeps<B: StencilKernels, T: Numeric, const N: usize, const R: usize, const K: usize>(
    taps: &[([isize; N], T); K],
    fields: [Desc<B, T, N>; 2],
    steps: usize,
) -> Result<()> {
    let Some(rows) = interior_rows::<B, T, N, R>(&fields, steps)? else {
        return Ok(()); // no interior point: no sweep writes anything
    };
    let dev = B::handle_device(fields[0].handle);
    for s in wavefront_steps::<R>(rows.clone(), steps) {
        for (t, i) in hyperplanes_at_step::<R>(s, 1..steps + 1, rows.clone()) {
            let (src, dst) = (fields[(t - 1) % 2], fields[t % 2]);
            // SAFETY: hyperplane `i` is interior, so every tap of its points lies in `src`; `dst`
            // is the other field; the wavefront order has computed every hyperplane of sweep
            // `t - 1` this one reads, and no later computation reads the hyperplane of sweep
            // `t - 2` it overwrites (module documentation).
            unsafe { B::linear(&dev, hyperplane::<B, T, N, R>(dst, i), hyperplane::<B, T, N, R>(src, i), taps) }?;
        }
    }
    Ok(())
}

/// Hyperplanes of sweep `t` lag this many behind those of sweep `t - 1`: the radius (at least 1,
/// so radius-0 stencils keep one order too).
const fn lag(r: usize) -> usize {
    if r == 0 {
        1
    } else {
        r
    }
}

/// The wavefront steps for `steps` sweeps over the interior hyperplanes `rows` (non-empty).
fn wavefront_steps<const R: usize>(rows: Range<usize>, steps: usize) -> RangeInclusive<usize> {
    rows.start..=rows.end - 1 + (steps - 1) * lag(R)
}

/// The `(sweep, hyperplane)` pairs of the sweeps `levels` computed at wavefront step `s`, in
/// sweep order: sweep `t` is `(t - 1) lag(R)` hyperplanes behind sweep 1.
fn hyperplanes_at_step<const R: usize>(
    s: usize,
    levels: Range<usize>,
    rows: Range<usize>,
) -> impl Iterator<Item = (usize, usize)> {
    levels.filter_map(move |t| {
        let i = s.checked_sub((t - 1) * lag(R))?;
        rows.contains(&i).then_some((t, i))
    })
}

#[cfg(feature = "rayon")]
mod parallel {
    use core::sync::atomic::{AtomicUsize, Ordering};

    use super::{hyperplane, hyperplanes_at_step, interior_rows, lag, wavefront_steps};
    use crate::backend::Cpu;
    use crate::element::Numeric;
    use crate::error::{or_panic, Error, Result};
    use crate::ops::desc::{Desc, SharedDesc};
    use crate::stencil::{DoubleBuffer, LinearStencil, StencilKernels};

    impl<T: Numeric + Send + Sync, const N: usize, const R: usize, const K: usize> LinearStencil<T, N, R, K> {
        /// [`LinearStencil::apply_steps`] on rayon's threads (as many as its pool has, at most
        /// one per sweep): the sweeps are dealt out in contiguous groups, one per thread, and the
        /// threads run the same wavefront as a pipeline, each a few hyperplanes behind the one
        /// computing the sweep before its first. The result is the same, bit for bit.
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
            let (a, b) = field.both_mut();
            let fields = [a.desc_mut(), b.desc_mut()];
            // SAFETY: the two fields are distinct owned arrays, borrowed uniquely for the call.
            unsafe { par_fused_sweeps::<T, N, R, K>(self.taps(), fields, steps) }?;
            if steps % 2 == 1 {
                field.swap();
            }
            Ok(())
        }
    }

    /// Releases the successor of a thread that stops early (an error or a panic), so that it
    /// does not wait forever; the call's result is then the error (or the panic).
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
    /// `t - 1` up to hyperplane `i + lag` (its `progress`, stored with `Release` after the writes
    /// and loaded with `Acquire`). That is the sequential order's dependency, and it also orders
    /// every overwrite after its last reader: sweep `t` at `i` overwrites sweep `t - 2` at `i`,
    /// whose readers (sweep `t - 1` up to `i + R`) are done; a thread never waits on a later one.
    /// Each group runs on its own scoped thread, so every waiter's predecessor is running.
    ///
    /// # Safety
    ///
    /// As for `fused_sweeps`.
    unsafe fn par_fused_sweeps<T: Numeric + Send + Sync, const N: usize, const R: usize, const K: usize>(
        taps: &[([isize; N], T); K],
        fields: [Desc<Cpu, T, N>; 2],
        steps: usize,
    ) -> Result<()> {
        let threads = rayon::current_num_threads().min(steps).max(1);
        if threads == 1 {
            // SAFETY: the caller's contract.
            return unsafe { super::fused_sweeps::<Cpu, T, N, R, K>(taps, fields, steps) };
        }
        let Some(rows) = interior_rows::<Cpu, T, N, R>(&fields, steps)? else { return Ok(()) };
        // Contiguous groups of sweeps, sizes differing by at most one.
        let groups: Vec<core::ops::Range<usize>> =
            (0..threads).map(|p| 1 + p * steps / threads..1 + (p + 1) * steps / threads).collect();
        let progress: Vec<AtomicUsize> = (0..threads).map(|_| AtomicUsize::new(rows.start)).collect();
        let shared = [SharedDesc(fields[0]), SharedDesc(fields[1])];
        let failed = std::sync::Mutex::new(None::<Error>);
        std::thread::scope(|scope| {
            for (p, levels) in groups.iter().enumerate() {
                let (shared, progress, rows, failed) = (&shared, &progress, rows.clone(), &failed);
                let levels = levels.clone();
                scope.spawn(move || {
                    let release = ReleaseOnDrop(&progress[p]);
                    for s in wavefront_steps::<R>(rows.clone(), steps) {
                        for (t, i) in hyperplanes_at_step::<R>(s, levels.clone(), rows.clone()) {
                            if p > 0 && t == levels.start {
                                wait_past(&progress[p - 1], (i + lag(R)).min(rows.end - 1));
                            }
                            let (src, dst) = (shared[(t - 1) % 2].0, shared[t % 2].0);
                            // SAFETY: as in `fused_sweeps`, with the cross-thread order above:
                            // sweep `t - 1` is complete up to `i + R`, and no thread reads the
                            // hyperplane of sweep `t - 2` this overwrites; the fields are the
                            // caller's, borrowed uniquely for the call.
                            let done = unsafe {
                                Cpu::linear(
                                    &Cpu,
                                    hyperplane::<Cpu, T, N, R>(dst, i),
                                    hyperplane::<Cpu, T, N, R>(src, i),
                                    taps,
                                )
                            };
                            if let Err(e) = done {
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
        match failed.into_inner().unwrap_or_else(|e| e.into_inner()) {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}
