//! Page-locked host buffers for repeated transfers (a distributed array's halo messages): the
//! DMA engine reads and writes them directly, where pageable memory goes through the driver's
//! own bounce buffers at a fraction of the bus's speed.

use core::ptr::NonNull;

use cudarc::driver::result as driver;

use super::device::{device_error, CudaDevice};
use super::{Cuda, CudaBuffer};
use crate::element::Pod;
use crate::error::{Error, Result};
use crate::kernel::{Desc, HostStaging};

/// `len` elements of pinned host memory, zeroed when allocated; freed on drop (in its device's
/// context). Made only by `HostStaging::try_host_buf`, whose contract keeps plain transfers,
/// which would read it asynchronously, away from it.
pub struct PinnedBuf<T: Pod> {
    ptr: NonNull<T>,
    len: usize,
    dev: CudaDevice,
}

// SAFETY: plain host memory owned by the buffer, reached through `&`/`&mut` borrows only.
unsafe impl<T: Pod> Send for PinnedBuf<T> {}

impl<T: Pod> PinnedBuf<T> {
    fn new(dev: &CudaDevice, len: usize) -> Result<Self> {
        let bytes = len.checked_mul(core::mem::size_of::<T>()).ok_or(Error::Overflow {
            op: "host staging",
            shape: vec![len],
            elem_size: core::mem::size_of::<T>(),
        })?;
        if bytes == 0 {
            return Ok(PinnedBuf { ptr: NonNull::dangling(), len, dev: *dev });
        }
        dev.bind()?;
        // SAFETY: a fresh allocation of `bytes` bytes, zeroed below before any read.
        let raw = unsafe { driver::malloc_host(bytes, 0) }.map_err(|e| Error::Alloc {
            op: "host staging",
            bytes,
            reason: format!("the CUDA driver refused to pin host memory: {e:?}"),
        })?;
        let ptr = NonNull::new(raw.cast::<T>())
            .ok_or_else(|| device_error("the driver returned a null pinned block".into()))?;
        // SAFETY: `bytes` writable bytes just allocated, page-aligned (so aligned for `T`).
        unsafe { core::ptr::write_bytes(ptr.as_ptr().cast::<u8>(), 0, bytes) };
        Ok(PinnedBuf { ptr, len, dev: *dev })
    }
}

impl<T: Pod> core::ops::Deref for PinnedBuf<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        // SAFETY: `len` initialized elements owned by the buffer (dangling and empty for none).
        unsafe { core::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl<T: Pod> core::ops::DerefMut for PinnedBuf<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as in `deref`, borrowed uniquely.
        unsafe { core::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl<T: Pod> Drop for PinnedBuf<T> {
    fn drop(&mut self) {
        if self.len == 0 || core::mem::size_of::<T>() == 0 {
            return;
        }
        // The driver frees page-locked memory in a context; a failure can only leak it.
        let _ = self.dev.bind();
        // SAFETY: allocated by `malloc_host`, freed once; no copy reads or writes it any more
        // (both staged copies wait for theirs).
        let _ = unsafe { driver::free_host(self.ptr.as_ptr().cast()) };
    }
}

// SAFETY: device memory is never host memory; the buffers are zeroed pinned memory that does not
// move with the value; both staged copies go straight between it and the device (page-locked
// memory needs no bounce buffer) and wait for the stream before returning.
unsafe impl HostStaging for Cuda {
    type HostBuf<T: Pod> = PinnedBuf<T>;

    fn host_address<T: Pod>(_: Self::Handle<T>) -> Option<*mut T> {
        None
    }

    unsafe fn try_host_buf<T: Pod>(dev: &CudaDevice, len: usize) -> Result<PinnedBuf<T>> {
        PinnedBuf::new(dev, len)
    }

    unsafe fn try_download_staged<T: Pod, const N: usize>(
        desc: Desc<Cuda, T, N>,
        dst: &mut PinnedBuf<T>,
    ) -> Result<()> {
        let len = desc.len();
        if len == 0 {
            return Ok(());
        }
        let dev = desc.handle.device;
        dev.bind()?;
        // SAFETY: `desc` is `len <= dst.len()` live contiguous elements (the caller's contract);
        // the copy is waited for below, before `dst`'s borrow ends.
        unsafe { driver::memcpy_dtoh_async(&mut dst[..len], desc.handle.addr, dev.stream().cu_stream()) }
            .map_err(|e| device_error(format!("halo staging (to the host): {e:?}")))?;
        dev.synchronize()
    }

    unsafe fn try_upload_staged<T: Pod>(buf: &mut CudaBuffer<T>, data: &PinnedBuf<T>) -> Result<()> {
        if data.is_empty() {
            return Ok(());
        }
        let dev = buf.device();
        dev.bind()?;
        // SAFETY: `buf` owns `data.len()` elements of device memory (the caller's contract); the
        // copy is waited for below, before `data`'s borrow ends.
        unsafe { driver::memcpy_htod_async(buf.addr(), &data[..], dev.stream().cu_stream()) }
            .map_err(|e| device_error(format!("halo staging (to the device): {e:?}")))?;
        dev.synchronize()
    }
}
