//! `cnda.stencil` in CUDA memory: `u` (and `out`, and the coefficient fields) a `CudaArray` or
//! any DLPack producer on a CUDA device (CuPy, PyTorch), imported without a copy, so `out` may be
//! the producer's own tensor. The sweeps are the Rust backend's (`sweeps.rs` on `Cuda`): one
//! kernel launch per sweep, every boundary kind, the result where `out` is (a new `CudaArray`
//! without one).

use cnda::backend::cuda::Cuda;
use cnda::{Array, Float};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

use crate::cuda::{CudaArray, DeviceStore, OnDevice};
use crate::cuda_ops::{at_rank, overlap};
use crate::dlpack::Sharing;
use crate::errors::to_pyerr;
use crate::kernels::{check_fits, rank_error, Args};
use crate::overlap::overlap_error;
use crate::stencil_args;
use crate::sweeps::{sweeps, In};

/// The float element types a device stencil runs in.
pub(crate) trait DeviceFloat: Float + Send + Sync + OnDevice {}

impl DeviceFloat for f32 {}
impl DeviceFloat for f64 {}

/// The stencil when `u` is in CUDA memory (`None`: it is not; the host path takes it).
pub fn stencil<'py>(
    py: Python<'py>,
    u: &Bound<'py, PyAny>,
    out: Option<&Bound<'py, PyAny>>,
    args: &Args<'_, 'py>,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    let Some(u) = device_array(py, u)? else { return Ok(None) };
    // An `out` imported from another library is read on that library's streams, which cnda's
    // stream does not order: the call waits for its work before returning it.
    let foreign_out = out.is_some_and(|o| o.cast::<CudaArray>().is_err());
    let out = match out {
        Some(o) => Some(device_array_mut(py, o)?.ok_or_else(|| {
            PyTypeError::new_err(format!(
                "stencil: u is in CUDA memory and out is a {}; give out in the same device's memory (a CudaArray, a \
                 CuPy array or a PyTorch CUDA tensor), or leave it out",
                o.get_type()
            ))
        })?),
        None => None,
    };
    let dtype = u.try_borrow()?.dtype_name();
    let result = match dtype {
        "float64" => typed::<f64>(py, &u, out, args, foreign_out)?,
        "float32" => typed::<f32>(py, &u, out, args, foreign_out)?,
        other => {
            return Err(PyTypeError::new_err(format!(
                "stencil: u is a CUDA array of {other}; stencils run in float32 or float64"
            )))
        }
    };
    Ok(Some(result))
}

/// `x` as a `CudaArray` to read: itself, or imported without a copy from a DLPack producer on a
/// CUDA device (copied on the device where the producer exports read-only, as JAX does); `None`
/// for anything else.
pub(crate) fn device_array<'py>(py: Python<'py>, x: &Bound<'py, PyAny>) -> PyResult<Option<Bound<'py, CudaArray>>> {
    device_import(py, x, Sharing::Read)
}

/// `x` as a `CudaArray` to write: as [`device_array`], but a read-only export is refused.
fn device_array_mut<'py>(py: Python<'py>, x: &Bound<'py, PyAny>) -> PyResult<Option<Bound<'py, CudaArray>>> {
    device_import(py, x, Sharing::Writable)
}

fn device_import<'py>(
    py: Python<'py>,
    x: &Bound<'py, PyAny>,
    sharing: Sharing,
) -> PyResult<Option<Bound<'py, CudaArray>>> {
    if let Ok(c) = x.cast::<CudaArray>() {
        return Ok(Some(c.clone()));
    }
    if x.cast::<numpy::PyUntypedArray>().is_ok() || !x.hasattr("__dlpack__")? {
        return Ok(None);
    }
    let Ok((kind, _)) = x.call_method0("__dlpack_device__").and_then(|d| d.extract::<(i32, i32)>()) else {
        return Ok(None);
    };
    // DLPack's kDLCUDA.
    if kind != 2 {
        return Ok(None);
    }
    let imported = crate::dlpack::import(py, x, sharing)?;
    Ok(Some(imported.into_bound(py).cast_into::<CudaArray>()?))
}

fn typed<'py, T: DeviceFloat>(
    py: Python<'py>,
    u: &Bound<'py, CudaArray>,
    out: Option<Bound<'py, CudaArray>>,
    args: &Args<'_, 'py>,
    wait: bool,
) -> PyResult<Bound<'py, PyAny>> {
    match u.try_borrow()?.dims().len() {
        1 => ranked::<T, 1>(py, u, out, args, wait),
        2 => ranked::<T, 2>(py, u, out, args, wait),
        3 => ranked::<T, 3>(py, u, out, args, wait),
        n => Err(rank_error(n)),
    }
}

fn ranked<'py, T: DeviceFloat, const N: usize>(
    py: Python<'py>,
    u: &Bound<'py, CudaArray>,
    out: Option<Bound<'py, CudaArray>>,
    args: &Args<'_, 'py>,
    wait: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let spec = stencil_args::taps::<T, N>(args.taps, args.coeffs.is_some(), args.laplacian, args.h)?;
    let boundaries = stencil_args::boundaries::<T, N>(args.boundary)?;
    let dims = u.try_borrow()?.dims().to_vec();
    let shape: [usize; N] = core::array::from_fn(|a| dims[a]);
    check_fits(&shape, spec.radius())?;
    let fields = coefficients(py, args.coeffs, spec.len(), &dims)?;
    let out = match out {
        Some(out) => out,
        None => {
            let dev = T::store(&u.try_borrow()?.data).map(|s| s.array.device()).ok_or_else(|| dtype_error("u"))?;
            let array = Array::<T, 1, Cuda>::try_zeros_in(&dev, [dims.iter().product()]).map_err(to_pyerr)?;
            Bound::new(py, CudaArray { data: T::device_data(DeviceStore { array, shape: dims.clone() }) })?
        }
    };
    for (name, other) in core::iter::once(("u", u)).chain(fields.iter().map(|f| ("coeffs", f))) {
        if out.is(other) || overlap(&*out.try_borrow()?, &*other.try_borrow()?) {
            return Err(overlap_error("stencil", "out", name));
        }
    }
    let (ub, mut ob) = (u.try_borrow()?, out.try_borrow_mut()?);
    let field_borrows = fields.iter().map(|f| f.try_borrow()).collect::<Result<Vec<_>, _>>()?;
    let us = T::store(&ub.data).ok_or_else(|| dtype_error("u"))?;
    let os = T::store_mut(&mut ob.data).ok_or_else(|| dtype_error("out"))?;
    if os.shape != dims {
        return Err(to_pyerr(cnda::Error::ShapeMismatch { op: "stencil", expected: dims, got: os.shape.clone() }));
    }
    let field_views = field_borrows
        .iter()
        .map(|f| {
            let s = T::store(&f.data).ok_or_else(|| dtype_error("coeffs"))?;
            Ok(at_rank::<T, N>(s)?.into_strided())
        })
        .collect::<PyResult<Vec<In<'_, T, N, Cuda>>>>()?;
    let uv = at_rank::<T, N>(us)?.into_strided();
    let ov = os.array.view_mut().try_reshape(shape).map_err(to_pyerr)?.into_strided();
    sweeps::<T, N, Cuda>(&spec, uv, &field_views, ov, args.steps, boundaries, false).map_err(to_pyerr)?;
    if wait {
        os.array.device().synchronize().map_err(to_pyerr)?;
    }
    drop((ob, field_borrows));
    Ok(out.into_any())
}

/// The coefficient fields in CUDA memory: a list of device arrays of `u`'s shape, or a stacked
/// CuPy or PyTorch array of shape `(taps, *shape)` (iterated over its first axis, no copies).
fn coefficients<'py>(
    py: Python<'py>,
    coeffs: Option<&Bound<'py, PyAny>>,
    taps: usize,
    shape: &[usize],
) -> PyResult<Vec<Bound<'py, CudaArray>>> {
    let Some(coeffs) = coeffs else { return Ok(Vec::new()) };
    let refuse = || {
        PyTypeError::new_err(
            "stencil: u is in CUDA memory, so coeffs must be a list of CUDA arrays of u's shape, one per tap (CudaArray, \
             CuPy or PyTorch CUDA tensors), or a stacked CuPy or PyTorch array",
        )
    };
    // A list, or anything iterable over its leading axis (a stacked CuPy or PyTorch array).
    if coeffs.cast::<CudaArray>().is_ok() {
        return Err(refuse());
    }
    let items: Vec<Bound<'py, PyAny>> = coeffs.try_iter().map_err(|_| refuse())?.collect::<PyResult<_>>()?;
    if items.len() != taps {
        return Err(PyValueError::new_err(format!(
            "stencil: {} coefficient fields for {taps} taps; give one field per tap, in the taps' order",
            items.len()
        )));
    }
    let fields = items.iter().map(|x| device_array(py, x)?.ok_or_else(refuse)).collect::<PyResult<Vec<_>>>()?;
    for f in &fields {
        let got = f.try_borrow()?.dims().to_vec();
        if got != shape {
            return Err(PyValueError::new_err(format!(
                "stencil: a coefficient field has shape {got:?}, u has {shape:?}; every field has u's shape"
            )));
        }
    }
    Ok(fields)
}

fn dtype_error(name: &str) -> PyErr {
    PyTypeError::new_err(format!("stencil: {name} is not of u's element type; give every array in u's dtype"))
}
