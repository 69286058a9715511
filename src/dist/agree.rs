//! One outcome on every process: the rule every fallible collective of `dist` follows.
//!
//! A collective whose preconditions fail on some processes only (a block thinner than its halo,
//! a wrong array on the root, an allocation refused) must not return `Err` there while the others
//! go on into the next collective and wait forever. So each one first checks what it can on its
//! own, then [`agree`]s, with one small all-reduce and before any other communication, whether
//! every process may go on; if not, every process returns the same error.

use core::ffi::c_int;

use mpi::collective::SystemOperation;
use mpi::traits::{Communicator, CommunicatorCollectives, Root};

use crate::error::{Error, Result};

/// `local` on every process when it is `Ok` on all of them; otherwise the same error on every
/// process: each process's own error when all failed with the same message (arguments that are
/// wrong the same way everywhere), else an `Error::Mpi` naming the first failing process and its
/// message. Collective over `comm`: one all-reduce of two integers when every process succeeds.
///
/// # Panics
///
/// When MPI is finalized (see [`ensure_live`]).
pub(crate) fn agree<A>(comm: &impl Communicator, op: &'static str, local: Result<A>) -> Result<A> {
    ensure_live(op);
    let (rank, size) = (comm.rank(), comm.size());
    let failed = local.is_err();
    // The first failing rank (`size` when none) and whether every process failed.
    let mine: [c_int; 2] = [if failed { rank } else { size }, c_int::from(failed)];
    let mut all: [c_int; 2] = [0; 2];
    comm.all_reduce_into(&mine[..], &mut all[..], SystemOperation::min());
    let [first, every] = all;
    if first == size {
        return local;
    }
    // The first failing process's message, on every process.
    let root = comm.process_at_rank(first);
    let mut text = match &local {
        Err(e) if rank == first => e.to_string().into_bytes(),
        _ => Vec::new(),
    };
    let mut len = text.len() as u64;
    root.broadcast_into(&mut len);
    text.resize(usize::try_from(len).expect("a message shorter than memory"), 0);
    root.broadcast_into(&mut text[..]);
    let text = String::from_utf8_lossy(&text).into_owned();
    if every == 1 {
        let same = c_int::from(matches!(&local, Err(e) if e.to_string() == text));
        let mut all_same: c_int = 0;
        comm.all_reduce_into(&same, &mut all_same, SystemOperation::min());
        if all_same == 1 {
            return local;
        }
    }
    Err(Error::Mpi {
        op,
        reason: format!("process {first} of {size} failed: {text}"),
        fix: "the operation failed on every process because one did; fix that process's cause \
              (its message says how), and call collectives with the same arguments on every process",
    })
}

/// Panics, before any MPI call, when MPI is finalized (the `Universe` was dropped): no MPI call
/// is allowed any more, and a `DistArray` cannot communicate without one.
#[track_caller]
pub(super) fn ensure_live(op: &'static str) {
    if mpi::environment::is_finalized() {
        panic!(
            "{op}: MPI is finalized (the `Universe` was dropped), so no process can communicate any \
             more; keep the `Universe` alive until every `DistArray` is dropped"
        );
    }
}
