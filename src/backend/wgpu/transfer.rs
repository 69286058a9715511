//! Host-device copies for WebGPU: the two bulk copies the generic transfers
//! (`ops/transfer.rs`: `to_device`, `to_host`, `to_backend`) need.

use std::sync::{Arc, Mutex};

use super::device::{device_error, WgpuDevice};
use super::{Wgpu, WgpuBuffer};
use crate::element::Pod;
use crate::error::Result;
use crate::kernel::{try_zeroed_vec, Desc, Download, HostStaging, WriteFromHost};

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

// SAFETY: `read_back` returns every element of the contiguous operand after the queued work.
unsafe impl Download for Wgpu {
    unsafe fn try_download_into<T: Pod, const N: usize>(desc: Desc<Wgpu, T, N>, dst: *mut T) -> Result<()> {
        let len = desc.len();
        if len > 0 {
            let offset = usize::try_from(desc.handle.offset).expect("a live operand's offset is inside its buffer");
            // SAFETY: the caller's contract: the operand, and so its buffer, is live.
            let buffer = unsafe { &*desc.handle.buffer };
            let data = read_back::<T>(&desc.handle.device, buffer, offset, len)?;
            // SAFETY: `dst` is valid for writes of `len` elements and overlaps nothing live (the
            // caller's contract); `data` holds `len` elements.
            unsafe { core::ptr::copy_nonoverlapping(data.as_ptr(), dst, len) };
        }
        Ok(())
    }
}

/// Reads `count` elements from element `offset` of `buffer` back to the host (waits).
pub(crate) fn read_back<T: Pod>(
    dev: &WgpuDevice,
    buffer: &wgpu::Buffer,
    offset: usize,
    count: usize,
) -> Result<Vec<T>> {
    let size = core::mem::size_of::<T>();
    let (start, bytes) = ((offset * size) as u64, (count * size) as u64);
    // WebGPU copies 4-byte aligned ranges: from the word holding the first byte (an f16 at an odd
    // offset), to the end of the word holding the last (inside the buffer, whose size is whole
    // words).
    let skip = start % 4;
    let start = start - skip;
    let padded = (skip + bytes).max(4).next_multiple_of(4);
    let (staging, submission) = dev.checked("to_host", || {
        let staging = dev.device().create_buffer(&wgpu::BufferDescriptor {
            label: Some("cnda read-back"),
            size: padded,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut encoder = dev.device().create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
        encoder.copy_buffer_to_buffer(buffer, start, &staging, 0, padded);
        let submission = dev.queue().submit([encoder.finish()]);
        (staging, submission)
    })?;
    let mapped: Arc<Mutex<Option<core::result::Result<(), wgpu::BufferAsyncError>>>> = Arc::new(Mutex::new(None));
    let slot = mapped.clone();
    staging
        .slice(..)
        .map_async(wgpu::MapMode::Read, move |r| *slot.lock().unwrap_or_else(|e| e.into_inner()) = Some(r));
    // Another thread's poll may be the one that runs the callback: poll until it has run.
    let mut outcome = None;
    for _ in 0..10_000 {
        dev.device()
            .poll(wgpu::PollType::Wait { submission_index: Some(submission.clone()), timeout: None })
            .map_err(|e| device_error(format!("to_host: {e}")))?;
        outcome = mapped.lock().unwrap_or_else(|e| e.into_inner()).take();
        if outcome.is_some() {
            break;
        }
        std::thread::yield_now();
    }
    match outcome {
        Some(Ok(())) => {}
        other => return Err(device_error(format!("to_host: mapping the read-back buffer failed: {other:?}"))),
    }
    let view = staging.slice(..).get_mapped_range().map_err(|e| device_error(format!("to_host: {e}")))?;
    let mut out = vec![T::zeroed(); count];
    bytemuck::cast_slice_mut::<T, u8>(&mut out).copy_from_slice(&view[skip as usize..(skip + bytes) as usize]);
    drop(view);
    staging.unmap();
    Ok(out)
}

// SAFETY: device memory is never host memory; the buffers are zeroed `Vec`s, whose elements stay
// in place when the `Vec` moves; `write_buffer` stages the data, so it is read when the upload
// returns.
unsafe impl HostStaging for Wgpu {
    type HostBuf<T: Pod> = Vec<T>;

    fn host_address<T: Pod>(_: Self::Handle<T>) -> Option<*mut T> {
        None
    }

    unsafe fn try_host_buf<T: Pod>(_: &WgpuDevice, len: usize) -> Result<Vec<T>> {
        try_zeroed_vec("host staging", len)
    }
}
