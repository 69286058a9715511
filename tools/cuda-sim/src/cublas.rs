//! The cuBLAS stand-in: handles, streams and the GEMMs cnda calls (`cublasSgemm_v2`,
//! `cublasDgemm_v2`, `cublasCgemm_v2`, `cublasZgemm_v2`): column-major `C = alpha * op(A) * op(B) + beta * C` as a plain loop
//! honouring transposes and leading dimensions, each product summed in order with fused
//! multiply-adds. Every matrix must lie inside a live allocation of the memory map (complex ones
//! aligned to a whole complex number, as cuBLAS's `float2`/`double2` are); `beta == 0` does not
//! read `C` (as BLAS specifies). Host pointer mode only (cuBLAS's default).

#![allow(non_snake_case, clippy::missing_safety_doc, clippy::too_many_arguments)]

use std::ffi::{c_int, c_uint, c_void};

use crate::driver::{device, out};
use crate::error::{report, SimError};

/// A `cublasStatus_t` value.
pub type Status = u32;
pub const STATUS_SUCCESS: Status = 0;
pub const STATUS_INVALID_VALUE: Status = 7;
pub const STATUS_EXECUTION_FAILED: Status = 13;
pub const STATUS_INTERNAL_ERROR: Status = 14;

const HANDLE: usize = 0xB1A5_0000;

/// Runs a call's body: its error as a cuBLAS status (recorded and printed like the driver's), a
/// panic as `CUBLAS_STATUS_INTERNAL_ERROR`, never unwinding into the caller.
fn status(f: impl FnOnce() -> Result<(), (Status, String)>) -> Status {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(Ok(())) => STATUS_SUCCESS,
        Ok(Err((s, msg))) => {
            report(SimError::new(crate::error::INVALID_VALUE, format!("cuBLAS: {msg}")));
            s
        }
        Err(_) => STATUS_INTERNAL_ERROR,
    }
}

#[no_mangle]
pub unsafe extern "C" fn cublasCreate_v2(h: *mut *mut c_void) -> Status {
    // SAFETY: the caller passes a valid out-pointer.
    status(|| unsafe { out(h, HANDLE as *mut c_void) }.map_err(|e| (STATUS_INVALID_VALUE, e.message)))
}

#[no_mangle]
pub extern "C" fn cublasDestroy_v2(_h: *mut c_void) -> Status {
    STATUS_SUCCESS
}

#[no_mangle]
pub extern "C" fn cublasSetStream_v2(_h: *mut c_void, s: *mut c_void) -> Status {
    status(|| device().stream(s).map_err(|e| (STATUS_INVALID_VALUE, e.message)))
}

#[no_mangle]
pub extern "C" fn cublasSetMathMode(_h: *mut c_void, _mode: c_uint) -> Status {
    STATUS_SUCCESS
}

#[no_mangle]
pub extern "C" fn cublasSetWorkspace_v2(_h: *mut c_void, _w: *mut c_void, _bytes: usize) -> Status {
    STATUS_SUCCESS
}

#[no_mangle]
pub unsafe extern "C" fn cublasGetPointerMode_v2(_h: *mut c_void, mode: *mut c_uint) -> Status {
    // SAFETY: the caller passes a valid out-pointer.
    status(|| unsafe { out(mode, 0) }.map_err(|e| (STATUS_INVALID_VALUE, e.message)))
}

#[no_mangle]
pub extern "C" fn cublasSetPointerMode_v2(_h: *mut c_void, mode: c_uint) -> Status {
    status(
        || if mode == 0 { Ok(()) } else { Err((STATUS_INVALID_VALUE, "device pointer mode is not supported".into())) },
    )
}

/// Element types of the GEMM.
pub trait Elem: Copy + std::ops::Mul<Output = Self> + std::ops::Add<Output = Self> {
    const ZERO: Self;
    /// Whether `CUBLAS_OP_C` (a conjugate transpose, not simulated) differs from `CUBLAS_OP_T`.
    const COMPLEX: bool = false;
    fn fma(a: Self, b: Self, c: Self) -> Self;
}

impl Elem for f32 {
    const ZERO: f32 = 0.0;
    fn fma(a: f32, b: f32, c: f32) -> f32 {
        a.mul_add(b, c)
    }
}

impl Elem for f64 {
    const ZERO: f64 = 0.0;
    fn fma(a: f64, b: f64, c: f64) -> f64 {
        a.mul_add(b, c)
    }
}

/// A complex number as cuBLAS lays it out (`cuComplex`, `cuDoubleComplex`): real part first.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cx<T> {
    pub re: T,
    pub im: T,
}

impl<T: Elem + std::ops::Sub<Output = T>> std::ops::Add for Cx<T> {
    type Output = Self;
    fn add(self, o: Self) -> Self {
        Cx { re: self.re + o.re, im: self.im + o.im }
    }
}

impl<T: Elem + std::ops::Sub<Output = T>> std::ops::Mul for Cx<T> {
    type Output = Self;
    fn mul(self, o: Self) -> Self {
        Cx { re: self.re * o.re - self.im * o.im, im: self.re * o.im + self.im * o.re }
    }
}

/// Complex products are summed with a plain multiply and add (no fused form, as num-complex's
/// operators compute them).
impl<T: Elem + std::ops::Sub<Output = T>> Elem for Cx<T> {
    const ZERO: Self = Cx { re: T::ZERO, im: T::ZERO };
    const COMPLEX: bool = true;
    fn fma(a: Self, b: Self, c: Self) -> Self {
        a * b + c
    }
}

/// The column-major GEMM on raw device addresses (checked against the memory map).
///
/// # Safety
///
/// `alpha` and `beta` are valid host pointers; the matrices are device addresses (checked).
pub unsafe fn gemm<T: Elem>(
    ta: c_uint,
    tb: c_uint,
    m: c_int,
    n: c_int,
    k: c_int,
    alpha: *const T,
    a: *const T,
    lda: c_int,
    b: *const T,
    ldb: c_int,
    beta: *const T,
    c: *mut T,
    ldc: c_int,
) -> Result<(), (Status, String)> {
    if m < 0 || n < 0 || k < 0 || ta > 2 || tb > 2 || alpha.is_null() || beta.is_null() {
        return Err((STATUS_INVALID_VALUE, format!("gemm: m={m} n={n} k={k} transa={ta} transb={tb}")));
    }
    if T::COMPLEX && (ta == 2 || tb == 2) {
        return Err((STATUS_INVALID_VALUE, "gemm: conjugate transposes (CUBLAS_OP_C) are not simulated".into()));
    }
    let (rows_a, rows_b) = (if ta == 0 { m } else { k }, if tb == 0 { k } else { n });
    if lda < rows_a.max(1) || ldb < rows_b.max(1) || ldc < m.max(1) {
        return Err((
            STATUS_INVALID_VALUE,
            format!("gemm: lda={lda} ldb={ldb} ldc={ldc} too small for m={m} n={n} k={k}"),
        ));
    }
    if m == 0 || n == 0 {
        return Ok(());
    }
    let (m, n, k) = (m as usize, n as usize, k as usize);
    let (lda, ldb, ldc) = (lda as usize, ldb as usize, ldc as usize);
    let size = std::mem::size_of::<T>();
    let d = device();
    let span = |base: u64, rows: usize, cols: usize, ld: usize, what: &str| -> Result<(), (Status, String)> {
        if rows == 0 || cols == 0 {
            return Ok(());
        }
        let bytes = ((cols - 1) * ld + rows) * size;
        d.mem.check(base, bytes).map_err(|why| {
            (STATUS_EXECUTION_FAILED, format!("gemm: matrix {what} ({rows}x{cols}, ld {ld}) at 0x{base:x}: {why}"))
        })
    };
    let (ac, bc) = (if ta == 0 { k } else { m }, if tb == 0 { n } else { k });
    span(a as u64, if ta == 0 { m } else { k }, ac, lda, "A")?;
    span(b as u64, if tb == 0 { k } else { n }, bc, ldb, "B")?;
    span(c as u64, m, n, ldc, "C")?;
    // SAFETY: host scalars by the caller's contract; every matrix element read or written below
    // lies in the spans checked above, and the device lock is held.
    unsafe {
        let (alpha, beta) = (*alpha, *beta);
        let beta_zero = is_zero(beta);
        for j in 0..n {
            for i in 0..m {
                let mut acc = T::ZERO;
                for p in 0..k {
                    let x = *a.add(if ta == 0 { i + p * lda } else { p + i * lda });
                    let y = *b.add(if tb == 0 { p + j * ldb } else { j + p * ldb });
                    acc = T::fma(x, y, acc);
                }
                let out = c.add(i + j * ldc);
                *out = if beta_zero { alpha * acc } else { T::fma(alpha, acc, beta * *out) };
            }
        }
    }
    Ok(())
}

fn is_zero<T: Elem>(x: T) -> bool {
    // +0 or -0 by their bytes (little-endian: the sign bit is the last byte's top bit).
    let size = std::mem::size_of::<T>();
    // SAFETY: reading the bytes of a plain float value.
    let bytes = unsafe { std::slice::from_raw_parts((&x as *const T).cast::<u8>(), size) };
    bytes[..size - 1].iter().all(|&b| b == 0) && bytes[size - 1] & 0x7f == 0
}

#[no_mangle]
pub unsafe extern "C" fn cublasSgemm_v2(
    _h: *mut c_void,
    ta: c_uint,
    tb: c_uint,
    m: c_int,
    n: c_int,
    k: c_int,
    alpha: *const f32,
    a: *const f32,
    lda: c_int,
    b: *const f32,
    ldb: c_int,
    beta: *const f32,
    c: *mut f32,
    ldc: c_int,
) -> Status {
    // SAFETY: cuBLAS's contract; device sides are checked inside.
    status(|| unsafe { gemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc) })
}

#[no_mangle]
pub unsafe extern "C" fn cublasDgemm_v2(
    _h: *mut c_void,
    ta: c_uint,
    tb: c_uint,
    m: c_int,
    n: c_int,
    k: c_int,
    alpha: *const f64,
    a: *const f64,
    lda: c_int,
    b: *const f64,
    ldb: c_int,
    beta: *const f64,
    c: *mut f64,
    ldc: c_int,
) -> Status {
    // SAFETY: cuBLAS's contract; device sides are checked inside.
    status(|| unsafe { gemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc) })
}

macro_rules! complex_gemm {
    ($($name:ident $T:ty;)*) => {$(
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            _h: *mut c_void,
            ta: c_uint,
            tb: c_uint,
            m: c_int,
            n: c_int,
            k: c_int,
            alpha: *const Cx<$T>,
            a: *const Cx<$T>,
            lda: c_int,
            b: *const Cx<$T>,
            ldb: c_int,
            beta: *const Cx<$T>,
            c: *mut Cx<$T>,
            ldc: c_int,
        ) -> Status {
            status(|| {
                // cuBLAS reads its complex types as `float2`/`double2`: device matrices aligned
                // to the whole complex number (16 bytes for `cuDoubleComplex`).
                let align = std::mem::size_of::<Cx<$T>>();
                for (name, p) in [("A", a as usize), ("B", b as usize), ("C", c as usize)] {
                    if p % align != 0 {
                        return Err((
                            STATUS_INVALID_VALUE,
                            format!("{}: matrix {name} at 0x{p:x} is not aligned to {align} bytes", stringify!($name)),
                        ));
                    }
                }
                // SAFETY: cuBLAS's contract; device sides are checked inside.
                unsafe { gemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc) }
            })
        }
    )*};
}

complex_gemm! {
    cublasCgemm_v2 f32;
    cublasZgemm_v2 f64;
}
