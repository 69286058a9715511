//! cnda's kernels called on NumPy arrays in place: no copies, the interpreter lock released while
//! they run, rayon's threads doing the work. An output that shares memory with an input is
//! refused (`overlap.rs`), and the operands count as in use while the kernel runs.

use cnda::stencil::LinearStencil;
use cnda::{ArrayView, ArrayViewMut};
use numpy::PyUntypedArrayMethods;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::borrow::{read, view, view_mut, write};
use crate::errors::to_pyerr;
use crate::overlap::{lease, overlap_error, span_of, Operand};

/// `out = stencil(u)` on the interior of two float64 NumPy arrays of one shape (2D or 3D), with
/// the stencil chosen by rank: the 5- or 7-point Jacobi mean, or with `laplacian=True` the 5- or
/// 7-point Laplacian of spacing `h`. Both arrays are used in place whatever their strides
/// (C- or Fortran-ordered, transposed, stepped, flipped); `out` must be writable and share no
/// memory with `u`. Boundary points of `out` are left alone. A grid of 2^16 points or more runs
/// on all cores with the interpreter lock released.
#[pyfunction]
#[pyo3(signature = (u, out, laplacian = false, h = 1.0))]
pub fn stencil(py: Python<'_>, u: &Bound<'_, PyAny>, out: &Bound<'_, PyAny>, laplacian: bool, h: f64) -> PyResult<()> {
    let input = read::<f64>(u, "stencil", "u")?;
    let (u_span, out_span) = (span_of::<f64>(u), span_of::<f64>(out));
    // Before borrowing `out`: an `out` overlapping `u` is named as such, not as a borrow failure.
    if u_span.overlaps(out_span) {
        return Err(overlap_error("stencil", "out", "u"));
    }
    let mut output = write::<f64>(out, "stencil", "out")?;
    let shape = input.shape().to_vec();
    if output.shape() != shape.as_slice() {
        return Err(to_pyerr(cnda::Error::ShapeMismatch {
            op: "stencil",
            expected: shape,
            got: output.shape().to_vec(),
        }));
    }
    let _in_use = lease("stencil", &[Operand::read("u", u_span), Operand::write("out", out_span)])?;
    // Small grids run on the calling thread: handing them to rayon costs more than the sweep.
    let parallel = shape.iter().product::<usize>() >= PARALLEL_FROM;
    match shape.len() {
        2 => {
            let (a, b) = (view::<f64, 2>(&input, "stencil")?, view_mut::<f64, 2>(&mut output, "stencil")?);
            if laplacian {
                sweep(py, parallel, LinearStencil::laplacian_5pt(h), a, b);
            } else {
                sweep(py, parallel, LinearStencil::jacobi_5pt(), a, b);
            }
        }
        3 => {
            let (a, b) = (view::<f64, 3>(&input, "stencil")?, view_mut::<f64, 3>(&mut output, "stencil")?);
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

/// One sweep of `stencil` from `a` into `b` (any strides: the sweep reads the views' own
/// strides): on rayon's threads with the interpreter lock released when `parallel` (a long sweep
/// other Python threads can run beside), else on this thread with the lock kept, which costs
/// less than releasing it.
fn sweep<const N: usize, const K: usize>(
    py: Python<'_>,
    parallel: bool,
    stencil: LinearStencil<f64, N, 1, K>,
    a: ArrayView<'_, f64, N>,
    b: ArrayViewMut<'_, f64, N>,
) {
    if parallel {
        py.detach(move || stencil.par_apply(a, b));
    } else {
        stencil.apply(a, b);
    }
}
