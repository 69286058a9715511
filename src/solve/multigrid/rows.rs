//! A fine operator's matrix rows on the host, in `f64`, for the Galerkin products: from constant
//! taps, from a coefficient field per tap, and with `Neumann` sides folded in (a tap that reads
//! the mirrored halo adds its weight to the tap that reads the point mirrored there), so that
//! the rows read nothing beyond a `Neumann` side.

use crate::array::Array;
use crate::stencil::{Boundaries, Boundary, Side};

/// The rows of an operator on a grid: each the weights of its taps at one point.
pub(super) trait FineRows<const N: usize> {
    /// The taps' offsets (every row has a weight for each).
    fn offsets(&self) -> &[[isize; N]];

    /// The weights of the row of interior point `p` (in `offsets`' order).
    fn row(&self, p: [usize; N], weights: &mut [f64]);
}

/// The same weights at every point.
pub(super) struct ConstantRows<const N: usize> {
    pub(super) offsets: Vec<[isize; N]>,
    pub(super) weights: Vec<f64>,
}

impl<const N: usize> FineRows<N> for ConstantRows<N> {
    fn offsets(&self) -> &[[isize; N]] {
        &self.offsets
    }

    fn row(&self, _: [usize; N], weights: &mut [f64]) {
        weights.copy_from_slice(&self.weights);
    }
}

/// A coefficient field per tap, padded by `halo`.
pub(super) struct FieldRows<'a, const N: usize> {
    pub(super) offsets: &'a [[isize; N]],
    pub(super) fields: &'a [Array<f64, N>],
    pub(super) halo: [usize; N],
}

impl<const N: usize> FineRows<N> for FieldRows<'_, N> {
    fn offsets(&self) -> &[[isize; N]] {
        self.offsets
    }

    fn row(&self, p: [usize; N], weights: &mut [f64]) {
        let at: [usize; N] = core::array::from_fn(|k| p[k] + self.halo[k]);
        for (w, field) in weights.iter_mut().zip(self.fields) {
            *w = field[at];
        }
    }
}

/// One process's block of a distributed level's coefficient fields (padded by `halo`, the
/// halos exchanged), rows addressed by global index: the block's own and its halo's, a point
/// wrapped across a periodic axis found in the halo on the block's side.
#[cfg(feature = "mpi")]
pub(super) struct BlockRows<'a, const N: usize> {
    pub(super) offsets: &'a [[isize; N]],
    pub(super) fields: &'a [Array<f64, N>],
    pub(super) halo: [usize; N],
    /// The global index of the block's first point.
    pub(super) origin: [usize; N],
    /// The level's global shape.
    pub(super) global: [usize; N],
}

#[cfg(feature = "mpi")]
impl<const N: usize> FineRows<N> for BlockRows<'_, N> {
    fn offsets(&self) -> &[[isize; N]] {
        self.offsets
    }

    fn row(&self, p: [usize; N], weights: &mut [f64]) {
        let padded = self.fields[0].shape();
        let at: [usize; N] = core::array::from_fn(|k| {
            let (global, halo) = (self.global[k] as isize, self.halo[k] as isize);
            let mut q = p[k] as isize - self.origin[k] as isize + halo;
            if q < 0 {
                q += global;
            } else if q >= padded[k] as isize {
                q -= global;
            }
            debug_assert!((0..padded[k] as isize).contains(&q), "row {p:?} beyond the block's halo");
            q as usize
        });
        for (w, field) in weights.iter_mut().zip(self.fields) {
            *w = field[at];
        }
    }
}

/// `inner`'s rows on a grid of `shape` whose `Neumann` sides are folded in: offsets the union
/// of the folded ones.
pub(super) struct Folded<R, const N: usize> {
    inner: R,
    shape: [usize; N],
    /// Each axis's conditions at its low and high side, `Neumann` or not.
    mirrored: [[bool; 2]; N],
    /// How far the inner taps reach along each axis.
    radius: [usize; N],
    offsets: Vec<[isize; N]>,
    /// Each inner tap's slot among `offsets` where nothing folds.
    unfolded: Vec<usize>,
}

impl<R: FineRows<N>, const N: usize> Folded<R, N> {
    /// `inner` on `shape` with `boundaries`.
    pub(super) fn new<T: Copy>(inner: R, shape: [usize; N], boundaries: &Boundaries<T, N>) -> Self {
        let mirrored =
            core::array::from_fn(|k| [Side::Low, Side::High].map(|s| matches!(boundaries.at(k, s), Boundary::Neumann)));
        let radius = core::array::from_fn(|k| inner.offsets().iter().map(|o| o[k].unsigned_abs()).max().unwrap_or(0));
        let mut folded = Folded { inner, shape, mirrored, radius, offsets: Vec::new(), unfolded: Vec::new() };
        // The positions along each axis whose rows differ (within the radius of a side) and one
        // that folds nothing stand for every point.
        let positions: [Vec<usize>; N] = core::array::from_fn(|k| {
            let n = shape[k];
            let band = radius[k].min(n);
            let mut p: Vec<usize> = (0..band).chain(n - band..n).chain([n / 2]).collect();
            p.sort_unstable();
            p.dedup();
            p
        });
        let mut offsets = Vec::new();
        let mut index = [0usize; N];
        'points: loop {
            let p: [usize; N] = core::array::from_fn(|k| positions[k][index[k]]);
            offsets.extend(folded.inner.offsets().iter().map(|&b| folded.fold(p, b)));
            for k in (0..N).rev() {
                index[k] += 1;
                if index[k] < positions[k].len() {
                    continue 'points;
                }
                index[k] = 0;
            }
            break;
        }
        offsets.sort_unstable();
        offsets.dedup();
        folded.unfolded = folded.inner.offsets().iter().map(|b| slot(&offsets, *b)).collect();
        folded.offsets = offsets;
        folded
    }

    /// The offset from `p` of the point tap `b` reads there, mirrored back across `Neumann` sides.
    fn fold(&self, p: [usize; N], b: [isize; N]) -> [isize; N] {
        core::array::from_fn(|k| {
            let (n, q) = (self.shape[k], p[k] as isize + b[k]);
            let side = if q < 0 { 0 } else { 1 };
            let mirrors = !(0..n as isize).contains(&q) && self.mirrored[k][side];
            match mirrors {
                true => {
                    Boundary::<f64>::Neumann.source(q, n).expect("a mirror reads the interior") as isize - p[k] as isize
                }
                false => b[k],
            }
        })
    }

    /// Whether `p` lies at least the radius inside every `Neumann` side.
    fn clear(&self, p: [usize; N]) -> bool {
        (0..N).all(|k| {
            let [low, high] = self.mirrored[k];
            (!low || p[k] >= self.radius[k]) && (!high || p[k] + self.radius[k] < self.shape[k])
        })
    }
}

/// Where `o` sits in the sorted `offsets`.
fn slot<const N: usize>(offsets: &[[isize; N]], o: [isize; N]) -> usize {
    offsets.binary_search(&o).expect("every folded offset is listed")
}

impl<R: FineRows<N>, const N: usize> FineRows<N> for Folded<R, N> {
    fn offsets(&self) -> &[[isize; N]] {
        &self.offsets
    }

    fn row(&self, p: [usize; N], weights: &mut [f64]) {
        let mut inner = vec![0.0; self.inner.offsets().len()];
        self.inner.row(p, &mut inner);
        weights.fill(0.0);
        if self.clear(p) {
            for (&s, w) in self.unfolded.iter().zip(inner) {
                weights[s] += w;
            }
            return;
        }
        for (&b, w) in self.inner.offsets().iter().zip(inner) {
            weights[slot(&self.offsets, self.fold(p, b))] += w;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A block's rows, by global index, are the whole grid's at its points and its halo's, a
    /// periodic axis wrapped into the halo on the block's side.
    #[test]
    #[cfg(feature = "mpi")]
    fn a_block_reads_its_halo_rows_by_global_index() {
        let (global, offsets) = ([6, 5], vec![[0, 0], [1, 0]]);
        let value = |t: usize, [i, j]: [usize; 2]| (t * 100 + i * 10 + j) as f64;
        let whole: Vec<Array<f64, 2>> = (0..2)
            .map(|t| Array::from_fn([8, 7], |[i, j]| if i * j == 0 { -1.0 } else { value(t, [i - 1, j - 1]) }))
            .collect();
        let rows = FieldRows { offsets: &offsets, fields: &whole, halo: [1, 1] };
        // The block of points [4..6) x [1..4) with a halo of one, axis 0 periodic: its halo row
        // past the end holds global row 0.
        let (origin, shape) = ([4, 1], [2, 3]);
        let block: Vec<Array<f64, 2>> = (0..2)
            .map(|t| {
                Array::from_fn([shape[0] + 2, shape[1] + 2], |[i, j]| {
                    value(t, [(origin[0] + i + 5) % 6, origin[1] + j - 1])
                })
            })
            .collect();
        let mine = BlockRows { offsets: &offsets, fields: &block, halo: [1, 1], origin, global };
        let (mut a, mut b) = ([0.0; 2], [0.0; 2]);
        for p in [[3, 0], [4, 1], [5, 3], [0, 2], [0, 4]] {
            rows.row(p, &mut a);
            mine.row(p, &mut b);
            assert_eq!(a, b, "{p:?}");
        }
    }

    #[test]
    fn a_mirrored_side_folds_the_taps_that_reach_past_it() {
        // The 3-point Laplacian on 4 points, mirrored below and a wall above.
        let laplacian = ConstantRows { offsets: vec![[-1], [0], [1]], weights: vec![1.0, -2.0, 1.0] };
        let rows = Folded::new(laplacian, [4], &Boundaries::from([[Boundary::Neumann, Boundary::Value(0.0)]]));
        assert_eq!(rows.offsets(), &[[-1], [0], [1]]);
        let row = |p| {
            let mut w = [0.0; 3];
            rows.row([p], &mut w);
            w
        };
        assert_eq!(row(0), [0.0, -1.0, 1.0]);
        assert_eq!(row(1), [1.0, -2.0, 1.0]);
        assert_eq!(row(3), [1.0, -2.0, 1.0]);
        // Radius 2 on 3 mirrored points: the tap at -2 of point 0 reads point 1 (offset +1).
        let wide = ConstantRows { offsets: vec![[-2], [0], [2]], weights: vec![1.0, 10.0, 100.0] };
        let rows = Folded::new(wide, [3], &Boundaries::from([Boundary::<f64>::Neumann]));
        assert_eq!(rows.offsets(), &[[-2], [-1], [0], [1], [2]]);
        let mut w = [0.0; 5];
        rows.row([0], &mut w);
        assert_eq!(w, [0.0, 0.0, 10.0, 1.0, 100.0]);
        rows.row([2], &mut w);
        assert_eq!(w, [1.0, 100.0, 10.0, 0.0, 0.0]);
    }
}
