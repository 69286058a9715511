//! Large host-device copies through pinned staging memory. The driver copies pageable memory
//! at a fraction of the bus's speed (8 GB/s against 55 GB/s pinned, measured on the H100
//! machine), so a large transfer goes through two pinned blocks of the device's, in chunks:
//! while the DMA engine moves one chunk, the host threads copy the next into the other block,
//! so the transfer runs at the slower of the bus and a parallel `memcpy`.

use core::mem::MaybeUninit;

#[cfg(feature = "rayon")]
use rayon::prelude::*;

use cudarc::driver::{result as driver, CudaEvent};

use super::device::{device_error, CudaDevice};
use crate::error::Result;

/// Transfers of at least this many bytes are staged; smaller ones go straight from pageable
/// memory, where staging would save less than its synchronization costs.
pub(crate) const STAGED_FROM: usize = 1 << 20;

/// Bytes per chunk and per pinned block: large enough that the per-chunk synchronization is a
/// few percent of the chunk's time on the bus, small enough that the unoverlapped first chunk
/// is too.
const CHUNK: usize = 16 << 20;

/// Bytes per task of the parallel host copy.
#[cfg(feature = "rayon")]
const PIECE: usize = 1 << 20;

/// A block of pinned (page-locked) host memory, zeroed when allocated so it is always
/// initialized bytes.
struct PinnedBlock(*mut u8);

// SAFETY: the block is plain host memory owned by the staging state, reached only under its
// device's staging lock.
unsafe impl Send for PinnedBlock {}

impl PinnedBlock {
    fn new(dev: CudaDevice) -> Result<Self> {
        dev.bind()?;
        // SAFETY: a fresh allocation of `CHUNK` bytes, zeroed before any read.
        let ptr = unsafe { driver::malloc_host(CHUNK, 0) }
            .map_err(|e| device_error(format!("pinning {CHUNK} bytes of host staging memory: {e:?}")))?
            .cast::<u8>();
        // SAFETY: `ptr` is `CHUNK` writable bytes just allocated.
        unsafe { core::ptr::write_bytes(ptr, 0, CHUNK) };
        Ok(PinnedBlock(ptr))
    }

    /// The first `len` bytes (at most `CHUNK`).
    fn bytes(&mut self, len: usize) -> &mut [u8] {
        assert!(len <= CHUNK);
        // SAFETY: the block is `CHUNK` initialized bytes, borrowed uniquely through `&mut self`.
        unsafe { core::slice::from_raw_parts_mut(self.0, len) }
    }
}

impl Drop for PinnedBlock {
    fn drop(&mut self) {
        // SAFETY: allocated by `malloc_host`, freed once; no copy is in flight (the staging
        // state waits for its events before dropping, see `Staging::drop`).
        let _ = unsafe { driver::free_host(self.0.cast()) };
    }
}

/// A device's staging state: two pinned blocks, each with the event of the last copy that used
/// it on the device's stream.
pub(crate) struct Staging {
    blocks: [PinnedBlock; 2],
    /// The event recorded after the last copy through each block, if one may be in flight.
    in_flight: [Option<CudaEvent>; 2],
}

impl Staging {
    pub(crate) fn new(dev: CudaDevice) -> Result<Self> {
        Ok(Staging { blocks: [PinnedBlock::new(dev)?, PinnedBlock::new(dev)?], in_flight: [None, None] })
    }

    /// Waits until no copy through block `k` is in flight.
    fn settle(&mut self, k: usize) -> Result<()> {
        if let Some(event) = self.in_flight[k].take() {
            event.synchronize().map_err(|e| device_error(format!("staged copy: {e:?}")))?;
        }
        Ok(())
    }

    /// Records that the work queued so far on `dev`'s stream uses block `k`.
    fn mark(&mut self, dev: CudaDevice, k: usize) -> Result<()> {
        let event = dev.stream().record_event(None).map_err(|e| device_error(format!("staged copy: {e:?}")))?;
        self.in_flight[k] = Some(event);
        Ok(())
    }

    /// Queues the copy of `src` to device address `dst` on `dev`'s stream. When this returns,
    /// `src` has been read in full (the last chunks may still be on their way from the pinned
    /// blocks, which later copies wait for).
    pub(crate) fn upload(&mut self, dev: CudaDevice, dst: u64, src: &[u8]) -> Result<()> {
        for (i, chunk) in src.chunks(CHUNK).enumerate() {
            let k = i % 2;
            self.settle(k)?;
            let pinned = self.blocks[k].bytes(chunk.len());
            parallel_copy(pinned, chunk);
            // SAFETY: the destination range lies inside the caller's device allocation
            // (`dst + src.len()`); the pinned block stays untouched until the event below has
            // passed.
            unsafe { driver::memcpy_htod_async(dst + (i * CHUNK) as u64, &*pinned, dev.stream().cu_stream()) }
                .map_err(|e| device_error(format!("to_device: {e:?}")))?;
            self.mark(dev, k)?;
        }
        Ok(())
    }

    /// Copies `dst.len()` bytes from device address `src` into `dst`, after the work queued on
    /// `dev`'s stream; waits for the copy. `dst` may start uninitialized; it is written in full
    /// on success.
    pub(crate) fn download(&mut self, dev: CudaDevice, dst: &mut [MaybeUninit<u8>], src: u64) -> Result<()> {
        let mut previous: Option<(usize, &mut [MaybeUninit<u8>])> = None;
        for (i, chunk) in dst.chunks_mut(CHUNK).enumerate() {
            let k = i % 2;
            self.settle(k)?;
            let pinned = self.blocks[k].bytes(chunk.len());
            // SAFETY: the source range lies inside the caller's device allocation; the pinned
            // block is read only after the event below has passed.
            unsafe { driver::memcpy_dtoh_async(pinned, src + (i * CHUNK) as u64, dev.stream().cu_stream()) }
                .map_err(|e| device_error(format!("to_host: {e:?}")))?;
            self.mark(dev, k)?;
            // While this chunk crosses the bus, the previous one is copied out.
            if let Some((j, out)) = previous.take() {
                self.settle(j)?;
                parallel_copy_out(out, self.blocks[j].bytes(out.len()));
            }
            previous = Some((k, chunk));
        }
        if let Some((j, out)) = previous {
            self.settle(j)?;
            parallel_copy_out(out, self.blocks[j].bytes(out.len()));
        }
        Ok(())
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        for k in 0..2 {
            let _ = self.settle(k);
        }
    }
}

/// `dst.copy_from_slice(src)` on the rayon pool, in `PIECE`-byte tasks (on this thread
/// without feature `rayon`).
fn parallel_copy(dst: &mut [u8], src: &[u8]) {
    #[cfg(feature = "rayon")]
    dst.par_chunks_mut(PIECE).zip(src.par_chunks(PIECE)).for_each(|(d, s)| d.copy_from_slice(s));
    #[cfg(not(feature = "rayon"))]
    dst.copy_from_slice(src);
}

/// As [`parallel_copy`], into possibly uninitialized bytes.
fn parallel_copy_out(dst: &mut [MaybeUninit<u8>], src: &[u8]) {
    assert_eq!(dst.len(), src.len());
    let copy = |d: &mut [MaybeUninit<u8>], s: &[u8]| {
        // SAFETY: `d` and `s` are pieces of equal length (the same `PIECE` split of equal
        // lengths) of two distinct allocations.
        unsafe { core::ptr::copy_nonoverlapping(s.as_ptr(), d.as_mut_ptr().cast::<u8>(), s.len()) }
    };
    #[cfg(feature = "rayon")]
    dst.par_chunks_mut(PIECE).zip(src.par_chunks(PIECE)).for_each(|(d, s)| copy(d, s));
    #[cfg(not(feature = "rayon"))]
    copy(dst, src);
}
