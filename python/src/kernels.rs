//! cnda's kernels called on NumPy arrays in place: no copies, the interpreter lock released while
//! they run, rayon's threads doing the work. The arrays are borrowed through the numpy crate's
//! borrow checker, so an output that overlaps an input is refused rather than raced.

use cnda::stencil::LinearStencil;
use cnda::{ArrayView, ArrayViewMut, RowMajor};
use numpy::{Element, PyArrayDyn, PyArrayMethods, PyUntypedArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

use crate::errors::to_pyerr;

/// `out = stencil(u)` on the interior of two C-contiguous float64 NumPy arrays of one shape
/// (2D or 3D), with the stencil chosen by rank: the 5- or 7-point Jacobi mean, or with
/// `laplacian=True` the 5- or 7-point Laplacian of spacing `h`. Boundary points of `out` are left
/// alone. A grid of 2^16 points or more runs on all cores with the interpreter lock released.
#[pyfunction]
#[pyo3(signature = (u, out, laplacian = false, h = 1.0))]
pub fn stencil(py: Python<'_>, u: &Bound<'_, PyAny>, out: &Bound<'_, PyAny>, laplacian: bool, h: f64) -> PyResult<()> {
    let u = typed::<f64>(u, "u")?;
    let out = typed::<f64>(out, "out")?;
    let input = u.try_readonly().map_err(|e| PyValueError::new_err(format!("stencil: cannot read u: {e}")))?;
    let mut output = out
        .try_readwrite()
        .map_err(|e| PyValueError::new_err(format!("stencil: cannot write out (is it u, or a view of u? {e})")))?;
    let shape = input.shape().to_vec();
    if output.shape() != shape.as_slice() {
        return Err(to_pyerr(cnda::Error::ShapeMismatch {
            op: "stencil",
            expected: shape,
            got: output.shape().to_vec(),
        }));
    }
    let (src, dst) = (contiguous(input.as_slice(), "u")?, contiguous_mut(output.as_slice_mut(), "out")?);
    // Small grids run on the calling thread: handing them to rayon costs more than the sweep.
    let parallel = src.len() >= PARALLEL_FROM;
    match shape.len() {
        2 => {
            let (a, b) = views([shape[0], shape[1]], src, dst)?;
            if laplacian {
                sweep(py, parallel, LinearStencil::laplacian_5pt(h), a, b);
            } else {
                sweep(py, parallel, LinearStencil::jacobi_5pt(), a, b);
            }
        }
        3 => {
            let (a, b) = views([shape[0], shape[1], shape[2]], src, dst)?;
            if laplacian {
                sweep(py, parallel, LinearStencil::laplacian_7pt(h), a, b);
            } else {
                sweep(py, parallel, LinearStencil::jacobi_7pt(), a, b);
            }
        }
        n => return Err(PyValueError::new_err(format!("stencil: u has {n} dimensions; give a 2D or 3D array"))),
    }
    Ok(())
}

/// Grids of at least this many points are swept on rayon's threads.
const PARALLEL_FROM: usize = 1 << 16;

/// One sweep of `stencil` from `a` into `b`: on rayon's threads with the interpreter lock released
/// when `parallel` (a long sweep other Python threads can run beside), else on this thread with
/// the lock kept, which costs less than releasing it.
fn sweep<const N: usize, const K: usize>(
    py: Python<'_>,
    parallel: bool,
    stencil: LinearStencil<f64, N, 1, K>,
    a: ArrayView<'_, f64, N, RowMajor>,
    b: ArrayViewMut<'_, f64, N, RowMajor>,
) {
    if parallel {
        py.detach(move || stencil.par_apply(a, b));
    } else {
        stencil.apply(a, b);
    }
}

/// `x` as a NumPy array of `T`, or `TypeError` naming the argument.
fn typed<'a, 'py, T: Element>(x: &'a Bound<'py, PyAny>, name: &str) -> PyResult<&'a Bound<'py, PyArrayDyn<T>>> {
    x.cast::<PyArrayDyn<T>>().map_err(|_| {
        PyTypeError::new_err(format!(
            "stencil: {name} must be a float64 numpy.ndarray; convert with np.asarray({name}, dtype=np.float64)"
        ))
    })
}

fn contiguous<'a, T>(s: Result<&'a [T], numpy::AsSliceError>, name: &str) -> PyResult<&'a [T]> {
    s.map_err(|_| not_contiguous(name))
}

fn contiguous_mut<'a, T>(s: Result<&'a mut [T], numpy::AsSliceError>, name: &str) -> PyResult<&'a mut [T]> {
    s.map_err(|_| not_contiguous(name))
}

fn not_contiguous(name: &str) -> PyErr {
    PyValueError::new_err(format!(
        "stencil: {name} must be C-contiguous (row-major) to be used in place; pass np.ascontiguousarray({name})"
    ))
}

/// cnda views of the two slices with `shape`.
fn views<'a, const N: usize>(
    shape: [usize; N],
    src: &'a [f64],
    dst: &'a mut [f64],
) -> PyResult<(ArrayView<'a, f64, N, RowMajor>, ArrayViewMut<'a, f64, N, RowMajor>)> {
    Ok((ArrayView::from_slice(shape, src).map_err(to_pyerr)?, ArrayViewMut::from_slice(shape, dst).map_err(to_pyerr)?))
}
