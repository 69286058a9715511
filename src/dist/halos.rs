//! The halo exchange methods of [`DistArray`]: the public forms (every neighbour, the faces
//! only, with work in between), the one exchange behind them and the distributed sweeps, in
//! place for host blocks (`exchange.rs`) or staged for device blocks (`staged.rs`), and what a
//! failure leaves.
//!
//! A process whose exchange fails never leaves its neighbours waiting: every message is posted
//! even when packing failed, and a device block whose staging memory a failure leaked takes
//! part in every later exchange from scratch memory. Where a failure can be one process's alone
//! (a device's), the processes agree on the outcome before the next collective.

use mpi::datatype::Equivalence;

use super::agree::ensure_live;
use super::exchange::Failure;
use super::{DistArray, DistBackend};
use crate::array::Array;
use crate::element::Pod;
use crate::error::{or_panic, Error, Result};
use crate::layout::Strided;
use crate::view::{Shared, View};

impl<T: Pod + Equivalence, const N: usize, B: DistBackend> DistArray<T, N, B> {
    /// Fills every halo from the neighbouring blocks (faces, edges and corners, wrapping on
    /// periodic axes). A halo across a fixed global edge (a corner too, when one of its axes
    /// crosses a fixed edge) is left alone: it holds the boundary values the program sets.
    /// Collective over the communicator.
    ///
    /// # Panics
    ///
    /// As [`DistArray::try_exchange_halos`] errs, and when MPI is finalized.
    #[track_caller]
    pub fn exchange_halos(&mut self) {
        or_panic(self.try_exchange_halos())
    }

    /// [`DistArray::exchange_halos`], returning errors.
    ///
    /// # Errors
    ///
    /// `Error::Mpi` when an MPI call of the exchange returns an error code (only under an error
    /// handler that returns codes; MPI's default aborts the job). The halos are then unspecified;
    /// when messages may still be in flight a host block is leaked (MPI may still write into it)
    /// and replaced by a zeroed one, and a device block's staging memory is leaked: that array
    /// then takes part in every later exchange from scratch memory (so its neighbours finish
    /// theirs) and fails each. `Error::Device` when a device block's copies fail: every message
    /// is still sent and received. With device blocks the processes agree on the outcome (one
    /// small all-reduce after the messages), so every process returns an error when one fails
    /// (`Error::Mpi` naming it on the others) and none goes on to wait for it; a host block's
    /// exchange fails only through MPI itself, on the processes MPI tells.
    pub fn try_exchange_halos(&mut self) -> Result<()> {
        self.exchange_agreed("DistArray::exchange_halos", false, |_| ())
    }

    /// [`DistArray::exchange_halos`] with `during` run while the messages are in flight, given the
    /// owned points (which the exchange only reads): the split form that hides communication
    /// behind the interior of a sweep, whose points need no halo. Its result is returned once
    /// every halo has arrived. A closure rather than a start/finish pair: a forgotten "finish"
    /// guard would leave MPI writing into memory the program could reach again.
    ///
    /// `during` must not finalize MPI (drop the `Universe`): after that not even the wait for
    /// the messages is allowed, so the exchange leaks the block (MPI may still write into it)
    /// and panics with a message saying so, before any further MPI call. A panic in `during` is
    /// resumed once every message has arrived.
    ///
    /// ```no_run
    /// # use cnda::dist::DistArray;
    /// # let universe = mpi::initialize().unwrap();
    /// # let mut u = DistArray::<f64, 2>::new(&universe.world(), [512, 512], [1, 1], [false; 2]);
    /// let interior_sum = u.exchange_halos_with(|owned| owned.sum());
    /// ```
    ///
    /// # Panics
    ///
    /// As [`DistArray::try_exchange_halos_with`] errs, and when MPI is finalized, before the call
    /// or by `during`.
    #[track_caller]
    pub fn exchange_halos_with<R>(&mut self, during: impl FnOnce(View<'_, T, N, Shared, B, Strided>) -> R) -> R {
        or_panic(self.try_exchange_halos_with(during))
    }

    /// [`DistArray::exchange_halos_with`], returning errors.
    ///
    /// # Errors
    ///
    /// As [`DistArray::try_exchange_halos`].
    pub fn try_exchange_halos_with<R>(
        &mut self,
        during: impl FnOnce(View<'_, T, N, Shared, B, Strided>) -> R,
    ) -> Result<R> {
        self.exchange_agreed("DistArray::exchange_halos_with", false, during)
    }

    /// [`DistArray::exchange_halos`] for the face neighbours only (`2N` messages instead of up
    /// to `3^N - 1`): enough for stencils without diagonal taps (5- and 7-point), whose sweeps
    /// never read an edge or corner of the halo, which keeps its old values.
    ///
    /// # Panics
    ///
    /// As [`DistArray::try_exchange_faces`] errs, and when MPI is finalized.
    #[track_caller]
    pub fn exchange_faces(&mut self) {
        or_panic(self.try_exchange_faces())
    }

    /// [`DistArray::exchange_faces`], returning errors.
    ///
    /// # Errors
    ///
    /// As [`DistArray::try_exchange_halos`].
    pub fn try_exchange_faces(&mut self) -> Result<()> {
        self.exchange_agreed("DistArray::exchange_faces", true, |_| ())
    }

    /// [`DistArray::exchange`], agreed on when the block lives on a device: the public
    /// exchanges. (The distributed sweeps agree once on their exchange and sweeps together.)
    ///
    /// # Panics
    ///
    /// As [`DistArray::exchange`].
    #[track_caller]
    fn exchange_agreed<R>(
        &mut self,
        op: &'static str,
        faces_only: bool,
        during: impl FnOnce(View<'_, T, N, Shared, B, Strided>) -> R,
    ) -> Result<R> {
        let outcome = self.exchange(op, faces_only, during);
        self.agree_on_device(op, outcome)
    }

    /// The exchange, with every neighbour or the faces only, running `during` meanwhile. Its
    /// outcome is this process's own: a caller that goes on to other collectives agrees on it
    /// first, where it can differ between processes (device blocks).
    ///
    /// # Panics
    ///
    /// When MPI is finalized, before the exchange (no MPI call is made) or by `during`.
    #[track_caller]
    pub(crate) fn exchange<R>(
        &mut self,
        op: &'static str,
        faces_only: bool,
        during: impl FnOnce(View<'_, T, N, Shared, B, Strided>) -> R,
    ) -> Result<R> {
        ensure_live(op);
        let local = self.local.desc_mut();
        let owned = (0..N).fold(self.local.view().into_strided(), |v, k| {
            v.narrow(k, self.halo[k], self.decomposition.block_shape(self.rank)[k])
        });
        let Some(base) = B::host_address(local.handle) else {
            // A device block: staged through host staging memory made with the block.
            let dev = B::handle_device(local.handle);
            let Some(staging) = self.staging.as_mut() else {
                // Every message still goes and comes (the neighbours wait for them), from and
                // into scratch memory: the halos stay as they are, and the exchange fails.
                self.plan.exchange_scratch(&*self.comm, faces_only).or_else(|f| Self::failed(f.error))?;
                return Err(Error::Mpi {
                    op,
                    reason: "a failed exchange left messages in flight, so this array's staging memory was leaked"
                        .into(),
                    fix: "the array's exchanges fail from now on (it still sends and receives, so the other \
                          processes finish theirs): rebuild it, and check the device and the MPI error handler",
                });
            };
            // SAFETY: `local` is the block the plan was made for (row-major, of this shape for
            // the array's life: `with_block` swaps in arrays of this shape and device only);
            // `during` gets a shared view of the owned points, which the exchange only reads,
            // and nothing else can reach the halos meanwhile. A failure with messages in flight
            // leaks the staging below, as the exchange requires.
            let outcome =
                unsafe { self.plan.exchange_staged(&*self.comm, staging, &dev, local, faces_only, || during(owned)) };
            return outcome.or_else(|Failure { error, in_flight }| {
                if in_flight {
                    core::mem::forget(self.staging.take());
                }
                Self::failed(error)
            });
        };
        // SAFETY: the plan was made for this block, row-major and of this shape for the array's
        // life (`local_mut` hands out views only, `with_block` swaps in arrays of this shape);
        // `during` gets a shared view of the owned points, which the plan only reads, and
        // nothing else can reach the halos meanwhile. A failure with messages in flight leaks
        // the block below, as the plan requires.
        match unsafe { self.plan.exchange(&*self.comm, base.cast(), faces_only, || during(owned)) } {
            Ok(value) => Ok(value),
            Err(Failure { error, in_flight }) => {
                if in_flight {
                    self.leak_block(&error);
                }
                Self::failed(error)
            }
        }
    }

    /// Runs `f` on this array with `block` (an array of this array's block shape, halos
    /// included, on its device: a solver's vector) as its block: the two are swapped for the
    /// call (no copy) and back. After an exchange of a host block that failed with messages in
    /// flight `block` is a fresh zeroed one (the one MPI may still write into stays leaked; a
    /// device block's staging memory is leaked instead).
    ///
    /// # Errors
    ///
    /// `Error::ShapeMismatch` when `block` differs from the block's shape; `Error::DeviceMismatch`.
    pub(crate) fn with_block<R>(
        &mut self,
        op: &'static str,
        block: &mut Array<T, N, B>,
        f: impl FnOnce(&mut Self) -> R,
    ) -> Result<R> {
        if block.shape() != self.local.shape() {
            return Err(Error::ShapeMismatch {
                op,
                expected: self.local.shape().to_vec(),
                got: block.shape().to_vec(),
            });
        }
        let mine = B::handle_device(self.local.desc().handle);
        crate::ops::output::same_device::<B>(op, &mine, &[B::handle_device(block.desc().handle)])?;
        // Arrays own row-major memory of their shape: the plan and the staging, made for this
        // shape on this device, serve either.
        core::mem::swap(&mut self.local, block);
        let outcome = f(self);
        core::mem::swap(&mut self.local, block);
        Ok(outcome)
    }

    /// Exchanges the halos of `block` as if it were this array's block ([`DistArray::with_block`]).
    /// The outcome is this process's own, as for [`DistArray::exchange`].
    ///
    /// # Errors
    ///
    /// As [`DistArray::with_block`] and [`DistArray::try_exchange_halos`].
    pub(crate) fn exchange_block(
        &mut self,
        op: &'static str,
        block: &mut Array<T, N, B>,
        faces_only: bool,
    ) -> Result<()> {
        self.with_block(op, block, |a| a.exchange(op, faces_only, |_| ()))?
    }

    /// Leaks the host block MPI may still write into (a failed exchange with messages in
    /// flight), keeping a fresh block of its shape (the plan's). Without memory for one, freeing
    /// or keeping the block could both let MPI write into memory Rust reuses: nothing sound is
    /// left, so the process aborts.
    pub(super) fn leak_block(&mut self, error: &Error) {
        let Ok(fresh) = Array::try_zeros_in(&self.local.allocator(), self.local.shape()) else {
            eprintln!("cnda: {error}; no memory to replace the block MPI may still write into");
            std::process::abort();
        };
        core::mem::forget(core::mem::replace(&mut self.local, fresh));
    }

    /// A failed exchange's error, or its panic when MPI is finalized (no MPI call may follow).
    #[track_caller]
    pub(super) fn failed<R>(error: Error) -> Result<R> {
        if mpi::environment::is_finalized() {
            panic!("{error}");
        }
        Err(error)
    }

    /// Whether the block lives in device memory (the same on every process: one backend).
    pub(super) fn on_device(&self) -> bool {
        B::host_address(self.local.desc().handle).is_none()
    }

    /// What an exchange that failed with messages in flight does to a device block (its staging
    /// memory leaked, as MPI or the device may still use it), for the tests of what follows: no
    /// device fails on demand. Nothing on a host block. Not part of the API.
    #[doc(hidden)]
    pub fn leak_staging_as_a_failed_exchange_would(&mut self) {
        core::mem::forget(self.staging.take());
    }
}
