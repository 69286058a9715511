//! The arrays a time stepper writes: per evolving field, a ring of its `L` time levels and a
//! scratch. Step `t` (step 0 the initial newest level, steps `-1 ..= 1 - L` the older levels)
//! lives at ring position `t mod (L + 1)`: it reads the `L` steps before it and overwrites the
//! one `L + 1` back, so no level is ever copied.
//!
//! A step may be **staged**: `S` sweeps, stage `s` writing some of the fields (every field
//! written by exactly one stage) and reading every field's levels, the new value of a field an
//! earlier stage of the step wrote (its level 0 is then step `t`, else step `t - 1`). The
//! stepper numbers the sweeps `1, 2, ..` over all stages: sweep `(t - 1) S + s + 1` is stage `s`
//! of step `t`.

use smallvec::SmallVec;

use crate::element::Pod;
use crate::kernel::{Backend, Desc};

/// Per stage, the fields it writes, as a bit mask (bit `f` for field `f`, at most 8 fields).
pub(in crate::stencil) type StageWrites = SmallVec<[u8; 4]>;

/// The descriptors of `fields` rings of `ring` arrays each, ring by ring, in position order,
/// and the stages of a step.
#[derive(Clone)]
pub(super) struct Rings<B: Backend, T: Pod, const N: usize> {
    descs: SmallVec<[Desc<B, T, N>; 4]>,
    fields: usize,
    ring: usize,
    stages: StageWrites,
}

/// The descriptors of one sweep's fields: one per field it writes, or one per level of each.
pub(super) type Group<B, T, const N: usize> = SmallVec<[Desc<B, T, N>; 4]>;

/// Whether `stages` write each of `fields` fields exactly once (and nothing else).
pub(in crate::stencil) fn partitions(stages: &[u8], fields: usize) -> bool {
    let all = if fields >= 8 { u8::MAX } else { (1u8 << fields) - 1 };
    let mut seen = 0u8;
    fields <= 8
        && stages.iter().all(|&w| {
            w != 0 && w & seen == 0 && {
                seen |= w;
                true
            }
        })
        && seen == all
}

impl<B: Backend, T: Pod, const N: usize> Rings<B, T, N> {
    /// `descs` as `fields` rings of `ring` arrays each (`ring >= 2`), one stage writing every
    /// field.
    pub(super) fn new(descs: SmallVec<[Desc<B, T, N>; 4]>, fields: usize, ring: usize) -> Self {
        assert!(
            ring >= 2 && (1..=8).contains(&fields) && descs.len() == fields * ring,
            "one ring of levels and a scratch per field"
        );
        let all = if fields == 8 { u8::MAX } else { (1u8 << fields) - 1 };
        Rings { descs, fields, ring, stages: smallvec::smallvec![all] }
    }

    /// The rings with the step in `stages` (which must write every field exactly once).
    pub(super) fn staged(mut self, stages: StageWrites) -> Self {
        assert!(partitions(&stages, self.fields), "every field written by exactly one stage");
        self.stages = stages;
        self
    }

    /// One field's two arrays (step 0 in the first).
    pub(super) fn pair(fields: [Desc<B, T, N>; 2]) -> Self {
        Rings::new(fields.into_iter().collect(), 1, 2)
    }

    /// The number of evolving fields.
    pub(super) fn fields(&self) -> usize {
        self.fields
    }

    /// The time levels a sweep reads of each field.
    pub(super) fn levels(&self) -> usize {
        self.ring - 1
    }

    /// The sweeps of one step.
    pub(super) fn stages(&self) -> usize {
        self.stages.len()
    }

    /// Every array.
    pub(super) fn all(&self) -> &[Desc<B, T, N>] {
        &self.descs
    }

    /// Field `f`'s array holding step `t - back` (positions repeat every ring; `back` at most
    /// the ring, so no step number wraps, whatever `t`).
    pub(super) fn at(&self, f: usize, t: usize, back: usize) -> Desc<B, T, N> {
        debug_assert!(back <= self.ring);
        self.descs[f * self.ring + (t % self.ring + self.ring - back) % self.ring]
    }

    /// Sweep `sweep` (from 1) as its step (from 1) and stage.
    pub(super) fn step_and_stage(&self, sweep: usize) -> (usize, usize) {
        let s = self.stages.len();
        ((sweep - 1) / s + 1, (sweep - 1) % s)
    }

    /// The stage that sweep `sweep` runs.
    pub(super) fn stage(&self, sweep: usize) -> usize {
        self.step_and_stage(sweep).1
    }

    /// The fields sweep `sweep` writes, in order.
    pub(super) fn writes(&self, sweep: usize) -> impl Iterator<Item = usize> {
        let mask = self.stages[self.stage(sweep)];
        (0..self.fields).filter(move |f| mask >> f & 1 == 1)
    }

    /// What sweep `sweep` writes: each of its fields' arrays at its step.
    pub(super) fn outputs(&self, sweep: usize) -> Group<B, T, N> {
        let (t, _) = self.step_and_stage(sweep);
        self.writes(sweep).map(|f| self.at(f, t, 0)).collect()
    }

    /// What sweep `sweep` reads: each field's `L` newest levels, newest first, field by field
    /// (a field an earlier stage of the step wrote at this step, the others at the step before).
    pub(super) fn inputs(&self, sweep: usize) -> Group<B, T, N> {
        let (t, s) = self.step_and_stage(sweep);
        let earlier = self.stages[..s].iter().fold(0u8, |m, &w| m | w);
        let levels = self.levels();
        (0..self.fields)
            .flat_map(|f| {
                let new = usize::from(earlier >> f & 1);
                (0..levels).map(move |l| self.at(f, t, l + 1 - new))
            })
            .collect()
    }

    /// The levels the first sweep reads (steps `0, -1, ..`): the arrays the caller filled.
    pub(super) fn initial(&self) -> Group<B, T, N> {
        let levels = self.levels();
        (0..self.fields).flat_map(|f| (1..=levels).map(move |back| self.at(f, 1, back))).collect()
    }

    /// Each field's array that step 1 writes (its scratch before the first step).
    pub(super) fn scratch(&self) -> Group<B, T, N> {
        (0..self.fields).map(|f| self.at(f, 1, 0)).collect()
    }

    /// The rings after `done` sweeps (whole steps) as step 0: where a pass that follows them
    /// starts.
    pub(super) fn rotated(&self, done: usize) -> Self {
        debug_assert_eq!(done % self.stages.len(), 0, "passes of whole steps");
        let steps = done / self.stages.len();
        let descs = (0..self.fields)
            .flat_map(|f| (0..self.ring).map(move |p| (f, p)))
            .map(|(f, p)| self.at(f, steps % self.ring + p, 0))
            .collect();
        Rings { descs, fields: self.fields, ring: self.ring, stages: self.stages.clone() }
    }
}
