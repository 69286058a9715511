//! The CPU backend: 64-byte aligned host buffers.

mod alloc;
mod block;
pub(crate) mod buffer;
mod copy;
mod elementwise;
mod matmul;
mod placement;
mod reduce;
pub(crate) mod simd;
mod stencil;

pub use alloc::CpuAlloc;
pub use block::HostBlock;
pub use buffer::{CpuBuffer, CPU_ALIGN, HUGE_PAGE_THRESHOLD};
#[cfg(feature = "rayon")]
pub(crate) use reduce::sum_slice;

use super::{Backend, HostAccessible};
use crate::element::Pod;

/// The host CPU backend (the default `B` of every array), and its own device handle and system
/// allocator (`Array::zeros_in(&Cpu, shape)`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Cpu;

impl Backend for Cpu {
    const NAME: &'static str = "Cpu";
    type Device = Cpu;
    type Buffer<T: Pod> = CpuBuffer<T>;
    type Handle<T: Pod> = *mut T;
    type Alloc = CpuAlloc;

    #[inline(always)]
    fn handle<T: Pod>(buf: &CpuBuffer<T>, offset: isize) -> *mut T {
        buf.as_ptr().cast_mut().wrapping_offset(offset)
    }

    #[inline(always)]
    fn handle_mut<T: Pod>(buf: &mut CpuBuffer<T>, offset: isize) -> *mut T {
        buf.as_mut_ptr().wrapping_offset(offset)
    }

    #[inline(always)]
    fn moved<T: Pod>(handle: *mut T, offset: isize) -> *mut T {
        handle.wrapping_offset(offset)
    }

    fn handle_device<T: Pod>(_: *mut T) -> Cpu {
        Cpu
    }

    fn allocator_of<T: Pod>(buf: &CpuBuffer<T>) -> CpuAlloc {
        buf.allocator()
    }

    fn allocator_of_handle<T: Pod>(_: *mut T) -> CpuAlloc {
        CpuAlloc::System
    }
}

// SAFETY: `CpuBuffer` owns a heap allocation of `len` initialized elements that does not move when
// the buffer value moves and is freed only when the buffer drops; a handle is that pointer moved.
unsafe impl HostAccessible for Cpu {
    #[inline(always)]
    fn host_ptr<T: Pod>(buf: &CpuBuffer<T>) -> *const T {
        buf.as_ptr()
    }

    #[inline(always)]
    fn host_ptr_mut<T: Pod>(buf: &mut CpuBuffer<T>) -> *mut T {
        buf.as_mut_ptr()
    }

    #[inline(always)]
    fn handle_ptr<T: Pod>(handle: *mut T) -> *mut T {
        handle
    }
}
