//! Moving a distributed grid from one split to another: every process sends each other process
//! the part of its block that the other owns in the new split, in one `MPI_Alltoallv`. With
//! [`pencil`], a split that keeps one axis whole on every process, this is the transpose that
//! distributed transforms need (a transform along an axis needs the whole axis on one
//! process): the Fourier solves of `fft::solve_box_dist` move the grid from pencil to pencil.

use core::ops::Range;

use mpi::datatype::{Equivalence, Partition, PartitionMut};
use mpi::topology::SimpleCommunicator;
use mpi::traits::{Communicator, CommunicatorCollectives};

use super::agree::agree;
use super::Decomposition;
use crate::array::Array;
use crate::element::Pod;
use crate::error::{Error, Result};
use crate::kernel::Cpu;
use crate::layout::Strided;
use crate::view::{Access, View};

/// A split of `global` over `dims`' processes with `axis` whole on each: `dims` with the
/// processes along `axis` moved onto the other axes (each of `dims[axis]`'s prime factors onto
/// the axis with the most points per process that still has a point per process), so that as
/// few points as possible change hands; or, when that fits nowhere, the same from one process
/// per axis. `None` when no split of the other axes gives every process a point (a grid too
/// small for its processes, or a rank-1 grid over several processes).
pub(crate) fn pencil<const N: usize>(global: [usize; N], dims: [usize; N], axis: usize) -> Option<[usize; N]> {
    let spread = |mut out: [usize; N], factors: Vec<usize>| -> Option<[usize; N]> {
        out[axis] = 1;
        for p in factors {
            // The roomiest axis: the most points per process after taking `p` more processes.
            let b = (0..N)
                .filter(|&b| b != axis && out[b] * p <= global[b])
                .max_by(|&x, &y| (global[x] * out[y]).cmp(&(global[y] * out[x])).then(y.cmp(&x)))?;
            out[b] *= p;
        }
        Some(out)
    };
    let ranks: usize = dims.iter().product();
    if dims[axis] == 1 {
        return Some(dims);
    }
    spread(dims, prime_factors(dims[axis])).or_else(|| spread([1; N], prime_factors(ranks)))
}

/// `n`'s prime factors, largest first (so that large ones find room while it lasts).
fn prime_factors(n: usize) -> Vec<usize> {
    let mut factors = super::decomposition::prime_factors(n);
    factors.reverse();
    factors
}

/// The index ranges two blocks share, `None` when they share no point.
fn overlap<const N: usize>(a: &[Range<usize>; N], b: &[Range<usize>; N]) -> Option<[Range<usize>; N]> {
    let shared: [Range<usize>; N] = core::array::from_fn(|k| a[k].start.max(b[k].start)..a[k].end.min(b[k].end));
    shared.iter().all(|r| r.start < r.end).then_some(shared)
}

/// `global`'s ranges relative to a block starting at `origin`.
fn relative<const N: usize>(global: &[Range<usize>; N], origin: &[Range<usize>; N]) -> [Range<usize>; N] {
    core::array::from_fn(|k| global[k].start - origin[k].start..global[k].end - origin[k].start)
}

/// The sub-view of `v` at the index ranges `at`.
fn region<'a, T: Pod, const N: usize, A: Access>(
    v: View<'a, T, N, A, Cpu, Strided>,
    at: &[Range<usize>; N],
) -> View<'a, T, N, A, Cpu, Strided> {
    (0..N).fold(v, |v, k| v.narrow(k, at[k].start, at[k].len()))
}

/// Per process, element counts and offsets as MPI's `int`s.
fn counts(op: &'static str, sizes: &[usize]) -> Result<(Vec<i32>, Vec<i32>)> {
    let too_many = |n: usize| Error::Decomposition {
        op,
        reason: format!("one process would exchange {n} points in a transpose, more than MPI's int counts"),
        fix: "use more processes for this grid, or a smaller grid",
    };
    let (mut counts, mut displs, mut at) = (Vec::with_capacity(sizes.len()), Vec::new(), 0usize);
    for &n in sizes {
        counts.push(i32::try_from(n).map_err(|_| too_many(n))?);
        displs.push(i32::try_from(at).map_err(|_| too_many(at))?);
        at += n;
    }
    Ok((counts, displs))
}

/// This process's block of `from` (a host array of `from.block_shape(rank)`), as its block of
/// `to`, both splits of one global grid over the processes of `comm`. Collective: every process
/// calls it with the same splits. Each process sends each other one the points of its block the
/// other owns in `to` (row-major), and unpacks what it receives into its new block.
///
/// # Errors
///
/// `Error::Decomposition` when the splits are not of one grid over `comm`'s processes, or a
/// process would exchange more points than MPI's `int` counts; `Error::ShapeMismatch` when
/// `block` is not this process's block of `from`; `Error::Alloc` for the new block
/// or the messages. The same error on every process: they agree before communicating.
pub(crate) fn redistribute<T: Pod + Equivalence, const N: usize>(
    comm: &SimpleCommunicator,
    op: &'static str,
    from: &Decomposition<N>,
    block: &Array<T, N>,
    to: &Decomposition<N>,
) -> Result<Array<T, N>> {
    let (rank, ranks) = (comm.rank() as usize, comm.size() as usize);
    let local = (|| {
        if from.global_shape() != to.global_shape() || from.ranks() != ranks || to.ranks() != ranks {
            return Err(Error::Decomposition {
                op,
                reason: format!(
                    "a transpose from {:?} over {} processes to {:?} over {} on a communicator of {ranks}",
                    from.global_shape(),
                    from.ranks(),
                    to.global_shape(),
                    to.ranks()
                ),
                fix: "transpose between splits of one grid over the communicator's processes",
            });
        }
        if block.shape() != from.block_shape(rank) {
            return Err(Error::ShapeMismatch {
                op,
                expected: from.block_shape(rank).to_vec(),
                got: block.shape().to_vec(),
            });
        }
        let (mine_from, mine_to) = (from.block(rank), to.block(rank));
        let sent: Vec<Option<[Range<usize>; N]>> = (0..ranks).map(|q| overlap(&mine_from, &to.block(q))).collect();
        let got: Vec<Option<[Range<usize>; N]>> = (0..ranks).map(|q| overlap(&from.block(q), &mine_to)).collect();
        let size = |r: &Option<[Range<usize>; N]>| r.as_ref().map_or(0, |r| r.iter().map(Range::len).product());
        let send_layout = counts(op, &sent.iter().map(size).collect::<Vec<_>>())?;
        let recv_layout = counts(op, &got.iter().map(size).collect::<Vec<_>>())?;
        let mut message = crate::kernel::try_zeroed_vec::<T>(op, sent.iter().map(size).sum())?;
        let incoming = crate::kernel::try_zeroed_vec::<T>(op, got.iter().map(size).sum())?;
        let out = Array::<T, N>::try_zeros(to.block_shape(rank))?;
        let mut at = 0;
        for part in sent.iter().flatten() {
            let shape: [usize; N] = core::array::from_fn(|k| part[k].len());
            let len: usize = shape.iter().product();
            let mut piece = crate::view::ArrayViewMut::<T, N, crate::layout::RowMajor>::from_slice(
                shape,
                &mut message[at..at + len],
            )?;
            piece.try_assign(&region(block.view().into_strided(), &relative(part, &mine_from)))?;
            at += len;
        }
        Ok((send_layout, recv_layout, message, incoming, out, got, mine_to))
    })();
    let ((send_counts, send_displs), (recv_counts, recv_displs), message, mut incoming, mut out, got, mine_to) =
        agree(comm, op, local)?;
    {
        let outgoing = Partition::new(&message[..], &send_counts[..], &send_displs[..]);
        let mut received = PartitionMut::new(&mut incoming[..], &recv_counts[..], &recv_displs[..]);
        comm.all_to_all_varcount_into(&outgoing, &mut received);
    }
    let mut at = 0;
    for part in got.iter().flatten() {
        let shape: [usize; N] = core::array::from_fn(|k| part[k].len());
        let len: usize = shape.iter().product();
        let piece = crate::view::ArrayView::<T, N, crate::layout::RowMajor>::from_slice(shape, &incoming[at..at + len])
            .expect("a piece of its own shape");
        region(out.view_mut().into_strided(), &relative(part, &mine_to)).assign(&piece);
        at += len;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pencils_keep_the_axis_whole_and_move_few_points() {
        // Already whole: unchanged.
        assert_eq!(pencil([64, 64, 64], [2, 2, 1], 2), Some([2, 2, 1]));
        // The two processes along axis 0 move to the roomiest other axis; on a tie, the first.
        assert_eq!(pencil([64, 64, 64], [2, 2, 1], 0), Some([1, 2, 2]));
        assert_eq!(pencil([64, 64, 64], [2, 1, 1], 0), Some([1, 2, 1]));
        assert_eq!(pencil([64, 32], [4, 1], 0), Some([1, 4]));
        // Six processes along a long axis: 3 and then 2 spread where they fit.
        assert_eq!(pencil([12, 3, 4], [6, 1, 1], 0), Some([1, 2, 3]));
        // No room beside the axis: from scratch, then not at all.
        assert_eq!(pencil([8, 2], [2, 2], 0), None);
        assert_eq!(pencil([8, 4], [4, 1], 0), Some([1, 4]));
        assert_eq!(pencil([16], [2], 0), None);
        assert_eq!(pencil([16], [1], 0), Some([1]));
        assert_eq!(prime_factors(360), vec![5, 3, 3, 2, 2, 2]);
        assert_eq!(prime_factors(1), Vec::<usize>::new());
    }

    #[test]
    fn overlaps_are_the_shared_points_or_none() {
        assert_eq!(overlap(&[0..4, 2..6], &[2..8, 0..3]), Some([2..4, 2..3]));
        assert_eq!(overlap(&[0..4, 2..6], &[4..8, 0..3]), None);
        assert_eq!(relative(&[2..4, 2..3], &[1..5, 2..9]), [1..3, 0..1]);
    }
}
