//! The CPU's sparse kernel: a CSR matrix times a dense vector, row by row, each row's sum in
//! order of its stored entries.

use crate::element::Float;
use crate::error::Result;
use crate::kernel::{Cpu, Desc, SparseKernels};

// SAFETY: writes `y[i]` once per row with the row's sum, reads only the operands' elements.
unsafe impl SparseKernels for Cpu {
    unsafe fn spmv<T: Float>(
        _: &Cpu,
        offsets: Desc<Cpu, i32, 1>,
        columns: Desc<Cpu, i32, 1>,
        values: Desc<Cpu, T, 1>,
        x: Desc<Cpu, T, 1>,
        y: Desc<Cpu, T, 1>,
    ) -> Result<()> {
        // SAFETY: the trait's contract: every operand is dense and live, `y` writable and apart
        // from the others, so these slices alias nothing another reference holds.
        let (offsets, columns, values, x, y) = unsafe {
            (
                core::slice::from_raw_parts(offsets.handle, offsets.shape[0]),
                core::slice::from_raw_parts(columns.handle, columns.shape[0]),
                core::slice::from_raw_parts(values.handle, values.shape[0]),
                core::slice::from_raw_parts(x.handle, x.shape[0]),
                core::slice::from_raw_parts_mut(y.handle, y.shape[0]),
            )
        };
        for (row, out) in y.iter_mut().enumerate() {
            // The contract bounds every offset and column; a slice index still checks them.
            let entries = offsets[row] as usize..offsets[row + 1] as usize;
            *out = columns[entries.clone()]
                .iter()
                .zip(&values[entries])
                .fold(T::ZERO, |sum, (&c, &v)| sum + v * x[c as usize]);
        }
        Ok(())
    }
}
