//! One mapping from `cnda::Error` to Python exceptions, as CNDA maps its C++ ones: out of range ->
//! `IndexError`, shape/stride/layout and shapes too large to address -> `ValueError` (NumPy's
//! "array is too big"), element type -> `TypeError`, a refused allocation -> `MemoryError`,
//! files -> `OSError`, lifetime/ownership and the rest -> `RuntimeError`.

use pyo3::exceptions::{PyIOError, PyIndexError, PyMemoryError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::PyErr;

/// The Python exception for a cnda error, carrying its what/why/how message.
pub fn to_pyerr(e: cnda::Error) -> PyErr {
    let message = e.to_string();
    match e {
        cnda::Error::IndexOutOfBounds { .. } | cnda::Error::AxisOutOfRange { .. } | cnda::Error::Range { .. } => {
            PyIndexError::new_err(message)
        }
        cnda::Error::DType { .. } | cnda::Error::Structure { .. } | cnda::Error::UnsupportedDType { .. } => {
            PyTypeError::new_err(message)
        }
        cnda::Error::Alloc { .. } => PyMemoryError::new_err(message),
        cnda::Error::Io { .. } => PyIOError::new_err(message),
        cnda::Error::LengthMismatch { .. }
        | cnda::Error::ShapeMismatch { .. }
        | cnda::Error::ZeroStep { .. }
        | cnda::Error::InvalidAxes { .. }
        | cnda::Error::NotContiguous { .. }
        | cnda::Error::Broadcast { .. }
        | cnda::Error::BroadcastOperands { .. }
        | cnda::Error::Overflow { .. }
        | cnda::Error::RankMismatch { .. }
        | cnda::Error::Layout { .. }
        | cnda::Error::Parameter { .. }
        | cnda::Error::Coordinate { .. } => PyValueError::new_err(message),
        // Ownership (borrowed or read-only memory), device errors, a solve that did not converge
        // or broke down, and the rest.
        _ => PyRuntimeError::new_err(message),
    }
}
