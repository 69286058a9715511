//! What the binary operations accept as operands, as a NumPy user expects: arrays of any of cnda's
//! six element types, anything `np.asarray` takes (a `ContiguousND`, a list), and Python or NumPy
//! scalars, promoted by NumPy's own rules (`np.result_type`, so a Python float beside a float32
//! array stays float32, NEP 50); `out=` checked for the result's shape and element type.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{IntoPyDict, PyTuple};

/// The element types cnda computes in, by NumPy name.
const COMPUTED: [&str; 6] = ["float32", "float64", "int32", "int64", "complex64", "complex128"];

/// Two operands as NumPy arrays of one element type, the type NumPy's promotion gives them
/// (`true_divide` of integers: float64, as NumPy).
pub struct Promoted<'py> {
    pub a: Bound<'py, PyAny>,
    pub b: Bound<'py, PyAny>,
    /// The NumPy name of the element type (one of [`COMPUTED`]).
    pub dtype: String,
}

/// `a` and `b` promoted for operation `op` (`true_divide` when `divide`).
///
/// # Errors
///
/// `TypeError` naming both operands' types when NumPy promotes them to a type cnda does not
/// compute (bool, small integers, float16 ...), with the conversion that fixes it;
/// `RuntimeError` when a kernel in another thread writes an operand this call converts.
pub fn promote<'py>(
    py: Python<'py>,
    op: &'static str,
    a: &Bound<'py, PyAny>,
    b: &Bound<'py, PyAny>,
    divide: bool,
) -> PyResult<Promoted<'py>> {
    if let Some(same) = same_type(py, a, b, divide) {
        return Ok(same);
    }
    let np = py.import("numpy")?;
    // Arrays and scalars as they are (Python scalars take part in promotion as weak scalars);
    // anything else (a list, a cnda array) through `np.asarray`.
    let (a, b) = (&arraylike(&np, a)?, &arraylike(&np, b)?);
    let mut dtype = np.call_method1("result_type", (a, b)).map_err(|e| {
        PyTypeError::new_err(format!(
            "{op}: cannot combine {} and {} ({e}); pass numpy arrays or numbers",
            describe(a),
            describe(b)
        ))
    })?;
    if divide && !matches!(dtype.getattr("kind")?.extract::<String>()?.as_str(), "f" | "c") {
        dtype = np.call_method1("dtype", ("float64",))?; // NumPy's true division of integers
    }
    let name: String = dtype.getattr("name")?.extract()?;
    if !COMPUTED.contains(&name.as_str()) {
        return Err(PyTypeError::new_err(format!(
            "{op}: {} and {} promote to {name}, which cnda does not compute (it computes float32, float64, int32, \
             int64, complex64 and complex128); convert the operands, e.g. with np.asarray(x, dtype=np.float64)",
            describe(a),
            describe(b)
        )));
    }
    let cast = |x: &Bound<'py, PyAny>, name: &str| -> PyResult<Bound<'py, PyAny>> {
        // np.asarray(x, dtype): no copy for an array of that type already, a converted copy else,
        // which reads `x` (NumPy's C code, not a subclass's): under a read lease of its memory.
        let kwargs = [("dtype", &dtype)].into_py_dict(py)?;
        crate::overlap::reading(op, name, x, || np.call_method("asarray", (x,), Some(&kwargs)))
    };
    Ok(Promoted { a: cast(a, "a")?, b: cast(b, "b")?, dtype: name })
}

/// Two plain `numpy.ndarray`s of one computed type (the common case) as they are: NumPy's
/// promotion would keep that type (but for the true division of integers), and asking NumPy
/// through Python for it and its name costs microseconds per call.
fn same_type<'py>(
    py: Python<'py>,
    a: &Bound<'py, PyAny>,
    b: &Bound<'py, PyAny>,
    divide: bool,
) -> Option<Promoted<'py>> {
    use numpy::{PyArrayDescrMethods, PyUntypedArray, PyUntypedArrayMethods};
    use pyo3::type_object::PyTypeInfo;
    let ndarray = PyUntypedArray::type_object(py);
    if !a.get_type().is(&ndarray) || !b.get_type().is(&ndarray) {
        return None;
    }
    let (x, y) = (a.cast::<PyUntypedArray>().ok()?, b.cast::<PyUntypedArray>().ok()?);
    let dtype = x.dtype();
    // Where `long double` is a double (Windows, macOS on ARM), NumPy calls its arrays equivalent
    // to float64 ones but computes them as `longdouble`: the slow path refuses them.
    if !dtype.is_equiv_to(&y.dtype()) || matches!(dtype.char(), b'g' | b'G') {
        return None;
    }
    let is = |other: Bound<'py, numpy::PyArrayDescr>| dtype.is_equiv_to(&other);
    let name = if is(numpy::dtype::<f64>(py)) {
        "float64"
    } else if is(numpy::dtype::<f32>(py)) {
        "float32"
    } else if is(numpy::dtype::<cnda::Complex<f64>>(py)) {
        "complex128"
    } else if is(numpy::dtype::<cnda::Complex<f32>>(py)) {
        "complex64"
    } else if !divide && is(numpy::dtype::<i64>(py)) {
        "int64"
    } else if !divide && is(numpy::dtype::<i32>(py)) {
        "int32"
    } else {
        return None;
    };
    Some(Promoted { a: a.clone(), b: b.clone(), dtype: name.to_string() })
}

/// `x` itself when it is an array or a scalar (Python's or NumPy's), else `np.asarray(x)`.
fn arraylike<'py>(np: &Bound<'py, PyModule>, x: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let scalar = x.is_instance_of::<pyo3::types::PyFloat>()
        || x.is_instance_of::<pyo3::types::PyInt>()
        || x.is_instance_of::<pyo3::types::PyComplex>()
        || x.is_instance(&np.getattr("generic")?)?;
    if scalar || x.cast::<numpy::PyUntypedArray>().is_ok() {
        Ok(x.clone())
    } else {
        np.call_method1("asarray", (x,))
    }
}

/// How an operand reads in a message: `float32 array of shape (3, 4)`, `Python float`, ...
fn describe(x: &Bound<'_, PyAny>) -> String {
    let kind = x.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "object".into());
    match (x.getattr("dtype"), x.getattr("shape")) {
        (Ok(dtype), Ok(shape)) if kind == "ndarray" => format!("a {dtype} array of shape {shape}"),
        (Ok(dtype), _) => format!("a {dtype} {kind}"),
        _ => format!("a Python {kind}"),
    }
}

/// Checks that `out` can take a result of `shape` and element type `dtype`.
///
/// # Errors
///
/// `TypeError` for a non-array or another element type (cnda does not cast on output);
/// `ValueError` for another shape or a read-only array.
pub fn check_out(op: &str, out: &Bound<'_, PyAny>, shape: &[usize], dtype: &str) -> PyResult<()> {
    let Ok(got) = out.getattr("dtype").and_then(|d| d.getattr("name")).and_then(|n| n.extract::<String>()) else {
        return Err(PyTypeError::new_err(format!("{op}: out must be a numpy.ndarray, got {}", describe(out))));
    };
    if out.cast::<numpy::PyUntypedArray>().is_err() {
        return Err(PyTypeError::new_err(format!("{op}: out must be a numpy.ndarray, got {}", describe(out))));
    }
    if got != dtype {
        return Err(PyTypeError::new_err(format!(
            "{op}: out is {got} but the result is {dtype}; pass an out of {dtype} (np.empty(shape, dtype=np.{dtype}))"
        )));
    }
    let got_shape: Vec<usize> = out.getattr("shape")?.extract()?;
    if got_shape != shape {
        return Err(PyValueError::new_err(format!(
            "{op}: out has shape {} but the result has shape {}; pass an out of the broadcast shape",
            PyTuple::new(out.py(), &got_shape)?,
            PyTuple::new(out.py(), shape)?
        )));
    }
    Ok(())
}
