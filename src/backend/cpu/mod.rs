//! The CPU backend: 64-byte aligned host buffers.

mod alloc;
pub(crate) mod buffer;
mod placement;

pub use alloc::HostAlloc;
pub use buffer::{CpuBuffer, CPU_ALIGN, HUGE_PAGE_THRESHOLD};

use super::{Backend, HostAccessible};
use crate::element::Pod;

/// The host CPU backend (the default `B` of every array).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Cpu;

impl Backend for Cpu {
    const NAME: &'static str = "Cpu";
    type Buffer<T: Pod> = CpuBuffer<T>;
}

// SAFETY: `CpuBuffer` owns a heap allocation of `len` initialized elements that does not move when
// the buffer value moves and is freed only when the buffer drops.
unsafe impl HostAccessible for Cpu {
    #[inline(always)]
    fn host_ptr<T: Pod>(buf: &CpuBuffer<T>) -> *const T {
        buf.as_ptr()
    }

    #[inline(always)]
    fn host_ptr_mut<T: Pod>(buf: &mut CpuBuffer<T>) -> *mut T {
        buf.as_mut_ptr()
    }
}
