//! Memory in use by cnda's kernels, by address range.
//!
//! rust-numpy's borrow tracking tells NumPy arrays apart by their base object, and one memory
//! block reaches Python under several bases (each `to_numpy()` call, DLPack exports, arrays
//! imported with `from_numpy`/`from_dlpack`, structured field views). So cnda does not rely on
//! it: every entry point into a kernel describes its operands by the bytes they span and takes a
//! [`Lease`] on them here, which refuses
//!
//! - a written operand that overlaps another operand of the same call (the kernel would read
//!   what it writes: `ValueError` naming both; the in-place ops copy the read operand instead,
//!   as NumPy does), and
//! - memory that a kernel running in another thread (the interpreter lock released) writes, or
//!   that this call writes while another reads (`RuntimeError` naming the other call).
//!
//! `ContiguousND`'s own writes (`fill`, `__setitem__`, `resize`) run under the interpreter lock
//! and ask [`check_write`] first, so they never race with a kernel either.
//!
//! Copies and conversions of memory cnda did not allocate (`from_numpy(x, copy=True)`,
//! `from_dlpack(x, copy=True)`, `to_cuda`'s host copy, structured `from_numpy(copy=True)` and
//! `from_soa`, an operand converted to the promoted type, NumPy's array protocol on cnda arrays)
//! hold a read lease on what they copy ([`reading`]): NumPy's copy loops let go of the interpreter
//! lock on large arrays, so a check alone would let a kernel start writing mid-copy. Such a copy
//! is refused while a kernel writes that memory, and a kernel that would write it is refused while
//! the copy runs (`RuntimeError` naming the other call, as for two kernels).
//!
//! A span is only true of the metadata it was taken from, and an ndarray subclass's Python code
//! (a property, `flags`, `__array_finalize__`, an argument's `__index__`) may give an array new
//! strides. So every entry point takes its spans after the last call that can run Python code,
//! and builds its views from the same arrays with nothing but Rust in between; metadata (the data
//! address, the WRITEABLE flag) is read from NumPy's C struct, never through Python attributes.
//!
//! Spans are bounding byte ranges, as NumPy's `may_share_memory`: two interleaved views
//! (`a[::2]`, `a[1::2]`) count as overlapping.
//!
//! Not covered: NumPy's own code in another Python thread (a ufunc, `x[...] = 1`) writing memory
//! a cnda kernel is using. NumPy does not consult this registry, exactly as two NumPy ufuncs in
//! two threads do not consult each other; order such threads yourself.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};

use numpy::{Element, PyArrayDescrMethods, PyArrayDyn, PyArrayMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::errors::to_pyerr;

/// The bytes `[lo, hi)` that an array's elements lie in (empty for an array of no elements).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    lo: usize,
    hi: usize,
}

impl Span {
    /// The span of nothing: overlaps no span.
    pub const EMPTY: Span = Span { lo: 0, hi: 0 };

    /// The span of the elements at `ptr` with `shape`, byte `strides` and `itemsize`.
    pub fn new(ptr: usize, shape: &[usize], strides: &[isize], itemsize: usize) -> Span {
        if shape.contains(&0) {
            return Span::EMPTY;
        }
        // In i128: a valid array's extent fits the address space, so nothing here overflows.
        let (mut lo, mut hi) = (ptr as i128, ptr as i128 + itemsize as i128);
        for (&n, &stride) in shape.iter().zip(strides) {
            let reach = (n as i128 - 1) * stride as i128;
            if reach < 0 {
                lo += reach;
            } else {
                hi += reach;
            }
        }
        // An extent past the address space (only a hand-made `as_strided` array has one) clamps,
        // so it still overlaps everything it may touch.
        Span { lo: lo.clamp(0, usize::MAX as i128) as usize, hi: hi.clamp(0, usize::MAX as i128) as usize }
    }

    /// The span of `len` contiguous elements of `itemsize` bytes from `ptr`.
    pub fn contiguous(ptr: usize, len: usize, itemsize: usize) -> Span {
        if len == 0 {
            return Span::EMPTY;
        }
        Span { lo: ptr, hi: ptr.saturating_add(len.saturating_mul(itemsize)) }
    }

    /// Whether the two spans share a byte.
    pub fn overlaps(self, other: Span) -> bool {
        self.lo < self.hi && other.lo < other.hi && self.lo < other.hi && other.lo < self.hi
    }
}

/// The bytes NumPy array `x` of `T` spans; nothing when `x` is not one (the caller's type
/// checks say why).
pub fn span_of<T: Element>(x: &Bound<'_, PyAny>) -> Span {
    match x.cast::<PyArrayDyn<T>>() {
        Ok(a) => Span::new(a.data() as usize, a.shape(), a.strides(), core::mem::size_of::<T>()),
        Err(_) => Span::EMPTY,
    }
}

/// The bytes NumPy array `x` spans, whatever its element type (structured and byte-swapped ones
/// too); nothing when `x` is not one.
pub fn span_of_array(x: &Bound<'_, PyAny>) -> Span {
    match x.cast::<PyUntypedArray>() {
        Ok(a) => Span::new(crate::borrow::data_address(a), a.shape(), a.strides(), a.dtype().itemsize()),
        Err(_) => Span::EMPTY,
    }
}

/// `read()`, a copy or conversion of NumPy array `x` (`x` itself when it is no array: the caller
/// leases what it reads), with `x`'s bytes leased for reading until it returns.
///
/// `x`'s span is taken here, so `read` must run no Python code of `x`'s before NumPy reads it:
/// pass a plain ndarray, or read through NumPy functions (`np.asarray`, `np.array`, assignment
/// into an array cnda made), which use the C struct of a subclass without calling its code.
///
/// # Errors
///
/// `RuntimeError` naming the running call when a kernel in another thread writes memory that
/// overlaps `x`; `read`'s own errors.
pub fn reading<R>(
    op: &'static str,
    name: &str,
    x: &Bound<'_, PyAny>,
    read: impl FnOnce() -> PyResult<R>,
) -> PyResult<R> {
    let _in_use = lease(op, &[Operand::read(name, span_of_array(x))])?;
    read()
}

/// One operand of a kernel call.
#[derive(Clone, Copy, Debug)]
pub struct Operand<'a> {
    /// The argument's name in the Python signature (`u`, `out`, `a` ...).
    pub name: &'a str,
    /// The bytes it spans.
    pub span: Span,
    /// Whether the kernel writes it.
    pub write: bool,
}

impl<'a> Operand<'a> {
    /// An operand the kernel only reads.
    pub fn read(name: &'a str, span: Span) -> Self {
        Operand { name, span, write: false }
    }

    /// An operand the kernel writes.
    pub fn write(name: &'a str, span: Span) -> Self {
        Operand { name, span, write: true }
    }
}

/// A span some running call uses.
struct InUse {
    lease: u64,
    op: &'static str,
    name: String,
    span: Span,
    write: bool,
}

static IN_USE: Mutex<Vec<InUse>> = Mutex::new(Vec::new());
static NEXT_LEASE: AtomicU64 = AtomicU64::new(1);

/// The registry; a panic while it was held left it consistent (every update is one push or
/// one `retain`), so a poisoned lock is taken as it is.
fn in_use() -> MutexGuard<'static, Vec<InUse>> {
    IN_USE.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The operands of one running call, released when dropped.
#[must_use = "the memory counts as in use only while the lease lives"]
pub struct Lease(u64);

impl Drop for Lease {
    fn drop(&mut self) {
        in_use().retain(|u| u.lease != self.0);
    }
}

/// The `ValueError` for two overlapping operands of one call.
pub fn overlap_error(op: &str, written: &str, other: &str) -> PyErr {
    PyValueError::new_err(format!(
        "{op}: {written} and {other} overlap in memory: {written} is written while {other} is read, so the result would \
         depend on the order of the writes; pass separate memory for {written} (e.g. np.empty_like({other})) or a \
         copy of {other} ({other}.copy())"
    ))
}

/// The error for memory a call in another thread is using.
fn busy_error(op: &'static str, name: &str, other: &InUse, we_write: bool) -> PyErr {
    let (theirs, ours) =
        if other.write { ("writes", if we_write { "write" } else { "read" }) } else { ("reads", "write") };
    to_pyerr(cnda::Error::Ownership {
        op,
        reason: format!(
            "cnda's `{}` running in another thread {theirs} {} while this call would {ours} {name}, which overlaps it",
            other.op, other.name
        ),
        fix: "wait for that call to return (join its thread) before this one, or work on a copy",
    })
}

/// Checks `operands` against each other and against every call running now, then records them
/// as in use until the returned lease drops.
///
/// # Errors
///
/// `ValueError` when a written operand overlaps another operand; `RuntimeError` when a running
/// call writes what this one uses or reads what this one writes.
pub fn lease(op: &'static str, operands: &[Operand<'_>]) -> PyResult<Lease> {
    for (k, a) in operands.iter().enumerate() {
        for b in &operands[k + 1..] {
            if (a.write || b.write) && a.span.overlaps(b.span) {
                let (written, other) = if a.write { (a.name, b.name) } else { (b.name, a.name) };
                return Err(overlap_error(op, written, other));
            }
        }
    }
    let mut in_use = in_use();
    for a in operands {
        if let Some(other) = in_use.iter().find(|u| (u.write || a.write) && u.span.overlaps(a.span)) {
            return Err(busy_error(op, a.name, other, a.write));
        }
    }
    let id = NEXT_LEASE.fetch_add(1, Ordering::Relaxed);
    in_use.extend(operands.iter().map(|a| InUse {
        lease: id,
        op,
        name: a.name.to_string(),
        span: a.span,
        write: a.write,
    }));
    Ok(Lease(id))
}

/// For a short read under the interpreter lock (an element, a copy, a file write): refuses when
/// a running kernel writes memory overlapping `span`. Call it with no Python code between it and
/// the read, so that no other thread can start a kernel in between.
///
/// # Errors
///
/// `RuntimeError` naming the running call.
pub fn check_read(op: &'static str, span: Span) -> PyResult<()> {
    match in_use().iter().find(|u| u.write && u.span.overlaps(span)) {
        Some(other) => Err(busy_error(op, "this array", other, false)),
        None => Ok(()),
    }
}

/// For a short write under the interpreter lock (no lease needed: no kernel can start before it
/// ends, provided no Python code runs between this check and the write): refuses when a running
/// kernel uses `span`.
///
/// # Errors
///
/// `RuntimeError` naming the running call.
pub fn check_write(op: &'static str, span: Span) -> PyResult<()> {
    match in_use().iter().find(|u| u.span.overlaps(span)) {
        Some(other) => Err(busy_error(op, "this array", other, true)),
        None => Ok(()),
    }
}
