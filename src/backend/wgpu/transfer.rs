//! Host-device copies for WebGPU: the two bulk copies the generic transfers
//! (`backend/transfer.rs`: `to_device`, `to_host`, `to_backend`) need.

use super::launch::read_back;
use super::{Wgpu, WgpuBuffer};
use crate::array::Array;
use crate::backend::transfer::{Download, WriteFromHost};
use crate::element::Pod;
use crate::error::Result;
use crate::ops::desc::Desc;

// SAFETY: `write_buffer` queues the copy of all of `data` (staged by wgpu, so `data` is free
// when it returns) before any later submission.
unsafe impl WriteFromHost for Wgpu {
    unsafe fn try_write_from_host<T: Pod>(buf: &mut WgpuBuffer<T>, data: &[T]) -> Result<()> {
        let bytes: &[u8] = bytemuck::cast_slice(data);
        if bytes.is_empty() {
            return Ok(());
        }
        // WebGPU copies whole 4-byte words: pad the tail.
        let mut padded;
        let words = if bytes.len() % 4 == 0 {
            bytes
        } else {
            padded = bytes.to_vec();
            padded.resize(bytes.len().next_multiple_of(4), 0);
            &padded
        };
        let dev = buf.device();
        dev.checked("to_device", || dev.queue().write_buffer(buf.raw(), 0, words))
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
