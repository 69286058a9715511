//! Regression tests for the fused sweeps' pipeline (issue 22, "Soundness II", item 3): each failed,
//! hung or raced on the main branch before the fix. `scripts/test` runs them in debug, in release,
//! and under ThreadSanitizer, which reports the write/write race the first test provoked.

#![cfg(feature = "rayon")]

use std::panic::{catch_unwind, AssertUnwindSafe};

use cnda::prelude::*;
use cnda::stencil::{DoubleBuffer, LinearStencil};

#[path = "common/pool_install.rs"]
mod pool_install;
use pool_install::install;

fn panic_message(f: impl FnOnce()) -> Option<String> {
    let err = catch_unwind(AssertUnwindSafe(f)).err()?;
    err.downcast_ref::<String>().cloned().or_else(|| err.downcast_ref::<&str>().map(|s| s.to_string()))
}

/// A rayon pool of `threads` threads: the fused pipeline runs one group of sweeps per thread of
/// the current pool, so this fixes the pipeline's length whatever the machine's core count.
fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("a rayon pool")
}

/// A field of `shape` `i32` whose sweeps with `f'(i, j) = f(i, j - 1) + f(i, j)` overflow for
/// the first time in sweep 2, on row 1 only: the current field is 0 except `M = i32::MAX` at
/// `(1, 1)`, and the scratch field is 0 except `M` in its boundary column at `(1, 0)`, which the
/// sweeps never write. Sweep 1 spreads `M` to `(1, 1..3)`, sweep 2 adds the scratch field's `M`
/// on its left: `M + M`. Every other row stays 0.
fn overflowing_in_sweep_two(shape: [usize; 2]) -> DoubleBuffer<i32, 2> {
    let mut field = DoubleBuffer::new(Array::from_fn(shape, |i| if i == [1, 1] { i32::MAX } else { 0 }));
    let (_, mut next) = field.split();
    next.fill(0);
    next[[1, 0]] = i32::MAX;
    field
}

#[test]
#[cfg_attr(not(debug_assertions), ignore = "integer overflow panics only with overflow checks (debug)")]
fn a_panicking_pipeline_thread_stops_every_thread_and_its_panic_reaches_the_caller() {
    // Before: four threads run sweeps 1, 2, 3 and 4. Thread 1 panics at row 1 of sweep 2; its
    // drop guard published "all done", so thread 2 swept the whole grid (sweep 3 reads the
    // current field, in which row 1 does not overflow) into the field thread 0 was still writing
    // sweep 1 into, with no order between them: a data race (ThreadSanitizer: write/write in
    // `Cpu::linear`). And the caller saw std's "a scoped thread panicked", not the overflow.
    let shift_add = LinearStencil::<i32, 2, 1, 2>::new([([0, -1], 1), ([0, 0], 1)]);
    // 200 rows for 4 sweeps on 4 threads: too few for slabs (64 rows each), so a pipeline; 8192
    // rows: slabs, where the panicking thread is the first one's and the others run on.
    for shape in [[200, 8192], [8192, 256]] {
        for _ in 0..12 {
            // Large enough that thread 0 is usually still sweeping when thread 1 panics, and
            // repeated: ThreadSanitizer sees the race only when thread 1 last synchronized with
            // thread 0 before thread 0 finished (on main it reported it within 20 tries here; the
            // message check fails on main every time).
            let mut field = overflowing_in_sweep_two(shape);
            let msg = panic_message(|| install(&pool(4), || shift_add.par_apply_steps(&mut field, 4)))
                .expect("sweep 2 overflows, so the call must panic");
            assert!(msg.contains("overflow"), "the caller must see the thread's own panic, got {msg:?}");
        }
    }
}

/// As [`overflowing_in_sweep_two`] in 3D, on row `row` of hyperplane 1: planes of `130 x 130`
/// points, whose 128 interior rows two threads share in bands of 64 (`fused/bands.rs`).
fn overflowing_in_band(row: usize) -> DoubleBuffer<i32, 3> {
    let mut field = DoubleBuffer::new(Array::from_fn([6, 130, 130], |i| if i == [1, row, 1] { i32::MAX } else { 0 }));
    let (_, mut next) = field.split();
    next.fill(0);
    next[[1, row, 0]] = i32::MAX;
    field
}

#[test]
#[cfg_attr(not(debug_assertions), ignore = "integer overflow panics only with overflow checks (debug)")]
fn a_panic_in_either_band_stops_both_threads_and_reaches_the_caller() {
    // Row 10 lies in the first thread's band (the one that completes each unit after waiting
    // for the other), row 100 in the second's (the first then waits on a thread that is gone).
    let shift_add = LinearStencil::<i32, 3, 1, 2>::new([([0, 0, -1], 1), ([0, 0, 0], 1)]);
    for row in [10, 100] {
        for _ in 0..4 {
            let mut field = overflowing_in_band(row);
            let msg = panic_message(|| install(&pool(2), || shift_add.par_apply_steps(&mut field, 4)))
                .expect("sweep 2 overflows, so the call must panic");
            assert!(msg.contains("overflow"), "row {row}: the caller must see the thread's own panic, got {msg:?}");
        }
    }
}

#[test]
#[cfg_attr(not(debug_assertions), ignore = "integer overflow panics only with overflow checks (debug)")]
fn a_panic_in_a_sequential_fused_call_reaches_the_caller() {
    let shift_add = LinearStencil::<i32, 2, 1, 2>::new([([0, -1], 1), ([0, 0], 1)]);
    let mut field = overflowing_in_sweep_two([16, 8]);
    let msg = panic_message(|| shift_add.apply_steps(&mut field, 4)).expect("sweep 2 overflows");
    assert!(msg.contains("overflow"), "{msg:?}");
}

#[test]
fn huge_step_counts_are_refused_with_an_error_not_an_overflow_or_a_hang() {
    // Before: `p * steps / threads` overflowed (a panic in debug, wrapped groups in release), and
    // the sequential wavefront counted its steps with saturating arithmetic up to usize::MAX: a
    // hang, with a wrong result had it ever ended.
    let jacobi = LinearStencil::jacobi_5pt();
    // 9 rows: the interior along axis 0 ends at 8, so the wavefront of `s` sweeps ends past
    // `s + 8`, which overflows from `usize::MAX - 7` sweeps on.
    let initial = Array::from_fn([9, 7], |[i, j]| (i * 7 + j) as f64);
    for steps in [usize::MAX, usize::MAX - 1, usize::MAX - 7, usize::MAX / 2 * 2] {
        let mut field = DoubleBuffer::new(initial.clone());
        let err = install(&pool(4), || jacobi.try_par_apply_steps(&mut field, steps)).expect_err("refused");
        assert!(matches!(err, Error::Decomposition { .. }), "{err:?}");
        let msg = err.to_string();
        assert!(msg.contains(&steps.to_string()) && msg.contains("usize::MAX"), "{msg}");
        assert!(msg.contains("fewer sweeps"), "the message says how to fix it: {msg}");
        assert_eq!(field.current(), &initial, "a refused call writes nothing");
        let err = jacobi.try_apply_steps(&mut field, steps).expect_err("refused sequentially too");
        assert!(matches!(err, Error::Decomposition { .. }), "{err:?}");
        let msg = panic_message(|| install(&pool(3), || jacobi.par_apply_steps(&mut field, steps)));
        assert!(msg.is_some_and(|m| m.contains("usize::MAX")), "the plain form panics with the message");
    }
    // A radius-2 stencil's wavefront moves two hyperplanes per sweep: half as many sweeps fit.
    let wide = LinearStencil::<f64, 2, 2, 2>::new([([-2, 0], 0.5), ([2, 0], 0.5)]);
    let mut field = DoubleBuffer::new(initial.clone());
    assert!(wide.try_par_apply_steps(&mut field, usize::MAX / 2 + 1).is_err());
    // Nothing to sweep (no interior point) is no work, whatever the count: done at once.
    let mut flat = DoubleBuffer::new(Array::<f64, 2>::zeros([2, 7]));
    assert_eq!(install(&pool(4), || jacobi.try_par_apply_steps(&mut flat, usize::MAX)), Ok(()));
}
