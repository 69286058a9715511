//! `cnda.StencilState` (`Stencil.state(*arrays, ...)`): a text stencil's fields held in cnda's
//! own arrays between calls, so a time loop of many `steps` calls copies nothing in or out. The
//! arrays are copied in once; `state["u"]` is a copy of a level, made when asked for; the
//! parameters are the ones given to `Stencil.state`, each replaceable for one call.

use cnda::stencil::TextStencil;
use cnda::Array;
use numpy::Element;
use pyo3::exceptions::{PyKeyError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use crate::errors::to_pyerr;
use crate::kernels::PARALLEL_FROM;
use crate::text::{assigned, prepared};
use crate::text_points::{receivers, records, returned, sources};
use crate::text_state::Stepped;

/// A stencil, its fields and its parameters' values, of one element type and rank.
pub struct Hold<T: cnda::Pod, const N: usize> {
    stencil: TextStencil<N>,
    stepped: Stepped<T, N>,
    values: Vec<T>,
}

/// A `Hold` of whichever element type and rank the arrays had.
pub enum Held {
    F64x1(Hold<f64, 1>),
    F64x2(Hold<f64, 2>),
    F64x3(Hold<f64, 3>),
    F32x1(Hold<f32, 1>),
    F32x2(Hold<f32, 2>),
    F32x3(Hold<f32, 3>),
}

macro_rules! held_from {
    ($($variant:ident: $t:ty, $n:literal);*) => {$(
        impl From<Hold<$t, $n>> for Held {
            fn from(hold: Hold<$t, $n>) -> Held {
                Held::$variant(hold)
            }
        }
    )*};
}

held_from!(F64x1: f64, 1; F64x2: f64, 2; F64x3: f64, 3; F32x1: f32, 1; F32x2: f32, 2; F32x3: f32, 3);

/// `body` on the `Hold`, whichever `Held` has it.
macro_rules! each_held {
    ($held:expr, |$h:ident| $body:expr) => {
        match $held {
            Held::F64x1($h) => $body,
            Held::F64x2($h) => $body,
            Held::F64x3($h) => $body,
            Held::F32x1($h) => $body,
            Held::F32x2($h) => $body,
            Held::F32x3($h) => $body,
        }
    };
}

#[doc = include_str!(concat!(env!("OUT_DIR"), "/doc/class.StencilState.txt"))] // python/cnda.pyi's docstring
#[pyclass(module = "cnda", name = "StencilState")]
pub struct StencilState {
    held: Held,
    steps_taken: u64,
}

/// `Stencil.state` for arrays of `T` and a stencil of rank `N`.
pub fn state<T, const N: usize>(
    py: Python<'_>,
    s: &TextStencil<N>,
    arrays: &[Bound<'_, PyAny>],
    boundary: Option<&Bound<'_, PyAny>>,
    whole: bool,
    params: Option<&Bound<'_, PyDict>>,
) -> PyResult<StencilState>
where
    T: cnda::stencil::Scalar + cnda::Float + Element + crate::array::Stored,
    Held: From<Hold<T, N>>,
{
    const OP: &str = "Stencil.state";
    let (copies, boundaries, shape) = prepared::<T, N>(s, arrays, boundary, whole, OP)?;
    let values = assigned::<T>(s.params(), vec![None; s.params().len()], params, OP)?;
    let points: usize = shape.iter().product();
    let make = move || Stepped::new(OP, s, copies, boundaries, whole, shape);
    let stepped = if points >= PARALLEL_FROM { py.detach(make) } else { make() }.map_err(to_pyerr)?;
    Ok(StencilState { held: Held::from(Hold { stencil: s.clone(), stepped, values }), steps_taken: 0 })
}

/// `StencilState.steps` on a `Hold`.
fn advance<'py, T, const N: usize>(
    py: Python<'py>,
    h: &mut Hold<T, N>,
    steps: usize,
    given: (Option<&Bound<'py, PyAny>>, Option<&Bound<'py, PyAny>>),
    params: Option<&Bound<'py, PyDict>>,
) -> PyResult<Option<Bound<'py, PyAny>>>
where
    T: cnda::stencil::Scalar + cnda::Float + Element + crate::array::Stored,
{
    const OP: &str = "StencilState.steps";
    let s = &h.stencil;
    for fixed in ["boundary", "whole"] {
        if params.is_some_and(|p| p.contains(fixed).unwrap_or(false)) && !s.params().iter().any(|n| n == fixed) {
            return Err(PyTypeError::new_err(format!(
                "{OP}: {fixed} is fixed when the state is made; make another with Stencil.state(..., {fixed}=...) to \
                 change it"
            )));
        }
    }
    let values = assigned::<T>(s.params(), h.values.iter().copied().map(Some).collect(), params, OP)?;
    let frame = h.stepped.frame;
    let sources = sources::<T, N>(OP, s, given.0, steps, frame)?;
    let (receivers, alone) = receivers::<N>(OP, s, given.1, frame)?;
    let mut records = records::<T, N>(&receivers, steps)?;
    let points: usize = frame.shape.iter().product();
    let stepped = &mut h.stepped;
    let records_mut = &mut records;
    let mut run = move || stepped.run(s, steps, &values, &sources, &receivers, records_mut);
    let result = if points.saturating_mul(steps) >= PARALLEL_FROM { py.detach(run) } else { run() };
    result.map_err(to_pyerr)?;
    returned(py, given.1, alone, records)
}

/// A copy of the level named `name`, as a NumPy array.
fn level<'py, T: cnda::stencil::Scalar + cnda::Float + crate::array::Stored, const N: usize>(
    py: Python<'py>,
    h: &Hold<T, N>,
    name: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let s = &h.stencil;
    let evolved = s.outputs() * s.levels();
    match s.fields().iter().position(|f| f == name) {
        Some(k) if k < evolved => {
            let copy: Array<T, N> = h.stepped.level(k / s.levels(), k % s.levels());
            crate::array::into_numpy(py, copy)
        }
        Some(_) => Err(PyKeyError::new_err(format!(
            "StencilState: '{name}' is a coefficient field, which steps do not change: the state holds a copy of the \
             array you passed; read that one"
        ))),
        None => Err(PyKeyError::new_err(format!(
            "StencilState: no field '{name}'; the evolved fields' levels are ({})",
            s.fields()[..evolved].join(", ")
        ))),
    }
}

#[pymethods]
impl StencilState {
    #[doc = include_str!(concat!(env!("OUT_DIR"), "/doc/def.StencilState.steps.txt"))] // python/cnda.pyi's docstring
    #[pyo3(signature = (steps = 1, sources = None, receivers = None, **params))]
    fn steps<'py>(
        &mut self,
        py: Python<'py>,
        steps: i64,
        sources: Option<&Bound<'py, PyAny>>,
        receivers: Option<&Bound<'py, PyAny>>,
        params: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        let steps = crate::stencil_args::steps(steps)?;
        let records = each_held!(&mut self.held, |h| advance(py, h, steps, (sources, receivers), params))?;
        self.steps_taken += steps as u64;
        Ok(records)
    }

    #[doc = include_str!(concat!(env!("OUT_DIR"), "/doc/def.StencilState.__getitem__.txt"))] // python/cnda.pyi's docstring
    fn __getitem__<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
        each_held!(&self.held, |h| level(py, h, name))
    }

    /// The evolved fields' levels, as the stencil names them (newest first, field by field).
    #[getter]
    fn fields(&self) -> Vec<String> {
        each_held!(&self.held, |h| {
            let s = &h.stencil;
            s.fields()[..s.outputs() * s.levels()].to_vec()
        })
    }

    /// The shape of the arrays the state was made from.
    #[getter]
    fn shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        each_held!(&self.held, |h| PyTuple::new(py, h.stepped.frame.shape))
    }

    /// The steps taken since the state was made.
    #[getter]
    fn steps_taken(&self) -> u64 {
        self.steps_taken
    }

    fn __repr__(&self) -> String {
        let dtype = match self.held {
            Held::F64x1(_) | Held::F64x2(_) | Held::F64x3(_) => "float64",
            _ => "float32",
        };
        let shape = each_held!(&self.held, |h| crate::text_points::tuple(&h.stepped.frame.shape));
        let fields: Vec<String> = self.fields().iter().map(|f| format!("'{f}'")).collect();
        format!(
            "StencilState(fields=[{}], shape={shape}, dtype={dtype}, steps_taken={})",
            fields.join(", "),
            self.steps_taken
        )
    }
}
