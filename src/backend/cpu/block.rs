//! The CPU's memory blocks: the layout and placement of large blocks (huge pages, staggered
//! starts), and the system allocator as the block source of CPU pools.

use core::ptr::NonNull;
use std::alloc::{self, Layout as AllocLayout};

use super::buffer::HUGE_PAGE_THRESHOLD;
use super::placement::{self, HUGE_PAGE};
use super::CPU_ALIGN;
use crate::error::Error;
use crate::kernel::Cpu;
use crate::pool::{BlockSource, Pool};

/// The layout to allocate for a block of `bytes` usable bytes: cache-line aligned, or huge-page
/// aligned with room for a staggered start when large (see `placement.rs`). `None` when the size
/// does not fit an allocation.
pub(crate) fn block_layout(bytes: usize) -> Option<AllocLayout> {
    if bytes >= HUGE_PAGE_THRESHOLD {
        AllocLayout::from_size_align(bytes.checked_add(placement::SPAN)?, HUGE_PAGE).ok()
    } else {
        AllocLayout::from_size_align(bytes, CPU_ALIGN).ok()
    }
}

/// The start of a block of `bytes` bytes inside memory allocated with `block_layout(bytes)`.
pub(crate) fn block_start(raw: *mut u8, bytes: usize) -> (*mut u8, usize) {
    let offset = if bytes >= HUGE_PAGE_THRESHOLD { placement::next_offset() } else { 0 };
    (raw.wrapping_add(offset), offset)
}

/// The allocation a block of `bytes` bytes starting at `ptr` was carved from.
pub(crate) fn block_base(ptr: *mut u8, bytes: usize) -> *mut u8 {
    if bytes >= HUGE_PAGE_THRESHOLD {
        placement::base_of(ptr)
    } else {
        ptr
    }
}

/// Asks the kernel to back `[ptr, ptr + bytes)` with transparent huge pages; a hint only.
#[cfg(target_os = "linux")]
pub(crate) fn advise_huge_pages(ptr: *mut u8, bytes: usize) {
    if bytes < HUGE_PAGE_THRESHOLD {
        return;
    }
    // SAFETY: madvise only reads the range's mapping; the range is one live allocation that we own.
    // Failure (THP disabled, old kernel) leaves ordinary pages, which is correct, just slower.
    unsafe { libc::madvise(ptr.cast(), bytes, libc::MADV_HUGEPAGE) };
}

#[cfg(not(target_os = "linux"))]
pub(crate) fn advise_huge_pages(_ptr: *mut u8, _bytes: usize) {}

/// A block of host memory.
pub struct HostBlock(pub(crate) NonNull<u8>);

// SAFETY: a block is unaliased memory owned by whoever holds the `HostBlock`; moving it between
// threads moves that ownership.
unsafe impl Send for HostBlock {}

// SAFETY: `alloc_block` returns the start of a fresh system allocation of `block_layout(bytes)`
// (at least `bytes` bytes, 64-byte aligned, placed by `block_start` inside it), owned by the
// caller; `free_block` frees exactly such a block.
unsafe impl BlockSource for Cpu {
    type Backend = Cpu;
    type Block = HostBlock;

    fn alloc_block(&self, op: &'static str, bytes: usize) -> Result<HostBlock, Error> {
        let refused = |reason: &str| Error::Alloc { op, bytes, reason: reason.into() };
        let layout = block_layout(bytes).ok_or_else(|| refused("the size does not fit an allocation"))?;
        // SAFETY: `bytes` is at least 64, so the layout has a non-zero size.
        let raw = unsafe { alloc::alloc(layout) };
        if raw.is_null() {
            return Err(refused("the system allocator refused the request"));
        }
        advise_huge_pages(raw, layout.size());
        // Large blocks start staggered inside their huge page (`placement.rs`).
        let (start, _) = block_start(raw, bytes);
        // SAFETY: `start` is `raw` or lies inside the same live allocation, so it is non-null.
        Ok(HostBlock(unsafe { NonNull::new_unchecked(start) }))
    }

    unsafe fn free_block(&self, block: HostBlock, bytes: usize) {
        let layout = block_layout(bytes).expect("the layout was valid when the block was allocated");
        // SAFETY: the caller's contract: allocated by `alloc_block` with this size, so its base is
        // the start of an allocation with this layout.
        unsafe { alloc::dealloc(block_base(block.0.as_ptr(), bytes), layout) };
    }

    unsafe fn free_orphan(block: HostBlock, bytes: usize) {
        // SAFETY: the caller's contract; the system allocator needs no state to free.
        unsafe { Cpu.free_block(block, bytes) }
    }
}

impl Pool {
    /// An empty pool of CPU memory without a byte cap.
    pub fn new() -> Self {
        Self::with_source(Cpu, None)
    }

    /// An empty pool of CPU memory that never holds more than `cap` bytes (in use plus cached):
    /// past it, cached blocks are released, and if that is not enough the allocation fails with
    /// `Error::Alloc`.
    pub fn with_byte_cap(cap: usize) -> Self {
        Self::with_source(Cpu, Some(cap))
    }
}

impl Default for Pool {
    fn default() -> Self {
        Self::new()
    }
}
