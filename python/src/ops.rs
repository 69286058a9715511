//! cnda's array operations on NumPy arrays: elementwise arithmetic with broadcasting (and its
//! in-place forms), `sum` (whole or along an axis), `matmul` and `pad`. Operands are read in place
//! whatever their strides (transposed, sliced with steps, flipped, broadcast); results are cnda
//! buffers handed to NumPy without a copy. Large operations run with the interpreter lock
//! released, so other Python threads go on meanwhile.

use cnda::stencil::{try_pad, PadMode};
use cnda::{Array, ArrayView, GemmElement, Numeric, Zip};
use numpy::{PyArrayDyn, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::IntoPyObjectExt;

use crate::array::{into_numpy, Stored};
use crate::borrow::{by_rank, read, view, view_mut, write};
use crate::errors::to_pyerr;
use crate::overlap::{lease, span_of, Operand};

/// Operations on at least this many elements release the interpreter lock (below it, releasing
/// and re-taking the lock costs more than the work).
const DETACH_FROM: usize = 1 << 16;

/// `f()`, with the interpreter lock released when `len` elements make it worth it.
fn run<R: Send>(py: Python<'_>, len: usize, f: impl FnOnce() -> R + Send) -> R {
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
        if x.cast::<PyArrayDyn<f64>>().is_ok() {
            type $T = f64;
            $body
        } else if x.cast::<PyArrayDyn<f32>>().is_ok() {
            type $T = f32;
            $body
        } else if x.cast::<PyArrayDyn<i64>>().is_ok() {
            type $T = i64;
            $body
        } else if x.cast::<PyArrayDyn<i32>>().is_ok() {
            type $T = i32;
            $body
        } else {
            Err(unsupported($op, x))
        }
    }};
}

fn unsupported(op: &'static str, x: &Bound<'_, PyAny>) -> PyErr {
    let got = match x.cast::<PyUntypedArray>() {
        Ok(a) => a.dtype().to_string(),
        Err(_) => format!("a {} (not a numpy.ndarray)", x.get_type()),
    };
    to_pyerr(cnda::Error::UnsupportedDType {
        op,
        got,
        fix:
            "cnda computes on numpy.ndarray of float32, float64, int32 or int64; convert with np.asarray(x, dtype=...)",
    })
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

fn binary<'py, T: Stored + Numeric>(
    py: Python<'py>,
    op: Binary,
    a: &Bound<'py, PyAny>,
    b: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let name = op.name();
    let (ra, rb) = (read::<T>(a, name, "a")?, read::<T>(b, name, "b")?);
    let _in_use = lease(name, &[Operand::read("a", span_of::<T>(a)), Operand::read("b", span_of::<T>(b))])?;
    let len = broadcast_len(ra.shape(), rb.shape());
    by_rank!(name, ra.ndim().max(rb.ndim()), N => {
        let (va, vb) = (view::<T, N>(&ra, name)?, view::<T, N>(&rb, name)?);
        let out = run(py, len, || match op {
            Binary::Add => va.try_add(vb),
            Binary::Sub => va.try_sub(vb),
            Binary::Mul => va.try_mul(vb),
            Binary::Div => va.try_div(vb),
        })
        .map_err(to_pyerr)?;
        into_numpy(py, out)
    })
}

fn binary_in_place<T: Stored + Numeric>(
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
        copied = b.call_method0("copy")?;
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
) -> PyResult<Bound<'py, PyAny>> {
    by_dtype!(op.name(), a, T => {
        if matches!(op, Binary::Div) && !is_float::<T>() {
            return Err(integer_division());
        }
        binary::<T>(py, op, a, b)
    })
}

fn dispatch_in_place(py: Python<'_>, op: Binary, a: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>) -> PyResult<()> {
    by_dtype!(op.name(), a, T => {
        if matches!(op, Binary::Div) && !is_float::<T>() {
            return Err(integer_division());
        }
        binary_in_place::<T>(py, op, a, b)
    })
}

fn is_float<T: Numeric>() -> bool {
    matches!(<T as cnda::Element>::DTYPE, cnda::DType::F32 | cnda::DType::F64)
}

fn integer_division() -> PyErr {
    PyTypeError::new_err(
        "divide: integer arrays are not divided here (NumPy's true division gives floats); convert with astype(np.float64)",
    )
}

/// One Python function per binary op and form: `$new(a, b)` returns a new array, `$in_place(a, b)`
/// updates `a`.
macro_rules! binary_functions {
    ($($op:ident: $new:ident $in_place:ident $what:literal;)*) => {$(
        #[doc = concat!("`a ", $what, " b` with NumPy broadcasting over any strides, as a new array (same dtype; cnda's memory, handed to NumPy without a copy).")]
        #[pyfunction]
        pub fn $new<'py>(py: Python<'py>, a: &Bound<'py, PyAny>, b: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
            dispatch_binary(py, Binary::$op, a, b)
        }

        #[doc = concat!("`a ", $what, "= b` in place, `b` broadcast into `a`'s shape (`a` may be any writable view).")]
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

/// The axis `axis` (negative counts from the end) of a rank-`rank` array, or `IndexError`.
fn normalize_axis(op: &'static str, axis: isize, rank: usize) -> PyResult<usize> {
    let at = if axis < 0 { axis + rank as isize } else { axis };
    usize::try_from(at).ok().filter(|&a| a < rank).ok_or_else(|| {
        pyo3::exceptions::PyIndexError::new_err(format!(
            "{op}: axis {axis} is out of range for an array of {rank} dimensions; use -{rank}..{rank}"
        ))
    })
}

fn sum_typed<'py, T: Stored + Numeric + IntoPyObject<'py>>(
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
        total.into_bound_py_any(py)
    };
    let Some(axis) = axis else { return whole(py) };
    let axis = normalize_axis("sum", axis, rank)?;
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
    let axis = axis.map(|axis| normalize_axis("sum", axis, rank)).transpose()?;
    macro_rules! widened {
        ($N:literal, $M:literal) => {{
            let v = view::<i32, $N>(&ra, "sum")?;
            match axis {
                None => {
                    run(py, v.len(), || Zip::from(v).fold(0i64, |acc, &x| acc + i64::from(x))).into_bound_py_any(py)
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
            run(py, v.len(), || Zip::from(v).fold(0i64, |acc, &x| acc + i64::from(x))).into_bound_py_any(py)
        }
        (2, _) => widened!(2, 1),
        (3, _) => widened!(3, 2),
        (4, _) => widened!(4, 3),
        (n, _) => Err(crate::borrow::rank_error("sum", n)),
    }
}

/// The sum of all elements (a Python number), or along `axis` (an array of one rank less), as
/// NumPy's `sum`: floats summed pairwise in their own type, int32 promoted to int64.
#[pyfunction]
#[pyo3(signature = (a, axis = None))]
pub fn sum<'py>(py: Python<'py>, a: &Bound<'py, PyAny>, axis: Option<isize>) -> PyResult<Bound<'py, PyAny>> {
    if a.cast::<PyArrayDyn<i32>>().is_ok() {
        return sum_widened(py, a, axis);
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

/// `a @ b` for 2D float32 or float64 arrays, on all cores; transposed or strided operands are read
/// in place, not copied.
#[pyfunction]
pub fn matmul<'py>(py: Python<'py>, a: &Bound<'py, PyAny>, b: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    if a.cast::<PyArrayDyn<f64>>().is_ok() {
        matmul_typed::<f64>(py, a, b)
    } else if a.cast::<PyArrayDyn<f32>>().is_ok() {
        matmul_typed::<f32>(py, a, b)
    } else {
        Err(to_pyerr(cnda::Error::UnsupportedDType {
            op: "matmul",
            got: a.getattr("dtype").map(|d| d.to_string()).unwrap_or_else(|_| "a non-array".into()),
            fix: "matmul takes float32 or float64 arrays; convert with astype(np.float64)",
        }))
    }
}

fn pad_typed<'py, T: Stored + Numeric + for<'a> FromPyObject<'a, 'py>>(
    py: Python<'py>,
    a: &Bound<'py, PyAny>,
    width: usize,
    mode: &str,
    constant: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let mode = match mode {
        "constant" => PadMode::Constant(constant.extract::<T>().map_err(Into::into)?),
        "edge" => PadMode::Edge,
        "reflect" => PadMode::Reflect,
        "wrap" => PadMode::Periodic,
        other => {
            return Err(PyValueError::new_err(format!(
                "pad: mode {other:?} is not supported; use \"constant\", \"edge\", \"reflect\" or \"wrap\""
            )))
        }
    };
    let ra = read::<T>(a, "pad", "a")?;
    let _in_use = lease("pad", &[Operand::read("a", span_of::<T>(a))])?;
    let len = ra.len();
    by_rank!("pad", ra.ndim(), N => {
        let v = view::<T, N>(&ra, "pad")?;
        let out: Array<T, N> = run(py, len, || try_pad(v, width, mode)).map_err(to_pyerr)?;
        into_numpy(py, out)
    })
}

/// `a` with `width` points added at both ends of every axis, filled as NumPy's `np.pad` fills them
/// for `mode` "constant" (with `constant_values`), "edge", "reflect" or "wrap".
#[pyfunction]
#[pyo3(signature = (a, width, mode = "constant", constant_values = None))]
pub fn pad<'py>(
    py: Python<'py>,
    a: &Bound<'py, PyAny>,
    width: usize,
    mode: &str,
    constant_values: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let zero = 0i32.into_pyobject(py)?.into_any();
    let constant = constant_values.unwrap_or(zero);
    by_dtype!("pad", a, T => pad_typed::<T>(py, a, width, mode, &constant))
}
