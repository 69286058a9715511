//! The halo exchange of a block in device memory (CUDA, WebGPU): MPI cannot address it, so each
//! sent region is packed by the backend's copy kernel into one contiguous device buffer, which
//! comes down to the backend's staging host memory (page-locked on CUDA) in one transfer (per group: the faces, then the edges and
//! corners), travels over MPI from there, goes back up in one transfer, and is unpacked into the
//! halos by the copy kernel. `during` (the interior sweep, queued on the device) runs while the
//! messages travel. The messages and their order are the in-place exchange's
//! ([`HaloPlan`]), so the halos get the same values.

use core::ffi::c_int;

use mpi::ffi;
use mpi::raw::AsRaw;

use super::exchange::{post, Failure, HaloPlan, Message, Neighbour, Posted};
use crate::element::Pod;
use crate::error::{Error, Result};
use crate::kernel::{Allocator, CopyKernels, Desc, Download, HostStaging};

/// The packed messages of one group of neighbours (the faces, or the edges and corners): their
/// contiguous device buffers and host staging buffers, sent and received.
struct Group<B: HostStaging, T: Pod> {
    send_dev: B::Buffer<T>,
    recv_dev: B::Buffer<T>,
    send_host: B::HostBuf<T>,
    recv_host: B::HostBuf<T>,
}

/// The staging memory of one device block's exchanges, made at its first exchange and kept.
pub(super) struct Staging<B: HostStaging, T: Pod> {
    groups: [Group<B, T>; 2],
}

impl<B: HostStaging, T: Pod> Staging<B, T> {
    /// Buffers for `plan`'s messages, from `alloc` and `dev`'s staging memory.
    ///
    /// # Errors
    ///
    /// `Error::Alloc`/`Error::Device` when device or staging memory is refused;
    /// `Error::Decomposition` when a message is longer than MPI's `int` counts.
    pub(super) fn new(plan: &HaloPlan, alloc: &impl Allocator<B>, dev: &B::Device) -> Result<Self> {
        let faces = plan.neighbours(true).len();
        let all = plan.neighbours(false);
        let group = |members: &[Neighbour]| -> Result<Group<B, T>> {
            for n in members {
                int(n.bytes)?;
            }
            let len = members.iter().map(|n| n.sub.iter().product::<usize>()).sum();
            // SAFETY: the host buffers reach the device only through `try_upload_staged` (and
            // come back through `try_download_staged`), in `exchange_staged`.
            let (send_host, recv_host) = unsafe { (B::try_host_buf(dev, len)?, B::try_host_buf(dev, len)?) };
            Ok(Group {
                send_dev: alloc.try_alloc_zeroed("DistArray (halo staging)", len)?,
                recv_dev: alloc.try_alloc_zeroed("DistArray (halo staging)", len)?,
                send_host,
                recv_host,
            })
        };
        Ok(Staging { groups: [group(&all[..faces])?, group(&all[faces..])?] })
    }
}

impl HaloPlan {
    /// The exchange of a device block `local` (the row-major block the plan was made for),
    /// staged through `staging`; `during` runs while the messages travel. Every message is
    /// posted even when packing failed (the neighbours wait for it: what it carries is then
    /// unspecified), and the failure is returned after the wait.
    ///
    /// # Errors
    ///
    /// A [`Failure`] when a copy or a transfer fails or an MPI call does: with messages or a
    /// copy up possibly still in flight, the caller leaks `staging` (MPI or the device may still
    /// use it).
    ///
    /// # Safety
    ///
    /// `local` addresses the live block the plan was made for, on `dev`; during the call nothing
    /// else writes its owned slabs or accesses its halos (`during` may read the owned points).
    pub(super) unsafe fn exchange_staged<B, T, const N: usize, R>(
        &self,
        comm: &impl AsRaw<Raw = ffi::MPI_Comm>,
        staging: &mut Staging<B, T>,
        dev: &B::Device,
        local: Desc<B, T, N>,
        faces_only: bool,
        during: impl FnOnce() -> R,
    ) -> core::result::Result<R, Failure>
    where
        B: HostStaging + CopyKernels + Download,
        T: Pod,
    {
        let all = self.neighbours(false);
        let faces = self.neighbours(true).len();
        let members = [&all[..faces], if faces_only { &all[..0] } else { &all[faces..] }];
        // Pack every sent region, then one download per group; a failure is kept for after the
        // wait.
        let mut packed_ok = Ok(());
        for (group, members) in staging.groups.iter_mut().zip(members).filter(|(_, m)| !m.is_empty()) {
            let mut at = 0;
            let mut pack = || -> Result<()> {
                for n in members {
                    let dst = packed::<B, T, N>(&mut group.send_dev, at, &n.sub);
                    // SAFETY: the region lies inside the live block (the plan's), the packed
                    // range inside the group's buffer, a separate allocation.
                    unsafe { B::copy(dev, dst, region(local, &n.send_start, &n.sub)) }?;
                    at += dst.len();
                }
                let whole = packed::<B, T, 1>(&mut group.send_dev, 0, &[at]);
                // SAFETY: the first `at` elements of the group's live, contiguous buffer (all of
                // them); the host buffer holds as many.
                unsafe { B::try_download_staged(whole, &mut group.send_host) }
            };
            if packed_ok.is_ok() {
                packed_ok = pack();
            }
        }
        let elem = core::mem::size_of::<T>();
        let mut messages = Vec::new();
        for (group, members) in staging.groups.iter_mut().zip(members) {
            // Each buffer's base address once: the messages' pointers all derive from it.
            let (send, recv) = (group.send_host.as_ptr(), group.recv_host.as_mut_ptr());
            let mut at = 0;
            for n in members {
                let count = n.sub.iter().product::<usize>();
                // SAFETY: `at..at + count` lies inside both host buffers (the group's layout).
                let (send, recv) = unsafe { (send.add(at), recv.add(at)) };
                let bytes = c_int::try_from(count * elem).expect("checked when the staging was made");
                messages.push(Message::bytes(n, send.cast(), recv.cast(), bytes));
                at += count;
            }
        }
        // SAFETY: the messages address the staging's host buffers, which stay in place while
        // the staging lives (`HostStaging`'s contract), kept until the wait (the caller leaks
        // them on a failure with messages in flight).
        let outcome = unsafe { post(comm, &messages, during) }?;
        if let Posted::Ran(ran) = outcome {
            // A panic of `during` goes on before any later error (nothing in flight after the
            // wait but the copies up, which `unpack` waits for).
            let unpacked = unpack(staging, members, dev, local);
            let value = match ran {
                Ok(value) => value,
                Err(panic) => std::panic::resume_unwind(panic),
            };
            unpacked?;
            packed_ok.map_err(|error| Failure { error, in_flight: false })?;
            return Ok(value);
        }
        outcome.finish()
    }
}

impl HaloPlan {
    /// Every message of an exchange (of the faces only with `faces_only`), sent from zeros and
    /// received into scratch host memory, then dropped: how a device block whose staging memory
    /// was leaked by a failed exchange still takes part in later ones. Its neighbours wait for
    /// its messages; they finish their exchange, and learn of the failure where the processes
    /// next agree (the distributed sweeps, and the exchanges of device blocks, agree on their
    /// outcome before returning).
    ///
    /// # Errors
    ///
    /// A [`Failure`] when an MPI call fails (the scratch memory is then leaked, as MPI may
    /// still write into it: nothing is left for the caller to leak).
    pub(super) fn exchange_scratch(
        &self,
        comm: &impl AsRaw<Raw = ffi::MPI_Comm>,
        faces_only: bool,
    ) -> core::result::Result<(), Failure> {
        let members = self.neighbours(faces_only);
        let mut buffers: Vec<(Vec<u8>, Vec<u8>)> =
            members.iter().map(|n| (vec![0; n.bytes], vec![0; n.bytes])).collect();
        let messages: Vec<Message> = members
            .iter()
            .zip(&mut buffers)
            .map(|(n, (send, recv))| {
                let bytes = c_int::try_from(n.bytes).expect("checked when the staging was made");
                Message::bytes(n, send.as_ptr().cast(), recv.as_mut_ptr().cast(), bytes)
            })
            .collect();
        // SAFETY: each message addresses its own two buffers of its length, which nothing else
        // accesses, kept until the wait (leaked below when messages may still be in flight).
        match unsafe { post(comm, &messages, || ()) } {
            Ok(posted) => posted.finish(),
            Err(failure) => {
                core::mem::forget(buffers);
                Err(failure)
            }
        }
    }
}

/// Uploads each group's received messages and copies them into the halos of `local`.
///
/// # Errors
///
/// A [`Failure`] from a copy (nothing in flight) or an upload (in flight: a failed upload may
/// still read the host buffer, which the next exchange's receives would write).
fn unpack<B, T, const N: usize>(
    staging: &mut Staging<B, T>,
    members: [&[Neighbour]; 2],
    dev: &B::Device,
    local: Desc<B, T, N>,
) -> core::result::Result<(), Failure>
where
    B: HostStaging + CopyKernels,
    T: Pod,
{
    for (group, members) in staging.groups.iter_mut().zip(members).filter(|(_, m)| !m.is_empty()) {
        // SAFETY: the device buffer holds as many elements as the host buffer.
        unsafe { B::try_upload_staged(&mut group.recv_dev, &group.recv_host) }
            .map_err(|error| Failure { error, in_flight: true })?;
        let mut at = 0;
        for n in members {
            let src = packed::<B, T, N>(&mut group.recv_dev, at, &n.sub);
            // SAFETY: the halo region lies inside the live block, which nothing else accesses
            // (the caller's contract); the packed range inside the buffer.
            unsafe { B::copy(dev, region(local, &n.recv_start, &n.sub), src) }
                .map_err(|error| Failure { error, in_flight: false })?;
            at += src.len();
        }
    }
    Ok(())
}

/// The row-major box of shape `sub` starting at element `at` of `buf`.
fn packed<B: HostStaging, T: Pod, const M: usize>(buf: &mut B::Buffer<T>, at: usize, sub: &[usize]) -> Desc<B, T, M> {
    let shape: [usize; M] = core::array::from_fn(|k| sub[k]);
    let strides = crate::shape::row_major_strides(&shape);
    Desc { handle: B::moved(B::handle_mut(buf, 0), at as isize), shape, strides }
}

/// The box of `local` of shape `sub` at `start`.
fn region<B: HostStaging, T: Pod, const N: usize>(
    local: Desc<B, T, N>,
    start: &[usize],
    sub: &[usize],
) -> Desc<B, T, N> {
    (0..N).fold(local, |d, k| d.narrowed(k, start[k], sub[k]))
}

/// `bytes` as MPI's `int`.
fn int(bytes: usize) -> Result<c_int> {
    c_int::try_from(bytes).map_err(|_| Error::Decomposition {
        op: "DistArray::new",
        reason: format!("a halo message of {bytes} bytes is longer than MPI's int can count"),
        fix: "use more processes, so each block's faces are smaller, or a narrower halo",
    })
}
