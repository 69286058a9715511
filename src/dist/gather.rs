//! Gathering a [`DistArray`] onto one process and scattering a global array from one, as
//! MPI's varcount collectives over each rank's block (in rank order).

use core::ops::Range;

use mpi::datatype::{Equivalence, PartitionMut};
use mpi::traits::{Communicator, Root};

use super::agree::agree;
use super::{DistArray, DistBackend};
use crate::array::Array;
use crate::element::Pod;
use crate::error::{or_panic, Error, Result};
use crate::layout::Strided;

impl<T: Pod + Equivalence, const N: usize, B: DistBackend> DistArray<T, N, B> {
    /// The whole grid on process `root` (`None` on the others), in host memory (a device block
    /// comes down first). Collective.
    ///
    /// # Panics
    ///
    /// As [`DistArray::try_gather`] errs (on every process alike).
    #[track_caller]
    pub fn gather(&self, root: usize) -> Option<Array<T, N>> {
        or_panic(self.try_gather(root))
    }

    /// [`DistArray::gather`], returning errors.
    ///
    /// # Errors
    ///
    /// `Error::Decomposition` when `root` is not a rank of the communicator or a block, or the
    /// whole grid, has more points than MPI's `int` counts; `Error::Overflow`/`Error::Alloc` when
    /// the root cannot allocate the grid, or a device its block's copy; `Error::Device` when a
    /// device block's copy down fails; `Error::Mpi` when another process failed. The same
    /// error on every process: they agree before communicating.
    pub fn try_gather(&self, root: usize) -> Result<Option<Array<T, N>>> {
        let op = "DistArray::gather";
        let local = self.check_root(op, root).and_then(|()| {
            let layout = self.partition(op)?;
            let global = if self.rank == root {
                Some(Array::<T, N>::try_zeros(self.decomposition.global_shape())?)
            } else {
                None
            };
            Ok((layout, global, self.owned().try_to_host()?))
        });
        let ((counts, displs), global, mine) = agree(&*self.comm, op, local)?;
        let process = self.comm.process_at_rank(root as i32);
        let Some(mut global) = global else {
            process.gather_varcount_into(mine.as_slice());
            return Ok(None);
        };
        let total = global.len();
        let mut flat = vec![T::zeroed(); total];
        let mut parts = PartitionMut::new(&mut flat[..], &counts[..], &displs[..]);
        process.gather_varcount_into_root(mine.as_slice(), &mut parts);
        for r in 0..self.decomposition.ranks() {
            let block = self.decomposition.block(r);
            let start = displs[r] as usize;
            let part = &flat[start..start + counts[r] as usize];
            let part = Array::from_shape_vec(block.clone().map(|b| b.len()), part.to_vec()).expect("block-sized part");
            region(global.view_mut().into_strided(), &block).assign(&part);
        }
        Ok(Some(global))
    }

    /// Sets the owned points from `global`, a host array on process `root` (the others pass
    /// `None`; a device block receives its part by a copy up). Collective.
    ///
    /// # Panics
    ///
    /// As [`DistArray::try_scatter`] errs (on every process alike).
    #[track_caller]
    pub fn scatter(&mut self, root: usize, global: Option<&Array<T, N>>) {
        or_panic(self.try_scatter(root, global))
    }

    /// [`DistArray::scatter`], returning errors.
    ///
    /// # Errors
    ///
    /// `Error::Decomposition` when `root` is not a rank of the communicator, or a block has more
    /// points than MPI's `int` counts; on the root, `Error::ShapeMismatch` when `global` is not of
    /// the grid's shape and `Error::Mpi` when it is `None`; `Error::Mpi` on the other processes
    /// when the root fails. The same error on every process: they agree before communicating,
    /// and on the copy up to a device block after it (`Error::Alloc`/`Error::Device` there).
    pub fn try_scatter(&mut self, root: usize, global: Option<&Array<T, N>>) -> Result<()> {
        let op = "DistArray::scatter";
        let local = self.check_root(op, root).and_then(|()| {
            let layout = self.partition(op)?;
            if self.rank != root {
                return Ok((layout, None));
            }
            let global = global.ok_or_else(|| Error::Mpi {
                op,
                reason: format!("the root process {root} passed no global array"),
                fix: "pass `Some(&global)` on the root process (the others pass `None`)",
            })?;
            if global.shape() != self.decomposition.global_shape() {
                return Err(Error::ShapeMismatch {
                    op,
                    expected: self.decomposition.global_shape().to_vec(),
                    got: global.shape().to_vec(),
                });
            }
            Ok((layout, Some(global)))
        });
        let ((counts, displs), global) = agree(&*self.comm, op, local)?;
        let block = self.decomposition.block_shape(self.rank);
        let mut mine = Array::<T, N>::zeros(block);
        let process = self.comm.process_at_rank(root as i32);
        if let Some(global) = global {
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
        let set = self.try_set_owned(&mine);
        agree(&*self.comm, op, set)
    }

    /// `Ok` when `root` is a rank of the communicator.
    fn check_root(&self, op: &'static str, root: usize) -> Result<()> {
        let size = self.decomposition.ranks();
        if root >= size {
            return Err(Error::Decomposition {
                op,
                reason: format!("the root {root} is not a process of the communicator, which has {size}"),
                fix: "pass a root below the communicator's size",
            });
        }
        Ok(())
    }

    /// Each rank's block size and offset in rank order (gather's and scatter's layout).
    ///
    /// # Errors
    ///
    /// `Error::Decomposition` when a count or an offset exceeds MPI's `int`.
    fn partition(&self, op: &'static str) -> Result<(Vec<i32>, Vec<i32>)> {
        let too_many = |what: &str, n: usize| Error::Decomposition {
            op,
            reason: format!("{what} of {n} points is more than MPI's int counts"),
            fix: "gather or scatter a smaller grid, or use more processes",
        };
        let (mut counts, mut displs, mut at) = (Vec::new(), Vec::new(), 0usize);
        for r in 0..self.decomposition.ranks() {
            let n = self.decomposition.block_shape(r).iter().product::<usize>();
            counts.push(i32::try_from(n).map_err(|_| too_many("a block", n))?);
            displs.push(i32::try_from(at).map_err(|_| too_many("the grid", at))?);
            at += n;
        }
        Ok((counts, displs))
    }
}

/// The sub-view of `v` at the index ranges `at`.
fn region<'a, T: Pod, const N: usize, A: crate::view::Access>(
    v: crate::view::View<'a, T, N, A, crate::kernel::Cpu, Strided>,
    at: &[Range<usize>; N],
) -> crate::view::View<'a, T, N, A, crate::kernel::Cpu, Strided> {
    (0..N).fold(v, |v, k| v.narrow(k, at[k].start, at[k].len()))
}
