//! The constant-coefficient stencil kernel for `Wgpu`: taps as flat offsets and weights in the
//! parameter block, summed in tap order (`kernels/wgpu/stencil.wgsl`).

use super::device::{device_error, WgpuDevice};
use super::dispatch::{buffer, elem, params, run, same_buffer, to_i32, try_2d, words, MAX_TAPS};
use super::shaders::family;
use super::Wgpu;
use crate::element::Numeric;
use crate::error::{Error, Result};
use crate::kernel::Desc;
use crate::kernel::StencilKernels;

// SAFETY: writes every output point once with the taps summed in order.
unsafe impl StencilKernels for Wgpu {
    unsafe fn linear<T: Numeric, const N: usize, const K: usize>(
        dev: &WgpuDevice,
        out: Desc<Wgpu, T, N>,
        input: Desc<Wgpu, T, N>,
        taps: &[([isize; N], T); K],
    ) -> Result<()> {
        let t = elem::<T>(dev, "stencil")?;
        if K > MAX_TAPS {
            return Err(Error::taps_limit("WebGPU", K, MAX_TAPS));
        }
        let n = out.len();
        if n == 0 {
            return Ok(());
        }
        let mut scalars = vec![0i32; 1 + MAX_TAPS];
        scalars[0] = K as i32;
        let mut weights = vec![T::ZERO; K];
        for (k, (offset, weight)) in taps.iter().enumerate() {
            let delta: isize = (0..N).map(|axis| offset[axis] * input.strides[axis]).sum();
            scalars[1 + k] = to_i32("a tap offset", delta)?;
            weights[k] = *weight;
        }
        if same_buffer(&out, &input) {
            // The taps reach past the input region, so no staged copy of it would do.
            return Err(device_error(
                "a stencil's input and output are views of one buffer; WebGPU cannot bind it for reading and writing at once: apply it between two arrays".into(),
            ));
        }
        // SAFETY: the operands are live and in different buffers.
        let (bo, bi) = unsafe { (buffer(&out), buffer(&input)) };
        if try_2d(dev, family("stencil"), t, "stencil_2d", [&out, &input], (&scalars, &weights), &[(0, bo), (1, bi)])? {
            return Ok(());
        }
        let p = params(n, [words(&out)?, words(&input)?], &scalars)?.with(&weights);
        run(dev, family("stencil"), t, "stencil", n, &[(0, bo), (1, bi)], &p)
    }
}
