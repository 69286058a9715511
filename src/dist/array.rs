//! [`DistArray`]: one block of a distributed grid per MPI process, surrounded by a halo that
//! [`DistArray::exchange_halos`] fills from the neighbouring blocks.

use core::mem::ManuallyDrop;
use core::ops::Range;

use mpi::datatype::Equivalence;
use mpi::raw::AsRaw;
use mpi::topology::SimpleCommunicator;
use mpi::traits::Communicator;

use super::agree::agree;
use super::exchange::HaloPlan;
use super::staged::Staging;
use super::{Decomposition, DistBackend};
use crate::array::Array;
use crate::element::Pod;
use crate::error::{or_panic, Error, Result};
use crate::kernel::{Allocator, Cpu};
use crate::layout::{RowMajor, Strided};
use crate::view::{Shared, Unique, View};

/// A global grid of shape `global` distributed over the processes of a communicator: each process
/// holds its block of the [`Decomposition`] as an ordinary [`Array`] (`local`) on backend `B`
/// (host memory by default, or a device's: [`DistArray::new_in`]), with `halo[k]` extra points
/// at both ends of axis `k` for the neighbours' values a stencil reads.
///
/// The halo of a periodic axis wraps around the global grid; the halo on a fixed (non-periodic)
/// global edge is never written by the exchange, so it holds the boundary values the program puts
/// there (Dirichlet). The process grid numbers processes in row-major order of their grid
/// coordinates, as `MPI_Cart_create` without reordering does. Messages go over a duplicate of the
/// communicator, so they never match the program's own.
///
/// ```no_run
/// use cnda::dist::DistArray;
/// let universe = mpi::initialize().unwrap();
/// let world = universe.world();
/// let mut u = DistArray::<f64, 2>::new(&world, [1024, 1024], [1, 1], [false, false]);
/// u.fill_owned_with(|[i, j]| (i + j) as f64);
/// u.exchange_halos();
/// let total = u.sum(); // the same on every process
/// ```
pub struct DistArray<T: Pod + Equivalence, const N: usize, B: DistBackend = Cpu> {
    /// Freed on drop only while MPI is live: after `MPI_Finalize` no MPI call is allowed.
    pub(super) comm: ManuallyDrop<SimpleCommunicator>,
    pub(super) decomposition: Decomposition<N>,
    pub(super) rank: usize,
    pub(super) halo: [usize; N],
    pub(super) local: Array<T, N, B>,
    pub(super) plan: HaloPlan,
    /// A device block's packed messages, made with the block (never for host blocks); `None`
    /// on a device once a failed exchange leaked it.
    pub(super) staging: Option<Staging<B, T>>,
}

impl<T: Pod + Equivalence, const N: usize> DistArray<T, N> {
    /// A zero-filled `global` grid over every process of `comm`, on the process grid
    /// [`dims_create`](super::dims_create) picks. Collective: every process of `comm` calls it
    /// with the same arguments.
    ///
    /// # Panics
    ///
    /// As [`DistArray::try_new`] errs.
    #[track_caller]
    pub fn new(comm: &impl Communicator, global: [usize; N], halo: [usize; N], periodic: [bool; N]) -> Self {
        or_panic(Self::try_new(comm, global, halo, periodic))
    }

    /// A zero-filled `global` grid over every process of `comm`; see [`DistArray::new`].
    ///
    /// # Errors
    ///
    /// As [`DistArray::try_with_decomposition`], and `Error::Decomposition` when `global` cannot
    /// be split over the communicator's processes. The same error on every process.
    pub fn try_new(
        comm: &impl Communicator,
        global: [usize; N],
        halo: [usize; N],
        periodic: [bool; N],
    ) -> Result<Self> {
        Self::try_new_in(&Cpu, comm, global, halo, periodic)
    }

    /// A zero-filled grid split as `decomposition` says, over every process of `comm`.
    /// Collective: every process calls it with the same arguments.
    ///
    /// # Errors
    ///
    /// As [`DistArray::try_with_decomposition_in`].
    pub fn try_with_decomposition(
        comm: &impl Communicator,
        decomposition: Decomposition<N>,
        halo: [usize; N],
    ) -> Result<Self> {
        Self::try_with_decomposition_in(&Cpu, comm, decomposition, halo)
    }
}

impl<T: Pod + Equivalence, const N: usize, B: DistBackend> DistArray<T, N, B> {
    /// A zero-filled `global` grid over every process of `comm`, each block allocated from
    /// `alloc`: `&Cpu`, a `&Pool`, or a device (`&CudaDevice`, `&WgpuDevice`, one per process,
    /// on that process's GPU). Collective, as [`DistArray::new`].
    ///
    /// ```no_run
    /// # #[cfg(feature = "wgpu")] {
    /// use cnda::dist::DistArray;
    /// use cnda::backend::wgpu::{Wgpu, WgpuDevice};
    /// let universe = mpi::initialize().unwrap();
    /// let dev = WgpuDevice::new().unwrap();
    /// let mut u = DistArray::<f32, 2, Wgpu>::new_in(&dev, &universe.world(), [1024, 1024], [1, 1], [false; 2]);
    /// u.exchange_halos(); // packed on the device, staged through host memory
    /// # }
    /// ```
    ///
    /// # Panics
    ///
    /// As [`DistArray::try_new_in`] errs.
    #[track_caller]
    pub fn new_in(
        alloc: &impl Allocator<B>,
        comm: &impl Communicator,
        global: [usize; N],
        halo: [usize; N],
        periodic: [bool; N],
    ) -> Self {
        or_panic(Self::try_new_in(alloc, comm, global, halo, periodic))
    }

    /// [`DistArray::new_in`], returning errors.
    ///
    /// # Errors
    ///
    /// As [`DistArray::try_with_decomposition_in`], and `Error::Decomposition` when `global`
    /// cannot be split over the communicator's processes. The same error on every process.
    pub fn try_new_in(
        alloc: &impl Allocator<B>,
        comm: &impl Communicator,
        global: [usize; N],
        halo: [usize; N],
        periodic: [bool; N],
    ) -> Result<Self> {
        let ranks = usize::try_from(comm.size()).unwrap_or(0);
        let local =
            Decomposition::try_new(global, ranks, periodic).and_then(|d| Self::local_part(alloc, comm, d, halo));
        Self::from_local_part(comm, agree(comm, "DistArray::new", local)?)
    }

    /// A zero-filled grid split as `decomposition` says, over every process of `comm`, each block
    /// allocated from `alloc`. Collective: every process calls it with the same arguments.
    ///
    /// # Errors
    ///
    /// `Error::Decomposition` when `comm` has not `decomposition.ranks()` processes, or a block
    /// (any process's) is thinner than its halo on an axis with neighbours (the halo would need a
    /// second neighbour's points); `Error::Overflow`/`Error::Alloc` for a local block too large;
    /// `Error::Mpi` when MPI refuses the halos' datatypes, or when another process failed (the
    /// processes agree before communicating, so all return the same error and none waits for
    /// the others).
    pub fn try_with_decomposition_in(
        alloc: &impl Allocator<B>,
        comm: &impl Communicator,
        decomposition: Decomposition<N>,
        halo: [usize; N],
    ) -> Result<Self> {
        let local = Self::local_part(alloc, comm, decomposition, halo);
        Self::from_local_part(comm, agree(comm, "DistArray::new", local)?)
    }

    /// A face-centred (staggered) array on `cells`' decomposition, one point longer along
    /// `axis` ([`Decomposition::staggered`]): each process owns the faces on the low side of its
    /// cells (and the last process the last face), so face and cell values line up block by
    /// block, with no slicing of global arrays. Its blocks live where `cells`' do. Collective,
    /// as [`DistArray::new`].
    ///
    /// # Panics
    ///
    /// As [`DistArray::try_staggered`] errs.
    #[track_caller]
    pub fn staggered<U: Pod + Equivalence>(cells: &DistArray<U, N, B>, axis: usize, halo: [usize; N]) -> Self {
        or_panic(Self::try_staggered(cells, axis, halo))
    }

    /// [`DistArray::staggered`], returning errors.
    ///
    /// # Errors
    ///
    /// As [`Decomposition::try_staggered`] and [`DistArray::try_with_decomposition_in`].
    pub fn try_staggered<U: Pod + Equivalence>(
        cells: &DistArray<U, N, B>,
        axis: usize,
        halo: [usize; N],
    ) -> Result<Self> {
        let comm = &*cells.comm;
        let alloc = cells.allocator();
        let local = cells.decomposition.try_staggered(axis).and_then(|d| Self::local_part(&alloc, comm, d, halo));
        Self::from_local_part(comm, agree(comm, "DistArray::staggered", local)?)
    }

    /// What one process builds on its own, without communicating: the checks of
    /// [`DistArray::try_with_decomposition_in`] (over every process's block, so that every
    /// process finds the same error), its zeroed block and its halo plan.
    fn local_part(
        alloc: &impl Allocator<B>,
        comm: &impl Communicator,
        decomposition: Decomposition<N>,
        halo: [usize; N],
    ) -> Result<LocalPart<T, N, B>> {
        let op = "DistArray::new";
        let size = usize::try_from(comm.size()).unwrap_or(0);
        if size != decomposition.ranks() {
            return Err(Error::Decomposition {
                op,
                reason: format!(
                    "the communicator has {size} processes and the process grid {:?} {} ",
                    decomposition.dims(),
                    decomposition.ranks()
                ),
                fix: "run with as many processes as the grid has, or build the grid from the communicator's size",
            });
        }
        for r in 0..size {
            let block = decomposition.block_shape(r);
            if let Some(k) = (0..N).find(|&k| decomposition.exchanges_along(k) && block[k] < halo[k]) {
                return Err(Error::Decomposition {
                    op,
                    reason: format!(
                        "process {r}'s block has {} points along axis {k}, fewer than the halo width {}",
                        block[k], halo[k]
                    ),
                    fix: "use fewer processes along that axis, a larger grid, or a narrower halo",
                });
            }
        }
        let rank = usize::try_from(comm.rank()).expect("MPI ranks are non-negative");
        let block = decomposition.block_shape(rank);
        let mut shape = [0usize; N];
        for k in 0..N {
            shape[k] = halo[k].checked_mul(2).and_then(|h| h.checked_add(block[k])).ok_or(Error::Overflow {
                op,
                shape: block.to_vec(),
                elem_size: core::mem::size_of::<T>(),
            })?;
        }
        let mut local = Array::try_zeros_in(alloc, shape)?;
        let plan =
            HaloPlan::new(&decomposition, rank, halo, T::equivalent_datatype().as_raw(), core::mem::size_of::<T>())?;
        let staging = Self::staging_for(&plan, &mut local)?;
        Ok(LocalPart { decomposition, rank, halo, local, plan, staging })
    }

    /// The staging memory of `local`'s exchanges when it is device memory (none for host
    /// memory, which MPI reads in place): made with the block, whose making the processes agree
    /// on, so no process finds itself short of it in the middle of an exchange.
    fn staging_for(plan: &HaloPlan, local: &mut Array<T, N, B>) -> Result<Option<Staging<B, T>>> {
        let handle = local.desc_mut().handle;
        match B::host_address(handle) {
            Some(_) => Ok(None),
            None => Staging::new(plan, &local.allocator(), &B::handle_device(handle)).map(Some),
        }
    }

    /// The array from its local part, once every process has one: duplicates the communicator.
    fn from_local_part(comm: &impl Communicator, part: LocalPart<T, N, B>) -> Result<Self> {
        let LocalPart { decomposition, rank, halo, local, plan, staging } = part;
        Ok(DistArray { comm: ManuallyDrop::new(comm.duplicate()), decomposition, rank, halo, local, plan, staging })
    }

    /// The communicator the array's messages go over (a duplicate of the one it was made on).
    pub(crate) fn communicator(&self) -> &SimpleCommunicator {
        &self.comm
    }

    /// The allocator of the block, for arrays that should live where it does.
    pub(crate) fn allocator(&self) -> B::Alloc {
        self.local.allocator()
    }

    /// How the global grid is split.
    pub fn decomposition(&self) -> &Decomposition<N> {
        &self.decomposition
    }

    /// This process's rank in the communicator.
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// The halo width of each axis.
    pub fn halo(&self) -> [usize; N] {
        self.halo
    }

    /// The global index ranges this process owns.
    pub fn owned_range(&self) -> [Range<usize>; N] {
        self.decomposition.block(self.rank)
    }

    /// The local block with its halos.
    pub fn local(&self) -> &Array<T, N, B> {
        &self.local
    }

    /// The local block with its halos, mutably (to set boundary values in a fixed edge's halo, or
    /// write a sweep's result); a view, so the block keeps its shape and place.
    pub fn local_mut(&mut self) -> View<'_, T, N, Unique, B, RowMajor> {
        self.local.view_mut()
    }

    /// The block's descriptor, for writing through (boundary refills).
    pub(super) fn local_desc_mut(&mut self) -> crate::kernel::Desc<B, T, N> {
        self.local.desc_mut()
    }

    /// The owned points: the local block without its halos.
    pub fn owned(&self) -> View<'_, T, N, Shared, B, Strided> {
        let view = self.local.view();
        let block = self.decomposition.block_shape(self.rank);
        (0..N).fold(view.into_strided(), |v, k| v.narrow(k, self.halo[k], block[k]))
    }

    /// The owned points, mutably.
    pub fn owned_mut(&mut self) -> View<'_, T, N, Unique, B, Strided> {
        let block = self.decomposition.block_shape(self.rank);
        let halo = self.halo;
        (0..N).fold(self.local.view_mut().into_strided(), |v, k| v.narrow(k, halo[k], block[k]))
    }

    /// The global index of local point `local` (halo points included: an index before the first
    /// or past the last global point lies in a halo, and wraps on periodic axes).
    pub fn global_index(&self, local: [usize; N]) -> [isize; N] {
        let start = self.owned_range().map(|r| r.start);
        core::array::from_fn(|k| start[k] as isize + local[k] as isize - self.halo[k] as isize)
    }

    /// The rank owning global point `global`.
    #[track_caller]
    pub fn owner(&self, global: [usize; N]) -> usize {
        self.decomposition.owner(global)
    }

    /// Sets every owned point from its global index (computed on the host, then copied to a
    /// device block).
    ///
    /// # Panics
    ///
    /// When a device refuses the memory or the copy.
    #[track_caller]
    pub fn fill_owned_with(&mut self, mut f: impl FnMut([usize; N]) -> T) {
        let start = self.owned_range().map(|r| r.start);
        let block = self.decomposition.block_shape(self.rank);
        let values = Array::from_fn(block, |i| f(core::array::from_fn(|k| start[k] + i[k])));
        or_panic(self.try_set_owned(&values));
    }

    /// Sets the owned points from a host array of the block's shape.
    ///
    /// # Errors
    ///
    /// `Error::ShapeMismatch` for another shape; `Error::Alloc`/`Error::Device` from a device.
    pub(crate) fn try_set_owned(&mut self, values: &Array<T, N>) -> Result<()> {
        // Where the block lives first (a copy on the host too: one generic path, off the hot loop).
        let on_block = B::upload(&self.allocator(), values)?;
        self.owned_mut().try_assign(&on_block)
    }
}

/// Frees the duplicated communicator, unless MPI is finalized already (the `Universe` dropped
/// first): then the library has released it, and calling it would be an error.
impl<T: Pod + Equivalence, const N: usize, B: DistBackend> Drop for DistArray<T, N, B> {
    fn drop(&mut self) {
        if !mpi::environment::is_finalized() {
            // SAFETY: dropped once, here; the field is not used after.
            unsafe { ManuallyDrop::drop(&mut self.comm) };
        }
    }
}

/// A copy on a duplicate of the communicator, its block where this one's is. Collective: every
/// process clones its part.
///
/// # Panics
///
/// When the memory for the copy is refused (on every process alike).
impl<T: Pod + Equivalence, const N: usize, B: DistBackend> Clone for DistArray<T, N, B> {
    #[track_caller]
    fn clone(&self) -> Self {
        let plan = HaloPlan::new(
            &self.decomposition,
            self.rank,
            self.halo,
            T::equivalent_datatype().as_raw(),
            core::mem::size_of::<T>(),
        );
        let part = plan.and_then(|plan| {
            let mut local = self.local.try_to_owned_in(&self.allocator())?;
            let staging = Self::staging_for(&plan, &mut local)?;
            Ok((plan, local, staging))
        });
        let (plan, local, staging) = or_panic(agree(&*self.comm, "DistArray::clone", part));
        DistArray {
            comm: ManuallyDrop::new(self.comm.duplicate()),
            decomposition: self.decomposition,
            rank: self.rank,
            halo: self.halo,
            local,
            plan,
            staging,
        }
    }
}

/// One process's part of a new [`DistArray`], built without communicating.
struct LocalPart<T: Pod, const N: usize, B: DistBackend> {
    decomposition: Decomposition<N>,
    rank: usize,
    halo: [usize; N],
    local: Array<T, N, B>,
    plan: HaloPlan,
    staging: Option<Staging<B, T>>,
}
