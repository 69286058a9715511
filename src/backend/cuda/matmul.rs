//! `matmul` on CUDA through cuBLAS (loaded at run time): a row-major product is the column-major
//! product of the transposes, and each operand is handed to cuBLAS as it lies in memory, row- or
//! column-major with its leading dimension, so a transposed view costs no copy. Only operands
//! with neither axis unit-strided (or with negative strides) are made contiguous first.

use core::any::TypeId;
use core::ffi::c_int;

use cudarc::cublas::{result as blas, sys as blas_sys};
use num_complex::Complex;

use super::device::{device_error, CudaDevice};
use super::{Cuda, CudaBuffer};
use crate::error::Result;
use crate::kernel::CopyKernels;
use crate::kernel::Desc;
use crate::kernel::{GemmElement, MatmulKernels, Par};

/// How cuBLAS sees one operand of the column-major product: transposed or not, and its leading
/// dimension.
struct Operand {
    transpose: bool,
    ld: c_int,
    addr: u64,
}

/// One column-major cuBLAS product `c = op(a) * op(b)` (`m x n`, inner dimension `k`).
struct Gemm {
    ta: blas_sys::cublasOperation_t,
    tb: blas_sys::cublasOperation_t,
    m: c_int,
    n: c_int,
    k: c_int,
    a: Operand,
    b: Operand,
    c: u64,
    ldc: c_int,
}

/// cuBLAS's `sgemm`, `dgemm`, `cgemm` or `zgemm`, for element type `E`.
type GemmFn<E> = unsafe fn(
    blas_sys::cublasHandle_t,
    blas_sys::cublasOperation_t,
    blas_sys::cublasOperation_t,
    c_int,
    c_int,
    c_int,
    *const E,
    *const E,
    c_int,
    *const E,
    c_int,
    *const E,
    *mut E,
    c_int,
) -> core::result::Result<(), blas::CublasError>;

impl Gemm {
    /// Runs the product with `gemm` (alpha 1, beta 0).
    ///
    /// # Safety
    ///
    /// The addresses are live device memory of `E`s with the dimensions and leading dimensions
    /// given, and `handle` is bound to the stream that orders them.
    unsafe fn run<E: GemmElement>(
        &self,
        handle: blas_sys::cublasHandle_t,
        gemm: GemmFn<E>,
    ) -> core::result::Result<(), blas::CublasError> {
        let (alpha, beta) = (E::ONE, E::ZERO);
        // SAFETY: the caller's contract.
        unsafe {
            gemm(
                handle,
                self.ta,
                self.tb,
                self.m,
                self.n,
                self.k,
                &alpha,
                self.a.addr as *const E,
                self.a.ld,
                self.b.addr as *const E,
                self.b.ld,
                &beta,
                self.c as *mut E,
                self.ldc,
            )
        }
    }
}

/// cuBLAS's complex products with `num_complex`'s types. The matrices are device memory of
/// `{ re, im }` pairs, the layout of `cuComplex`/`cuDoubleComplex`, at addresses aligned as those
/// types are (`as_operand` takes no other; a misaligned operand, such as imported memory aligned
/// only as `Complex<f64>`, is copied first); the host scalars `alpha` and `beta` are copied into
/// values of cuBLAS's own types.
macro_rules! complex_gemm {
    ($($name:ident $sys:ident $E:ty, $C:ident;)*) => {$(
        #[allow(clippy::too_many_arguments)]
        unsafe fn $name(
            handle: blas_sys::cublasHandle_t,
            ta: blas_sys::cublasOperation_t,
            tb: blas_sys::cublasOperation_t,
            m: c_int,
            n: c_int,
            k: c_int,
            alpha: *const $E,
            a: *const $E,
            lda: c_int,
            b: *const $E,
            ldb: c_int,
            beta: *const $E,
            c: *mut $E,
            ldc: c_int,
        ) -> core::result::Result<(), blas::CublasError> {
            // SAFETY: the caller's contract (`Gemm::run`'s): `alpha` and `beta` are valid host
            // values, read here into cuBLAS's aligned type; the device pointers keep the layout.
            unsafe {
                let (alpha, beta) = (*alpha, *beta);
                let alpha = blas_sys::$C { x: alpha.re, y: alpha.im };
                let beta = blas_sys::$C { x: beta.re, y: beta.im };
                blas_sys::$sys(
                    handle,
                    ta,
                    tb,
                    m,
                    n,
                    k,
                    &alpha,
                    a.cast::<blas_sys::$C>(),
                    lda,
                    b.cast::<blas_sys::$C>(),
                    ldb,
                    &beta,
                    c.cast::<blas_sys::$C>(),
                    ldc,
                )
                .result()
            }
        }
    )*};
}

complex_gemm! {
    cgemm cublasCgemm_v2 Complex<f32>, float2;
    zgemm cublasZgemm_v2 Complex<f64>, double2;
}

/// `m` as a cuBLAS dimension.
fn dim(m: usize) -> Result<c_int> {
    c_int::try_from(m).map_err(|_| device_error(format!("a matrix dimension of {m} exceeds cuBLAS's 32-bit sizes")))
}

/// The transpose of row-major-indexed matrix `d` (rows x cols) as a column-major cuBLAS operand,
/// if its strides allow one without a copy.
fn as_operand<T: GemmElement>(d: &Desc<Cuda, T, 2>) -> Option<Operand> {
    // cuBLAS's complex types are aligned to their size (8 and 16 bytes), more than num-complex's.
    let complex = crate::element::complex_part_size::<T>().is_some();
    let align = if complex { core::mem::size_of::<T>() } else { core::mem::align_of::<T>() };
    if d.handle.addr % align as u64 != 0 {
        return None;
    }
    let [rows, cols] = d.shape;
    let [s0, s1] = d.strides;
    if s1 == 1 && s0 >= cols.max(1) as isize {
        // Row-major with leading dimension s0: read as column-major, it is the transpose.
        return Some(Operand { transpose: false, ld: c_int::try_from(s0).ok()?, addr: d.handle.addr });
    }
    if s0 == 1 && s1 >= rows.max(1) as isize {
        // Column-major with leading dimension s1: cuBLAS transposes it.
        return Some(Operand { transpose: true, ld: c_int::try_from(s1).ok()?, addr: d.handle.addr });
    }
    None
}

/// A contiguous row-major copy of `d` on the device when cuBLAS cannot read it as it lies.
fn dense<T: GemmElement>(dev: &CudaDevice, d: &Desc<Cuda, T, 2>) -> Result<Option<CudaBuffer<T>>> {
    if as_operand(d).is_some() {
        return Ok(None);
    }
    let buffer = CudaBuffer::<T>::allocate(*dev, "matmul", d.len(), false)?;
    let dst = Desc { handle: buffer.handle(0), shape: d.shape, strides: [d.shape[1] as isize, 1] };
    // SAFETY: `dst` is the fresh buffer, row-major over `d`'s shape; `d` is live (the caller's
    // contract).
    unsafe { <Cuda as CopyKernels>::copy(dev, dst, *d) }?;
    Ok(Some(buffer))
}

// SAFETY: cuBLAS writes every element of the dense row-major `out` (zeros first when the inner
// dimension is 0) and reads only the operands' elements.
unsafe impl MatmulKernels for Cuda {
    unsafe fn gemm<T: GemmElement>(
        dev: &CudaDevice,
        out: Desc<Cuda, T, 2>,
        a: Desc<Cuda, T, 2>,
        b: Desc<Cuda, T, 2>,
        _: Par,
    ) -> Result<()> {
        let [m, n] = out.shape;
        let k = a.shape[1];
        if m == 0 || n == 0 {
            return Ok(());
        }
        if k == 0 {
            // SAFETY: `out` is writable (the caller's contract).
            return unsafe { <Cuda as CopyKernels>::fill(dev, out, T::ZERO) };
        }
        let (a_copy, b_copy) = (dense(dev, &a)?, dense(dev, &b)?);
        let a = match &a_copy {
            Some(buf) => Desc { handle: buf.handle(0), shape: a.shape, strides: [k as isize, 1] },
            None => a,
        };
        let b = match &b_copy {
            Some(buf) => Desc { handle: buf.handle(0), shape: b.shape, strides: [n as isize, 1] },
            None => b,
        };
        let (oa, ob) = (as_operand(&a).expect("dense"), as_operand(&b).expect("dense"));
        let (m, n, k) = (dim(m)?, dim(n)?, dim(k)?);
        let op = |t: bool| {
            if t {
                blas_sys::cublasOperation_t::CUBLAS_OP_T
            } else {
                blas_sys::cublasOperation_t::CUBLAS_OP_N
            }
        };
        // Column-major: out^T (n x m, ld n) = b^T (n x k) * a^T (k x m).
        let call = Gemm {
            ta: op(ob.transpose),
            tb: op(oa.transpose),
            m: n,
            n: m,
            k,
            a: ob,
            b: oa,
            c: out.handle.addr,
            ldc: n,
        };
        // SAFETY: the addresses are live device memory of the shapes and leading dimensions given
        // (checked by `as_operand`), used on the handle's stream (the device's).
        let result = dev.with_blas(|handle| unsafe {
            let t = TypeId::of::<T>();
            if t == TypeId::of::<f32>() {
                call.run(handle, blas::sgemm)
            } else if t == TypeId::of::<f64>() {
                call.run(handle, blas::dgemm)
            } else if t == TypeId::of::<Complex<f32>>() {
                call.run(handle, cgemm)
            } else {
                call.run(handle, zgemm) // Complex<f64>, the last `GemmElement`
            }
        })?;
        result.map_err(|e| device_error(format!("cuBLAS gemm: {e:?}")))?;
        // The copies (if any) are freed in stream order after the product.
        drop((a_copy, b_copy));
        Ok(())
    }
}
