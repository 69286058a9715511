//! `cnda.solve` in CUDA memory: `b` (and `x0`, and a conductivity) a `CudaArray` or any DLPack
//! producer on a CUDA device (CuPy, PyTorch), imported without a copy. The solve runs on that
//! device, every vector, operator and multigrid level there (`solve.rs`'s `solve_on` on `Cuda`),
//! and the solution comes back as a new `CudaArray`. A conductivity or a SciPy matrix given on
//! the host is uploaded once.

use cnda::backend::cuda::Cuda;
use cnda::solve::SolverScalar;
use cnda::Array;
use numpy::Element;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::cuda::{CudaArray, DeviceStore};
use crate::cuda_ops::{at_rank, flat};
use crate::cuda_stencil::{device_array, DeviceFloat};
use crate::errors::to_pyerr;
use crate::solve::{host_copy, info, solve_on, Args};

/// The solve when `b` is in CUDA memory (`None`: it is not; the host path takes it).
pub fn solve<'py>(
    py: Python<'py>,
    b: &Bound<'py, PyAny>,
    args: &Args<'_, 'py>,
) -> PyResult<Option<(Bound<'py, PyAny>, Bound<'py, PyDict>)>> {
    let Some(b) = device_array(py, b)? else { return Ok(None) };
    let dtype = b.try_borrow()?.dtype_name();
    let solved = match dtype {
        "float64" => typed::<f64>(py, &b, args)?,
        "float32" => typed::<f32>(py, &b, args)?,
        other => {
            return Err(PyTypeError::new_err(format!(
                "solve: b is a CUDA array of {other}; solves run in float32 or float64"
            )))
        }
    };
    Ok(Some(solved))
}

fn typed<'py, T: DeviceFloat + SolverScalar + Element>(
    py: Python<'py>,
    b: &Bound<'py, CudaArray>,
    args: &Args<'_, 'py>,
) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyDict>)> {
    match b.try_borrow()?.dims().len() {
        1 => ranked::<T, 1>(py, b, args),
        2 => ranked::<T, 2>(py, b, args),
        3 => ranked::<T, 3>(py, b, args),
        n => Err(PyValueError::new_err(format!("solve: b has {n} dimensions; give a 1D, 2D or 3D array"))),
    }
}

fn ranked<'py, T: DeviceFloat + SolverScalar + Element, const N: usize>(
    py: Python<'py>,
    b: &Bound<'py, CudaArray>,
    args: &Args<'_, 'py>,
) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyDict>)> {
    let (dev, b) = {
        let borrowed = b.try_borrow()?;
        let store = T::store(&borrowed.data).ok_or_else(|| dtype_error("b"))?;
        (store.array.device(), at_rank::<T, N>(store)?.try_to_owned().map_err(to_pyerr)?)
    };
    let shape = b.shape();
    let mut x = match args.x0 {
        None => Array::<T, N, Cuda>::try_zeros_in(&dev, shape).map_err(to_pyerr)?,
        Some(x0) => match device_array(py, x0)? {
            Some(x0) => on_device::<T, N>(&x0, "x0")?,
            None => host_copy::<T, N>(x0, "x0")?.try_to_device(&dev).map_err(to_pyerr)?,
        },
    };
    // Arrays the operator is built from on the host (a conductivity), from either memory.
    let host = |a: &Bound<'_, PyAny>, name: &str| match device_array(py, a)? {
        Some(d) => on_device::<T, N>(&d, name)?.try_to_host().map_err(to_pyerr),
        None => host_copy::<T, N>(a, name),
    };
    let report = solve_on(py, args, &dev, &b, &mut x, host)?;
    let out = CudaArray { data: T::device_data(DeviceStore { array: flat(x), shape: shape.to_vec() }) };
    Ok((Bound::new(py, out)?.into_any(), info(py, &report)?))
}

/// A copy of a CUDA array of `T` at rank `N`, on its device.
fn on_device<T: DeviceFloat, const N: usize>(a: &Bound<'_, CudaArray>, name: &str) -> PyResult<Array<T, N, Cuda>> {
    let borrowed = a.try_borrow()?;
    let store = T::store(&borrowed.data).ok_or_else(|| dtype_error(name))?;
    if store.shape.len() != N {
        return Err(PyValueError::new_err(format!(
            "solve: {name} has {} dimensions, b has {N}; give it b's shape",
            store.shape.len()
        )));
    }
    at_rank::<T, N>(store)?.try_to_owned().map_err(to_pyerr)
}

fn dtype_error(name: &str) -> PyErr {
    PyTypeError::new_err(format!("solve: {name} is not of b's element type; give every array in b's dtype"))
}
