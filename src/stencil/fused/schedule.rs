//! The order of the fused sweeps: which hyperplanes (of axis 0) each sweep computes on the skewed
//! wavefront, and which ones wait for the seam pass (near the ends when axis 0 wraps around, and
//! near the cuts between slabs).

use core::ops::{Range, RangeInclusive};

/// The wavefront of `steps` sweeps over the interior hyperplanes `rows` (non-empty) for radius
/// `radius`.
///
/// On a periodic axis 0, sweep `t` at hyperplane `i` reads sweep `t - 1` across the seam (the
/// other end of the axis), which the wavefront computes last. So the wavefront computes sweep `t`
/// only on the hyperplanes at least `(t - 1) R` from either end (a trapezoid: each sweep there
/// reads only hyperplanes the sweep before it computed), and the **seam pass** computes the rest
/// afterwards, sweep by sweep. The rings of levels still suffice: the sweeps that overwrite the
/// arrays sweep `t` reads (sweep `t + 1` and later) do so on the wavefront only at least `t R`
/// from the ends, beyond everything the seam pass of sweep `t` reads (checked against a model of
/// rings of 1 to 3 levels in the tests).
///
/// **Slabs.** The same trapezoid lets threads work without waiting on each other: cut the rows
/// into slabs, one per thread, each cut at the ends it shares with another slab. A slab's
/// wavefront then reads only its own hyperplanes (and the outer halo at an uncut end), so the
/// threads share nothing until they join; the seam pass computes, sweep by sweep, what each cut
/// left, about `steps^2 R` hyperplanes per cut. The hyperplanes near one cut depend on nothing near
/// another (a slab holds at least twice the `2 steps R` that needs), so each cut's seam pass,
/// all its sweeps in order, is a task of its own ([`seams`]).
#[derive(Clone, Debug)]
pub(super) struct Schedule {
    rows: Range<usize>,
    steps: usize,
    radius: usize,
    /// Whether the wavefront stops short of the low and the high end (a wrap-around or a slab's
    /// cut there), leaving the trapezoid's corners to the seam pass.
    cut: [bool; 2],
}

/// One independent task of the seam pass over `parts` (the slabs of one wavefront, in order): the
/// sides of the parts near one cut, as `(part, side)`, whose hyperplanes it computes sweep by
/// sweep; `wraps` when it is the cut of a periodic axis 0 (both ends), whose halo along axis 0
/// is then refilled after each sweep.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Seam {
    pub(super) sides: [(usize, usize); 2],
    pub(super) wraps: bool,
}

/// The seam pass over `parts` as independent tasks: one per cut between consecutive parts, and
/// one for a periodic axis 0's wrap-around (the low end of the first part and the high end of the
/// last). Tasks touch disjoint hyperplanes when every part holds more than `2 (steps - 1) R` of
/// them (as [`Schedule::slabs`] ensures), so they may run at once.
pub(super) fn seams(parts: &[Schedule]) -> Vec<Seam> {
    let mut seams: Vec<Seam> = (1..parts.len()).map(|p| Seam { sides: [(p - 1, 1), (p, 0)], wraps: false }).collect();
    if let (Some(first), Some(last)) = (parts.first(), parts.last()) {
        if first.cut[0] {
            debug_assert!(last.cut[1], "a periodic axis is cut at both ends");
            seams.push(Seam { sides: [(0, 0), (parts.len() - 1, 1)], wraps: true });
        }
    }
    seams
}

/// One item of work in a wavefront's order, whole on one thread or in bands on several
/// (`bands.rs`): sweep `t` at unit `i` (its stencil, then its points and halos), or the halo
/// along a periodic axis 0 that the wrap-around's seam task refills after its sweep `t`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Work {
    Sweep { t: usize, i: usize },
    WrapHalo(usize),
}

/// The work of one task of the seam pass over `parts`, in order: sweep by sweep, the
/// hyperplanes near the cut on each of its sides, then the wrap-around's halo.
pub(super) fn seam_work<'a>(parts: &'a [Schedule], seam: &'a Seam) -> impl Iterator<Item = Work> + 'a {
    let sweeps = parts.first().map_or(0, |p| p.steps);
    (1..=sweeps).flat_map(move |t| {
        let units = seam.sides.iter().flat_map(move |&(part, side)| parts[part].seam_side(t, side));
        units.map(move |i| Work::Sweep { t, i }).chain(seam.wraps.then_some(Work::WrapHalo(t)))
    })
}

/// The wavefront of `schedule` over all its sweeps, in order, as [`Work`].
pub(super) fn wavefront_work(schedule: &Schedule) -> impl Iterator<Item = Work> + '_ {
    let all = 1..schedule.steps + 1;
    schedule.steps().flat_map(move |s| schedule.at_step(s, all.clone()).map(|(t, i)| Work::Sweep { t, i }))
}

/// Where part `p` of `len` points cut into `count` nearly equal parts starts: `p * len / count`
/// without overflow (`len / count` points each, the remainder spread), for `p <= count`. The
/// slabs of axis 0 (`Schedule::split`) and the bands of axis 1 (`bands.rs`) are cut so.
#[cfg(any(feature = "rayon", test))]
pub(super) fn share(len: usize, count: usize, p: usize) -> usize {
    p * (len / count) + p * (len % count) / count
}

/// Whether the tasks of [`seams`] over `parts` are independent (they may run in any order, or at
/// once): one part, or every part more than `2 steps lag` hyperplanes long. Such parts also keep
/// the hyperplanes next to the outer ends, after which a mirrored halo of axis 0 is refilled
/// (`Plan::compute`), on the wavefront of the part there.
pub(super) fn independent(parts: &[Schedule]) -> bool {
    parts.len() < 2 || parts.iter().all(|p| p.rows.len() > 2 * p.steps.saturating_mul(p.lag()))
}

/// A slab holds at least this many hyperplanes per sweep and unit of the lag, so that the seam
/// passes (about `steps * lag` hyperplanes per sweep and cut, on one thread) stay under about a
/// quarter of the work. Tighter than the seams' independence needs (twice); the measured depth
/// (`tune.rs`) avoids passes whose seams cost more than they save: the 3D acoustic wave on 200^3
/// at radius 4 ran 1.17x faster on two threads in slabs of 3 sweeps than in one sweep per pass,
/// which a rule of 16 (a sixteenth) sent to the slower pipeline (docs/BENCHMARKS.md).
#[cfg(feature = "rayon")]
const SLAB_ROWS_PER_SWEEP: usize = 4;

impl Schedule {
    pub(super) fn new(rows: Range<usize>, steps: usize, radius: usize, wraps: bool) -> Self {
        debug_assert!(!rows.is_empty() && steps > 0);
        Schedule { rows, steps, radius, cut: [wraps; 2] }
    }

    /// The rows cut into `count >= 2` slabs of nearly equal size (in order), each cut where it
    /// meets another and where this schedule is cut; `None` when a slab would be shorter than
    /// [`SLAB_ROWS_PER_SWEEP`] hyperplanes per sweep and lag (the seam passes would then be a
    /// large part of the work: the caller pipelines the sweeps instead).
    #[cfg(feature = "rayon")]
    pub(super) fn slabs(&self, count: usize) -> Option<Vec<Schedule>> {
        let least = SLAB_ROWS_PER_SWEEP.checked_mul(self.steps)?.checked_mul(self.lag())?;
        if count < 2 || self.rows.len() / count < least {
            return None;
        }
        Some(self.split(count))
    }

    /// [`Schedule::slabs`] without the size check (any slab may be empty).
    #[cfg(any(feature = "rayon", test))]
    fn split(&self, count: usize) -> Vec<Schedule> {
        let edge = |p: usize| self.rows.start + share(self.rows.len(), count, p);
        (0..count)
            .map(|p| Schedule {
                rows: edge(p)..edge(p + 1),
                steps: self.steps,
                radius: self.radius,
                cut: [p > 0 || self.cut[0], p + 1 < count || self.cut[1]],
            })
            .collect()
    }

    /// Whether anything is left to the seam pass.
    pub(super) fn has_seams(&self) -> bool {
        self.cut != [false, false]
    }

    /// The hyperplanes this schedule covers.
    #[cfg(test)]
    fn rows(&self) -> Range<usize> {
        self.rows.clone()
    }

    /// The number of sweeps.
    #[cfg_attr(not(feature = "rayon"), allow(dead_code))]
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
        if !self.has_seams() {
            return self.rows.clone();
        }
        let cut = (t - 1).saturating_mul(self.radius);
        let start = if self.cut[0] { self.rows.start.saturating_add(cut) } else { self.rows.start };
        let end = if self.cut[1] { self.rows.end.saturating_sub(cut) } else { self.rows.end };
        if start < end {
            start..end
        } else {
            self.rows.start..self.rows.start
        }
    }

    /// The hyperplanes of sweep `t` left to the seam pass near the low (`side` 0) or the high
    /// (`side` 1) end: none at an end that is not cut. Together with the wavefront's hyperplanes
    /// they cover the rows once.
    pub(super) fn seam_side(&self, t: usize, side: usize) -> Range<usize> {
        let cut = (t - 1).saturating_mul(self.radius);
        let low_end =
            if self.cut[0] { self.rows.start.saturating_add(cut).min(self.rows.end) } else { self.rows.start };
        if side == 0 {
            return self.rows.start..low_end;
        }
        let high_start = if self.cut[1] { self.rows.end.saturating_sub(cut).max(low_end) } else { self.rows.end };
        high_start..self.rows.end
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
    use super::{independent, seams, Schedule};

    /// Per field, array of its ring (`levels + 1`) and interior hyperplane: the step it holds
    /// (`isize::MIN` for none yet), and the slabs (bit masks) that wrote it and that read or
    /// wrote it on the wavefront. A step is `stages.len()` sweeps, stage `s` writing the fields
    /// of mask `stages[s]` (as `rings.rs` numbers them).
    struct Model {
        levels: usize,
        stages: Vec<u8>,
        held: Vec<Vec<Vec<isize>>>,
        wrote: Vec<Vec<Vec<u32>>>,
        accessed: Vec<Vec<Vec<u32>>>,
    }

    impl Model {
        /// The rings before any step: step 0 (the newest level) at position 0, the scratch at
        /// 1, steps `-1, -2, ..` (older levels) from the last position down.
        fn new(n: usize, levels: usize, stages: &[u8]) -> Model {
            let ring = levels as isize + 1;
            let fields = stages.iter().fold(0u8, |m, &w| m | w).count_ones() as usize;
            let one = (0..ring)
                .map(|p| match p {
                    0 => vec![0; n],
                    1 => vec![isize::MIN; n],
                    _ => vec![p - ring; n],
                })
                .collect::<Vec<_>>();
            let mut model =
                Model { levels, stages: stages.to_vec(), held: vec![one; fields], wrote: vec![], accessed: vec![] };
            model.clear_accesses();
            model
        }

        fn clear_accesses(&mut self) {
            let n = self.held[0][0].len();
            let zeros = vec![vec![vec![0u32; n]; self.levels + 1]; self.held.len()];
            (self.wrote, self.accessed) = (zeros.clone(), zeros);
        }

        fn at(&self, t: isize) -> usize {
            t.rem_euclid(self.levels as isize + 1) as usize
        }

        /// Sweep `sweep` at hyperplane `i` (by slab `slab` on the wavefront, `None` in the seam
        /// pass): stage `s` of step `t` reads every field's `levels` newest steps within the
        /// radius (step `t` first for a field an earlier stage wrote), then overwrites, for each
        /// field it writes, the ring position of step `t - levels - 1`.
        fn compute(&mut self, sweep: usize, i: usize, radius: usize, wraps: bool, slab: Option<usize>) {
            let n = self.held[0][0].len() as isize;
            let count = self.stages.len();
            let (t, s) = (((sweep - 1) / count + 1) as isize, (sweep - 1) % count);
            let earlier = self.stages[..s].iter().fold(0u8, |m, &w| m | w);
            for f in 0..self.held.len() {
                let new = isize::from(earlier >> f & 1);
                for back in 1 - new..=self.levels as isize - new {
                    let level = self.at(t - back);
                    for d in -(radius as isize)..=radius as isize {
                        let j = i as isize - radius as isize + d;
                        let j = if wraps { j.rem_euclid(n) } else { j };
                        if (0..n).contains(&j) {
                            assert_eq!(
                                self.held[f][level][j as usize],
                                t - back,
                                "sweep {sweep} (stage {s}) at {i} reads {j} of field {f} at step {}",
                                t - back
                            );
                            if let Some(p) = slab {
                                self.accessed[f][level][j as usize] |= 1 << p;
                            }
                        }
                    }
                }
            }
            let out = self.at(t);
            for f in (0..self.held.len()).filter(|f| self.stages[s] >> f & 1 == 1) {
                self.held[f][out][i - radius] = t;
                if let Some(p) = slab {
                    self.wrote[f][out][i - radius] |= 1 << p;
                    self.accessed[f][out][i - radius] |= 1 << p;
                }
            }
        }

        /// A hyperplane that one slab (or task) wrote and another accessed, if any.
        fn shared(&self) -> Option<usize> {
            self.wrote.iter().flatten().zip(self.accessed.iter().flatten()).find_map(|(wrote, accessed)| {
                wrote.iter().zip(accessed).position(|(w, a)| *w != 0 && a.count_ones() != 1)
            })
        }
    }

    /// Replays schedules against a model that tracks, per hyperplane, which step each array of
    /// each field's ring of `levels + 1` holds (each sweep reading `levels` before it, as a
    /// `State` of that many levels steps, in the stages `stages`), and checks every read and
    /// every overwrite. With `slabs > 1` each slab's wavefront runs to the end before the next
    /// one starts (one interleaving of the threads), and the model checks that no interior
    /// hyperplane of an array that one slab writes there is read or written by another, so every
    /// interleaving makes the same accesses; then the seam pass, sweep by sweep.
    fn replay(n: usize, radius: usize, steps: usize, wraps: bool, slabs: usize, levels: usize, stages: &[u8]) {
        let what = format!("{n} {radius} {steps} {wraps} {slabs} {levels} {stages:?}");
        let sweeps = steps * stages.len();
        let rows = radius..radius + n;
        let whole = Schedule::new(rows.clone(), sweeps, radius, wraps);
        let parts = if slabs == 1 { vec![whole] } else { whole.split(slabs) };
        let mut model = Model::new(n, levels, stages);
        for (p, part) in parts.iter().enumerate() {
            if part.rows().is_empty() {
                continue;
            }
            for step in part.steps() {
                for (t, i) in part.at_step(step, 1..sweeps + 1) {
                    model.compute(t, i, radius, wraps, (slabs > 1).then_some(p));
                }
            }
        }
        assert_eq!(model.shared(), None, "{what}");
        // The seam pass as its tasks. Where the parts are tall enough for the tasks to be
        // independent (as `slabs` makes them), each runs to the end before the next (one
        // interleaving), and they must touch disjoint hyperplanes; otherwise sweep by sweep.
        let tasks = seams(&parts);
        let at_once = independent(&parts);
        model.clear_accesses();
        let (parts, tasks) = (&parts, &tasks);
        let sides = |k: usize, t: usize| tasks[k].sides.iter().flat_map(move |&(p, side)| parts[p].seam_side(t, side));
        if at_once {
            for k in 0..tasks.len() {
                for t in 1..=sweeps {
                    for i in sides(k, t) {
                        model.compute(t, i, radius, wraps, Some(k));
                    }
                }
            }
            assert_eq!(model.shared(), None, "{what}: seams");
        } else {
            for t in 1..=sweeps {
                for k in 0..tasks.len() {
                    for i in sides(k, t) {
                        model.compute(t, i, radius, wraps, None);
                    }
                }
            }
        }
        let last = model.at(steps as isize);
        assert!(model.held.iter().all(|f| f[last].iter().all(|&t| t == steps as isize)), "{what}");
    }

    /// Steps of one stage, and staged steps of two and three fields.
    const PROGRAMS: [&[u8]; 4] = [&[1], &[0b10, 0b01], &[0b001, 0b100, 0b010], &[0b011, 0b100]];

    #[test]
    fn every_read_sees_the_previous_sweep_and_every_point_is_computed() {
        for n in 1..12 {
            for radius in 0..4 {
                for steps in 1..8 {
                    for levels in 1..4 {
                        for stages in PROGRAMS {
                            replay(n, radius, steps, false, 1, levels, stages);
                            replay(n, radius, steps, true, 1, levels, stages);
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn slabs_read_only_their_own_hyperplanes_and_the_seams_complete_every_sweep() {
        for n in [1, 2, 5, 9, 16, 31, 64, 200, 333] {
            for radius in 0..4 {
                for steps in 1..8 {
                    for slabs in 2..5 {
                        for (levels, stages) in [
                            (1, PROGRAMS[0]),
                            (2, PROGRAMS[0]),
                            (3, PROGRAMS[0]),
                            (1, PROGRAMS[1]),
                            (2, PROGRAMS[2]),
                            (1, PROGRAMS[3]),
                        ] {
                            replay(n, radius, steps, false, slabs, levels, stages);
                            replay(n, radius, steps, true, slabs, levels, stages);
                        }
                    }
                }
            }
        }
    }

    #[cfg(feature = "rayon")]
    #[test]
    fn slabs_only_when_each_holds_four_hyperplanes_per_sweep_and_unit_of_lag() {
        let s = Schedule::new(1..1 + 4094, 8, 1, false);
        let slabs = s.slabs(2).expect("2 slabs of 2047 hyperplanes");
        assert_eq!(slabs.iter().map(|s| s.rows()).collect::<Vec<_>>(), [1..2048, 2048..4095]);
        assert_eq!(slabs.iter().map(|s| s.cut).collect::<Vec<_>>(), [[false, true], [true, false]]);
        assert!(s.slabs(1).is_none());
        assert!(Schedule::new(1..1 + 63, 8, 1, false).slabs(2).is_none());
        assert!(Schedule::new(1..1 + 64, 8, 1, false).slabs(2).is_some());
        // The 3D acoustic wave's 200 planes at radius 4 on two threads: slabs up to 6 sweeps.
        assert!(Schedule::new(4..204, 6, 4, false).slabs(2).is_some());
        assert!(Schedule::new(4..204, 7, 4, false).slabs(2).is_none());
        // A periodic axis keeps its wrap-around cut at the outer ends.
        let wrapped = Schedule::new(2..2 + 4000, 4, 2, true).slabs(3).unwrap();
        assert!(wrapped.iter().all(|s| s.cut == [true, true]));
        assert_eq!(wrapped.iter().map(|s| s.rows().len()).sum::<usize>(), 4000);
        assert!(Schedule::new(0..usize::MAX, usize::MAX / 2, 3, false).slabs(2).is_none());
    }
}
