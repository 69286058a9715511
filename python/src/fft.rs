//! `cnda.fft`: NumPy's `numpy.fft` and SciPy's `scipy.fft` transforms of NumPy arrays (float32,
//! float64, complex64, complex128; booleans and integers as float64, as NumPy converts them;
//! other dtypes refused, named; 1 to 4 dimensions) by cnda's CPU transforms, the interpreter lock
//! released on large arrays, and of CUDA arrays on their device (`fft/device.rs`). NumPy's
//! `fft`, `ifft`, `fft2`, `ifft2`, `fftn`, `ifftn`, `rfft`, `irfft`, `rfft2`, `irfft2`, `rfftn`,
//! `irfftn`, `fftfreq`, `rfftfreq` with its arguments (`n` and `s` crop or zero-pad the input);
//! SciPy's `dct`, `idct`, `dst`, `idst`, `dctn`, `idctn`, `dstn`, `idstn`; and `solve_box`, the
//! direct Poisson/Helmholtz solve. Single precision stays single, as in NumPy 2 and SciPy.
//! Results are cnda arrays shared with NumPy, complex ones too.

use cnda::fft::{DctType, FftFloat, Norm};
use cnda::Complex;
use numpy::{Element, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

use crate::array::{into_numpy, Stored};
use crate::axes::normalize_axis;
use crate::borrow::{by_rank, read, view};
use crate::errors::to_pyerr;
use crate::ops::run;
use crate::overlap::{lease, span_of, Operand};

/// What a call computes once its arguments are read.
#[derive(Clone, Debug)]
enum Transform {
    /// `fftn` (`forward`) or `ifftn` along `axes`, in NumPy's order.
    Complex { axes: Vec<usize>, forward: bool },
    /// `rfftn` along `axes`.
    Real { axes: Vec<usize> },
    /// `irfftn` along `axes`, `n` points along the last (`None`: `2 (m - 1)`).
    RealInverse { axes: Vec<usize>, n: Option<usize> },
    /// A cosine or sine transform of `ty`, or its inverse, along `axes`.
    Trig { axes: Vec<usize>, cosine: bool, ty: DctType, inverse: bool },
}

impl Transform {
    /// Whether the input is complex (a real one promoted), not real.
    fn takes_complex(&self) -> bool {
        matches!(self, Transform::Complex { .. } | Transform::RealInverse { .. })
    }
}

/// A call: its name, the crops and pads of the input (`(axis, length)`), the transform, the norm.
struct Call<'a> {
    op: &'static str,
    resize: &'a [(usize, usize)],
    transform: Transform,
    norm: Norm,
}

/// `a` as a NumPy array of a type the transforms take: a non-array through `np.asarray`, integers
/// and booleans as float64.
fn prepared<'py>(py: Python<'py>, a: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let np = py.import("numpy")?;
    let a = if a.cast::<PyUntypedArray>().is_ok() { a.clone() } else { np.call_method1("asarray", (a,))? };
    let kind: String = a.getattr("dtype")?.getattr("kind")?.extract()?;
    match kind.as_str() {
        "b" | "i" | "u" => a.call_method1("astype", (np.getattr("float64")?,)),
        _ => Ok(a),
    }
}

/// The array a call transforms: in host memory (prepared), or in CUDA memory (a `CudaArray`, or
/// a CuPy or PyTorch tensor imported without a copy), transformed on its device.
enum Input<'py> {
    Host(Bound<'py, PyAny>),
    #[cfg(feature = "cuda")]
    Device(Bound<'py, crate::cuda::CudaArray>),
}

impl<'py> Input<'py> {
    fn of(py: Python<'py>, a: &Bound<'py, PyAny>) -> PyResult<Self> {
        #[cfg(feature = "cuda")]
        if let Some(on_device) = crate::cuda_stencil::device_array(py, a)? {
            return Ok(Input::Device(on_device));
        }
        Ok(Input::Host(prepared(py, a)?))
    }

    fn shape(&self) -> PyResult<Vec<usize>> {
        match self {
            Input::Host(a) => Ok(a.cast::<PyUntypedArray>()?.shape().to_vec()),
            #[cfg(feature = "cuda")]
            Input::Device(a) => Ok(a.try_borrow()?.dims().to_vec()),
        }
    }

    fn run(self, py: Python<'py>, call: Call<'_>) -> PyResult<Bound<'py, PyAny>> {
        match self {
            Input::Host(a) => {
                let rank = a.cast::<PyUntypedArray>()?.ndim();
                dispatch(py, &a, rank, call)
            }
            #[cfg(feature = "cuda")]
            Input::Device(a) => device::transform(py, &a, call),
        }
    }
}

/// The precision and domain of a prepared array.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Dtype {
    F32,
    F64,
    C64,
    C128,
}

fn dtype_of(op: &'static str, a: &Bound<'_, PyAny>) -> PyResult<Dtype> {
    use numpy::PyArrayDyn;
    if a.cast::<PyArrayDyn<f64>>().is_ok() {
        Ok(Dtype::F64)
    } else if a.cast::<PyArrayDyn<f32>>().is_ok() {
        Ok(Dtype::F32)
    } else if a.cast::<PyArrayDyn<Complex<f64>>>().is_ok() {
        Ok(Dtype::C128)
    } else if a.cast::<PyArrayDyn<Complex<f32>>>().is_ok() {
        Ok(Dtype::C64)
    } else {
        let got = a.getattr("dtype").map(|d| d.to_string()).unwrap_or_else(|_| "an unknown type".into());
        Err(PyTypeError::new_err(format!(
            "{op}: a has dtype {got}; the transforms take float32, float64, complex64 or complex128 (convert with \
             np.asarray(a, dtype=np.float64))"
        )))
    }
}

/// Runs `call` on the prepared `a` of `rank` dimensions.
fn dispatch<'py>(py: Python<'py>, a: &Bound<'py, PyAny>, rank: usize, call: Call<'_>) -> PyResult<Bound<'py, PyAny>> {
    let dtype = dtype_of(call.op, a)?;
    match (dtype, call.transform.takes_complex()) {
        (Dtype::F32, _) => on_host::<f32, f32>(py, a, rank, call),
        (Dtype::F64, _) => on_host::<f64, f64>(py, a, rank, call),
        (Dtype::C64, true) => on_host::<f32, Complex<f32>>(py, a, rank, call),
        (Dtype::C128, true) => on_host::<f64, Complex<f64>>(py, a, rank, call),
        (Dtype::C64 | Dtype::C128, false) => {
            Err(complex_refused(call.op, if dtype == Dtype::C64 { "complex64" } else { "complex128" }))
        }
    }
}

/// The refusal of a complex array where a transform takes a real one.
fn complex_refused(op: &str, dtype: &str) -> PyErr {
    PyTypeError::new_err(format!(
        "{op}: a is {dtype}, and this transform takes a real array; transform a.real and a.imag apart, or use \
         cnda.fft.fft for a complex one"
    ))
}

/// `call` on the NumPy array `a` (elements `S`, transformed in precision `T`), on the CPU, the
/// interpreter lock released on large arrays; the result shared with NumPy.
fn on_host<'py, T: FftFloat + Stored, S: Transformable<T> + Element>(
    py: Python<'py>,
    a: &Bound<'py, PyAny>,
    rank: usize,
    call: Call<'_>,
) -> PyResult<Bound<'py, PyAny>>
where
    Complex<T>: Stored,
{
    let op = call.op;
    let ra = read::<S>(a, op, "a")?;
    let _in_use = lease(op, &[Operand::read("a", span_of::<S>(a))])?;
    let len = ra.len();
    by_rank!(op, rank, N => {
        let v = view::<S, N>(&ra, op)?;
        match run(py, len, || transformed(v, &call)).map_err(to_pyerr)? {
            Transformed::Spectrum(spectrum) => into_numpy(py, spectrum),
            Transformed::Real(values) => into_numpy(py, values),
        }
    })
}

/// NumPy's `norm`.
fn norm_of(op: &'static str, norm: Option<&str>) -> PyResult<Norm> {
    match norm {
        None | Some("backward") => Ok(Norm::Backward),
        Some("ortho") => Ok(Norm::Ortho),
        Some("forward") => Ok(Norm::Forward),
        Some(other) => Err(PyValueError::new_err(format!(
            "{op}: norm={other:?} is not a normalization; give None or \"backward\" (the default), \"ortho\" or \"forward\""
        ))),
    }
}

/// SciPy's `type`.
fn type_of(op: &'static str, ty: i64) -> PyResult<DctType> {
    match ty {
        1 => Ok(DctType::I),
        2 => Ok(DctType::II),
        3 => Ok(DctType::III),
        4 => Ok(DctType::IV),
        other => Err(PyValueError::new_err(format!("{op}: type={other}; give 1, 2 (the default), 3 or 4"))),
    }
}

/// A length `n` or an entry of `s`: at least 1.
fn length(op: &'static str, name: &str, n: i64) -> PyResult<usize> {
    usize::try_from(n).ok().filter(|&n| n > 0).ok_or_else(|| {
        PyValueError::new_err(format!(
            "{op}: {name}={n}; give a number of points of 1 or more (None, or -1 in s, keeps the input's)"
        ))
    })
}

/// The axes of an n-dimensional call, as NumPy reads `s` and `axes`: `axes` in order (negative
/// from the end), or the last `len(s)` axes, or all; each named once; `s` one length per axis,
/// `-1` for the input's own (as in NumPy 2 and SciPy).
fn axes_and_sizes(
    op: &'static str,
    shape: &[usize],
    s: Option<Vec<i64>>,
    axes: Option<Vec<isize>>,
) -> PyResult<(Vec<usize>, Option<Vec<usize>>)> {
    let rank = shape.len();
    let axes: Vec<usize> = match (&axes, &s) {
        (Some(given), _) => given.iter().map(|&a| normalize_axis(op, a, rank)).collect::<PyResult<_>>()?,
        (None, Some(s)) if s.len() <= rank => (rank - s.len()..rank).collect(),
        (None, Some(s)) => {
            return Err(PyValueError::new_err(format!(
                "{op}: s has {} lengths for an array of {rank} dimensions; give one per transformed axis",
                s.len()
            )))
        }
        (None, None) => (0..rank).collect(),
    };
    if axes.is_empty() || axes.iter().enumerate().any(|(k, a)| axes[..k].contains(a)) {
        return Err(PyValueError::new_err(format!("{op}: axes {axes:?} must name at least one axis, each once")));
    }
    let sizes = match s {
        None => None,
        Some(s) if s.len() == axes.len() => {
            let sized = s.iter().zip(&axes).enumerate().map(|(k, (&n, &axis))| match n {
                -1 => Ok(shape[axis]),
                n => length(op, &format!("s[{k}]"), n),
            });
            Some(sized.collect::<PyResult<_>>()?)
        }
        Some(s) => {
            return Err(PyValueError::new_err(format!(
                "{op}: s has {} lengths and axes {} axes; give one length per axis",
                s.len(),
                axes.len()
            )))
        }
    };
    Ok((axes, sizes))
}

/// One axis's call (`fft`, `rfft`, `dct`, ...): `make(axis)` is its transform; `n` crops or pads
/// the input along the axis (`irfft`'s is its output length, `resizes_input` false).
#[allow(clippy::too_many_arguments)]
fn one_axis<'py>(
    py: Python<'py>,
    op: &'static str,
    a: &Bound<'py, PyAny>,
    n: Option<i64>,
    axis: isize,
    norm: Option<&str>,
    resizes_input: bool,
    make: impl FnOnce(usize, Option<usize>) -> Transform,
) -> PyResult<Bound<'py, PyAny>> {
    let norm = norm_of(op, norm)?;
    let n = n.map(|n| length(op, "n", n)).transpose()?;
    let a = Input::of(py, a)?;
    let rank = a.shape()?.len();
    let axis = normalize_axis(op, axis, rank)?;
    let resize: Vec<(usize, usize)> = match (resizes_input, n) {
        (true, Some(n)) => vec![(axis, n)],
        _ => vec![],
    };
    let call = Call { op, resize: &resize, transform: make(axis, n), norm };
    a.run(py, call)
}

/// An n-dimensional call (`fftn`, `rfftn`, `dctn`, ...): `s` crops or pads the input along the
/// axes (but `irfftn`'s last, which is its output length, `last_is_output`).
#[allow(clippy::too_many_arguments)]
fn several_axes<'py>(
    py: Python<'py>,
    op: &'static str,
    a: &Bound<'py, PyAny>,
    s: Option<Vec<i64>>,
    axes: Option<Vec<isize>>,
    norm: Option<&str>,
    last_is_output: bool,
    make: impl FnOnce(Vec<usize>, Option<usize>) -> Transform,
) -> PyResult<Bound<'py, PyAny>> {
    let norm = norm_of(op, norm)?;
    let a = Input::of(py, a)?;
    let shape = a.shape()?;
    let (axes, sizes) = axes_and_sizes(op, &shape, s, axes)?;
    let mut resize: Vec<(usize, usize)> = match &sizes {
        Some(sizes) => axes.iter().copied().zip(sizes.iter().copied()).collect(),
        None => vec![],
    };
    let output = if last_is_output { resize.pop().map(|(_, n)| n) } else { None };
    let call = Call { op, resize: &resize, transform: make(axes, output), norm };
    a.run(py, call)
}

#[cfg(feature = "cuda")]
mod device;
pub(crate) mod functions;
mod transform;
pub(crate) use functions::register;
use transform::{transformed, Transformable, Transformed};
