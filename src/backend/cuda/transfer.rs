//! Host-device copies for CUDA: the two bulk copies the generic transfers
//! (`ops/transfer.rs`: `to_device`, `to_host`, `to_backend`) need.

use core::mem::MaybeUninit;

use super::device::device_error;
use super::staging::STAGED_FROM;
use super::{Cuda, CudaBuffer};
use crate::element::Pod;
use crate::error::Result;
use crate::kernel::{Desc, Download, WriteFromHost};

// SAFETY: the copy of all of `data` is queued on the device's stream, ordered before any later
// work there; `data` has been read in full when the call returns (staged through pinned blocks
// when large, by the driver otherwise).
unsafe impl WriteFromHost for Cuda {
    unsafe fn try_write_from_host<T: Pod>(buf: &mut CudaBuffer<T>, data: &[T]) -> Result<()> {
        if data.is_empty() {
            return Ok(());
        }
        let dev = buf.device();
        let bytes: &[u8] = bytemuck::cast_slice(data);
        if bytes.len() >= STAGED_FROM {
            if let Some(done) = dev.with_staging(|s| s.map(|s| s.upload(dev, buf.addr(), bytes))) {
                return done;
            }
        }
        dev.bind()?;
        // SAFETY: `buf` owns `data.len()` elements of device memory at this address (caller's
        // contract).
        unsafe { cudarc::driver::result::memcpy_htod_async(buf.addr(), bytes, dev.stream().cu_stream()) }
            .map_err(|e| device_error(format!("to_device: {e:?}")))
    }
}

// SAFETY: the copy writes every byte of the contiguous operand to `dst`, after the work queued on
// the device's stream (the same stream, then waited for).
unsafe impl Download for Cuda {
    unsafe fn try_download_into<T: Pod, const N: usize>(desc: Desc<Cuda, T, N>, dst: *mut T) -> Result<()> {
        let size = desc.len() * core::mem::size_of::<T>();
        if size > 0 {
            // SAFETY: `dst` is valid for writes of `len` elements, possibly uninitialized, which
            // `MaybeUninit` bytes may be, and overlaps nothing live (the caller's contract).
            let bytes = unsafe { core::slice::from_raw_parts_mut(dst.cast::<MaybeUninit<u8>>(), size) };
            let dev = desc.handle.device;
            // The operand is row-major with exactly `len` elements from its address (the
            // caller's contract); both copies are ordered after the work on the device's
            // stream that wrote it, and waited for.
            let staged = if size >= STAGED_FROM {
                dev.with_staging(|s| s.map(|s| s.download(dev, bytes, desc.handle.addr)))
            } else {
                None
            };
            match staged {
                Some(done) => done?,
                None => {
                    dev.bind()?;
                    // SAFETY: as above.
                    unsafe {
                        cudarc::driver::result::memcpy_dtoh_async(
                            &mut *bytes,
                            desc.handle.addr,
                            dev.stream().cu_stream(),
                        )
                    }
                    .map_err(|e| device_error(format!("to_host: {e:?}")))?;
                    dev.synchronize()?;
                }
            }
        }
        Ok(())
    }
}
