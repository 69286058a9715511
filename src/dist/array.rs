//! [`DistArray`]: one block of a distributed grid per MPI process, surrounded by a halo that
//! [`DistArray::exchange_halos`] fills from the neighbouring blocks.

use core::mem::ManuallyDrop;
use core::ops::Range;

use mpi::collective::SystemOperation;
use mpi::datatype::Equivalence;
use mpi::raw::AsRaw;
use mpi::topology::SimpleCommunicator;
use mpi::traits::{Communicator, CommunicatorCollectives};

use super::agree::{agree, ensure_live};
use super::exchange::{Failure, HaloPlan};
use super::Decomposition;
use crate::array::Array;
use crate::element::{Numeric, Pod};
use crate::error::{or_panic, Error, Result};
use crate::layout::{RowMajor, Strided};
use crate::view::{ArrayView, ArrayViewMut};

/// A global grid of shape `global` distributed over the processes of a communicator: each process
/// holds its block of the [`Decomposition`] as an ordinary [`Array`] (`local`), with `halo[k]`
/// extra points at both ends of axis `k` for the neighbours' values a stencil reads.
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
pub struct DistArray<T: Pod + Equivalence, const N: usize> {
    /// Freed on drop only while MPI is live: after `MPI_Finalize` no MPI call is allowed.
    pub(super) comm: ManuallyDrop<SimpleCommunicator>,
    pub(super) decomposition: Decomposition<N>,
    pub(super) rank: usize,
    halo: [usize; N],
    local: Array<T, N>,
    plan: HaloPlan,
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
        let ranks = usize::try_from(comm.size()).unwrap_or(0);
        let local = Decomposition::try_new(global, ranks, periodic).and_then(|d| Self::local_part(comm, d, halo));
        Self::from_local_part(comm, agree(comm, "DistArray::new", local)?)
    }

    /// A zero-filled grid split as `decomposition` says, over every process of `comm`.
    /// Collective: every process calls it with the same arguments.
    ///
    /// # Errors
    ///
    /// `Error::Decomposition` when `comm` has not `decomposition.ranks()` processes, or a block
    /// (any process's) is thinner than its halo on an axis with neighbours (the halo would need a
    /// second neighbour's points); `Error::Overflow`/`Error::Alloc` for a local block too large;
    /// `Error::Mpi` when MPI refuses the halos' datatypes, or when another process failed (the
    /// processes agree before communicating, so all return the same error and none waits for
    /// the others).
    pub fn try_with_decomposition(
        comm: &impl Communicator,
        decomposition: Decomposition<N>,
        halo: [usize; N],
    ) -> Result<Self> {
        let local = Self::local_part(comm, decomposition, halo);
        Self::from_local_part(comm, agree(comm, "DistArray::new", local)?)
    }

    /// A face-centred (staggered) array on `cells`' decomposition, one point longer along
    /// `axis` ([`Decomposition::staggered`]): each process owns the faces on the low side of its
    /// cells (and the last process the last face), so face and cell values line up block by
    /// block, with no slicing of global arrays. Collective, as [`DistArray::new`].
    ///
    /// # Panics
    ///
    /// As [`DistArray::try_staggered`] errs.
    #[track_caller]
    pub fn staggered<U: Pod + Equivalence>(cells: &DistArray<U, N>, axis: usize, halo: [usize; N]) -> Self {
        or_panic(Self::try_staggered(cells, axis, halo))
    }

    /// [`DistArray::staggered`], returning errors.
    ///
    /// # Errors
    ///
    /// As [`Decomposition::try_staggered`] and [`DistArray::try_with_decomposition`].
    pub fn try_staggered<U: Pod + Equivalence>(cells: &DistArray<U, N>, axis: usize, halo: [usize; N]) -> Result<Self> {
        let comm = &*cells.comm;
        let local = cells.decomposition.try_staggered(axis).and_then(|d| Self::local_part(comm, d, halo));
        Self::from_local_part(comm, agree(comm, "DistArray::staggered", local)?)
    }

    /// What one process builds on its own, without communicating: the checks of
    /// [`DistArray::try_with_decomposition`] (over every process's block, so that every process
    /// finds the same error), its zeroed block and its halo plan.
    fn local_part(
        comm: &impl Communicator,
        decomposition: Decomposition<N>,
        halo: [usize; N],
    ) -> Result<LocalPart<T, N>> {
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
        let local = Array::try_zeros(shape)?;
        let plan =
            HaloPlan::new(&decomposition, rank, halo, T::equivalent_datatype().as_raw(), core::mem::size_of::<T>())?;
        Ok(LocalPart { decomposition, rank, halo, local, plan })
    }

    /// The array from its local part, once every process has one: duplicates the communicator.
    fn from_local_part(comm: &impl Communicator, part: LocalPart<T, N>) -> Result<Self> {
        let LocalPart { decomposition, rank, halo, local, plan } = part;
        Ok(DistArray { comm: ManuallyDrop::new(comm.duplicate()), decomposition, rank, halo, local, plan })
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
    pub fn local(&self) -> &Array<T, N> {
        &self.local
    }

    /// The local block with its halos, mutably (to set boundary values in a fixed edge's halo, or
    /// write a sweep's result); a view, so the block keeps its shape and place.
    pub fn local_mut(&mut self) -> ArrayViewMut<'_, T, N, RowMajor> {
        self.local.view_mut()
    }

    /// The local block's descriptor, for writing through (the distributed stencil sweep).
    pub(crate) fn local_desc_mut(&mut self) -> crate::kernel::Desc<crate::kernel::Cpu, T, N> {
        self.local.desc_mut()
    }

    /// The owned points: the local block without its halos.
    pub fn owned(&self) -> ArrayView<'_, T, N, Strided> {
        let view = self.local.view();
        let block = self.decomposition.block_shape(self.rank);
        (0..N).fold(view.into_strided(), |v, k| v.narrow(k, self.halo[k], block[k]))
    }

    /// The owned points, mutably.
    pub fn owned_mut(&mut self) -> ArrayViewMut<'_, T, N, Strided> {
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

    /// Sets every owned point from its global index.
    pub fn fill_owned_with(&mut self, mut f: impl FnMut([usize; N]) -> T) {
        let start = self.owned_range().map(|r| r.start);
        let block = self.decomposition.block_shape(self.rank);
        let values = Array::from_fn(block, |i| f(core::array::from_fn(|k| start[k] + i[k])));
        self.owned_mut().assign(&values);
    }

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
    /// when messages may still be in flight the block is leaked (MPI may still write into it)
    /// and replaced by a zeroed one.
    pub fn try_exchange_halos(&mut self) -> Result<()> {
        self.exchange("DistArray::exchange_halos", false, |_| ())
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
    pub fn exchange_halos_with<R>(&mut self, during: impl FnOnce(ArrayView<'_, T, N, Strided>) -> R) -> R {
        or_panic(self.try_exchange_halos_with(during))
    }

    /// [`DistArray::exchange_halos_with`], returning errors.
    ///
    /// # Errors
    ///
    /// As [`DistArray::try_exchange_halos`].
    pub fn try_exchange_halos_with<R>(&mut self, during: impl FnOnce(ArrayView<'_, T, N, Strided>) -> R) -> Result<R> {
        self.exchange("DistArray::exchange_halos_with", false, during)
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
        self.exchange("DistArray::exchange_faces", true, |_| ())
    }

    /// The exchange, with every neighbour or the faces only, running `during` meanwhile.
    ///
    /// # Panics
    ///
    /// When MPI is finalized, before the exchange (no MPI call is made) or by `during`.
    #[track_caller]
    pub(crate) fn exchange<R>(
        &mut self,
        op: &'static str,
        faces_only: bool,
        during: impl FnOnce(ArrayView<'_, T, N, Strided>) -> R,
    ) -> Result<R> {
        ensure_live(op);
        let base = self.local.desc_mut().handle.cast::<core::ffi::c_void>();
        let owned = self.owned();
        // SAFETY: the plan was made for this block, row-major and of this shape for the array's
        // life (`local_mut` hands out views only); `during` gets a shared view of the owned
        // points, which the plan only reads, and nothing else can reach the halos meanwhile.
        // A failure with messages in flight leaks the block below, as the plan requires.
        match unsafe { self.plan.exchange(&*self.comm, base, faces_only, || during(owned)) } {
            Ok(value) => Ok(value),
            Err(Failure { error, in_flight }) => {
                if in_flight {
                    let fresh = Array::zeros(self.local.shape());
                    core::mem::forget(core::mem::replace(&mut self.local, fresh));
                }
                if mpi::environment::is_finalized() {
                    panic!("{error}");
                }
                Err(error)
            }
        }
    }
}

/// Frees the duplicated communicator, unless MPI is finalized already (the `Universe` dropped
/// first): then the library has released it, and calling it would be an error.
impl<T: Pod + Equivalence, const N: usize> Drop for DistArray<T, N> {
    fn drop(&mut self) {
        if !mpi::environment::is_finalized() {
            // SAFETY: dropped once, here; the field is not used after.
            unsafe { ManuallyDrop::drop(&mut self.comm) };
        }
    }
}

/// A copy on a duplicate of the communicator. Collective: every process clones its part.
impl<T: Pod + Equivalence, const N: usize> Clone for DistArray<T, N> {
    fn clone(&self) -> Self {
        let plan = HaloPlan::new(
            &self.decomposition,
            self.rank,
            self.halo,
            T::equivalent_datatype().as_raw(),
            core::mem::size_of::<T>(),
        );
        let plan = or_panic(agree(&*self.comm, "DistArray::clone", plan));
        DistArray {
            comm: ManuallyDrop::new(self.comm.duplicate()),
            decomposition: self.decomposition,
            rank: self.rank,
            halo: self.halo,
            local: self.local.clone(),
            plan,
        }
    }
}

impl<T: crate::element::Float + Equivalence, const N: usize> DistArray<T, N> {
    /// The largest `|self - other|` over the grid's points (a residual's maximum norm), the same
    /// on every process; NaN when any difference is NaN. Collective.
    ///
    /// # Panics
    ///
    /// As [`DistArray::try_max_abs_diff`] errs (on every process alike).
    #[track_caller]
    pub fn max_abs_diff(&self, other: &DistArray<T, N>) -> T {
        or_panic(self.try_max_abs_diff(other))
    }

    /// [`DistArray::max_abs_diff`], returning errors.
    ///
    /// # Errors
    ///
    /// `Error::Decomposition` when the two arrays are split differently (`Error::Mpi` everywhere
    /// when that differs between processes).
    pub fn try_max_abs_diff(&self, other: &DistArray<T, N>) -> Result<T> {
        agree(&*self.comm, "DistArray::max_abs_diff", self.same_split("DistArray::max_abs_diff", other))?;
        let mine = crate::Zip::from(self.owned()).and(other.owned()).fold(T::ZERO, |m, &a, &b| {
            let d = (a - b).abs();
            if d > m || d.is_nan() {
                d
            } else {
                m
            }
        });
        // MPI's max may drop a NaN, which must not pass for convergence: flag it separately.
        let (nan, mut any_nan) = (i32::from(mine.is_nan()), 0);
        self.comm.all_reduce_into(&nan, &mut any_nan, SystemOperation::max());
        let max = self.all_reduce(mine, SystemOperation::max());
        Ok(if any_nan != 0 {
            (-T::ONE).sqrt() // NaN
        } else {
            max
        })
    }

    /// `sqrt(sum (self - other)^2)` over the grid's points (a residual's 2-norm), the same on every
    /// process: each sums its block's squares, MPI adds the partial sums (so the last bits depend
    /// on the split, unlike [`DistArray::max_abs_diff`]). Collective.
    ///
    /// # Panics
    ///
    /// As [`DistArray::try_diff_norm2`] errs (on every process alike).
    #[track_caller]
    pub fn diff_norm2(&self, other: &DistArray<T, N>) -> T {
        or_panic(self.try_diff_norm2(other))
    }

    /// [`DistArray::diff_norm2`], returning errors.
    ///
    /// # Errors
    ///
    /// As [`DistArray::try_max_abs_diff`].
    pub fn try_diff_norm2(&self, other: &DistArray<T, N>) -> Result<T> {
        agree(&*self.comm, "DistArray::diff_norm2", self.same_split("DistArray::diff_norm2", other))?;
        let mine =
            crate::Zip::from(self.owned()).and(other.owned()).fold(T::ZERO, |acc, &a, &b| acc + (a - b) * (a - b));
        Ok(self.all_reduce(mine, SystemOperation::sum()).sqrt())
    }
}

impl<T: Pod + Equivalence, const N: usize> DistArray<T, N> {
    /// `Ok` when `other` is split as `self` is (its blocks have the same places and shapes).
    pub(crate) fn same_split(&self, op: &'static str, other: &DistArray<T, N>) -> Result<()> {
        if self.decomposition != other.decomposition {
            return Err(Error::Decomposition {
                op,
                reason: format!(
                    "the arrays are split differently: {:?} and {:?}",
                    self.decomposition, other.decomposition
                ),
                fix: "use arrays of one split (a clone, or the same arguments to `DistArray::new`)",
            });
        }
        Ok(())
    }

    /// [`agree`] on `self`'s communicator, for the distributed stencils.
    pub(crate) fn agree<A>(&self, op: &'static str, local: Result<A>) -> Result<A> {
        agree(&*self.comm, op, local)
    }
}

impl<T: Numeric + Equivalence, const N: usize> DistArray<T, N> {
    /// The sum of every owned point of every process, the same on all (each process sums its block
    /// pairwise, then MPI adds the partial sums). Collective.
    pub fn sum(&self) -> T {
        self.all_reduce(self.owned().sum(), SystemOperation::sum())
    }

    /// The least point of the grid. Collective.
    pub fn min(&self) -> T {
        self.all_reduce(self.owned().min().expect(NON_EMPTY), SystemOperation::min())
    }

    /// The greatest point of the grid. Collective.
    pub fn max(&self) -> T {
        self.all_reduce(self.owned().max().expect(NON_EMPTY), SystemOperation::max())
    }

    fn all_reduce(&self, mine: T, op: SystemOperation) -> T {
        ensure_live("DistArray (reduction)");
        let mut all = mine;
        self.comm.all_reduce_into(&mine, &mut all, op);
        all
    }
}

/// One process's part of a new [`DistArray`], built without communicating.
struct LocalPart<T: Pod, const N: usize> {
    decomposition: Decomposition<N>,
    rank: usize,
    halo: [usize; N],
    local: Array<T, N>,
    plan: HaloPlan,
}

/// Every process owns at least one point (the decomposition refuses splits that leave one empty).
const NON_EMPTY: &str = "a decomposition gives every process at least one point";
