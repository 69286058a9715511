//! The copy kernels for `Wgpu`: strided copies (the queue's buffer copy for dense blocks) and
//! fills; complex elements as their real and imaginary parts, each a strided array of the float
//! type. A copy between two views of one buffer is staged through a temporary, since WebGPU
//! cannot bind one buffer for reading and writing in one dispatch.

use super::device::WgpuDevice;
use super::dispatch::{buffer, elem, params, run, same_buffer, try_2d, words};
use super::shaders::family;
use super::{Wgpu, WgpuBuffer};
use crate::element::{complex_part_size, Pod};
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

/// The real and imaginary parts of the complex elements `d` describes, as descriptors of their
/// float type `F` (every stride doubled, the imaginary part one `F` further).
pub(crate) fn parts<F: Pod, T: Pod, const N: usize>(d: Desc<Wgpu, T, N>) -> [Desc<Wgpu, F, N>; 2] {
    crate::kernel::complex_parts(d)
}

/// A copy of complex elements of parts `F`: one dense copy when both sides are dense, else part
/// by part.
///
/// # Safety
///
/// As [`CopyKernels::copy`].
unsafe fn copy_complex<F: Pod, T: Pod, const N: usize>(
    dev: &WgpuDevice,
    dst: Desc<Wgpu, T, N>,
    src: Desc<Wgpu, T, N>,
) -> Result<()> {
    let ([dr, di], [sr, si]) = (parts::<F, T, N>(dst), parts::<F, T, N>(src));
    if dst.is_contiguous() && src.is_contiguous() && dst.shape == src.shape {
        let dense = |d: Desc<Wgpu, F, N>| Desc { handle: d.handle, shape: [2 * dst.len()], strides: [1isize] };
        // SAFETY: the same memory, `2 len` floats one after the other on each side.
        return unsafe { <Wgpu as CopyKernels>::copy(dev, dense(dr), dense(sr)) };
    }
    // SAFETY: each part addresses the floats of the caller's elements.
    unsafe { <Wgpu as CopyKernels>::copy(dev, dr, sr) }?;
    // SAFETY: as above.
    unsafe { <Wgpu as CopyKernels>::copy(dev, di, si) }
}

// SAFETY: writes every destination index once with the source's (or the fill) value.
unsafe impl CopyKernels for Wgpu {
    unsafe fn copy<T: Pod, const N: usize>(
        dev: &WgpuDevice,
        dst: Desc<Wgpu, T, N>,
        src: Desc<Wgpu, T, N>,
    ) -> Result<()> {
        match complex_part_size::<T>() {
            // SAFETY: the caller's contract, passed on.
            Some(4) => return unsafe { copy_complex::<f32, T, N>(dev, dst, src) },
            // SAFETY: as above.
            Some(_) => return unsafe { copy_complex::<f64, T, N>(dev, dst, src) },
            None => {}
        }
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
        if let Some(size) = complex_part_size::<T>() {
            let values: &[u8] = bytemuck::bytes_of(&value);
            let (re, im) = values.split_at(size);
            return if size == 4 {
                let [r, i] = parts::<f32, T, N>(dst);
                // SAFETY: each part addresses the floats of the caller's elements.
                unsafe { Self::fill(dev, r, bytemuck::pod_read_unaligned(re)) }
                    .and_then(|()| unsafe { Self::fill(dev, i, bytemuck::pod_read_unaligned(im)) })
            } else {
                let [r, i] = parts::<f64, T, N>(dst);
                // SAFETY: as above.
                unsafe { Self::fill(dev, r, bytemuck::pod_read_unaligned::<f64>(re)) }
                    .and_then(|()| unsafe { Self::fill(dev, i, bytemuck::pod_read_unaligned::<f64>(im)) })
            };
        }
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
