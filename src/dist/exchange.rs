//! The halo exchange of a [`DistArray`](super::DistArray): one message to and from each of the up
//! to `3^N - 1` neighbouring blocks (faces, edges, corners), described by MPI subarray datatypes
//! over the local block, so MPI reads the owned slabs and writes the halos in place: no packing
//! copy on either side.

use core::ffi::c_int;

use mpi::ffi;
use mpi::raw::AsRaw;

use super::Decomposition;
use crate::error::{Error, Result};

/// One neighbour: its rank, the region of the local block sent to it and the region its message
/// fills, as committed MPI datatypes, and the tags of both messages.
struct Neighbour {
    /// Whether it shares a face (one non-zero offset), not just an edge or a corner.
    face: bool,
    rank: c_int,
    send: ffi::MPI_Datatype,
    recv: ffi::MPI_Datatype,
    tag_out: c_int,
    tag_in: c_int,
}

/// The committed datatypes of every neighbour of one process's block; freed on drop.
pub(super) struct HaloPlan {
    neighbours: Vec<Neighbour>,
}

impl HaloPlan {
    /// The neighbours of `rank`'s block (shape `block`, halos `halo`) with elements of MPI type
    /// `element`. A direction is left out when it crosses a fixed global edge (that halo is the
    /// program's) or needs a halo of width 0.
    ///
    /// # Errors
    ///
    /// `Error::Decomposition` when a local axis is longer than MPI's `int` can count.
    pub(super) fn new<const N: usize>(
        decomposition: &Decomposition<N>,
        rank: usize,
        halo: [usize; N],
        element: ffi::MPI_Datatype,
    ) -> Result<Self> {
        let block = decomposition.block_shape(rank);
        let local: Vec<c_int> = (0..N).map(|k| int(block[k] + 2 * halo[k])).collect::<Result<_>>()?;
        let mut neighbours = Vec::new();
        for code in 0..3usize.pow(N as u32) {
            let offset: [isize; N] = core::array::from_fn(|k| (code / 3usize.pow(k as u32) % 3) as isize - 1);
            if offset.iter().all(|&o| o == 0) || (0..N).any(|k| offset[k] != 0 && halo[k] == 0) {
                continue;
            }
            let Some(to) = decomposition.neighbour_at(rank, offset) else { continue };
            // Along each axis: the slab next to the neighbour (send) and the halo facing it (receive).
            let (mut sub, mut send_at, mut recv_at) = (vec![0; N], vec![0; N], vec![0; N]);
            for k in 0..N {
                let (w, n) = (halo[k], block[k]);
                (sub[k], send_at[k], recv_at[k]) = match offset[k] {
                    -1 => (w, w, 0),
                    1 => (w, n, n + w),
                    _ => (n, w, w),
                };
            }
            let sub: Vec<c_int> = sub.into_iter().map(int).collect::<Result<_>>()?;
            let send_at: Vec<c_int> = send_at.into_iter().map(int).collect::<Result<_>>()?;
            let recv_at: Vec<c_int> = recv_at.into_iter().map(int).collect::<Result<_>>()?;
            neighbours.push(Neighbour {
                face: offset.iter().filter(|&&o| o != 0).count() == 1,
                rank: to as c_int,
                send: subarray(&local, &sub, &send_at, element),
                recv: subarray(&local, &sub, &recv_at, element),
                tag_out: tag(offset),
                tag_in: tag(offset.map(|o| -o)),
            });
        }
        Ok(HaloPlan { neighbours })
    }

    /// Starts every receive and send on the block at `base` (only the face neighbours' with
    /// `faces_only`), then runs `during`, then waits for all of them.
    ///
    /// # Safety
    ///
    /// `base` is the first element of the row-major local block the plan was made for, valid for
    /// the whole call; during the call nothing else writes the owned slabs the plan sends, and
    /// nothing else accesses the halos it receives (`during` may read the owned points).
    pub(super) unsafe fn exchange<R>(
        &self,
        comm: &impl AsRaw<Raw = ffi::MPI_Comm>,
        base: *mut core::ffi::c_void,
        faces_only: bool,
        during: impl FnOnce() -> R,
    ) -> R {
        let neighbours: Vec<&Neighbour> = self.neighbours.iter().filter(|n| n.face || !faces_only).collect();
        // SAFETY: `RSMPI_REQUEST_NULL` is a constant handle of the MPI library.
        let mut requests = vec![unsafe { ffi::RSMPI_REQUEST_NULL }; 2 * neighbours.len()];
        for (n, pair) in neighbours.iter().zip(requests.chunks_exact_mut(2)) {
            // SAFETY: the datatypes address the block at `base` (the caller's contract); each
            // request handle is written once and waited for below, before the block can move.
            unsafe {
                ffi::MPI_Irecv(base, 1, n.recv, n.rank, n.tag_in, comm.as_raw(), &mut pair[0]);
                ffi::MPI_Isend(base, 1, n.send, n.rank, n.tag_out, comm.as_raw(), &mut pair[1]);
            }
        }
        // Waits even if `during` panics, so MPI never writes into a block that is gone.
        struct WaitAll<'r>(&'r mut Vec<ffi::MPI_Request>);
        impl Drop for WaitAll<'_> {
            fn drop(&mut self) {
                // SAFETY: the handles were set by `MPI_Irecv`/`MPI_Isend` (or are null).
                unsafe { ffi::MPI_Waitall(self.0.len() as c_int, self.0.as_mut_ptr(), ffi::RSMPI_STATUSES_IGNORE) };
            }
        }
        let _wait = WaitAll(&mut requests);
        during()
    }
}

impl Drop for HaloPlan {
    fn drop(&mut self) {
        if mpi::environment::is_finalized() {
            return; // the library has released everything already
        }
        for n in &mut self.neighbours {
            // SAFETY: committed datatypes of this plan, freed once.
            unsafe {
                ffi::MPI_Type_free(&mut n.send);
                ffi::MPI_Type_free(&mut n.recv);
            }
        }
    }
}

/// The tag of a message sent towards `offset`: its base-3 code (distinct per direction, so two
/// messages between the same pair of processes never match the wrong receive).
fn tag<const N: usize>(offset: [isize; N]) -> c_int {
    offset.iter().rev().fold(0, |acc, &o| acc * 3 + (o + 1) as c_int)
}

/// `n` as MPI's `int`.
fn int(n: usize) -> Result<c_int> {
    c_int::try_from(n).map_err(|_| Error::Decomposition {
        op: "DistArray::new",
        reason: format!("a local axis of {n} points is longer than MPI's int can count"),
        fix: "use more processes along that axis",
    })
}

/// A committed row-major subarray datatype.
fn subarray(sizes: &[c_int], sub: &[c_int], starts: &[c_int], element: ffi::MPI_Datatype) -> ffi::MPI_Datatype {
    let mut t = core::mem::MaybeUninit::<ffi::MPI_Datatype>::uninit();
    // SAFETY: the arrays have one entry per axis, every subarray lies inside `sizes` (the
    // caller's slabs and halos are inside the local block), and `t` receives the new handle.
    unsafe {
        ffi::MPI_Type_create_subarray(
            sizes.len() as c_int,
            sizes.as_ptr(),
            sub.as_ptr(),
            starts.as_ptr(),
            ffi::MPI_ORDER_C as c_int,
            element,
            t.as_mut_ptr(),
        );
        let mut t = t.assume_init();
        ffi::MPI_Type_commit(&mut t);
        t
    }
}
