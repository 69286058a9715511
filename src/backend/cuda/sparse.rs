//! The sparse kernel for `Cuda`: `kernels/cuda/sparse.cu`, one thread per row.

use cudarc::driver::PushKernelArg;

use super::device::CudaDevice;
use super::dispatch::{launch, launch_error, suffix, SPARSE};
use super::kernels::FAMILIES;
use super::Cuda;
use crate::element::Float;
use crate::error::{Error, Result};
use crate::kernel::{Desc, SparseKernels};

// SAFETY: `cnda_spmv_<t>` writes `y[row]` once per row with the row's sum and reads only the
// operands' elements.
unsafe impl SparseKernels for Cuda {
    unsafe fn spmv<T: Float>(
        dev: &CudaDevice,
        offsets: Desc<Cuda, i32, 1>,
        columns: Desc<Cuda, i32, 1>,
        values: Desc<Cuda, T, 1>,
        x: Desc<Cuda, T, 1>,
        y: Desc<Cuda, T, 1>,
    ) -> Result<()> {
        let t = suffix::<T>("spmv")?;
        if !matches!(t, "f32" | "f64") {
            return Err(Error::NoKernel { op: "spmv", backend: "Cuda", reason: "sparse kernels take f32 and f64" });
        }
        let rows = y.shape[0];
        if rows == 0 {
            return Ok(());
        }
        let count = rows as i64;
        let (py, po, pc, pv, px) =
            (y.handle.addr, offsets.handle.addr, columns.handle.addr, values.handle.addr, x.handle.addr);
        launch!(dev, SPARSE, t, format!("cnda_spmv_{t}"), rows, [&py, &po, &pc, &pv, &px, &count]);
        Ok(())
    }
}
