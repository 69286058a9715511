//! `dot`: the inner product of two vectors, and the matrix-matrix / matrix-vector product under
//! one name (NumPy's `dot` for ranks 1 and 2); `row(i)` / `column(j)` of matrices.

use crate::array::Array;
use crate::array::AsView;
use crate::check::BoundsCheck;
use crate::element::Arithmetic;
use crate::error::or_panic;
use crate::error::{Error, Result};
use crate::kernel::GemmElement;
use crate::kernel::{Backend, HostAccessible};
use crate::layout::{Layout, Strided};
use crate::rank::Rank;
use crate::view::{Access, ArrayView, ArrayViewMut, View};

mod sealed {
    pub trait Sealed {}
}

/// The right operand ranks of a matrix `dot`: `Rank<2>` (matrix product) and `Rank<1>`
/// (matrix-vector product). The result has the right operand's rank.
#[diagnostic::on_unimplemented(
    message = "a matrix can be multiplied only by a matrix or a vector, not a rank-{M} array",
    label = "the right operand of `dot` has rank {M}"
)]
pub trait MatrixOperand<T: GemmElement, const M: usize>: sealed::Sealed {
    /// `lhs x rhs`.
    ///
    /// # Errors
    ///
    /// `Error::ShapeMismatch` when the inner dimensions differ; `Error::Alloc`.
    fn product<C1: BoundsCheck, C2: BoundsCheck>(
        lhs: ArrayView<'_, T, 2, Strided, C1>,
        rhs: ArrayView<'_, T, M, Strided, C2>,
    ) -> Result<Array<T, M>>;
}

impl sealed::Sealed for Rank<1> {}
impl sealed::Sealed for Rank<2> {}

impl<T: GemmElement> MatrixOperand<T, 1> for Rank<1> {
    fn product<C1: BoundsCheck, C2: BoundsCheck>(
        lhs: ArrayView<'_, T, 2, Strided, C1>,
        rhs: ArrayView<'_, T, 1, Strided, C2>,
    ) -> Result<Array<T, 1>> {
        lhs.try_matvec(&rhs)
    }
}

impl<T: GemmElement> MatrixOperand<T, 2> for Rank<2> {
    fn product<C1: BoundsCheck, C2: BoundsCheck>(
        lhs: ArrayView<'_, T, 2, Strided, C1>,
        rhs: ArrayView<'_, T, 2, Strided, C2>,
    ) -> Result<Array<T, 2>> {
        lhs.try_matmul(&rhs)
    }
}

impl<T: Arithmetic, L: Layout, C: BoundsCheck> ArrayView<'_, T, 1, L, C> {
    /// The inner product `sum(self[k] * other[k])`, accumulated in order.
    ///
    /// # Panics
    ///
    /// When the lengths differ; [`ArrayView::try_dot`] returns the error instead.
    #[track_caller]
    pub fn dot<S: AsView<T, 1>>(&self, other: &S) -> T {
        or_panic(self.try_dot(other))
    }

    /// The inner product of two vectors (of complex ones without a conjugate, as NumPy's `dot`;
    /// `a.conj().dot(&b)` is NumPy's `vdot`).
    ///
    /// # Errors
    ///
    /// `Error::ShapeMismatch` when the lengths differ.
    pub fn try_dot<S: AsView<T, 1>>(&self, other: &S) -> Result<T> {
        let other = other.as_view();
        if other.shape() != self.shape() {
            return Err(Error::ShapeMismatch {
                op: "dot",
                expected: self.shape().to_vec(),
                got: other.shape().to_vec(),
            });
        }
        Ok(self.iter().zip(other.iter()).fold(T::ZERO, |acc, (&x, &y)| acc + x * y))
    }
}

impl<T: GemmElement, L: Layout, C: BoundsCheck> ArrayView<'_, T, 2, L, C> {
    /// The matrix product with a matrix (rank 2 result) or a vector (rank 1 result), through
    /// `gemm` with the operands' own strides.
    ///
    /// # Panics
    ///
    /// When the inner dimensions differ; [`ArrayView::try_dot`] returns the error instead.
    #[track_caller]
    pub fn dot<const M: usize, S: AsView<T, M>>(&self, rhs: &S) -> Array<T, M>
    where
        Rank<M>: MatrixOperand<T, M>,
    {
        or_panic(self.try_dot(rhs))
    }

    /// The matrix product with a matrix or a vector.
    ///
    /// # Errors
    ///
    /// `Error::ShapeMismatch` when the inner dimensions differ; `Error::Alloc`.
    pub fn try_dot<const M: usize, S: AsView<T, M>>(&self, rhs: &S) -> Result<Array<T, M>>
    where
        Rank<M>: MatrixOperand<T, M>,
    {
        <Rank<M> as MatrixOperand<T, M>>::product(self.into_strided(), rhs.as_view().into_strided())
    }
}

impl<T: Arithmetic, B: HostAccessible, L: Layout, C: BoundsCheck> Array<T, 1, B, L, C> {
    /// The inner product of two vectors; see [`ArrayView::dot`].
    ///
    /// ```
    /// use cnda::prelude::*;
    /// let a = Array::from_shape_vec([3], vec![1.0, 2.0, 3.0]).unwrap();
    /// assert_eq!(a.dot(&a), 14.0);
    /// ```
    #[track_caller]
    pub fn dot<S: AsView<T, 1>>(&self, other: &S) -> T {
        self.host_view().dot(other)
    }

    /// See [`ArrayView::try_dot`].
    ///
    /// # Errors
    ///
    /// `Error::ShapeMismatch` when the lengths differ.
    pub fn try_dot<S: AsView<T, 1>>(&self, other: &S) -> Result<T> {
        self.host_view().try_dot(other)
    }
}

impl<T: GemmElement, B: HostAccessible, L: Layout, C: BoundsCheck> Array<T, 2, B, L, C> {
    /// The matrix product with a matrix or a vector; see [`ArrayView::dot`].
    ///
    /// ```
    /// use cnda::prelude::*;
    /// let m = Array::from_shape_vec([2, 2], vec![1.0, 2.0, 3.0, 4.0]).unwrap();
    /// assert_eq!(m.dot(&Array::<f64, 1>::ones([2])).as_slice(), &[3.0, 7.0]);
    /// assert_eq!(m.dot(&Array::<f64, 2>::eye(2)), m);
    /// ```
    #[track_caller]
    pub fn dot<const M: usize, S: AsView<T, M>>(&self, rhs: &S) -> Array<T, M>
    where
        Rank<M>: MatrixOperand<T, M>,
    {
        self.host_view().dot(rhs)
    }

    /// See [`ArrayView::try_dot`].
    ///
    /// # Errors
    ///
    /// `Error::ShapeMismatch` when the inner dimensions differ; `Error::Alloc`.
    pub fn try_dot<const M: usize, S: AsView<T, M>>(&self, rhs: &S) -> Result<Array<T, M>>
    where
        Rank<M>: MatrixOperand<T, M>,
    {
        self.host_view().try_dot(rhs)
    }
}

impl<'a, T: crate::element::Pod, A: Access, B: Backend, L: Layout, C: BoundsCheck> View<'a, T, 2, A, B, L, C> {
    /// Row `i` of a matrix (shared or mutable, as this view is).
    ///
    /// # Panics
    ///
    /// When `i >= nrows()`; `try_index_axis(0, i)` returns the error instead.
    #[track_caller]
    pub fn row(self, i: usize) -> View<'a, T, 1, A, B, Strided, C> {
        self.index_axis(0, i)
    }

    /// Column `j` of a matrix (shared or mutable, as this view is).
    ///
    /// # Panics
    ///
    /// When `j >= ncols()`; `try_index_axis(1, j)` returns the error instead.
    #[track_caller]
    pub fn column(self, j: usize) -> View<'a, T, 1, A, B, Strided, C> {
        self.index_axis(1, j)
    }
}

impl<T: crate::element::Pod, B: HostAccessible, L: Layout, C: BoundsCheck> Array<T, 2, B, L, C> {
    /// Row `i`.
    ///
    /// ```
    /// use cnda::prelude::*;
    /// let mut m = Array::from_fn([2, 3], |[i, j]| 10 * i + j);
    /// assert_eq!(m.row(1).to_owned().as_slice(), &[10, 11, 12]);
    /// assert_eq!(m.column(2).to_owned().as_slice(), &[2, 12]);
    /// m.column_mut(0).fill(7);
    /// assert_eq!(m.as_slice(), &[7, 1, 2, 7, 11, 12]);
    /// ```
    ///
    /// # Panics
    ///
    /// When `i >= nrows()`.
    #[track_caller]
    pub fn row(&self, i: usize) -> ArrayView<'_, T, 1, Strided, C> {
        self.host_view().row(i)
    }

    /// Column `j`.
    ///
    /// # Panics
    ///
    /// When `j >= ncols()`.
    #[track_caller]
    pub fn column(&self, j: usize) -> ArrayView<'_, T, 1, Strided, C> {
        self.host_view().column(j)
    }

    /// Row `i`, mutably.
    ///
    /// # Panics
    ///
    /// When `i >= nrows()`.
    #[track_caller]
    pub fn row_mut(&mut self, i: usize) -> ArrayViewMut<'_, T, 1, Strided, C> {
        self.host_view_mut().row(i)
    }

    /// Column `j`, mutably.
    ///
    /// # Panics
    ///
    /// When `j >= ncols()`.
    #[track_caller]
    pub fn column_mut(&mut self, j: usize) -> ArrayViewMut<'_, T, 1, Strided, C> {
        self.host_view_mut().column(j)
    }
}
