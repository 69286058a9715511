//! The copy kernels for `Wgpu`: strided copies (the queue's buffer copy for dense blocks) and
//! fills. A copy between two views of one buffer is staged through a temporary, since WebGPU
//! cannot bind one buffer for reading and writing in one dispatch.

use super::device::WgpuDevice;
use super::dispatch::{buffer, elem, params, run, same_buffer, try_2d, words};
use super::shaders::family;
use super::{Wgpu, WgpuBuffer};
use crate::element::Pod;
use crate::error::Result;
use crate::kernel::CopyKernels;
use crate::kernel::Desc;

/// A row-major copy of `src` in a new buffer, for an operand that shares a buffer with the
/// destination.
///
/// # Safety
///
/// `src` is live.
pub(super) unsafe fn staged<T: Pod, const N: usize>(
    dev: &WgpuDevice,
    src: Desc<Wgpu, T, N>,
) -> Result<(WgpuBuffer<T>, Desc<Wgpu, T, N>)> {
    let temp = WgpuBuffer::<T>::allocate(*dev, "staging", src.len())?;
    let desc = Desc { handle: temp.handle(0), shape: src.shape, strides: crate::shape::row_major_strides(&src.shape) };
    // SAFETY: `temp` is a fresh buffer of exactly this shape; `src` is live (the caller's
    // contract) and in another buffer.
    unsafe { <Wgpu as CopyKernels>::copy(dev, desc, src) }?;
    Ok((temp, desc))
}

// SAFETY: writes every destination index once with the source's (or the fill) value.
unsafe impl CopyKernels for Wgpu {
    unsafe fn copy<T: Pod, const N: usize>(
        dev: &WgpuDevice,
        dst: Desc<Wgpu, T, N>,
        src: Desc<Wgpu, T, N>,
    ) -> Result<()> {
        let t = elem::<T>(dev, "copy")?;
        let n = dst.len();
        if n == 0 {
            return Ok(());
        }
        // SAFETY: `src` is live (the trait's contract).
        let staging = if same_buffer(&dst, &src) { Some(unsafe { staged(dev, src) }?) } else { None };
        let src = staging.as_ref().map_or(src, |(_, d)| *d);
        // SAFETY: as above; different buffers now.
        let (bd, bs) = unsafe { (buffer(&dst), buffer(&src)) };
        let size = core::mem::size_of::<T>() as u64;
        let (from, to) = (src.handle.offset as u64 * size, dst.handle.offset as u64 * size);
        if dst.is_contiguous() && src.is_contiguous() && [from, to, n as u64 * size].iter().all(|b| b % 4 == 0) {
            // One dense block to another: the queue's own buffer copy (which needs 4-byte
            // aligned offsets and size: f16 blocks at odd offsets take the kernel below).
            return dev.checked("copy", || {
                let mut encoder = dev.device().create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
                encoder.copy_buffer_to_buffer(bs, from, bd, to, n as u64 * size);
                dev.queue().submit([encoder.finish()]);
            });
        }
        if try_2d(dev, family("copy"), t, "copy_2d", [&dst, &src], (&[], &[]), &[(0, bd), (1, bs)])? {
            return Ok(());
        }
        let p = params(n, [words(&dst)?, words(&src)?], &[])?;
        run(dev, family("copy"), t, "copy", n, &[(0, bd), (1, bs)], &p)
    }

    unsafe fn fill<T: Pod, const N: usize>(dev: &WgpuDevice, dst: Desc<Wgpu, T, N>, value: T) -> Result<()> {
        let t = elem::<T>(dev, "fill")?;
        let n = dst.len();
        if n == 0 {
            return Ok(());
        }
        let p = params(n, [words(&dst)?], &[])?.with(&[value]);
        // SAFETY: `dst` is live (the trait's contract).
        let bd = unsafe { buffer(&dst) };
        run(dev, family("copy"), t, "fill", n, &[(0, bd)], &p)
    }
}
