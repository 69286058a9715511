//! `Stencil.steps`' sources and receivers: point sources injected into an evolved field after the
//! sweep that writes it, and receivers sampling it after every step (cnda's `PointIo`, fused with
//! the steps), read from Python as `(field, points, series)` and `(field, points)`: one such tuple
//! or a list of them. A field is named as the stencil names its newest level, or numbered among
//! the evolved fields; points are coordinates in index units (fractional ones spread over their
//! nodes), one row per point.

use cnda::stencil::{Points, TextStencil};
use cnda::{Array, Float};
use numpy::{PyArrayDyn, PyArrayMethods, PyUntypedArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString, PyTuple};

use crate::errors::to_pyerr;

/// A source: `series[[t, p]]` added at `points[p]` to evolved field `field` at step `t`.
pub struct Source<T: cnda::Pod, const N: usize> {
    pub field: usize,
    pub points: Points<N>,
    pub series: Array<T, 2>,
}

/// A receiver: evolved field `field` sampled at `points` after every step.
pub struct Receiver<const N: usize> {
    pub field: usize,
    pub points: Points<N>,
}

/// Where the points are given: arrays of `shape`, and for `whole` the halo the state adds
/// around them (every node must then lie in the arrays, and the points move by the halo).
#[derive(Clone, Copy)]
pub struct Frame<const N: usize> {
    pub shape: [usize; N],
    pub whole: Option<[usize; N]>,
}

/// The sources given (`None`: none), their points in the state's arrays.
pub fn sources<T: Float, const N: usize>(
    op: &str,
    s: &TextStencil<N>,
    given: Option<&Bound<'_, PyAny>>,
    steps: usize,
    frame: Frame<N>,
) -> PyResult<Vec<Source<T, N>>> {
    let (entries, _) = entries(op, given, "sources")?;
    entries
        .iter()
        .map(|entry| {
            let [field, points_given, series] = parts::<3>(op, entry, "sources", "(field, points, series)")?;
            let field = evolved(op, s, &field)?;
            let points = points::<N>(op, &points_given, frame)?;
            let series = series_of::<T>(op, &series, steps, points.len())?;
            Ok(Source { field, points, series })
        })
        .collect()
}

/// The receivers given, their points in the state's arrays, and whether one was given alone
/// (its record is returned alone, not in a list).
pub fn receivers<const N: usize>(
    op: &str,
    s: &TextStencil<N>,
    given: Option<&Bound<'_, PyAny>>,
    frame: Frame<N>,
) -> PyResult<(Vec<Receiver<N>>, bool)> {
    let (entries, alone) = entries(op, given, "receivers")?;
    let receivers = entries
        .iter()
        .map(|entry| {
            let [field, points_given] = parts::<2>(op, entry, "receivers", "(field, points)")?;
            Ok(Receiver { field: evolved(op, s, &field)?, points: points::<N>(op, &points_given, frame)? })
        })
        .collect::<PyResult<Vec<_>>>()?;
    Ok((receivers, alone))
}

/// A zeroed record per receiver: a row per step, a column per point.
pub fn records<T: Float, const N: usize>(receivers: &[Receiver<N>], steps: usize) -> PyResult<Vec<Array<T, 2>>> {
    receivers.iter().map(|r| Array::try_zeros([steps, r.points.len()]).map_err(to_pyerr)).collect()
}

/// What a call returns of `records`: nothing where no receivers were given, one array where one
/// tuple was given `alone`, else a list of them.
pub fn returned<'py, T: crate::array::Stored>(
    py: Python<'py>,
    given: Option<&Bound<'py, PyAny>>,
    alone: bool,
    records: Vec<Array<T, 2>>,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    let mut records = records.into_iter().map(|r| crate::array::into_numpy(py, r));
    Ok(match (given, alone) {
        (None, _) => None,
        (Some(_), true) => records.next().transpose()?,
        (Some(_), false) => Some(PyList::new(py, records.collect::<PyResult<Vec<_>>>()?)?.into_any()),
    })
}

/// The entries of `given`: one tuple whose first item is a field (alone: `true`), or a sequence
/// of such tuples.
fn entries<'py>(op: &str, given: Option<&Bound<'py, PyAny>>, what: &str) -> PyResult<(Vec<Bound<'py, PyAny>>, bool)> {
    let Some(given) = given else { return Ok((Vec::new(), false)) };
    if let Ok(tuple) = given.cast::<PyTuple>() {
        if let Ok(first) = tuple.get_item(0) {
            if first.is_instance_of::<PyString>() || first.extract::<i64>().is_ok() {
                return Ok((vec![given.clone()], true));
            }
        }
    }
    let list = given.try_iter().and_then(|i| i.collect::<PyResult<Vec<_>>>()).map_err(|_| {
        PyTypeError::new_err(format!("{op}: {what} must be a tuple or a list of tuples, got {}", given.get_type()))
    })?;
    Ok((list, false))
}

/// The `K` items of one entry.
fn parts<'py, const K: usize>(
    op: &str,
    entry: &Bound<'py, PyAny>,
    what: &str,
    form: &str,
) -> PyResult<[Bound<'py, PyAny>; K]> {
    let items: Vec<Bound<'py, PyAny>> =
        entry.try_iter().and_then(|i| i.collect::<PyResult<Vec<_>>>()).unwrap_or_default();
    items.try_into().map_err(|_| PyValueError::new_err(format!("{op}: each of {what} is a tuple {form}, got {entry}")))
}

/// The evolved field a name (its newest level's) or a number (among the evolved fields) gives.
fn evolved<const N: usize>(op: &str, s: &TextStencil<N>, field: &Bound<'_, PyAny>) -> PyResult<usize> {
    let (fields, levels, outputs) = (s.fields(), s.levels(), s.outputs());
    let newest: Vec<&str> = (0..outputs).map(|m| fields[m * levels].as_str()).collect();
    let found = match field.extract::<String>() {
        Ok(name) => newest.iter().position(|n| *n == name),
        Err(_) => field.extract::<usize>().ok().filter(|&m| m < outputs),
    };
    found.ok_or_else(|| {
        PyValueError::new_err(format!(
            "{op}: {field} is not an evolved field; name one of ({}) or number it from 0 to {}",
            newest.join(", "),
            outputs - 1
        ))
    })
}

/// Coordinates of points, one row of `N` per point (or one point as `N` numbers), in the state's
/// arrays. For `whole`, checked against the arrays as given (the interior check of the steppers
/// would speak of the padded arrays), then moved by the halo.
fn points<const N: usize>(op: &str, given: &Bound<'_, PyAny>, frame: Frame<N>) -> PyResult<Points<N>> {
    let a = float64(op, given)?;
    let rows = match a.shape() {
        [n] if *n == N => 1,
        [p, n] if *n == N => *p,
        shape => {
            return Err(PyValueError::new_err(format!(
                "{op}: points of shape {}; give one row of {N} coordinates per point (or {N} numbers for one)",
                tuple(shape)
            )))
        }
    };
    let values = a.to_vec().map_err(|e| PyValueError::new_err(format!("{op}: points: {e}")))?;
    let values = &values[..];
    let coords =
        |shift: [usize; N]| (0..rows).map(move |p| core::array::from_fn(|k| values[p * N + k] + shift[k] as f64));
    let given = Points::try_new(coords([0; N])).map_err(to_pyerr)?;
    let Some(halo) = frame.whole else { return Ok(given) };
    for p in 0..given.len() {
        for &(at, _) in given.nodes(p) {
            if (0..N).any(|k| at[k] >= frame.shape[k]) {
                return Err(PyValueError::new_err(format!(
                    "{op}: point {p} at {:?} needs node {at:?}, outside arrays of shape {}; with whole=True every \
                     node lies in the arrays (0 to n - 1 along an axis of n points; an off-grid point also needs \
                     the node after it)",
                    given.coords()[p],
                    tuple(&frame.shape)
                )));
            }
        }
    }
    Points::try_new(coords(halo)).map_err(to_pyerr)
}

/// A source's series: at least `steps` rows and one column per point (or, for one point, at
/// least `steps` numbers), in `T`.
fn series_of<T: Float>(op: &str, given: &Bound<'_, PyAny>, steps: usize, count: usize) -> PyResult<Array<T, 2>> {
    let a = float64(op, given)?;
    let (rows, columns) = match a.shape() {
        [t] if count == 1 => (*t, 1),
        [t, p] => (*t, *p),
        _ => (0, 0),
    };
    if rows < steps || columns != count {
        return Err(PyValueError::new_err(format!(
            "{op}: a series of shape {} for {count} points and {steps} steps; give at least {steps} rows of {count} \
             values (one row per step, one column per point)",
            tuple(a.shape())
        )));
    }
    let values = a.to_vec().map_err(|e| PyValueError::new_err(format!("{op}: series: {e}")))?;
    Array::from_shape_vec([rows, columns], values.into_iter().map(T::from_f64).collect()).map_err(to_pyerr)
}

/// A shape as Python writes it: `(2, 1)`, `(3,)`.
pub fn tuple(shape: &[usize]) -> String {
    match shape {
        [n] => format!("({n},)"),
        _ => format!("({})", shape.iter().map(usize::to_string).collect::<Vec<_>>().join(", ")),
    }
}

/// `x` as a C-ordered float64 NumPy array (a copy where it is not one).
fn float64<'py>(op: &str, x: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
    let np = x.py().import("numpy")?;
    let a = np.call_method1("ascontiguousarray", (x, "float64")).map_err(|_| {
        PyTypeError::new_err(format!("{op}: {x} is not an array of numbers; give a list or a NumPy array"))
    })?;
    Ok(a.cast_into::<PyArrayDyn<f64>>()?)
}
