//! Axis arguments as NumPy takes them (an int counting from the end when negative, or several),
//! checked one way for the host functions and the CUDA arrays' methods.

use pyo3::exceptions::{PyIndexError, PyValueError};
use pyo3::prelude::*;

/// The axis `axis` (negative counts from the end) of a rank-`rank` array, or NumPy's `AxisError`
/// (an `IndexError` and a `ValueError`), as NumPy raises.
pub fn normalize_axis(op: &str, axis: isize, rank: usize) -> PyResult<usize> {
    let at = if axis < 0 { axis + rank as isize } else { axis };
    usize::try_from(at).ok().filter(|&a| a < rank).ok_or_else(|| {
        axis_error(format!("{op}: axis {axis} is out of range for an array of {rank} dimensions; use -{rank}..{rank}"))
    })
}

/// `numpy.exceptions.AxisError(message)`, or an `IndexError` where NumPy has none to import.
fn axis_error(message: String) -> PyErr {
    Python::attach(|py| {
        let made = py
            .import("numpy.exceptions")
            .and_then(|m| m.getattr("AxisError"))
            .and_then(|class| class.call1((message.as_str(),)));
        match made {
            Ok(error) => PyErr::from_value(error),
            Err(_) => PyIndexError::new_err(message),
        }
    })
}

/// The axes `given` names, normalized and ascending; `ValueError` when one is named twice.
pub fn distinct_axes(op: &str, given: &[isize], rank: usize) -> PyResult<Vec<usize>> {
    let mut normal = given.iter().map(|&k| normalize_axis(op, k, rank)).collect::<PyResult<Vec<_>>>()?;
    normal.sort_unstable();
    if normal.windows(2).any(|w| w[0] == w[1]) {
        return Err(PyValueError::new_err(format!("{op}: axis {given:?} names an axis twice; name each once")));
    }
    Ok(normal)
}
