//! The CPU backend: host buffers starting on a cache line (or placed so that a padded interior
//! does), and the whole host engine: the lane engine (`lanes`), the point walker of stencils
//! (`points`), the thread splitter (`threads`) and runtime SIMD dispatch (`simd`), which its
//! kernels run on and which it lends to the host-side closure APIs through the contract's
//! `HostEngine` (`engine`).

mod alloc;
mod block;
mod block_dot;
pub(crate) mod buffer;
mod copy;
mod elementwise;
mod engine;
mod expression;
mod interpret;
#[cfg(feature = "jit")]
mod jit;
mod lane_blocks;
pub(crate) mod lanes;
mod matmul;
mod placement;
mod points;
mod reduce;
pub(crate) mod simd;
mod sparse;
mod stencil;
mod stream;
mod taps;
#[cfg(feature = "rayon")]
pub(crate) mod threads;
mod transfer;
mod vector;

pub use alloc::CpuAlloc;
pub use block::HostBlock;
pub use buffer::{CpuBuffer, CPU_ALIGN, HUGE_PAGE_THRESHOLD};

use crate::element::Pod;
use crate::kernel::{Backend, Cpu, HostAccessible};

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

    fn part_handle<T: Pod, F: Pod>(handle: *mut T) -> *mut F {
        handle.cast()
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
