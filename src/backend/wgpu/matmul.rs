//! The matmul kernel for `Wgpu`: 16 x 16 output tiles of `kernels/wgpu/matmul.wgsl`, real and
//! complex.

use super::device::{device_error, WgpuDevice};
use super::dispatch::{buffer, elem, params, to_i32, words};
use super::shaders::family;
use super::Wgpu;
use crate::error::Result;
use crate::kernel::Desc;
use crate::kernel::{GemmElement, MatmulKernels, Par};

// SAFETY: writes every element of the dense output once with the product.
unsafe impl MatmulKernels for Wgpu {
    unsafe fn gemm<T: GemmElement>(
        dev: &WgpuDevice,
        out: Desc<Wgpu, T, 2>,
        a: Desc<Wgpu, T, 2>,
        b: Desc<Wgpu, T, 2>,
        _: Par,
    ) -> Result<()> {
        let t = elem::<T>(dev, "matmul")?;
        let [m, n] = out.shape;
        let k = a.shape[1];
        if m == 0 || n == 0 {
            return Ok(());
        }
        let (gx, gy) = (n.div_ceil(16), m.div_ceil(16));
        if gx > 65_535 || gy > 65_535 {
            return Err(device_error(format!("a {m} x {n} product exceeds one dispatch; split it")));
        }
        let p =
            params(0, [words(&out)?, words(&a)?, words(&b)?], &[to_i32("m", m)?, to_i32("n", n)?, to_i32("k", k)?])?;
        let pipeline = dev.pipeline(family("matmul"), t, "matmul")?;
        // SAFETY: the operands are live (the trait's contract); `out` is a fresh buffer.
        let (bo, ba, bb) = unsafe { (buffer(&out), buffer(&a), buffer(&b)) };
        dev.dispatch("matmul", &pipeline, &[(0, bo), (1, ba), (2, bb)], &p, (gx as u32, gy as u32))
    }
}
