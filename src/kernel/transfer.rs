//! The transfer family: bulk copies between a backend's memory and the host, out of which the
//! generic `to_device`/`to_host`/`to_backend` (`ops/transfer.rs`) are written.

use crate::element::Pod;
use crate::error::{Error, Result};
use crate::kernel::{Allocator, Backend, Desc};

/// A backend whose buffers host data can be copied into.
///
/// # Safety
///
/// On success, `try_write_from_host` has written `data` into the buffer's elements (or queued the
/// copy on the buffer's device, ordered before any later work there, with `data` no longer
/// needed when it returns), so the buffer is initialized.
pub unsafe trait WriteFromHost: Backend {
    /// Copies `data` into `buf`.
    ///
    /// # Safety
    ///
    /// `buf` holds exactly `data.len()` elements.
    ///
    /// # Errors
    ///
    /// `Error::Device` when the copy fails.
    unsafe fn try_write_from_host<T: Pod>(buf: &mut Self::Buffer<T>, data: &[T]) -> Result<()>;
}

/// An allocator arrays can be copied into from another backend: a device (`&CudaDevice`,
/// `&WgpuDevice`), a pool of a device's memory, or a host allocator (`&Cpu`, a CPU `Pool`).
pub trait Upload: Allocator<Self::Target> {
    /// The backend the allocator's buffers are on.
    type Target: WriteFromHost;
}

/// A backend whose data can be copied to the host.
///
/// # Safety
///
/// On success, `try_download_into` has written every element of the operand, in row-major order,
/// to `dst`, after all work queued on the operand's device.
pub unsafe trait Download: Backend {
    /// Copies the elements of `desc`, a contiguous row-major operand, to `dst`; waits for the
    /// device's queued work.
    ///
    /// # Errors
    ///
    /// `Error::Device` with the error the copy or any queued work raised.
    ///
    /// # Safety
    ///
    /// `desc` describes live, row-major contiguous elements on its device; `dst` is valid for
    /// writes of `desc.len()` elements (possibly uninitialized) and overlaps no live reference.
    unsafe fn try_download_into<T: Pod, const N: usize>(desc: Desc<Self, T, N>, dst: *mut T) -> Result<()>;

    /// `f` applied to the elements of `desc` as one host slice: downloaded first on a device,
    /// read in place on the host.
    ///
    /// # Errors
    ///
    /// `Error::Alloc` when the host memory is refused; as for [`Download::try_download_into`],
    /// and `f`'s own.
    ///
    /// # Safety
    ///
    /// `desc` describes live, row-major contiguous elements on its device.
    unsafe fn try_with_host<T: Pod, const N: usize, R>(
        desc: Desc<Self, T, N>,
        f: impl FnOnce(&[T]) -> Result<R>,
    ) -> Result<R> {
        let len = crate::shape::checked_len("to_host", &desc.shape, core::mem::size_of::<T>())?;
        let mut host: Vec<T> = Vec::new();
        host.try_reserve_exact(len).map_err(|_| Error::Alloc {
            op: "to_host",
            bytes: len * core::mem::size_of::<T>(),
            reason: "the system allocator refused the request".into(),
        })?;
        // SAFETY: the spare capacity holds `len` elements (reserved above), written by the copy
        // (the trait's contract) before `set_len` makes them visible.
        unsafe {
            Self::try_download_into(desc, host.as_mut_ptr())?;
            host.set_len(len);
        }
        f(&host)
    }
}

/// Host memory a backend's transfers run fastest through, for buffers a program moves again and
/// again (a distributed array's halo messages): page-locked on CUDA, which the DMA engine reads
/// and writes directly, without the driver's bounce buffers; ordinary memory elsewhere. Also
/// says whether the backend's memory is host memory, which a caller can then hand to other
/// libraries (MPI) in place.
///
/// # Safety
///
/// `host_address` returns `Some` only for handles whose memory is host memory, the address of
/// the handle's element. A `HostBuf` of `len` elements derefs to the same `len` initialized
/// elements at the same address for its whole life, however the value moves (raw pointers
/// into it stay valid while it lives). On success, `try_download_staged` has written every
/// element of the operand into the buffer's first elements, after the device's queued work,
/// and `try_upload_staged` has read all of `data` (the copy may still run on the device,
/// ordered before later work there), so the buffer may be written again.
pub unsafe trait HostStaging: Download + WriteFromHost {
    /// A host buffer of elements.
    type HostBuf<T: Pod>: core::ops::DerefMut<Target = [T]>;

    /// The host address of a handle's element, when the backend's memory is host memory.
    fn host_address<T: Pod>(handle: Self::Handle<T>) -> Option<*mut T>;

    /// `len` zeroed elements of staging memory for `dev`.
    ///
    /// # Safety
    ///
    /// The buffer's elements reach the device only through
    /// [`HostStaging::try_upload_staged`]: a plain [`WriteFromHost`] copy from page-locked
    /// memory may still be reading it when it returns.
    ///
    /// # Errors
    ///
    /// `Error::Alloc` when the memory is refused; `Error::Device` when the device fails.
    unsafe fn try_host_buf<T: Pod>(dev: &Self::Device, len: usize) -> Result<Self::HostBuf<T>>;

    /// Copies the elements of `desc` (a contiguous row-major operand of at most `dst.len()`
    /// elements) into the first elements of `dst`; waits for the device's queued work.
    ///
    /// # Safety
    ///
    /// `desc` describes live, row-major contiguous elements on its device, no more than
    /// `dst.len()`.
    ///
    /// # Errors
    ///
    /// `Error::Device` with the error the copy or any queued work raised.
    unsafe fn try_download_staged<T: Pod, const N: usize>(
        desc: Desc<Self, T, N>,
        dst: &mut Self::HostBuf<T>,
    ) -> Result<()> {
        // SAFETY: `dst` holds at least `desc.len()` writable elements (the caller's contract),
        // borrowed uniquely.
        unsafe { Self::try_download_into(desc, dst.as_mut_ptr()) }
    }

    /// Copies `data` into `buf`, as [`WriteFromHost::try_write_from_host`], done reading `data`
    /// when it returns.
    ///
    /// # Safety
    ///
    /// `buf` holds exactly `data.len()` elements.
    ///
    /// # Errors
    ///
    /// `Error::Device` when the copy fails.
    unsafe fn try_upload_staged<T: Pod>(buf: &mut Self::Buffer<T>, data: &Self::HostBuf<T>) -> Result<()> {
        // SAFETY: the caller's contract.
        unsafe { Self::try_write_from_host(buf, data) }
    }
}

/// `len` zeroed elements in ordinary host memory: the staging memory of backends without a
/// faster kind.
///
/// # Errors
///
/// `Error::Alloc` when the system allocator refuses the memory.
pub(crate) fn try_zeroed_vec<T: Pod>(op: &'static str, len: usize) -> Result<Vec<T>> {
    let bytes = len.checked_mul(core::mem::size_of::<T>()).ok_or(Error::Overflow {
        op,
        shape: vec![len],
        elem_size: core::mem::size_of::<T>(),
    })?;
    let mut v = Vec::new();
    v.try_reserve_exact(len).map_err(|_| Error::Alloc {
        op,
        bytes,
        reason: "the system allocator refused the request".into(),
    })?;
    v.resize(len, T::zeroed());
    Ok(v)
}
