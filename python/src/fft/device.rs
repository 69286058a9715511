//! `cnda.fft` in CUDA memory (`a` a `CudaArray`, or a CuPy or PyTorch CUDA tensor imported
//! without a copy): the transforms and `solve_box` run on the device (cnda's `fft` module on
//! `Cuda`: cuFFT, and the cosine and sine transforms built from it) and return a new
//! `CudaArray`, of NumPy's dtype for the call (complex64 from float32, as NumPy 2 and CuPy).
//! What the host path does on the host happens on the device here: the crops and zero pads of
//! `n` and `s`, and the promotion of a real array to complex (zeros, then its values copied into
//! the real parts' view). Integer arrays are refused: the device does not convert them.

use cnda::backend::cuda::Cuda;
use cnda::fft::{self as transforms, FftFloat, Laplacian};
use cnda::layout::RowMajor;
use cnda::{Array, Complex, Shared, View};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;

use super::{complex_refused, resized, Call, Transform};
use crate::borrow::by_rank;
use crate::cuda::{CudaArray, CudaData, DeviceStore, OnDevice};
use crate::cuda_ops::{at_rank, flat};
use crate::cuda_stencil::DeviceFloat;
use crate::errors::to_pyerr;

/// A view of device memory as the transforms take it.
type DeviceView<'a, T, const N: usize> = View<'a, T, N, Shared, Cuda, RowMajor>;

/// `call` on the CUDA array `a`, into a new `CudaArray`.
pub fn transform<'py>(py: Python<'py>, a: &Bound<'py, CudaArray>, call: Call<'_>) -> PyResult<Bound<'py, PyAny>> {
    let borrowed = a.try_borrow()?;
    let data = match (&borrowed.data, call.transform.takes_complex()) {
        (CudaData::F32(s), false) => real_input::<f32>(s, call)?,
        (CudaData::F64(s), false) => real_input::<f64>(s, call)?,
        (CudaData::F32(s), true) => complex_input::<f32, f32>(s, call)?,
        (CudaData::F64(s), true) => complex_input::<f64, f64>(s, call)?,
        (CudaData::C64(s), true) => complex_input::<f32, Complex<f32>>(s, call)?,
        (CudaData::C128(s), true) => complex_input::<f64, Complex<f64>>(s, call)?,
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

/// The store of a transform's result.
fn stored<X: OnDevice, const N: usize>(out: Array<X, N, Cuda>) -> CudaData {
    let shape = out.shape().to_vec();
    X::device_data(DeviceStore { array: flat(out), shape })
}

/// `rfftn` and the cosine and sine transforms: real in, complex or real out.
fn real_input<T: FftFloat + OnDevice>(s: &DeviceStore<T>, call: Call<'_>) -> PyResult<CudaData>
where
    Complex<T>: OnDevice,
{
    let Call { op, resize, transform, norm } = call;
    by_rank!(op, s.shape.len(), N => {
        let v = at_rank::<T, N>(s)?;
        let source = resized(v, resize).map_err(to_pyerr)?;
        let src = source.as_ref().map_or(v, Array::view);
        let out = match transform {
            Transform::Real { axes } => transforms::try_rfftn(src, &axes, norm).map(stored),
            Transform::Trig { axes, cosine, ty, inverse } => match (cosine, inverse) {
                (true, false) => transforms::try_dctn(src, ty, &axes, norm),
                (true, true) => transforms::try_idctn(src, ty, &axes, norm),
                (false, false) => transforms::try_dstn(src, ty, &axes, norm),
                (false, true) => transforms::try_idstn(src, ty, &axes, norm),
            }
            .map(stored),
            other => unreachable!("{other:?} takes a complex input"),
        };
        out.map_err(to_pyerr)
    })
}

/// `fftn`, `ifftn` and `irfftn`: complex in (a real `S` promoted), complex or real out.
fn complex_input<T: FftFloat + OnDevice, S: AsComplex<T>>(s: &DeviceStore<S>, call: Call<'_>) -> PyResult<CudaData>
where
    Complex<T>: OnDevice,
{
    let Call { op, resize, transform, norm } = call;
    by_rank!(op, s.shape.len(), N => {
        let v = at_rank::<S, N>(s)?;
        let source = resized(v, resize).map_err(to_pyerr)?;
        let mut promoted = None;
        let src = S::as_complex(source.as_ref().map_or(v, Array::view), &mut promoted).map_err(to_pyerr)?;
        let out = match &transform {
            Transform::Complex { axes, forward: true } => transforms::try_fftn(src, axes, norm).map(stored),
            Transform::Complex { axes, forward: false } => transforms::try_ifftn(src, axes, norm).map(stored),
            Transform::RealInverse { axes, n } => {
                let last = axes[axes.len() - 1];
                let n = n.unwrap_or(2 * src.shape()[last].saturating_sub(1));
                transforms::try_irfftn(src, axes, n, norm).map(stored)
            }
            other => unreachable!("{other:?} takes a real input"),
        };
        out.map_err(to_pyerr)
    })
}

/// The element types the complex transforms take on the device: `Complex<T>` as it is, `T`
/// promoted.
trait AsComplex<T: FftFloat>: OnDevice {
    /// `v` as complex numbers: `v` itself, or a new array in `slot` of its values with zero
    /// imaginary parts.
    fn as_complex<'a, const N: usize>(
        v: DeviceView<'a, Self, N>,
        slot: &'a mut Option<Array<Complex<T>, N, Cuda>>,
    ) -> cnda::Result<DeviceView<'a, Complex<T>, N>>;
}

impl<T: FftFloat + OnDevice> AsComplex<T> for T {
    fn as_complex<'a, const N: usize>(
        v: DeviceView<'a, T, N>,
        slot: &'a mut Option<Array<Complex<T>, N, Cuda>>,
    ) -> cnda::Result<DeviceView<'a, Complex<T>, N>> {
        let mut z = Array::<Complex<T>, N, Cuda>::try_zeros_in(&v.allocator(), v.shape())?;
        z.re_mut().try_assign(&v)?;
        Ok(slot.insert(z).view())
    }
}

impl<T: FftFloat> AsComplex<T> for Complex<T>
where
    Complex<T>: OnDevice,
{
    fn as_complex<'a, const N: usize>(
        v: DeviceView<'a, Complex<T>, N>,
        _: &'a mut Option<Array<Complex<T>, N, Cuda>>,
    ) -> cnda::Result<DeviceView<'a, Complex<T>, N>> {
        Ok(v)
    }
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
