//! NumPy arrays as cnda views, without copies: borrowed through the numpy crate's borrow checker
//! (so an array written in place cannot also be read through an overlapping argument), checked for
//! what cnda's views need (element type, aligned whole-element strides), and padded with leading
//! length-1 axes to the rank of the operation, as NumPy broadcasting aligns trailing axes.

use cnda::{ArrayView, ArrayViewMut, Pod};
use numpy::ndarray::{Axis, IxDyn};
use numpy::{Element, PyArrayDyn, PyArrayMethods, PyReadonlyArrayDyn, PyReadwriteArrayDyn, PyUntypedArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

use crate::errors::to_pyerr;

/// The ranks the operations on NumPy arrays are compiled for.
pub const MAX_RANK: usize = 4;

/// `$body` with `const $N: usize` bound to `$rank` (1 to `MAX_RANK`), or `ValueError`.
macro_rules! by_rank {
    ($op:expr, $rank:expr, $N:ident => $body:expr) => {
        match $rank {
            1 => {
                const $N: usize = 1;
                $body
            }
            2 => {
                const $N: usize = 2;
                $body
            }
            3 => {
                const $N: usize = 3;
                $body
            }
            4 => {
                const $N: usize = 4;
                $body
            }
            n => Err($crate::borrow::rank_error($op, n)),
        }
    };
}
pub(crate) use by_rank;

/// The error for a rank the operations are not compiled for.
pub fn rank_error(op: &'static str, rank: usize) -> PyErr {
    PyValueError::new_err(format!(
        "{op}: arrays of {rank} dimensions are not supported here (1 to {MAX_RANK} are); reshape the array, or loop over its leading axes"
    ))
}

/// `x` as a NumPy array of `T`, or `TypeError` naming the argument and the type it needs.
pub fn typed<'a, 'py, T: Element>(
    x: &'a Bound<'py, PyAny>,
    op: &'static str,
    name: &str,
) -> PyResult<&'a Bound<'py, PyArrayDyn<T>>> {
    x.cast::<PyArrayDyn<T>>().map_err(|_| {
        let want = numpy::dtype::<T>(x.py()).to_string();
        let got = match x.getattr("dtype") {
            Ok(d) => d.to_string(),
            Err(_) => x.get_type().to_string(),
        };
        PyTypeError::new_err(format!(
            "{op}: {name} must be a numpy.ndarray of {want}, got {got}; convert with np.asarray({name}, dtype=np.{want})"
        ))
    })
}

/// Checks what cnda views need beyond the element type: aligned memory and strides that are whole
/// elements (a field of a packed structured array may be neither).
fn check_layout<T>(x: &Bound<'_, PyArrayDyn<T>>, op: &'static str, name: &str) -> PyResult<()> {
    let size = core::mem::size_of::<T>() as isize;
    if !x.is_aligned() || x.strides().iter().any(|s| s % size != 0) {
        return Err(to_pyerr(cnda::Error::Layout {
            op,
            reason: format!(
                "{name} is misaligned or has strides {:?} bytes that are not whole {size}-byte elements",
                x.strides()
            ),
            fix: "pass np.ascontiguousarray(...) of it",
        }));
    }
    Ok(())
}

/// A shared borrow of `x` for reading.
pub fn read<'py, T: Element>(
    x: &Bound<'py, PyAny>,
    op: &'static str,
    name: &str,
) -> PyResult<PyReadonlyArrayDyn<'py, T>> {
    let x = typed::<T>(x, op, name)?;
    check_layout(x, op, name)?;
    x.try_readonly()
        .map_err(|e| PyValueError::new_err(format!("{op}: cannot read {name} ({e}); is it also the array written?")))
}

/// An exclusive borrow of `x` for writing in place.
pub fn write<'py, T: Element>(
    x: &Bound<'py, PyAny>,
    op: &'static str,
    name: &str,
) -> PyResult<PyReadwriteArrayDyn<'py, T>> {
    let x = typed::<T>(x, op, name)?;
    check_layout(x, op, name)?;
    if !x.getattr("flags")?.getattr("writeable")?.extract::<bool>()? {
        return Err(PyValueError::new_err(format!(
            "{op}: {name} is read-only (its flags.writeable is False: a broadcast view, a read-only import or a \
             constant); pass a writable array, e.g. np.array({name}) (a copy)"
        )));
    }
    x.try_readwrite().map_err(|e| {
        PyValueError::new_err(format!(
            "{op}: cannot write {name} ({e}); it must overlap no other argument (pass a copy of the other)"
        ))
    })
}

/// The cnda view of a borrowed array, with leading length-1 axes added up to rank `N`.
pub fn view<'a, T: Element + Pod, const N: usize>(
    x: &'a PyReadonlyArrayDyn<'_, T>,
    op: &'static str,
) -> PyResult<ArrayView<'a, T, N>> {
    let mut v = x.as_array();
    if v.ndim() > N {
        return Err(rank_error(op, v.ndim()));
    }
    while v.ndim() < N {
        v.insert_axis_inplace(Axis(0));
    }
    ArrayView::from_ndarray(v).map_err(to_pyerr)
}

/// The mutable cnda view of an array borrowed for writing, of its own rank `N`.
pub fn view_mut<'a, T: Element + Pod, const N: usize>(
    x: &'a mut PyReadwriteArrayDyn<'_, T>,
    op: &'static str,
) -> PyResult<ArrayViewMut<'a, T, N>> {
    let v = x.as_array_mut();
    if v.ndim() != N {
        return Err(rank_error(op, v.ndim()));
    }
    ArrayViewMut::from_ndarray::<IxDyn>(v).map_err(to_pyerr)
}
