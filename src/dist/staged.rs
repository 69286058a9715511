//! The halo exchange of a block in device memory (CUDA, WebGPU): MPI cannot address it, so each
//! sent region is packed by the backend's copy kernel into one contiguous device buffer, which
//! comes down to pinned host memory in one transfer (per group: the faces, then the edges and
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
/// contiguous device buffers and pinned host buffers, sent and received.
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
    /// Buffers for `plan`'s messages, on `alloc`'s device.
    ///
    /// # Errors
    ///
    /// `Error::Alloc`/`Error::Device` when device or pinned memory is refused;
    /// `Error::Decomposition` when a message is longer than MPI's `int` counts.
    pub(super) fn new(plan: &HaloPlan, alloc: &B::Alloc, dev: &B::Device) -> Result<Self> {
        let faces = plan.neighbours(true).len();
        let all = plan.neighbours(false);
        let group = |members: &[Neighbour]| -> Result<Group<B, T>> {
            for n in members {
                int(n.bytes)?;
            }
            let len = members.iter().map(|n| n.sub.iter().product::<usize>()).sum();
            Ok(Group {
                send_dev: alloc.try_alloc_zeroed("DistArray (halo staging)", len)?,
                recv_dev: alloc.try_alloc_zeroed("DistArray (halo staging)", len)?,
                send_host: B::try_host_buf(dev, len)?,
                recv_host: B::try_host_buf(dev, len)?,
            })
        };
        Ok(Staging { groups: [group(&all[..faces])?, group(&all[faces..])?] })
    }
}

impl HaloPlan {
    /// The exchange of a device block `local` (the row-major block the plan was made for),
    /// staged through `staging`; `during` runs while the messages travel.
    ///
    /// # Errors
    ///
    /// A [`Failure`] when a copy or a transfer fails (nothing in flight) or an MPI call does:
    /// with messages in flight, the caller leaks `staging` (MPI may still write into it).
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
        let not_in_flight = |error| Failure { error, in_flight: false };
        let all = self.neighbours(false);
        let faces = self.neighbours(true).len();
        let members = [&all[..faces], if faces_only { &all[..0] } else { &all[faces..] }];
        // Pack every sent region, then one download per group.
        for (group, members) in staging.groups.iter_mut().zip(members) {
            if members.is_empty() {
                continue;
            }
            let mut at = 0;
            for n in members {
                let packed = packed::<B, T, N>(&mut group.send_dev, at, &n.sub);
                // SAFETY: the region lies inside the live block (the plan's), the packed range
                // inside the group's buffer, a separate allocation.
                unsafe { B::copy(dev, packed, region(local, &n.send_start, &n.sub)) }.map_err(not_in_flight)?;
                at += packed.len();
            }
            let whole = packed::<B, T, 1>(&mut group.send_dev, 0, &[at]);
            // SAFETY: the first `at` elements of the group's live, contiguous buffer (all of
            // them); the host buffer holds as many.
            unsafe { B::try_download_into(whole, group.send_host.as_mut_ptr()) }.map_err(not_in_flight)?;
        }
        let elem = core::mem::size_of::<T>();
        let mut messages = Vec::new();
        for (group, members) in staging.groups.iter_mut().zip(members) {
            let mut at = 0;
            for n in members {
                let count = n.sub.iter().product::<usize>();
                // SAFETY: `at..at + count` lies inside both host buffers (the group's layout).
                let (send, recv) = unsafe { (group.send_host.as_ptr().add(at), group.recv_host.as_mut_ptr().add(at)) };
                let bytes = c_int::try_from(count * elem).expect("checked when the staging was made");
                messages.push(Message::bytes(n, send.cast(), recv.cast(), bytes));
                at += count;
            }
        }
        // SAFETY: the messages address the staging's host buffers, kept until the wait (the
        // caller leaks them on a failure with messages in flight).
        let outcome = unsafe { post(comm, &messages, during) }?;
        if let Posted::Ran(_) = outcome {
            for (group, members) in staging.groups.iter_mut().zip(members) {
                if members.is_empty() {
                    continue;
                }
                // SAFETY: the device buffer holds as many elements as the host buffer.
                unsafe { B::try_upload_staged(&mut group.recv_dev, &group.recv_host) }.map_err(not_in_flight)?;
                let mut at = 0;
                for n in members {
                    let packed = packed::<B, T, N>(&mut group.recv_dev, at, &n.sub);
                    // SAFETY: the halo region lies inside the live block, which nothing else
                    // accesses (the caller's contract); the packed range inside the buffer.
                    unsafe { B::copy(dev, region(local, &n.recv_start, &n.sub), packed) }.map_err(not_in_flight)?;
                    at += packed.len();
                }
            }
        }
        outcome.finish()
    }
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
        op: "DistArray::exchange_halos",
        reason: format!("a halo message of {bytes} bytes is longer than MPI's int can count"),
        fix: "use more processes, so each block's faces are smaller, or a narrower halo",
    })
}
