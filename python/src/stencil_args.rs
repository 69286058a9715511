//! The arguments of `cnda.stencil` as core types: the taps (a preset name, a dict of offsets to
//! weights, a centred weight array, or a list of offsets for coefficient fields), the boundary of
//! each side of each axis, and the step count. Every refusal says what, why and how to fix.

use cnda::stencil::{Boundaries, Boundary, DynStencil, LinearStencil, Side, VariableStencil};
use cnda::{Array, Float};
use numpy::{PyArrayDyn, PyArrayMethods, PyUntypedArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

use crate::errors::to_pyerr;

/// The preset names `taps` takes.
const PRESETS: &str = "'jacobi' (the mean of the face neighbours), 'laplacian' (by rank), '5-point' or '9-point' (2D \
                       Laplacians), '7-point' or '27-point' (3D Laplacians)";

/// A stencil as the arguments describe it.
pub enum Taps<T, const N: usize> {
    /// Constant weights.
    Constant(DynStencil<T, N>),
    /// One coefficient field per offset.
    Varying(VariableStencil<N>),
}

impl<T: Float, const N: usize> Taps<T, N> {
    /// The radius along each axis.
    pub fn radius(&self) -> [usize; N] {
        match self {
            Taps::Constant(s) => s.radius(),
            Taps::Varying(s) => s.radius(),
        }
    }

    /// The number of taps (of coefficient fields a varying stencil needs).
    pub fn len(&self) -> usize {
        match self {
            Taps::Constant(s) => s.taps().len(),
            Taps::Varying(s) => s.offsets().len(),
        }
    }
}

/// The stencil the arguments describe, for a `u` of rank `N`: `taps` (None: the Jacobi mean, or
/// the Laplacian with `laplacian`), and whether coefficient fields come with it (`varying`).
pub fn taps<T: Float + numpy::Element, const N: usize>(
    taps: Option<&Bound<'_, PyAny>>,
    varying: bool,
    laplacian: bool,
    h: f64,
) -> PyResult<Taps<T, N>> {
    if varying {
        let Some(taps) = taps.filter(|t| !t.is_instance_of::<PyDict>() && !t.is_instance_of::<PyString>()) else {
            return Err(PyTypeError::new_err(
                "stencil: with coeffs, give taps as a list of offsets, one per coefficient field (the fields are the \
                 weights), e.g. taps=[(-1, 0), (1, 0), (0, 0)] with coeffs of shape (3, *u.shape)",
            ));
        };
        if taps.cast::<numpy::PyUntypedArray>().is_ok() {
            return Err(PyTypeError::new_err(
                "stencil: with coeffs, give taps as a list of offsets (the coefficient fields are the weights), not a \
                 weight array",
            ));
        }
        let offsets = taps
            .try_iter()
            .map_err(|_| PyTypeError::new_err("stencil: taps must be a list of offsets when coeffs are given"))?
            .map(|o| offset::<N>(&o?))
            .collect::<PyResult<Vec<_>>>()?;
        return VariableStencil::try_new(offsets).map(Taps::Varying).map_err(to_pyerr);
    }
    if laplacian && taps.is_some() {
        return Err(PyValueError::new_err(
            "stencil: give either taps or laplacian=True, not both (taps='laplacian' is the same preset)",
        ));
    }
    let Some(taps) = taps else {
        return preset::<T, N>(if laplacian { "laplacian" } else { "jacobi" }, h);
    };
    if let Ok(name) = taps.cast::<PyString>() {
        return preset::<T, N>(&name.to_cow()?, h);
    }
    if let Ok(dict) = taps.cast::<PyDict>() {
        let pairs = dict
            .iter()
            .map(|(k, w)| {
                let weight: f64 = w.extract().map_err(|_| {
                    PyTypeError::new_err(format!("stencil: the weight of tap {k} is {w}, not a number"))
                })?;
                Ok((offset::<N>(&k)?, T::from_f64(weight)))
            })
            .collect::<PyResult<Vec<_>>>()?;
        return DynStencil::try_new(pairs).map(Taps::Constant).map_err(to_pyerr);
    }
    if taps.cast::<numpy::PyUntypedArray>().is_ok() {
        return weight_array::<T, N>(taps);
    }
    Err(PyTypeError::new_err(format!(
        "stencil: taps is a {}; give a dict {{offset: weight}}, a centred weight array, or a preset name: {PRESETS}",
        taps.get_type()
    )))
}

/// One tap offset: a tuple of `N` ints (or an int when `N == 1`).
fn offset<const N: usize>(key: &Bound<'_, PyAny>) -> PyResult<[isize; N]> {
    if N == 1 {
        if let Ok(d) = key.extract::<isize>() {
            return Ok([d; N]);
        }
    }
    let entries: Vec<isize> = key.extract().map_err(|_| {
        PyTypeError::new_err(format!("stencil: the tap offset {key} is not a tuple of {N} ints (one per axis of u)"))
    })?;
    entries.as_slice().try_into().map_err(|_| {
        PyValueError::new_err(format!(
            "stencil: the tap offset {key} has {} entries for a {N}D u; give one offset per axis",
            entries.len()
        ))
    })
}

/// A centred weight array (odd extents) as taps: one per nonzero weight, row-major order.
fn weight_array<T: Float + numpy::Element, const N: usize>(taps: &Bound<'_, PyAny>) -> PyResult<Taps<T, N>> {
    // A float64 copy (NumPy's C code, no subclass code), read under a lease of the taps' memory.
    // Complex weights are refused: the copy would drop their imaginary parts with a warning only.
    let np = taps.py().import("numpy")?;
    if let Ok(array) = taps.cast::<numpy::PyUntypedArray>() {
        use numpy::{PyArrayDescrMethods, PyUntypedArrayMethods};
        if array.dtype().kind() == b'c' {
            return Err(PyTypeError::new_err(format!(
                "stencil: the weight array is {}; stencils take real weights (their fields are real arrays): \
                 pass weights.real, or split a complex problem into its real and imaginary parts",
                array.dtype()
            )));
        }
    }
    let weights = crate::overlap::reading("stencil", "taps", taps, || np.call_method1("array", (taps, "float64")))?;
    let weights = weights.cast::<PyArrayDyn<f64>>()?.readonly();
    if weights.ndim() != N {
        return Err(PyValueError::new_err(format!(
            "stencil: the weight array has {} dimensions for a {N}D u; give one of {N} dimensions, each of odd length",
            weights.ndim()
        )));
    }
    let shape: [usize; N] = core::array::from_fn(|a| weights.shape()[a]);
    let view = weights.as_array();
    let centred = Array::<T, N>::try_from_fn(shape, |x| T::from_f64(view[x.as_slice()])).map_err(to_pyerr)?;
    DynStencil::try_from_weights(&centred).map(Taps::Constant).map_err(to_pyerr)
}

/// A preset stencil by name, for rank `N`.
fn preset<T: Float, const N: usize>(name: &str, h: f64) -> PyResult<Taps<T, N>> {
    let h = T::from_f64(h);
    let stencil: Option<DynStencil<T, N>> = match (name, N) {
        ("jacobi", 1) => dynamic(DynStencil::try_new([([-1], T::from_f64(0.5)), ([1], T::from_f64(0.5))])),
        ("jacobi", 2) => dynamic(Ok(LinearStencil::jacobi_5pt().into())),
        ("jacobi", 3) => dynamic(Ok(LinearStencil::jacobi_7pt().into())),
        ("laplacian", 1) => {
            let a = T::ONE / (h * h);
            dynamic(DynStencil::try_new([([-1], a), ([1], a), ([0], T::from_f64(-2.0) * a)]))
        }
        ("laplacian" | "5-point", 2) => dynamic(Ok(LinearStencil::laplacian_5pt(h).into())),
        ("9-point", 2) => dynamic(Ok(LinearStencil::laplacian_9pt(h).into())),
        ("laplacian" | "7-point", 3) => dynamic(Ok(LinearStencil::laplacian_7pt(h).into())),
        ("27-point", 3) => dynamic(Ok(LinearStencil::laplacian_27pt(h).into())),
        ("jacobi" | "laplacian" | "5-point" | "9-point" | "7-point" | "27-point", _) => {
            return Err(PyValueError::new_err(format!(
                "stencil: the preset '{name}' is not defined for a {N}D u; the presets are {PRESETS}"
            )))
        }
        _ => {
            return Err(PyValueError::new_err(format!(
                "stencil: no preset is named '{name}'; the presets are {PRESETS}, or give a dict {{offset: weight}}"
            )))
        }
    };
    stencil.map(Taps::Constant).ok_or_else(|| PyValueError::new_err(format!("stencil: the preset '{name}' failed")))
}

/// A preset of another rank's type, as rank `N` (the match above pairs names with ranks).
fn dynamic<T: Float, const M: usize, const N: usize>(s: cnda::Result<DynStencil<T, M>>) -> Option<DynStencil<T, N>> {
    let s = s.ok()?;
    let taps = s.taps().iter().map(|&(o, w)| (core::array::from_fn(|a| o[a]), w));
    (M == N).then(|| DynStencil::new(taps))
}

/// The boundaries `boundary` names for a `u` of rank `N`: `None` or one kind for every side; or a
/// sequence of `N` per-axis entries, each a kind or a `(low, high)` pair. A kind is `"fixed"`
/// (the halo keeps its values), `"periodic"`, `"neumann"` (mirrored: zero gradient), or a
/// number (the halo holds that value); NumPy's `"wrap"`, `"symmetric"` and `"constant"` name the
/// same three, and its `"reflect"` and `"edge"` are refused with what to use.
pub fn boundaries<T: Float, const N: usize>(boundary: Option<&Bound<'_, PyAny>>) -> PyResult<Boundaries<T, N>> {
    let Some(boundary) = boundary else {
        return Ok(Boundaries::all(Boundary::Fixed));
    };
    if boundary.is_instance_of::<PyString>() || boundary.extract::<f64>().is_ok() {
        return Ok(Boundaries::all(side::<T>(boundary)?));
    }
    let axes: Vec<Bound<'_, PyAny>> =
        boundary.try_iter().and_then(|i| i.collect::<PyResult<Vec<_>>>()).map_err(|_| bad_boundary(boundary))?;
    if axes.len() != N {
        return Err(PyValueError::new_err(format!(
            "stencil: boundary has {} entries for a {N}D u; give one kind for every side, or one entry per axis (a kind \
             or a (low, high) pair)",
            axes.len()
        )));
    }
    let mut sides = Boundaries::all(Boundary::Fixed);
    for (axis, entry) in axes.iter().enumerate() {
        let kind = entry.is_instance_of::<PyString>() || entry.extract::<f64>().is_ok();
        let (low, high) = match kind {
            true => (side::<T>(entry)?, side::<T>(entry)?),
            false => {
                let pair: Vec<Bound<'_, PyAny>> =
                    entry.try_iter().and_then(|i| i.collect::<PyResult<Vec<_>>>()).map_err(|_| bad_boundary(entry))?;
                match pair.as_slice() {
                    [low, high] => (side::<T>(low)?, side::<T>(high)?),
                    _ => return Err(bad_boundary(entry)),
                }
            }
        };
        sides = sides.with(axis, Side::Low, low).with(axis, Side::High, high);
    }
    Ok(sides)
}

/// One side's kind.
fn side<T: Float>(kind: &Bound<'_, PyAny>) -> PyResult<Boundary<T>> {
    if let Ok(name) = kind.cast::<PyString>() {
        // NumPy's `np.pad` modes where one fills the halo exactly as a kind does.
        return match &*name.to_cow()? {
            "fixed" => Ok(Boundary::Fixed),
            "periodic" | "wrap" => Ok(Boundary::Periodic),
            "neumann" | "symmetric" => Ok(Boundary::Neumann),
            "constant" => Ok(Boundary::Value(T::from_f64(0.0))),
            "reflect" => Err(PyValueError::new_err(
                "stencil: boundary 'reflect' (np.pad's mirror about the edge point, which it leaves out) is not a \
                 kind cnda steps with; 'neumann' (np.pad's 'symmetric') mirrors about the face between the edge \
                 point and the halo, the zero-gradient wall",
            )),
            "edge" => Err(PyValueError::new_err(
                "stencil: boundary 'edge' (np.pad's edge value repeated) is not a kind cnda steps with; for a \
                 stencil of radius 1 'neumann' (np.pad's 'symmetric') fills the same halo, and mirrors the \
                 interior beyond it",
            )),
            _ => Err(bad_boundary(kind)),
        };
    }
    if kind.is_instance_of::<pyo3::types::PyBool>() {
        return Err(bad_boundary(kind));
    }
    kind.extract::<f64>().map(|v| Boundary::Value(T::from_f64(v))).map_err(|_| bad_boundary(kind))
}

fn bad_boundary(kind: &Bound<'_, PyAny>) -> PyErr {
    PyValueError::new_err(format!(
        "stencil: boundary {kind} is not a boundary kind; give 'fixed', 'periodic' (or np.pad's 'wrap'), 'neumann' \
         (or 'symmetric') or a number (the value outside; 'constant' is 0), for every side, per axis, or per axis as \
         a (low, high) pair"
    ))
}

/// The linear operator a constant stencil makes on a grid of `shape` (`cnda.solve`,
/// `cnda.stencil_matrix`): taps as for `cnda.stencil` (no coefficient fields), and the boundary
/// as there but zero walls by default.
pub fn linear_operator<T: Float + numpy::Element, const N: usize>(
    taps: Option<&Bound<'_, PyAny>>,
    boundary: Option<&Bound<'_, PyAny>>,
    laplacian: bool,
    h: f64,
    shape: [usize; N],
) -> PyResult<cnda::solve::StencilOperator<T, N>> {
    let Taps::Constant(stencil) = self::taps::<T, N>(taps, false, laplacian, h)? else {
        unreachable!("taps without coefficient fields are constant")
    };
    cnda::solve::StencilOperator::try_new(stencil, shape, linear_boundaries::<T, N>(boundary)?).map_err(to_pyerr)
}

/// The boundaries of a linear operator: as [`boundaries`] takes them, zero walls by default.
pub fn linear_boundaries<T: Float, const N: usize>(boundary: Option<&Bound<'_, PyAny>>) -> PyResult<Boundaries<T, N>> {
    match boundary {
        None => Ok(Boundaries::all(Boundary::Value(T::ZERO))),
        Some(_) => boundaries::<T, N>(boundary),
    }
}

/// The step count: at least 1.
pub fn steps(steps: i64) -> PyResult<usize> {
    if steps < 1 {
        return Err(PyValueError::new_err(format!(
            "stencil: steps is {steps}; give the number of sweeps to run, at least 1"
        )));
    }
    usize::try_from(steps).map_err(|_| PyValueError::new_err("stencil: steps does not fit this machine's usize"))
}
