//! Device memory shared with other CUDA code (CuPy, PyTorch, a DLPack producer, hand-written
//! kernels): the address and device of a cnda device array for them, and cnda device arrays over
//! memory they own, kept alive by a handle of theirs and never freed by cnda.

use crate::array::Array;
use crate::backend::cuda::{Cuda, CudaBuffer, CudaDevice};
use crate::check::BoundsCheck;
use crate::element::Pod;
use crate::error::{or_panic, Error, Result};
use crate::layout::{Layout, RowMajor};
use crate::view::{Access, View};

impl<T: Pod, const N: usize, A: Access, L: Layout, C: BoundsCheck> View<'_, T, N, A, Cuda, L, C> {
    /// The device address (`CUdeviceptr`) of element `[0, 0, ...]`; the other elements lie at
    /// [`strides`](Self::strides) (in elements) from it. For handing the memory to other CUDA
    /// code: cnda's work on it is queued on [`device`](Self::device)'s stream, so another stream
    /// must wait for that work before it reads ([`CudaDevice::make_stream_wait`], or
    /// [`CudaDevice::synchronize`]).
    pub fn device_ptr(&self) -> u64 {
        self.raw.ptr.addr
    }

    /// The device the elements are on.
    pub fn device(&self) -> CudaDevice {
        self.raw.ptr.device
    }
}

impl<T: Pod, const N: usize, L: Layout, C: BoundsCheck> Array<T, N, Cuda, L, C> {
    /// The device address of element `[0, 0, ...]`; see [`View::device_ptr`].
    pub fn device_ptr(&self) -> u64 {
        self.view().device_ptr()
    }

    /// The device the elements are on.
    pub fn device(&self) -> CudaDevice {
        self.view().device()
    }
}

impl<T: Pod, const N: usize> Array<T, N, Cuda, RowMajor> {
    /// A row-major device array over memory that other code owns (a CuPy or PyTorch tensor, a
    /// DLPack import), without a copy. `keep` is what keeps that memory allocated (the tensor
    /// object, a DLPack deleter): the array drops it once cnda's queued work on the memory has
    /// finished, and never frees the memory itself.
    ///
    /// # Safety
    ///
    /// - `addr` is a device address, valid in `device`'s context, of the product of `shape`
    ///   initialized elements of `T`, dense and row-major;
    /// - the memory stays allocated until `keep` is dropped, and until then no other code writes
    ///   it, or reads it while cnda may write it, except in stream order after cnda's work
    ///   ([`CudaDevice::make_stream_wait`], [`CudaDevice::synchronize`]);
    /// - whatever wrote the elements has finished, or is ordered before `device`'s stream
    ///   ([`CudaDevice::wait_for_stream`]).
    ///
    /// # Errors
    ///
    /// `Error::Overflow` when the shape's size overflows; `Error::Layout` for a null or
    /// misaligned address.
    pub unsafe fn try_from_device_memory(
        device: &CudaDevice,
        addr: u64,
        shape: [usize; N],
        keep: impl Send + Sync + 'static,
    ) -> Result<Self> {
        const OP: &str = "from_device_memory";
        let size = core::mem::size_of::<T>();
        let len = crate::shape::element_count(&shape)
            .filter(|&len| len.checked_mul(size).is_some_and(|b| b <= isize::MAX as usize))
            .ok_or(Error::Overflow { op: OP, shape: shape.to_vec(), elem_size: size })?;
        if len > 0 && (addr == 0 || addr % core::mem::align_of::<T>() as u64 != 0) {
            return Err(Error::Layout {
                op: OP,
                reason: format!(
                    "the device address {addr:#x} is {} for elements of {size} bytes",
                    if addr == 0 { "null" } else { "misaligned" }
                ),
                fix: "pass the address of the tensor's first element, aligned to its element type (copy the tensor otherwise)",
            });
        }
        let buffer = CudaBuffer::foreign(*device, addr, len, Box::new(keep));
        Ok(Array::from_buffer_in(buffer, shape))
    }

    /// As [`Array::try_from_device_memory`], panicking on failure.
    ///
    /// # Safety
    ///
    /// As [`Array::try_from_device_memory`].
    #[track_caller]
    pub unsafe fn from_device_memory(
        device: &CudaDevice,
        addr: u64,
        shape: [usize; N],
        keep: impl Send + Sync + 'static,
    ) -> Self {
        // SAFETY: the caller's contract, passed on.
        or_panic(unsafe { Self::try_from_device_memory(device, addr, shape, keep) })
    }
}
