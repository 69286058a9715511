//! Where a large host block starts inside its huge page.
//!
//! Large buffers are 2 MiB aligned and huge-page backed, so every one of them used to start at
//! offset 0 of a huge page: the input and output grids of a stencil (and any two arrays) then
//! share their low 21 address bits, and in physically indexed caches their elements compete for
//! the same sets. On an Intel Xeon (16 cores) that made a raw slice loop over two cnda arrays 2x
//! slower than over two `Vec`s; shifting one buffer by 4 KiB + 64 B removed the difference. So each
//! large block starts at the next of [`SLOTS`] offsets, [`STAGGER`] bytes apart (a whole number of
//! cache lines plus a page, so consecutive blocks differ in both the L1 and the L2/L3 set bits),
//! and keeps its huge pages.

use core::sync::atomic::{AtomicUsize, Ordering};

/// Distance between the start offsets of consecutive large blocks: one 4 KiB page plus one
/// cache line.
pub(crate) const STAGGER: usize = 4096 + 64;
/// Number of distinct start offsets.
pub(crate) const SLOTS: usize = 16;
/// Extra bytes a large block reserves so that any of the offsets fits.
pub(crate) const SPAN: usize = STAGGER * (SLOTS - 1);
/// Alignment of the memory a large block is carved from.
pub(crate) const HUGE_PAGE: usize = 2 << 20;

static NEXT: AtomicUsize = AtomicUsize::new(0);

/// The start offset for the next large block.
pub(crate) fn next_offset() -> usize {
    (NEXT.fetch_add(1, Ordering::Relaxed) % SLOTS) * STAGGER
}

/// The start of the huge-page-aligned allocation that a staggered block at `ptr` was carved
/// from: offsets are below `HUGE_PAGE`, so clearing the low bits undoes them.
pub(crate) fn base_of(ptr: *mut u8) -> *mut u8 {
    ptr.wrapping_sub(ptr as usize % HUGE_PAGE)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_cycle_through_distinct_cache_sets_inside_one_huge_page() {
        let offsets: Vec<usize> = (0..SLOTS).map(|_| next_offset()).collect();
        let mut sorted = offsets.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), SLOTS, "{offsets:?}");
        assert!(offsets.iter().all(|&o| o % 64 == 0 && o <= SPAN && o < HUGE_PAGE));
        let base = HUGE_PAGE as *mut u8;
        assert_eq!(base_of(base.wrapping_add(SPAN)), base);
    }
}
