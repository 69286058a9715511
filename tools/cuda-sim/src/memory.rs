//! The memory map. Device memory is host memory handed out here; every device address a copy,
//! memset or kernel touches must lie inside a live allocation. Freed blocks stay in quarantine
//! (not reused) for a while, so a kernel reading a freed buffer is caught rather than reading
//! someone else's data, and the error names the freed block.

use std::alloc::{alloc, dealloc, Layout};
use std::collections::{BTreeMap, VecDeque};

/// Alignment of every allocation (cudaMalloc guarantees 256 bytes).
pub const ALIGN: usize = 256;
/// Bytes of freed memory kept unreused before it returns to the host allocator.
const QUARANTINE_BYTES: usize = 256 << 20;
/// Freed blocks remembered for error messages.
const FREED_RECORDS: usize = 1 << 14;
/// The byte fresh device allocations are filled with (NaN for floats, -1 for integers), so code
/// that reads memory it never wrote shows it.
pub const POISON: u8 = 0xFF;

/// What an allocation is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `cuMemAlloc`/`cuMemAllocAsync`.
    Device,
    /// `cuMemHostAlloc` (pinned host memory, also addressable by kernels as on a GPU with UVA).
    PinnedHost,
    /// A module's `.global` variable.
    ModuleGlobal,
}

#[derive(Debug)]
struct Block {
    size: usize,
    kind: Kind,
    layout: Layout,
}

/// The live allocations, by base address, and the freed ones still in quarantine.
#[derive(Default)]
pub struct MemoryMap {
    live: BTreeMap<u64, Block>,
    quarantine: VecDeque<(u64, Block)>,
    quarantined_bytes: usize,
    freed: BTreeMap<u64, usize>,
    freed_order: VecDeque<u64>,
}

impl MemoryMap {
    /// A new block of `size` bytes filled with `fill`; its address.
    pub fn alloc(&mut self, size: usize, kind: Kind, fill: u8) -> Option<u64> {
        let layout = Layout::from_size_align(size.max(1), ALIGN).ok()?;
        // SAFETY: the layout has a non-zero size.
        let ptr = unsafe { alloc(layout) };
        if ptr.is_null() {
            return None;
        }
        // SAFETY: `ptr` holds `layout.size()` writable bytes.
        unsafe { ptr.write_bytes(fill, layout.size()) };
        let base = ptr as u64;
        self.freed.remove(&base);
        self.live.insert(base, Block { size, kind, layout });
        Some(base)
    }

    /// Frees the block at `base` (quarantined); `Err` when no live block starts there.
    pub fn free(&mut self, base: u64, kind: Kind) -> Result<(), String> {
        match self.live.get(&base) {
            Some(b) if b.kind == kind => {}
            Some(b) => return Err(format!("0x{base:x} is a {:?} block, not {kind:?}", b.kind)),
            None => return Err(format!("0x{base:x} is not the start of a live allocation ({})", self.describe(base))),
        }
        let block = self.live.remove(&base).expect("checked above");
        self.freed.insert(base, block.size);
        self.freed_order.push_back(base);
        if self.freed_order.len() > FREED_RECORDS {
            if let Some(old) = self.freed_order.pop_front() {
                self.freed.remove(&old);
            }
        }
        self.quarantined_bytes += block.layout.size();
        self.quarantine.push_back((base, block));
        while self.quarantined_bytes > QUARANTINE_BYTES {
            let Some((old, b)) = self.quarantine.pop_front() else { break };
            self.quarantined_bytes -= b.layout.size();
            // SAFETY: allocated in `alloc` with this layout, released once (it left `live`).
            unsafe { dealloc(old as *mut u8, b.layout) };
        }
        Ok(())
    }

    /// `Ok` when `[addr, addr + len)` lies inside one live block; else what is there instead.
    #[inline]
    pub fn check(&self, addr: u64, len: usize) -> Result<(), String> {
        if let Some((&base, b)) = self.live.range(..=addr).next_back() {
            if addr.checked_add(len as u64).is_some_and(|end| end <= base + b.size as u64) {
                return Ok(());
            }
        }
        Err(self.describe(addr))
    }

    /// The live block holding `addr`: (base, size).
    pub fn block_of(&self, addr: u64) -> Option<(u64, usize)> {
        let (&base, b) = self.live.range(..=addr).next_back()?;
        (addr < base + b.size as u64).then_some((base, b.size))
    }

    /// What lies at `addr`: inside a freed block, past the end of a live one, or nothing.
    pub fn describe(&self, addr: u64) -> String {
        if let Some((&base, &size)) = self.freed.range(..=addr).next_back() {
            if addr < base + size.max(1) as u64 {
                return format!("inside a FREED allocation 0x{base:x} of {size} bytes (offset {})", addr - base);
            }
        }
        if let Some((&base, b)) = self.live.range(..=addr).next_back() {
            let end = base + b.size as u64;
            if addr < end {
                return format!(
                    "runs past the end of allocation 0x{base:x} of {} bytes (offset {})",
                    b.size,
                    addr - base
                );
            }
            return format!("{} bytes past the end of allocation 0x{base:x} of {} bytes", addr - end, b.size);
        }
        "no allocation there".into()
    }

    /// Live bytes (for `cuMemGetInfo`).
    pub fn live_bytes(&self) -> usize {
        self.live.values().map(|b| b.size).sum()
    }
}

impl Drop for MemoryMap {
    fn drop(&mut self) {
        for (base, b) in std::mem::take(&mut self.live).into_iter().chain(self.quarantine.drain(..)) {
            // SAFETY: every block was allocated in `alloc` with its layout and is released once.
            unsafe { dealloc(base as *mut u8, b.layout) };
        }
    }
}
