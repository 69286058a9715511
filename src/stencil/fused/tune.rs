//! The fused pass depth, measured at run time on the passes themselves, once per kind of call
//! ([`Key`]: the operation, the sweep's type and radius, the grid and its blocks, the element,
//! the fields and stages, the depths to start at and to try up to, the threads).
//!
//! The sweeps come out the same bit for bit whatever the depth (`mod.rs`), so the search costs no
//! extra work: each pass of a call is real work, run at a depth still to be tried and timed, until
//! the best is known. The first pass of a kind runs at the cache rule's depth and its time is
//! not kept (it pays for first touches and cold caches). Then the depths 1, 2, 3, 4, 6, 8, 12,
//! 16, ... (each at most the deepest worth trying, `depth.rs`) are timed in turn, one pass each,
//! up to the second depth in a row more than 10% slower than the best before it or the end of the
//! ladder; then each depth of that climb is timed once more, in the same order, and the faster
//! time per step of its two kept. The second look comes later in time than the first: a burst of
//! another process's work on a shared machine slows the timings close together, so it would
//! weigh on both timings of a depth taken in a row (it once made the search keep 2 steps a pass
//! where 4 ran 1.1x faster), but on one of a depth's two timings here. Every later pass of that
//! kind runs at the best. A call with fewer steps left than the next depth to time runs them at
//! the best depth so far (the rule's before any), untimed, and leaves the search to later calls.
//!
//! Each thread keeps its own searches (a thread-local table): calls of one kind on several
//! threads at once never wait on each other, and each thread times its own passes. One timed
//! pass of a kind is out at a time; a pass that fails (or panics) counts for nothing, and its
//! depth is handed out again.
//!
//! Two timings per depth on a shared machine can still pick a depth a little off the best; that
//! costs speed only. `CNDA_FUSED_DEPTH` (a fixed depth) and `CNDA_FUSED_TUNE=off` (the rule's) keep
//! timing out of a run; `CNDA_FUSED_TUNE=show` writes each finished search's timings and choice to
//! standard error.

use std::cell::RefCell;
use std::collections::HashMap;
use std::time::{Duration, Instant};

use smallvec::SmallVec;

/// What the timings of one kind of call are kept under.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) struct Key {
    pub(super) op: &'static str,
    /// The sweep's type name: which kind of stencil (a run-time stencil's taps are not in it;
    /// its radius is).
    pub(super) sweep: &'static str,
    pub(super) radius: SmallVec<[usize; 4]>,
    pub(super) shape: SmallVec<[usize; 4]>,
    /// The hyperplanes per call (one on a periodic axis 0).
    pub(super) block: usize,
    pub(super) element: usize,
    pub(super) fields: usize,
    pub(super) stages: usize,
    /// The depth to start at and the deepest worth trying (fewer when receivers are sampled).
    pub(super) depths: (usize, usize),
    pub(super) threads: usize,
}

/// Each depth is timed this many times (once on the climb, then in rounds over the depths the
/// climb timed), and its fastest time kept: one timing on a shared machine picked 1 sweep a pass
/// where 2 ran 1.15x faster.
const TIMINGS: usize = 2;

/// A slower depth counts as worse past this ratio to the best.
const WORSE: f64 = 1.1;

/// The search stops after this many worse depths in a row.
const WORSE_IN_A_ROW: usize = 2;

/// The next depth of the ladder 1, 2, 3, 4, 6, 8, 12, 16, ... after `depth` (`None` past
/// `usize::MAX`).
fn after(depth: usize) -> Option<usize> {
    if depth == 0 {
        return Some(1);
    }
    // The ladder holds the powers of two and three times them; the next above `depth` is the
    // smaller of the next of each kind.
    let two = depth.checked_add(1)?.checked_next_power_of_two();
    let three = (depth / 3 + 1).checked_next_power_of_two().and_then(|p| p.checked_mul(3));
    match (two, three) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// The search of one kind of call: depths in steps per pass.
#[derive(Clone, Debug, Default)]
struct Trials {
    /// Whether the first (untimed) pass has run.
    warm: bool,
    /// Each depth timed, its fastest time per step, and how often it was timed, in the order
    /// first tried.
    timed: Vec<(usize, f64, usize)>,
    /// Worse depths on the climb since the last one that was not.
    worse: usize,
    /// Whether the climb up the ladder is over: the depths it timed are then timed again.
    climbed: bool,
    /// The depth every later pass takes, once the search is over.
    chosen: Option<usize>,
    /// Whether a timed pass is out: until it is recorded (or found failed) no other is handed
    /// out, so each timing belongs to the pass the search asked for.
    pending: bool,
}

/// One pass: its depth in steps, and whether to time it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Pass {
    pub(super) steps: usize,
    pub(super) timed: bool,
}

impl Trials {
    /// The fastest depth timed so far.
    fn best(&self) -> Option<(usize, f64)> {
        self.timed.iter().map(|&(depth, time, _)| (depth, time)).min_by(|a, b| a.1.total_cmp(&b.1))
    }

    /// The next depth to time: on the climb the ladder's next at most `most`, after it the first
    /// depth the climb timed with fewer than [`TIMINGS`] timings; `None` when none is left.
    fn untried(&self, most: usize) -> Option<usize> {
        if self.climbed {
            return self.timed.iter().find(|&&(_, _, count)| count < TIMINGS).map(|&(depth, _, _)| depth);
        }
        after(self.timed.last().map_or(0, |&(depth, _, _)| depth)).filter(|&d| d <= most)
    }

    /// The next pass with `left >= 1` steps left in the call, `first` the rule's depth and
    /// `most` the deepest worth trying; a timed one is out until [`Trials::record`].
    fn next(&mut self, first: usize, most: usize, left: usize) -> Pass {
        debug_assert!(left >= 1, "a pass with no step left");
        let best = self.best().map_or(first, |(depth, _)| depth);
        let untimed = |steps: usize| Pass { steps: steps.min(left), timed: false };
        if let Some(depth) = self.chosen {
            return untimed(depth);
        }
        if self.pending {
            return untimed(best);
        }
        let pass = if !self.warm {
            Pass { steps: first.min(left), timed: left >= first }
        } else {
            match self.untried(most) {
                Some(depth) if depth <= left => Pass { steps: depth, timed: true },
                _ => untimed(best),
            }
        };
        self.pending = pass.timed;
        pass
    }

    /// Takes the time of the timed pass of `steps` steps that is out (`None`: it failed, and
    /// counts for nothing).
    fn record(&mut self, steps: usize, elapsed: Option<Duration>, most: usize) {
        self.pending = false;
        let Some(elapsed) = elapsed else { return };
        if !self.warm {
            self.warm = true;
            return;
        }
        let per_step = elapsed.as_secs_f64() / steps.max(1) as f64;
        match self.timed.iter_mut().find(|(depth, _, _)| *depth == steps) {
            Some((_, time, count)) => {
                *time = time.min(per_step);
                *count += 1;
            }
            None => self.timed.push((steps, per_step, 1)),
        }
        if !self.climbed {
            // The depth just climbed to, against the best of the depths before it.
            let before = self.timed.len() - 1;
            let time = self.timed[before].1;
            let best = self.timed[..before].iter().map(|&(_, t, _)| t).min_by(f64::total_cmp);
            self.worse = match best {
                Some(best) if time > best * WORSE => self.worse + 1,
                _ => 0,
            };
            self.climbed = self.worse >= WORSE_IN_A_ROW || self.untried(most).is_none();
        }
        if self.climbed && self.untried(most).is_none() {
            self.chosen = self.best().map(|(depth, _)| depth);
        }
    }
}

thread_local! {
    /// Every kind of call's search made on this thread. Per thread rather than one locked table:
    /// the threads' calls then never contend or wait, and the kinds a thread calls are the ones
    /// it times (another thread's passes running meanwhile would be in its timings either way).
    static TABLE: RefCell<HashMap<Key, Trials>> = RefCell::new(HashMap::new());
}

/// `f` on this thread's table; `None` once the thread is being torn down (its table gone).
fn with_table<R>(f: impl FnOnce(&mut HashMap<Key, Trials>) -> R) -> Option<R> {
    // Never reentered: no pass runs while the table is borrowed.
    TABLE.try_with(|table| f(&mut table.borrow_mut())).ok()
}

/// One pass of a call: its steps, and its clock when it is timed.
pub(super) struct Timing<'t> {
    tuner: &'t Tuner,
    pub(super) steps: usize,
    start: Option<Instant>,
}

impl Timing<'_> {
    /// The pass ran: its time goes to the search (when it was timed).
    pub(super) fn finish(mut self) {
        if let Some(start) = self.start.take() {
            self.tuner.record(self.steps, Some(start.elapsed()));
        }
    }
}

impl Drop for Timing<'_> {
    fn drop(&mut self) {
        if self.start.take().is_some() {
            self.tuner.record(self.steps, None);
        }
    }
}

/// The passes of one call of one kind: depths from the kind's search.
pub(super) struct Tuner {
    key: Key,
    first: usize,
    most: usize,
}

impl Tuner {
    /// The tuner of `key`'s calls, starting at `first` steps per pass and trying up to `most`.
    pub(super) fn new(key: Key, first: usize, most: usize) -> Self {
        let first = first.max(1);
        Tuner { key, first, most: most.max(first) }
    }

    /// The next pass, with `left >= 1` steps left in the call, its clock started when it is
    /// timed: [`Timing::finish`] right after the pass takes its time; dropped unfinished (the pass
    /// failed, or panicked), it lets the search hand the depth out again.
    pub(super) fn next(&self, left: usize) -> Timing<'_> {
        let pass = if self.first == self.most {
            Pass { steps: self.first.min(left), timed: false }
        } else {
            let untimed = Pass { steps: self.first.min(left), timed: false };
            with_table(|table| table.entry(self.key.clone()).or_default().next(self.first, self.most, left))
                .unwrap_or(untimed)
        };
        Timing { tuner: self, steps: pass.steps, start: pass.timed.then(Instant::now) }
    }

    /// Takes the time of the timed pass of `steps` steps that is out.
    fn record(&self, steps: usize, elapsed: Option<Duration>) {
        with_table(|table| self.record_in(table, steps, elapsed));
    }

    fn record_in(&self, table: &mut HashMap<Key, Trials>, steps: usize, elapsed: Option<Duration>) {
        let trials = table.entry(self.key.clone()).or_default();
        let searching = trials.chosen.is_none();
        trials.record(steps, elapsed, self.most);
        if let (true, Some(chosen)) = (searching, trials.chosen) {
            // The setting was read, and found valid, before any pass was timed.
            if matches!(super::depth::tuning(self.key.op), Ok(super::depth::Tuning::Show)) {
                let timed: Vec<String> =
                    trials.timed.iter().map(|(d, t, _)| format!("{d}: {:.3} ms", t * 1e3)).collect();
                let Key { op, shape, threads, .. } = &self.key;
                eprintln!(
                    "cnda: {op} on {shape:?}, {threads} threads: {chosen} steps per fused pass (per step at \
                     each depth: {})",
                    timed.join(", ")
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ladder_doubles_and_fills_in_three_times_a_power_of_two() {
        let mut ladder = vec![];
        let mut d = 0;
        while let Some(next) = after(d).filter(|&n| n <= 100) {
            ladder.push(next);
            d = next;
        }
        assert_eq!(ladder, [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96]);
        assert_eq!(after(5), Some(6));
        assert_eq!(after(7), Some(8));
        assert_eq!(after(usize::MAX), None);
        assert_eq!(after(usize::MAX / 2 + 1), Some(3 << (usize::BITS - 2)));
        assert_eq!(after(3 << (usize::BITS - 2)), None);
        assert_eq!(after(usize::MAX / 3), Some(3 << (usize::BITS - 3)));
        assert_eq!(after(3 << (usize::BITS - 3)), Some(usize::MAX / 2 + 1));
    }

    /// Runs calls of `steps` steps against a machine whose time per step at depth `d` is
    /// `cost(d)`, and returns every pass's depth.
    fn run(
        calls: usize,
        steps: usize,
        first: usize,
        most: usize,
        mut cost: impl FnMut(usize) -> f64,
    ) -> Vec<Vec<usize>> {
        let mut trials = Trials::default();
        (0..calls)
            .map(|_| {
                let mut passes = vec![];
                let mut left = steps;
                while left > 0 {
                    let pass = trials.next(first, most, left);
                    assert!(pass.steps >= 1 && pass.steps <= left, "{pass:?} with {left} left");
                    if pass.timed {
                        let elapsed = Duration::from_secs_f64(cost(pass.steps) * pass.steps as f64);
                        trials.record(pass.steps, Some(elapsed), most);
                    }
                    passes.push(pass.steps);
                    left -= pass.steps;
                }
                passes
            })
            .collect()
    }

    #[test]
    fn the_search_finds_the_fastest_depth_and_keeps_it() {
        // Fastest at 4, slower either side: on the climb 1, 2, 3, 4 improve, 6 and 8 are worse;
        // then each is timed again (the first call runs out of steps before 6), and 4 is chosen.
        let cost = |d: usize| 1.0 + (d as f64 - 4.0).abs() * 0.2;
        let passes = run(4, 40, 2, 64, cost);
        assert_eq!(passes[0], [2, 1, 2, 3, 4, 6, 8, 1, 2, 3, 4, 4], "{passes:?}");
        assert_eq!(passes[1], [6, 8, 4, 4, 4, 4, 4, 4, 2], "{passes:?}");
        assert!(passes[2..].iter().all(|call| call.iter().all(|&d| d == 4)), "{passes:?}");
    }

    #[test]
    fn a_burst_over_two_passes_in_a_row_does_not_lose_the_fastest_depth() {
        // 4 is the fastest, but other work slows the pass that first times it and the pass after
        // it 1.5x: timed in a row, both of 4's timings would have been slowed.
        let mut burst = 0;
        let cost = |d: usize| {
            let base = 1.0 + (d as f64 - 4.0).abs() * 0.1;
            if d == 4 && burst == 0 || burst == 1 {
                burst += 1;
                return base * 1.5;
            }
            base
        };
        let passes = run(1, 61, 1, 64, cost);
        assert_eq!(passes[0][..11], [1, 1, 2, 3, 4, 6, 1, 2, 3, 4, 6], "{passes:?}");
        assert!(passes[0][11..].iter().all(|&d| d == 4), "{passes:?}");
    }

    #[test]
    fn one_slow_timing_does_not_lose_the_fastest_depth() {
        // 2 is the fastest, but its first timing comes out twice as slow (another process ran).
        let mut slowed = false;
        let cost = |d: usize| match d {
            2 if !slowed => {
                slowed = true;
                1.6
            }
            2 => 0.8,
            _ => 0.8 + 0.2 * (d as f64 - 2.0).abs(),
        };
        let passes = run(1, 41, 1, 64, cost);
        assert_eq!(passes[0][..11], [1, 1, 2, 3, 4, 6, 1, 2, 3, 4, 6], "{passes:?}");
        assert!(passes[0][11..].iter().all(|&d| d == 2), "{passes:?}");
    }

    #[test]
    fn short_calls_search_as_far_as_they_reach_and_run_the_best_so_far() {
        // The deeper the faster: calls of 5 steps can time up to 4, and keep running the best.
        let passes = run(4, 5, 1, 64, |d| 1.0 / d as f64);
        assert_eq!(passes, [vec![1, 1, 2, 1], vec![3, 2], vec![4, 1], vec![4, 1]]);
    }

    #[test]
    fn the_search_ends_at_the_deepest_worth_trying() {
        let passes = run(2, 30, 1, 6, |d| 1.0 / d as f64);
        assert_eq!(passes[0], [1, 1, 2, 3, 4, 6, 1, 2, 3, 4, 3], "{passes:?}");
        assert!(passes[1].iter().all(|&d| d == 6), "{passes:?}");
    }

    #[test]
    fn a_timed_pass_is_out_alone_and_a_failed_one_is_handed_out_again() {
        let mut trials = Trials::default();
        // The first (warm-up) pass is out: another thread's call meanwhile runs untimed.
        assert_eq!(trials.next(2, 8, 10), Pass { steps: 2, timed: true });
        assert_eq!(trials.next(2, 8, 10), Pass { steps: 2, timed: false });
        trials.record(2, Some(Duration::from_millis(5)), 8);
        assert_eq!(trials.next(2, 8, 10), Pass { steps: 1, timed: true });
        // It failed: nothing is recorded, and depth 1 is handed out again.
        trials.record(1, None, 8);
        assert!(trials.timed.is_empty());
        assert_eq!(trials.next(2, 8, 10), Pass { steps: 1, timed: true });
        assert_eq!(trials.next(2, 8, 10), Pass { steps: 2, timed: false }, "out: the rule's depth meanwhile");
        trials.record(1, Some(Duration::from_millis(1)), 8);
        assert_eq!(trials.timed, [(1, 1e-3, 1)]);
    }

    /// The stepper itself runs the search: calls of one kind time several depths, and every
    /// call equals separate sweeps.
    #[test]
    fn the_stepper_times_several_depths_and_keeps_its_results() {
        use crate::prelude::*;
        use crate::stencil::{DoubleBuffer, LinearStencil};
        let shape = [61, 97];
        let initial = Array::from_fn(shape, |[i, j]| ((i * 31 + j * 17) % 23) as f64 - 11.0);
        let jacobi = LinearStencil::jacobi_5pt();
        let (mut fused, mut reference) = (DoubleBuffer::new(initial.clone()), DoubleBuffer::new(initial));
        for call in 0..12 {
            jacobi.apply_steps(&mut fused, 11);
            for _ in 0..11 {
                let (u, v) = reference.split();
                jacobi.apply(u, v);
                reference.swap();
            }
            assert_eq!(fused.current(), reference.current(), "call {call}");
        }
        let set = |name: &str| std::env::var(name).is_ok();
        if set("CNDA_FUSED_DEPTH") || set("CNDA_FUSED_TUNE") {
            return; // a fixed depth, or a search as the environment says
        }
        let depths: Vec<usize> = with_table(|table| {
            table
                .iter()
                .filter(|(key, _)| key.op == "LinearStencil::apply_steps" && key.shape.as_slice() == shape)
                .flat_map(|(_, trials)| trials.timed.iter().map(|&(depth, _, _)| depth))
                .collect()
        })
        .expect("this thread's table");
        assert!(depths.len() >= 4, "the depths timed: {depths:?}");
    }

    #[test]
    fn a_fixed_depth_is_never_timed() {
        let tuner = Tuner::new(
            Key {
                op: "test",
                sweep: "fixed",
                radius: SmallVec::new(),
                shape: SmallVec::new(),
                block: 1,
                element: 4,
                fields: 2,
                stages: 1,
                depths: (3, 3),
                threads: 1,
            },
            3,
            3,
        );
        let (a, b) = (tuner.next(10), tuner.next(2));
        assert_eq!((a.steps, a.start.is_some(), b.steps, b.start.is_some()), (3, false, 2, false));
    }
}
