//! How each axis of a grid coarsens, from its boundary conditions: where the coarse points lie
//! among the fine ones, the coarse shape, and which shapes coarsen at all.
//!
//! Coarse point `I` coincides with fine point `2 I + s` (interior indices), `s = 1` after a zero
//! wall on the low side (the wall is coarse point `−1`, as it is fine point `−1`) and `s = 0`
//! after a `Neumann` side or on a periodic axis. At the high end a zero wall is again a coarse
//! point (fine `n`), while a `Neumann` side's last fine point is a coarse point itself: the
//! coarse grid then spans the same points and interpolation needs no value beyond them.

use crate::solve::vectors::SolverScalar;
use crate::stencil::{Boundaries, Boundary, Side};

/// One axis: periodic, or bounded with a zero wall or a `Neumann` side at each end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Axis {
    Periodic,
    Bounded { low_wall: bool, high_wall: bool },
}

/// Every axis's coarsening.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Coarsening<const N: usize> {
    axes: [Axis; N],
}

impl<const N: usize> Coarsening<N> {
    /// The coarsening of a grid with `boundaries` (checked: zero walls, `Neumann` or periodic).
    pub(super) fn of<T: Copy>(boundaries: &Boundaries<T, N>) -> Self {
        let wall = |k, side| !matches!(boundaries.at(k, side), Boundary::Neumann);
        Coarsening {
            axes: core::array::from_fn(|k| match boundaries.at(k, Side::Low) {
                Boundary::Periodic => Axis::Periodic,
                _ => Axis::Bounded { low_wall: wall(k, Side::Low), high_wall: wall(k, Side::High) },
            }),
        }
    }

    /// The fine index of coarse point 0 along each axis (`s` above).
    pub(super) fn first(&self) -> [usize; N] {
        self.axes.map(|a| usize::from(matches!(a, Axis::Bounded { low_wall: true, .. })))
    }

    /// Which axes wrap around.
    pub(super) fn periodic(&self) -> [bool; N] {
        self.axes.map(|a| a == Axis::Periodic)
    }

    /// Whether a side of some axis is `Neumann`.
    pub(super) fn has_neumann(&self) -> bool {
        self.axes.iter().any(|a| matches!(a, Axis::Bounded { low_wall, high_wall } if !(low_wall & high_wall)))
    }

    /// Whether a side of some axis is a zero wall (else constants may be in the operator's null
    /// space: periodic and `Neumann` sides only).
    pub(super) fn has_wall(&self) -> bool {
        self.axes.iter().any(|a| matches!(a, Axis::Bounded { low_wall, high_wall } if low_wall | high_wall))
    }

    /// The coarse points of an axis of `n` fine ones, where it halves (to fewer points, at least
    /// one): `n / 2` periodic (`n` even, at least 4); `(n − s − e + 1) / 2` bounded, for `s`, `e`
    /// one at a zero wall and zero at a `Neumann` side, where `n − s − e` is odd.
    fn coarse_points(axis: Axis, n: usize) -> Option<usize> {
        match axis {
            Axis::Periodic => (n >= 4 && n % 2 == 0).then_some(n / 2),
            Axis::Bounded { low_wall, high_wall } => {
                let inner = n.checked_sub(usize::from(low_wall) + usize::from(high_wall))?;
                let m = inner.div_ceil(2);
                (inner % 2 == 1 && m < n).then_some(m)
            }
        }
    }

    /// Whether every axis of `shape` halves.
    pub(super) fn halvable(&self, shape: [usize; N]) -> bool {
        (0..N).all(|k| Self::coarse_points(self.axes[k], shape[k]).is_some())
    }

    /// The next coarser grid (of a [`halvable`](Self::halvable) shape).
    pub(super) fn coarser(&self, shape: [usize; N]) -> [usize; N] {
        core::array::from_fn(|k| Self::coarse_points(self.axes[k], shape[k]).expect("a halvable shape"))
    }
}

/// The conditions the grid transfers fill halos with: a `Neumann` side's halo is zero there
/// (the restriction reads no point beyond the grid, and the interpolation none beyond its last
/// coarse point, which is the last fine point); the others as the level's (a distributed
/// block's `Fixed` sides keep what the exchange put there).
pub(super) fn transfer_sides<T: SolverScalar, const N: usize>(boundaries: &Boundaries<T, N>) -> Boundaries<T, N> {
    let side = |k, s| match boundaries.at(k, s) {
        Boundary::Neumann => Boundary::Value(T::ZERO),
        other => other,
    };
    Boundaries::from(core::array::from_fn::<_, N, _>(|k| [side(k, Side::Low), side(k, Side::High)]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn axis(low: Boundary<f64>, high: Boundary<f64>) -> Coarsening<1> {
        Coarsening::of(&Boundaries::from([[low, high]]))
    }

    #[test]
    fn each_kind_of_axis_halves_the_shapes_that_keep_its_ends_in_place() {
        let (wall, neumann) = (Boundary::Value(0.0), Boundary::Neumann);
        let walls = axis(wall, wall);
        assert_eq!((walls.first(), walls.coarser([127])), ([1], [63]));
        assert!(!walls.halvable([128]) && !walls.halvable([1]) && walls.halvable([3]));
        let mirrored = axis(neumann, neumann);
        assert_eq!((mirrored.first(), mirrored.coarser([129]), mirrored.coarser([3])), ([0], [65], [2]));
        assert!(!mirrored.halvable([128]) && !mirrored.halvable([2]) && !mirrored.halvable([1]));
        assert_eq!((axis(wall, neumann).first(), axis(wall, neumann).coarser([128])), ([1], [64]));
        assert_eq!((axis(neumann, wall).first(), axis(neumann, wall).coarser([2])), ([0], [1]));
        assert!(!axis(neumann, wall).halvable([127]) && !axis(neumann, wall).halvable([1]));
        let ring = axis(Boundary::Periodic, Boundary::Periodic);
        assert_eq!((ring.first(), ring.coarser([128]), ring.periodic()), ([0], [64], [true]));
        assert!(!ring.halvable([2]) && !ring.halvable([127]));
        assert!(mirrored.has_neumann() && !mirrored.has_wall() && !ring.has_wall() && !walls.has_neumann());
        assert!(axis(wall, neumann).has_wall() && axis(wall, neumann).has_neumann());
    }
}
