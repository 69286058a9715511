//! [`CudaBuffer`]: device memory for `len` elements, and [`CudaPtr`], the data handle of a view or
//! kernel descriptor (a device address and the device it is on).

use core::marker::PhantomData;

use cudarc::driver::CudaSlice;

use super::device::CudaDevice;
use crate::element::Pod;
use crate::error::{Error, Result};

/// Device memory holding `len` elements of `T`, freed (in stream order) when dropped.
pub struct CudaBuffer<T> {
    /// The allocation, `None` for no element (nothing is allocated then).
    memory: Option<CudaSlice<u8>>,
    len: usize,
    device: CudaDevice,
    element: PhantomData<T>,
}

impl<T> core::fmt::Debug for CudaBuffer<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("CudaBuffer").field("len", &self.len).field("device", &self.device).finish()
    }
}

/// The data handle of a device element: its address and its device. Address arithmetic wraps, as
/// host pointers' does in views; only kernels dereference it.
pub struct CudaPtr<T> {
    /// The device address (`CUdeviceptr`).
    pub addr: u64,
    /// The device the address belongs to.
    pub device: CudaDevice,
    element: PhantomData<fn() -> T>,
}

impl<T> Clone for CudaPtr<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for CudaPtr<T> {}

impl<T: Pod> CudaPtr<T> {
    pub(crate) fn new(addr: u64, device: CudaDevice) -> Self {
        CudaPtr { addr, device, element: PhantomData }
    }

    /// The handle `offset` elements away.
    pub(crate) fn moved(self, offset: isize) -> Self {
        let bytes = (offset as i64).wrapping_mul(core::mem::size_of::<T>() as i64);
        CudaPtr::new(self.addr.wrapping_add(bytes as u64), self.device)
    }
}

impl<T: Pod> CudaBuffer<T> {
    /// `len` elements on `device`, zeroed or (with `zeroed` false) with unspecified contents.
    pub(crate) fn allocate(device: CudaDevice, op: &'static str, len: usize, zeroed: bool) -> Result<Self> {
        let size = core::mem::size_of::<T>();
        let bytes = len.checked_mul(size).filter(|&b| b <= isize::MAX as usize).ok_or(Error::Overflow {
            op,
            shape: vec![len],
            elem_size: size,
        })?;
        let memory = if bytes == 0 {
            None
        } else {
            let stream = device.stream();
            let slice = if zeroed {
                stream.alloc_zeros::<u8>(bytes)
            } else {
                // SAFETY: the bytes are only ever read by kernels after cnda's callers wrote them
                // (the `Allocator::try_alloc_for_overwrite` contract).
                unsafe { stream.alloc::<u8>(bytes) }
            };
            Some(slice.map_err(|e| Error::Alloc {
                op,
                bytes,
                reason: format!("CUDA device {}: {e:?}", device.ordinal()),
            })?)
        };
        Ok(CudaBuffer { memory, len, device, element: PhantomData })
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the buffer holds no element.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The device the memory is on.
    pub fn device(&self) -> CudaDevice {
        self.device
    }

    /// The device address of the first element (0 for an empty buffer).
    pub(crate) fn addr(&self) -> u64 {
        match &self.memory {
            // The raw address; kernels and copies on the device's one stream are ordered after
            // the allocation, and the free on drop after them.
            Some(slice) => {
                let (addr, _sync) = cudarc::driver::DevicePtr::device_ptr(slice, self.device.stream());
                addr
            }
            None => 0,
        }
    }

    /// The handle of element `offset`.
    pub(crate) fn handle(&self, offset: isize) -> CudaPtr<T> {
        CudaPtr::new(self.addr(), self.device).moved(offset)
    }
}
