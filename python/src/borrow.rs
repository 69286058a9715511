//! NumPy arrays as cnda views, without copies: borrowed through the numpy crate's borrow checker
//! (so an array written in place cannot also be read through an overlapping argument), checked for
//! what cnda's views need (element type, aligned whole-element strides), and padded with leading
//! length-1 axes to the rank of the operation, as NumPy broadcasting aligns trailing axes.

use cnda::{ArrayView, ArrayViewMut, Pod};
use numpy::ndarray::{Axis, IxDyn};
use numpy::{
    BorrowError, Element, PyArrayDyn, PyArrayMethods, PyReadonlyArrayDyn, PyReadwriteArrayDyn, PyUntypedArray,
    PyUntypedArrayMethods,
};
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
    x.cast::<PyArrayDyn<T>>()
        .map_err(|_| wrong_type::<T>(x, op, name, |want| format!("convert with np.asarray({name}, dtype=np.{want})")))
}

/// `x` as a NumPy array of `T` that a call writes, or `TypeError` without advice to convert: a
/// converted copy would receive the results, not the array given.
pub fn written<'a, 'py, T: Element>(
    x: &'a Bound<'py, PyAny>,
    op: &'static str,
    name: &str,
) -> PyResult<&'a Bound<'py, PyArrayDyn<T>>> {
    x.cast::<PyArrayDyn<T>>().map_err(|_| {
        wrong_type::<T>(x, op, name, |want| {
            format!(
                "{name} is written in place, so pass an array of {want} (np.empty(shape, dtype=np.{want})); a \
                 converted copy would receive the results instead"
            )
        })
    })
}

/// `TypeError`: `x` is not a NumPy array of `T`, and `fix` (given `T`'s NumPy name) says what to do.
fn wrong_type<T: Element>(x: &Bound<'_, PyAny>, op: &str, name: &str, fix: impl FnOnce(&str) -> String) -> PyErr {
    let want = numpy::dtype::<T>(x.py()).to_string();
    let got = match x.getattr("dtype") {
        Ok(d) => d.to_string(),
        Err(_) => x.get_type().to_string(),
    };
    PyTypeError::new_err(format!("{op}: {name} must be a numpy.ndarray of {want}, got {got}; {}", fix(&want)))
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
    let x = written::<T>(x, op, name)?;
    check_layout(x, op, name)?;
    // The borrow tests NumPy's WRITEABLE flag itself (in the array's C struct). Reading `x.flags`
    // through Python instead would run an ndarray subclass's code, which may move `x` after the
    // caller took its span (`overlap.rs`).
    x.try_readwrite().map_err(|e| match e {
        BorrowError::NotWriteable => PyValueError::new_err(format!(
            "{op}: {name} is read-only (its flags.writeable is False: a broadcast view, a read-only import or a \
             constant); pass a writable array, e.g. np.array({name}) (a copy)"
        )),
        _ => PyValueError::new_err(format!(
            "{op}: cannot write {name} ({e}); it must overlap no other argument (pass a copy of the other)"
        )),
    })
}

/// The first element's address of NumPy array `x`, read from its C struct (never through Python
/// attributes such as `__array_interface__`, which an ndarray subclass may override).
pub fn data_address(x: &Bound<'_, PyUntypedArray>) -> usize {
    // SAFETY: `x` is a NumPy array (its type was checked when it was cast), so its object is the
    // C struct NumPy's API describes; reading a field under the interpreter lock is what NumPy's
    // own `PyArray_DATA` does.
    unsafe { (*numpy::npyffi::_PyArray_GET_ITEM_DATA(x.as_array_ptr())).data as usize }
}

/// Whether NumPy lets `x` be written (its WRITEABLE flag), read from its C struct: `x.flags`
/// through Python would run an ndarray subclass's code, which may move `x`.
pub fn is_writeable(x: &Bound<'_, PyUntypedArray>) -> bool {
    // SAFETY: as in `data_address`: a field of a NumPy array's C struct, read under the lock, as
    // NumPy's `PyArray_ISWRITEABLE` reads it.
    let flags = unsafe { (*numpy::npyffi::_PyArray_GET_ITEM_DATA(x.as_array_ptr())).flags };
    flags & numpy::npyffi::NPY_ARRAY_WRITEABLE != 0
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
