//! A CSR matrix as the solvers' linear operator: on vectors, or on the arrays of a grid whose
//! points it numbers row-major (the matrix of a stencil acts where the stencil did).

use super::csr::CsrMatrix;
use crate::array::Array;
use crate::element::Float;
use crate::error::{or_panic, Error, Result};
use crate::kernel::{Desc, SparseKernels};
use crate::solve::LinearOperator;

impl<T: Float, B: SparseKernels> LinearOperator<T, 1, B> for CsrMatrix<T, B> {
    fn shape(&self) -> [usize; 1] {
        [self.shape()[0]]
    }

    fn try_apply(&self, x: &mut Array<T, 1, B>, y: &mut Array<T, 1, B>) -> Result<()> {
        self.try_spmv(x, y)
    }
}

/// A square [`CsrMatrix`] acting on arrays of a grid's shape, their elements numbered row-major
/// (as [`CsrMatrix::from_stencil`] numbers the unknowns): what the solvers take.
///
/// ```
/// use cnda::prelude::*;
/// use cnda::solve::{Cg, StencilOperator};
/// use cnda::sparse::CsrMatrix;
/// use cnda::stencil::{Boundary, LinearStencil};
/// let op = StencilOperator::new(LinearStencil::laplacian_5pt(1.0), [12, 10], [Boundary::Value(0.0); 2]);
/// let matrix = CsrMatrix::from_stencil(&op);
/// let b = Array::<f64, 2>::ones([12, 10]);
/// let (mut x, mut y) = (Array::zeros([12, 10]), Array::zeros([12, 10]));
/// Cg::new().rtol(1e-12).solve(&matrix.on_grid([12, 10]), &b, &mut x);
/// Cg::new().rtol(1e-12).solve(&op, &b, &mut y);
/// assert!(x.iter().zip(y.iter()).all(|(p, q)| (p - q).abs() < 1e-9));
/// ```
#[derive(Debug)]
pub struct GridOperator<'a, T: Float, const N: usize, B: SparseKernels> {
    matrix: &'a CsrMatrix<T, B>,
    shape: [usize; N],
}

impl<T: Float, B: SparseKernels> CsrMatrix<T, B> {
    /// This matrix acting on arrays of `shape`.
    ///
    /// # Panics
    ///
    /// As [`CsrMatrix::try_on_grid`] errs.
    #[track_caller]
    pub fn on_grid<const N: usize>(&self, shape: [usize; N]) -> GridOperator<'_, T, N, B> {
        or_panic(self.try_on_grid(shape))
    }

    /// [`CsrMatrix::on_grid`], returning errors.
    ///
    /// # Errors
    ///
    /// `Error::ShapeMismatch` unless the matrix is square with as many rows as `shape` has
    /// points.
    pub fn try_on_grid<const N: usize>(&self, shape: [usize; N]) -> Result<GridOperator<'_, T, N, B>> {
        let points = shape.iter().try_fold(1usize, |n, &k| n.checked_mul(k));
        let [rows, cols] = self.shape();
        if rows != cols || points != Some(rows) {
            return Err(Error::ShapeMismatch {
                op: "CsrMatrix::on_grid",
                expected: vec![rows, cols],
                got: vec![points.unwrap_or(usize::MAX); 2],
            });
        }
        Ok(GridOperator { matrix: self, shape })
    }
}

impl<T: Float, const N: usize, B: SparseKernels> LinearOperator<T, N, B> for GridOperator<'_, T, N, B> {
    fn shape(&self) -> [usize; N] {
        self.shape
    }

    fn try_apply(&self, x: &mut Array<T, N, B>, y: &mut Array<T, N, B>) -> Result<()> {
        try_spmv_on_grid(self.matrix, "GridOperator::apply", self.shape, x, y)
    }
}

/// `y = A x` on arrays of `shape` (checked), their elements numbered row-major as the matrix
/// numbers its rows and columns.
pub(super) fn try_spmv_on_grid<T: Float, const N: usize, B: SparseKernels>(
    matrix: &CsrMatrix<T, B>,
    op: &'static str,
    shape: [usize; N],
    x: &mut Array<T, N, B>,
    y: &mut Array<T, N, B>,
) -> Result<()> {
    for a in [x.shape(), y.shape()] {
        if a != shape {
            return Err(Error::ShapeMismatch { op, expected: shape.to_vec(), got: a.to_vec() });
        }
    }
    let flat = |d: Desc<B, T, N>| Desc { handle: d.handle, shape: [d.len()], strides: [1] };
    // SAFETY: `x` and `y` are distinct arrays (`y` uniquely borrowed), live, of the grid's
    // shape, and an owned array is one dense row-major block: its flat view addresses the
    // same elements in the order the matrix numbers them.
    unsafe { matrix.spmv_descs(op, flat(x.desc()), flat(y.desc_mut())) }
}
