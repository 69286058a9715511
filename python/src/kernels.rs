//! `cnda.stencil`: any constant- or variable-coefficient stencil (taps from `stencil_args.rs`) on
//! NumPy arrays of float32 or float64, 1D to 3D, any strides, `steps` fused sweeps with
//! boundaries, the interpreter lock released while the kernel runs and rayon's threads doing the
//! work; CUDA arrays go to `cuda_stencil.rs`. An output that shares memory with an input is
//! refused (`overlap.rs`), and the operands count as in use while the kernel runs.
//!
//! What `out` receives: the interior swept, and the halo (the points within the stencil's radius
//! of an edge) as the boundary says: `u`'s values for a fixed side, the refilled halo otherwise.
//! So `stencil(u, steps=2)` equals `stencil(stencil(u))`. One sweep with fixed sides reads `u`
//! and writes `out` in place, whatever their strides; more steps (or other boundaries) alternate
//! between `out` and a row-major scratch field that each thread keeps for its next call of the
//! same shape and dtype (`sweeps.rs`).

use cnda::kernel::Cpu;
use cnda::Float;
use numpy::{Element, PyArrayDyn, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

use crate::borrow::{read, view, view_mut, write};
use crate::errors::to_pyerr;
use crate::overlap::{lease, overlap_error, span_of, Operand};
use crate::stencil_args;

/// `cnda.stencil`'s arguments after `u` and `out`.
pub struct Args<'a, 'py> {
    pub taps: Option<&'a Bound<'py, PyAny>>,
    pub coeffs: Option<&'a Bound<'py, PyAny>>,
    pub steps: usize,
    pub boundary: Option<&'a Bound<'py, PyAny>>,
    pub laplacian: bool,
    pub h: f64,
}

#[doc = include_str!(concat!(env!("OUT_DIR"), "/doc/def.stencil.txt"))] // python/cnda.pyi's docstring
#[pyfunction]
#[pyo3(signature = (u, out = None, taps = None, coeffs = None, steps = 1, boundary = None, *, laplacian = false, h = 1.0))]
#[allow(clippy::too_many_arguments)]
pub fn stencil<'py>(
    py: Python<'py>,
    u: &Bound<'py, PyAny>,
    out: Option<&Bound<'py, PyAny>>,
    taps: Option<&Bound<'py, PyAny>>,
    coeffs: Option<&Bound<'py, PyAny>>,
    steps: i64,
    boundary: Option<&Bound<'py, PyAny>>,
    laplacian: bool,
    h: f64,
) -> PyResult<Bound<'py, PyAny>> {
    let args = Args { taps, coeffs, steps: stencil_args::steps(steps)?, boundary, laplacian, h };
    #[cfg(feature = "cuda")]
    if let Some(result) = crate::cuda_stencil::stencil(py, u, out, &args)? {
        return Ok(result);
    }
    if u.cast::<PyArrayDyn<f64>>().is_ok() {
        host::<f64>(py, u, out, &args)
    } else if u.cast::<PyArrayDyn<f32>>().is_ok() {
        host::<f32>(py, u, out, &args)
    } else {
        let got = u.getattr("dtype").map(|d| d.to_string()).unwrap_or_else(|_| u.get_type().to_string());
        Err(PyTypeError::new_err(format!(
            "stencil: u must be a numpy.ndarray of float32 or float64 (or a CUDA array), got {got}; convert with \
             np.asarray(u, dtype=np.float64)"
        )))
    }
}

/// The stencil on a NumPy `u` of `T`, by rank.
fn host<'py, T: Float + Element + Send + Sync>(
    py: Python<'py>,
    u: &Bound<'py, PyAny>,
    out: Option<&Bound<'py, PyAny>>,
    args: &Args<'_, 'py>,
) -> PyResult<Bound<'py, PyAny>> {
    match u.cast::<PyUntypedArray>()?.ndim() {
        1 => host_rank::<T, 1>(py, u, out, args),
        2 => host_rank::<T, 2>(py, u, out, args),
        3 => host_rank::<T, 3>(py, u, out, args),
        n => Err(rank_error(n)),
    }
}

/// The error for a `u` of rank `n` outside 1 to 3.
pub fn rank_error(n: usize) -> PyErr {
    PyValueError::new_err(format!(
        "stencil: u has {n} dimensions; give a 1D, 2D or 3D array (loop over the leading axes of a larger one)"
    ))
}

/// Grids of at least this many points are swept on rayon's threads, and calls doing at least
/// this many point updates release the interpreter lock.
pub const PARALLEL_FROM: usize = 1 << 16;

fn host_rank<'py, T: Float + Element + Send + Sync, const N: usize>(
    py: Python<'py>,
    u: &Bound<'py, PyAny>,
    out: Option<&Bound<'py, PyAny>>,
    args: &Args<'_, 'py>,
) -> PyResult<Bound<'py, PyAny>> {
    let spec = stencil_args::taps::<T, N>(args.taps, args.coeffs.is_some(), args.laplacian, args.h)?;
    let boundaries = stencil_args::boundaries::<T, N>(args.boundary)?;
    let dims = crate::borrow::typed::<T>(u, "stencil", "u")?.shape().to_vec();
    let shape: [usize; N] = core::array::from_fn(|a| dims[a]);
    check_fits(&shape, spec.radius())?;
    // Reading the coefficient fields may run Python code (a list's items, a subclass's
    // `__getitem__`), which may move any argument: before any span is taken.
    let coefficient_arrays = coefficients(args.coeffs, spec.len(), &shape)?;
    let out = match out {
        Some(out) => out.clone(),
        None => PyArrayDyn::<T>::zeros(py, shape.as_slice(), false).into_any(),
    };
    // From here to the views nothing runs Python code, so the spans leased below are those of the
    // metadata the views are built from (an ndarray subclass cannot move an argument in between).
    let input = read::<T>(u, "stencil", "u")?;
    let coefficient_reads =
        coefficient_arrays.iter().map(|c| read::<T>(c, "stencil", "coeffs")).collect::<PyResult<Vec<_>>>()?;
    if input.shape() != shape.as_slice() || coefficient_reads.iter().any(|c| c.shape() != shape.as_slice()) {
        return Err(PyValueError::new_err(
            "stencil: an argument's shape changed while the call read its arguments (Python code of one of them \
             reshaped u or a coefficient field); pass plain arrays",
        ));
    }
    let (u_span, out_span) = (span_of::<T>(u), span_of::<T>(&out));
    // Before borrowing `out`: an `out` overlapping an input is named as such, not as a borrow failure.
    if u_span.overlaps(out_span) {
        return Err(overlap_error("stencil", "out", "u"));
    }
    let coefficient_spans: Vec<_> = coefficient_arrays.iter().map(|c| span_of::<T>(c)).collect();
    if coefficient_spans.iter().any(|s| s.overlaps(out_span)) {
        return Err(overlap_error("stencil", "out", "coeffs"));
    }
    let mut output = write::<T>(&out, "stencil", "out")?;
    if output.shape() != shape.as_slice() {
        return Err(to_pyerr(cnda::Error::ShapeMismatch {
            op: "stencil",
            expected: shape.to_vec(),
            got: output.shape().to_vec(),
        }));
    }
    let mut operands = vec![Operand::read("u", u_span), Operand::write("out", out_span)];
    operands.extend(coefficient_spans.iter().map(|&s| Operand::read("coeffs", s)));
    let _in_use = lease("stencil", &operands)?;
    let a = view::<T, N>(&input, "stencil")?;
    let b = view_mut::<T, N>(&mut output, "stencil")?;
    let fields = coefficient_reads.iter().map(|c| view::<T, N>(c, "stencil")).collect::<PyResult<Vec<_>>>()?;
    let points: usize = shape.iter().product();
    let parallel = points >= PARALLEL_FROM;
    let steps = args.steps;
    let run = || crate::sweeps::sweeps::<T, N, Cpu>(&spec, a, &fields, b, steps, boundaries, parallel);
    let result = if points.saturating_mul(steps) >= PARALLEL_FROM { py.detach(run) } else { run() };
    result.map_err(to_pyerr)?;
    Ok(out)
}

/// Refuses a grid with no interior point for `radius`: the stencil would leave every point alone.
pub fn check_fits<const N: usize>(shape: &[usize; N], radius: [usize; N]) -> PyResult<()> {
    if let Some(axis) = (0..N).find(|&a| shape[a] < 2 * radius[a] + 1) {
        return Err(PyValueError::new_err(format!(
            "stencil: u has {} points along axis {axis}, fewer than the {} a stencil of radius {} needs there (the \
             radius on each side and one point to update); give a larger grid or a smaller stencil",
            shape[axis],
            2 * radius[axis] + 1,
            radius[axis]
        )));
    }
    Ok(())
}

/// The coefficient fields: `coeffs` as one array of shape `(taps, *shape)` (its sub-arrays, no
/// copies) or a sequence of `taps` arrays of `shape`; none without `coeffs`.
pub fn coefficients<'py>(
    coeffs: Option<&Bound<'py, PyAny>>,
    taps: usize,
    shape: &[usize],
) -> PyResult<Vec<Bound<'py, PyAny>>> {
    let Some(coeffs) = coeffs else { return Ok(Vec::new()) };
    let fields: Vec<Bound<'py, PyAny>> = if let Ok(stacked) = coeffs.cast::<PyUntypedArray>() {
        if stacked.ndim() != shape.len() + 1 || stacked.shape()[1..] != *shape {
            return Err(PyValueError::new_err(format!(
                "stencil: coeffs has shape {:?}; give one field per tap, shape ({taps}, {}), or a list of {taps} \
                 arrays of u's shape",
                stacked.shape(),
                shape.iter().map(|n| n.to_string()).collect::<Vec<_>>().join(", ")
            )));
        }
        (0..stacked.shape()[0]).map(|k| coeffs.get_item(k)).collect::<PyResult<_>>()?
    } else {
        coeffs
            .try_iter()
            .map_err(|_| {
                PyTypeError::new_err("stencil: coeffs must be an array of shape (taps, *u.shape) or a list of arrays")
            })?
            .collect::<PyResult<_>>()?
    };
    if fields.len() != taps {
        return Err(PyValueError::new_err(format!(
            "stencil: {} coefficient fields for {taps} taps; give one field per tap, in the taps' order",
            fields.len()
        )));
    }
    for field in &fields {
        let got = field.cast::<PyUntypedArray>().map(|a| a.shape().to_vec()).ok();
        if got.as_deref().is_some_and(|g| g != shape) {
            return Err(PyValueError::new_err(format!(
                "stencil: a coefficient field has shape {:?}, u has {shape:?}; every field has u's shape",
                got.unwrap_or_default()
            )));
        }
    }
    Ok(fields)
}
