//! The Python functions of `cnda.fft`, each NumPy's or SciPy's signature over the shared calls
//! of the parent module, and the submodule that holds them.

use cnda::fft::{DctType, FftFloat, Laplacian};
use numpy::{PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use super::{one_axis, several_axes, type_of, Transform};
use crate::array::{into_numpy, Stored};
use crate::borrow::{by_rank, read, view};
use crate::errors::to_pyerr;
use crate::ops::run;
use crate::overlap::{lease, span_of, Operand};

/// `$name(a, n=None, axis=-1, norm=None)`: NumPy's one-axis complex transforms.
macro_rules! complex_one {
    ($name:ident, $forward:expr, $doc:literal) => {
        #[doc = $doc]
        #[pyfunction]
        #[pyo3(signature = (a, n = None, axis = -1, norm = None))]
        pub fn $name<'py>(
            py: Python<'py>,
            a: &Bound<'py, PyAny>,
            n: Option<i64>,
            axis: isize,
            norm: Option<&str>,
        ) -> PyResult<Bound<'py, PyAny>> {
            one_axis(py, stringify!($name), a, n, axis, norm, true, |axis, _| Transform::Complex {
                axes: vec![axis],
                forward: $forward,
            })
        }
    };
}

complex_one!(fft, true, "NumPy's `numpy.fft.fft`: the transform along `axis`, `n` points (cropped or zero-padded).");
complex_one!(ifft, false, "NumPy's `numpy.fft.ifft`: the inverse of `fft`.");

/// `$name(a, s=None, axes=$axes, norm=None)`: NumPy's n-dimensional complex transforms.
macro_rules! complex_n {
    ($name:ident, $forward:expr, $axes:expr, $doc:literal) => {
        #[doc = $doc]
        #[pyfunction]
        #[pyo3(signature = (a, s = None, axes = $axes, norm = None))]
        pub fn $name<'py>(
            py: Python<'py>,
            a: &Bound<'py, PyAny>,
            s: Option<Vec<i64>>,
            axes: Option<Vec<isize>>,
            norm: Option<&str>,
        ) -> PyResult<Bound<'py, PyAny>> {
            several_axes(py, stringify!($name), a, s, axes, norm, false, |axes, _| Transform::Complex {
                axes,
                forward: $forward,
            })
        }
    };
}

complex_n!(fftn, true, None, "NumPy's `numpy.fft.fftn`: the transform along `axes` (all by default).");
complex_n!(ifftn, false, None, "NumPy's `numpy.fft.ifftn`: the inverse of `fftn`.");
complex_n!(fft2, true, Some(vec![-2, -1]), "NumPy's `numpy.fft.fft2`: `fftn` along the last two axes by default.");
complex_n!(ifft2, false, Some(vec![-2, -1]), "NumPy's `numpy.fft.ifft2`: the inverse of `fft2`.");

/// NumPy's `numpy.fft.rfft`: the half spectrum of the real `a` along `axis`.
#[pyfunction]
#[pyo3(signature = (a, n = None, axis = -1, norm = None))]
pub fn rfft<'py>(
    py: Python<'py>,
    a: &Bound<'py, PyAny>,
    n: Option<i64>,
    axis: isize,
    norm: Option<&str>,
) -> PyResult<Bound<'py, PyAny>> {
    one_axis(py, "rfft", a, n, axis, norm, true, |axis, _| Transform::Real { axes: vec![axis] })
}

/// NumPy's `numpy.fft.irfft`: the real signal of `n` points (default `2 (m - 1)`) whose half
/// spectrum is `a` along `axis`.
#[pyfunction]
#[pyo3(signature = (a, n = None, axis = -1, norm = None))]
pub fn irfft<'py>(
    py: Python<'py>,
    a: &Bound<'py, PyAny>,
    n: Option<i64>,
    axis: isize,
    norm: Option<&str>,
) -> PyResult<Bound<'py, PyAny>> {
    one_axis(py, "irfft", a, n, axis, norm, false, |axis, n| Transform::RealInverse { axes: vec![axis], n })
}

/// `$name(a, s=None, axes=$axes, norm=None)`: NumPy's n-dimensional real transforms.
macro_rules! real_n {
    ($name:ident, $inverse:expr, $axes:expr, $doc:literal) => {
        #[doc = $doc]
        #[pyfunction]
        #[pyo3(signature = (a, s = None, axes = $axes, norm = None))]
        pub fn $name<'py>(
            py: Python<'py>,
            a: &Bound<'py, PyAny>,
            s: Option<Vec<i64>>,
            axes: Option<Vec<isize>>,
            norm: Option<&str>,
        ) -> PyResult<Bound<'py, PyAny>> {
            several_axes(py, stringify!($name), a, s, axes, norm, $inverse, |axes, n| match $inverse {
                false => Transform::Real { axes },
                true => Transform::RealInverse { axes, n },
            })
        }
    };
}

real_n!(rfftn, false, None, "NumPy's `numpy.fft.rfftn`: the real transform along the last of `axes`, then the others.");
real_n!(irfftn, true, None, "NumPy's `numpy.fft.irfftn`: the inverse of `rfftn` (`s[-1]` the output's last length).");
real_n!(rfft2, false, Some(vec![-2, -1]), "NumPy's `numpy.fft.rfft2`: `rfftn` along the last two axes by default.");
real_n!(irfft2, true, Some(vec![-2, -1]), "NumPy's `numpy.fft.irfft2`: the inverse of `rfft2`.");

/// `$name(x, type=2, n=None, axis=-1, norm=None)`: SciPy's one-axis cosine and sine transforms.
macro_rules! trig_one {
    ($name:ident, $cosine:expr, $inverse:expr, $doc:literal) => {
        #[doc = $doc]
        #[pyfunction]
        #[pyo3(signature = (x, r#type = 2, n = None, axis = -1, norm = None))]
        pub fn $name<'py>(
            py: Python<'py>,
            x: &Bound<'py, PyAny>,
            r#type: i64,
            n: Option<i64>,
            axis: isize,
            norm: Option<&str>,
        ) -> PyResult<Bound<'py, PyAny>> {
            let ty: DctType = type_of(stringify!($name), r#type)?;
            one_axis(py, stringify!($name), x, n, axis, norm, true, |axis, _| Transform::Trig {
                axes: vec![axis],
                cosine: $cosine,
                ty,
                inverse: $inverse,
            })
        }
    };
}

trig_one!(dct, true, false, "SciPy's `scipy.fft.dct`: the discrete cosine transform of `type` 1 to 4 along `axis`.");
trig_one!(idct, true, true, "SciPy's `scipy.fft.idct`: the inverse of `dct`.");
trig_one!(dst, false, false, "SciPy's `scipy.fft.dst`: the discrete sine transform of `type` 1 to 4 along `axis`.");
trig_one!(idst, false, true, "SciPy's `scipy.fft.idst`: the inverse of `dst`.");

/// `$name(x, type=2, s=None, axes=None, norm=None)`: SciPy's n-dimensional ones.
macro_rules! trig_n {
    ($name:ident, $cosine:expr, $inverse:expr, $doc:literal) => {
        #[doc = $doc]
        #[pyfunction]
        #[pyo3(signature = (x, r#type = 2, s = None, axes = None, norm = None))]
        pub fn $name<'py>(
            py: Python<'py>,
            x: &Bound<'py, PyAny>,
            r#type: i64,
            s: Option<Vec<i64>>,
            axes: Option<Vec<isize>>,
            norm: Option<&str>,
        ) -> PyResult<Bound<'py, PyAny>> {
            let ty: DctType = type_of(stringify!($name), r#type)?;
            several_axes(py, stringify!($name), x, s, axes, norm, false, |axes, _| Transform::Trig {
                axes,
                cosine: $cosine,
                ty,
                inverse: $inverse,
            })
        }
    };
}

trig_n!(dctn, true, false, "SciPy's `scipy.fft.dctn`: `dct` along each of `axes` (all by default).");
trig_n!(idctn, true, true, "SciPy's `scipy.fft.idctn`: the inverse of `dctn`.");
trig_n!(dstn, false, false, "SciPy's `scipy.fft.dstn`: `dst` along each of `axes` (all by default).");
trig_n!(idstn, false, true, "SciPy's `scipy.fft.idstn`: the inverse of `dstn`.");

/// NumPy's `numpy.fft.fftfreq`: the sample frequencies of a transform of `n` points `d` apart.
#[pyfunction]
#[pyo3(signature = (n, d = 1.0))]
pub fn fftfreq(py: Python<'_>, n: usize, d: f64) -> PyResult<Bound<'_, PyAny>> {
    into_numpy(py, cnda::fft::fftfreq(n, d))
}

/// NumPy's `numpy.fft.rfftfreq`: the sample frequencies of `rfft`'s `n / 2 + 1` values.
#[pyfunction]
#[pyo3(signature = (n, d = 1.0))]
pub fn rfftfreq(py: Python<'_>, n: usize, d: f64) -> PyResult<Bound<'_, PyAny>> {
    into_numpy(py, cnda::fft::rfftfreq(n, d))
}

/// `u` with `shift u - Δu = f` directly (cnda's `fft::solve_box`): `spacing` one float for
/// every axis or one per axis; `boundary` as `cnda.solve` takes it (zero walls by default; a
/// number is the wall's value one spacing past the end, "neumann" mirrors, "periodic" wraps, both
/// sides of an axis of one kind); `laplacian` "second_order" (the finite-difference operator,
/// solved to rounding) or "spectral".
#[pyfunction]
#[pyo3(signature = (f, spacing = None, shift = 0.0, boundary = None, laplacian = "second_order"))]
pub fn solve_box<'py>(
    py: Python<'py>,
    f: &Bound<'py, PyAny>,
    spacing: Option<&Bound<'py, PyAny>>,
    shift: f64,
    boundary: Option<&Bound<'py, PyAny>>,
    laplacian: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let op = "solve_box";
    let laplacian = match laplacian {
        "second_order" => Laplacian::SecondOrder,
        "spectral" => Laplacian::Spectral,
        other => {
            return Err(PyValueError::new_err(format!(
                "{op}: laplacian={other:?}; give \"second_order\" (the default) or \"spectral\""
            )))
        }
    };
    let spacings = |rank: usize| -> PyResult<Vec<f64>> {
        let spacing: Vec<f64> = match spacing {
            None => vec![1.0; rank],
            Some(h) => match h.extract::<f64>() {
                Ok(h) => vec![h; rank],
                Err(_) => h.extract::<Vec<f64>>().map_err(|_| {
                    PyValueError::new_err(format!("{op}: spacing must be a float or one float per axis, got {h}"))
                })?,
            },
        };
        if spacing.len() != rank {
            return Err(PyValueError::new_err(format!(
                "{op}: {} spacings for an array of {rank} dimensions; give one, or one per axis",
                spacing.len()
            )));
        }
        Ok(spacing)
    };
    #[cfg(feature = "cuda")]
    if let Some(u) = super::device::solve_box(py, f, &spacings, shift, boundary, laplacian)? {
        return Ok(u);
    }
    let f = super::prepared(py, f)?;
    let rank = f.cast::<PyUntypedArray>()?.ndim();
    let spacing = spacings(rank)?;
    match super::dtype_of(op, &f)? {
        super::Dtype::F32 => solve_typed::<f32>(py, &f, rank, &spacing, shift, boundary, laplacian),
        super::Dtype::F64 => solve_typed::<f64>(py, &f, rank, &spacing, shift, boundary, laplacian),
        _ => Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "{op}: f is complex; solve its real and imaginary parts apart"
        ))),
    }
}

fn solve_typed<'py, T: FftFloat + numpy::Element + Stored>(
    py: Python<'py>,
    f: &Bound<'py, PyAny>,
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
        let rf = read::<T>(f, op, "f")?;
        let _in_use = lease(op, &[Operand::read("f", span_of::<T>(f))])?;
        let v = view::<T, N>(&rf, op)?;
        let u = run(py, rf.len(), || cnda::fft::try_solve_box(v, h, shift, boundaries, laplacian)).map_err(to_pyerr)?;
        into_numpy(py, u)
    })
}

/// The `cnda.fft` submodule, added to `parent` and importable as `cnda.fft`.
pub fn register(parent: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = parent.py();
    let m = PyModule::new(py, "fft")?;
    m.setattr(
        "__doc__",
        "NumPy's and SciPy's Fourier, cosine and sine transforms by cnda (see cnda.pyi), and solve_box.",
    )?;
    for f in [
        wrap_pyfunction!(fft, &m)?,
        wrap_pyfunction!(ifft, &m)?,
        wrap_pyfunction!(fft2, &m)?,
        wrap_pyfunction!(ifft2, &m)?,
        wrap_pyfunction!(fftn, &m)?,
        wrap_pyfunction!(ifftn, &m)?,
        wrap_pyfunction!(rfft, &m)?,
        wrap_pyfunction!(irfft, &m)?,
        wrap_pyfunction!(rfft2, &m)?,
        wrap_pyfunction!(irfft2, &m)?,
        wrap_pyfunction!(rfftn, &m)?,
        wrap_pyfunction!(irfftn, &m)?,
        wrap_pyfunction!(dct, &m)?,
        wrap_pyfunction!(idct, &m)?,
        wrap_pyfunction!(dst, &m)?,
        wrap_pyfunction!(idst, &m)?,
        wrap_pyfunction!(dctn, &m)?,
        wrap_pyfunction!(idctn, &m)?,
        wrap_pyfunction!(dstn, &m)?,
        wrap_pyfunction!(idstn, &m)?,
        wrap_pyfunction!(fftfreq, &m)?,
        wrap_pyfunction!(rfftfreq, &m)?,
        wrap_pyfunction!(solve_box, &m)?,
    ] {
        m.add_function(f)?;
    }
    parent.add_submodule(&m)?;
    // `import cnda.fft` and `from cnda.fft import fft` find it there.
    py.import("sys")?.getattr("modules")?.set_item("cnda.fft", &m)?;
    Ok(())
}
