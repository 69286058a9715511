//! Host-device copies for WebGPU: the two bulk copies the generic transfers
//! (`backend/transfer.rs`: `to_device`, `to_host`) need.

use super::launch::read_back;
use super::{Wgpu, WgpuDevice};
use crate::array::Array;
use crate::backend::transfer::{Download, Upload};
use crate::backend::Allocator;
use crate::element::Pod;
use crate::error::Result;
use crate::ops::desc::Desc;

impl Upload for WgpuDevice {
    type Target = Wgpu;

    fn try_upload<T: Pod, const N: usize>(&self, data: &[T], shape: [usize; N]) -> Result<Array<T, N, Wgpu>> {
        // SAFETY: the write below fills every element before anything can read one.
        let buffer = unsafe { self.try_alloc_for_overwrite::<T>("to_device", data.len()) }?;
        let bytes: &[u8] = bytemuck::cast_slice(data);
        if !bytes.is_empty() {
            // WebGPU copies whole 4-byte words: pad the tail.
            let mut padded;
            let words = if bytes.len() % 4 == 0 {
                bytes
            } else {
                padded = bytes.to_vec();
                padded.resize(bytes.len().next_multiple_of(4), 0);
                &padded
            };
            self.checked("to_device", || self.queue().write_buffer(buffer.raw(), 0, words))?;
        }
        Ok(Array::<T, N, Wgpu>::from_buffer_in(buffer, shape))
    }
}

impl Download for Wgpu {
    unsafe fn try_download<T: Pod, const N: usize>(desc: Desc<Wgpu, T, N>) -> Result<Array<T, N>> {
        let mut host = Array::<T, N>::try_zeros(desc.shape)?;
        if !host.is_empty() {
            let offset = usize::try_from(desc.handle.offset).expect("a live operand's offset is inside its buffer");
            // SAFETY: the caller's contract: the operand, and so its buffer, is live.
            let buffer = unsafe { &*desc.handle.buffer };
            let data = read_back::<T>(&desc.handle.device, buffer, offset, host.len())?;
            host.as_mut_slice().copy_from_slice(&data);
        }
        Ok(host)
    }
}
