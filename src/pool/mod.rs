//! Pooled storage, on the host or a device: a [`Pool`] recycles allocations in power-of-two size classes, so arrays
//! allocated again and again in a time loop stop paying for fresh memory (page faults, kernel
//! zeroing). The pool is thread-safe (a `Mutex` around free lists), is a cheap-to-clone handle,
//! and is an allocator for any array constructor (`Array::try_zeros_in(&pool, shape)`).
//!
//! An array's memory returns to its pool when the array drops; if every pool handle was dropped
//! first, the memory is simply freed. Memory is zeroed again when a constructor promises zeros,
//! and every other constructor writes all elements before the array exists, so one array's data
//! never shows through another.
//!
//! ```
//! use cnda::prelude::*;
//! use cnda::pool::Pool;
//! let pool = Pool::new();
//! for _ in 0..3 {
//!     let a = Array::<f64, 2>::try_zeros_in(&pool, [512, 512]).unwrap();
//!     assert_eq!(a.sum(), 0.0);
//! }
//! let stats = pool.stats();
//! assert_eq!((stats.misses, stats.hits), (1, 2)); // one fresh block, reused twice
//! ```

mod source;
mod stats;

use std::sync::{Arc, Mutex, MutexGuard, Weak};

pub use source::BlockSource;
pub use stats::{ClassStats, PoolStats};

use crate::error::Error;
use crate::kernel::Cpu;

/// Smallest size class: one cache line.
const MIN_CLASS_SHIFT: u32 = 6;
/// Number of size classes (64 B up to 2^(6+57) B: every size an allocation may have).
const CLASSES: usize = 58;

/// The size class serving `bytes`, and the block size of that class.
pub(crate) fn class_of(bytes: usize) -> Option<(usize, usize)> {
    let block = bytes.max(1 << MIN_CLASS_SHIFT).checked_next_power_of_two()?;
    let class = (block.trailing_zeros() - MIN_CLASS_SHIFT) as usize;
    (class < CLASSES && block <= isize::MAX as usize / 2).then_some((class, block))
}

/// A memory pool over block source `S` (the system allocator for `Cpu`); see the module
/// documentation. Cloning gives another handle to the same pool.
pub struct Pool<S: BlockSource = Cpu> {
    inner: Arc<PoolInner<S>>,
}

impl<S: BlockSource> Clone for Pool<S> {
    fn clone(&self) -> Self {
        Pool { inner: Arc::clone(&self.inner) }
    }
}

/// A block on loan from a pool: it goes back to the pool's free list when the lease drops, or,
/// if every handle to the pool is gone by then, back to the system. What a pooled buffer holds,
/// on any backend.
pub struct Lease<S: BlockSource> {
    block: core::mem::ManuallyDrop<S::Block>,
    class: usize,
    pool: Weak<PoolInner<S>>,
}

impl<S: BlockSource> Lease<S> {
    /// The block.
    pub(crate) fn block(&self) -> &S::Block {
        &self.block
    }

    /// The pool the block came from, while it lives.
    pub fn pool(&self) -> Option<Pool<S>> {
        self.pool.upgrade().map(|inner| Pool { inner })
    }
}

impl<S: BlockSource> Drop for Lease<S> {
    fn drop(&mut self) {
        // SAFETY: `block` is not touched again after this take.
        let block = unsafe { core::mem::ManuallyDrop::take(&mut self.block) };
        match self.pool.upgrade() {
            Some(pool) => pool.give_back(block, self.class),
            // SAFETY: the block came from the (now dropped) pool's source for this class; this
            // lease was its only holder.
            None => unsafe { S::free_orphan(block, class_bytes(self.class)) },
        }
    }
}

/// The block size of size class `class`.
fn class_bytes(class: usize) -> usize {
    1usize << (class as u32 + MIN_CLASS_SHIFT)
}

/// The shared state of a pool (what its handles and leases point at).
pub(crate) struct PoolInner<S: BlockSource> {
    source: S,
    state: Mutex<PoolState<S::Block>>,
    cap: Option<usize>,
}

struct PoolState<B> {
    free: Vec<Vec<B>>,
    stats: PoolStats,
}

impl<S: BlockSource> core::fmt::Debug for Pool<S> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Pool").field("cap", &self.inner.cap).field("stats", &self.stats()).finish()
    }
}

impl<S: BlockSource> Pool<S> {
    /// An empty pool over `source`, with an optional byte cap.
    pub fn with_source(source: S, cap: Option<usize>) -> Self {
        let free = (0..CLASSES).map(|_| Vec::new()).collect();
        let stats = PoolStats { classes: (0..CLASSES).map(ClassStats::new).collect(), ..PoolStats::default() };
        Pool { inner: Arc::new(PoolInner { source, state: Mutex::new(PoolState { free, stats }), cap }) }
    }

    /// The source of the pool's blocks (a device, for a device pool).
    pub(crate) fn source(&self) -> &S {
        &self.inner.source
    }

    /// A snapshot of the statistics.
    pub fn stats(&self) -> PoolStats {
        self.inner.lock().stats.clone()
    }

    /// Frees every cached block; returns the bytes released.
    pub fn trim(&self) -> usize {
        let mut state = self.inner.lock();
        let released = release_cached(&self.inner.source, &mut state, usize::MAX);
        trace(|| tracing_event("trim", released, None));
        released
    }

    /// A block of at least `bytes` bytes, aligned for any CPU buffer: from the cache when one is
    /// free, otherwise fresh.
    pub(crate) fn take(&self, op: &'static str, bytes: usize) -> Result<Lease<S>, Error> {
        let (class, block) = class_of(bytes).ok_or(Error::Overflow { op, shape: vec![bytes], elem_size: 1 })?;
        let mut state = self.inner.lock();
        let cached = state.free[class].pop();
        let hit = cached.is_some();
        let taken = match cached {
            Some(cached) => {
                state.stats.bytes_cached -= block;
                cached
            }
            None => {
                if let Some(cap) = self.inner.cap {
                    let held = state.stats.bytes_in_use + state.stats.bytes_cached;
                    if held + block > cap {
                        release_cached(&self.inner.source, &mut state, held + block - cap);
                    }
                    let held = state.stats.bytes_in_use + state.stats.bytes_cached;
                    if held + block > cap {
                        return Err(Error::Alloc {
                            op,
                            bytes: block,
                            reason: format!(
                                "the pool's byte cap is {cap} bytes and {} are in use, so a {block}-byte block does not fit",
                                state.stats.bytes_in_use
                            ),
                        });
                    }
                }
                self.inner.source.alloc_block(op, block)?
            }
        };
        state.stats.record_take(class, block, hit);
        drop(state);
        trace(|| tracing_event("alloc", block, Some(hit)));
        Ok(Lease { block: core::mem::ManuallyDrop::new(taken), class, pool: Arc::downgrade(&self.inner) })
    }
}

impl<S: BlockSource> PoolInner<S> {
    fn lock(&self) -> MutexGuard<'_, PoolState<S::Block>> {
        // A panic while the lock was held leaves consistent free lists (each update is one push
        // or pop), so a poisoned lock is still usable.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Takes back a block handed out by `take`.
    fn give_back(&self, taken: S::Block, class: usize) {
        let block = class_bytes(class);
        let mut state = self.lock();
        state.stats.record_give_back(class, block);
        state.free[class].push(taken);
        drop(state);
        trace(|| tracing_event("free", block, None));
    }
}

impl<S: BlockSource> Drop for PoolInner<S> {
    fn drop(&mut self) {
        let state = self.state.get_mut().unwrap_or_else(|e| e.into_inner());
        release_cached(&self.source, state, usize::MAX);
    }
}

/// Frees cached blocks, largest first, until `want` bytes are released or none is left.
fn release_cached<S: BlockSource>(source: &S, state: &mut PoolState<S::Block>, want: usize) -> usize {
    let mut released = 0;
    for class in (0..CLASSES).rev() {
        let block = class_bytes(class);
        while released < want {
            let Some(cached) = state.free[class].pop() else { break };
            // SAFETY: cached blocks came from this source's `alloc_block` for this class's size
            // and are owned by the pool alone.
            unsafe { source.free_block(cached, block) };
            state.stats.record_release(class, block);
            released += block;
        }
    }
    released
}

#[inline]
fn trace(event: impl FnOnce()) {
    if cfg!(feature = "tracing") {
        event();
    }
}

#[allow(unused_variables)]
fn tracing_event(what: &'static str, bytes: usize, hit: Option<bool>) {
    #[cfg(feature = "tracing")]
    tracing::trace!(target: "cnda::pool", event = what, bytes, hit = hit.unwrap_or(false));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_are_powers_of_two_from_a_cache_line() {
        assert_eq!(class_of(1), Some((0, 64)));
        assert_eq!(class_of(64), Some((0, 64)));
        assert_eq!(class_of(65), Some((1, 128)));
        assert_eq!(class_of(1 << 20), Some((14, 1 << 20)));
        assert_eq!(class_of(usize::MAX), None);
    }
}
