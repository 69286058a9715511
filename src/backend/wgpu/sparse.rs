//! The sparse kernel for `Wgpu`: `kernels/wgpu/sparse.wgsl`, one invocation per row.

use super::device::WgpuDevice;
use super::dispatch::{buffer, elem, params, run, words};
use super::shaders::family;
use super::Wgpu;
use crate::element::Float;
use crate::error::Result;
use crate::kernel::{Desc, SparseKernels};

// SAFETY: `spmv` writes `y[row]` once per row with the row's sum and reads only the operands'
// elements.
unsafe impl SparseKernels for Wgpu {
    unsafe fn spmv<T: Float>(
        dev: &WgpuDevice,
        offsets: Desc<Wgpu, i32, 1>,
        columns: Desc<Wgpu, i32, 1>,
        values: Desc<Wgpu, T, 1>,
        x: Desc<Wgpu, T, 1>,
        y: Desc<Wgpu, T, 1>,
    ) -> Result<()> {
        let t = elem::<T>(dev, "spmv")?;
        let rows = y.shape[0];
        if rows == 0 {
            return Ok(());
        }
        let p = params(rows, [words(&y)?, words(&offsets)?, words(&columns)?, words(&values)?, words(&x)?], &[])?;
        // SAFETY: the operands are live (the trait's contract); `y` is apart from the others.
        let (by, bo, bc, bv, bx) =
            unsafe { (buffer(&y), buffer(&offsets), buffer(&columns), buffer(&values), buffer(&x)) };
        run(dev, family("sparse"), t, "spmv", rows, &[(0, by), (1, bo), (2, bc), (4, bv), (6, bx)], &p)
    }
}
