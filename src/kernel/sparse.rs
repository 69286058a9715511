//! The sparse kernel family: the product of a matrix in compressed sparse row (CSR) form with a
//! dense vector.

use super::backend::Backend;
use super::Desc;
use crate::element::Float;
use crate::error::Result;

/// The sparse-matrix kernels a backend provides (`crate::sparse`).
///
/// # Safety
///
/// `spmv` writes `y[i] = Σ values[j] x[columns[j]]` over `j` in `offsets[i]..offsets[i + 1]`
/// (zero for an empty row) for every row `i`, touches no other memory, and returns only after the
/// writes are visible to the next operation on the same device (or ordered before it on its
/// stream).
pub unsafe trait SparseKernels: Backend {
    /// `y = A x` for the CSR matrix (`offsets`, `columns`, `values`) of `y.len()` rows, in any
    /// order of each row's sum.
    ///
    /// # Safety
    ///
    /// Every operand is dense (stride 1) and addresses live memory on `dev`; `offsets` has
    /// `y.len() + 1` elements, starts at 0, never decreases and ends at the length of `columns`
    /// and of `values`; every column index lies in `0..x.len()`; `y` is writable and overlaps
    /// none of the others.
    ///
    /// # Errors
    ///
    /// `Error::Device` when a device fails to run the kernel; `Error::NoKernel` for an element
    /// type the device has no kernel for.
    unsafe fn spmv<T: Float>(
        dev: &Self::Device,
        offsets: Desc<Self, i32, 1>,
        columns: Desc<Self, i32, 1>,
        values: Desc<Self, T, 1>,
        x: Desc<Self, T, 1>,
        y: Desc<Self, T, 1>,
    ) -> Result<()>;
}
