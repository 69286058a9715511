//! Block decomposition of an N-dimensional grid over a Cartesian grid of processes.

use core::ops::Range;

use crate::error::{Error, Result};

/// A balanced process grid for `ranks` processes in `N` dimensions, as `MPI_Dims_create` makes it:
/// the dimensions multiply to `ranks`, are as close to each other as the prime factors allow, and
/// do not increase (`dims_create(12, 2) == [4, 3]`, `dims_create(8, 3) == [2, 2, 2]`).
///
/// ```
/// use cnda::dist::dims_create;
/// assert_eq!(dims_create::<2>(12), [4, 3]);
/// assert_eq!(dims_create::<3>(8), [2, 2, 2]);
/// assert_eq!(dims_create::<2>(7), [7, 1]);
/// ```
///
/// # Panics
///
/// When `ranks` is 0 or `N` is 0 with `ranks > 1` (no grid has that many processes).
pub fn dims_create<const N: usize>(ranks: usize) -> [usize; N] {
    assert!(ranks > 0, "dims_create: a process grid needs at least one process");
    assert!(N > 0 || ranks == 1, "dims_create: a rank-0 grid holds exactly one process, not {ranks}");
    let mut dims = [1usize; N];
    // Largest prime factors first, each onto the currently smallest dimension.
    for p in prime_factors(ranks).into_iter().rev() {
        let smallest = (0..N).min_by_key(|&k| dims[k]).expect("N > 0 when ranks > 1");
        dims[smallest] *= p;
    }
    dims.sort_unstable_by(|a, b| b.cmp(a));
    dims
}

/// The prime factors of `n`, ascending, with multiplicity.
pub(super) fn prime_factors(mut n: usize) -> Vec<usize> {
    let mut factors = Vec::new();
    let mut p = 2;
    while p * p <= n {
        while n % p == 0 {
            factors.push(p);
            n /= p;
        }
        p += 1;
    }
    if n > 1 {
        factors.push(n);
    }
    factors
}

/// A global grid of shape `global` split into `dims[k]` blocks along each axis `k`, one block per
/// process, processes numbered in row-major order of their grid coordinates (as MPI's Cartesian
/// communicators number them). Uneven splits give the first `global[k] % dims[k]` blocks of axis
/// `k` one point more than the others. Periodic axes wrap around: the first block's lower
/// neighbour is the last block.
///
/// ```
/// use cnda::dist::Decomposition;
/// // 10 x 7 points over 4 processes: a 2 x 2 grid; axis 0 splits 5 + 5, axis 1 4 + 3.
/// let d = Decomposition::new([10, 7], 4, [false, true]);
/// assert_eq!(d.dims(), [2, 2]);
/// assert_eq!(d.block(3), [5..10, 4..7]);
/// assert_eq!(d.owner([6, 2]), 2);
/// assert_eq!(d.neighbour(2, 1, -1), Some(3)); // periodic: left of column 0 is column 1
/// assert_eq!(d.neighbour(2, 0, 1), None);     // fixed: nothing below the last row
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decomposition<const N: usize> {
    pub(super) global: [usize; N],
    pub(super) dims: [usize; N],
    pub(super) periodic: [bool; N],
    /// Axes of face-centred points: one more than the cells along it, split as the cells are,
    /// the last face going to the last process (see [`Decomposition::staggered`]).
    pub(super) staggered: [bool; N],
    /// How many times each axis was coarsened by two ([`Decomposition::coarsened`]): its blocks
    /// are then the points whose images on the finest grid (`finest` points along the axis,
    /// split evenly) the process owns.
    pub(super) halvings: [u8; N],
    pub(super) finest: [usize; N],
    /// Along each coarsened axis, the fine point coarse point `I` lies on is `2 I + offset`.
    pub(super) image_offset: [u8; N],
}

impl<const N: usize> Decomposition<N> {
    /// `global` split over `ranks` processes on the grid [`dims_create`] picks.
    ///
    /// # Panics
    ///
    /// As [`Decomposition::try_new`] errs.
    #[track_caller]
    pub fn new(global: [usize; N], ranks: usize, periodic: [bool; N]) -> Self {
        crate::error::or_panic(Self::try_new(global, ranks, periodic))
    }

    /// `global` split over `ranks` processes on the grid [`dims_create`] picks.
    ///
    /// # Errors
    ///
    /// `Error::Decomposition` when `ranks` is 0, or an axis has fewer points than processes
    /// along it (a process would own nothing).
    pub fn try_new(global: [usize; N], ranks: usize, periodic: [bool; N]) -> Result<Self> {
        if ranks == 0 || (N == 0 && ranks > 1) {
            return Err(Error::Decomposition {
                op: "Decomposition::new",
                reason: format!("a rank-{N} grid cannot be split over {ranks} processes"),
                fix: "run with at least one process (and exactly one for a rank-0 grid)",
            });
        }
        Self::try_with_dims(global, dims_create(ranks), periodic)
    }

    /// `global` split over the process grid `dims`.
    ///
    /// # Panics
    ///
    /// As [`Decomposition::try_with_dims`] errs.
    #[track_caller]
    pub fn with_dims(global: [usize; N], dims: [usize; N], periodic: [bool; N]) -> Self {
        crate::error::or_panic(Self::try_with_dims(global, dims, periodic))
    }

    /// `global` split over the process grid `dims`.
    ///
    /// # Errors
    ///
    /// `Error::Decomposition` when a dimension is 0, the grid has more than `usize::MAX`
    /// processes, or an axis has fewer points than processes along it.
    pub fn try_with_dims(global: [usize; N], dims: [usize; N], periodic: [bool; N]) -> Result<Self> {
        let op = "Decomposition::with_dims";
        if dims.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d)).is_none_or(|n| n == 0) {
            return Err(Error::Decomposition {
                op,
                reason: format!("the process grid {dims:?} has no process or more than usize::MAX"),
                fix: "give every axis at least one process",
            });
        }
        if let Some(k) = (0..N).find(|&k| global[k] < dims[k]) {
            return Err(Error::Decomposition {
                op,
                reason: format!(
                    "axis {k} has {} points for {} processes along it, so some would own nothing",
                    global[k], dims[k]
                ),
                fix: "use fewer processes along that axis (give the grid explicitly) or a larger grid",
            });
        }
        Ok(Decomposition {
            global,
            dims,
            periodic,
            staggered: [false; N],
            halvings: [0; N],
            finest: global,
            image_offset: [0; N],
        })
    }

    /// The global shape.
    pub fn global_shape(&self) -> [usize; N] {
        self.global
    }

    /// The process grid.
    pub fn dims(&self) -> [usize; N] {
        self.dims
    }

    /// Which axes wrap around.
    pub fn periodic(&self) -> [bool; N] {
        self.periodic
    }

    /// Whether blocks have neighbours along `axis` (more than one process on it, or a periodic
    /// wrap, which makes a single process its own neighbour): where halos are exchanged.
    pub fn exchanges_along(&self, axis: usize) -> bool {
        self.dims[axis] > 1 || self.periodic[axis]
    }

    /// The number of processes.
    pub fn ranks(&self) -> usize {
        self.dims.iter().product()
    }

    /// The grid coordinates of `rank` (row-major: the last axis varies fastest).
    ///
    /// # Panics
    ///
    /// When `rank` is not below [`Decomposition::ranks`].
    #[track_caller]
    pub fn coords(&self, rank: usize) -> [usize; N] {
        assert!(rank < self.ranks(), "rank {rank} is not in a grid of {} processes", self.ranks());
        let mut rest = rank;
        let mut coords = [0; N];
        for k in (0..N).rev() {
            coords[k] = rest % self.dims[k];
            rest /= self.dims[k];
        }
        coords
    }

    /// The rank at grid coordinates `coords`.
    ///
    /// # Panics
    ///
    /// When a coordinate is outside the grid.
    #[track_caller]
    pub fn rank_at(&self, coords: [usize; N]) -> usize {
        (0..N).fold(0, |rank, k| {
            assert!(
                coords[k] < self.dims[k],
                "coordinate {} is outside axis {k} of the grid {:?}",
                coords[k],
                self.dims
            );
            rank * self.dims[k] + coords[k]
        })
    }

    /// The decomposition of face-centred values along `axis` on these cells (a flux or a velocity
    /// between cells, a finite-volume code's staggered grid): `n + 1` faces along the axis for
    /// `n` cells, face `i` on the low side of cell `i`. Each process owns the faces on the low
    /// side of its cells, and the last process along the axis the last face too, so a process's
    /// faces and cells line up and one halo exchange serves both. A fixed axis only: on a
    /// periodic one the last face is the first, and the cells' decomposition already fits.
    ///
    /// ```
    /// use cnda::dist::Decomposition;
    /// let cells = Decomposition::new([10, 7], 4, [false, false]);
    /// let faces = cells.staggered(0);
    /// assert_eq!(faces.global_shape(), [11, 7]);
    /// assert_eq!(faces.block(0), [0..5, 0..4]); // the cells' block ...
    /// assert_eq!(faces.block(3), [5..11, 4..7]); // ... and the last face on the last row
    /// assert_eq!(faces.owner([10, 5]), 3);
    /// ```
    ///
    /// # Panics
    ///
    /// As [`Decomposition::try_staggered`] errs.
    #[track_caller]
    pub fn staggered(&self, axis: usize) -> Self {
        crate::error::or_panic(self.try_staggered(axis))
    }

    /// [`Decomposition::staggered`], returning errors.
    ///
    /// # Errors
    ///
    /// `Error::Decomposition` for an axis that is not below `N`, periodic, staggered already, or
    /// whose face count would overflow `usize`.
    pub fn try_staggered(&self, axis: usize) -> Result<Self> {
        let op = "Decomposition::staggered";
        let refuse = |reason: String, fix| Err(Error::Decomposition { op, reason, fix });
        if axis >= N {
            return refuse(format!("axis {axis} of a rank-{N} grid"), "give an axis below the rank");
        }
        if self.periodic[axis] {
            return refuse(
                format!("axis {axis} is periodic, so its last face is its first: as many faces as cells"),
                "use the cells' decomposition for faces along a periodic axis",
            );
        }
        if self.staggered[axis] {
            return refuse(format!("axis {axis} is staggered already"), "stagger the cells' decomposition");
        }
        if self.halvings[axis] > 0 {
            return refuse(
                format!("axis {axis} is a coarsened grid's"),
                "stagger the finest grid's decomposition, not a coarsened one",
            );
        }
        let Some(faces) = self.global[axis].checked_add(1) else {
            return refuse(format!("axis {axis} has usize::MAX cells"), "use a smaller grid");
        };
        let mut d = *self;
        d.global[axis] = faces;
        d.staggered[axis] = true;
        Ok(d)
    }

    /// Whether `axis` holds face-centred points ([`Decomposition::staggered`]).
    pub fn is_staggered(&self, axis: usize) -> bool {
        self.staggered[axis]
    }

    /// The number of cells along axis `k` (the points, or the faces less one).
    fn cells(&self, k: usize) -> usize {
        self.global[k] - usize::from(self.staggered[k])
    }

    /// The global index ranges `rank` owns.
    ///
    /// # Panics
    ///
    /// When `rank` is not below [`Decomposition::ranks`].
    #[track_caller]
    pub fn block(&self, rank: usize) -> [Range<usize>; N] {
        let coords = self.coords(rank);
        core::array::from_fn(|k| {
            if self.halvings[k] > 0 {
                return self.coarse_block(k, coords[k]);
            }
            let cells = split(self.cells(k), self.dims[k], coords[k]);
            // The last face goes to the last process along a staggered axis.
            let last = self.staggered[k] && coords[k] + 1 == self.dims[k];
            cells.start..cells.end + usize::from(last)
        })
    }

    /// The shape of `rank`'s block.
    #[track_caller]
    pub fn block_shape(&self, rank: usize) -> [usize; N] {
        self.block(rank).map(|r| r.len())
    }

    /// The rank owning global point `index`.
    ///
    /// # Panics
    ///
    /// When `index` is outside the global shape.
    #[track_caller]
    pub fn owner(&self, index: [usize; N]) -> usize {
        let coords = core::array::from_fn(|k| {
            assert!(index[k] < self.global[k], "index {index:?} is outside the global shape {:?}", self.global);
            if self.halvings[k] > 0 {
                // The blocks are consecutive and non-empty: the first that ends past the index.
                return (0..self.dims[k]).find(|&c| self.coarse_block(k, c).end > index[k]).unwrap_or(self.dims[k] - 1);
            }
            owner_along(self.cells(k), self.dims[k], index[k].min(self.cells(k) - 1))
        });
        self.rank_at(coords)
    }

    /// The rank next to `rank` along `axis`, `step` blocks away (-1: lower, +1: upper), wrapping
    /// on periodic axes; `None` past the edge of a fixed axis.
    ///
    /// # Panics
    ///
    /// When `rank` is not in the grid or `axis` not below `N`.
    #[track_caller]
    pub fn neighbour(&self, rank: usize, axis: usize, step: isize) -> Option<usize> {
        self.neighbour_at(rank, core::array::from_fn(|k| if k == axis { step } else { 0 }))
    }

    /// The rank `offset` blocks away from `rank` (a face, edge or corner neighbour), wrapping on
    /// periodic axes; `None` when some axis leaves a fixed edge.
    #[track_caller]
    pub fn neighbour_at(&self, rank: usize, offset: [isize; N]) -> Option<usize> {
        let coords = self.coords(rank);
        let mut to = [0usize; N];
        for k in 0..N {
            let c = coords[k] as i128 + offset[k] as i128;
            let d = self.dims[k] as i128;
            to[k] = if (0..d).contains(&c) {
                c as usize
            } else if self.periodic[k] {
                c.rem_euclid(d) as usize
            } else {
                return None;
            };
        }
        Some(self.rank_at(to))
    }
}

/// Block `b` of `n` points split into `p` blocks, the first `n % p` one point longer.
pub(super) fn split(n: usize, p: usize, b: usize) -> Range<usize> {
    let (q, r) = (n / p, n % p);
    let start = b * q + b.min(r);
    start..start + q + usize::from(b < r)
}

/// The block holding point `i` of `n` points split into `p` blocks.
fn owner_along(n: usize, p: usize, i: usize) -> usize {
    let (q, r) = (n / p, n % p);
    let long = r * (q + 1); // points in the longer blocks
    if i < long {
        i / (q + 1)
    } else {
        r + (i - long) / q
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn process_grids_match_mpi_dims_create() {
        // The MPI standard's examples of MPI_Dims_create (6 over 2, 7 over 2, 6 over 3) and the
        // same rule on larger counts (tests/mpi.rs compares 1 to 64 processes with the MPI
        // library's own MPI_Dims_create).
        assert_eq!(dims_create::<2>(7), [7, 1]);
        assert_eq!(dims_create::<3>(6), [3, 2, 1]);
        assert_eq!(dims_create::<2>(1), [1, 1]);
        assert_eq!(dims_create::<2>(6), [3, 2]);
        assert_eq!(dims_create::<2>(16), [4, 4]);
        assert_eq!(dims_create::<3>(12), [3, 2, 2]);
        assert_eq!(dims_create::<3>(30), [5, 3, 2]);
        assert_eq!(dims_create::<1>(9), [9]);
        for ranks in 1..200 {
            let d = dims_create::<3>(ranks);
            assert_eq!(d.iter().product::<usize>(), ranks);
            assert!(d.windows(2).all(|w| w[0] >= w[1]), "{d:?}");
        }
    }

    #[test]
    fn blocks_partition_every_axis_and_owners_agree() {
        for n in 1..40 {
            for p in 1..=n.min(9) {
                let mut next = 0;
                for b in 0..p {
                    let r = split(n, p, b);
                    assert_eq!(r.start, next);
                    assert!(r.len() == n / p || r.len() == n / p + 1);
                    for i in r.clone() {
                        assert_eq!(owner_along(n, p, i), b, "n {n} p {p} i {i}");
                    }
                    next = r.end;
                }
                assert_eq!(next, n);
            }
        }
    }

    #[test]
    fn staggered_faces_line_up_with_their_cells_and_the_last_face_goes_last() {
        for ranks in 1..9 {
            for periodic in [[false, false], [false, true]] {
                let cells = Decomposition::new([11, 9], ranks, periodic);
                let faces = cells.staggered(0);
                assert_eq!(faces.global_shape(), [12, 9]);
                assert!(faces.is_staggered(0) && !faces.is_staggered(1) && faces != cells);
                let mut owned = 0;
                for r in 0..ranks {
                    let ([fa, fb], [ca, cb]) = (faces.block(r), cells.block(r));
                    assert_eq!(fb, cb);
                    assert_eq!(fa.start, ca.start, "faces start at their cells' low sides");
                    let last = cells.coords(r)[0] + 1 == cells.dims()[0];
                    assert_eq!(fa.end, ca.end + usize::from(last));
                    for i in fa.clone() {
                        for j in fb.clone() {
                            assert_eq!(faces.owner([i, j]), r, "{ranks} {periodic:?} [{i}, {j}]");
                        }
                    }
                    owned += fa.len() * fb.len();
                }
                assert_eq!(owned, 12 * 9);
            }
        }
        let e = Decomposition::new([5, 5], 1, [true, false]).try_staggered(0).unwrap_err();
        assert!(e.to_string().contains("axis 0 is periodic"), "{e}");
        let e = Decomposition::new([5, 5], 1, [false; 2]).staggered(1).try_staggered(1).unwrap_err();
        assert!(e.to_string().contains("staggered already"), "{e}");
        assert!(Decomposition::new([5, 5], 1, [false; 2]).try_staggered(2).is_err());
    }

    #[test]
    fn every_point_has_one_owner_whose_block_holds_it_and_neighbours_are_mutual() {
        for ranks in 1..9 {
            for periodic in [[false, false], [true, false], [true, true]] {
                let d = Decomposition::new([11, 9], ranks, periodic);
                let mut owned = 0;
                for r in 0..ranks {
                    let [a, b] = d.block(r);
                    owned += a.len() * b.len();
                    for k in 0..2 {
                        for step in [-1isize, 1] {
                            if let Some(n) = d.neighbour(r, k, step) {
                                assert_eq!(d.neighbour(n, k, -step), Some(r), "{ranks} {periodic:?} {r} {k}");
                            } else {
                                assert!(!periodic[k]);
                            }
                        }
                    }
                }
                assert_eq!(owned, 99);
                for k in 0..2 {
                    assert_eq!(d.exchanges_along(k), (0..ranks).any(|r| d.neighbour(r, k, 1).is_some()));
                }
                for i in 0..11 {
                    for j in 0..9 {
                        let [a, b] = d.block(d.owner([i, j]));
                        assert!(a.contains(&i) && b.contains(&j));
                    }
                }
            }
        }
    }

    #[test]
    fn impossible_splits_are_typed_errors() {
        let e = Decomposition::try_with_dims([3, 8], [4, 1], [false; 2]).unwrap_err();
        assert!(e.to_string().contains("axis 0 has 3 points for 4 processes"), "{e}");
        assert!(Decomposition::try_new([8, 8], 0, [false; 2]).is_err());
        assert!(Decomposition::try_with_dims([8], [0], [false]).is_err());
        assert!(Decomposition::try_with_dims([usize::MAX; 2], [usize::MAX, 2], [false; 2]).is_err());
    }
}
