//! Non-temporal ("streaming") stores for kernel outputs too large to stay in cache.
//!
//! A plain store first reads its line into the cache (even a store of the whole line), then writes
//! it back when it is evicted, so one sweep of a stencil moves three lines of memory for each line it reads and
//! each line it writes. A non-temporal store of a whole line skips the read: a third less traffic,
//! and one sweep of the 5-point Jacobi over 4096^2 on two threads runs 1.1-1.2x faster here
//! (docs/BENCHMARKS.md).
//! It also leaves the line out of the cache, which is right only when the output would be evicted
//! before anyone read it again: [`Stores::for_sweep`] streams only a sweep (`par_apply` of the
//! run-time stencils, over bands) whose whole output is at least the last-level cache.
//! `CNDA_STREAMING=off` in the environment never streams (to compare, or where another process's
//! cache use makes the guess wrong), `CNDA_STREAMING=always` always does (the tests run the kernels
//! so on small arrays). x86-64 only; elsewhere every store is plain.

use super::simd::Isa;
use crate::element::Pod;

/// The cache line in bytes: a streamed store covers whole lines.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
const LINE: usize = 64;

/// How a kernel call stores its output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Stores {
    /// Plain stores: the lines stay in cache for whoever reads them next.
    Cached,
    /// Non-temporal stores of whole lines; `vector` is the widest vector (16, 32 or 64 bytes) of
    /// the instruction set the kernel runs with. Kernels hold [`Stores::fence_on_exit`]'s guard.
    #[cfg(target_arch = "x86_64")]
    Streamed { vector: usize },
}

impl Stores {
    /// The stores of a kernel run with `isa` for part of a sweep that writes `sweep_bytes` in all
    /// (0 where the caller does not know: the fused sweeps' hyperplanes, which the next sweep
    /// reads from cache): streamed when the sweep's output is at least the last-level cache.
    /// `CNDA_STREAMING` in the environment overrides the size test: `off` never streams, `always`
    /// always does (even the fused sweeps: for the tests), any other value is the size test.
    pub(super) fn for_sweep(isa: Isa, sweep_bytes: usize) -> Self {
        match streaming_threshold() {
            Some(threshold) if sweep_bytes >= threshold => Self::streamed(isa),
            _ => Stores::Cached,
        }
    }

    /// Streamed stores with `isa`'s vectors (plain where the architecture has none).
    pub(super) fn streamed(isa: Isa) -> Self {
        #[cfg(target_arch = "x86_64")]
        return Stores::Streamed { vector: isa.vector_bytes() };
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = isa;
            Stores::Cached
        }
    }

    /// `out[l] = block[l]` for the `B` points of a block: streamed when the block is whole lines
    /// on a line boundary (a lane's edges, stored plainly, must then store only lines no streamed
    /// block does: `lane_blocks.rs`).
    ///
    /// # Safety
    ///
    /// `out..out + B` is writable, and the CPU has the instruction set `self` was made for (the
    /// kernel runs with that [`Isa`]).
    #[inline(always)]
    pub(super) unsafe fn block<T: Pod, const B: usize>(self, out: *mut T, block: &[T; B]) {
        #[cfg(target_arch = "x86_64")]
        if let Stores::Streamed { vector } = self {
            let bytes = B * core::mem::size_of::<T>();
            if bytes % LINE == 0 && (out as usize) % LINE == 0 {
                let (from, to) = (block.as_ptr().cast::<u8>(), out.cast::<u8>());
                for line in 0..bytes / LINE {
                    // SAFETY: the line lies inside the block and inside `out..out + B` (the
                    // caller's contract), on a line boundary; `T: Pod` has no padding, so every
                    // byte read from the block is initialized; the CPU has `vector`'s stores.
                    unsafe { stream_line(vector, to.add(line * LINE), from.add(line * LINE)) };
                }
                return;
            }
        }
        for (l, &x) in block.iter().enumerate() {
            // SAFETY: `l < B`: a writable output element (the caller's contract).
            unsafe { *out.add(l) = x };
        }
    }

    /// A guard that, dropped, orders this thread's streamed stores before whatever it does next
    /// (streamed stores are weakly ordered: without the fence, the thread that joins this one
    /// could read stale lines). A kernel takes it before its first store and holds it to its
    /// end, so the fence runs on every way out: a return, and unwinding from a panic in the
    /// middle (an integer overflow in a debug build), after which a caller that catches the
    /// panic may still read what was stored.
    #[inline(always)]
    #[must_use = "the fence runs when the guard is dropped: hold it until the last store"]
    pub(super) fn fence_on_exit(self) -> Fence {
        Fence { streamed: self != Stores::Cached }
    }
}

/// The store fence of [`Stores::fence_on_exit`], run when dropped.
#[derive(Debug)]
pub(super) struct Fence {
    streamed: bool,
}

impl Fence {
    /// A guard that fences whatever the stores were: for kernels that stream stores of their own.
    #[inline(always)]
    #[must_use = "the fence runs when the guard is dropped: hold it until the last store"]
    pub(super) fn always() -> Self {
        Fence { streamed: true }
    }
}

impl Drop for Fence {
    #[inline(always)]
    fn drop(&mut self) {
        if !self.streamed {
            return;
        }
        #[cfg(target_arch = "x86_64")]
        // SAFETY: SSE is part of the x86-64 baseline.
        unsafe {
            core::arch::x86_64::_mm_sfence()
        };
        #[cfg(test)]
        tests::FENCES.with(|fences| fences.set(fences.get() + 1));
    }
}

/// One non-temporal store of the 64 bytes at `from` to `to`, in vectors of 32 bytes where the CPU
/// has AVX (`vector >= 32`), of 16 otherwise. AVX-512's single 64-byte store is left out: it needs
/// Rust 1.89 (past the crate's minimum), and the line is combined in the CPU's write-combining
/// buffer either way (Zen 4 splits it in two halves too).
///
/// # Safety
///
/// `to` is on a line boundary with the line writable, `from..from + 64` is readable and
/// initialized, and the CPU stores vectors of `vector` bytes (16 is the x86-64 baseline; 32 and
/// more need AVX).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn stream_line(vector: usize, to: *mut u8, from: *const u8) {
    use core::arch::x86_64::{__m128i, __m256i, _mm256_stream_si256, _mm_stream_si128};
    if vector >= 32 {
        for k in [0, 32] {
            // SAFETY: the caller's contract; `to + k` is on a 32-byte boundary, and the CPU has AVX.
            unsafe { _mm256_stream_si256(to.add(k).cast(), from.add(k).cast::<__m256i>().read_unaligned()) };
        }
    } else {
        for k in [0, 16, 32, 48] {
            // SAFETY: the caller's contract; `to + k` is on a 16-byte boundary (SSE2 is baseline).
            unsafe { _mm_stream_si128(to.add(k).cast(), from.add(k).cast::<__m128i>().read_unaligned()) };
        }
    }
}

/// The sweep size from which kernels stream, none for never (computed once).
fn streaming_threshold() -> Option<usize> {
    static BYTES: std::sync::OnceLock<Option<usize>> = std::sync::OnceLock::new();
    *BYTES.get_or_init(|| threshold_for(std::env::var("CNDA_STREAMING").ok().as_deref(), crate::caches::last_level))
}

/// The threshold for a `CNDA_STREAMING` setting: `off` none, `always` 0, anything else (or none)
/// `cache()`'s bytes.
fn threshold_for(setting: Option<&str>, cache: impl FnOnce() -> usize) -> Option<usize> {
    match setting {
        Some("off") => None,
        Some("always") => Some(0),
        _ => Some(cache()),
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    std::thread_local! {
        /// The fences this thread's kernels ran on streamed stores.
        pub(in crate::backend::cpu) static FENCES: core::cell::Cell<usize> = const { core::cell::Cell::new(0) };
    }

    #[test]
    fn the_fence_runs_when_the_guard_unwinds() {
        let before = FENCES.with(core::cell::Cell::get);
        let caught = std::panic::catch_unwind(|| {
            let _fence = Stores::streamed(Isa::detect()).fence_on_exit();
            panic!("a kernel's panic between two stores");
        });
        assert!(caught.is_err());
        let cached = std::panic::catch_unwind(|| {
            let _fence = Stores::Cached.fence_on_exit();
            panic!("no streamed store, no fence");
        });
        assert!(cached.is_err());
        let streams = usize::from(Stores::streamed(Isa::detect()) != Stores::Cached);
        assert_eq!(FENCES.with(core::cell::Cell::get), before + streams);
    }

    #[test]
    fn the_environment_sets_when_outputs_stream() {
        assert_eq!(threshold_for(Some("off"), || 7), None);
        assert_eq!(threshold_for(Some("always"), || 7), Some(0));
        assert_eq!(threshold_for(None, || 7), Some(7));
        assert_eq!(threshold_for(Some("auto"), || 7), Some(7));
    }

    /// Every block is stored exactly, at every offset from a line, with every instruction set;
    /// nothing around it is touched.
    fn stores_exactly<T: Pod + PartialEq + core::fmt::Debug, const B: usize>(value: impl Fn(usize) -> T, fill: T) {
        let block: [T; B] = core::array::from_fn(&value);
        let size = core::mem::size_of::<T>();
        for isa in Isa::available() {
            for stores in [Stores::Cached, Stores::streamed(isa)] {
                for shift in 0..LINE / size + 1 {
                    let len = B + 3 * LINE;
                    let mut buffer = crate::backend::cpu::CpuBuffer::try_from_slice("test", &vec![fill; len]).unwrap();
                    let base = buffer.as_mut_ptr();
                    // `shift` elements past the buffer's first line boundary.
                    let start = (LINE - base as usize % LINE) % LINE / size + shift;
                    // SAFETY: `start + B < 2 * LINE + B <= len`, and `isa` is one the CPU has.
                    unsafe { stores.block(base.add(start), &block) };
                    drop(stores.fence_on_exit());
                    for (i, &got) in buffer.as_slice().iter().enumerate() {
                        let want = if (start..start + B).contains(&i) { value(i - start) } else { fill };
                        assert_eq!(got, want, "{stores:?}, {isa:?}, element {i}, block at {start}");
                    }
                }
            }
        }
    }

    #[test]
    fn streamed_blocks_store_exactly_the_block() {
        stores_exactly::<f64, 32>(|l| l as f64 + 0.5, -1.0);
        stores_exactly::<f32, 64>(|l| l as f32 - 0.25, -1.0);
        stores_exactly::<i16, 64>(|l| l as i16 * 3, -7);
        stores_exactly::<u8, 64>(|l| l as u8 ^ 0x5a, 0xff);
        // Blocks short of a line, and of no whole number of lines: plain stores.
        stores_exactly::<u8, 32>(|l| l as u8 + 1, 0);
        stores_exactly::<f64, 12>(|l| l as f64, 0.0);
    }
}
