//! The halo exchange of a [`DistArray`](super::DistArray): one message to and from each of the up
//! to `3^N - 1` neighbouring blocks (faces, edges, corners). A region that is one contiguous run
//! of the local block (a face across the first axis) is sent and received in place through an MPI
//! subarray datatype; any other is packed into a contiguous buffer row by row (a `memcpy` per
//! run along the last axis), sent as bytes, and unpacked: measured here (docs/BENCHMARKS.md,
//! `mpi_halo`), Open MPI's datatype engine walking a strided column took 1.2-1.8x as long as
//! packing it.

use core::ffi::c_int;

use mpi::ffi;
use mpi::raw::AsRaw;

use super::Decomposition;
use crate::error::{Error, Result};

/// One neighbour: its rank, the region of the local block sent to it and the region its message
/// fills, as committed MPI datatypes, and the tags of both messages.
pub(super) struct Neighbour {
    /// Whether it shares a face (one non-zero offset), not just an edge or a corner.
    face: bool,
    rank: c_int,
    send: ffi::MPI_Datatype,
    recv: ffi::MPI_Datatype,
    tag_out: c_int,
    tag_in: c_int,
    /// The regions' shape and where the sent and the received one start (local coordinates).
    pub(super) sub: Vec<usize>,
    pub(super) send_start: Vec<usize>,
    pub(super) recv_start: Vec<usize>,
    /// Bytes per message.
    pub(super) bytes: usize,
    /// How to pack the two regions; a single block's exchange sends them in place through the
    /// datatypes instead when `in_place` (each region is one contiguous run).
    pub(super) packing: Packing,
    in_place: bool,
}

/// Two equally shaped regions of the row-major local block, walked as runs along its last axis.
pub(super) struct Packing {
    /// Element offsets of the sent and the received region's first element.
    send_at: usize,
    recv_at: usize,
    /// The regions' shape, and the local block's strides in elements.
    sub: Vec<usize>,
    strides: Vec<usize>,
    /// Bytes per element, and per message (fits MPI's `int`).
    elem: usize,
    bytes: c_int,
}

impl Packing {
    /// The element offsets (from the region's first element) of every run along the last axis,
    /// in row-major order, and the run length in bytes.
    fn runs(&self) -> (impl Iterator<Item = usize> + '_, usize) {
        let n = self.sub.len();
        let rows: usize = self.sub[..n - 1].iter().product();
        let offsets = (0..rows).map(move |mut r| {
            let mut at = 0;
            for k in (0..n - 1).rev() {
                at += (r % self.sub[k]) * self.strides[k];
                r /= self.sub[k];
            }
            at
        });
        (offsets, self.sub[n - 1] * self.elem)
    }

    /// Copies the sent region of the block at `base` into `buf`.
    ///
    /// # Safety
    ///
    /// `base` is the local block the plan was made for (so the region lies inside it), readable;
    /// `buf` holds `bytes` bytes.
    pub(super) unsafe fn pack(&self, base: *const u8, buf: &mut [u8]) {
        let (offsets, run) = self.runs();
        for (i, at) in offsets.enumerate() {
            // SAFETY: the run lies inside the block (the region does) and inside `buf` (runs are
            // `bytes / rows` bytes each, in order); the two do not overlap.
            unsafe {
                core::ptr::copy_nonoverlapping(
                    base.add((self.send_at + at) * self.elem),
                    buf.as_mut_ptr().add(i * run),
                    run,
                )
            };
        }
    }

    /// Copies `buf` into the received region of the block at `base`.
    ///
    /// # Safety
    ///
    /// As for [`Packing::pack`], with the block writable and nothing else accessing the region.
    pub(super) unsafe fn unpack(&self, buf: &[u8], base: *mut u8) {
        let (offsets, run) = self.runs();
        for (i, at) in offsets.enumerate() {
            // SAFETY: as in `pack`.
            unsafe {
                core::ptr::copy_nonoverlapping(
                    buf.as_ptr().add(i * run),
                    base.add((self.recv_at + at) * self.elem),
                    run,
                )
            };
        }
    }
}

/// Whether a region of shape `sub` is one contiguous run of a row-major block of shape `local`:
/// every axis after the first one longer than 1 is whole.
fn contiguous(sub: &[usize], local: &[usize]) -> bool {
    match sub.iter().position(|&n| n > 1) {
        None => true,
        Some(k) => (k + 1..sub.len()).all(|j| sub[j] == local[j]),
    }
}

/// The committed datatypes of every neighbour of one process's block; freed on drop. Faces come
/// first (an exchange of the faces only takes a prefix).
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
    /// `Error::Decomposition` when a local axis is longer than MPI's `int` can count;
    /// `Error::Mpi` when MPI refuses a datatype.
    pub(super) fn new<const N: usize>(
        decomposition: &Decomposition<N>,
        rank: usize,
        halo: [usize; N],
        element: ffi::MPI_Datatype,
        elem: usize,
    ) -> Result<Self> {
        let block = decomposition.block_shape(rank);
        let local_shape: [usize; N] = core::array::from_fn(|k| block[k] + 2 * halo[k]);
        let strides: Vec<usize> = (0..N).map(|k| local_shape[k + 1..].iter().product()).collect();
        let local: Vec<c_int> = (0..N).map(|k| int(block[k] + 2 * halo[k])).collect::<Result<_>>()?;
        // Pushed into the plan as they are made, so that a later failure frees them.
        let mut plan = HaloPlan { neighbours: Vec::new() };
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
            let at = |start: &[usize]| (0..N).map(|k| start[k] * strides[k]).sum::<usize>();
            let bytes = sub.iter().product::<usize>() * elem;
            let in_place = contiguous(&sub, &local_shape);
            let packing = Packing {
                send_at: at(&send_at),
                recv_at: at(&recv_at),
                sub: sub.clone(),
                strides: strides.clone(),
                elem,
                bytes: int(bytes)?,
            };
            let ints = |v: &[usize]| v.iter().map(|&n| int(n)).collect::<Result<Vec<c_int>>>();
            let (sub_int, send_int, recv_int) = (ints(&sub)?, ints(&send_at)?, ints(&recv_at)?);
            plan.neighbours.push(Neighbour {
                face: offset.iter().filter(|&&o| o != 0).count() == 1,
                rank: to as c_int,
                send: subarray(&local, &sub_int, &send_int, element)?,
                recv: subarray(&local, &sub_int, &recv_int, element)?,
                tag_out: tag(offset),
                tag_in: tag(offset.map(|o| -o)),
                sub,
                send_start: send_at,
                recv_start: recv_at,
                bytes,
                packing,
                in_place,
            });
        }
        // Faces first, each group in code order (a stable sort).
        plan.neighbours.sort_by_key(|n| !n.face);
        Ok(plan)
    }

    /// The neighbours an exchange talks to: every one, or the faces only (a prefix).
    pub(super) fn neighbours(&self, faces_only: bool) -> &[Neighbour] {
        let faces = self.neighbours.iter().take_while(|n| n.face).count();
        if faces_only {
            &self.neighbours[..faces]
        } else {
            &self.neighbours
        }
    }

    /// Starts every receive and send on the block at `base` (only the face neighbours' with
    /// `faces_only`), then runs `during`, then waits for all of them. A panic in `during` is
    /// resumed once every message has arrived.
    ///
    /// # Errors
    ///
    /// A [`Failure`] when an MPI call returns an error code (the messages started are waited for
    /// first), or when `during` finalized MPI: then no MPI call may follow, so the messages are
    /// not waited for.
    ///
    /// # Safety
    ///
    /// `base` is the first element of the row-major local block the plan was made for, valid for
    /// the whole call, and for ever after it when it fails with [`Failure::in_flight`] (MPI may
    /// still write into the block: the caller leaks it); during the call nothing else writes the
    /// owned slabs the plan sends, and nothing else accesses the halos it receives (`during` may
    /// read the owned points).
    pub(super) unsafe fn exchange<R>(
        &self,
        comm: &impl AsRaw<Raw = ffi::MPI_Comm>,
        base: *mut core::ffi::c_void,
        faces_only: bool,
        during: impl FnOnce() -> R,
    ) -> core::result::Result<R, Failure> {
        let neighbours = self.neighbours(faces_only);
        // The packed messages' buffers: the sent regions copied in now, the received ones
        // copied out after the wait.
        let mut buffers: Vec<(Vec<u8>, Vec<u8>)> = neighbours
            .iter()
            .map(|n| if n.in_place { (Vec::new(), Vec::new()) } else { (vec![0; n.bytes], vec![0; n.bytes]) })
            .collect();
        let mut messages = Vec::with_capacity(neighbours.len());
        for (n, (send, recv)) in neighbours.iter().zip(&mut buffers) {
            messages.push(if n.in_place {
                Message::typed(n, base.cast_const(), base, 1, [n.send, n.recv])
            } else {
                let p = &n.packing;
                // SAFETY: the block at `base` is the plan's (the caller's contract), and its
                // owned slabs are only read meanwhile; `send` holds the message's bytes.
                unsafe { p.pack(base.cast_const().cast(), send) };
                Message::bytes(n, send.as_ptr().cast(), recv.as_mut_ptr().cast(), p.bytes)
            });
        }
        // SAFETY: the datatypes address the block at `base` (the caller's contract), or the
        // buffers hold the packed bytes, kept until the wait or leaked below on failure.
        let outcome = unsafe { post(comm, &messages, during) };
        let outcome = match outcome {
            Ok(outcome) => outcome,
            Err(failure) => {
                // MPI may still write into the receive buffers: they must outlive the program.
                core::mem::forget(buffers);
                return Err(failure);
            }
        };
        let arrived = matches!(outcome, Posted::Ran(_));
        for (n, (_, recv)) in neighbours.iter().zip(&buffers).filter(|(n, _)| arrived && !n.in_place) {
            // SAFETY: every message has arrived; the block at `base` is the plan's and nothing
            // else accesses its halos (the caller's contract).
            unsafe { n.packing.unpack(recv, base.cast()) };
        }
        outcome.finish()
    }
}

/// One message pair with a neighbour: where the outgoing data lies and the incoming goes.
pub(super) struct Message {
    send: *const core::ffi::c_void,
    recv: *mut core::ffi::c_void,
    count: c_int,
    send_type: ffi::MPI_Datatype,
    recv_type: ffi::MPI_Datatype,
    rank: c_int,
    tag_out: c_int,
    tag_in: c_int,
}

impl Message {
    /// `count` bytes to and from neighbour `n`, from `send` and into `recv`.
    pub(super) fn bytes(
        n: &Neighbour,
        send: *const core::ffi::c_void,
        recv: *mut core::ffi::c_void,
        count: c_int,
    ) -> Self {
        // SAFETY: `RSMPI_UINT8_T` is a constant handle of the MPI library.
        let bytes = unsafe { ffi::RSMPI_UINT8_T };
        Self::typed(n, send, recv, count, [bytes, bytes])
    }

    /// `count` items of datatypes `[sent, received]` to and from neighbour `n`.
    fn typed(
        n: &Neighbour,
        send: *const core::ffi::c_void,
        recv: *mut core::ffi::c_void,
        count: c_int,
        [send_type, recv_type]: [ffi::MPI_Datatype; 2],
    ) -> Self {
        Message { send, recv, count, send_type, recv_type, rank: n.rank, tag_out: n.tag_out, tag_in: n.tag_in }
    }
}

/// What [`post`] leaves once every message has arrived: `during`'s outcome, or the error that
/// stopped the posting (`during` then did not run).
pub(super) enum Posted<R> {
    Ran(std::thread::Result<R>),
    Refused(Error),
}

impl<R> Posted<R> {
    /// `during`'s value, its panic resumed, or the posting's error (nothing in flight).
    pub(super) fn finish(self) -> core::result::Result<R, Failure> {
        match self {
            Posted::Ran(Ok(value)) => Ok(value),
            Posted::Ran(Err(panic)) => std::panic::resume_unwind(panic),
            Posted::Refused(error) => Err(Failure { error, in_flight: false }),
        }
    }
}

/// Starts every receive and send of `messages`, runs `during`, and waits for all of them: the
/// one MPI sequence behind both exchanges (in place on the host, staged for devices).
///
/// # Errors
///
/// A [`Failure`] with messages in flight when `MPI_Waitall` fails or `during` finalized MPI
/// (then no MPI call may follow): the caller leaks the memory the messages address.
///
/// # Safety
///
/// Every message's pointers and datatypes address memory valid for the whole call (and for
/// ever after on a [`Failure`]), which nothing else accesses meanwhile but `during`'s reads
/// of sent data.
pub(super) unsafe fn post<R>(
    comm: &impl AsRaw<Raw = ffi::MPI_Comm>,
    messages: &[Message],
    during: impl FnOnce() -> R,
) -> core::result::Result<Posted<R>, Failure> {
    // SAFETY: `RSMPI_REQUEST_NULL` is a constant handle of the MPI library.
    let mut requests = vec![unsafe { ffi::RSMPI_REQUEST_NULL }; 2 * messages.len()];
    let mut started = Ok(());
    for (m, pair) in messages.iter().zip(requests.chunks_exact_mut(2)) {
        // SAFETY: the memory is valid (the caller's contract); each request handle is written
        // once and waited for below, before the memory can move.
        started = check("MPI_Irecv", unsafe {
            ffi::MPI_Irecv(m.recv, m.count, m.recv_type, m.rank, m.tag_in, comm.as_raw(), &mut pair[0])
        })
        .and_then(|()| {
            // SAFETY: as above.
            check("MPI_Isend", unsafe {
                ffi::MPI_Isend(m.send, m.count, m.send_type, m.rank, m.tag_out, comm.as_raw(), &mut pair[1])
            })
        });
        if started.is_err() {
            break; // the requests started so far are still waited for
        }
    }
    // Caught, so that the messages are waited for before the panic goes on and the memory can
    // be freed; resumed by `Posted::finish`.
    let result = started.is_ok().then(|| std::panic::catch_unwind(std::panic::AssertUnwindSafe(during)));
    // `during` may have dropped the `Universe`: after `MPI_Finalize` no MPI call is allowed,
    // not even the wait, so the messages' memory must outlive the program.
    if mpi::environment::is_finalized() {
        return Err(Failure {
            error: Error::Mpi {
                op: "DistArray::exchange_halos_with",
                reason: "the closure finalized MPI (it dropped the `Universe`) while the halo \
                         messages were in flight"
                    .into(),
                fix: "keep the `Universe` alive until every `DistArray` is dropped; the closure \
                      may only compute",
            },
            in_flight: true,
        });
    }
    // SAFETY: the handles were set by `MPI_Irecv`/`MPI_Isend` (or are null).
    let code = unsafe { ffi::MPI_Waitall(requests.len() as c_int, requests.as_mut_ptr(), ffi::RSMPI_STATUSES_IGNORE) };
    // Some requests may be pending still, writing whenever they complete.
    check("MPI_Waitall", code).map_err(|error| Failure { error, in_flight: true })?;
    Ok(match (started, result) {
        (Err(error), _) => Posted::Refused(error),
        (Ok(()), Some(outcome)) => Posted::Ran(outcome),
        (Ok(()), None) => unreachable!("`during` runs whenever every request started"),
    })
}

/// A failed exchange: the error, and whether messages may still be in flight (MPI may write into
/// the block later, so its owner must leak it).
pub(super) struct Failure {
    pub(super) error: Error,
    pub(super) in_flight: bool,
}

impl Drop for HaloPlan {
    fn drop(&mut self) {
        if mpi::environment::is_finalized() {
            return; // the library has released everything already
        }
        for n in &mut self.neighbours {
            // SAFETY: committed datatypes of this plan, freed once. A failure (an invalid handle,
            // which cannot happen) could only leak them: nothing to do about it in a drop.
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
///
/// # Errors
///
/// `Error::Mpi` when MPI refuses to create or commit it.
fn subarray(sizes: &[c_int], sub: &[c_int], starts: &[c_int], element: ffi::MPI_Datatype) -> Result<ffi::MPI_Datatype> {
    let mut t = core::mem::MaybeUninit::<ffi::MPI_Datatype>::uninit();
    // SAFETY: the arrays have one entry per axis, every subarray lies inside `sizes` (the
    // caller's slabs and halos are inside the local block), and `t` receives the new handle.
    check("MPI_Type_create_subarray", unsafe {
        ffi::MPI_Type_create_subarray(
            sizes.len() as c_int,
            sizes.as_ptr(),
            sub.as_ptr(),
            starts.as_ptr(),
            ffi::MPI_ORDER_C as c_int,
            element,
            t.as_mut_ptr(),
        )
    })?;
    // SAFETY: `MPI_Type_create_subarray` succeeded, so it wrote the handle.
    let mut t = unsafe { t.assume_init() };
    // SAFETY: `t` is a new, uncommitted datatype handle.
    if let Err(e) = check("MPI_Type_commit", unsafe { ffi::MPI_Type_commit(&mut t) }) {
        // SAFETY: `t` is a datatype handle of this function's, freed once; its own failure would
        // only leak the handle.
        unsafe { ffi::MPI_Type_free(&mut t) };
        return Err(e);
    }
    Ok(t)
}

/// `Ok` for `MPI_SUCCESS`, else `Error::Mpi` with the call's name, the code and MPI's message for
/// it. (Under MPI's default error handler, `MPI_ERRORS_ARE_FATAL`, a failing call aborts the job
/// before it returns; codes come back under `MPI_ERRORS_RETURN`.)
pub(super) fn check(call: &'static str, code: c_int) -> Result<()> {
    if code == ffi::MPI_SUCCESS as c_int {
        return Ok(());
    }
    let mut text = [0u8; 1024]; // MPI_MAX_ERROR_STRING is 256 in Open MPI and 1024 in MPICH
    let mut len: c_int = 0;
    // SAFETY: the buffer holds MPI_MAX_ERROR_STRING bytes (at most 1024 in every MPI); `len`
    // receives the message's length. Allowed before `MPI_Init` and after `MPI_Finalize`.
    let message =
        if unsafe { ffi::MPI_Error_string(code, text.as_mut_ptr().cast(), &mut len) } == ffi::MPI_SUCCESS as c_int {
            String::from_utf8_lossy(&text[..usize::try_from(len).unwrap_or(0).min(text.len())]).into_owned()
        } else {
            "no message".to_owned()
        };
    Err(Error::Mpi {
        op: "DistArray (halo exchange)",
        reason: format!("{call} returned error code {code} ({message})"),
        fix: "the MPI library refused the call: check the MPI installation and the communicator \
              (its error handler returned the code instead of aborting); the halos are unspecified",
    })
}

#[cfg(test)]
mod tests {
    use super::check;

    #[test]
    fn an_mpi_error_code_becomes_an_error_with_the_call_and_mpis_message() {
        // Open MPI answers `MPI_Error_string` only once initialized (a singleton here, without
        // `mpirun`); this is the only test of the library that initializes MPI.
        // Its daemon must not inherit a checkpoint test's open HDF5 file (and the file's lock).
        let _no_open_files = crate::files_and_forks_one_at_a_time();
        let _universe = mpi::initialize().expect("MPI initializes once");
        assert_eq!(check("MPI_Isend", mpi::ffi::MPI_SUCCESS as core::ffi::c_int), Ok(()));
        let err = check("MPI_Isend", mpi::ffi::MPI_ERR_RANK as core::ffi::c_int).expect_err("an error code");
        let msg = err.to_string();
        assert!(matches!(err, crate::Error::Mpi { .. }), "{err:?}");
        assert!(msg.contains("MPI_Isend returned error code"), "{msg}");
        assert!(msg.to_lowercase().contains("rank"), "MPI's own message names the cause: {msg}");
    }
}
