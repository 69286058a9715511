//! Stepping a text stencil's evolved fields: `Stepped`, the fields in cnda's own arrays (a
//! `State` of whichever number of fields and levels the stencil evolves, and the coefficient
//! fields, padded for `whole`), stepped with boundaries, sources and receivers. `Stencil.steps`
//! makes one per call from copies of the NumPy arrays and copies its levels back;
//! `cnda.StencilState` (`Stencil.state(...)`) keeps one between calls, so a time loop of many
//! calls copies nothing (the fields are read out, as copies, when asked for).

use cnda::kernel::Cpu;
use cnda::stencil::{
    try_fill_boundaries, try_pad_axes, Boundaries, Boundary, FieldBoundaries, PadMode, PointIo, Side, State,
    TextStencil,
};
use cnda::{Array, Float};

use crate::text_points::{Frame, Receiver, Source};

/// A `State` of the stencil's count of evolved fields (`M`) and time levels (`L`): the
/// combinations up to eight arrays.
pub enum Rings<T: cnda::Pod, const N: usize> {
    R11(State<T, N, 1, 1, Cpu>),
    R21(State<T, N, 2, 1, Cpu>),
    R31(State<T, N, 3, 1, Cpu>),
    R41(State<T, N, 4, 1, Cpu>),
    R12(State<T, N, 1, 2, Cpu>),
    R22(State<T, N, 2, 2, Cpu>),
    R13(State<T, N, 1, 3, Cpu>),
    R23(State<T, N, 2, 3, Cpu>),
}

/// `body` on the state, whichever `Rings` holds it, with `$m` and `$l` bound to its counts of
/// fields and levels.
macro_rules! each_ring {
    ($rings:expr, |$state:ident, $m:ident, $l:ident| $body:expr) => {
        match $rings {
            Rings::R11($state) => each_ring!(@ $m 1, $l 1, $body),
            Rings::R21($state) => each_ring!(@ $m 2, $l 1, $body),
            Rings::R31($state) => each_ring!(@ $m 3, $l 1, $body),
            Rings::R41($state) => each_ring!(@ $m 4, $l 1, $body),
            Rings::R12($state) => each_ring!(@ $m 1, $l 2, $body),
            Rings::R22($state) => each_ring!(@ $m 2, $l 2, $body),
            Rings::R13($state) => each_ring!(@ $m 1, $l 3, $body),
            Rings::R23($state) => each_ring!(@ $m 2, $l 3, $body),
        }
    };
    (@ $m:ident $fields:literal, $l:ident $levels:literal, $body:expr) => {{
        #[allow(dead_code)] // the bodies that do not name them
        const $m: usize = $fields;
        #[allow(dead_code)]
        const $l: usize = $levels;
        $body
    }};
}

/// The evolved fields and coefficient fields of a text stencil, stepped in cnda's arrays.
pub struct Stepped<T: cnda::Pod, const N: usize> {
    rings: Rings<T, N>,
    coefficients: Vec<Array<T, N>>,
    boundaries: Boundaries<T, N>,
    /// Where points are given: the arrays' shape, and the halo the state added for `whole`.
    pub frame: Frame<N>,
}

impl<T: cnda::stencil::Scalar + Float, const N: usize> Stepped<T, N> {
    /// The stencil's evolved levels (newest first, field by field) then its coefficient fields,
    /// all of `shape` (`op` the call that makes it, for messages): for `whole`, every point of them is stepped (a halo of the radius made
    /// around them, coefficient fields padded as their sides say); else their edge ring is the
    /// halo.
    pub fn new(
        op: &'static str,
        s: &TextStencil<N>,
        arrays: Vec<Array<T, N>>,
        boundaries: Boundaries<T, N>,
        whole: bool,
        shape: [usize; N],
    ) -> cnda::Result<Self> {
        let halo = s.radius();
        let mut levels = arrays;
        let coefficients = levels.split_off(s.outputs() * s.levels());
        let coefficients = match whole {
            true => {
                let sides = coefficient_sides(boundaries);
                coefficients.iter().map(|c| surround(c, halo, sides)).collect::<cnda::Result<Vec<_>>>()?
            }
            false => coefficients,
        };
        let rings = rings(op, s, levels, whole.then_some(halo))?;
        Ok(Stepped { rings, coefficients, boundaries, frame: Frame { shape, whole: whole.then_some(halo) } })
    }

    /// `steps` fused steps with parameters `values`, injecting `sources` and recording
    /// `receivers` into `records` (one per receiver, a row per step).
    pub fn run(
        &mut self,
        s: &TextStencil<N>,
        steps: usize,
        values: &[T],
        sources: &[Source<T, N>],
        receivers: &[Receiver<N>],
        records: &mut [Array<T, 2>],
    ) -> cnda::Result<()> {
        let (boundaries, coefficients) = (self.boundaries, &self.coefficients[..]);
        each_ring!(&mut self.rings, |state, M, L| {
            let mut io = PointIo::new(FieldBoundaries([boundaries; M]));
            for source in sources {
                io = io.inject(&source.points, source.field, source.series.view());
            }
            for (receiver, record) in receivers.iter().zip(records.iter_mut()) {
                io = io.record(&receiver.points, receiver.field, record.view_mut());
            }
            s.try_par_apply_steps_with(state, steps, coefficients, values, io)
        })
    }

    /// A copy of level `l` (0 the newest) of evolved field `f`, without the halo of `whole`.
    pub fn level(&self, f: usize, l: usize) -> Array<T, N> {
        each_ring!(&self.rings, |state, M, L| state.interior_level(f, l).to_owned())
    }

    /// The evolved levels, newest first, field by field: the state's own arrays where they are
    /// the fields' whole shape, copies of their interiors for `whole`.
    pub fn into_levels(self) -> Vec<Array<T, N>> {
        let whole = self.frame.whole.is_some();
        each_ring!(self.rings, |state, M, L| match whole {
            true => {
                let each = (0..M).flat_map(|m| (0..L).map(move |l| (m, l)));
                each.map(|(m, l)| state.interior_level(m, l).to_owned()).collect()
            }
            false => state.into_levels().into_iter().flatten().collect(),
        })
    }
}

/// The state of `levels` (newest first, field by field) for `s`, owning a halo of `halo` around
/// each (for `whole`) or taking the arrays as they are.
fn rings<T: cnda::stencil::Scalar + Float, const N: usize>(
    op: &'static str,
    s: &TextStencil<N>,
    levels: Vec<Array<T, N>>,
    halo: Option<[usize; N]>,
) -> cnda::Result<Rings<T, N>> {
    let mut levels = levels.into_iter();
    macro_rules! build {
        ($($m:literal, $l:literal => $variant:ident);*) => {
            match (s.outputs(), s.levels()) {
                $(($m, $l) => {
                    let rings: [[Array<T, N>; $l]; $m] =
                        core::array::from_fn(|_| core::array::from_fn(|_| levels.next().expect("M * L levels")));
                    Ok(Rings::$variant(match halo {
                        Some(halo) => State::try_from_interior_levels(rings, halo)?,
                        None => State::try_from_levels(rings)?,
                    }))
                })*
                (m, l) => Err(cnda::Error::Limit {
                    op,
                    backend: "Cpu",
                    what: "evolved fields times time levels",
                    got: (m * l) as u64,
                    max: 8,
                    fix: "step up to 4 fields at one level, or 2 fields at 2 or 3 levels, or 1 field at up to 3 levels",
                }),
            }
        };
    }
    build!(1, 1 => R11; 2, 1 => R21; 3, 1 => R31; 4, 1 => R41; 1, 2 => R12; 2, 2 => R22; 1, 3 => R13; 2, 3 => R23)
}

/// `whole=True` refuses a fixed side: it keeps a halo the arrays do not have.
pub fn refuse_fixed<T: Float, const N: usize>(boundaries: &Boundaries<T, N>, op: &str) -> pyo3::PyResult<()> {
    for axis in 0..N {
        for side in [Side::Low, Side::High] {
            if matches!(boundaries.at(axis, side), Boundary::Fixed) {
                return Err(pyo3::exceptions::PyValueError::new_err(format!(
                    "{op}: whole=True steps every point of the arrays, but axis {axis} has a 'fixed' side, \
                     which keeps a halo the arrays do not have; give 'periodic' (wraps around, as np.roll), \
                     'neumann' or a number for every side (or whole=False: the edge ring is the halo)"
                )));
            }
        }
    }
    Ok(())
}

/// The sides a coefficient field's halo is made with for `whole`: the evolved fields' periodic
/// and mirrored sides, mirrored where they hold a value (a coefficient such as a velocity is
/// extended, not set to the field's wall value).
fn coefficient_sides<T: Float, const N: usize>(boundaries: Boundaries<T, N>) -> Boundaries<T, N> {
    let mut sides = boundaries;
    for axis in 0..N {
        for side in [Side::Low, Side::High] {
            if let Boundary::Value(_) = boundaries.at(axis, side) {
                sides = sides.with(axis, side, Boundary::Neumann);
            }
        }
    }
    sides
}

/// `a` inside a halo of `widths` made as `boundaries` say.
fn surround<T: Float, const N: usize>(
    a: &Array<T, N>,
    widths: [usize; N],
    boundaries: Boundaries<T, N>,
) -> cnda::Result<Array<T, N>> {
    let mut padded = try_pad_axes(a, widths, [PadMode::Constant(T::from_f64(0.0)); N])?;
    try_fill_boundaries(&mut padded, widths, boundaries)?;
    Ok(padded)
}
