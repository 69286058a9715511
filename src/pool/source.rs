//! Where a pool's fresh blocks come from: one `BlockSource` per backend. The pool logic (size
//! classes, free lists, statistics, cap) is written once over this trait; the CPU source below
//! is the system allocator, and a device backend adds its own (a CUDA context handing out device
//! allocations, say) without touching the pool.

use core::ptr::NonNull;
use std::alloc;

use crate::backend::cpu::buffer::{advise_huge_pages, block_layout};
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
        // SAFETY: `bytes` is at least 64.
        let raw = unsafe { alloc::alloc(block_layout(bytes)) };
        let ptr = NonNull::new(raw).ok_or_else(|| Error::Alloc {
            op,
            bytes,
            reason: "the system allocator refused the request".into(),
        })?;
        advise_huge_pages(raw, bytes);
        Ok(HostBlock(ptr))
    }

    unsafe fn free_block(&self, block: HostBlock, bytes: usize) {
        // SAFETY: the caller's contract: allocated by `alloc_block` with this size's layout.
        unsafe { alloc::dealloc(block.0.as_ptr(), block_layout(bytes)) };
    }
}
