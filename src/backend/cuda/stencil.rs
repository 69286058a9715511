//! The constant-coefficient stencil kernel for `Cuda`: taps as flat offsets and weights in a
//! `#[repr(C)]` block, summed in tap order (`kernels/cuda/stencil.cu`).

use cudarc::driver::PushKernelArg;

use super::device::CudaDevice;
use super::dispatch::{kernel_desc, launch, launch_error, suffix, KernelTaps, MAX_TAPS, STENCIL};
use super::kernels::FAMILIES;
use super::Cuda;
use crate::element::Numeric;
use crate::error::{Error, Result};
use crate::kernel::Desc;
use crate::kernel::StencilKernels;

// SAFETY: writes every output point once with the taps summed in order.
unsafe impl StencilKernels for Cuda {
    unsafe fn linear<T: Numeric, const N: usize, const K: usize>(
        dev: &CudaDevice,
        out: Desc<Cuda, T, N>,
        input: Desc<Cuda, T, N>,
        taps: &[([isize; N], T); K],
    ) -> Result<()> {
        let t = suffix::<T>("stencil")?;
        if K > MAX_TAPS {
            return Err(Error::taps_limit("CUDA", K, MAX_TAPS));
        }
        let n = out.len();
        if n == 0 {
            return Ok(());
        }
        let mut kernel_taps = KernelTaps { delta: [0; MAX_TAPS], weight: [T::ZERO; MAX_TAPS], count: K as i32 };
        for (k, (offset, weight)) in taps.iter().enumerate() {
            kernel_taps.delta[k] = (0..N).map(|axis| offset[axis] as i64 * input.strides[axis] as i64).sum();
            kernel_taps.weight[k] = *weight;
        }
        let ((po, o), (pu, du)) = (kernel_desc(&out)?, kernel_desc(&input)?);
        let count = n as i64;
        launch!(dev, STENCIL, t, format!("cnda_stencil_{t}"), n, [&po, &o, &pu, &du, &kernel_taps, &count]);
        Ok(())
    }
}
