//! The order of the fused sweeps: which hyperplanes (of axis 0) each sweep computes on the skewed
//! wavefront, and, when axis 0 wraps around, which ones wait for the seam pass.

use core::ops::{Range, RangeInclusive};

/// The wavefront of `steps` sweeps over the interior hyperplanes `rows` (non-empty) for radius
/// `radius`.
///
/// On a periodic axis 0, sweep `t` at hyperplane `i` reads sweep `t - 1` across the seam (the
/// other end of the axis), which the wavefront computes last. So the wavefront computes sweep `t`
/// only on the hyperplanes at least `(t - 1) R` from either end (a trapezoid: each sweep there
/// reads only hyperplanes the sweep before it computed), and the **seam pass** computes the rest
/// afterwards, sweep by sweep. The two fields still suffice: sweep `t + 1` on the wavefront
/// overwrites sweep `t - 1` only at least `t R` from the ends, beyond everything the seam pass of
/// sweep `t` reads.
#[derive(Clone, Debug)]
pub(super) struct Schedule {
    rows: Range<usize>,
    steps: usize,
    radius: usize,
    wraps: bool,
}

impl Schedule {
    pub(super) fn new(rows: Range<usize>, steps: usize, radius: usize, wraps: bool) -> Self {
        debug_assert!(!rows.is_empty() && steps > 0);
        Schedule { rows, steps, radius, wraps }
    }

    /// The number of sweeps.
    pub(super) fn sweeps(&self) -> usize {
        self.steps
    }

    /// Hyperplanes of sweep `t` lag this many behind those of sweep `t - 1`: the radius (at least
    /// 1, so radius-0 stencils keep one order too).
    pub(super) fn lag(&self) -> usize {
        self.radius.max(1)
    }

    /// The hyperplanes sweep `t` (from 1) computes on the wavefront.
    pub(super) fn wavefront_rows(&self, t: usize) -> Range<usize> {
        if !self.wraps {
            return self.rows.clone();
        }
        let cut = (t - 1).saturating_mul(self.radius);
        let (start, end) = (self.rows.start.saturating_add(cut), self.rows.end.saturating_sub(cut));
        if start < end {
            start..end
        } else {
            self.rows.start..self.rows.start
        }
    }

    /// The hyperplanes of sweep `t` left to the seam pass (none when axis 0 does not wrap).
    pub(super) fn seam_rows(&self, t: usize) -> impl Iterator<Item = usize> {
        let wavefront = self.wavefront_rows(t);
        self.rows.clone().filter(move |i| !wavefront.contains(i))
    }

    /// The wavefront's steps.
    pub(super) fn steps(&self) -> RangeInclusive<usize> {
        self.rows.start..=(self.rows.end - 1).saturating_add((self.steps - 1).saturating_mul(self.lag()))
    }

    /// The `(sweep, hyperplane)` pairs of the sweeps `levels` computed at wavefront step `s`, in
    /// sweep order: sweep `t` is `(t - 1) lag` hyperplanes behind sweep 1.
    pub(super) fn at_step(&self, s: usize, levels: Range<usize>) -> impl Iterator<Item = (usize, usize)> + '_ {
        levels.filter_map(move |t| {
            let i = s.checked_sub((t - 1).saturating_mul(self.lag()))?;
            self.wavefront_rows(t).contains(&i).then_some((t, i))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::Schedule;

    /// Replays a schedule against a model that tracks, per hyperplane, which sweep each of the
    /// two fields holds, and checks every read and every overwrite.
    fn replay(n: usize, radius: usize, steps: usize, wraps: bool) {
        let rows = radius..radius + n;
        let s = Schedule::new(rows.clone(), steps, radius, wraps);
        // held[f][i]: the sweep field f holds at interior hyperplane i (field 0 starts at 0).
        let mut held = [vec![0usize; n], vec![usize::MAX; n]];
        let mut compute = |t: usize, i: usize| {
            for d in -(radius as isize)..=radius as isize {
                let j = i as isize - radius as isize + d;
                let j = if wraps { j.rem_euclid(n as isize) } else { j };
                if (0..n as isize).contains(&j) {
                    assert_eq!(held[(t - 1) % 2][j as usize], t - 1, "sweep {t} at {i} reads {j}");
                }
            }
            held[t % 2][i - radius] = t;
        };
        for step in s.steps() {
            for (t, i) in s.at_step(step, 1..steps + 1) {
                compute(t, i);
            }
        }
        for t in 1..=steps {
            for i in s.seam_rows(t) {
                compute(t, i);
            }
        }
        let last = (steps % 2, steps);
        assert!(held[last.0].iter().all(|&t| t == last.1), "{n} {radius} {steps} {wraps}");
    }

    #[test]
    fn every_read_sees_the_previous_sweep_and_every_point_is_computed() {
        for n in 1..12 {
            for radius in 0..4 {
                for steps in 1..8 {
                    replay(n, radius, steps, false);
                    replay(n, radius, steps, true);
                }
            }
        }
    }
}
