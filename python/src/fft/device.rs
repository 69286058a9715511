//! `cnda.fft.solve_box` in CUDA memory (`f` a `CudaArray`, or a CuPy or PyTorch CUDA tensor
//! imported without a copy): the solve runs on the device (`fft::solve_box` through cuFFT, the
//! cosine and sine transforms built from it) and returns a new `CudaArray`.

use cnda::fft::{FftFloat, Laplacian};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;

use crate::borrow::by_rank;
use crate::cuda::{CudaArray, DeviceStore};
use crate::cuda_ops::{at_rank, flat};
use crate::cuda_stencil::DeviceFloat;
use crate::errors::to_pyerr;

/// The solve when `f` is in CUDA memory (`None`: it is not; the host path takes it).
pub fn solve_box<'py>(
    py: Python<'py>,
    f: &Bound<'py, PyAny>,
    spacing: &dyn Fn(usize) -> PyResult<Vec<f64>>,
    shift: f64,
    boundary: Option<&Bound<'py, PyAny>>,
    laplacian: Laplacian,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    let Some(f) = crate::cuda_stencil::device_array(py, f)? else { return Ok(None) };
    let (dtype, rank) = {
        let borrowed = f.try_borrow()?;
        (borrowed.dtype_name(), borrowed.dims().len())
    };
    let h = spacing(rank)?;
    let solved = match dtype {
        "float64" => typed::<f64>(py, &f, rank, &h, shift, boundary, laplacian)?,
        "float32" => typed::<f32>(py, &f, rank, &h, shift, boundary, laplacian)?,
        other => {
            return Err(PyTypeError::new_err(format!(
                "solve_box: f is a CUDA array of {other}; solves run in float32 or float64"
            )))
        }
    };
    Ok(Some(solved))
}

fn typed<'py, T: DeviceFloat + FftFloat>(
    py: Python<'py>,
    f: &Bound<'py, CudaArray>,
    rank: usize,
    spacing: &[f64],
    shift: f64,
    boundary: Option<&Bound<'py, PyAny>>,
    laplacian: Laplacian,
) -> PyResult<Bound<'py, PyAny>> {
    let op = "solve_box";
    by_rank!(op, rank, N => {
        let boundaries = crate::stencil_args::linear_boundaries::<T, N>(boundary)?;
        let h: [T; N] = core::array::from_fn(|a| <T as cnda::Float>::from_f64(spacing[a]));
        let shift = <T as cnda::Float>::from_f64(shift);
        let borrowed = f.try_borrow()?;
        let store = T::store(&borrowed.data).expect("the dtype was checked");
        let dims = store.shape.clone();
        let v = at_rank::<T, N>(store)?;
        let u = cnda::fft::try_solve_box(v, h, shift, boundaries, laplacian).map_err(to_pyerr)?;
        let array = CudaArray { data: T::device_data(DeviceStore { array: flat(u), shape: dims }) };
        Ok(Bound::new(py, array)?.into_any())
    })
}
