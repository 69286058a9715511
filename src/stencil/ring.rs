//! The bookkeeping of a time loop's arrays, whatever they are (arrays, distributed arrays): `M`
//! fields, each a ring of its `L` time levels and one scratch, and the position of the newest
//! level. Rotating the levels moves the position, not the data.

use crate::error::Result;

/// `M` rings of `L + 1` arrays `A` (field `f`'s at `f * (L + 1) ..`) and the ring position of
/// every field's newest level.
pub(crate) struct LevelRings<A, const M: usize, const L: usize> {
    slots: Vec<A>,
    head: usize,
}

impl<A, const M: usize, const L: usize> LevelRings<A, M, L> {
    /// Each field's levels (newest first) and a scratch made by `scratch` from its newest level.
    ///
    /// # Errors
    ///
    /// The first error of `scratch`.
    pub(crate) fn try_from_levels(levels: [[A; L]; M], mut scratch: impl FnMut(&A) -> Result<A>) -> Result<Self> {
        let mut slots = Vec::with_capacity(M * (L + 1));
        for field in levels {
            let scratch = scratch(&field[0])?;
            // The ring of a field: newest level at position 0, the scratch at 1, the older
            // levels after it, oldest last, so that position `(head + d) mod (L + 1)` holds
            // level `-d` for `d <= 0` and the scratch for `d == 1`.
            let mut ring: Vec<A> = field.into_iter().collect();
            let older = ring.split_off(1);
            ring.push(scratch);
            ring.extend(older.into_iter().rev());
            slots.extend(ring);
        }
        Ok(LevelRings { slots, head: 0 })
    }

    /// Rings laid out already (newest, scratch, older levels oldest last), unchecked but for the
    /// count.
    pub(crate) fn from_slots(slots: Vec<A>) -> Self {
        assert_eq!(slots.len(), M * (L + 1), "one array per level and a scratch per field");
        LevelRings { slots, head: 0 }
    }

    /// The slot of field `f`'s level `-d` (`d <= 0`) or its scratch (`d == 1`).
    fn slot(&self, f: usize, d: isize) -> usize {
        assert!(f < M, "field {f} of a state of {M} fields");
        let ring = L + 1;
        f * ring + (self.head as isize + d).rem_euclid(ring as isize) as usize
    }

    /// Field `f` at level `l` (0 the newest).
    pub(crate) fn level(&self, f: usize, l: usize) -> &A {
        assert!(l < L, "level {l} of a state of {L} levels");
        &self.slots[self.slot(f, -(l as isize))]
    }

    /// Field `f`'s newest level, mutably.
    pub(crate) fn newest_mut(&mut self, f: usize) -> &mut A {
        let s = self.slot(f, 0);
        &mut self.slots[s]
    }

    /// Field `f`'s scratch, mutably.
    pub(crate) fn scratch_mut(&mut self, f: usize) -> &mut A {
        let s = self.slot(f, 1);
        &mut self.slots[s]
    }

    /// Field `f`'s newest level to read and its scratch to write, at once.
    pub(crate) fn newest_and_scratch(&mut self, f: usize) -> (&A, &mut A) {
        let (newest, scratch) = (self.slot(f, 0), self.slot(f, 1));
        debug_assert_ne!(newest, scratch, "a ring of at least two arrays");
        if newest < scratch {
            let (low, high) = self.slots.split_at_mut(scratch);
            (&low[newest], &mut high[0])
        } else {
            let (low, high) = self.slots.split_at_mut(newest);
            (&high[0], &mut low[scratch])
        }
    }

    /// Every array, each ring from its newest level (position `p` of field `f` is the slot
    /// `(head + p) mod (L + 1)`): the order the time steppers take them in.
    pub(crate) fn in_ring_order_mut(&mut self) -> Vec<&mut A> {
        let (head, ring) = (self.head, L + 1);
        let mut order: Vec<Option<&mut A>> = self.slots.iter_mut().map(Some).collect();
        let mut out = Vec::with_capacity(order.len());
        for f in 0..M {
            for p in 0..ring {
                out.push(order[f * ring + (head + p) % ring].take().expect("each slot once"));
            }
        }
        out
    }

    /// Advances the rings by `steps` (what `steps` steps written into the rings end with).
    pub(crate) fn advance(&mut self, steps: usize) {
        self.head = (self.head + steps % (L + 1)) % (L + 1);
    }

    /// Every field's newest level, consuming the rings.
    pub(crate) fn into_newest(self) -> [A; M] {
        let newest: Vec<usize> = (0..M).map(|f| self.slot(f, 0)).collect();
        let mut slots: Vec<Option<A>> = self.slots.into_iter().map(Some).collect();
        core::array::from_fn(|f| slots[newest[f]].take().expect("one slot per field"))
    }

    /// Every field's levels, newest first, consuming the rings (the scratches dropped).
    pub(crate) fn into_levels(self) -> [[A; L]; M] {
        let at: Vec<[usize; L]> = (0..M).map(|f| core::array::from_fn(|l| self.slot(f, -(l as isize)))).collect();
        let mut slots: Vec<Option<A>> = self.slots.into_iter().map(Some).collect();
        core::array::from_fn(|f| core::array::from_fn(|l| slots[at[f][l]].take().expect("one slot per level")))
    }
}

#[cfg(test)]
mod tests {
    use super::LevelRings;

    #[test]
    fn into_levels_gives_each_field_newest_first_after_rotations() {
        let mut rings =
            LevelRings::<u32, 2, 3>::try_from_levels([[10, 11, 12], [20, 21, 22]], |&a| Ok(a + 100)).unwrap();
        *rings.scratch_mut(0) = 9;
        *rings.scratch_mut(1) = 19;
        rings.advance(1);
        assert_eq!(rings.into_levels(), [[9, 10, 11], [19, 20, 21]]);
    }

    #[test]
    fn levels_rotate_through_the_scratch_without_moving() {
        let mut rings =
            LevelRings::<u32, 2, 3>::try_from_levels([[10, 11, 12], [20, 21, 22]], |&a| Ok(a + 100)).unwrap();
        assert_eq!([*rings.level(0, 0), *rings.level(0, 1), *rings.level(0, 2)], [10, 11, 12]);
        assert_eq!(*rings.scratch_mut(1), 120);
        *rings.scratch_mut(0) = 1; // a step writes the scratch
        rings.advance(1);
        assert_eq!([*rings.level(0, 0), *rings.level(0, 1), *rings.level(0, 2)], [1, 10, 11]);
        assert_eq!(*rings.scratch_mut(0), 12, "the oldest level is the next scratch");
        let order: Vec<u32> = rings.in_ring_order_mut().into_iter().map(|a| *a).collect();
        assert_eq!(order, [1, 12, 11, 10, 120, 22, 21, 20]);
        rings.advance(7); // 7 = 3 mod 4
        assert_eq!(rings.into_newest(), [10, 20]);
    }
}
