//! [`CudaBuffer`]: device memory for `len` elements, and [`CudaPtr`], the data handle of a view or
//! kernel descriptor (a device address and the device it is on).

use core::marker::PhantomData;

use cudarc::driver::CudaSlice;

use super::device::{device_error, CudaDevice};
use crate::backend::DeviceAlloc;
use crate::element::Pod;
use crate::error::{Error, Result};
use crate::pool::Lease;

/// Device memory holding `len` elements of `T`, freed (in stream order) when dropped, or given
/// back to its pool.
pub struct CudaBuffer<T> {
    memory: Memory,
    len: usize,
    device: CudaDevice,
    element: PhantomData<T>,
}

/// Where a buffer's memory came from.
enum Memory {
    /// No element: nothing is allocated.
    Empty,
    /// An allocation of its own.
    Owned(CudaSlice<u8>),
    /// A block on loan from a pool.
    Leased(Lease<CudaDevice>),
    /// Memory another library owns ([`Array::from_device_memory`](crate::Array::from_device_memory)).
    Foreign(Foreign),
}

/// Another library's device memory and what keeps it allocated.
struct Foreign {
    addr: u64,
    device: CudaDevice,
    keep: Option<Box<dyn Send + Sync>>,
}

impl Drop for Foreign {
    fn drop(&mut self) {
        // The owner may free or reuse the memory as soon as `keep` goes, on a stream cnda does not
        // order against: wait for cnda's queued kernels and copies on it first. An error here was
        // raised by earlier work and already reported to whoever waited for it; the memory is
        // released either way.
        let _ = self.device.synchronize();
        drop(self.keep.take());
    }
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
            Memory::Empty
        } else {
            let stream = device.stream();
            let slice = if zeroed {
                stream.alloc_zeros::<u8>(bytes)
            } else {
                // SAFETY: the bytes are only ever read by kernels after cnda's callers wrote them
                // (the `Allocator::try_alloc_for_overwrite` contract).
                unsafe { stream.alloc::<u8>(bytes) }
            };
            Memory::Owned(slice.map_err(|e| Error::Alloc {
                op,
                bytes,
                reason: format!("CUDA device {}: {e:?}", device.ordinal()),
            })?)
        };
        Ok(CudaBuffer { memory, len, device, element: PhantomData })
    }

    /// `len` elements over a block leased from a pool of `device` (at least `len` elements
    /// long), zeroed in stream order when asked.
    pub(crate) fn leased(device: CudaDevice, lease: Lease<CudaDevice>, len: usize, zeroed: bool) -> Result<Self> {
        let buffer = CudaBuffer { memory: Memory::Leased(lease), len, device, element: PhantomData };
        if zeroed && len > 0 {
            device.bind()?;
            // SAFETY: the block is live (the buffer holds its lease) and at least `len` elements
            // long; the memset is ordered on the device's stream before any later use.
            unsafe {
                cudarc::driver::result::memset_d8_async(
                    buffer.addr(),
                    0,
                    len * core::mem::size_of::<T>(),
                    device.stream().cu_stream(),
                )
            }
            .map_err(|e| device_error(format!("zeroing a pooled block: {e:?}")))?;
        }
        Ok(buffer)
    }

    /// `len` elements at device address `addr`, owned by another library and kept allocated by
    /// `keep` (see `Array::try_from_device_memory`, which checks the address and length).
    pub(crate) fn foreign(device: CudaDevice, addr: u64, len: usize, keep: Box<dyn Send + Sync>) -> Self {
        let memory = Memory::Foreign(Foreign { addr, device, keep: Some(keep) });
        CudaBuffer { memory, len, device, element: PhantomData }
    }

    /// The allocator the buffer came from: its pool while that lives, else its device.
    pub(crate) fn allocator(&self) -> DeviceAlloc<CudaDevice> {
        let lease = match &self.memory {
            Memory::Leased(lease) => Some(lease),
            _ => None,
        };
        DeviceAlloc::of_lease(self.device, lease)
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
        // The raw address; kernels and copies on the device's one stream are ordered after the
        // allocation, and the free (or the pool's reuse) on drop after them.
        let slice = match &self.memory {
            Memory::Empty => return 0,
            Memory::Owned(slice) => slice,
            Memory::Leased(lease) => lease.block(),
            Memory::Foreign(foreign) => return foreign.addr,
        };
        cudarc::driver::DevicePtr::device_ptr(slice, self.device.stream()).0
    }

    /// The handle of element `offset`.
    pub(crate) fn handle(&self, offset: isize) -> CudaPtr<T> {
        CudaPtr::new(self.addr(), self.device).moved(offset)
    }
}
