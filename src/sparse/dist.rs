//! A CSR matrix on a distributed grid ([`DistOperator::csr`], [`DistOperator::csr_rows`]): each
//! process keeps the rows of its block's points, their columns renumbered onto the block padded
//! by a halo as wide as the matrix reaches along each axis (each offset from a row's point to a
//! column's taken the shorter way round on periodic axes; the halo the largest reach of any
//! process's rows on the axes with neighbours), so that the operator's one halo exchange brings
//! every value a product reads and each process's product is one `spmv` on its padded block
//! ([`BlockOperator`]).

use mpi::collective::SystemOperation;
use mpi::datatype::Equivalence;
use mpi::traits::CommunicatorCollectives;

use super::csr::{check_dimensions, try_vec, CsrMatrix};
use super::operator::try_spmv_on_grid;
use crate::array::Array;
use crate::dist::{Decomposition, DistArray, DistBackend};
use crate::element::{Float, Pod};
use crate::error::{or_panic, Error, Result};
use crate::kernel::{Backend, Cpu, SparseKernels};
use crate::shape::row_major_index as point;
use crate::solve::{DistOperator, LinearOperator};

/// A CSR matrix acting on one process's block of a distributed grid padded by `halo` points on
/// both sides of every axis: one row per padded point (the halo's rows empty, so its product
/// there is zero) and its columns the padded points, the block's neighbours' values read from
/// the halo. What [`DistOperator::csr`] applies after exchanging the operand's halo.
pub struct BlockOperator<T: Pod, const N: usize, B: Backend = Cpu> {
    matrix: CsrMatrix<T, B>,
    shape: [usize; N],
    halo: [usize; N],
}

impl<T: Pod, const N: usize, B: Backend> core::fmt::Debug for BlockOperator<T, N, B> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("BlockOperator")
            .field("block", &self.shape)
            .field("halo", &self.halo)
            .field("matrix", &self.matrix)
            .finish()
    }
}

impl<T: Pod, const N: usize, B: Backend> BlockOperator<T, N, B> {
    /// The matrix on the padded block: as many rows and columns as the block has points with
    /// its halo, numbered row-major.
    pub fn matrix(&self) -> &CsrMatrix<T, B> {
        &self.matrix
    }
}

impl<T: Float, const N: usize, B: SparseKernels> LinearOperator<T, N, B> for BlockOperator<T, N, B> {
    fn shape(&self) -> [usize; N] {
        self.shape
    }

    fn halo(&self) -> [usize; N] {
        self.halo
    }

    fn try_apply(&self, x: &mut Array<T, N, B>, y: &mut Array<T, N, B>) -> Result<()> {
        let padded = core::array::from_fn(|k| self.shape[k] + 2 * self.halo[k]);
        try_spmv_on_grid(&self.matrix, "BlockOperator::apply", padded, x, y)
    }
}

impl<T: Float + Equivalence, const N: usize, B: DistBackend + SparseKernels>
    DistOperator<T, N, BlockOperator<T, N, B>, B>
{
    /// The square `matrix` of the whole grid of `like` (its points numbered row-major, as
    /// [`CsrMatrix::from_stencil`] and [`CsrMatrix::on_grid`] number them; every process holds
    /// it), each process applying the rows of its block. The operand's halo, exchanged once per
    /// product, is as wide as any process's rows reach along each axis that is split or wrapped
    /// (none along the others, whose couplings stay in the block), an offset taken the shorter
    /// way round on the axes `like`'s decomposition wraps: a matrix that couples across the
    /// grid's ends along a split axis needs that axis periodic in the decomposition. Collective.
    ///
    /// ```no_run
    /// use cnda::dist::DistArray;
    /// use cnda::solve::{Cg, DistOperator, StencilOperator};
    /// use cnda::sparse::CsrMatrix;
    /// use cnda::stencil::{Boundary, LinearStencil};
    /// let universe = mpi::initialize().unwrap();
    /// let world = universe.world();
    /// let n = 63;
    /// let one = StencilOperator::new(LinearStencil::laplacian_5pt(1.0), [n, n], [Boundary::Value(0.0); 2]);
    /// let matrix = CsrMatrix::from_stencil(&one); // or read from a Matrix Market file
    /// let mut b = DistArray::<f64, 2>::new(&world, [n, n], [0, 0], [false, false]);
    /// b.fill_owned_with(|_| 1.0);
    /// let a = DistOperator::csr(&matrix, &b); // halo 1 along each split axis: the reach
    /// let mut u = DistArray::new(&world, [n, n], [0, 0], [false, false]);
    /// let report = Cg::new().rtol(1e-8).solve_dist(&a, &b, &mut u);
    /// ```
    ///
    /// # Panics
    ///
    /// As [`DistOperator::try_csr`] errs.
    #[track_caller]
    pub fn csr(matrix: &CsrMatrix<T>, like: &DistArray<T, N, B>) -> Self {
        or_panic(Self::try_csr(matrix, like))
    }

    /// [`DistOperator::csr`], returning errors.
    ///
    /// # Errors
    ///
    /// `Error::ShapeMismatch` unless the matrix has a row and a column per point of the grid;
    /// `Error::Decomposition` when it couples points farther apart along an axis than the
    /// thinnest block there (one exchange would not bring them); `Error::Parameter` for a padded
    /// block beyond 32-bit indices; `Error::Alloc`, `Error::Device`. The same error on every
    /// process: where a process alone fails (its block is larger, its device refuses), the
    /// others get `Error::Mpi` naming it and its message.
    pub fn try_csr(matrix: &CsrMatrix<T>, like: &DistArray<T, N, B>) -> Result<Self> {
        let global = like.decomposition().global_shape();
        let points = points(&global);
        let shape = check_shape("DistOperator::csr", matrix, [points, points]);
        block_operator("DistOperator::csr", shape.map(|()| matrix), like, |_, g| flat(g, global))
    }

    /// The operator whose rows on this process are `rows`: one row per point of the process's
    /// block, in the block's row-major order, and a column per point of `like`'s whole grid
    /// in its natural row-major numbering (not a numbering by process, as PETSc's `MPIAIJ`
    /// columns are: map those through the DMDA's application ordering first), as a process
    /// assembles its own part of a matrix. Otherwise as [`DistOperator::csr`]. Collective.
    ///
    /// # Panics
    ///
    /// As [`DistOperator::try_csr_rows`] errs.
    #[track_caller]
    pub fn csr_rows(rows: &CsrMatrix<T>, like: &DistArray<T, N, B>) -> Self {
        or_panic(Self::try_csr_rows(rows, like))
    }

    /// [`DistOperator::csr_rows`], returning errors.
    ///
    /// # Errors
    ///
    /// `Error::ShapeMismatch` unless `rows` has a row per point of the block and a column per
    /// point of the grid; otherwise as [`DistOperator::try_csr`].
    pub fn try_csr_rows(rows: &CsrMatrix<T>, like: &DistArray<T, N, B>) -> Result<Self> {
        let d = like.decomposition();
        let expected = [points(&d.block_shape(like.rank())), points(&d.global_shape())];
        let shape = check_shape("DistOperator::csr_rows", rows, expected);
        block_operator("DistOperator::csr_rows", shape.map(|()| rows), like, |i, _| i)
    }
}

/// Row-major index of point `g` of `shape`.
fn flat<const N: usize>(g: [usize; N], shape: [usize; N]) -> usize {
    (0..N).fold(0, |i, k| i * shape[k] + g[k])
}

/// The points of `shape`, saturating: a grid beyond memory matches no matrix's shape (a
/// block's product fits: it is allocated).
fn points<const N: usize>(shape: &[usize; N]) -> usize {
    shape.iter().try_fold(1usize, |n, &k| n.checked_mul(k)).unwrap_or(usize::MAX)
}

fn check_shape<T: Pod>(op: &'static str, m: &CsrMatrix<T>, expected: [usize; 2]) -> Result<()> {
    if m.shape() != expected {
        return Err(Error::ShapeMismatch { op, expected: expected.to_vec(), got: m.shape().to_vec() });
    }
    Ok(())
}

/// The operator on `like`'s grid whose block row `i` (of the block's global point `g`) is row
/// `row_of(i, g)` of `matrix` (this process's outcome, checked): the halo agreed on (the
/// farthest reach of any process's rows), the padded block built and moved to the backend.
fn block_operator<T: Float + Equivalence, const N: usize, B: DistBackend + SparseKernels>(
    op: &'static str,
    matrix: Result<&CsrMatrix<T>>,
    like: &DistArray<T, N, B>,
    row_of: impl Fn(usize, [usize; N]) -> usize,
) -> Result<DistOperator<T, N, BlockOperator<T, N, B>, B>> {
    let (d, rank) = (*like.decomposition(), like.rank());
    let rows = BlockRows { d: &d, rank, row_of };
    let matrix = like.agree(op, matrix)?;
    let (reach, corners) = rows.reach(matrix);
    // One halo on every process: the farthest any process's rows reach, on the axes with
    // neighbours (elsewhere a row's entries lie in its own block).
    let mine: Vec<u64> = reach.iter().map(|&r| r as u64).chain([u64::from(corners)]).collect();
    let mut all = vec![0u64; N + 1];
    like.communicator().all_reduce_into(&mine[..], &mut all[..], SystemOperation::max());
    let halo = core::array::from_fn(|k| if d.exchanges_along(k) { all[k] as usize } else { 0 });
    let local = check_reach(op, &d, halo).and_then(|()| {
        let host = rows.padded(op, matrix, halo)?;
        Ok(BlockOperator { matrix: host.try_to_dist_backend(&like.allocator())?, shape: d.block_shape(rank), halo })
    });
    DistOperator::with_exchange(op, local, like, all[N] == 0, None)
}

/// `Error::Decomposition` where the halo is wider than the thinnest block along its axis.
fn check_reach<const N: usize>(op: &'static str, d: &Decomposition<N>, halo: [usize; N]) -> Result<()> {
    for (k, &reach) in halo.iter().enumerate() {
        let thinnest = (0..d.ranks()).map(|r| d.block_shape(r)[k]).min().unwrap_or(0);
        if reach > thinnest {
            return Err(Error::Decomposition {
                op,
                reason: format!(
                    "the matrix couples points {reach} apart along axis {k}, but the thinnest block along it is \
                     {thinnest} wide: one halo exchange cannot bring the values a product reads"
                ),
                fix: "split that axis over fewer processes (a Decomposition with dims of your own), or make the \
                      axis periodic in the decomposition when the matrix couples across the grid's ends",
            });
        }
    }
    Ok(())
}

/// This process's rows of a matrix on `d`'s grid: block row `i` (of global point `g`) is the
/// matrix's row `row_of(i, g)`.
struct BlockRows<'a, const N: usize, F> {
    d: &'a Decomposition<N>,
    rank: usize,
    row_of: F,
}

impl<const N: usize, F: Fn(usize, [usize; N]) -> usize> BlockRows<'_, N, F> {
    /// `visit(i, l, o, v)` for every entry `v` of block row `i` (at block point `l`), `o` the
    /// offset from the row's point to the entry's column's point: the shortest way round on the
    /// axes the decomposition wraps.
    fn for_each_entry<T: Pod>(&self, m: &CsrMatrix<T>, mut visit: impl FnMut(usize, [usize; N], [isize; N], T)) {
        let (global, periodic) = (self.d.global_shape(), self.d.periodic());
        let (block, start) = (self.d.block_shape(self.rank), self.d.block(self.rank).map(|r| r.start));
        let (offsets, columns, values) = (m.offsets().as_slice(), m.columns().as_slice(), m.values().as_slice());
        for i in 0..points(&block) {
            let l = point(i, block);
            let g: [usize; N] = core::array::from_fn(|k| start[k] + l[k]);
            let row = (self.row_of)(i, g);
            let entries = offsets[row] as usize..offsets[row + 1] as usize;
            for (&c, &v) in columns[entries.clone()].iter().zip(&values[entries]) {
                let p = point(c as usize, global);
                let o = core::array::from_fn(|k| {
                    let o = p[k] as isize - g[k] as isize;
                    if periodic[k] {
                        shortest(o, global[k])
                    } else {
                        o
                    }
                });
                visit(i, l, o, v);
            }
        }
    }

    /// The entries of block row `i`.
    fn row_len<T: Pod>(&self, m: &CsrMatrix<T>, i: usize) -> usize {
        let l = point(i, self.d.block_shape(self.rank));
        let start = self.d.block(self.rank).map(|r| r.start);
        let row = (self.row_of)(i, core::array::from_fn(|k| start[k] + l[k]));
        let offsets = m.offsets().as_slice();
        (offsets[row + 1] - offsets[row]) as usize
    }

    /// How far the rows reach along each axis, and whether an entry is off along two axes or
    /// more (the halo's edges and corners read).
    fn reach<T: Pod>(&self, m: &CsrMatrix<T>) -> ([usize; N], bool) {
        let (mut reach, mut corners) = ([0; N], false);
        self.for_each_entry(m, |_, _, o, _| {
            for k in 0..N {
                reach[k] = reach[k].max(o[k].unsigned_abs());
            }
            corners |= o.iter().filter(|&&o| o != 0).count() > 1;
        });
        (reach, corners)
    }

    /// The rows on the block padded by `halo` (at least their reach on the axes with neighbours;
    /// none needed elsewhere), the halo's rows empty, each row's entries in their order.
    ///
    /// # Errors
    ///
    /// `Error::Parameter` for a padded block beyond 32-bit indices; `Error::Alloc`.
    fn padded<T: Pod>(&self, op: &'static str, m: &CsrMatrix<T>, halo: [usize; N]) -> Result<CsrMatrix<T>> {
        let block = self.d.block_shape(self.rank);
        let padded: [usize; N] = core::array::from_fn(|k| block[k] + 2 * halo[k]);
        let len = padded.iter().try_fold(1usize, |n, &k| n.checked_mul(k)).unwrap_or(usize::MAX);
        check_dimensions(op, [len, len])?;
        // Each block row's entries, renumbered; then the offsets of every padded row.
        let mut counts: Vec<i32> = try_vec(op, points(&block))?;
        counts.resize(points(&block), 0);
        let nnz = (0..points(&block)).map(|i| self.row_len(m, i)).sum();
        let (mut columns, mut values): (Vec<i32>, Vec<T>) = (try_vec(op, nnz)?, try_vec(op, nnz)?);
        self.for_each_entry(m, |i, l, o, v| {
            let q: [usize; N] = core::array::from_fn(|k| (l[k] + halo[k]).wrapping_add_signed(o[k]));
            // Within the padded block: `o` is within the reach, at most the halo where there
            // are neighbours, and inside the block where there are none.
            debug_assert!((0..N).all(|k| q[k] < padded[k]), "column {q:?} outside the padded block {padded:?}");
            columns.push(flat(q, padded) as i32);
            values.push(v);
            counts[i] += 1;
        });
        let mut offsets: Vec<i32> = try_vec(op, len + 1)?;
        offsets.push(0);
        let mut next = 0;
        for q in 0..len {
            let p = point(q, padded);
            if (0..N).all(|k| (halo[k]..halo[k] + block[k]).contains(&p[k])) {
                let i = flat(core::array::from_fn(|k| p[k] - halo[k]), block);
                next += counts[i];
            }
            offsets.push(next);
        }
        CsrMatrix::try_from_parts([len, len], offsets, columns, values)
    }
}

/// Offset `o` along an axis of `n` points that wraps, the shorter way round.
fn shortest(o: isize, n: usize) -> isize {
    let n = n as isize;
    let w = o.rem_euclid(n);
    if 2 * w > n {
        w - n
    } else {
        w
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `y = A x` on the whole grid, against each block's padded product with its halo filled
    /// from the grid as the exchange fills it (periodic images; outside a fixed edge, a value
    /// the matrix must never read): the renumbering on 1-4 blocks, wrapped, with corners.
    fn check<const N: usize>(global: [usize; N], dims: [usize; N], periodic: [bool; N], entries: &[([isize; N], f64)]) {
        check_with(global, dims, periodic, entries, None);
    }

    /// [`check`], with `first` an entry of row 0 alone (a reach one block has and the others
    /// take from it through the all-reduce).
    fn check_with<const N: usize>(
        global: [usize; N],
        dims: [usize; N],
        periodic: [bool; N],
        entries: &[([isize; N], f64)],
        first: Option<([isize; N], f64)>,
    ) {
        let n = points(&global);
        let mut triplets = Vec::new();
        for r in 0..n {
            let g = point(r, global);
            let extra = first.filter(|_| r == 0);
            for (e, &(o, v)) in entries.iter().chain(extra.iter()).enumerate() {
                let p: Option<[usize; N]> = (0..N)
                    .map(|k| {
                        let q = g[k] as isize + o[k];
                        let m = global[k] as isize;
                        match (0..m).contains(&q) {
                            true => Some(q as usize),
                            false => periodic[k].then(|| q.rem_euclid(m) as usize),
                        }
                    })
                    .collect::<Option<Vec<_>>>()
                    .map(|p| core::array::from_fn(|k| p[k]));
                if let Some(p) = p {
                    triplets.push((r, flat(p, global), v * (1.0 + (r % 5) as f64) + e as f64));
                }
            }
        }
        let a = CsrMatrix::from_triplets([n, n], &triplets);
        let x: Vec<f64> = (0..n).map(|i| ((i * 37) % 101) as f64 - 50.0).collect();
        let mut y = Array::zeros([n]);
        a.spmv(&Array::from_shape_vec([n], x.clone()).unwrap(), &mut y);
        let d = Decomposition::with_dims(global, dims, periodic);
        // The reach of the entries, the shorter way round on periodic axes.
        let reach: [usize; N] = core::array::from_fn(|k| {
            let wrapped = |o: isize| if periodic[k] { shortest(o, global[k]) } else { o };
            entries.iter().chain(first.iter()).map(|(o, _)| wrapped(o[k]).unsigned_abs()).max().unwrap()
        });
        let found: Vec<([usize; N], bool)> =
            (0..d.ranks()).map(|rank| BlockRows { d: &d, rank, row_of: |_, g| flat(g, global) }.reach(&a)).collect();
        // The all-reduce's reach: the largest of any block's, the entries' own.
        let widest: [usize; N] = core::array::from_fn(|k| found.iter().map(|(f, _)| f[k]).max().unwrap());
        assert_eq!(widest, reach, "{dims:?} {periodic:?}");
        let diagonal = |o: &[isize; N]| o.iter().filter(|&&o| o != 0).count() > 1;
        for (rank, &(_, found_corners)) in found.iter().enumerate() {
            let rows = BlockRows { d: &d, rank, row_of: |_, g| flat(g, global) };
            // Row 0's extra entry only on the block that owns it.
            let owns_row_0 = d.owner([0; N]) == rank;
            let corners =
                entries.iter().any(|(o, _)| diagonal(o)) || (owns_row_0 && first.is_some_and(|(o, _)| diagonal(&o)));
            assert_eq!(found_corners, corners, "rank {rank} of {dims:?}");
            let halo = core::array::from_fn(|k| if d.exchanges_along(k) { reach[k] } else { 0 });
            let padded_matrix = rows.padded("test", &a, halo).unwrap();
            let (block, start) = (d.block_shape(rank), d.block(rank).map(|r| r.start));
            let padded: [usize; N] = core::array::from_fn(|k| block[k] + 2 * halo[k]);
            let xp: Vec<f64> = (0..points(&padded))
                .map(|q| {
                    let p = point(q, padded);
                    let mut g = [0; N];
                    for k in 0..N {
                        let (i, m) = (start[k] as isize + p[k] as isize - halo[k] as isize, global[k] as isize);
                        match ((0..m).contains(&i), periodic[k]) {
                            (true, _) => g[k] = i as usize,
                            (false, true) => g[k] = i.rem_euclid(m) as usize,
                            (false, false) => return f64::NAN,
                        }
                    }
                    x[flat(g, global)]
                })
                .collect();
            let mut yp = Array::zeros([xp.len()]);
            padded_matrix.spmv(&Array::from_shape_vec([xp.len()], xp).unwrap(), &mut yp);
            for i in 0..points(&block) {
                let l = point(i, block);
                let q = flat(core::array::from_fn(|k| l[k] + halo[k]), padded);
                let g = flat(core::array::from_fn(|k| l[k] + start[k]), global);
                assert_eq!(yp[[q]].to_bits(), y[[g]].to_bits(), "rank {rank} of {dims:?}, point {l:?}");
            }
        }
    }

    #[test]
    fn padded_blocks_multiply_as_the_whole_grid() {
        let five = [([0, 0], 4.0), ([-1, 0], -1.0), ([1, 0], -1.0), ([0, -1], -1.0), ([0, 1], -1.0)];
        let nine: Vec<([isize; 2], f64)> =
            (-1..=1).flat_map(|i| (-1..=1).map(move |j| ([i, j], 1.0 + (i * 3 + j) as f64))).collect();
        let wide = [([0, 0], 2.5), ([-2, 0], 0.1), ([2, 0], 0.2), ([0, -2], 0.3), ([0, 1], -1.0)];
        for dims in [[1, 1], [2, 1], [1, 3], [2, 2]] {
            for periodic in [[false, false], [true, false], [false, true], [true, true]] {
                check([9, 7], dims, periodic, &five);
                check([9, 7], dims, periodic, &nine);
                check([9, 7], dims, periodic, &wide);
            }
        }
        let seven = [([0, 0, 0], 6.0), ([-1, 0, 0], -1.0), ([0, 1, 0], -1.0), ([0, 0, -1], -1.0), ([1, 1, 1], 0.5)];
        check([5, 4, 6], [2, 1, 2], [false, true, true], &seven);
        check([12], [4], [true], &[([0], 2.0), ([-3], 1.0), ([1], -1.0)]);
        // Offsets of half a periodic axis (either way round: the same image), on one and two
        // blocks.
        check([8], [1], [true], &[([0], 1.0), ([4], 0.5)]);
        check([8], [2], [true], &[([0], 1.0), ([4], 0.5), ([-4], 0.25)]);
        // One row reaching three points along axis 0 (2 along axis 1), the others one: every
        // block's halo is the widest.
        let long = Some(([3, 2], 0.75));
        check_with([9, 7], [2, 2], [false, false], &five, long);
        check_with([9, 7], [3, 1], [true, true], &five, long);
    }

    /// A halo as wide as the thinnest block along its axis is accepted, one more refused (on a
    /// split axis and on a wrapped one).
    #[test]
    fn reach_up_to_the_thinnest_block() {
        let d = Decomposition::with_dims([9, 7], [2, 1], [false, true]); // blocks of 4 and 5 rows
        assert!(check_reach("test", &d, [4, 7]).is_ok());
        let e = check_reach("test", &d, [5, 0]).unwrap_err();
        assert!(matches!(e, Error::Decomposition { .. }) && e.to_string().contains("5 apart along axis 0"), "{e}");
        assert!(check_reach("test", &d, [0, 8]).is_err());
    }

    #[test]
    fn shortest_offsets_go_the_shorter_way() {
        assert_eq!(
            [shortest(-8, 9), shortest(8, 9), shortest(4, 8), shortest(-4, 8), shortest(0, 1)],
            [1, -1, 4, 4, 0]
        );
    }
}
