//! cnda's CSR matrices from Python, as SciPy's: `cnda.stencil_matrix` (the matrix of a stencil
//! with its boundaries), `cnda.read_matrix_market` and `cnda.write_matrix_market`, and
//! `cnda.spmv` (cnda's product of a SciPy sparse matrix and a NumPy vector). Matrices cross as
//! `scipy.sparse.csr_matrix` (their `data`, `indices` and `indptr` copied, indices as int32).

use std::path::PathBuf;

use cnda::solve::SolverScalar;
use cnda::sparse::CsrMatrix;
use cnda::Array;
use numpy::{Element, PyArray1, PyReadonlyArray1, PyUntypedArrayMethods};
use pyo3::exceptions::{PyImportError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::to_pyerr;
use crate::stencil_args;

/// Products of at least this many entries release the interpreter lock.
const DETACH_FROM: usize = 1 << 16;

/// The elements of `x` as a contiguous NumPy array of `dtype`, copied into a `Vec`.
fn vec_of<T: Element + Copy>(x: &Bound<'_, PyAny>, dtype: &str) -> PyResult<Vec<T>> {
    let numpy = x.py().import("numpy")?;
    let kwargs = PyDict::new(x.py());
    kwargs.set_item("dtype", dtype)?;
    let dense = numpy.call_method("ascontiguousarray", (x,), Some(&kwargs))?;
    let array: PyReadonlyArray1<'_, T> = dense.extract()?;
    Ok(array.as_slice()?.to_vec())
}

/// 32-bit copies of SciPy's index arrays (int32 or int64).
fn indices_of(x: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<i32>> {
    vec_of::<i64>(x, "int64")?
        .into_iter()
        .map(|i| {
            i32::try_from(i).map_err(|_| {
                PyValueError::new_err(format!(
                    "a sparse matrix's {what} holds {i}, past the 32-bit indices cnda's CSR matrices use; split the \
                     matrix into blocks"
                ))
            })
        })
        .collect()
}

/// `matrix` (any SciPy sparse matrix or array: its `tocsr()`) as a cnda CSR matrix of `T`.
pub fn csr_from_scipy<T: SolverScalar + Element>(matrix: &Bound<'_, PyAny>) -> PyResult<CsrMatrix<T>> {
    let csr = matrix.call_method0("tocsr").map_err(|_| {
        PyTypeError::new_err(format!(
            "matrix must be a SciPy sparse matrix or array (anything with tocsr()), got {}; build one with \
             scipy.sparse.csr_matrix",
            matrix.get_type()
        ))
    })?;
    let (rows, cols): (usize, usize) = csr.getattr("shape")?.extract()?;
    let dtype = numpy::dtype::<T>(matrix.py()).to_string();
    let values = vec_of::<T>(&csr.getattr("data")?, &dtype)?;
    let offsets = indices_of(&csr.getattr("indptr")?, "indptr")?;
    let columns = indices_of(&csr.getattr("indices")?, "indices")?;
    CsrMatrix::try_from_parts([rows, cols], offsets, columns, values).map_err(to_pyerr)
}

/// `m` as a `scipy.sparse.csr_matrix` (copies).
fn csr_to_scipy<'py, T: SolverScalar + Element>(py: Python<'py>, m: &CsrMatrix<T>) -> PyResult<Bound<'py, PyAny>> {
    let sparse = py.import("scipy.sparse").map_err(|e| {
        PyImportError::new_err(format!("cnda's sparse matrices come to Python as SciPy's: install scipy ({e})"))
    })?;
    let data = PyArray1::from_slice(py, m.values().as_slice());
    let indices = PyArray1::from_slice(py, m.columns().as_slice());
    let indptr = PyArray1::from_slice(py, m.offsets().as_slice());
    let kwargs = PyDict::new(py);
    kwargs.set_item("shape", (m.shape()[0], m.shape()[1]))?;
    sparse.call_method("csr_matrix", ((data, indices, indptr),), Some(&kwargs))
}

/// Whether `dtype` (None, a name, a NumPy dtype or type) is float32 (else float64).
fn is_f32(py: Python<'_>, dtype: Option<&Bound<'_, PyAny>>, op: &str) -> PyResult<bool> {
    let Some(dtype) = dtype else { return Ok(false) };
    let name: String = py.import("numpy")?.call_method1("dtype", (dtype,))?.getattr("name")?.extract()?;
    match name.as_str() {
        "float32" => Ok(true),
        "float64" => Ok(false),
        other => Err(PyTypeError::new_err(format!("{op}: dtype {other} is not float32 or float64"))),
    }
}

#[doc = include_str!(concat!(env!("OUT_DIR"), "/doc/def.stencil_matrix.txt"))] // python/cnda.pyi's docstring
#[pyfunction]
#[pyo3(signature = (shape, taps = None, boundary = None, *, laplacian = false, h = 1.0, dtype = None))]
pub fn stencil_matrix<'py>(
    py: Python<'py>,
    shape: Vec<usize>,
    taps: Option<&Bound<'py, PyAny>>,
    boundary: Option<&Bound<'py, PyAny>>,
    laplacian: bool,
    h: f64,
    dtype: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    fn build<'py, T: SolverScalar + Element, const N: usize>(
        py: Python<'py>,
        shape: &[usize],
        taps: Option<&Bound<'py, PyAny>>,
        boundary: Option<&Bound<'py, PyAny>>,
        laplacian: bool,
        h: f64,
    ) -> PyResult<Bound<'py, PyAny>> {
        let shape: [usize; N] = core::array::from_fn(|k| shape[k]);
        let op = stencil_args::linear_operator::<T, N>(taps, boundary, laplacian, h, shape)?;
        let m = py.detach(|| CsrMatrix::try_from_stencil(&op)).map_err(to_pyerr)?;
        csr_to_scipy(py, &m)
    }
    let f32 = is_f32(py, dtype, "stencil_matrix")?;
    match (shape.len(), f32) {
        (1, false) => build::<f64, 1>(py, &shape, taps, boundary, laplacian, h),
        (2, false) => build::<f64, 2>(py, &shape, taps, boundary, laplacian, h),
        (3, false) => build::<f64, 3>(py, &shape, taps, boundary, laplacian, h),
        (1, true) => build::<f32, 1>(py, &shape, taps, boundary, laplacian, h),
        (2, true) => build::<f32, 2>(py, &shape, taps, boundary, laplacian, h),
        (3, true) => build::<f32, 3>(py, &shape, taps, boundary, laplacian, h),
        (n, _) => Err(PyValueError::new_err(format!(
            "stencil_matrix: shape has {n} axes; give 1 to 3 (the grid the stencil acts on)"
        ))),
    }
}

#[doc = include_str!(concat!(env!("OUT_DIR"), "/doc/def.read_matrix_market.txt"))] // python/cnda.pyi's docstring
#[pyfunction]
#[pyo3(signature = (path, dtype = None))]
pub fn read_matrix_market<'py>(
    py: Python<'py>,
    path: PathBuf,
    dtype: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    if is_f32(py, dtype, "read_matrix_market")? {
        let m = py.detach(|| CsrMatrix::<f32>::try_read_matrix_market(&path)).map_err(to_pyerr)?;
        csr_to_scipy(py, &m)
    } else {
        let m = py.detach(|| CsrMatrix::<f64>::try_read_matrix_market(&path)).map_err(to_pyerr)?;
        csr_to_scipy(py, &m)
    }
}

#[doc = include_str!(concat!(env!("OUT_DIR"), "/doc/def.write_matrix_market.txt"))] // python/cnda.pyi's docstring
#[pyfunction]
pub fn write_matrix_market(py: Python<'_>, path: PathBuf, matrix: &Bound<'_, PyAny>) -> PyResult<()> {
    let dtype = matrix.getattr("dtype").ok();
    if is_f32(py, dtype.as_ref(), "write_matrix_market").unwrap_or(false) {
        let m = csr_from_scipy::<f32>(matrix)?;
        py.detach(|| m.try_write_matrix_market(&path)).map_err(to_pyerr)
    } else {
        let m = csr_from_scipy::<f64>(matrix)?;
        py.detach(|| m.try_write_matrix_market(&path)).map_err(to_pyerr)
    }
}

#[doc = include_str!(concat!(env!("OUT_DIR"), "/doc/def.spmv.txt"))] // python/cnda.pyi's docstring
#[pyfunction]
pub fn spmv<'py>(py: Python<'py>, matrix: &Bound<'py, PyAny>, x: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    fn product<'py, T: SolverScalar + Element>(
        py: Python<'py>,
        matrix: &Bound<'py, PyAny>,
        x: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let m = csr_from_scipy::<T>(matrix)?;
        let x: PyReadonlyArray1<'_, T> = x.extract().map_err(|_| {
            PyTypeError::new_err("spmv: x must be a 1D numpy.ndarray of the matrix's float type; pass x.ravel()")
        })?;
        let x = Array::from_shape_vec([x.len()], x.as_array().iter().copied().collect()).map_err(to_pyerr)?;
        let mut y = Array::zeros([m.shape()[0]]);
        let mut run = || m.try_spmv(&x, &mut y);
        if m.nnz() >= DETACH_FROM { py.detach(run) } else { run() }.map_err(to_pyerr)?;
        Ok(PyArray1::from_slice(py, y.as_slice()).into_any())
    }
    if x.cast::<numpy::PyArrayDyn<f32>>().is_ok() {
        product::<f32>(py, matrix, x)
    } else {
        product::<f64>(py, matrix, x)
    }
}
