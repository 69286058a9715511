//! Reductions of `CudaArray`s on their device, as NumPy's: `sum`, `min`, `max` and `mean` over
//! all elements (a NumPy scalar of the array's dtype, as `cnda.sum` returns), along one axis
//! (negative counts from the end) or a tuple of axes (a CudaArray; axes reduced one after
//! another, highest first, as `cnda.sum` does). Full reductions take any rank; reductions along
//! axes, ranks 2 to 4.
//!
//! Where NumPy's result has another dtype (an int32 sum is int64, an integer mean is float64),
//! the reduction is a `TypeError` saying how to convert: the device kernels keep the element type.
//! `min`/`max` of nothing are NumPy's `ValueError`; a mean of nothing is NaN with NumPy's
//! `RuntimeWarning`. Complex arrays sum and average (each part divided by the count); their
//! `min`/`max` are a `TypeError`, as complex numbers have no order.

use cnda::backend::cuda::Cuda;
use cnda::Array;
use pyo3::exceptions::{PyRuntimeWarning, PyTypeError, PyValueError};
use pyo3::prelude::*;

use crate::cuda::{CudaArray, CudaData, DeviceStore};
use crate::cuda_elements::{Compute, Kind};
use crate::cuda_ops::{caught, flat};
use crate::errors::to_pyerr;
use crate::variants::by_element;

/// The reductions.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Reduction {
    Sum,
    Min,
    Max,
    Mean,
}

impl Reduction {
    fn name(self) -> &'static str {
        match self {
            Reduction::Sum => "sum",
            Reduction::Min => "min",
            Reduction::Max => "max",
            Reduction::Mean => "mean",
        }
    }
}

/// The axes `axis` names (an int, a tuple or list of ints, or `None`: all), ascending.
fn axes(op: &str, axis: Option<&Bound<'_, PyAny>>, rank: usize) -> PyResult<Vec<usize>> {
    let Some(axis) = axis.filter(|a| !a.is_none()) else { return Ok((0..rank).collect()) };
    let given: Vec<isize> = match axis.extract::<isize>() {
        Ok(one) => vec![one],
        Err(_) => axis.extract().map_err(|_| {
            PyTypeError::new_err(format!("{op}: axis must be an int or a tuple of ints, got {}", axis.get_type()))
        })?,
    };
    crate::axes::distinct_axes(op, &given, rank)
}

/// `op` of `a` over `axis`: a NumPy scalar for all axes, else a CudaArray.
pub fn reduce<'py>(
    py: Python<'py>,
    a: &CudaArray,
    axis: Option<&Bound<'py, PyAny>>,
    op: Reduction,
) -> PyResult<Bound<'py, PyAny>> {
    let axes = axes(op.name(), axis, a.dims().len())?;
    by_element!(CudaData, &a.data, s, T => reduce_typed::<T>(py, s, &axes, op))
}

/// NumPy's error for `min`/`max` of nothing.
fn empty_error(op: Reduction) -> PyErr {
    let (name, numpy) = if op == Reduction::Min { ("min", "minimum") } else { ("max", "maximum") };
    PyValueError::new_err(format!(
        "{name}: zero-size array to reduction operation {numpy} which has no identity (no element to choose from); \
         check the array's size, or reduce along a non-empty axis"
    ))
}

/// NumPy's warning for a mean of nothing.
fn warn_empty_mean(py: Python<'_>) -> PyResult<()> {
    PyErr::warn(py, &py.get_type::<PyRuntimeWarning>(), c"Mean of empty slice", 1)
}

fn reduce_typed<'py, T: Compute>(
    py: Python<'py>,
    s: &DeviceStore<T>,
    axes: &[usize],
    op: Reduction,
) -> PyResult<Bound<'py, PyAny>> {
    let t = T::NAME;
    if op == Reduction::Sum && t == "int32" {
        return Err(PyTypeError::new_err(
            "sum: NumPy sums int32 in int64 (an int32 total would wrap; cnda.sum does the same), and CudaArray cannot \
             convert int32 to int64 on the device yet; sum an int64 array: cnda.to_cuda(x.astype(np.int64)), or sum \
             on the host: cnda.sum(a.to_numpy())",
        ));
    }
    if op == Reduction::Mean && T::KIND == Kind::Int {
        return Err(PyTypeError::new_err(format!(
            "mean: NumPy's mean of {t} is float64, and CudaArray cannot convert {t} to float64 on the device yet; \
             convert first: cnda.to_cuda(a.to_numpy().astype(np.float64))"
        )));
    }
    if axes.len() == s.shape.len() {
        return whole(py, s, op);
    }
    let wrap = |store: DeviceStore<T>| Ok(Bound::new(py, CudaArray { data: T::device_data(store) })?.into_any());
    if axes.is_empty() {
        // No axis: every element on its own, as NumPy.
        return wrap(DeviceStore { array: s.array.try_to_owned().map_err(to_pyerr)?, shape: s.shape.clone() });
    }
    // Highest axis first, so the lower axes keep their numbers.
    let mut acc = along(s, axes[axes.len() - 1], op)?;
    for &k in axes[..axes.len() - 1].iter().rev() {
        acc = along(&acc, k, op)?;
    }
    if op == Reduction::Mean {
        let count: usize = axes.iter().map(|&k| s.shape[k]).product();
        if count == 0 {
            warn_empty_mean(py)?; // the sums are 0, and 0 / 0 is NaN, as NumPy's mean
        }
        T::divide_by_count(&mut acc.array, count)?;
    }
    wrap(acc)
}

/// `op` over every element, as a NumPy scalar of `T`.
fn whole<'py, T: Compute>(py: Python<'py>, s: &DeviceStore<T>, op: Reduction) -> PyResult<Bound<'py, PyAny>> {
    let a = &s.array;
    let value = py.detach(|| match op {
        Reduction::Sum => caught("sum", || Some(a.sum())),
        Reduction::Min => T::extreme(a, false),
        Reduction::Max => T::extreme(a, true),
        Reduction::Mean => caught("mean", || a.mean()),
    })?;
    let value = match value {
        Some(v) => v,
        None if op == Reduction::Mean => {
            warn_empty_mean(py)?;
            let nan = f64::NAN;
            T::from_complex(cnda::Complex::new(nan, nan)).or_else(|| T::from_f64(nan)).expect("means are of floats")
        }
        None => return Err(empty_error(op)),
    };
    py.import("numpy")?.getattr(T::NAME)?.call1((value,))
}

/// `op` along one axis of a store of rank 2 to 4 (a mean sums: the caller divides).
fn along<T: Compute>(s: &DeviceStore<T>, axis: usize, op: Reduction) -> PyResult<DeviceStore<T>> {
    let mut shape = s.shape.clone();
    shape.remove(axis);
    macro_rules! at {
        ($N:literal, $M:literal) => {{
            let full: [usize; $N] = s.shape.as_slice().try_into().expect("the rank matched");
            let v = s.array.try_reshape(full).map_err(to_pyerr)?;
            let out: Option<Array<T, $M, Cuda>> = match op {
                Reduction::Sum | Reduction::Mean => Some(v.try_sum_axis::<$M>(axis).map_err(to_pyerr)?),
                Reduction::Min => T::extreme_axis::<$N, $M>(v, axis, false)?,
                Reduction::Max => T::extreme_axis::<$N, $M>(v, axis, true)?,
            };
            flat(out.ok_or_else(|| empty_error(op))?)
        }};
    }
    let array = match s.shape.len() {
        2 => at!(2, 1),
        3 => at!(3, 2),
        4 => at!(4, 3),
        n => return Err(crate::borrow::rank_error(op.name(), n)),
    };
    Ok(DeviceStore { array, shape })
}
