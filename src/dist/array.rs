//! [`DistArray`]: one block of a distributed grid per MPI process, surrounded by a halo that
//! [`DistArray::exchange_halos`] fills from the neighbouring blocks.

use core::ops::Range;

use mpi::collective::SystemOperation;
use mpi::datatype::{Equivalence, PartitionMut};
use mpi::raw::AsRaw;
use mpi::topology::SimpleCommunicator;
use mpi::traits::{Communicator, CommunicatorCollectives, Root};

use super::exchange::HaloPlan;
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
    comm: SimpleCommunicator,
    decomposition: Decomposition<N>,
    rank: usize,
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
    /// As [`DistArray::try_with_decomposition`].
    pub fn try_new(
        comm: &impl Communicator,
        global: [usize; N],
        halo: [usize; N],
        periodic: [bool; N],
    ) -> Result<Self> {
        let ranks = usize::try_from(comm.size()).unwrap_or(0);
        Self::try_with_decomposition(comm, Decomposition::try_new(global, ranks, periodic)?, halo)
    }

    /// A zero-filled grid split as `decomposition` says, over every process of `comm`.
    ///
    /// # Errors
    ///
    /// `Error::Decomposition` when `comm` has not `decomposition.ranks()` processes, or a block
    /// is thinner than its halo on an axis with neighbours (the halo would need a second
    /// neighbour's points); `Error::Overflow`/`Error::Alloc` for a local block too large.
    pub fn try_with_decomposition(
        comm: &impl Communicator,
        decomposition: Decomposition<N>,
        halo: [usize; N],
    ) -> Result<Self> {
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
        let rank = usize::try_from(comm.rank()).expect("MPI ranks are non-negative");
        let block = decomposition.block_shape(rank);
        for k in 0..N {
            if decomposition.exchanges_along(k) && block[k] < halo[k] {
                return Err(Error::Decomposition {
                    op,
                    reason: format!(
                        "process {rank}'s block has {} points along axis {k}, fewer than the halo width {}",
                        block[k], halo[k]
                    ),
                    fix: "use fewer processes along that axis, a larger grid, or a narrower halo",
                });
            }
        }
        let mut shape = [0usize; N];
        for k in 0..N {
            shape[k] = halo[k].checked_mul(2).and_then(|h| h.checked_add(block[k])).ok_or(Error::Overflow {
                op,
                shape: block.to_vec(),
                elem_size: core::mem::size_of::<T>(),
            })?;
        }
        let local = Array::try_zeros(shape)?;
        let plan = HaloPlan::new(&decomposition, rank, halo, T::equivalent_datatype().as_raw())?;
        Ok(DistArray { comm: comm.duplicate(), decomposition, rank, halo, local, plan })
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
    pub(crate) fn local_desc_mut(&mut self) -> crate::ops::desc::Desc<crate::backend::Cpu, T, N> {
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
    pub fn exchange_halos(&mut self) {
        self.exchange_halos_with(|_| ());
    }

    /// [`DistArray::exchange_halos`] with `during` run while the messages are in flight, given the
    /// owned points (which the exchange only reads): the split form that hides communication
    /// behind the interior of a sweep, whose points need no halo. Its result is returned once
    /// every halo has arrived. A closure rather than a start/finish pair: a forgotten "finish"
    /// guard would leave MPI writing into memory the program could reach again.
    ///
    /// ```no_run
    /// # use cnda::dist::DistArray;
    /// # let universe = mpi::initialize().unwrap();
    /// # let mut u = DistArray::<f64, 2>::new(&universe.world(), [512, 512], [1, 1], [false; 2]);
    /// let interior_sum = u.exchange_halos_with(|owned| owned.sum());
    /// ```
    pub fn exchange_halos_with<R>(&mut self, during: impl FnOnce(ArrayView<'_, T, N, Strided>) -> R) -> R {
        self.exchange(false, during)
    }

    /// [`DistArray::exchange_halos`] for the face neighbours only (`2N` messages instead of up
    /// to `3^N - 1`): enough for stencils without diagonal taps (5- and 7-point), whose sweeps
    /// never read an edge or corner of the halo, which keeps its old values.
    pub fn exchange_faces(&mut self) {
        self.exchange(true, |_| ());
    }

    /// The exchange, with every neighbour or the faces only, running `during` meanwhile.
    pub(crate) fn exchange<R>(
        &mut self,
        faces_only: bool,
        during: impl FnOnce(ArrayView<'_, T, N, Strided>) -> R,
    ) -> R {
        let base = self.local.desc_mut().handle.cast::<core::ffi::c_void>();
        let owned = self.owned();
        // SAFETY: the plan was made for this block, row-major and of this shape for the array's
        // life (`local_mut` hands out views only); `during` gets a shared view of the owned
        // points, which the plan only reads, and nothing else can reach the halos meanwhile.
        unsafe { self.plan.exchange(&self.comm, base, faces_only, || during(owned)) }
    }

    /// The whole grid on process `root` (`None` on the others). Collective.
    ///
    /// # Panics
    ///
    /// When `root` is not a rank of the communicator.
    pub fn gather(&self, root: usize) -> Option<Array<T, N>> {
        let mine = self.owned().to_owned();
        let process = self.comm.process_at_rank(root as i32);
        if self.rank != root {
            process.gather_varcount_into(mine.as_slice());
            return None;
        }
        let (counts, displs) = self.partition();
        let total = self.decomposition.global_shape().iter().product::<usize>();
        let mut flat = vec![T::zeroed(); total];
        let mut parts = PartitionMut::new(&mut flat[..], &counts[..], &displs[..]);
        process.gather_varcount_into_root(mine.as_slice(), &mut parts);
        let mut global = Array::zeros(self.decomposition.global_shape());
        for r in 0..self.decomposition.ranks() {
            let block = self.decomposition.block(r);
            let start = displs[r] as usize;
            let part = &flat[start..start + counts[r] as usize];
            let part = Array::from_shape_vec(block.clone().map(|b| b.len()), part.to_vec()).expect("block-sized part");
            region(global.view_mut().into_strided(), &block).assign(&part);
        }
        Some(global)
    }

    /// Sets the owned points from `global` on process `root` (the others pass `None`). Collective.
    ///
    /// # Panics
    ///
    /// When `root` is not a rank, or `global` is missing or of the wrong shape on `root`.
    #[track_caller]
    pub fn scatter(&mut self, root: usize, global: Option<&Array<T, N>>) {
        let block = self.decomposition.block_shape(self.rank);
        let mut mine = Array::<T, N>::zeros(block);
        let process = self.comm.process_at_rank(root as i32);
        if self.rank == root {
            let global = global.expect("scatter: the root process passes the global array");
            assert_eq!(global.shape(), self.decomposition.global_shape(), "scatter: the global array's shape");
            let (counts, displs) = self.partition();
            let mut flat = Vec::with_capacity(global.len());
            for r in 0..self.decomposition.ranks() {
                let part = region(global.view().into_strided(), &self.decomposition.block(r)).to_owned();
                flat.extend_from_slice(part.as_slice());
            }
            let parts = mpi::datatype::Partition::new(&flat[..], &counts[..], &displs[..]);
            process.scatter_varcount_into_root(&parts, mine.as_mut_slice());
        } else {
            process.scatter_varcount_into(mine.as_mut_slice());
        }
        self.owned_mut().assign(&mine);
    }

    /// Each rank's block size and offset in rank order (gather's and scatter's layout).
    fn partition(&self) -> (Vec<i32>, Vec<i32>) {
        let counts: Vec<i32> = (0..self.decomposition.ranks())
            .map(|r| {
                i32::try_from(self.decomposition.block_shape(r).iter().product::<usize>())
                    .expect("blocks of at most i32::MAX points")
            })
            .collect();
        let displs = counts.iter().scan(0i32, |at, &c| Some(core::mem::replace(at, *at + c))).collect();
        (counts, displs)
    }
}

/// A copy on a duplicate of the communicator. Collective: every process clones its part.
impl<T: Pod + Equivalence, const N: usize> Clone for DistArray<T, N> {
    fn clone(&self) -> Self {
        let plan = HaloPlan::new(&self.decomposition, self.rank, self.halo, T::equivalent_datatype().as_raw())
            .expect("the original's plan was built from the same split");
        DistArray {
            comm: self.comm.duplicate(),
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
    /// When the two arrays are split differently.
    #[track_caller]
    pub fn max_abs_diff(&self, other: &DistArray<T, N>) -> T {
        assert_eq!(self.decomposition, other.decomposition, "max_abs_diff: the arrays are split differently");
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
        if any_nan != 0 {
            (-T::ONE).sqrt() // NaN
        } else {
            max
        }
    }
}

impl<T: crate::element::Float + Equivalence, const N: usize> DistArray<T, N> {
    /// `sqrt(sum (self - other)^2)` over the grid's points (a residual's 2-norm), the same on every
    /// process: each sums its block's squares, MPI adds the partial sums (so the last bits depend
    /// on the split, unlike [`DistArray::max_abs_diff`]). Collective.
    ///
    /// # Panics
    ///
    /// When the two arrays are split differently.
    #[track_caller]
    pub fn diff_norm2(&self, other: &DistArray<T, N>) -> T {
        assert_eq!(self.decomposition, other.decomposition, "diff_norm2: the arrays are split differently");
        let mine =
            crate::Zip::from(self.owned()).and(other.owned()).fold(T::ZERO, |acc, &a, &b| acc + (a - b) * (a - b));
        self.all_reduce(mine, SystemOperation::sum()).sqrt()
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
        let mut all = mine;
        self.comm.all_reduce_into(&mine, &mut all, op);
        all
    }
}

/// Every process owns at least one point (the decomposition refuses splits that leave one empty).
const NON_EMPTY: &str = "a decomposition gives every process at least one point";

/// The sub-view of `v` at the index ranges `at`.
fn region<'a, T: Pod, const N: usize, A: crate::view::Access>(
    v: crate::view::View<'a, T, N, A, crate::backend::Cpu, Strided>,
    at: &[Range<usize>; N],
) -> crate::view::View<'a, T, N, A, crate::backend::Cpu, Strided> {
    (0..N).fold(v, |v, k| v.narrow(k, at[k].start, at[k].len()))
}
