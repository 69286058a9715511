//! The arrays a time stepper writes: per evolving field, a ring of its `L` time levels and a
//! scratch. Sweep `t` (sweep 0 the initial newest level, sweeps `-1 ..= 1 - L` the older
//! levels) lives at ring position `t mod (L + 1)`: it reads the `L` sweeps before it and
//! overwrites the one `L + 1` back, so no level is ever copied.

use smallvec::SmallVec;

use crate::element::Pod;
use crate::kernel::{Backend, Desc};

/// The descriptors of `fields` rings of `ring` arrays each, ring by ring, in position order.
#[derive(Clone)]
pub(super) struct Rings<B: Backend, T: Pod, const N: usize> {
    descs: SmallVec<[Desc<B, T, N>; 4]>,
    fields: usize,
    ring: usize,
}

/// The descriptors of one sweep's fields: one per evolving field, or one per level of each.
pub(super) type Group<B, T, const N: usize> = SmallVec<[Desc<B, T, N>; 4]>;

impl<B: Backend, T: Pod, const N: usize> Rings<B, T, N> {
    /// `descs` as `fields` rings of `ring` arrays each (`ring >= 2`).
    pub(super) fn new(descs: SmallVec<[Desc<B, T, N>; 4]>, fields: usize, ring: usize) -> Self {
        assert!(ring >= 2 && fields >= 1 && descs.len() == fields * ring, "one ring of levels and a scratch per field");
        Rings { descs, fields, ring }
    }

    /// One field's two arrays (sweep 0 in the first).
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

    /// Every array.
    pub(super) fn all(&self) -> &[Desc<B, T, N>] {
        &self.descs
    }

    /// Field `f`'s array holding sweep `t - back` (positions repeat every ring; `back` at most
    /// the ring, so no sweep number wraps, whatever `t`).
    pub(super) fn at(&self, f: usize, t: usize, back: usize) -> Desc<B, T, N> {
        debug_assert!(back <= self.ring);
        self.descs[f * self.ring + (t % self.ring + self.ring - back) % self.ring]
    }

    /// What sweep `t` writes: each field's array at `t`.
    pub(super) fn outputs(&self, t: usize) -> Group<B, T, N> {
        (0..self.fields).map(|f| self.at(f, t, 0)).collect()
    }

    /// What sweep `t` reads: each field's `L` previous sweeps, newest first, field by field.
    pub(super) fn inputs(&self, t: usize) -> Group<B, T, N> {
        let levels = self.levels();
        (0..self.fields).flat_map(|f| (1..=levels).map(move |back| self.at(f, t, back))).collect()
    }

    /// The levels sweep 1 reads (sweeps `0, -1, ..`): the arrays the caller filled.
    pub(super) fn initial(&self) -> Group<B, T, N> {
        self.inputs(1)
    }

    /// The rings with sweep `done` as sweep 0: where a pass that follows `done` sweeps starts.
    pub(super) fn rotated(&self, done: usize) -> Self {
        let descs = (0..self.fields)
            .flat_map(|f| (0..self.ring).map(move |p| (f, p)))
            .map(|(f, p)| self.at(f, done % self.ring + p, 0))
            .collect();
        Rings { descs, fields: self.fields, ring: self.ring }
    }
}
