//! [`DistState`]: the state of a distributed time loop, `M` fields of one split at `L` time
//! levels each plus a scratch, as [`State`](crate::stencil::State) is for one process.

use mpi::datatype::Equivalence;

use super::{DistArray, DistBackend};
use crate::element::Pod;
use crate::error::{or_panic, Error, Result};
use crate::kernel::Cpu;
use crate::stencil::ring::LevelRings;

/// `M` distributed fields of one split (the same decomposition and halos) at `L` time levels
/// each, plus a scratch field each: what a `stencil!` stencil that
/// [`Evolves<M, L>`](crate::stencil::Evolves) steps over distributed grids with
/// [`StencilApplyDist::apply_steps_dist`](super::StencilApplyDist::apply_steps_dist). Level `l`
/// of field `f` is the stencil's field `f * L + l` (level 0 the newest); rotating the levels
/// moves no data.
///
/// ```no_run
/// use cnda::dist::{DistArray, DistState};
/// let universe = mpi::initialize().unwrap();
/// let u = DistArray::<f64, 2>::new(&universe.world(), [256, 256], [4, 4], [false; 2]);
/// // A wave: u at the current and the previous step.
/// let wave = DistState::from_levels([[u.clone(), u]]);
/// assert_eq!(wave.level(0, 1).halo(), [4, 4]);
/// ```
pub struct DistState<T: Pod + Equivalence, const N: usize, const M: usize = 1, const L: usize = 1, B: DistBackend = Cpu>
{
    rings: LevelRings<DistArray<T, N, B>, M, L>,
}

impl<T: Pod + Equivalence, const N: usize, const M: usize, const L: usize, B: DistBackend> DistState<T, N, M, L, B> {
    /// Starts from `levels`: each field's levels, newest first, all split alike. Each field's
    /// scratch is a copy of its newest level (halos included). Collective.
    ///
    /// # Panics
    ///
    /// As [`DistState::try_from_levels`] errs.
    #[track_caller]
    pub fn from_levels(levels: [[DistArray<T, N, B>; L]; M]) -> Self {
        or_panic(Self::try_from_levels(levels))
    }

    /// [`DistState::from_levels`], returning errors.
    ///
    /// # Errors
    ///
    /// `Error::Layout` for no field or no level (`M` or `L` zero); `Error::ShapeMismatch` when
    /// the fields are split differently or have different halos (the same on every process: the
    /// split is known to all).
    pub fn try_from_levels(levels: [[DistArray<T, N, B>; L]; M]) -> Result<Self> {
        const OP: &str = "DistState::from_levels";
        if M == 0 || L == 0 {
            return Err(Error::Layout {
                op: OP,
                reason: format!("a state of {M} fields at {L} levels holds nothing to step"),
                fix: "give at least one field with at least one level",
            });
        }
        let first = &levels[0][0];
        for array in levels.iter().flatten() {
            if array.decomposition() != first.decomposition() || array.halo() != first.halo() {
                return Err(Error::ShapeMismatch {
                    op: OP,
                    expected: first.local().shape().to_vec(),
                    got: array.local().shape().to_vec(),
                });
            }
        }
        // `DistArray::clone` is collective and agrees on its own failures.
        let rings = LevelRings::try_from_levels(levels, |newest| Ok(newest.clone()))?;
        Ok(DistState { rings })
    }

    /// Field `f`'s newest level.
    ///
    /// # Panics
    ///
    /// When `f >= M`.
    pub fn field(&self, f: usize) -> &DistArray<T, N, B> {
        self.rings.level(f, 0)
    }

    /// Field `f`'s newest level, mutably (to set values or boundary values between calls).
    ///
    /// # Panics
    ///
    /// When `f >= M`.
    pub fn field_mut(&mut self, f: usize) -> &mut DistArray<T, N, B> {
        self.rings.newest_mut(f)
    }

    /// Field `f` at level `l` (0 the newest, `L - 1` the oldest).
    ///
    /// # Panics
    ///
    /// When `f >= M` or `l >= L`.
    pub fn level(&self, f: usize, l: usize) -> &DistArray<T, N, B> {
        self.rings.level(f, l)
    }

    /// Makes every field's scratch its newest level, and its oldest level its scratch.
    pub fn rotate(&mut self) {
        self.rings.advance(1);
    }

    /// Every field's newest level, consuming the state.
    pub fn into_fields(self) -> [DistArray<T, N, B>; M] {
        self.rings.into_newest()
    }

    /// Every array, ring by ring from the newest level (a field's levels, its scratch second),
    /// for the stepper.
    pub(super) fn in_ring_order_mut(&mut self) -> Vec<&mut DistArray<T, N, B>> {
        self.rings.in_ring_order_mut()
    }

    /// Advances the rings by `steps` (what `steps` steps written into the rings end with).
    pub(super) fn advance(&mut self, steps: usize) {
        self.rings.advance(steps);
    }
}

impl<T: Pod + Equivalence, const N: usize, const M: usize, B: DistBackend> DistState<T, N, M, 1, B> {
    /// Starts from one level of each of `fields` (a system stepped by a one-level scheme).
    /// Collective.
    ///
    /// # Panics
    ///
    /// As [`DistState::try_from_fields`] errs.
    #[track_caller]
    pub fn from_fields(fields: [DistArray<T, N, B>; M]) -> Self {
        or_panic(Self::try_from_fields(fields))
    }

    /// [`DistState::from_fields`], returning errors.
    ///
    /// # Errors
    ///
    /// As [`DistState::try_from_levels`].
    pub fn try_from_fields(fields: [DistArray<T, N, B>; M]) -> Result<Self> {
        Self::try_from_levels(fields.map(|f| [f]))
    }
}
