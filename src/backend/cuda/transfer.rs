//! Host-device copies for CUDA: the two bulk copies the generic transfers
//! (`backend/transfer.rs`: `to_device`, `to_host`) need.

use super::device::device_error;
use super::{Cuda, CudaDevice};
use crate::array::Array;
use crate::backend::transfer::{Download, Upload};
use crate::backend::Allocator;
use crate::element::Pod;
use crate::error::Result;
use crate::ops::desc::Desc;

impl Upload for CudaDevice {
    type Target = Cuda;

    fn try_upload<T: Pod, const N: usize>(&self, data: &[T], shape: [usize; N]) -> Result<Array<T, N, Cuda>> {
        // SAFETY: the copy below writes every element before anything can read one.
        let buffer = unsafe { self.try_alloc_for_overwrite("to_device", data.len()) }?;
        let out = Array::<T, N, Cuda>::from_buffer_in(buffer, shape);
        if !data.is_empty() {
            self.bind()?;
            // SAFETY: `out` owns `data.len()` elements of device memory at this address; pageable
            // host memory is staged by the driver before the call returns.
            unsafe {
                cudarc::driver::result::memcpy_htod_async(out.desc().handle.addr, data, self.stream().cu_stream())
            }
            .map_err(|e| device_error(format!("to_device: {e:?}")))?;
        }
        Ok(out)
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
