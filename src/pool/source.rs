//! Where a pool's fresh blocks come from: one `BlockSource` per backend. The pool logic (size
//! classes, free lists, statistics, cap) is written once over this trait; the CPU source below
//! is the system allocator, and a device backend adds its own (a CUDA context handing out device
//! allocations, say) without touching the pool.

use core::ptr::NonNull;
use std::alloc;

use crate::backend::cpu::buffer::{advise_huge_pages, block_base, block_layout, block_start};
use crate::backend::{Backend, Cpu};
use crate::error::Error;

/// A provider of raw memory blocks for a [`Pool`](super::Pool).
pub trait BlockSource: Send + Sync + 'static {
    /// The backend whose memory the blocks are.
    type Backend: Backend;
    /// One block (a host pointer for `Cpu`, a device handle elsewhere).
    type Block: Send;

    /// A fresh block of `bytes` bytes (a power of two, at least 64).
    ///
    /// # Errors
    ///
    /// `Error::Alloc` (or `Error::Device`) when the memory is refused.
    fn alloc_block(&self, op: &'static str, bytes: usize) -> Result<Self::Block, Error>;

    /// Gives a block back to the system.
    ///
    /// # Safety
    ///
    /// `block` came from `alloc_block` of this source with the same `bytes`, and is not used
    /// afterwards.
    unsafe fn free_block(&self, block: Self::Block, bytes: usize);
}

/// A block of host memory.
pub struct HostBlock(pub(crate) NonNull<u8>);

// SAFETY: a block is unaliased memory owned by whoever holds the `HostBlock`; moving it between
// threads moves that ownership.
unsafe impl Send for HostBlock {}

impl BlockSource for Cpu {
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
}
