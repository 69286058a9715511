//! [`ThreadBound`]: MPI state (a communicator, an array holding one) that the thread which made
//! it alone may use, carried inside types that must be `Send` and `Sync` (a multigrid
//! hierarchy, a linear operator), as MPI's default thread level requires: another thread gets an
//! error instead of the state, and a drop on another thread leaks it instead of calling MPI.

use core::mem::ManuallyDrop;
use std::thread::{self, ThreadId};

use crate::error::{Error, Result};

/// `inner`, usable from the thread that made this only.
pub(crate) struct ThreadBound<X> {
    thread: ThreadId,
    inner: ManuallyDrop<X>,
}

// SAFETY: `inner` is reached only through `get` and `get_mut`, which hand it out on the thread
// that made the value and refuse elsewhere, and dropped only on that thread (elsewhere it is
// leaked): moving or sharing a `ThreadBound` between threads never lets another thread touch
// `inner`, so `X` need be neither `Send` nor `Sync`.
unsafe impl<X> Send for ThreadBound<X> {}
// SAFETY: as for `Send`: a shared `ThreadBound` yields `&X` on the making thread only.
unsafe impl<X> Sync for ThreadBound<X> {}

impl<X> ThreadBound<X> {
    /// `inner`, bound to the calling thread.
    pub(crate) fn new(inner: X) -> Self {
        ThreadBound { thread: thread::current().id(), inner: ManuallyDrop::new(inner) }
    }

    /// `inner`, on the thread that made this.
    ///
    /// # Errors
    ///
    /// `Error::Mpi` on any other thread.
    pub(crate) fn get(&self, op: &'static str) -> Result<&X> {
        self.check(op)?;
        Ok(&self.inner)
    }

    /// `inner` mutably, on the thread that made this.
    ///
    /// # Errors
    ///
    /// `Error::Mpi` on any other thread.
    pub(crate) fn get_mut(&mut self, op: &'static str) -> Result<&mut X> {
        self.check(op)?;
        Ok(&mut self.inner)
    }

    fn check(&self, op: &'static str) -> Result<()> {
        if thread::current().id() != self.thread {
            return Err(Error::Mpi {
                op,
                reason: "called from another thread than the one that made the distributed object".into(),
                fix: "use distributed operators, solves and hierarchies on the thread that made them (MPI's \
                      default thread level allows one thread to call MPI)",
            });
        }
        Ok(())
    }
}

impl<X> Drop for ThreadBound<X> {
    fn drop(&mut self) {
        if thread::current().id() == self.thread {
            // SAFETY: dropped once, here; `inner` is not used after.
            unsafe { ManuallyDrop::drop(&mut self.inner) }
        }
        // Elsewhere leaked: its drop would call MPI from a thread that may not.
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn another_thread_gets_an_error_and_leaks_instead_of_dropping() {
        let dropped = std::sync::Arc::new(());
        let bound = ThreadBound::new(dropped.clone());
        assert!(bound.get("test").is_ok());
        let bound = std::thread::spawn(move || {
            let e = bound.get("test").unwrap_err().to_string();
            assert!(e.contains("another thread"), "{e}");
            bound
        })
        .join()
        .unwrap();
        drop(bound); // back on its thread: dropped
        assert_eq!(std::sync::Arc::strong_count(&dropped), 1);
        let leaked = ThreadBound::new(dropped.clone());
        std::thread::spawn(move || drop(leaked)).join().unwrap();
        assert_eq!(std::sync::Arc::strong_count(&dropped), 2, "dropped on another thread: leaked");
    }
}
