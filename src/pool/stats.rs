//! What a pool reports: counters for the whole pool and per size class.

/// Counters of one size class.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClassStats {
    /// Block size of the class, in bytes.
    pub block_bytes: usize,
    /// Requests served from the cache.
    pub hits: u64,
    /// Requests that needed a fresh block.
    pub misses: u64,
    /// Blocks handed out and not yet returned.
    pub in_use: u64,
    /// Blocks waiting in the cache.
    pub cached: u64,
}

impl ClassStats {
    pub(crate) fn new(class: usize) -> Self {
        ClassStats { block_bytes: 1 << (class + 6), ..ClassStats::default() }
    }
}

/// A snapshot of a pool's counters; see `Pool::stats`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PoolStats {
    /// Blocks handed out (hits plus misses).
    pub allocations: u64,
    /// Blocks returned by dropped arrays.
    pub frees: u64,
    /// Requests served from the cache.
    pub hits: u64,
    /// Requests that needed a fresh block from the system.
    pub misses: u64,
    /// Bytes in blocks handed out and not returned (block sizes, not requested sizes).
    pub bytes_in_use: usize,
    /// Bytes in cached blocks.
    pub bytes_cached: usize,
    /// The largest `bytes_in_use` seen.
    pub high_water: usize,
    /// Per size class (class `k` holds blocks of `64 << k` bytes); classes never used have all
    /// counters zero.
    pub classes: Vec<ClassStats>,
}

impl PoolStats {
    pub(crate) fn record_take(&mut self, class: usize, block: usize, hit: bool) {
        self.allocations += 1;
        let c = &mut self.classes[class];
        if hit {
            self.hits += 1;
            c.hits += 1;
            c.cached -= 1;
        } else {
            self.misses += 1;
            c.misses += 1;
        }
        c.in_use += 1;
        self.bytes_in_use += block;
        self.high_water = self.high_water.max(self.bytes_in_use);
    }

    pub(crate) fn record_give_back(&mut self, class: usize, block: usize) {
        self.frees += 1;
        self.bytes_in_use -= block;
        self.bytes_cached += block;
        let c = &mut self.classes[class];
        c.in_use -= 1;
        c.cached += 1;
    }

    pub(crate) fn record_release(&mut self, class: usize, block: usize) {
        self.bytes_cached -= block;
        self.classes[class].cached -= 1;
    }

    /// The classes that were ever used.
    pub fn used_classes(&self) -> impl Iterator<Item = &ClassStats> {
        self.classes.iter().filter(|c| c.hits + c.misses > 0)
    }
}
