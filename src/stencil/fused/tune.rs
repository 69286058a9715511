//! The fused pass depth, measured at run time on the passes themselves, once per kind of call (the
//! stencil, the operation, the grid, the element, the fields and stages, the threads).
//!
//! The sweeps come out the same bit for bit whatever the depth (`mod.rs`), so the search costs no
//! extra work: each pass of a call is real work, run at a depth still to be tried and timed, until
//! the best is known. The first pass of a kind is not timed (it pays for first touches and cold
//! caches) and runs at the cache rule's depth. Then the depths 1, 2, 3, 4, 6, 8, 12, 16, ... (each
//! at most the deepest worth trying, `depth.rs`) are timed in turn, two passes each, keeping the
//! faster time per step; the search stops at the second depth in a row more than 10% slower than
//! the best before it, or at the end of the ladder, and every later pass of that kind runs at
//! the best. A call with fewer steps
//! left than the next depth to try runs them at the best depth so far (the rule's before any),
//! untimed, and leaves the search to later calls.
//!
//! Two timings per depth on a shared machine can still pick a depth a little off the best; that
//! costs speed only. `CNDA_FUSED_DEPTH` (a fixed depth) and `CNDA_FUSED_TUNE=off` (the rule's) keep
//! timing out of a run; `CNDA_FUSED_TUNE=show` writes each search's timings and choice to
//! standard error.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use smallvec::SmallVec;

/// What the timings of one kind of call are kept under.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) struct Key {
    pub(super) op: &'static str,
    /// The sweep's type name: which stencil.
    pub(super) sweep: &'static str,
    pub(super) shape: SmallVec<[usize; 4]>,
    pub(super) element: usize,
    pub(super) fields: usize,
    pub(super) stages: usize,
    /// The most steps a pass may take (fewer when receivers are sampled).
    pub(super) cap: usize,
    pub(super) threads: usize,
}

/// Each depth is timed this many times (passes in a row), and its fastest time kept: one timing
/// on a shared machine picked 1 sweep a pass where 2 ran 1.15x faster.
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
    /// tried.
    timed: Vec<(usize, f64, usize)>,
    /// Worse depths since the last one that was not.
    worse: usize,
    /// The depth every later pass takes, once the search is over.
    chosen: Option<usize>,
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

    /// The next depth to time at most `most` (the last one again until it has its timings), if
    /// any is left.
    fn untried(&self, most: usize) -> Option<usize> {
        match self.timed.last() {
            Some(&(depth, _, count)) if count < TIMINGS => Some(depth),
            last => after(last.map_or(0, |&(depth, _, _)| depth)).filter(|&d| d <= most),
        }
    }

    /// The next pass with `left >= 1` steps left in the call, `first` the rule's depth and
    /// `most` the deepest worth trying.
    fn next(&self, first: usize, most: usize, left: usize) -> Pass {
        let untimed = |steps: usize| Pass { steps: steps.min(left), timed: false };
        if let Some(depth) = self.chosen {
            return untimed(depth);
        }
        if !self.warm {
            return Pass { steps: first.min(left), timed: left >= first };
        }
        match self.untried(most) {
            Some(depth) if depth <= left => Pass { steps: depth, timed: true },
            _ => untimed(self.best().map_or(first, |(depth, _)| depth)),
        }
    }

    /// Takes the time of a timed pass of `steps` steps.
    fn record(&mut self, steps: usize, elapsed: Duration, most: usize) {
        if !self.warm {
            self.warm = true;
            return;
        }
        let per_step = elapsed.as_secs_f64() / steps.max(1) as f64;
        match self.timed.last_mut() {
            Some((depth, time, count)) if *depth == steps && *count < TIMINGS => {
                *time = time.min(per_step);
                *count += 1;
            }
            _ => self.timed.push((steps, per_step, 1)),
        }
        let Some(&(_, time, count)) = self.timed.last() else { return };
        if count < TIMINGS {
            return;
        }
        // Against the best of the depths before this one.
        let before = self.timed.len() - 1;
        let best = self.timed[..before].iter().map(|&(_, t, _)| t).min_by(f64::total_cmp);
        self.worse = match best {
            Some(best) if time > best * WORSE => self.worse + 1,
            _ => 0,
        };
        if self.worse >= WORSE_IN_A_ROW || self.untried(most).is_none() {
            self.chosen = self.best().map(|(depth, _)| depth);
        }
    }
}

/// Every kind of call's search, shared by the threads of the process.
fn table() -> &'static Mutex<HashMap<Key, Trials>> {
    static TABLE: OnceLock<Mutex<HashMap<Key, Trials>>> = OnceLock::new();
    TABLE.get_or_init(Default::default)
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

    /// The next pass, with `left >= 1` steps left in the call.
    pub(super) fn next(&self, left: usize) -> Pass {
        if self.first == self.most {
            return Pass { steps: self.first.min(left), timed: false };
        }
        // A poisoned lock only means another thread panicked while holding it: the trials are
        // still a valid state (each update is one assignment after the other).
        let table = table().lock().unwrap_or_else(|e| e.into_inner());
        table
            .get(&self.key)
            .map_or(Trials::default().next(self.first, self.most, left), |t| t.next(self.first, self.most, left))
    }

    /// Takes the time of `pass`, when it was to be timed.
    pub(super) fn record(&self, pass: Pass, elapsed: Duration) {
        if !pass.timed {
            return;
        }
        let mut table = table().lock().unwrap_or_else(|e| e.into_inner());
        let trials = table.entry(self.key.clone()).or_default();
        let searching = trials.chosen.is_none();
        trials.record(pass.steps, elapsed, self.most);
        if let (true, Some(chosen)) = (searching, trials.chosen) {
            if super::depth::tuning() == super::depth::Tuning::Show {
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
                        trials.record(pass.steps, elapsed, most);
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
        // Fastest at 4, slower either side: 1, 2, 3, 4 improve, 6 and 8 are worse, 4 is chosen.
        // Each depth is timed twice; the first call runs out of steps before 8 is timed.
        let cost = |d: usize| 1.0 + (d as f64 - 4.0).abs() * 0.2;
        let passes = run(4, 40, 2, 64, cost);
        assert_eq!(passes[0], [2, 1, 1, 2, 2, 3, 3, 4, 4, 6, 6, 4, 2], "{passes:?}");
        assert_eq!(passes[1], [8, 8, 4, 4, 4, 4, 4, 4], "{passes:?}");
        assert!(passes[2..].iter().all(|call| call.iter().all(|&d| d == 4)), "{passes:?}");
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
        assert_eq!(passes[0][..9], [1, 1, 1, 2, 2, 3, 3, 4, 4], "{passes:?}");
        assert!(passes[0][9..].iter().all(|&d| d == 2), "{passes:?}");
    }

    #[test]
    fn short_calls_search_as_far_as_they_reach_and_run_the_best_so_far() {
        // The deeper the faster: calls of 5 steps can time up to 4, and keep running the best.
        let passes = run(4, 5, 1, 64, |d| 1.0 / d as f64);
        assert_eq!(passes, [vec![1, 1, 1, 2], vec![2, 3], vec![3, 2], vec![4, 1]]);
    }

    #[test]
    fn the_search_ends_at_the_deepest_worth_trying() {
        let passes = run(2, 30, 1, 6, |d| 1.0 / d as f64);
        assert_eq!(passes[0], [1, 1, 1, 2, 2, 3, 3, 4, 4, 6, 3], "{passes:?}");
        assert!(passes[1].iter().all(|&d| d == 6), "{passes:?}");
    }

    #[test]
    fn a_fixed_depth_is_never_timed() {
        let tuner = Tuner::new(
            Key {
                op: "test",
                sweep: "fixed",
                shape: SmallVec::new(),
                element: 4,
                fields: 2,
                stages: 1,
                cap: 9,
                threads: 1,
            },
            3,
            3,
        );
        assert_eq!(tuner.next(10), Pass { steps: 3, timed: false });
        assert_eq!(tuner.next(2), Pass { steps: 2, timed: false });
    }
}
