//! One halo exchange for several distributed arrays of one split (the fields and time levels of
//! a system's step): one message to and from each neighbour carries every array's region, packed
//! one after another, so a step of `M` fields pays one message latency per neighbour, not `M`.
//! Device blocks are exchanged one array after another (each staged as `staged.rs` does).

use core::ffi::{c_int, c_void};

use mpi::datatype::Equivalence;
use mpi::ffi;
use mpi::raw::AsRaw;

use super::exchange::{post, Failure, HaloPlan, Message, Posted};
use super::{DistArray, DistBackend};
use crate::element::Pod;
use crate::error::{Error, Result};

impl HaloPlan {
    /// Fills the halos of the blocks at `bases` from every neighbour, one message each way per
    /// neighbour holding every block's region in the order of `bases`.
    ///
    /// # Errors
    ///
    /// `Error::Decomposition` when a message would be longer than MPI's `int` counts (before
    /// any is posted: every process of the split finds it alike); a [`Failure`] as
    /// [`HaloPlan::exchange`]'s (with messages in flight: the caller leaks every block).
    ///
    /// # Safety
    ///
    /// Every base is the first element of a live row-major block the plan was made for, distinct
    /// from the others, valid for the whole call (for ever after on a failure in flight); nothing
    /// else accesses the blocks during the call.
    pub(super) unsafe fn exchange_together(
        &self,
        comm: &impl AsRaw<Raw = ffi::MPI_Comm>,
        bases: &[*mut c_void],
    ) -> core::result::Result<(), Failure> {
        let neighbours = self.neighbours(false);
        let mut lengths = Vec::with_capacity(neighbours.len());
        for n in neighbours {
            let total = n.bytes.checked_mul(bases.len()).and_then(|b| c_int::try_from(b).ok());
            let Some(total) = total else {
                let error = Error::Decomposition {
                    op: "DistArray::exchange_together",
                    reason: format!("{} halo messages of {} bytes exceed MPI's int count", bases.len(), n.bytes),
                    fix: "exchange fewer fields together, or split the grid over more processes",
                };
                return Err(Failure { error, in_flight: false });
            };
            lengths.push(total);
        }
        let mut buffers: Vec<(Vec<u8>, Vec<u8>)> =
            lengths.iter().map(|&len| (vec![0; len as usize], vec![0; len as usize])).collect();
        let mut messages = Vec::with_capacity(neighbours.len());
        for ((n, (send, recv)), &len) in neighbours.iter().zip(&mut buffers).zip(&lengths) {
            for (base, chunk) in bases.iter().zip(send.chunks_exact_mut(n.bytes)) {
                // SAFETY: each base is a live block the plan was made for (the caller's
                // contract); the chunk holds one region's bytes.
                unsafe { n.packing.pack(base.cast_const().cast(), chunk) };
            }
            messages.push(Message::bytes(n, send.as_ptr().cast(), recv.as_mut_ptr().cast(), len));
        }
        // SAFETY: the messages address the buffers, kept until the wait or leaked below.
        let outcome = match unsafe { post(comm, &messages, || ()) } {
            Ok(outcome) => outcome,
            Err(failure) => {
                core::mem::forget(buffers); // MPI may still write into the receive buffers
                return Err(failure);
            }
        };
        if let Posted::Ran(_) = outcome {
            for (n, (_, recv)) in neighbours.iter().zip(&buffers) {
                for (base, chunk) in bases.iter().zip(recv.chunks_exact(n.bytes)) {
                    // SAFETY: every message has arrived; the blocks are the plan's and nothing
                    // else accesses them (the caller's contract).
                    unsafe { n.packing.unpack(chunk, base.cast()) };
                }
            }
        }
        outcome.finish()
    }
}

/// Fills every halo of every array of `arrays` from the neighbouring blocks, as
/// [`DistArray::exchange_halos`] does for each: host blocks in one message per neighbour, device
/// blocks one array after another. Collective; the outcome is this process's own (a caller that
/// goes on to other collectives agrees on it first where it can differ: device blocks).
///
/// # Panics
///
/// When the arrays are split differently (the callers' arrays are one state's), and when MPI is
/// finalized.
#[track_caller]
pub(super) fn exchange_together<T: Pod + Equivalence, const N: usize, B: DistBackend>(
    op: &'static str,
    arrays: &mut [&mut DistArray<T, N, B>],
) -> Result<()> {
    let Some((first, rest)) = arrays.split_first() else { return Ok(()) };
    assert!(
        rest.iter().all(|a| a.decomposition == first.decomposition && a.halo == first.halo),
        "the arrays exchanged together are split alike"
    );
    if first.on_device() {
        // Every array's messages go whatever the others gave: the neighbours wait for them.
        let mut outcome = Ok(());
        for a in arrays.iter_mut() {
            let each = a.exchange(op, false, |_| ());
            outcome = outcome.and(each);
        }
        return outcome;
    }
    super::agree::ensure_live(op);
    let bases: Vec<*mut c_void> = arrays
        .iter_mut()
        .map(|a| {
            let handle = a.local.desc_mut().handle;
            B::host_address(handle).expect("a host block").cast()
        })
        .collect();
    let first = &arrays[0];
    // SAFETY: each base is the first element of its array's row-major block, of the plan's
    // shape for the array's life (`local_mut` hands out views only); the arrays are distinct
    // (unique borrows), split alike (asserted above), so the first one's plan fits them all;
    // nothing else can reach them during the call. A failure in flight leaks every block below.
    let outcome = unsafe { first.plan.exchange_together(&*first.comm, &bases) };
    outcome.or_else(|Failure { error, in_flight }| {
        if in_flight {
            for a in arrays.iter_mut() {
                a.leak_block(&error);
            }
        }
        DistArray::<T, N, B>::failed(error)
    })
}
