//! The matrix-product kernel family, its element types and its thread budget.

use num_complex::Complex;

use crate::element::Arithmetic;
use crate::error::Result;
use crate::kernel::{Backend, Desc};

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
    impl Sealed for super::Complex<f32> {}
    impl Sealed for super::Complex<f64> {}
}

/// Element types with a `gemm` kernel: `f32`, `f64`, `Complex<f32>` and `Complex<f64>` (the
/// plain product, no conjugate; WebGPU has the real ones only).
pub trait GemmElement: Arithmetic + sealed::Sealed {}
impl GemmElement for f32 {}
impl GemmElement for f64 {}
impl GemmElement for Complex<f32> {}
impl GemmElement for Complex<f64> {}

/// How many threads a matrix product may use: an explicit resource, as in faer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Par {
    /// The calling thread only.
    Seq,
    /// Rayon's pool: `0` means all its threads (the default with feature `rayon`).
    Rayon(usize),
}

impl Default for Par {
    /// All of rayon's threads.
    fn default() -> Self {
        Par::Rayon(0)
    }
}

/// The matrix-product kernel a backend provides.
///
/// # Safety
///
/// Implementations write every element of `out` with the product (zeros when the inner dimension
/// is 0) and touch no other memory.
pub unsafe trait MatmulKernels: Backend {
    /// `out (m x n, dense row-major) = a (m x k) * b (k x n)`, `a` and `b` with any strides.
    ///
    /// # Safety
    ///
    /// All three address live memory on `dev` for every index of their shapes; `out` is dense
    /// row-major, writable (possibly uninitialized), and overlaps neither input.
    ///
    /// # Errors
    ///
    /// `Error::Device` when a device fails.
    unsafe fn gemm<T: GemmElement>(
        dev: &Self::Device,
        out: Desc<Self, T, 2>,
        a: Desc<Self, T, 2>,
        b: Desc<Self, T, 2>,
        par: Par,
    ) -> Result<()>;
}
