//! Reductions over a distributed grid (sums, extrema, residual norms), the same on every
//! process: each reduces its owned block with the backend's kernels, then MPI combines the
//! partial results.

use mpi::collective::SystemOperation;
use mpi::datatype::Equivalence;
use mpi::traits::{Communicator, CommunicatorCollectives};

use super::agree::{agree, ensure_live};
use super::{DistArray, DistBackend};
use crate::element::{Float, Numeric, Pod};
use crate::error::{or_panic, Error, Result};
use crate::kernel::tokens::{self, ReduceOp};
use crate::kernel::{ElementwiseKernels, ReduceKernels};
use crate::ops::reduce::reduce;

impl<T: Float + Equivalence, const N: usize, B: DistBackend + ElementwiseKernels + ReduceKernels> DistArray<T, N, B> {
    /// The largest `|self - other|` over the grid's points (a residual's maximum norm), the same
    /// on every process; NaN when any difference is NaN. Collective.
    ///
    /// # Panics
    ///
    /// As [`DistArray::try_max_abs_diff`] errs (on every process alike).
    #[track_caller]
    pub fn max_abs_diff(&self, other: &DistArray<T, N, B>) -> T {
        or_panic(self.try_max_abs_diff(other))
    }

    /// [`DistArray::max_abs_diff`], returning errors.
    ///
    /// # Errors
    ///
    /// `Error::Decomposition` when the two arrays are split differently; `Error::Alloc` or
    /// `Error::Device` when a process's backend refuses the temporaries (`Error::Mpi` on the
    /// others: every process returns an error).
    pub fn try_max_abs_diff(&self, other: &DistArray<T, N, B>) -> Result<T> {
        const OP: &str = "DistArray::max_abs_diff";
        // On the block's backend: the differences, their magnitudes, the largest (NaN if any);
        // agreed on, so a process short of memory for the temporaries fails them all.
        let local = self.same_split(OP, other).and_then(|()| {
            let magnitudes = self.owned().try_sub(&other.owned())?.try_abs()?;
            // The kernel's error, not a panic, so that it reaches the agreement below.
            // SAFETY: `magnitudes` is a live array, borrowed shared for the call.
            Ok(unsafe { reduce(tokens::Max, magnitudes.desc()) }?.expect(NON_EMPTY))
        });
        let mine = agree(&*self.comm, OP, local)?;
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
    pub fn diff_norm2(&self, other: &DistArray<T, N, B>) -> T {
        or_panic(self.try_diff_norm2(other))
    }

    /// [`DistArray::diff_norm2`], returning errors.
    ///
    /// # Errors
    ///
    /// As [`DistArray::try_max_abs_diff`].
    pub fn try_diff_norm2(&self, other: &DistArray<T, N, B>) -> Result<T> {
        const OP: &str = "DistArray::diff_norm2";
        let local = self.same_split(OP, other).and_then(|()| {
            let d = self.owned().try_sub(&other.owned())?;
            let squares = d.try_mul(&d)?;
            // SAFETY: `squares` is a live array, borrowed shared for the call.
            Ok(unsafe { reduce(tokens::Sum, squares.desc()) }?.expect(NON_EMPTY))
        });
        let mine = agree(&*self.comm, OP, local)?;
        Ok(self.all_reduce(mine, SystemOperation::sum()).sqrt())
    }
}

impl<T: Pod + Equivalence, const N: usize, B: DistBackend> DistArray<T, N, B> {
    /// `Ok` when `other` is split as `self` is (its blocks have the same places and shapes).
    pub(crate) fn same_split(&self, op: &'static str, other: &DistArray<T, N, B>) -> Result<()> {
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

    /// The sum over every process of its `local` value, added in rank order on every process
    /// (the same bits everywhere, so decisions made on it agree); the same error on every
    /// process when any `local` is one. Collective: one all-gather of two numbers per process.
    ///
    /// # Errors
    ///
    /// As [`agree`], when a process's `local` is an error.
    pub(crate) fn sum_in_rank_order(&self, op: &'static str, local: Result<f64>) -> Result<f64> {
        ensure_live(op);
        let mine = match &local {
            Ok(value) => [*value, 0.0],
            Err(_) => [0.0, 1.0],
        };
        let mut all = vec![0.0f64; 2 * self.comm.size() as usize];
        self.comm.all_gather_into(&mine[..], &mut all[..]);
        if all.chunks_exact(2).any(|pair| pair[1] != 0.0) {
            return self.agree(op, local);
        }
        Ok(all.chunks_exact(2).map(|pair| pair[0]).fold(0.0, |sum, value| sum + value))
    }

    /// [`agree`] on `self`'s communicator, for the distributed stencils.
    pub(crate) fn agree<A>(&self, op: &'static str, local: Result<A>) -> Result<A> {
        agree(&*self.comm, op, local)
    }

    /// [`DistArray::agree`] for a device block, whose work can fail on one process alone; a host
    /// block's `local` as it is (its failures are the same on every process, or abort).
    pub(crate) fn agree_on_device<A>(&self, op: &'static str, local: Result<A>) -> Result<A> {
        if self.on_device() {
            self.agree(op, local)
        } else {
            local
        }
    }
}

impl<T: Numeric + Equivalence, const N: usize, B: DistBackend + ReduceKernels> DistArray<T, N, B> {
    /// The sum of every owned point of every process, the same on all (each process sums its block
    /// with its backend's reduction, pairwise on the CPU, then MPI adds the partial sums: the
    /// last bits depend on the split and the backend). Collective.
    ///
    /// # Panics
    ///
    /// When a device's reduction fails, on every process alike (they agree on it first).
    #[track_caller]
    pub fn sum(&self) -> T {
        let mine = self.local_reduction("DistArray::sum", tokens::Sum).unwrap_or(T::ZERO);
        self.all_reduce(mine, SystemOperation::sum())
    }

    /// The least point of the grid. Collective.
    ///
    /// # Panics
    ///
    /// As [`DistArray::sum`].
    #[track_caller]
    pub fn min(&self) -> T {
        let mine = self.local_reduction("DistArray::min", tokens::Min).expect(NON_EMPTY);
        self.all_reduce(mine, SystemOperation::min())
    }

    /// The greatest point of the grid. Collective.
    ///
    /// # Panics
    ///
    /// As [`DistArray::sum`].
    #[track_caller]
    pub fn max(&self) -> T {
        let mine = self.local_reduction("DistArray::max", tokens::Max).expect(NON_EMPTY);
        self.all_reduce(mine, SystemOperation::max())
    }

    /// `op` over the owned points, by the block's backend. A device's reduction can fail on its
    /// process alone: the processes then agree on the outcome first, so that every one panics
    /// instead of the others waiting in the all-reduce for it (a host reduction cannot fail).
    #[track_caller]
    fn local_reduction<Op: ReduceOp<T>>(&self, op: &'static str, token: Op) -> Option<T> {
        let owned = self.owned();
        // SAFETY: the owned points, borrowed shared for the call.
        let local = unsafe { reduce(token, owned.desc()) };
        or_panic(self.agree_on_device(op, local))
    }

    fn all_reduce(&self, mine: T, op: SystemOperation) -> T {
        ensure_live("DistArray (reduction)");
        let mut all = mine;
        self.comm.all_reduce_into(&mine, &mut all, op);
        all
    }
}

/// Every process owns at least one point (the decomposition refuses splits that leave one empty).
const NON_EMPTY: &str = "a decomposition gives every process at least one point";
