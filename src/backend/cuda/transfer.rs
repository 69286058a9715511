//! Transfers between host and device: `to_device` (any host array or view; a non-contiguous one
//! is made contiguous on the host first) and `to_host` (any device array or view; a
//! non-contiguous one is made contiguous on the device first), each one bulk copy.

use super::device::device_error;
use super::{Cuda, CudaDevice};
use crate::array::Array;
use crate::check::BoundsCheck;
use crate::element::Pod;
use crate::error::{or_panic, Result};
use crate::layout::Layout;
use crate::ops::desc::Desc;
use crate::view::{Access, ArrayView, View};

impl<'a, T: Pod, const N: usize, L: Layout, C: BoundsCheck> ArrayView<'a, T, N, L, C> {
    /// A row-major copy of this view on `dev` (one host-to-device copy, queued on the device's
    /// stream; the host memory may be reused when this returns).
    ///
    /// # Errors
    ///
    /// `Error::Alloc` when the device memory is refused; `Error::Device` when the copy fails.
    pub fn try_to_device(&self, dev: &CudaDevice) -> Result<Array<T, N, Cuda>> {
        let dense = self.contiguous();
        let data = dense.as_slice();
        let out = Array::<T, N, Cuda>::try_zeros_in(dev, self.shape())?;
        if !data.is_empty() {
            // SAFETY: `out` owns `data.len()` elements of device memory at this address; pageable
            // host memory is staged by the driver before the call returns.
            unsafe {
                cudarc::driver::result::memcpy_htod_async(out.desc().handle.addr, data, dev.stream().cu_stream())
            }
            .map_err(|e| device_error(format!("to_device: {e:?}")))?;
        }
        Ok(out)
    }

    /// As [`ArrayView::try_to_device`], panicking on failure.
    #[track_caller]
    pub fn to_device(&self, dev: &CudaDevice) -> Array<T, N, Cuda> {
        or_panic(self.try_to_device(dev))
    }
}

impl<T: Pod, const N: usize, L: Layout, C: BoundsCheck> Array<T, N, crate::backend::Cpu, L, C> {
    /// A row-major copy of this array on `dev`; see [`ArrayView::try_to_device`].
    ///
    /// # Errors
    ///
    /// As [`ArrayView::try_to_device`].
    pub fn try_to_device(&self, dev: &CudaDevice) -> Result<Array<T, N, Cuda>> {
        self.view().try_to_device(dev)
    }

    /// As [`Array::try_to_device`], panicking on failure.
    #[track_caller]
    pub fn to_device(&self, dev: &CudaDevice) -> Array<T, N, Cuda> {
        or_panic(self.try_to_device(dev))
    }
}

/// The elements of a contiguous row-major device operand, copied to a new host array (waits for
/// the device).
fn download<T: Pod, const N: usize>(desc: Desc<Cuda, T, N>) -> Result<Array<T, N>> {
    debug_assert!(desc.is_contiguous());
    let mut host = Array::<T, N>::try_zeros(desc.shape)?;
    if !host.is_empty() {
        let dev = desc.handle.device;
        dev.bind()?;
        // SAFETY: the operand is row-major with exactly `host.len()` elements from this address,
        // written by work on this stream, which the copy is ordered after.
        unsafe {
            cudarc::driver::result::memcpy_dtoh_async(host.as_mut_slice(), desc.handle.addr, dev.stream().cu_stream())
        }
        .map_err(|e| device_error(format!("to_host: {e:?}")))?;
        dev.synchronize()?;
    }
    Ok(host)
}

impl<T: Pod, const N: usize, A: Access, L: Layout, C: BoundsCheck> View<'_, T, N, A, Cuda, L, C> {
    /// The elements, copied to a new row-major host array (a non-contiguous view is made
    /// contiguous on the device first); waits for the device's queued work.
    ///
    /// # Errors
    ///
    /// `Error::Alloc` for host or device memory refused; `Error::Device` with the error any
    /// queued kernel raised.
    pub fn try_to_host(&self) -> Result<Array<T, N>> {
        let desc = self.desc();
        if desc.is_contiguous() {
            return download(desc);
        }
        download(self.try_to_owned()?.desc())
    }

    /// As [`View::try_to_host`], panicking on failure.
    #[track_caller]
    pub fn to_host(&self) -> Array<T, N> {
        or_panic(self.try_to_host())
    }
}

impl<T: Pod, const N: usize, L: Layout, C: BoundsCheck> Array<T, N, Cuda, L, C> {
    /// The elements, copied to a new row-major host array; waits for the device's queued work.
    ///
    /// # Errors
    ///
    /// As [`View::try_to_host`].
    pub fn try_to_host(&self) -> Result<Array<T, N>> {
        self.view().try_to_host()
    }

    /// As [`Array::try_to_host`], panicking on failure.
    #[track_caller]
    pub fn to_host(&self) -> Array<T, N> {
        or_panic(self.try_to_host())
    }
}
