//! `cnda.Stencil`: any stencil in `stencil!`'s language, read from a string (cnda's
//! `TextStencil`: the macro's own parser, checks and messages), on NumPy arrays of float32 or
//! float64, 1D to 3D: one sweep (`__call__`, the arrays read in place, the interior written into
//! `out` or into copies of the evolving fields) or `steps` fused sweeps of the fields it evolves
//! with boundaries (`steps`, in place). The interpreter lock is released while large calls run.

use cnda::stencil::{Boundaries, TextStencil};
use cnda::{Array, Float};
use numpy::{Element, PyArrayDyn, PyArrayMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use crate::borrow::{read, view, view_mut, write};
use crate::errors::to_pyerr;
use crate::kernels::PARALLEL_FROM;
use crate::overlap::{check_read, check_write, lease, overlap_error, span_of, Operand};
use crate::text_points::Frame;
use crate::text_state::{refuse_fixed, Stepped};

/// The parsed stencil, by the rank its offsets give.
enum Ranked {
    One(TextStencil<1>),
    Two(TextStencil<2>),
    Three(TextStencil<3>),
}

/// `f(stencil)` on the stencil of whichever rank it has, `N` bound to it.
macro_rules! ranked {
    ($ranked:expr, |$s:ident, $n:ident| $body:expr) => {
        match $ranked {
            Ranked::One($s) => {
                #[allow(dead_code)] // the bodies that do not name it
                const $n: usize = 1;
                $body
            }
            Ranked::Two($s) => {
                #[allow(dead_code)] // the bodies that do not name it
                const $n: usize = 2;
                $body
            }
            Ranked::Three($s) => {
                #[allow(dead_code)] // the bodies that do not name it
                const $n: usize = 3;
                $body
            }
        }
    };
}

/// `body` with `$t` the element type of the array `first` (float64 or float32); else the dtype
/// error.
macro_rules! by_dtype {
    ($first:expr, |$t:ident| $body:expr) => {
        if $first.cast::<PyArrayDyn<f64>>().is_ok() {
            type $t = f64;
            $body
        } else if $first.cast::<PyArrayDyn<f32>>().is_ok() {
            type $t = f32;
            $body
        } else {
            Err(dtype_error($first))
        }
    };
}

/// The keywords of `Stencil.steps` and `Stencil.__call__`, which no parameter may be named.
const KEYWORDS: [&str; 6] = ["steps", "boundary", "whole", "sources", "receivers", "out"];

#[doc = include_str!(concat!(env!("OUT_DIR"), "/doc/class.Stencil.txt"))] // python/cnda.pyi's docstring
#[pyclass(module = "cnda", name = "Stencil", frozen)]
pub struct Stencil {
    ranked: Ranked,
}

impl Stencil {
    /// The first of the arrays a call was given (whose dtype picks the element type); a
    /// `TypeError` naming the fields where none was.
    fn first<'a, 'py>(&self, arrays: &'a [Bound<'py, PyAny>], op: &str) -> PyResult<&'a Bound<'py, PyAny>> {
        arrays.first().ok_or_else(|| {
            PyTypeError::new_err(format!("{op}: no arrays given; pass one per field ({})", self.fields().join(", ")))
        })
    }
}

#[pymethods]
impl Stencil {
    #[new]
    fn new(text: &str) -> PyResult<Self> {
        // The rank is the number of offsets each field is read at: try each.
        let ranked = match TextStencil::<1>::try_parse(text) {
            Ok(s) => Ranked::One(s),
            Err(e @ cnda::Error::Syntax { .. }) => return Err(syntax_error(e)),
            Err(first) => match TextStencil::<2>::try_parse(text) {
                Ok(s) => Ranked::Two(s),
                Err(_) => match TextStencil::<3>::try_parse(text) {
                    Ok(s) => Ranked::Three(s),
                    Err(_) => {
                        return Err(PyValueError::new_err(format!(
                            "Stencil: {first}; cnda.Stencil reads stencils of 1 to 3 axes"
                        )))
                    }
                },
            },
        };
        let stencil = Stencil { ranked };
        if let Some(p) = stencil.params().iter().find(|p| KEYWORDS.contains(&p.as_str())) {
            return Err(PyValueError::new_err(format!(
                "Stencil: parameter {p} has the name of a keyword of Stencil.steps or of a call ({}), so it could not \
                 be passed by name; rename it in the text",
                KEYWORDS.join(", ")
            )));
        }
        Ok(stencil)
    }

    /// The input fields' names, in order.
    #[getter]
    fn fields(&self) -> Vec<String> {
        ranked!(&self.ranked, |s, N| s.fields().to_vec())
    }

    /// The parameters' names, in order.
    #[getter]
    fn params(&self) -> Vec<String> {
        ranked!(&self.ranked, |s, N| s.params().to_vec())
    }

    /// The number of values computed at each point (the fields a step evolves).
    #[getter]
    fn outputs(&self) -> usize {
        ranked!(&self.ranked, |s, N| s.outputs())
    }

    /// The time levels read of each evolved field.
    #[getter]
    fn levels(&self) -> usize {
        ranked!(&self.ranked, |s, N| s.levels())
    }

    /// The number of axes.
    #[getter]
    fn ndim(&self) -> usize {
        ranked!(&self.ranked, |_s, N| N)
    }

    /// The largest offset along each axis.
    #[getter]
    fn radius(&self) -> Vec<usize> {
        ranked!(&self.ranked, |s, N| s.radius().to_vec())
    }

    /// The text it was read from.
    #[getter]
    fn source(&self) -> String {
        ranked!(&self.ranked, |s, N| s.source().to_string())
    }

    fn __repr__(&self) -> String {
        format!("cnda.Stencil({:?})", self.source())
    }

    /// One sweep: `out[m][x]` = value `m` at every interior point `x` (at least the radius from
    /// every edge); returns the outputs (one array, or a tuple of one per value).
    #[pyo3(signature = (*fields, out = None, **params))]
    fn __call__<'py>(
        &self,
        py: Python<'py>,
        fields: &Bound<'py, PyTuple>,
        out: Option<&Bound<'py, PyAny>>,
        params: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let fields: Vec<Bound<'py, PyAny>> = fields.iter().collect();
        let first = self.first(&fields, "Stencil")?;
        by_dtype!(first, |T| ranked!(&self.ranked, |s, N| sweep::<T, N>(py, s, &fields, out, params)))
    }

    #[doc = include_str!(concat!(env!("OUT_DIR"), "/doc/def.Stencil.steps.txt"))] // python/cnda.pyi's docstring
    #[pyo3(signature = (*arrays, steps = 1, boundary = None, whole = false, sources = None, receivers = None, **params))]
    #[allow(clippy::too_many_arguments)] // Python's keywords
    fn steps<'py>(
        &self,
        py: Python<'py>,
        arrays: &Bound<'py, PyTuple>,
        steps: i64,
        boundary: Option<&Bound<'py, PyAny>>,
        whole: bool,
        sources: Option<&Bound<'py, PyAny>>,
        receivers: Option<&Bound<'py, PyAny>>,
        params: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        let steps = crate::stencil_args::steps(steps)?;
        let arrays: Vec<Bound<'py, PyAny>> = arrays.iter().collect();
        let first = self.first(&arrays, "Stencil.steps")?;
        let how = Stepping { steps, boundary, whole, sources, receivers };
        by_dtype!(first, |T| ranked!(&self.ranked, |s, N| step::<T, N>(py, s, &arrays, &how, params)))
    }

    #[doc = include_str!(concat!(env!("OUT_DIR"), "/doc/def.Stencil.state.txt"))] // python/cnda.pyi's docstring
    #[pyo3(signature = (*arrays, boundary = None, whole = false, **params))]
    fn state(
        &self,
        py: Python<'_>,
        arrays: &Bound<'_, PyTuple>,
        boundary: Option<&Bound<'_, PyAny>>,
        whole: bool,
        params: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<crate::stencil_state::StencilState> {
        use crate::stencil_state::state;
        let arrays: Vec<Bound<'_, PyAny>> = arrays.iter().collect();
        let first = self.first(&arrays, "Stencil.state")?;
        by_dtype!(first, |T| ranked!(&self.ranked, |s, N| state::<T, N>(py, s, &arrays, boundary, whole, params)))
    }
}

/// A refusal of the text, as `ValueError` with cnda's message (line, column, caret).
fn syntax_error(e: cnda::Error) -> PyErr {
    PyValueError::new_err(e.to_string())
}

fn dtype_error(x: &Bound<'_, PyAny>) -> PyErr {
    let got = x.getattr("dtype").map(|d| d.to_string()).unwrap_or_else(|_| x.get_type().to_string());
    PyTypeError::new_err(format!(
        "Stencil: the fields must be numpy.ndarrays of float32 or float64, got {got}; convert with np.asarray(u, dtype=np.float64)"
    ))
}

/// The parameters in the stencil's order, from keyword arguments named as the stencil names them.
fn ordered<T: Float>(names: &[String], given: Option<&Bound<'_, PyDict>>, op: &str) -> PyResult<Vec<T>> {
    assigned(names, vec![None; names.len()], given, op)
}

/// `values` (one per parameter, `None` where none is set yet) with those `given` as keyword
/// arguments replacing theirs; every parameter must then have one.
pub(crate) fn assigned<T: Float>(
    names: &[String],
    mut values: Vec<Option<T>>,
    given: Option<&Bound<'_, PyDict>>,
    op: &str,
) -> PyResult<Vec<T>> {
    if let Some(given) = given {
        for (key, value) in given.iter() {
            let key: String = key.extract()?;
            let Some(i) = names.iter().position(|n| *n == key) else {
                return Err(PyTypeError::new_err(format!(
                    "{op}: unknown parameter '{key}'; the stencil's parameters are ({})",
                    names.join(", ")
                )));
            };
            let x: f64 = value.extract().map_err(|_| {
                PyTypeError::new_err(format!("{op}: parameter {key} must be a number, got {}", value.get_type()))
            })?;
            values[i] = Some(T::from_f64(x));
        }
    }
    let missing: Vec<&str> = names.iter().zip(&values).filter(|(_, v)| v.is_none()).map(|(n, _)| n.as_str()).collect();
    if !missing.is_empty() {
        return Err(PyTypeError::new_err(format!(
            "{op}: missing parameters {}; pass every parameter by name, e.g. {}=0.1",
            missing.join(", "),
            missing[0]
        )));
    }
    Ok(values.into_iter().flatten().collect())
}

/// The shape every array must have: the first's, of rank `N`.
fn shape_of<const N: usize>(arrays: &[Bound<'_, PyAny>], op: &str) -> PyResult<[usize; N]> {
    let mut shape = None;
    for (k, a) in arrays.iter().enumerate() {
        let a = a.cast::<PyUntypedArray>().map_err(|_| {
            PyTypeError::new_err(format!("{op}: argument {k} is a {}, not a numpy.ndarray", a.get_type()))
        })?;
        let s = a.shape().to_vec();
        if s.len() != N {
            return Err(PyValueError::new_err(format!(
                "{op}: argument {k} has {} dimensions; the stencil reads its fields at {N} offsets",
                s.len()
            )));
        }
        match &shape {
            None => shape = Some(s),
            Some(first) if *first != s => {
                return Err(PyValueError::new_err(format!(
                    "{op}: argument {k} has shape {s:?}, the first {first:?}; every array has one shape"
                )))
            }
            Some(_) => {}
        }
    }
    let shape = shape.unwrap_or_default();
    Ok(core::array::from_fn(|a| shape[a]))
}

/// One sweep on NumPy arrays of `T`.
fn sweep<'py, T: cnda::stencil::Scalar + Element, const N: usize>(
    py: Python<'py>,
    s: &TextStencil<N>,
    fields: &[Bound<'py, PyAny>],
    out: Option<&Bound<'py, PyAny>>,
    params: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyAny>> {
    const OP: &str = "Stencil";
    if fields.len() != s.fields().len() {
        return Err(PyTypeError::new_err(format!(
            "{OP}: {} fields given to a stencil of {} ({}); pass one array per field, in order",
            fields.len(),
            s.fields().len(),
            s.fields().join(", ")
        )));
    }
    let values = ordered::<T>(s.params(), params, OP)?;
    let shape = shape_of::<N>(fields, OP)?;
    // The outputs: `out` (one array, or one per value), or copies of the evolved fields (so the
    // points the sweep leaves alone keep those fields' values).
    let outputs: Vec<Bound<'py, PyAny>> = match out {
        Some(out) if s.outputs() == 1 && out.cast::<PyUntypedArray>().is_ok() => vec![out.clone()],
        Some(out) => out.try_iter().and_then(|i| i.collect::<PyResult<Vec<_>>>()).map_err(|_| {
            PyTypeError::new_err(format!("{OP}: out must be an array per value, {} in a tuple", s.outputs()))
        })?,
        None => (0..s.outputs())
            .map(|m| {
                check_read(OP, span_of::<T>(&fields[m * s.levels()]))?;
                let copy = crate::borrow::typed::<T>(&fields[m * s.levels()], OP, "a field")?.to_owned_array();
                Ok(PyArrayDyn::from_owned_array(py, copy).into_any())
            })
            .collect::<PyResult<_>>()?,
    };
    if outputs.len() != s.outputs() {
        return Err(PyValueError::new_err(format!(
            "{OP}: out has {} arrays for a stencil of {} values; pass one per value",
            outputs.len(),
            s.outputs()
        )));
    }
    shape_of::<N>(&outputs, OP).and_then(|o| {
        if o == shape {
            Ok(())
        } else {
            Err(PyValueError::new_err(format!("{OP}: out has shape {o:?}, the fields {shape:?}")))
        }
    })?;
    // From here to the views nothing runs Python code, so the spans are the views'.
    let reads = fields.iter().map(|f| read::<T>(f, OP, "a field")).collect::<PyResult<Vec<_>>>()?;
    let field_spans: Vec<_> = fields.iter().map(|f| span_of::<T>(f)).collect();
    let out_spans: Vec<_> = outputs.iter().map(|o| span_of::<T>(o)).collect();
    if out_spans.iter().any(|o| field_spans.iter().any(|f| f.overlaps(*o))) {
        return Err(overlap_error(OP, "out", "a field"));
    }
    let mut writes = outputs.iter().map(|o| write::<T>(o, OP, "out")).collect::<PyResult<Vec<_>>>()?;
    let mut operands: Vec<Operand<'_>> = field_spans.iter().map(|&sp| Operand::read("a field", sp)).collect();
    operands.extend(out_spans.iter().map(|&sp| Operand::write("out", sp)));
    let _in_use = lease(OP, &operands)?;
    let inputs = reads.iter().map(|r| view::<T, N>(r, OP)).collect::<PyResult<Vec<_>>>()?;
    let results = writes.iter_mut().map(|w| view_mut::<T, N>(w, OP)).collect::<PyResult<Vec<_>>>()?;
    let points: usize = shape.iter().product();
    let parallel = points >= PARALLEL_FROM;
    let values = &values;
    let run = move || {
        let inputs: Vec<_> = inputs.into_iter().map(|v| v.into_strided()).collect();
        let mut outs: Vec<_> = results.into_iter().map(|v| v.into_strided()).collect();
        if parallel {
            s.try_par_apply(&inputs, &mut outs, values)
        } else {
            s.try_apply(&inputs, &mut outs, values)
        }
    };
    let result = if parallel { py.detach(run) } else { run() };
    result.map_err(to_pyerr)?;
    Ok(if outputs.len() == 1 { outputs[0].clone() } else { PyTuple::new(py, outputs)?.into_any() })
}

/// How `Stencil.steps` steps: how many sweeps, the boundary as given, whether every point of the
/// arrays is stepped (their halo made around them) or the edge ring is the halo, and the sources
/// and receivers as given.
struct Stepping<'a, 'py> {
    steps: usize,
    boundary: Option<&'a Bound<'py, PyAny>>,
    whole: bool,
    sources: Option<&'a Bound<'py, PyAny>>,
    receivers: Option<&'a Bound<'py, PyAny>>,
}

/// Copies of the levels then the coefficient fields, the boundaries, and the arrays' shape.
pub(crate) type Prepared<T, const N: usize> = (Vec<Array<T, N>>, Boundaries<T, N>, [usize; N]);

/// The arrays `Stencil.steps` and `Stencil.state` take, checked, with the boundaries: copies
/// of the levels then the coefficient fields, and their shape.
pub(crate) fn prepared<T: cnda::stencil::Scalar + Element, const N: usize>(
    s: &TextStencil<N>,
    arrays: &[Bound<'_, PyAny>],
    boundary: Option<&Bound<'_, PyAny>>,
    whole: bool,
    op: &'static str,
) -> PyResult<Prepared<T, N>> {
    if arrays.len() != s.fields().len() {
        return Err(PyTypeError::new_err(format!(
            "{op}: {} arrays given to a stencil of {} fields ({}); pass each evolved field's levels, newest first, then \
             the coefficient fields",
            arrays.len(),
            s.fields().len(),
            s.fields().join(", ")
        )));
    }
    let boundaries: Boundaries<T, N> = crate::stencil_args::boundaries::<T, N>(boundary)?;
    if whole {
        refuse_fixed(&boundaries, op)?;
    }
    let shape = shape_of::<N>(arrays, op)?;
    let evolved = s.outputs() * s.levels();
    for a in &arrays[..evolved.min(arrays.len())] {
        crate::borrow::written::<T>(a, op, "an evolved field")?;
    }
    let copies = arrays
        .iter()
        .map(|a| {
            check_read(op, span_of::<T>(a))?;
            let a = read::<T>(a, op, "an array")?;
            Ok(view::<T, N>(&a, op)?.to_owned())
        })
        .collect::<PyResult<Vec<_>>>()?;
    Ok((copies, boundaries, shape))
}

/// `steps` sweeps of the evolved fields in place, through a `Stepped` of copies (the fused
/// stepper steps arrays it owns): the levels copied in (padded by the radius for `whole`),
/// stepped with the interpreter lock released, copied back; the receivers' records returned.
fn step<'py, T: cnda::stencil::Scalar + Element + crate::array::Stored, const N: usize>(
    py: Python<'py>,
    s: &TextStencil<N>,
    arrays: &[Bound<'py, PyAny>],
    how: &Stepping<'_, 'py>,
    params: Option<&Bound<'py, PyDict>>,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    const OP: &str = "Stencil.steps";
    let (steps, whole) = (how.steps, how.whole);
    let (copies, boundaries, shape) = prepared::<T, N>(s, arrays, how.boundary, whole, OP)?;
    let values = ordered::<T>(s.params(), params, OP)?;
    let points: usize = copies.first().map_or(0, |a| a.len());
    let frame = Frame { shape, whole: whole.then_some(s.radius()) };
    let sources = crate::text_points::sources::<T, N>(OP, s, how.sources, steps, frame)?;
    let (receivers, alone) = crate::text_points::receivers::<N>(OP, s, how.receivers, frame)?;
    let mut records = crate::text_points::records::<T, N>(&receivers, steps)?;
    let records_mut = &mut records;
    // The copies move into the state, and its arrays out of it: no more copies.
    let run = move || -> cnda::Result<Vec<Array<T, N>>> {
        let mut stepped = Stepped::new(OP, s, copies, boundaries, whole, shape)?;
        stepped.run(s, steps, &values, &sources, &receivers, records_mut)?;
        Ok(stepped.into_levels())
    };
    let result = if points.saturating_mul(steps) >= PARALLEL_FROM { py.detach(run) } else { run() };
    let stepped = result.map_err(to_pyerr)?;
    for (a, new) in arrays.iter().zip(&stepped) {
        check_write(OP, span_of::<T>(a))?;
        let mut w = write::<T>(a, OP, "an evolved field")?;
        let mut target = view_mut::<T, N>(&mut w, OP)?;
        target.try_assign(new).map_err(to_pyerr)?;
    }
    crate::text_points::returned(py, how.receivers, alone, records)
}
