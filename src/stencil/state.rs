//! The state of a time loop: `M` evolving fields of one shape, each held at `L` time levels plus
//! one scratch array, on any backend. A step reads every field at its `L` levels (newest first)
//! and writes each field's scratch; [`State::rotate`] then makes the scratch the newest level and
//! the oldest level the scratch, without copying. [`DoubleBuffer`](super::DoubleBuffer) is the
//! one-field, one-level state.

use smallvec::SmallVec;

use super::halo::try_pad_axes_pitched;
use super::pad::PadMode;
use super::ring::LevelRings;
use crate::array::Array;
use crate::check::DefaultCheck;
use crate::element::Pod;
use crate::error::{or_panic, Error, Result};
use crate::kernel::{Backend, CopyKernels, Cpu, Desc};
use crate::layout::Strided;
use crate::view::{Shared, Unique, View};

/// `M` fields (a system's unknowns) at `L` time levels each, plus a scratch array per field, on
/// backend `B`. A time stepper (`apply_steps` of a stencil that [`Evolves<M, L>`](super::Evolves))
/// reads level `l` of field `f` as the stencil's field `f * L + l` (level 0 the newest) and writes
/// the scratch; rotating the levels moves no data.
///
/// ```
/// use cnda::prelude::*;
/// use cnda::stencil::State;
///
/// // A wave: u at the current and the previous step (two levels of one field).
/// let u = Array::from_fn([16, 16], |[i, j]| if (i, j) == (8, 8) { 1.0 } else { 0.0 });
/// let mut wave = State::from_levels([[u.clone(), u]]);
/// assert_eq!(wave.level(0, 1)[[8, 8]], 1.0);
/// wave.rotate(); // the scratch (a copy of the newest level) is now the newest level
/// assert_eq!(wave.field(0)[[8, 8]], 1.0);
/// ```
pub struct State<T: Pod, const N: usize, const M: usize = 1, const L: usize = 1, B: Backend = Cpu> {
    /// Each field's ring of its levels and its scratch.
    rings: LevelRings<Array<T, N, B>, M, L>,
    /// The halo the arrays were padded with (`from_interiors`), when the state owns it.
    halo: Option<[usize; N]>,
    /// The arrays' shape as built, and as the steppers see them: the same, but for a state that
    /// owns its halo laid out in rows of whole cache lines (`shape` then the padded shape, the
    /// arrays longer along the last axis).
    rows: Rows<N>,
}

/// A state's arrays as built (`storage`), and the part of them the steppers see (`shape`: all of
/// it, or the padded shape inside rows of whole cache lines).
#[derive(Clone, Copy, Debug)]
struct Rows<const N: usize> {
    storage: [usize; N],
    shape: [usize; N],
}

impl<const N: usize> Rows<N> {
    /// Arrays of `shape`, all of them stepped.
    fn whole(shape: [usize; N]) -> Self {
        Rows { storage: shape, shape }
    }

    /// The part of an array of `shape` that the steppers see: the padded shape of an array as
    /// built, the whole of any other (one swapped in through `field_mut`, say, which the
    /// steppers then check against the others as ever).
    fn stepped(&self, shape: [usize; N]) -> [usize; N] {
        if shape == self.storage {
            self.shape
        } else {
            shape
        }
    }

    /// `d` narrowed to the part the steppers see (only the last axis can be shorter).
    fn narrow<B: Backend, T: Pod>(&self, d: Desc<B, T, N>) -> Desc<B, T, N> {
        let shape = self.stepped(d.shape);
        match N {
            0 => d,
            // In bounds: `shape` is `d.shape` or, for an array as built, no longer on any axis.
            _ => d.narrowed(N - 1, 0, shape[N - 1]),
        }
    }
}

impl<T: Pod, const N: usize, const M: usize, const L: usize, B: CopyKernels> State<T, N, M, L, B> {
    /// Starts from `levels`: each field's levels, newest first, all of one shape. Each field's
    /// scratch is a copy of its newest level (by the backend's copy kernel), so boundary values
    /// set there persist in every array.
    ///
    /// # Panics
    ///
    /// As [`State::try_from_levels`] errs.
    #[track_caller]
    pub fn from_levels(levels: [[Array<T, N, B>; L]; M]) -> Self {
        or_panic(Self::try_from_levels(levels))
    }

    /// [`State::from_levels`], returning errors.
    ///
    /// # Errors
    ///
    /// `Error::Layout` for no field or no level (`M` or `L` zero); `Error::ShapeMismatch` when
    /// the arrays' shapes differ; `Error::DeviceMismatch` when they are on different devices;
    /// `Error::Alloc` when a scratch copy's memory is refused.
    pub fn try_from_levels(levels: [[Array<T, N, B>; L]; M]) -> Result<Self> {
        Self::try_from_levels_with(levels, |newest| newest.try_to_owned())
    }

    /// [`State::try_from_levels`] with each field's scratch made by `scratch` from its newest
    /// level.
    fn try_from_levels_with(
        levels: [[Array<T, N, B>; L]; M],
        scratch: impl FnMut(&Array<T, N, B>) -> Result<Array<T, N, B>>,
    ) -> Result<Self> {
        const OP: &str = "State::from_levels";
        if M == 0 || L == 0 {
            return Err(Error::Layout {
                op: OP,
                reason: format!("a state of {M} fields at {L} levels holds nothing to step"),
                fix: "give at least one field with at least one level",
            });
        }
        let shape = levels[0][0].shape();
        let device = B::handle_device(levels[0][0].desc().handle);
        let mut devices: SmallVec<[B::Device; 4]> = SmallVec::new();
        for array in levels.iter().flatten() {
            if array.shape() != shape {
                return Err(Error::ShapeMismatch { op: OP, expected: shape.to_vec(), got: array.shape().to_vec() });
            }
            devices.push(B::handle_device(array.desc().handle));
        }
        crate::ops::output::same_device::<B>(OP, &device, &devices)?;
        let rings = LevelRings::try_from_levels(levels, scratch)?;
        Ok(State { rings, halo: None, rows: Rows::whole(shape) })
    }
}

impl<T: Pod, const N: usize, const M: usize, const L: usize, B: CopyKernels> State<T, N, M, L, B> {
    /// Starts from each field's levels *without* halos: every array padded by `halo[k]` points
    /// at both ends of axis `k` (zeros, which the steppers' boundaries then fill), so neither
    /// the caller's arrays nor what it reads back ([`State::interior`]) carry a halo. The
    /// steppers require the halo to be the stencil's radius (`Stencil::RADIUS` of a `stencil!`,
    /// the widest stage's for [`Stages`](super::Stages)), and then also take coefficient fields
    /// of the interior's shape, where the stencil reads them only at the point itself.
    ///
    /// On the CPU the arrays are laid out as Devito lays out its fields: rows of whole cache
    /// lines (the last axis a few elements longer than the padded array, past its end: under a
    /// line for elements of a power-of-two size), each row's interior starting a line, so the
    /// kernels' vector loads and stores split none. Gray-Scott's fused steps on 4094^2 `f32`
    /// points ran 1.09x faster so (docs/BENCHMARKS.md).
    ///
    /// ```
    /// use cnda::prelude::*;
    /// use cnda::stencil::{Boundary, State};
    ///
    /// stencil! {
    ///     #[levels(2)]
    ///     struct Wave = |u, um, c| 2.0 * u[0, 0] - um[0, 0] + c[0, 0] * laplace(u, 4);
    /// }
    /// let pulse = Array::from_fn([30, 40], |[i, j]| if (i, j) == (15, 20) { 1.0 } else { 0.0 });
    /// let mut state = State::from_interior_levels([[pulse.clone(), pulse]], Wave::RADIUS);
    /// let c = Array::<f64, 2>::full([30, 40], 0.2); // unpadded too: read only at the point
    /// Wave.apply_steps_with(&mut state, 8, &c, (), [Boundary::Fixed; 2]);
    /// assert_eq!(state.interior(0).shape(), [30, 40]);
    /// assert!(state.interior(0)[[15, 27]] != 0.0);
    /// ```
    ///
    /// # Panics
    ///
    /// As [`State::try_from_interior_levels`] errs.
    #[track_caller]
    pub fn from_interior_levels(levels: [[Array<T, N, B>; L]; M], halo: [usize; N]) -> Self {
        or_panic(Self::try_from_interior_levels(levels, halo))
    }

    /// [`State::from_interior_levels`], returning errors.
    ///
    /// # Errors
    ///
    /// As [`State::try_from_levels`]; `Error::Overflow` or `Error::Alloc` for the padded arrays.
    pub fn try_from_interior_levels(levels: [[Array<T, N, B>; L]; M], halo: [usize; N]) -> Result<Self> {
        let zero = PadMode::Constant(T::zeroed());
        let pad = |level: &Array<T, N, B>| try_pad_axes_pitched(level, halo, [zero; N]);
        let mut padded: Vec<[Array<T, N, B>; L]> = Vec::with_capacity(M);
        for field in &levels {
            let mut each: Vec<Array<T, N, B>> = Vec::with_capacity(L);
            for level in field {
                each.push(pad(level)?);
            }
            padded.push(each.try_into().unwrap_or_else(|_| unreachable!("L levels")));
        }
        let padded: [[Array<T, N, B>; L]; M] = padded.try_into().unwrap_or_else(|_| unreachable!("M fields"));
        // Each scratch a copy of its newest level made as the levels are: every array of the rings
        // in rows of whole cache lines, with its interior on a line.
        let mut next = 0;
        let mut state = Self::try_from_levels_with(padded, |_| {
            next += 1;
            pad(&levels[next - 1][0])
        })?;
        state.halo = Some(halo);
        let interior = levels[0][0].shape();
        for k in 0..N {
            // Fits: arrays of this shape (or longer along the last axis) were allocated.
            state.rows.shape[k] = interior[k] + 2 * halo[k];
        }
        Ok(state)
    }
}

impl<T: Pod, const N: usize, const M: usize, B: CopyKernels> State<T, N, M, 1, B> {
    /// Starts from one level of each of `fields` (a system stepped by a one-level scheme).
    ///
    /// # Panics
    ///
    /// As [`State::try_from_levels`] errs.
    #[track_caller]
    pub fn from_fields(fields: [Array<T, N, B>; M]) -> Self {
        or_panic(Self::try_from_levels(fields.map(|f| [f])))
    }

    /// [`State::from_interior_levels`] of one level of each of `fields`.
    ///
    /// # Panics
    ///
    /// As [`State::try_from_interior_levels`] errs.
    #[track_caller]
    pub fn from_interiors(fields: [Array<T, N, B>; M], halo: [usize; N]) -> Self {
        or_panic(Self::try_from_interior_levels(fields.map(|f| [f]), halo))
    }
}

impl<T: Pod, const N: usize, const M: usize, const L: usize, B: Backend> State<T, N, M, L, B> {
    /// The halo the state owns (built by [`State::from_interiors`] or
    /// [`State::from_interior_levels`]); `None` when its arrays came with their halos.
    pub fn halo(&self) -> Option<[usize; N]> {
        self.halo
    }

    /// Field `f`'s newest level without the halo the state owns (the whole array when it owns
    /// none).
    ///
    /// # Panics
    ///
    /// When `f >= M`.
    pub fn interior(&self, f: usize) -> View<'_, T, N, Shared, B, Strided, DefaultCheck> {
        self.interior_level(f, 0)
    }

    /// Level `l` of field `f` without the halo the state owns.
    ///
    /// # Panics
    ///
    /// When `f >= M` or `l >= L`.
    pub fn interior_level(&self, f: usize, l: usize) -> View<'_, T, N, Shared, B, Strided, DefaultCheck> {
        let halo = self.halo.unwrap_or([0; N]);
        let level = self.level(f, l);
        let shape = self.rows.stepped(level.shape());
        (0..N).fold(level.view().into_strided(), |v, k| {
            v.try_narrow(k, halo[k], shape[k] - 2 * halo[k]).expect("the halo lies inside the padded array")
        })
    }

    /// The steppers' check: a state that owns its halo is stepped by stencils of that radius.
    ///
    /// # Errors
    ///
    /// `Error::Layout` otherwise.
    pub(crate) fn check_halo(&self, op: &'static str, radius: [usize; N]) -> Result<()> {
        match self.halo {
            Some(halo) if halo != radius => Err(Error::Layout {
                op,
                reason: format!("the state owns a halo of {halo:?} points but the stencil's radius is {radius:?}"),
                fix: "build the state with the stencil's radius as its halo (`Stencil::RADIUS` of a `stencil!`, \
                      the widest stage's for `Stages`)",
            }),
            _ => Ok(()),
        }
    }

    /// Field `f`'s newest level: the whole array the steppers write. For a state that owns its
    /// halo that is the interior, the halo around it, and on the CPU a few columns past the end
    /// of the last axis (rows of whole cache lines, so that every row's interior starts one),
    /// zero and never read or written by a step; [`State::interior`] is the field without them,
    /// [`State::padded`] without the columns only, and indices into the halo and interior are
    /// the same in all three. Reductions over the whole array count those zeros; coefficient
    /// fields take the padded (or the interior's) shape.
    ///
    /// # Panics
    ///
    /// When `f >= M`.
    pub fn field(&self, f: usize) -> &Array<T, N, B> {
        self.rings.level(f, 0)
    }

    /// Field `f`'s newest level, mutably (to set boundary values, or a source between steps).
    ///
    /// # Panics
    ///
    /// When `f >= M`.
    pub fn field_mut(&mut self, f: usize) -> &mut Array<T, N, B> {
        self.rings.newest_mut(f)
    }

    /// Field `f`'s newest level as the steppers see it: the interior and the halo around it,
    /// without the columns that rows of whole cache lines add past the padded width (the whole
    /// array for a state built from arrays padded by hand).
    ///
    /// # Panics
    ///
    /// When `f >= M`.
    pub fn padded(&self, f: usize) -> View<'_, T, N, Shared, B, Strided, DefaultCheck> {
        let level = self.field(f);
        let shape = self.rows.stepped(level.shape());
        match N {
            0 => level.view().into_strided(),
            _ => level.view().into_strided().try_narrow(N - 1, 0, shape[N - 1]).expect("within the array"),
        }
    }

    /// [`State::padded`], mutably: where to set boundary values or refill halos by hand
    /// (`fill_halo(state.padded_mut(f), halo, modes)`; on [`State::field_mut`] of a state that
    /// owns its halo, a periodic refill would wrap across the columns past the padded width).
    ///
    /// # Panics
    ///
    /// When `f >= M`.
    pub fn padded_mut(&mut self, f: usize) -> View<'_, T, N, Unique, B, Strided, DefaultCheck> {
        let rows = self.rows;
        let level = self.rings.newest_mut(f);
        let shape = rows.stepped(level.shape());
        match N {
            0 => level.view_mut().into_strided(),
            _ => level.view_mut().into_strided().try_narrow(N - 1, 0, shape[N - 1]).expect("within the array"),
        }
    }

    /// Field `f` at level `l` (0 the newest, `L - 1` the oldest), the whole array (as
    /// [`State::field`]).
    ///
    /// # Panics
    ///
    /// When `f >= M` or `l >= L`.
    pub fn level(&self, f: usize, l: usize) -> &Array<T, N, B> {
        self.rings.level(f, l)
    }

    /// Makes every field's scratch its newest level, and its oldest level its scratch: what a
    /// step that wrote the scratches (by hand, through [`State::scratch_mut`]) ends with.
    pub fn rotate(&mut self) {
        self.rings.advance(1);
    }

    /// Field `f`'s scratch, the array the next step writes.
    ///
    /// # Panics
    ///
    /// When `f >= M`.
    pub fn scratch_mut(&mut self, f: usize) -> &mut Array<T, N, B> {
        self.rings.scratch_mut(f)
    }

    /// Field `f`'s newest level to read and its scratch to write, at once.
    ///
    /// # Panics
    ///
    /// When `f >= M`.
    pub fn newest_and_scratch(&mut self, f: usize) -> (&Array<T, N, B>, &mut Array<T, N, B>) {
        self.rings.newest_and_scratch(f)
    }

    /// A state of one field at one level from its ring (newest, scratch), unchecked but for the
    /// count.
    pub(crate) fn from_ring(ring: Vec<Array<T, N, B>>) -> Self {
        let shape = ring.first().map(|a| a.shape()).unwrap_or([0; N]);
        State { rings: LevelRings::from_slots(ring), halo: None, rows: Rows::whole(shape) }
    }

    /// Every field's newest level, consuming the state: the whole arrays (as [`State::field`]).
    pub fn into_fields(self) -> [Array<T, N, B>; M] {
        self.rings.into_newest()
    }

    /// Every field's levels, newest first (as [`State::from_levels`] takes them), consuming the
    /// state without a copy: the whole arrays (as [`State::level`]).
    pub fn into_levels(self) -> [[Array<T, N, B>; L]; M] {
        self.rings.into_levels()
    }

    /// The descriptors of every array, ring by ring, for the time steppers: the caller borrows
    /// the state uniquely, and the arrays are distinct owned arrays.
    pub(crate) fn rings_mut(&mut self) -> SmallVec<[Desc<B, T, N>; 4]> {
        let rows = self.rows;
        self.rings.in_ring_order_mut().into_iter().map(|a| rows.narrow(a.desc_mut())).collect()
    }

    /// The descriptor of field 0's newest level as the steppers see it (its shape and device).
    pub(crate) fn first_desc(&self) -> Desc<B, T, N> {
        self.rows.narrow(self.field(0).desc())
    }

    /// Advances the rings by `steps` (what `steps` steps written into the rings end with).
    pub(crate) fn advance(&mut self, steps: usize) {
        self.rings.advance(steps);
    }
}
