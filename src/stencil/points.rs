//! Point sources and receivers: points at coordinates on or off the grid, injected into a field
//! and sampled from it with multilinear weights (each point spreads over the `2^N` nodes around
//! it; a point on a node touches that node alone), on any backend.
//!
//! Both are view operations, one element-wise call per node a point touches: negligible beside a
//! sweep on the CPU; on a device a few kernel launches per point and step, which suits tens of
//! points. Inside time steps, [`PointIo`](super::PointIo) injects and samples them after each
//! step (on the CPU inside the fused wavefront). A gather/scatter kernel for devices is still to
//! come.

use smallvec::SmallVec;

use crate::array::Array;
use crate::check::BoundsCheck;
use crate::element::Float;
use crate::error::{or_panic, Error, Result};
use crate::kernel::{Backend, CopyKernels, ElementwiseKernels};
use crate::layout::Layout;
use crate::view::{Unique, View};

/// A point's interpolation nodes and their weights (at most `2^N`; up to rank 3 inline).
type Nodes<const N: usize> = SmallVec<[([usize; N], f64); 8]>;

/// A set of points in grid units (index space: `[2.5, 7.0]` lies halfway between rows 2 and 3, on
/// column 7), each with its interpolation nodes and weights, computed once.
#[derive(Clone, Debug, PartialEq)]
pub struct Points<const N: usize> {
    coords: Vec<[f64; N]>,
    /// Per point, the nodes with a nonzero weight (at most `2^N`).
    nodes: Vec<Nodes<N>>,
}

impl<const N: usize> Points<N> {
    /// The points at `coords`.
    ///
    /// # Panics
    ///
    /// As [`Points::try_new`] errs.
    #[track_caller]
    pub fn new(coords: impl IntoIterator<Item = [f64; N]>) -> Self {
        or_panic(Self::try_new(coords))
    }

    /// [`Points::new`], returning errors.
    ///
    /// # Errors
    ///
    /// `Error::Coordinate` for a coordinate that is not finite, is negative, or is past the
    /// largest index.
    pub fn try_new(coords: impl IntoIterator<Item = [f64; N]>) -> Result<Self> {
        let coords: Vec<[f64; N]> = coords.into_iter().collect();
        let nodes = coords.iter().enumerate().map(|(p, c)| nodes_of(p, c)).collect::<Result<_>>()?;
        Ok(Points { coords, nodes })
    }

    /// The number of points.
    pub fn len(&self) -> usize {
        self.coords.len()
    }

    /// Whether there are no points.
    pub fn is_empty(&self) -> bool {
        self.coords.is_empty()
    }

    /// The coordinates, in the order given.
    pub fn coords(&self) -> &[[f64; N]] {
        &self.coords
    }

    /// Point `p`'s interpolation nodes and their weights (they sum to 1; zero weights left out).
    pub fn nodes(&self, p: usize) -> &[([usize; N], f64)] {
        &self.nodes[p]
    }

    /// The points with every node moved by each of `moves` in turn (a point's periodic images)
    /// and only the moved nodes `keep` accepts, with the same weights (bit for bit): a
    /// distributed process's share in its block's coordinates (`dist/points.rs`). The
    /// coordinates move by the first move.
    #[cfg(feature = "mpi")]
    pub(crate) fn moved(&self, moves: &[[isize; N]], keep: impl Fn([usize; N]) -> bool) -> Points<N> {
        let shift = |at: [usize; N], by: [isize; N]| -> Option<[usize; N]> {
            let mut out = [0; N];
            for k in 0..N {
                out[k] = at[k].checked_add_signed(by[k])?;
            }
            Some(out)
        };
        let nodes = self
            .nodes
            .iter()
            .map(|nodes| {
                moves
                    .iter()
                    .flat_map(|&by| nodes.iter().filter_map(move |&(at, w)| shift(at, by).map(|at| (at, w))))
                    .filter(|&(at, _)| keep(at))
                    .collect()
            })
            .collect();
        let by = moves.first().copied().unwrap_or([0; N]);
        let coords = self.coords.iter().map(|c| core::array::from_fn(|k| c[k] + by[k] as f64)).collect();
        Points { coords, nodes }
    }

    /// `field[node] += weight * amplitudes[p]` for every point `p` and each of its nodes, in
    /// point order: a source term, one amplitude per point (this step's sample of its time
    /// series).
    ///
    /// # Panics
    ///
    /// As [`Points::try_inject`] errs.
    #[track_caller]
    pub fn inject<T: Float, B: ElementwiseKernels + CopyKernels>(
        &self,
        field: View<'_, T, N, Unique, B, impl Layout, impl BoundsCheck>,
        amplitudes: &[T],
    ) {
        or_panic(self.try_inject(field, amplitudes))
    }

    /// [`Points::inject`], returning errors.
    ///
    /// # Errors
    ///
    /// `Error::LengthMismatch` when there is not one amplitude per point; `Error::Coordinate`
    /// when a node lies outside the field (checked for every point before anything is written).
    pub fn try_inject<T: Float, B: ElementwiseKernels + CopyKernels>(
        &self,
        mut field: View<'_, T, N, Unique, B, impl Layout, impl BoundsCheck>,
        amplitudes: &[T],
    ) -> Result<()> {
        const OP: &str = "Points::inject";
        if amplitudes.len() != self.len() {
            return Err(Error::LengthMismatch {
                op: OP,
                shape: vec![self.len()],
                expected: self.len(),
                got: amplitudes.len(),
            });
        }
        self.check(OP, field.shape())?;
        for (nodes, &a) in self.nodes.iter().zip(amplitudes) {
            for &(at, w) in nodes {
                let mut node = element(field.view_mut(), at)?;
                node.try_add_assign(T::from_f64(w) * a)?;
            }
        }
        Ok(())
    }

    /// `out[p] = sum of weight * field[node]` over point `p`'s nodes, for every point: the
    /// receivers' samples of `field`, into a row of a `steps x points` record, say.
    ///
    /// # Panics
    ///
    /// As [`Points::try_sample`] errs.
    #[track_caller]
    pub fn sample<T: Float, B: ElementwiseKernels + CopyKernels, L: Layout, C: BoundsCheck>(
        &self,
        field: &Array<T, N, B, L, C>,
        out: View<'_, T, 1, Unique, B, impl Layout, impl BoundsCheck>,
    ) {
        or_panic(self.try_sample(field, out))
    }

    /// [`Points::sample`], returning errors.
    ///
    /// # Errors
    ///
    /// `Error::LengthMismatch` when `out` does not hold one value per point; `Error::Coordinate`
    /// when a node lies outside the field; `Error::DeviceMismatch` for operands on two devices.
    pub fn try_sample<T: Float, B: ElementwiseKernels + CopyKernels, L: Layout, C: BoundsCheck>(
        &self,
        field: &Array<T, N, B, L, C>,
        mut out: View<'_, T, 1, Unique, B, impl Layout, impl BoundsCheck>,
    ) -> Result<()> {
        const OP: &str = "Points::sample";
        if out.shape()[0] != self.len() {
            return Err(Error::LengthMismatch {
                op: OP,
                shape: vec![self.len()],
                expected: self.len(),
                got: out.shape()[0],
            });
        }
        self.check(OP, field.shape())?;
        for (p, nodes) in self.nodes.iter().enumerate() {
            let mut value = out.view_mut().try_narrow(0, p, 1)?;
            for (k, &(at, w)) in nodes.iter().enumerate() {
                let node = (0..N).try_fold(field.view().into_strided(), |v, axis| v.try_narrow(axis, at[axis], 1))?;
                let node = node.try_reshape([1])?;
                if k == 0 {
                    value.try_assign(&node)?;
                    if w != 1.0 {
                        value.try_mul_assign(T::from_f64(w))?;
                    }
                } else {
                    value.try_add_assign(&node.try_mul(T::from_f64(w))?)?;
                }
            }
        }
        Ok(())
    }

    /// Every node of every point lies inside `shape`.
    fn check(&self, op: &'static str, shape: [usize; N]) -> Result<()> {
        for (p, nodes) in self.nodes.iter().enumerate() {
            for (at, _) in nodes {
                if let Some(axis) = (0..N).find(|&k| at[k] >= shape[k]) {
                    let reason = format!(
                        "at {:?} needs node {at:?}, outside a field of shape {shape:?} (axis {axis})",
                        self.coords[p]
                    );
                    return Err(Error::Coordinate { op, point: p, reason });
                }
            }
        }
        Ok(())
    }
}

/// The one-element view of `field` at `at`.
fn element<'a, T: Float, const N: usize, B: Backend>(
    field: View<'a, T, N, Unique, B, impl Layout, impl BoundsCheck>,
    at: [usize; N],
) -> Result<View<'a, T, N, Unique, B, crate::layout::Strided, impl BoundsCheck>> {
    (0..N).try_fold(field.into_strided(), |v, axis| v.try_narrow(axis, at[axis], 1))
}

/// The nodes and multilinear weights of point `p` at `c`.
fn nodes_of<const N: usize>(p: usize, c: &[f64; N]) -> Result<Nodes<N>> {
    // The largest coordinate whose floor and floor + 1 are both exact indices.
    const LARGEST: f64 = (1u64 << 52) as f64;
    if let Some(bad) = c.iter().find(|x| !x.is_finite() || **x < 0.0 || **x >= LARGEST) {
        let reason = format!("at {c:?} has coordinate {bad}: not a finite index from 0 up");
        return Err(Error::Coordinate { op: "Points::new", point: p, reason });
    }
    let base: [usize; N] = core::array::from_fn(|k| c[k].floor() as usize);
    let frac: [f64; N] = core::array::from_fn(|k| c[k] - c[k].floor());
    let mut nodes = SmallVec::new();
    for corner in 0..1usize << N {
        let mut at = base;
        let mut w = 1.0;
        for k in 0..N {
            if corner >> k & 1 == 1 {
                at[k] += 1;
                w *= frac[k];
            } else {
                w *= 1.0 - frac[k];
            }
        }
        if w != 0.0 {
            nodes.push((at, w));
        }
    }
    Ok(nodes)
}
