//! Where the run-time-tap kernels (`taps.rs`) cut a contiguous lane into blocks of `B` points,
//! whose sums stay in registers while the taps loop around them.
//!
//! The blocks between the first and the last start on a cache line of the output, whatever the
//! lane's offset (when a block reaches from the lane's start to the first line): each block of a
//! line or more then stores whole lines, and the taps at the point's own column in other rows of a
//! field (the vertical taps, most of a stencil's) load whole lines when the rows are aligned
//! alike. A lane starting at column 1 of a 64-byte aligned row (an interior row) otherwise splits
//! every AVX-512 store and those loads over two lines: the 5-point Jacobi's fused sweeps over
//! 4096-point rows ran 5% faster aligned (docs/BENCHMARKS.md). The first block, at the lane's
//! start, and the last, ending at its end, overlap their neighbours: they are computed whole but
//! store only the points no other block stores, so each point is stored once and no line is
//! written both by a streamed store and a plain one (`stream.rs`; a plain store into a line just
//! streamed stalls until the line is in memory, which cost streamed float32 sweeps their whole
//! gain).

use core::ops::Range;

/// The cache line (and the AVX-512 vector) in bytes.
const LINE: usize = 64;

/// A block of `B` points of a lane: computed whole, from `start`, and stored only at `store`
/// (points relative to `start`; the whole block but for the first and the last).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Block {
    pub(super) start: usize,
    pub(super) store: Range<usize>,
}

/// The blocks of `B` points covering a lane of `len >= B` contiguous points, in increasing order:
/// at `0`, then (when the output's first point is not on a line, and the first block reaches one)
/// from the first point on a line every `B` points, and last at `len - B` when the blocks before end
/// short of the lane's end. Every block lies inside the lane, and the points they store are every
/// point of `0..len`, each once.
pub(super) struct Blocks<const B: usize> {
    /// The points the block at 0 stores, when it comes before the aligned ones.
    peel: Option<usize>,
    /// The next aligned block's start: the first point no block has stored.
    next: usize,
    len: usize,
    done: bool,
}

impl<const B: usize> Blocks<B> {
    /// The blocks of a lane of `len >= B` points whose first output element is at `out`.
    #[inline(always)]
    pub(super) fn new<T>(out: *const T, len: usize) -> Self {
        debug_assert!(B > 0 && len >= B, "a lane of {len} points in blocks of {B}");
        let size = core::mem::size_of::<T>();
        let address = out as usize;
        // Points to the next line; none for an output not aligned to its element (no start of a
        // block could then be on a line).
        let ahead = if size == 0 || address % size != 0 { 0 } else { (LINE - address % LINE) % LINE / size };
        // A peeled first block only when it reaches the line (blocks shorter than a line, as of
        // 1-byte elements, may not) and an aligned block fits after it.
        let peel = ahead > 0 && ahead <= B && len - B >= ahead;
        Blocks { peel: peel.then_some(ahead), next: if peel { ahead } else { 0 }, len, done: false }
    }
}

impl<const B: usize> Iterator for Blocks<B> {
    type Item = Block;

    #[inline(always)]
    fn next(&mut self) -> Option<Block> {
        if let Some(ahead) = self.peel.take() {
            return Some(Block { start: 0, store: 0..ahead });
        }
        if self.done {
            return None;
        }
        // `next <= len` always: it starts at most at `len - B` and grows only past a whole block.
        if self.len - self.next >= B {
            let start = self.next;
            self.next += B;
            return Some(Block { start, store: 0..B });
        }
        self.done = true;
        let start = self.len - B;
        (self.next < self.len).then(|| Block { start, store: self.next - start..B })
    }
}

#[cfg(test)]
mod tests {
    use super::{Block, Blocks, LINE};
    use core::ops::Range;

    /// Every point stored once (and computed by the block that stores it), every block inside the
    /// lane, starts increasing, and every block but the first and the last on a line of the output (for an element-aligned output whose first
    /// line a block reaches): for every offset and length, elements of 1 to 8 bytes in blocks of 32
    /// and 64, and lanes at the top of the address space.
    #[test]
    fn blocks_cover_the_lane_inside_it_aligned_between_the_ends() {
        fn check<T, const B: usize>(address: usize, len: usize) {
            let out = address as *const T;
            let blocks: Vec<Block> = Blocks::<B>::new(out, len).collect();
            let starts: Vec<usize> = blocks.iter().map(|b| b.start).collect();
            let mut stores = vec![0; len];
            for Block { start, store } in &blocks {
                assert!(start + B <= len && store.start < store.end && store.end <= B, "{address} {len}: {blocks:?}");
                stores[start + store.start..start + store.end].iter_mut().for_each(|c| *c += 1);
            }
            assert!(stores.iter().all(|&c| c == 1), "{address} {len}: {blocks:?}");
            // Only the first and the last block store part of themselves.
            let parts = blocks.iter().filter(|b| b.store != (0..B)).count();
            assert!(parts <= 2, "{address} {len}: {blocks:?}");
            assert!(starts.windows(2).all(|w| w[0] < w[1]), "{address} {len}: {starts:?}");
            let size = core::mem::size_of::<T>();
            let inner = if starts.len() > 2 { &starts[1..starts.len() - 1] } else { &[][..] };
            // Aligned when a block reaches from the lane's start to the first line (to the block's
            // bytes when a block is shorter than a line).
            if address % size == 0 && (LINE - address % LINE) % LINE / size <= B {
                assert!(
                    inner.iter().all(|s| address.wrapping_add(s * size) % LINE.min(B * size) == 0),
                    "{address} {len}: {starts:?}"
                );
            }
            // No more blocks than the unaligned cut needs, plus the peeled one.
            assert!(starts.len() <= len.div_ceil(B) + 1, "{address} {len}: {starts:?}");
        }
        for offset in (0..2 * LINE).step_by(4) {
            for len in [32, 33, 40, 63, 64, 65, 95, 96, 97, 128, 129, 200, 4094, 4096] {
                check::<f64, 32>(0x1000 + offset, len);
                check::<f32, 32>(0x1000 + offset, len);
                check::<u16, 32>(0x1000 + offset, len);
                check::<u8, 32>(0x1000 + offset + 1, len);
                if len >= 64 {
                    check::<f32, 64>(0x1000 + offset, len);
                    check::<u8, 64>(0x1000 + offset + 3, len);
                }
                check::<f64, 32>((usize::MAX - 8 * len - offset - 64) & !7, len);
                check::<f32, 32>((usize::MAX - 4 * len - offset - 64) & !3, len);
            }
        }
        let cut = |address: usize, len| -> Vec<(usize, Range<usize>)> {
            Blocks::<32>::new(address as *const f64, len).map(|b| (b.start, b.store)).collect()
        };
        // A lane starting on a line: no peeled block; the last stores the 6 points after 64.
        assert_eq!(cut(0x1000, 70), [(0, 0..32), (32, 0..32), (38, 26..32)]);
        // Three points short of a line: the block at 0 stores those three, then from point 3.
        assert_eq!(cut(0x1000 - 24, 70), [(0, 0..3), (3, 0..32), (35, 0..32), (38, 29..32)]);
        // Too short for an aligned block after the peeled one: as before.
        assert_eq!(cut(0x1000 - 24, 34), [(0, 0..32), (2, 30..32)]);
        // A lane of one block: stored whole.
        assert_eq!(cut(0x1000 - 24, 32), [(0, 0..32)]);
    }
}
