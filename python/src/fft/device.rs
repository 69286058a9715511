//! `cnda.fft` in CUDA memory (`a` a `CudaArray`, or a CuPy or PyTorch CUDA tensor imported
//! without a copy): the transforms and `solve_box` run on the device (cnda's `fft` module on
//! `Cuda`: cuFFT, and the cosine and sine transforms built from it) and return a new
//! `CudaArray`, of NumPy's dtype for the call (complex64 from float32, as NumPy 2 and CuPy).
//! What the host path does on the host happens on the device here: the crops and zero pads of
//! `n` and `s`, and the promotion of a real array to complex (zeros, then its values copied into
//! the real parts' view). Integer arrays are refused: the device does not convert them.

use cnda::backend::cuda::Cuda;
use cnda::fft::{FftFloat, Laplacian};
use cnda::{Array, Complex};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;

use super::transform::{transformed, Transformable, Transformed};
use super::{complex_refused, Call};
use crate::borrow::by_rank;
use crate::cuda::{CudaArray, CudaData, DeviceStore, OnDevice};
use crate::cuda_ops::{at_rank, flat};
use crate::cuda_stencil::DeviceFloat;
use crate::errors::to_pyerr;

/// `call` on the CUDA array `a`, into a new `CudaArray`.
pub fn transform<'py>(py: Python<'py>, a: &Bound<'py, CudaArray>, call: Call<'_>) -> PyResult<Bound<'py, PyAny>> {
    let borrowed = a.try_borrow()?;
    let data = match (&borrowed.data, call.transform.takes_complex()) {
        (CudaData::F32(s), _) => on_device::<f32, f32>(s, &call)?,
        (CudaData::F64(s), _) => on_device::<f64, f64>(s, &call)?,
        (CudaData::C64(s), true) => on_device::<f32, Complex<f32>>(s, &call)?,
        (CudaData::C128(s), true) => on_device::<f64, Complex<f64>>(s, &call)?,
        (CudaData::C64(_) | CudaData::C128(_), false) => return Err(complex_refused(call.op, borrowed.dtype_name())),
        (CudaData::I32(_) | CudaData::I64(_), _) => {
            return Err(PyTypeError::new_err(format!(
                "{}: a is a CUDA array of {}, and the transforms take float32, float64, complex64 or complex128; \
                 NumPy converts integers to float64 on the host, and CudaArray cannot convert on the device yet: \
                 convert first, e.g. cnda.to_cuda(a.to_numpy().astype(np.float64))",
                call.op,
                borrowed.dtype_name()
            )))
        }
    };
    Ok(Bound::new(py, CudaArray { data })?.into_any())
}

/// `call` on the device store `s` (elements `S`, transformed in precision `T`).
fn on_device<T: FftFloat + OnDevice, S: Transformable<T> + OnDevice>(
    s: &DeviceStore<S>,
    call: &Call<'_>,
) -> PyResult<CudaData>
where
    Complex<T>: OnDevice,
{
    by_rank!(call.op, s.shape.len(), N => {
        let v = at_rank::<S, N>(s)?.into_strided();
        Ok(match transformed(v, call).map_err(to_pyerr)? {
            Transformed::Spectrum(spectrum) => stored(spectrum),
            Transformed::Real(values) => stored(values),
        })
    })
}

/// The store of a transform's result.
fn stored<X: OnDevice, const N: usize>(out: Array<X, N, Cuda>) -> CudaData {
    let shape = out.shape().to_vec();
    X::device_data(DeviceStore { array: flat(out), shape })
}

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
