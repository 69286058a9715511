//! `cnda.pad`: NumPy's `np.pad` for the widths and modes cnda's `pad_axes` has, per axis.

use cnda::stencil::{try_pad_axes, PadMode};
use cnda::Numeric;
use numpy::PyUntypedArrayMethods;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::array::{into_numpy, Stored};
use crate::borrow::{by_rank, read, view};
use crate::errors::to_pyerr;
use crate::ops::{by_dtype, run, unsupported};
use crate::overlap::{lease, span_of, Operand};

/// One width per axis from NumPy's `pad_width`, read as `np.pad` reads it (broadcast to one
/// `(before, after)` pair per axis: an int, `(w,)`, `(before, after)`, or a pair per axis), with
/// `before == after` on every axis: cnda pads both ends of an axis equally.
fn widths(op: &'static str, width: &Bound<'_, PyAny>, rank: usize) -> PyResult<Vec<usize>> {
    let np = width.py().import("numpy")?;
    let pairs = np
        .call_method1("asarray", (width,))
        .and_then(|w| np.call_method1("broadcast_to", (w, (rank, 2))))
        .and_then(|w| w.call_method0("tolist"))
        .and_then(|w| w.extract::<Vec<Vec<i64>>>())
        .map_err(|_| {
            PyValueError::new_err(format!(
                "{op}: pad_width {width} does not give one (before, after) pair of ints per axis of an array of \
                 {rank} dimensions (NumPy's forms: an int, (w,), (before, after), or one pair per axis)"
            ))
        })?;
    pairs
        .iter()
        .enumerate()
        .map(|(axis, pair)| {
            let (before, after) = (pair[0], pair[1]); // `broadcast_to` made every row a pair
            if before != after {
                return Err(PyValueError::new_err(format!(
                    "{op}: axis {axis} has widths ({before}, {after}), different before and after; cnda pads both \
                     ends of an axis equally (a halo): use np.pad for uneven padding"
                )));
            }
            usize::try_from(before)
                .map_err(|_| PyValueError::new_err(format!("{op}: axis {axis} has a negative width {before}")))
        })
        .collect()
}

/// The mode of each axis: one name for all, or one per axis.
fn modes<T: Copy>(op: &'static str, mode: &Bound<'_, PyAny>, rank: usize, constant: T) -> PyResult<Vec<PadMode<T>>> {
    let one = |name: &str| -> PyResult<PadMode<T>> {
        match name {
            "constant" => Ok(PadMode::Constant(constant)),
            "edge" => Ok(PadMode::Edge),
            "reflect" => Ok(PadMode::Reflect),
            "wrap" => Ok(PadMode::Periodic),
            "symmetric" => Ok(PadMode::Symmetric),
            other => Err(PyValueError::new_err(format!(
                "{op}: mode {other:?} is not supported; use \"constant\", \"edge\", \"reflect\", \"symmetric\" or \"wrap\""
            ))),
        }
    };
    if let Ok(name) = mode.extract::<String>() {
        return Ok(vec![one(&name)?; rank]);
    }
    let names: Vec<String> = mode.extract().map_err(|_| {
        PyValueError::new_err(format!("{op}: mode must be a name or one name per axis, got {}", mode.get_type()))
    })?;
    if names.len() != rank {
        return Err(PyValueError::new_err(format!(
            "{op}: {} modes for an array of {rank} dimensions; give one, or one per axis",
            names.len()
        )));
    }
    names.iter().map(|n| one(n)).collect()
}

fn pad_typed<'py, T: Stored + Numeric + for<'a> FromPyObject<'a, 'py>>(
    py: Python<'py>,
    a: &Bound<'py, PyAny>,
    width: &Bound<'py, PyAny>,
    mode: &Bound<'py, PyAny>,
    constant: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    // The arguments first: reading them may run Python code (`__float__`, `__index__`), which may
    // move `a`; its span and view are taken after, with nothing but Rust in between.
    let constant = constant.extract::<T>().map_err(Into::into)?;
    let rank = crate::borrow::typed::<T>(a, "pad", "a")?.ndim();
    let (widths, modes) = (widths("pad", width, rank)?, modes("pad", mode, rank, constant)?);
    let ra = read::<T>(a, "pad", "a")?;
    if ra.ndim() != rank {
        return Err(PyValueError::new_err(
            "pad: a's number of dimensions changed while the call read its width and mode (Python code of theirs \
             reshaped a); pass a plain array",
        ));
    }
    let _in_use = lease("pad", &[Operand::read("a", span_of::<T>(a))])?;
    let len = ra.len();
    by_rank!("pad", rank, N => {
        let v = view::<T, N>(&ra, "pad")?;
        let w: [usize; N] = widths.as_slice().try_into().expect("one width per axis");
        let m: [PadMode<T>; N] = modes.as_slice().try_into().expect("one mode per axis");
        let out = run(py, len, || try_pad_axes(v, w, m)).map_err(to_pyerr)?;
        into_numpy(py, out)
    })
}

#[doc = include_str!(concat!(env!("OUT_DIR"), "/doc/def.pad.txt"))] // python/cnda.pyi's docstring
#[pyfunction]
#[pyo3(signature = (a, width, mode = None, constant_values = None))]
pub fn pad<'py>(
    py: Python<'py>,
    a: &Bound<'py, PyAny>,
    width: &Bound<'py, PyAny>,
    mode: Option<Bound<'py, PyAny>>,
    constant_values: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let mode = match mode {
        Some(m) => m,
        None => "constant".into_pyobject(py)?.into_any(),
    };
    let constant = match constant_values {
        Some(c) => c,
        None => 0i32.into_pyobject(py)?.into_any(),
    };
    if a.cast::<numpy::PyUntypedArray>().is_err() {
        return Err(unsupported("pad", a));
    }
    by_dtype!("pad", a, T => pad_typed::<T>(py, a, width, &mode, &constant))
}
