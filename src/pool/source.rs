//! Where a pool's fresh blocks come from: one `BlockSource` per backend. The pool logic (size
//! classes, free lists, statistics, cap, leases) is written once over this trait; the CPU's
//! source is the system allocator (`backend/cpu/block.rs`), and a device backend adds its own (a
//! CUDA context handing out device allocations, say) without touching the pool.

use crate::error::Error;
use crate::kernel::Backend;

/// A provider of raw memory blocks for a [`Pool`](super::Pool).
///
/// # Safety
///
/// The pool, and the buffers it leases blocks to, trust this contract without checking it:
/// `alloc_block(op, bytes)` returns a block of at least `bytes` bytes, aligned to 64 bytes (for
/// host memory), that no one else uses until it is given back through `free_block` or
/// `free_orphan`; and those two give back only blocks of this source, of the size asked for.
/// A source that hands out a smaller block makes every array leased from the pool read and
/// write past its memory.
pub unsafe trait BlockSource: Send + Sync + 'static {
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

    /// Gives back a block whose pool (and with it the source) is gone, when the last lease on it
    /// ends.
    ///
    /// # Safety
    ///
    /// As for [`BlockSource::free_block`].
    unsafe fn free_orphan(block: Self::Block, bytes: usize);
}
