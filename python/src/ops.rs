//! cnda's array operations on NumPy arrays: elementwise arithmetic with broadcasting, NumPy's
//! promotion and `out=` (and its in-place forms), `sum` (whole, along an axis or a tuple of
//! axes) and `matmul`; `pad` is in `pad.rs`. Operands are read in place
//! whatever their strides (transposed, sliced with steps, flipped, broadcast); results are cnda
//! buffers handed to NumPy without a copy. Large operations run with the interpreter lock
//! released, so other Python threads go on meanwhile.

use cnda::{Arithmetic, Array, ArrayView, Complex, GemmElement, Zip};
use numpy::{PyArrayDyn, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{IntoPyDict, PyTuple};

use crate::array::{into_numpy, Stored};
use crate::borrow::{by_rank, read, view, view_mut, write};
use crate::errors::to_pyerr;
use crate::operands::{check_out, promote};
use crate::overlap::{lease, span_of, Operand};

/// Operations on at least this many elements release the interpreter lock (below it, releasing
/// and re-taking the lock costs more than the work).
const DETACH_FROM: usize = 1 << 16;

/// `f()`, with the interpreter lock released when `len` elements make it worth it.
pub(crate) fn run<R: Send>(py: Python<'_>, len: usize, f: impl FnOnce() -> R + Send) -> R {
    if len >= DETACH_FROM {
        py.detach(f)
    } else {
        f()
    }
}

/// `$body` with `$T` bound to the element type of NumPy array `$x` (float32, float64, int32 or
/// int64), or `TypeError` from `$op`.
macro_rules! by_dtype {
    ($op:expr, $x:expr, $T:ident => $body:expr) => {{
        let x: &Bound<'_, PyAny> = $x;
        if x.cast::<numpy::PyArrayDyn<f64>>().is_ok() {
            type $T = f64;
            $body
        } else if x.cast::<numpy::PyArrayDyn<f32>>().is_ok() {
            type $T = f32;
            $body
        } else if x.cast::<numpy::PyArrayDyn<i64>>().is_ok() {
            type $T = i64;
            $body
        } else if x.cast::<numpy::PyArrayDyn<i32>>().is_ok() {
            type $T = i32;
            $body
        } else {
            Err(unsupported($op, x))
        }
    }};
}
pub(crate) use by_dtype;

pub(crate) fn unsupported(op: &'static str, x: &Bound<'_, PyAny>) -> PyErr {
    let got = match x.cast::<PyUntypedArray>() {
        Ok(a) => a.dtype().to_string(),
        Err(_) => format!("a {} (not a numpy.ndarray)", x.get_type()),
    };
    to_pyerr(cnda::Error::UnsupportedDType {
        op,
        got,
        fix:
            "cnda computes on numpy.ndarray of float32, float64, int32 or int64 (arithmetic, sum and matmul on complex64 and complex128 too); convert with np.asarray(x, dtype=...)",
    })
}

/// `value` as a NumPy scalar of its own type (`np.float32(..)`), as `np.sum` returns a total.
fn numpy_scalar<'py, T: numpy::Element + IntoPyObject<'py>>(py: Python<'py>, value: T) -> PyResult<Bound<'py, PyAny>> {
    numpy::dtype::<T>(py).getattr("type")?.call1((value,))
}

/// The elementwise binary operations.
#[derive(Clone, Copy)]
enum Binary {
    Add,
    Sub,
    Mul,
    Div,
}

impl Binary {
    fn name(self) -> &'static str {
        match self {
            Binary::Add => "add",
            Binary::Sub => "subtract",
            Binary::Mul => "multiply",
            Binary::Div => "divide",
        }
    }
}

/// The element count of the broadcast of two shapes (an upper bound is enough: it only decides
/// whether to release the lock).
fn broadcast_len(a: &[usize], b: &[usize]) -> usize {
    let (long, short) = if a.len() >= b.len() { (a, b) } else { (b, a) };
    let pad = long.len() - short.len();
    long.iter().enumerate().map(|(k, &n)| if k < pad { n } else { n.max(short[k - pad]) }).product()
}

/// `name` (a NumPy dtype name cnda computes in) as the type `$T` in `$body`.
macro_rules! by_name {
    ($name:expr, $T:ident => $body:expr) => {
        match $name {
            "float64" => {
                type $T = f64;
                $body
            }
            "float32" => {
                type $T = f32;
                $body
            }
            "int64" => {
                type $T = i64;
                $body
            }
            "complex128" => {
                type $T = Complex<f64>;
                $body
            }
            "complex64" => {
                type $T = Complex<f32>;
                $body
            }
            _ => {
                type $T = i32;
                $body
            }
        }
    };
}

/// The shape NumPy broadcasting gives two arrays.
fn broadcast_shape(py: Python<'_>, a: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>) -> PyResult<Vec<usize>> {
    py.import("numpy")?.call_method1("broadcast_shapes", (a.getattr("shape")?, b.getattr("shape")?))?.extract()
}

/// `a op b` into a new array; both already of `T` (promoted).
fn binary<'py, T: Stored + Arithmetic>(
    py: Python<'py>,
    op: Binary,
    a: &Bound<'py, PyAny>,
    b: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let name = op.name();
    let (ra, rb) = (read::<T>(a, name, "a")?, read::<T>(b, name, "b")?);
    let _in_use = lease(name, &[Operand::read("a", span_of::<T>(a)), Operand::read("b", span_of::<T>(b))])?;
    let len = broadcast_len(ra.shape(), rb.shape());
    // Scalars (0-d) compute as one-element arrays, reshaped back below.
    let result = by_rank!(name, ra.ndim().max(rb.ndim()).max(1), N => {
        let (va, vb) = (view::<T, N>(&ra, name)?, view::<T, N>(&rb, name)?);
        let out = run(py, len, || match op {
            Binary::Add => va.try_add(vb),
            Binary::Sub => va.try_sub(vb),
            Binary::Mul => va.try_mul(vb),
            Binary::Div => va.try_div(vb),
        })
        .map_err(to_pyerr)?;
        into_numpy(py, out)
    })?;
    if ra.ndim().max(rb.ndim()) == 0 {
        return result.call_method1("reshape", (PyTuple::empty(py),));
    }
    Ok(result)
}

/// `out = a op b`, written into `out` (checked: shape, element type, writable); an input that
/// overlaps `out` is read whole first, as NumPy does.
fn binary_into<'py, T: Stored + Arithmetic>(
    py: Python<'py>,
    op: Binary,
    a: &Bound<'py, PyAny>,
    b: &Bound<'py, PyAny>,
    out: &Bound<'py, PyAny>,
    dtype: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let name = op.name();
    let shape = broadcast_shape(py, a, b)?;
    check_out(name, out, &shape, dtype)?;
    let whole = |x: &Bound<'py, PyAny>, operand: &str| -> PyResult<Bound<'py, PyAny>> {
        if span_of::<T>(out).overlaps(span_of::<T>(x)) {
            copy_of(name, operand, x)
        } else {
            Ok(x.clone())
        }
    };
    let (a, b) = (whole(a, "a")?, whole(b, "b")?);
    // A 0-d out is written through its one-element 1-D view (same memory).
    let target = if shape.is_empty() { out.call_method1("reshape", ((1,),))? } else { out.clone() };
    let (ra, rb) = (read::<T>(&a, name, "a")?, read::<T>(&b, name, "b")?);
    let mut wo = write::<T>(&target, name, "out")?;
    let _in_use = lease(
        name,
        &[
            Operand::write("out", span_of::<T>(&target)),
            Operand::read("a", span_of::<T>(&a)),
            Operand::read("b", span_of::<T>(&b)),
        ],
    )?;
    let len = wo.len();
    by_rank!(name, wo.ndim(), N => {
        let (va, vb) = (view::<T, N>(&ra, name)?, view::<T, N>(&rb, name)?);
        let mut vo = view_mut::<T, N>(&mut wo, name)?;
        let vb = vb.try_broadcast_to(vo.shape()).map_err(to_pyerr)?;
        vo.try_assign(&va).map_err(to_pyerr)?;
        // One rounding per element, as `a op b` computed whole: `out = a; out op= b`.
        run(py, len, || match op {
            Binary::Add => vo += vb,
            Binary::Sub => vo -= vb,
            Binary::Mul => vo *= vb,
            Binary::Div => vo /= vb,
        });
        Ok::<(), PyErr>(())
    })?;
    Ok(out.clone())
}

/// A NumPy copy of `op`'s operand `x` named `operand`: a plain ndarray whatever `x`'s class
/// (`np.array` copies through NumPy's C code, running no subclass code), read under a lease of
/// `x`'s memory.
fn copy_of<'py>(op: &'static str, operand: &str, x: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let np = x.py().import("numpy")?;
    crate::overlap::reading(op, operand, x, || np.call_method1("array", (x,)))
}

fn binary_in_place<T: Stored + Arithmetic>(
    py: Python<'_>,
    op: Binary,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
) -> PyResult<()> {
    let name = op.name();
    // NumPy's semantics for `a += b` when `b` overlaps `a` (`a[1:] += a[:-1]`): as if `b` were
    // read whole before `a` is written, which a copy of `b` makes true.
    let copied;
    let b = if span_of::<T>(a).overlaps(span_of::<T>(b)) {
        copied = copy_of(name, "b", b)?;
        &copied
    } else {
        b
    };
    let rb = read::<T>(b, name, "b")?;
    let mut wa = write::<T>(a, name, "a")?;
    let _in_use = lease(name, &[Operand::write("a", span_of::<T>(a)), Operand::read("b", span_of::<T>(b))])?;
    let len = wa.len();
    if rb.ndim() > wa.ndim() {
        return Err(to_pyerr(cnda::Error::Layout {
            op: name,
            reason: format!(
                "b of shape {:?} cannot broadcast into a of shape {:?}: it has more dimensions",
                rb.shape(),
                wa.shape()
            ),
            fix: "the in-place forms write a's shape; use the form that returns a new array",
        }));
    }
    by_rank!(name, wa.ndim(), N => {
        let vb = view::<T, N>(&rb, name)?;
        let mut va = view_mut::<T, N>(&mut wa, name)?;
        let shape = va.shape();
        // The right operand broadcasts into the left one: check first, so `+=` cannot panic.
        let vb = vb.try_broadcast_to(shape).map_err(to_pyerr)?;
        run(py, len, || match op {
            Binary::Add => va += vb,
            Binary::Sub => va -= vb,
            Binary::Mul => va *= vb,
            Binary::Div => va /= vb,
        });
        Ok(())
    })
}

fn dispatch_binary<'py>(
    py: Python<'py>,
    op: Binary,
    a: &Bound<'py, PyAny>,
    b: &Bound<'py, PyAny>,
    out: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let p = promote(py, op.name(), a, b, matches!(op, Binary::Div))?;
    by_name!(p.dtype.as_str(), T => match out {
        None => binary::<T>(py, op, &p.a, &p.b),
        Some(out) => binary_into::<T>(py, op, &p.a, &p.b, out, &p.dtype),
    })
}

/// `a op= b`: `a` keeps its element type, and `b` is converted to it when NumPy's `same_kind`
/// casting allows (a float into an integer array does not: `TypeError`, as NumPy).
fn dispatch_in_place(py: Python<'_>, op: Binary, a: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>) -> PyResult<()> {
    let name = op.name();
    let own: String = match a.getattr("dtype").and_then(|d| d.getattr("name")).and_then(|n| n.extract()) {
        Ok(own) => own,
        Err(_) => return Err(unsupported(name, a)),
    };
    let p = promote(py, name, a, b, matches!(op, Binary::Div))?;
    if p.dtype == own {
        return by_name!(own.as_str(), T => binary_in_place::<T>(py, op, a, &p.b));
    }
    // As NumPy: compute in the promoted type, then cast into `a` when its `same_kind` rule allows
    // (float64 into float32 yes, a float into an integer array no).
    let np = py.import("numpy")?;
    if !np.call_method1("can_cast", (&p.dtype, &own, "same_kind"))?.extract::<bool>()? {
        return Err(PyTypeError::new_err(format!(
            "{name}: the result is {} but a is {own}, and cnda (as NumPy's same_kind rule) does not write {} into {own} \
             in place; use the form that returns a new array, or convert a first",
            p.dtype, p.dtype
        )));
    }
    let result = dispatch_binary(py, op, &p.a, &p.b, None)?;
    // NumPy writes `a` under a lease of its memory, as a kernel would, through a plain ndarray
    // over the same memory: `copyto` on `a` itself would dispatch to an ndarray subclass's
    // `__array_function__` (Python code that could re-stride `a` outside the lease).
    // `ndarray.view` called through the class runs no subclass code.
    let ndarray = np.getattr("ndarray")?;
    let plain =
        if a.cast::<PyUntypedArray>().is_ok() { ndarray.call_method1("view", (a, &ndarray))? } else { a.clone() };
    let kwargs = [("casting", "same_kind")].into_py_dict(py)?;
    let _in_use = lease(name, &[Operand::write("a", crate::overlap::span_of_array(&plain))])?;
    np.call_method("copyto", (plain, result), Some(&kwargs))?;
    Ok(())
}

/// One Python function per binary op and form: `$new(a, b, out=None)` returns a new array (or
/// writes `out`), `$in_place(a, b)` updates `a`.
macro_rules! binary_functions {
    ($($op:ident: $new:ident $in_place:ident $what:literal;)*) => {$(
        #[doc = concat!("`a ", $what, " b` with NumPy broadcasting over any strides and NumPy's type promotion (scalars, lists and cnda arrays too), as a new array in cnda's memory handed to NumPy without a copy, or written into `out`.")]
        #[pyfunction]
        #[pyo3(signature = (a, b, out = None))]
        pub fn $new<'py>(
            py: Python<'py>,
            a: &Bound<'py, PyAny>,
            b: &Bound<'py, PyAny>,
            out: Option<Bound<'py, PyAny>>,
        ) -> PyResult<Bound<'py, PyAny>> {
            dispatch_binary(py, Binary::$op, a, b, out.as_ref())
        }

        #[doc = concat!("`a ", $what, "= b` in place, `b` broadcast into `a`'s shape (`a` may be any writable view; `b` any operand NumPy converts to `a`'s type).")]
        #[pyfunction]
        pub fn $in_place(py: Python<'_>, a: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>) -> PyResult<()> {
            dispatch_in_place(py, Binary::$op, a, b)
        }
    )*};
}

binary_functions! {
    Add: add iadd "+";
    Sub: subtract isubtract "-";
    Mul: multiply imultiply "*";
    Div: divide idivide "/";
}

fn sum_typed<'py, T: Stored + Arithmetic + IntoPyObject<'py>>(
    py: Python<'py>,
    a: &Bound<'py, PyAny>,
    axis: Option<isize>,
) -> PyResult<Bound<'py, PyAny>> {
    let ra = read::<T>(a, "sum", "a")?;
    let _in_use = lease("sum", &[Operand::read("a", span_of::<T>(a))])?;
    let len = ra.len();
    let rank = ra.ndim();
    let whole = |py: Python<'py>| -> PyResult<Bound<'py, PyAny>> {
        let total = by_rank!("sum", rank, N => {
            let v = view::<T, N>(&ra, "sum")?;
            Ok(if len >= DETACH_FROM { py.detach(|| v.par_sum()) } else { v.sum() })
        })?;
        numpy_scalar::<T>(py, total)
    };
    let Some(axis) = axis else { return whole(py) };
    let axis = crate::axes::normalize_axis("sum", axis, rank)?;
    if rank == 1 {
        return whole(py);
    }
    macro_rules! along {
        ($N:literal, $M:literal) => {{
            let v = view::<T, $N>(&ra, "sum")?;
            let out = run(py, len, || v.try_sum_axis::<$M>(axis)).map_err(to_pyerr)?;
            into_numpy(py, out)
        }};
    }
    match rank {
        2 => along!(2, 1),
        3 => along!(3, 2),
        4 => along!(4, 3),
        n => Err(crate::borrow::rank_error("sum", n)),
    }
}

/// `sum` of int32 elements in int64, as NumPy promotes them (an int32 total would wrap).
fn sum_widened<'py>(py: Python<'py>, a: &Bound<'py, PyAny>, axis: Option<isize>) -> PyResult<Bound<'py, PyAny>> {
    let ra = read::<i32>(a, "sum", "a")?;
    let _in_use = lease("sum", &[Operand::read("a", span_of::<i32>(a))])?;
    let rank = ra.ndim();
    let axis = axis.map(|axis| crate::axes::normalize_axis("sum", axis, rank)).transpose()?;
    macro_rules! widened {
        ($N:literal, $M:literal) => {{
            let v = view::<i32, $N>(&ra, "sum")?;
            match axis {
                None => {
                    numpy_scalar::<i64>(py, run(py, v.len(), || Zip::from(v).fold(0i64, |acc, &x| acc + i64::from(x))))
                }
                Some(axis) => {
                    let mut shape = v.shape().to_vec();
                    shape.remove(axis);
                    let out_shape: [usize; $M] = shape.try_into().expect("one axis removed");
                    let mut out = Array::<i64, $M>::try_zeros(out_shape).map_err(to_pyerr)?;
                    run(py, v.len(), || {
                        for k in 0..v.shape()[axis] {
                            let plane = v.index_axis::<$M>(axis, k);
                            Zip::from(out.view_mut()).and(plane).for_each(|acc, &x| *acc += i64::from(x));
                        }
                    });
                    into_numpy(py, out)
                }
            }
        }};
    }
    match (rank, axis) {
        (1, _) => {
            let v = view::<i32, 1>(&ra, "sum")?;
            numpy_scalar::<i64>(py, run(py, v.len(), || Zip::from(v).fold(0i64, |acc, &x| acc + i64::from(x))))
        }
        (2, _) => widened!(2, 1),
        (3, _) => widened!(3, 2),
        (4, _) => widened!(4, 3),
        (n, _) => Err(crate::borrow::rank_error("sum", n)),
    }
}

#[doc = include_str!(concat!(env!("OUT_DIR"), "/doc/def.sum.txt"))] // python/cnda.pyi's docstring
#[pyfunction]
#[pyo3(signature = (a, axis = None))]
pub fn sum<'py>(
    py: Python<'py>,
    a: &Bound<'py, PyAny>,
    axis: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let axes: Option<Vec<isize>> = match &axis {
        None => None,
        Some(axis) => match axis.extract::<isize>() {
            Ok(one) => return sum_one(py, a, Some(one)),
            Err(_) => Some(axis.extract::<Vec<isize>>().map_err(|_| {
                PyTypeError::new_err(format!("sum: axis must be an int or a tuple of ints, got {}", axis.get_type()))
            })?),
        },
    };
    let Some(axes) = axes else { return sum_one(py, a, None) };
    let rank = a.getattr("ndim").map_err(|_| unsupported("sum", a))?.extract::<usize>()?;
    let normal = crate::axes::distinct_axes("sum", &axes, rank)?;
    if normal.is_empty() {
        // No axis: every element on its own, in the sum's element type (int32 widened), as NumPy.
        // A copy through NumPy's C API (no subclass code), under a read lease of `a`'s memory.
        let np = py.import("numpy")?;
        let dtype = if a.cast::<PyArrayDyn<i32>>().is_ok() { Some("int64") } else { None };
        let kwargs = [("dtype", dtype)].into_py_dict(py)?;
        return crate::overlap::reading("sum", "a", a, || np.call_method("array", (a,), Some(&kwargs)));
    }
    if normal.len() == rank {
        return sum_one(py, a, None);
    }
    // Highest axis first, so the lower axes keep their numbers.
    let mut x = a.clone();
    for &k in normal.iter().rev() {
        x = sum_one(py, &x, Some(k as isize))?;
    }
    Ok(x)
}

/// `sum` over everything or one axis.
fn sum_one<'py>(py: Python<'py>, a: &Bound<'py, PyAny>, axis: Option<isize>) -> PyResult<Bound<'py, PyAny>> {
    if a.cast::<PyArrayDyn<i32>>().is_ok() {
        return sum_widened(py, a, axis);
    }
    if a.cast::<PyArrayDyn<Complex<f64>>>().is_ok() {
        return sum_typed::<Complex<f64>>(py, a, axis);
    }
    if a.cast::<PyArrayDyn<Complex<f32>>>().is_ok() {
        return sum_typed::<Complex<f32>>(py, a, axis);
    }
    by_dtype!("sum", a, T => sum_typed::<T>(py, a, axis))
}

fn matmul_typed<'py, T: Stored + GemmElement>(
    py: Python<'py>,
    a: &Bound<'py, PyAny>,
    b: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let (ra, rb) = (read::<T>(a, "matmul", "a")?, read::<T>(b, "matmul", "b")?);
    let _in_use = lease("matmul", &[Operand::read("a", span_of::<T>(a)), Operand::read("b", span_of::<T>(b))])?;
    if ra.ndim() != 2 || rb.ndim() != 2 {
        return Err(PyValueError::new_err(format!(
            "matmul: a and b must be 2D, got {} and {} dimensions; reshape vectors to (n, 1) or (1, n)",
            ra.ndim(),
            rb.ndim()
        )));
    }
    let (va, vb): (ArrayView<'_, T, 2>, ArrayView<'_, T, 2>) = (view(&ra, "matmul")?, view(&rb, "matmul")?);
    let work = va.len().max(vb.len());
    let out = run(py, work, || va.try_matmul(&vb)).map_err(to_pyerr)?;
    into_numpy(py, out)
}

#[doc = include_str!(concat!(env!("OUT_DIR"), "/doc/def.matmul.txt"))] // python/cnda.pyi's docstring
#[pyfunction]
pub fn matmul<'py>(py: Python<'py>, a: &Bound<'py, PyAny>, b: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    if a.cast::<PyArrayDyn<f64>>().is_ok() {
        matmul_typed::<f64>(py, a, b)
    } else if a.cast::<PyArrayDyn<f32>>().is_ok() {
        matmul_typed::<f32>(py, a, b)
    } else if a.cast::<PyArrayDyn<Complex<f64>>>().is_ok() {
        matmul_typed::<Complex<f64>>(py, a, b)
    } else if a.cast::<PyArrayDyn<Complex<f32>>>().is_ok() {
        matmul_typed::<Complex<f32>>(py, a, b)
    } else {
        Err(to_pyerr(cnda::Error::UnsupportedDType {
            op: "matmul",
            got: a.getattr("dtype").map(|d| d.to_string()).unwrap_or_else(|_| "a non-array".into()),
            fix: "matmul takes float32, float64, complex64 or complex128 arrays; convert with astype(np.float64)",
        }))
    }
}
