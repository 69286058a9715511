//! Arithmetic and matrix products of `CudaArray`s, computed on their device by cnda's generic ops
//! on `Array<T, N, Cuda>` (the elements never visit the host), in every element type of
//! `cuda_elements.rs`: `+ - * /` between two CudaArrays of one dtype with NumPy broadcasting, or
//! with a Python or NumPy scalar (`/` of floats and complex numbers only); the in-place forms
//! (`+=` ...), which write the array's own memory; `@` of 2D float or complex arrays (cuBLAS).
//! A CudaArray is a flat device array plus a shape: each op views it at its rank (1 to 4;
//! scalar ops at any rank) without a copy.
//!
//! Element types: the device kernels keep the element type, so where NumPy would compute in
//! another type (two dtypes, a float beside an integer array, a NumPy scalar that promotes, true
//! division of integers, which `cnda.divide` computes in float64 as NumPy) the op is a
//! `TypeError` that says how to convert, never a result of another dtype than NumPy's. Python
//! scalars are weak, as NumPy's (NEP 50): `float32 + 0.1` stays float32, `complex64 * 1j`
//! complex64.

use std::panic::{catch_unwind, AssertUnwindSafe};

use cnda::backend::cuda::Cuda;
use cnda::layout::RowMajor;
use cnda::{Array, AssignOperand, GemmElement, Pod, Shared, Unique, View};
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyComplex, PyFloat, PyInt};

use crate::array::ContiguousND;
use crate::borrow::by_rank;
use crate::cuda::{CudaArray, CudaData, DeviceStore, OnDevice};
pub use crate::cuda_elements::Compute;
use crate::cuda_elements::{numpy_scalar, python_scalar, Kind};
use crate::errors::to_pyerr;
use crate::variants::by_element;

/// The elementwise binary operations.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Binary {
    Add,
    Sub,
    Mul,
    Div,
}

impl Binary {
    /// The name errors give (NumPy's ufunc names, as `cnda.add` ...).
    pub fn name(self) -> &'static str {
        match self {
            Binary::Add => "add",
            Binary::Sub => "subtract",
            Binary::Mul => "multiply",
            Binary::Div => "divide",
        }
    }

    fn symbol(self) -> &'static str {
        match self {
            Binary::Add => "+",
            Binary::Sub => "-",
            Binary::Mul => "*",
            Binary::Div => "/",
        }
    }
}

/// What may stand beside a CudaArray in an operator; anything else makes the operator return
/// `NotImplemented` (so Python tries the other operand, then raises its `TypeError`).
pub enum Operand<'py> {
    /// Another CudaArray.
    Device(Bound<'py, CudaArray>),
    /// A Python int, float, complex or bool (weak: it takes the array's dtype when that holds it).
    Python(Bound<'py, PyAny>),
    /// A NumPy scalar (strong: its dtype takes part in promotion).
    NumPy(Bound<'py, PyAny>),
    /// An array in host memory (NumPy, `ContiguousND`): refused with the conversion to make.
    Host(Bound<'py, PyAny>),
}

impl<'a, 'py> FromPyObject<'a, 'py> for Operand<'py> {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        let obj = obj.to_owned();
        if let Ok(d) = obj.cast::<CudaArray>() {
            return Ok(Operand::Device(d.clone()));
        }
        if obj.is_exact_instance_of::<PyFloat>()
            || obj.is_exact_instance_of::<PyInt>()
            || obj.is_exact_instance_of::<PyComplex>()
            || obj.is_instance_of::<PyBool>()
        {
            return Ok(Operand::Python(obj));
        }
        let np = obj.py().import("numpy")?;
        // Before Python's float: numpy.float64 is a subclass of it.
        if obj.is_instance(&np.getattr("generic")?)? {
            return Ok(Operand::NumPy(obj));
        }
        if obj.is_instance_of::<PyFloat>() || obj.is_instance_of::<PyInt>() || obj.is_instance_of::<PyComplex>() {
            return Ok(Operand::Python(obj));
        }
        if obj.is_instance(&np.getattr("ndarray")?)?
            || obj.cast::<ContiguousND>().is_ok()
            || obj.cast::<crate::structured::StructuredND>().is_ok()
        {
            return Ok(Operand::Host(obj));
        }
        Err(PyTypeError::new_err(format!(
            "expected a CudaArray, a Python int, float or complex or a NumPy scalar, got {}",
            type_name(&obj)
        )))
    }
}

/// `module.QualName` of the type of `x`.
pub fn type_name(x: &Bound<'_, PyAny>) -> String {
    let t = x.get_type();
    let part = |name: &str| t.getattr(name).and_then(|n| n.extract::<String>()).unwrap_or_default();
    match part("__module__").as_str() {
        "builtins" | "" => part("__qualname__"),
        module => format!("{module}.{}", part("__qualname__")),
    }
}

/// A shape as Python prints a tuple: `()`, `(3,)`, `(2, 3)`.
pub fn tuple(shape: &[usize]) -> String {
    match shape {
        [n] => format!("({n},)"),
        _ => format!("({})", shape.iter().map(|n| n.to_string()).collect::<Vec<_>>().join(", ")),
    }
}

/// The refusal of an operand in host memory.
pub fn host_error(op: &str, x: &Bound<'_, PyAny>) -> PyErr {
    PyTypeError::new_err(format!(
        "{op}: a CudaArray and a {} (in host memory) cannot be combined: CudaArray ops compute on the device; \
         move the host array there with cnda.to_cuda(x), or bring the CudaArray to the host with to_numpy()",
        type_name(x)
    ))
}

/// The refusal of two dtypes.
pub fn dtype_error(op: &str, a: &CudaArray, b: &CudaArray) -> PyErr {
    let (x, y) = (a.dtype_name(), b.dtype_name());
    PyTypeError::new_err(format!(
        "{op}: the operands are {x} and {y} CudaArrays, and CudaArray ops compute in one dtype (the device does \
         not convert between types); convert one first, e.g. cnda.to_cuda(b.to_host().to_numpy().astype(np.{x})), \
         or copy the data in the dtype you need"
    ))
}

/// The refusal of true division of integers, which NumPy computes in float64.
fn refuse_int_division<T: Compute>(op: Binary) -> PyResult<()> {
    if op == Binary::Div && T::KIND == Kind::Int {
        let t = T::NAME;
        return Err(PyTypeError::new_err(format!(
            "divide: true division of {t} gives float64 in NumPy (and in cnda.divide), and CudaArray cannot convert \
             {t} to float64 on the device yet; convert first: cnda.to_cuda(a.to_numpy().astype(np.float64))"
        )));
    }
    Ok(())
}

/// `ValueError` unless both stores are on one device.
pub fn same_device<T: Pod>(op: &str, a: &DeviceStore<T>, b: &DeviceStore<T>) -> PyResult<()> {
    let (x, y) = (a.array.device().ordinal(), b.array.device().ordinal());
    if x != y {
        return Err(PyValueError::new_err(format!(
            "{op}: the operands are on CUDA devices {x} and {y}; move one: cnda.to_cuda(b.to_host(), device={x})"
        )));
    }
    Ok(())
}

/// The shape NumPy broadcasting gives `a` and `b`, or `ValueError` naming the axis that differs.
pub fn broadcast(op: &str, a: &[usize], b: &[usize]) -> PyResult<Vec<usize>> {
    let rank = a.len().max(b.len());
    let at = |s: &[usize], k: usize| if k < rank - s.len() { 1 } else { s[k + s.len() - rank] };
    (0..rank)
        .map(|k| match (at(a, k), at(b, k)) {
            (x, y) if x == y || y == 1 => Ok(x),
            (1, y) => Ok(y),
            (x, y) => Err(PyValueError::new_err(format!(
                "{op}: shapes {} and {} do not broadcast together: axis {} has length {x} in one and {y} in the \
                 other (NumPy broadcasting aligns the last axes, and each pair of lengths must be equal or 1); \
                 reshape or slice an operand so that they match",
                tuple(a),
                tuple(b),
                k as isize - rank as isize
            ))),
        })
        .collect()
}

/// `shape` with leading length-1 axes to rank `N` (NumPy broadcasting aligns trailing axes).
pub fn padded<const N: usize>(shape: &[usize]) -> [usize; N] {
    let mut out = [1; N];
    out[N - shape.len()..].copy_from_slice(shape);
    out
}

/// `s` viewed at rank `N` (its shape padded with leading 1s), without a copy.
pub fn at_rank<T: Pod, const N: usize>(s: &DeviceStore<T>) -> PyResult<View<'_, T, N, Shared, Cuda, RowMajor>> {
    s.array.try_reshape(padded::<N>(&s.shape)).map_err(to_pyerr)
}

/// A fresh row-major result as the flat array a CudaArray keeps.
pub fn flat<T: Pod, const N: usize>(out: Array<T, N, Cuda>) -> Array<T, 1, Cuda> {
    let len = out.len();
    out.into_reshaped([len])
}

/// `f()`, whose only failure is a panic of one of cnda's panicking forms (compound assignments
/// and whole-array reductions have no `try_` form; past the checks made here they fail only when
/// the device does), as `RuntimeError`.
pub fn caught<R>(op: &str, f: impl FnOnce() -> R) -> PyResult<R> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|panic| {
        let why = panic
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| panic.downcast_ref::<&str>().copied())
            .unwrap_or("a panic");
        PyRuntimeError::new_err(format!("{op}: the device operation failed: {why}"))
    })
}

/// `dst op= src` on the device (`src` broadcast into `dst`'s shape already, or a scalar).
fn update<T: Compute, const N: usize, R: AssignOperand<T, N, Cuda>>(
    op: Binary,
    dst: &mut View<'_, T, N, Unique, Cuda, RowMajor>,
    src: R,
) -> PyResult<()> {
    caught(op.name(), || match op {
        Binary::Add => *dst += src,
        Binary::Sub => *dst -= src,
        Binary::Mul => *dst *= src,
        Binary::Div => *dst /= src,
    })
}

/// A scalar operand as `T`.
fn scalar<T: Compute>(op: Binary, x: &Operand<'_>) -> PyResult<T> {
    match x {
        Operand::NumPy(x) => numpy_scalar(op.name(), x),
        Operand::Python(x) => python_scalar(op.name(), x),
        _ => unreachable!("only scalar operands are converted"),
    }
}

/// `a op b` (`b op a` when `reflected`) into a new CudaArray on `a`'s device.
pub fn binary(a: &CudaArray, b: &Operand<'_>, op: Binary, reflected: bool) -> PyResult<CudaArray> {
    let data = match b {
        Operand::Host(x) => return Err(host_error(op.name(), x)),
        Operand::Device(b) => {
            let b = b.try_borrow()?;
            let (x, y) = if reflected { (&*b, a) } else { (a, &*b) };
            by_element!(CudaData, &x.data, s, T => {
                let Some(t) = T::store(&y.data) else { return Err(dtype_error(op.name(), x, y)) };
                refuse_int_division::<T>(op)?;
                T::device_data(arrays(op, s, t)?)
            })
        }
        Operand::Python(_) | Operand::NumPy(_) => by_element!(CudaData, &a.data, s, T => {
            refuse_int_division::<T>(op)?;
            T::device_data(with_scalar(op, s, scalar::<T>(op, b)?, reflected)?)
        }),
    };
    Ok(CudaArray { data })
}

/// `a op b` with NumPy broadcasting, at the rank of the result.
fn arrays<T: Compute>(op: Binary, a: &DeviceStore<T>, b: &DeviceStore<T>) -> PyResult<DeviceStore<T>> {
    same_device(op.name(), a, b)?;
    let shape = broadcast(op.name(), &a.shape, &b.shape)?;
    // 0-d operands compute as one-element arrays.
    let array = by_rank!(op.name(), shape.len().max(1), N => {
        let (va, vb) = (at_rank::<T, N>(a)?, at_rank::<T, N>(b)?);
        let out = match op {
            Binary::Add => va.try_add(vb),
            Binary::Sub => va.try_sub(vb),
            Binary::Mul => va.try_mul(vb),
            Binary::Div => va.try_div(vb),
        };
        Ok::<_, PyErr>(flat(out.map_err(to_pyerr)?))
    })?;
    Ok(DeviceStore { array, shape })
}

/// `a op s` (`s op a` when `reflected`), on the flat elements (any rank).
fn with_scalar<T: Compute>(op: Binary, a: &DeviceStore<T>, s: T, reflected: bool) -> PyResult<DeviceStore<T>> {
    let x = &a.array;
    let array = match (op, reflected) {
        // Commutative: `s + x` and `x + s` are the same rounding of the same numbers.
        (Binary::Add, _) => x.try_add(s),
        (Binary::Mul, _) => x.try_mul(s),
        (Binary::Sub, false) => x.try_sub(s),
        (Binary::Div, false) => x.try_div(s),
        (Binary::Sub | Binary::Div, true) => {
            // `s op x`: `s` filled into the output, then `out op= x` in place (one rounding per
            // element, as `s op x`); cnda's scalar-left operators have no `try_` form.
            let mut out = Array::<T, 1, Cuda>::try_zeros_in(&x.allocator(), [x.len()]).map_err(to_pyerr)?;
            out.try_fill(s).map_err(to_pyerr)?;
            update(op, &mut out.view_mut(), x.view())?;
            Ok(out)
        }
    }
    .map_err(to_pyerr)?;
    Ok(DeviceStore { array, shape: a.shape.clone() })
}

/// The device span of a CudaArray's elements: device ordinal, first byte, byte length.
fn span(a: &CudaArray) -> (usize, u64, u64) {
    by_element!(CudaData, &a.data, s, T => {
        (s.array.device().ordinal(), s.array.device_ptr(), (s.array.len() * core::mem::size_of::<T>()) as u64)
    })
}

/// Whether two CudaArrays share device memory (one object twice, or aliases through DLPack).
pub fn overlap(a: &CudaArray, b: &CudaArray) -> bool {
    let ((da, pa, na), (db, pb, nb)) = (span(a), span(b));
    da == db && na > 0 && nb > 0 && pa < pb + nb && pb < pa + na
}

/// `a op= b` in `a`'s own memory (what other references to it, DLPack consumers included, see).
pub fn in_place(a: &Bound<'_, CudaArray>, b: &Operand<'_>, op: Binary) -> PyResult<()> {
    let other = match b {
        Operand::Host(x) => return Err(host_error(op.name(), x)),
        Operand::Python(_) | Operand::NumPy(_) => {
            let mut this = a.try_borrow_mut()?;
            return by_element!(CudaData, &mut this.data, s, T => {
                refuse_int_division::<T>(op)?;
                let value = scalar::<T>(op, b)?;
                update(op, &mut s.array.view_mut(), value)
            });
        }
        Operand::Device(other) => other,
    };
    // As NumPy: a right operand that shares memory with `a` (`a += a`) is read whole first, which
    // a device copy of it makes true.
    let copied = {
        let (x, y) = (a.try_borrow()?, other.try_borrow()?);
        if x.dtype_name() != y.dtype_name() {
            return Err(dtype_error(op.name(), &x, &y));
        }
        if a.is(other) || overlap(&x, &y) {
            Some(y.copy()?)
        } else {
            None
        }
    };
    let held;
    let src: &CudaArray = match &copied {
        Some(c) => c,
        None => {
            held = other.try_borrow()?;
            &held
        }
    };
    let mut this = a.try_borrow_mut()?;
    let name = op.name();
    by_element!(CudaData, &mut this.data, s, T => {
        let Some(t) = T::store(&src.data) else { unreachable!("one dtype, checked above") };
        refuse_int_division::<T>(op)?;
        same_device(name, s, t)?;
        let shape = broadcast(name, &s.shape, &t.shape)?;
        if shape != s.shape {
            return Err(PyValueError::new_err(format!(
                "{name}: b of shape {} does not fit a of shape {} in place: they broadcast to {}, and an in-place op \
                 writes a's shape; use a = a {} b for a new array of the broadcast shape",
                tuple(&t.shape),
                tuple(&s.shape),
                tuple(&shape),
                op.symbol()
            )));
        }
        by_rank!(name, shape.len().max(1), N => {
            let full = padded::<N>(&s.shape);
            let src = at_rank::<T, N>(t)?.try_broadcast_to(full).map_err(to_pyerr)?;
            let mut dst = s.array.view_mut().try_reshape(full).map_err(to_pyerr)?;
            update(op, &mut dst, src)
        })
    })
}

/// `a @ b` (`b @ a` when `reflected`) of 2D float or complex CudaArrays (cuBLAS), as `cnda.matmul`.
pub fn matmul(a: &CudaArray, b: &Operand<'_>, reflected: bool) -> PyResult<CudaArray> {
    let scalar = "matmul: a scalar operand has no dimensions, and matmul takes two 2D CudaArrays; scale with * instead";
    let other = match b {
        Operand::Device(b) => b.try_borrow()?,
        Operand::Host(x) => return Err(host_error("matmul", x)),
        Operand::Python(_) | Operand::NumPy(_) => return Err(PyValueError::new_err(scalar)),
    };
    let (x, y) = if reflected { (&*other, a) } else { (a, &*other) };
    if x.dims().len() != 2 || y.dims().len() != 2 {
        return Err(PyValueError::new_err(format!(
            "matmul: a and b must be 2D, got {} and {} dimensions; reshape vectors to (n, 1) or (1, n)",
            x.dims().len(),
            y.dims().len()
        )));
    }
    let data = match (&x.data, &y.data) {
        (CudaData::F32(s), CudaData::F32(t)) => CudaData::F32(gemm(s, t)?),
        (CudaData::F64(s), CudaData::F64(t)) => CudaData::F64(gemm(s, t)?),
        (CudaData::C64(s), CudaData::C64(t)) => CudaData::C64(gemm(s, t)?),
        (CudaData::C128(s), CudaData::C128(t)) => CudaData::C128(gemm(s, t)?),
        _ if x.dtype_name() != y.dtype_name() => return Err(dtype_error("matmul", x, y)),
        _ => {
            return Err(to_pyerr(cnda::Error::UnsupportedDType {
                op: "matmul",
                got: x.dtype_name().into(),
                fix: "matmul takes float32, float64, complex64 or complex128 CudaArrays; convert with \
                  cnda.to_cuda(a.to_numpy().astype(np.float64))",
            }))
        }
    };
    Ok(CudaArray { data })
}

/// The matrix product of two 2D stores.
fn gemm<T: Compute + GemmElement>(a: &DeviceStore<T>, b: &DeviceStore<T>) -> PyResult<DeviceStore<T>> {
    same_device("matmul", a, b)?;
    let ([m, k], [k2, n]) = ([a.shape[0], a.shape[1]], [b.shape[0], b.shape[1]]);
    if k != k2 {
        return Err(PyValueError::new_err(format!(
            "matmul: a of shape {} and b of shape {} do not multiply: a's {k} columns must equal b's {k2} rows; \
             transpose or slice an operand",
            tuple(&a.shape),
            tuple(&b.shape)
        )));
    }
    let va = a.array.try_reshape([m, k]).map_err(to_pyerr)?;
    let vb = b.array.try_reshape([k2, n]).map_err(to_pyerr)?;
    let out = va.try_matmul(&vb).map_err(to_pyerr)?;
    Ok(DeviceStore { array: flat(out), shape: vec![m, n] })
}
