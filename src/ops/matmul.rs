//! Matrix products through the `gemm` crate (AVX-512 kernels enabled by its `x86-v4` feature,
//! picked at run time). `gemm` takes arbitrary row and column strides, so transposed, sliced or
//! flipped views are multiplied in place, never copied first.

use crate::array::Array;
use crate::backend::HostAccessible;
use crate::check::BoundsCheck;
use crate::element::Numeric;
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::rank::{IsMatrix, Rank};
use crate::view::ops_shared::or_panic;
use crate::view::{ArrayView, AsView};

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
}

/// Element types with a `gemm` kernel: `f32` and `f64`.
pub trait GemmElement: Numeric + sealed::Sealed {}
impl GemmElement for f32 {}
impl GemmElement for f64 {}

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

impl Par {
    fn gemm(self) -> gemm::Parallelism {
        match self {
            Par::Seq => gemm::Parallelism::None,
            #[cfg(feature = "rayon")]
            Par::Rayon(n) => gemm::Parallelism::Rayon(n),
            #[cfg(not(feature = "rayon"))]
            Par::Rayon(_) => gemm::Parallelism::None,
        }
    }
}

/// `dst (m x n, row-major) = lhs (m x k) * rhs (k x n)` for strided operands.
///
/// # Safety
///
/// Every `lhs[i * lrs + p * lcs]` and `rhs[p * rrs + j * rcs]` for in-range i, p, j is readable;
/// `dst` holds `m * n` writable elements and overlaps neither.
#[allow(clippy::too_many_arguments)]
unsafe fn gemm_into<T: GemmElement>(
    (m, n, k): (usize, usize, usize),
    dst: *mut T,
    lhs: *const T,
    (lrs, lcs): (isize, isize),
    rhs: *const T,
    (rrs, rcs): (isize, isize),
    par: Par,
) {
    if m == 0 || n == 0 || k == 0 {
        return; // `dst` is already zero.
    }
    // SAFETY: the caller's contract; `read_dst = false` makes gemm write `dst = 1 * lhs * rhs`.
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            dst,
            1,
            n as isize,
            false,
            lhs,
            lcs,
            lrs,
            rhs,
            rcs,
            rrs,
            T::ZERO,
            T::ONE,
            false,
            false,
            false,
            par.gemm(),
        )
    };
}

impl<T: GemmElement, const N: usize, L: Layout, C: BoundsCheck> ArrayView<'_, T, N, L, C> {
    /// The matrix product `self x rhs` on all of rayon's threads (one thread without feature
    /// `rayon`); any layouts, no copies.
    ///
    /// # Panics
    ///
    /// When the inner dimensions differ; [`ArrayView::try_matmul`] returns the error.
    #[track_caller]
    pub fn matmul<S: AsView<T, N>>(&self, rhs: &S) -> Array<T, N>
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
    pub fn try_matmul<S: AsView<T, N>>(&self, rhs: &S) -> Result<Array<T, N>>
    where
        Rank<N>: IsMatrix,
    {
        self.try_matmul_with(rhs, Par::default())
    }

    /// The matrix product with an explicit thread budget.
    ///
    /// # Panics
    ///
    /// When the inner dimensions differ, or the result cannot be allocated; [`ArrayView::try_matmul_with`] returns the error instead.
    #[track_caller]
    pub fn matmul_with<S: AsView<T, N>>(&self, rhs: &S, par: Par) -> Array<T, N>
    where
        Rank<N>: IsMatrix,
    {
        or_panic(self.try_matmul_with(rhs, par))
    }

    /// The matrix product with an explicit thread budget.
    ///
    /// # Errors
    ///
    /// As for [`ArrayView::try_matmul`].
    pub fn try_matmul_with<S: AsView<T, N>>(&self, rhs: &S, par: Par) -> Result<Array<T, N>>
    where
        Rank<N>: IsMatrix,
    {
        let rhs = rhs.as_view();
        let ([m, k], [k2, n]) = (dims(self.shape()), dims(rhs.shape()));
        if k != k2 {
            return Err(Error::ShapeMismatch { op: "matmul", expected: vec![k, n], got: vec![k2, n] });
        }
        let mut shape = [0; N];
        shape[0] = m;
        shape[1] = n;
        let mut out = Array::<T, N>::try_zeros(shape)?;
        let (ls, rs) = (dims_i(self.strides()), dims_i(rhs.strides()));
        // SAFETY: both views cover their m x k / k x n elements; `out` is fresh with m * n.
        unsafe {
            gemm_into(
                (m, n, k),
                out.as_mut_slice().as_mut_ptr(),
                self.raw.ptr,
                (ls[0], ls[1]),
                rhs.raw.ptr,
                (rs[0], rs[1]),
                par,
            )
        };
        Ok(out)
    }

    /// The matrix-vector product `self x x`.
    ///
    /// # Panics
    ///
    /// When `x.len() != self.ncols()`, or the result cannot be allocated; [`ArrayView::try_matvec`] returns the error instead.
    #[track_caller]
    pub fn matvec<S: AsView<T, 1>>(&self, x: &S) -> Array<T, 1>
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
    pub fn try_matvec<S: AsView<T, 1>>(&self, x: &S) -> Result<Array<T, 1>>
    where
        Rank<N>: IsMatrix,
    {
        let x = x.as_view();
        let [m, k] = dims(self.shape());
        if x.len() != k {
            return Err(Error::ShapeMismatch { op: "matvec", expected: vec![k], got: x.shape().to_vec() });
        }
        let mut out = Array::<T, 1>::try_zeros([m])?;
        let ls = dims_i(self.strides());
        // SAFETY: `x` is a k x 1 matrix with row stride `x.strides()[0]`; `out` holds m elements.
        unsafe {
            gemm_into(
                (m, 1, k),
                out.as_mut_slice().as_mut_ptr(),
                self.raw.ptr,
                (ls[0], ls[1]),
                x.raw.ptr,
                (x.strides()[0], 1),
                Par::Seq,
            )
        };
        Ok(out)
    }
}

fn dims<const N: usize>(shape: [usize; N]) -> [usize; 2] {
    [shape[0], shape[1]]
}

fn dims_i<const N: usize>(strides: [isize; N]) -> [isize; 2] {
    [strides[0], strides[1]]
}

impl<T: GemmElement, const N: usize, B: HostAccessible, L: Layout, C: BoundsCheck> Array<T, N, B, L, C> {
    /// See [`ArrayView::matmul`].
    #[track_caller]
    pub fn matmul<S: AsView<T, N>>(&self, rhs: &S) -> Array<T, N>
    where
        Rank<N>: IsMatrix,
    {
        self.view().matmul(rhs)
    }

    /// See [`ArrayView::try_matmul`].
    ///
    /// # Errors
    ///
    /// As for [`ArrayView::try_matmul`].
    pub fn try_matmul<S: AsView<T, N>>(&self, rhs: &S) -> Result<Array<T, N>>
    where
        Rank<N>: IsMatrix,
    {
        self.view().try_matmul(rhs)
    }

    /// See [`ArrayView::matmul_with`].
    ///
    /// # Panics
    ///
    /// When the inner dimensions differ, or the result cannot be allocated; [`ArrayView::try_matmul_with`] returns the error instead.
    #[track_caller]
    pub fn matmul_with<S: AsView<T, N>>(&self, rhs: &S, par: Par) -> Array<T, N>
    where
        Rank<N>: IsMatrix,
    {
        or_panic(self.try_matmul_with(rhs, par))
    }

    /// See [`ArrayView::matmul_with`].
    ///
    /// # Errors
    ///
    /// As for [`ArrayView::try_matmul`].
    pub fn try_matmul_with<S: AsView<T, N>>(&self, rhs: &S, par: Par) -> Result<Array<T, N>>
    where
        Rank<N>: IsMatrix,
    {
        self.view().try_matmul_with(rhs, par)
    }

    /// See [`ArrayView::matvec`].
    ///
    /// # Panics
    ///
    /// When `x.len() != self.ncols()`, or the result cannot be allocated; [`ArrayView::try_matvec`] returns the error instead.
    #[track_caller]
    pub fn matvec<S: AsView<T, 1>>(&self, x: &S) -> Array<T, 1>
    where
        Rank<N>: IsMatrix,
    {
        or_panic(self.try_matvec(x))
    }

    /// See [`ArrayView::matvec`].
    ///
    /// # Errors
    ///
    /// As for [`ArrayView::matvec`].
    pub fn try_matvec<S: AsView<T, 1>>(&self, x: &S) -> Result<Array<T, 1>>
    where
        Rank<N>: IsMatrix,
    {
        self.view().try_matvec(x)
    }
}
