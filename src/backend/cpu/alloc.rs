//! The CPU's allocators: `Cpu` itself (the system allocator), a [`Pool`], and [`CpuAlloc`], the
//! one a buffer remembers.

use super::buffer::{lead_bytes, CpuBuffer};
use crate::element::Pod;
use crate::error::Result;
use crate::kernel::Allocator;
use crate::kernel::Cpu;
use crate::layout::padded::aligned_pitch;
use crate::pool::Pool;

/// Rows of `len` elements of `T` rounded up to whole cache lines (`len` when 0 or too long).
fn line_pitch<T: Pod>(len: usize) -> usize {
    match len {
        0 => 0,
        _ => aligned_pitch(len, core::mem::size_of::<T>()).unwrap_or(len),
    }
}

/// The allocator a CPU buffer came from: the system, or a pool. `Array::allocator` returns it,
/// and ops on an array allocate their outputs from it, so a time loop over pooled arrays keeps
/// taking its temporaries from the pool.
#[derive(Clone, Debug, Default)]
pub enum CpuAlloc {
    /// The system allocator (cache-line placed, huge pages from 4 MiB).
    #[default]
    System,
    /// A pool (still alive; a buffer whose pool was dropped reports `System`).
    Pool(Pool),
}

// SAFETY: `CpuBuffer::try_zeroed` and `try_init_with` return exactly `len` elements, zeroed by the
// former; each buffer owns its allocation.
unsafe impl Allocator<Cpu> for Cpu {
    fn device(&self) -> Cpu {
        Cpu
    }

    fn try_alloc_zeroed<T: Pod>(&self, op: &'static str, len: usize) -> Result<CpuBuffer<T>> {
        CpuBuffer::try_zeroed(op, len)
    }

    unsafe fn try_alloc_for_overwrite<T: Pod>(&self, op: &'static str, len: usize) -> Result<CpuBuffer<T>> {
        // SAFETY: the caller writes every element before reading any.
        unsafe { CpuBuffer::try_init_with(op, len, |_| {}) }
    }

    unsafe fn try_alloc_for_overwrite_at_line<T: Pod>(
        &self,
        op: &'static str,
        len: usize,
        at: usize,
    ) -> Result<CpuBuffer<T>> {
        // SAFETY: the caller writes every element before reading any.
        unsafe { CpuBuffer::try_init_placed(op, len, lead_bytes::<T>(at), |_| {}) }
    }
    fn line_pitch<T: Pod>(&self, len: usize) -> usize {
        line_pitch::<T>(len)
    }
}

// SAFETY: pooled buffers hold exactly `len` elements (blocks are at least that large), are zeroed
// when asked, and are handed to one buffer at a time.
unsafe impl Allocator<Cpu> for Pool {
    fn device(&self) -> Cpu {
        Cpu
    }

    fn try_alloc_zeroed<T: Pod>(&self, op: &'static str, len: usize) -> Result<CpuBuffer<T>> {
        // SAFETY: zero bytes are a valid `Pod` value; all `len` elements are written.
        unsafe { CpuBuffer::try_init_in_pool(self, op, len, 0, |ptr| core::ptr::write_bytes(ptr, 0, len)) }
    }

    unsafe fn try_alloc_for_overwrite<T: Pod>(&self, op: &'static str, len: usize) -> Result<CpuBuffer<T>> {
        // SAFETY: the caller writes every element before reading any.
        unsafe { CpuBuffer::try_init_in_pool(self, op, len, 0, |_| {}) }
    }

    unsafe fn try_alloc_for_overwrite_at_line<T: Pod>(
        &self,
        op: &'static str,
        len: usize,
        at: usize,
    ) -> Result<CpuBuffer<T>> {
        // SAFETY: the caller writes every element before reading any.
        unsafe { CpuBuffer::try_init_in_pool(self, op, len, lead_bytes::<T>(at), |_| {}) }
    }
    fn line_pitch<T: Pod>(&self, len: usize) -> usize {
        line_pitch::<T>(len)
    }
}

// SAFETY: forwards to the two allocators above.
unsafe impl Allocator<Cpu> for CpuAlloc {
    fn device(&self) -> Cpu {
        Cpu
    }

    fn try_alloc_zeroed<T: Pod>(&self, op: &'static str, len: usize) -> Result<CpuBuffer<T>> {
        match self {
            CpuAlloc::System => Cpu.try_alloc_zeroed(op, len),
            CpuAlloc::Pool(pool) => pool.try_alloc_zeroed(op, len),
        }
    }

    unsafe fn try_alloc_for_overwrite<T: Pod>(&self, op: &'static str, len: usize) -> Result<CpuBuffer<T>> {
        // SAFETY: forwarded contract.
        unsafe {
            match self {
                CpuAlloc::System => Cpu.try_alloc_for_overwrite(op, len),
                CpuAlloc::Pool(pool) => pool.try_alloc_for_overwrite(op, len),
            }
        }
    }

    unsafe fn try_alloc_for_overwrite_at_line<T: Pod>(
        &self,
        op: &'static str,
        len: usize,
        at: usize,
    ) -> Result<CpuBuffer<T>> {
        // SAFETY: forwarded contract.
        unsafe {
            match self {
                CpuAlloc::System => Cpu.try_alloc_for_overwrite_at_line(op, len, at),
                CpuAlloc::Pool(pool) => pool.try_alloc_for_overwrite_at_line(op, len, at),
            }
        }
    }
    fn line_pitch<T: Pod>(&self, len: usize) -> usize {
        line_pitch::<T>(len)
    }
}
