//! Host-device copies for CUDA: the two bulk copies the generic transfers
//! (`backend/transfer.rs`: `to_device`, `to_host`, `to_backend`) need.

use super::device::device_error;
use super::{Cuda, CudaBuffer};
use crate::array::Array;
use crate::backend::transfer::{Download, WriteFromHost};
use crate::element::Pod;
use crate::error::Result;
use crate::ops::desc::Desc;

// SAFETY: the copy of all of `data` is queued on the device's stream, ordered before any later
// work there; pageable host memory is staged by the driver before the call returns.
unsafe impl WriteFromHost for Cuda {
    unsafe fn try_write_from_host<T: Pod>(buf: &mut CudaBuffer<T>, data: &[T]) -> Result<()> {
        if data.is_empty() {
            return Ok(());
        }
        let dev = buf.device();
        dev.bind()?;
        // SAFETY: `buf` owns `data.len()` elements of device memory at this address (caller's
        // contract).
        unsafe { cudarc::driver::result::memcpy_htod_async(buf.addr(), data, dev.stream().cu_stream()) }
            .map_err(|e| device_error(format!("to_device: {e:?}")))
    }
}

impl Download for Cuda {
    unsafe fn try_download<T: Pod, const N: usize>(desc: Desc<Cuda, T, N>) -> Result<Array<T, N>> {
        let mut host = Array::<T, N>::try_zeros(desc.shape)?;
        if !host.is_empty() {
            let dev = desc.handle.device;
            dev.bind()?;
            // SAFETY: the operand is row-major with exactly `host.len()` elements from this
            // address (the caller's contract), written by work on this stream, which the copy is
            // ordered after.
            unsafe {
                cudarc::driver::result::memcpy_dtoh_async(
                    host.as_mut_slice(),
                    desc.handle.addr,
                    dev.stream().cu_stream(),
                )
            }
            .map_err(|e| device_error(format!("to_host: {e:?}")))?;
            dev.synchronize()?;
        }
        Ok(host)
    }
}
