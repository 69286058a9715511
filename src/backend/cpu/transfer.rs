//! The CPU's side of the transfer family: host memory is already where `to_host` copies to.

use super::CpuAlloc;
use crate::element::Pod;
use crate::error::Result;
use crate::kernel::{try_zeroed_vec, Cpu, Desc, Download, HostAccessible, HostStaging, Upload, WriteFromHost};
use crate::pool::Pool;

// SAFETY: the copy writes all of `data` into the buffer, which holds as many elements.
unsafe impl WriteFromHost for Cpu {
    unsafe fn try_write_from_host<T: Pod>(buf: &mut Self::Buffer<T>, data: &[T]) -> Result<()> {
        // SAFETY: the buffer is `data.len()` elements of its own memory (caller's contract),
        // which `data`, a shared borrow, cannot overlap.
        unsafe { core::ptr::copy_nonoverlapping(data.as_ptr(), Cpu::host_ptr_mut(buf), data.len()) };
        Ok(())
    }
}

// SAFETY: `try_download_into` copies every element of the contiguous operand, in order.
unsafe impl Download for Cpu {
    unsafe fn try_download_into<T: Pod, const N: usize>(desc: Desc<Cpu, T, N>, dst: *mut T) -> Result<()> {
        // SAFETY: `desc` is `desc.len()` live, contiguous elements and `dst` as many writable
        // ones that overlap nothing live (the caller's contract).
        unsafe { core::ptr::copy_nonoverlapping(Cpu::handle_ptr(desc.handle).cast_const(), dst, desc.len()) };
        Ok(())
    }

    unsafe fn try_with_host<T: Pod, const N: usize, R>(
        desc: Desc<Cpu, T, N>,
        f: impl FnOnce(&[T]) -> Result<R>,
    ) -> Result<R> {
        // SAFETY: `desc` is `len` live, contiguous elements from its handle (caller's contract),
        // borrowed for the call.
        f(unsafe { core::slice::from_raw_parts(Cpu::handle_ptr(desc.handle), desc.len()) })
    }
}

impl Upload for Cpu {
    type Target = Cpu;
}

impl Upload for Pool {
    type Target = Cpu;
}

impl Upload for CpuAlloc {
    type Target = Cpu;
}

// SAFETY: the handle is the element's host address; the buffers are zeroed `Vec`s, whose
// elements stay in place when the `Vec` moves.
unsafe impl HostStaging for Cpu {
    type HostBuf<T: Pod> = Vec<T>;

    fn host_address<T: Pod>(handle: *mut T) -> Option<*mut T> {
        Some(handle)
    }

    unsafe fn try_host_buf<T: Pod>(_: &Cpu, len: usize) -> Result<Vec<T>> {
        try_zeroed_vec("host staging", len)
    }
}
