//! Sparse matrices: [`CsrMatrix`], compressed sparse row storage with 32-bit indices (SciPy's
//! `csr_matrix` layout) on any backend, built from parts, from triplets, from a stencil operator
//! with its boundaries ([`CsrMatrix::from_stencil`]) or from a Matrix Market file, multiplied
//! with dense vectors by the backend's `spmv` kernel (`kernel::SparseKernels`), and usable as the
//! solvers' operator (on vectors, on a grid's arrays through [`CsrMatrix::on_grid`], or on a
//! distributed grid through `DistOperator::csr`, each process multiplying its block's rows).
//!
//! A stencil operator never needs its matrix to be solved (the solvers apply it directly, with
//! less memory traffic); the matrix is for what a stencil cannot say (unstructured couplings,
//! a matrix from elsewhere), for other libraries (SciPy, PETSc, Matrix Market files), and for
//! checking a stencil against its assembled form.

mod assemble;
mod csr;
#[cfg(feature = "mpi")]
mod dist;
mod market;
mod operator;

pub use csr::CsrMatrix;
#[cfg(feature = "mpi")]
pub use dist::BlockOperator;
pub use operator::GridOperator;
