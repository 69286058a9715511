//! The copy kernels for `Cuda`: strided copies (cuMemcpy for dense blocks) and fills.

use cudarc::driver::PushKernelArg;

use super::device::CudaDevice;
use super::dispatch::{all_contiguous, kernel_desc, launch, launch_error, suffix, Scalar, COPY};
use super::kernels::FAMILIES;
use super::Cuda;
use crate::element::Pod;
use crate::error::Result;
use crate::kernel::CopyKernels;
use crate::kernel::Desc;

// SAFETY: writes every destination index once with the source's (or the fill) value.
unsafe impl CopyKernels for Cuda {
    unsafe fn copy<T: Pod, const N: usize>(
        dev: &CudaDevice,
        dst: Desc<Cuda, T, N>,
        src: Desc<Cuda, T, N>,
    ) -> Result<()> {
        let t = suffix::<T>("copy")?;
        let n = dst.len();
        if n == 0 {
            return Ok(());
        }
        let count = n as i64;
        if all_contiguous(&[&dst, &src]) {
            let (pd, ps) = (dst.handle.addr, src.handle.addr);
            launch!(dev, COPY, t, format!("cnda_copy_{t}_contig"), n, [&pd, &ps, &count]);
            return Ok(());
        }
        if N == 2
            && dst.is_contiguous()
            && src.strides[0].unsigned_abs() < src.strides[1].unsigned_abs()
            && src.strides[0] != 0
        {
            // A transposed matrix into a row-major one: through shared tiles, both sides coalesced.
            let (rows, cols) = (dst.shape[0] as i64, dst.shape[1] as i64);
            let (pd, ps) = (dst.handle.addr, src.handle.addr);
            let (ld, sr, sc) = (cols, src.strides[0] as i64, src.strides[1] as i64);
            let name = format!("cnda_transpose_{t}");
            let function = dev.function(&FAMILIES[COPY], t, &name)?;
            #[cfg(feature = "tracing")]
            tracing::trace!(target: "cnda::cuda", kernel = name, items = n, device = dev.ordinal(), "launch");
            let mut builder = dev.stream().launch_builder(&function);
            builder.arg(&pd).arg(&ld).arg(&ps).arg(&sr).arg(&sc).arg(&rows).arg(&cols);
            let config = cudarc::driver::LaunchConfig {
                grid_dim: ((cols as u32).div_ceil(32), (rows as u32).div_ceil(32), 1),
                block_dim: (32, 8, 1),
                shared_mem_bytes: 0,
            };
            // SAFETY: the arguments match `cnda_transpose_<t>`; the tiles stay inside rows x
            // cols, every element of which both descriptors address (the trait's contract).
            unsafe { builder.launch(config) }.map_err(launch_error(&name))?;
            return Ok(());
        }
        let ((pd, d), (ps, s)) = (kernel_desc(&dst)?, kernel_desc(&src)?);
        launch!(dev, COPY, t, format!("cnda_copy_{t}"), n, [&pd, &d, &ps, &s, &count]);
        Ok(())
    }

    unsafe fn fill<T: Pod, const N: usize>(dev: &CudaDevice, dst: Desc<Cuda, T, N>, value: T) -> Result<()> {
        let t = suffix::<T>("fill")?;
        let n = dst.len();
        if n == 0 {
            return Ok(());
        }
        let count = n as i64;
        let (pd, d) = kernel_desc(&dst)?;
        let value = Scalar(value);
        launch!(dev, COPY, t, format!("cnda_fill_{t}"), n, [&pd, &d, &value, &count]);
        Ok(())
    }
}
