//! Handing work to a rayon pool so that ThreadSanitizer sees the hand-over (shared by the fused
//! tests, which run under TSan in scripts/test).

/// `pool.install(f)`, with the hand-over to and from the pool's thread made visible to
/// ThreadSanitizer: rayon's latches are std's `Mutex` and `Condvar`, whose synchronization TSan
/// cannot see (std is not instrumented), so without this every write of the pipeline's threads
/// would look raced with the caller's reads after `install`. The atomics here are compiled into
/// this crate, so TSan sees their release/acquire pairs; they change nothing else.
pub fn install<R: Send>(pool: &rayon::ThreadPool, f: impl FnOnce() -> R + Send) -> R {
    use std::sync::atomic::{AtomicBool, Ordering};
    let handover = AtomicBool::new(false);
    handover.store(true, Ordering::Release);
    let result = pool.install(|| {
        handover.load(Ordering::Acquire);
        // A panic too is handed over this way, then resumed.
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
        handover.store(true, Ordering::Release);
        result
    });
    handover.load(Ordering::Acquire);
    result.unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}
