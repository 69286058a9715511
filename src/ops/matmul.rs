//! Matrix products, written once for every backend: `matmul` and `matvec` check shapes and
//! devices, allocate the output and call the backend's [`MatmulKernels`] with the operands' own
//! strides, so transposed, sliced or flipped operands are multiplied in place, never copied
//! first. The CPU's kernel is the `gemm` crate (AVX-512 kernels enabled by its `x86-v4` feature,
//! picked at run time); a device's is its BLAS.

use crate::array::Array;
use crate::check::{BoundsCheck, DefaultCheck};
use crate::error::or_panic;
use crate::error::{Error, Result};
use crate::kernel::{Allocator, Backend};
use crate::kernel::{Desc, GemmElement, MatmulKernels, Par};
use crate::layout::{Layout, RowMajor};
use crate::ops::operand::AsOperand;
use crate::ops::output::{fresh, same_device};
use crate::rank::{IsMatrix, Rank};
use crate::view::{Access, View};

/// A descriptor of rank `N` (2, proven by `IsMatrix` at the callers) as a matrix.
fn matrix<B: Backend, T: crate::element::Pod, const N: usize>(d: Desc<B, T, N>) -> Desc<B, T, 2> {
    Desc { handle: d.handle, shape: [d.shape[0], d.shape[1]], strides: [d.strides[0], d.strides[1]] }
}

/// `a (m x k) * b (k x n)` into a fresh row-major `m x n` array from `alloc`.
///
/// # Safety
///
/// `a` and `b` describe live elements that nothing writes during the call.
///
/// # Errors
///
/// `Error::ShapeMismatch` when the inner dimensions differ; `Error::DeviceMismatch`;
/// `Error::Alloc`; `Error::Device`.
pub(crate) unsafe fn matmul<B: MatmulKernels, T: GemmElement, const N: usize, C: BoundsCheck>(
    op: &'static str,
    alloc: &impl Allocator<B>,
    a: Desc<B, T, 2>,
    b: Desc<B, T, 2>,
    par: Par,
) -> Result<Array<T, N, B, RowMajor, C>> {
    let ([m, k], [k2, n]) = (a.shape, b.shape);
    if k != k2 {
        let expected = if N == 1 { vec![k] } else { vec![k, n] };
        let got = if N == 1 { vec![k2] } else { vec![k2, n] };
        return Err(Error::ShapeMismatch { op, expected, got });
    }
    let dev = alloc.device();
    same_device::<B>(op, &dev, &[B::handle_device(a.handle), B::handle_device(b.handle)])?;
    let shape: [usize; N] = core::array::from_fn(|d| [m, n][d]);
    // SAFETY: the kernel writes all `m * n` elements of the fresh output (a vector output is an
    // `m x 1` matrix with the same memory); the inputs are live (caller's contract).
    unsafe {
        fresh(alloc, op, shape, |out: Desc<B, T, N>| {
            let out = Desc { handle: out.handle, shape: [m, n], strides: [n as isize, 1] };
            B::gemm(&dev, out, a, b, par)
        })
    }
}

/// `x` (a vector of `k` elements) as a `k x 1` matrix.
fn column<B: Backend, T: crate::element::Pod>(x: Desc<B, T, 1>) -> Desc<B, T, 2> {
    Desc { handle: x.handle, shape: [x.shape[0], 1], strides: [x.strides[0], 1] }
}

/// Matrix products on views and arrays of any backend with a matmul kernel (outputs from their
/// `allocator()`); the right operand lives on the same backend.
macro_rules! matmul_methods {
    ($($Self:ty, [$($bounds:tt)*];)*) => {$(
        impl<'v, T: GemmElement, const N: usize, $($bounds)* B: MatmulKernels, L: Layout, C: BoundsCheck> $Self {
            /// The matrix product `self x rhs` on all of rayon's threads (one thread without
            /// feature `rayon`); any layouts, no copies.
            ///
            /// ```
            /// use cnda::prelude::*;
            /// let a = Array::from_fn([2, 3], |[i, j]| (i * 3 + j) as f64);
            /// let p = a.matmul(&a.t());
            /// assert_eq!(p.as_slice(), &[5.0, 14.0, 14.0, 50.0]);
            /// ```
            ///
            /// # Panics
            ///
            /// When the inner dimensions differ; `try_matmul` returns the error.
            #[track_caller]
            pub fn matmul<S: AsOperand<T, N, B>>(&self, rhs: &S) -> Array<T, N, B>
            where
                Rank<N>: IsMatrix,
            {
                or_panic(self.try_matmul(rhs))
            }

            /// The matrix product `self x rhs`.
            ///
            /// # Errors
            ///
            /// `Error::ShapeMismatch` when `self.ncols() != rhs.nrows()`; `Error::Alloc`.
            pub fn try_matmul<S: AsOperand<T, N, B>>(&self, rhs: &S) -> Result<Array<T, N, B>>
            where
                Rank<N>: IsMatrix,
            {
                self.try_matmul_with(rhs, Par::default())
            }

            /// The matrix product with an explicit thread budget.
            ///
            /// # Panics
            ///
            /// When the inner dimensions differ, or the result cannot be allocated;
            /// `try_matmul_with` returns the error instead.
            #[track_caller]
            pub fn matmul_with<S: AsOperand<T, N, B>>(&self, rhs: &S, par: Par) -> Array<T, N, B>
            where
                Rank<N>: IsMatrix,
            {
                or_panic(self.try_matmul_with(rhs, par))
            }

            /// The matrix product with an explicit thread budget.
            ///
            /// # Errors
            ///
            /// `Error::ShapeMismatch` when the inner dimensions differ; `Error::Alloc`.
            pub fn try_matmul_with<S: AsOperand<T, N, B>>(&self, rhs: &S, par: Par) -> Result<Array<T, N, B>>
            where
                Rank<N>: IsMatrix,
            {
                let (a, b) = (matrix(self.desc()), matrix(rhs.operand_desc()));
                // SAFETY: both operands are borrowed shared for the call.
                unsafe { matmul("matmul", &self.allocator(), a, b, par) }
            }

            /// The matrix-vector product `self x x` (one thread: a vector product is memory-bound).
            ///
            /// # Panics
            ///
            /// When `x.len() != self.ncols()`; `try_matvec` returns the error.
            #[track_caller]
            pub fn matvec<S: AsOperand<T, 1, B>>(&self, x: &S) -> Array<T, 1, B>
            where
                Rank<N>: IsMatrix,
            {
                or_panic(self.try_matvec(x))
            }

            /// The matrix-vector product `self x x`.
            ///
            /// # Errors
            ///
            /// `Error::ShapeMismatch` when `x.len() != self.ncols()`; `Error::Alloc`.
            pub fn try_matvec<S: AsOperand<T, 1, B>>(&self, x: &S) -> Result<Array<T, 1, B>>
            where
                Rank<N>: IsMatrix,
            {
                let (a, x) = (matrix(self.desc()), column(x.operand_desc()));
                // SAFETY: both operands are borrowed shared for the call.
                unsafe { matmul::<B, T, 1, DefaultCheck>("matvec", &self.allocator(), a, x, Par::Seq) }
            }
        }
    )*};
}

matmul_methods! {
    View<'v, T, N, A, B, L, C>, [A: Access,];
    Array<T, N, B, L, C>, [];
}
