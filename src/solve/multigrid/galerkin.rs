//! Stencil algebra for vertex-centred coarsening by two, on the host and exact: the full-weighting
//! restriction `R`, the multilinear prolongation `P`, and the Galerkin coarse operator `R A P` of
//! a constant-coefficient stencil `A`, or point by point of any operator's rows ([`FineRows`]:
//! coefficient fields, `Neumann` sides folded in).
//!
//! Fine point `2I + s` (interior indices) coincides with coarse point `I`, `s` one after a zero
//! wall and zero otherwise ([`Coarsening`](super::grid::Coarsening)). `P` spreads a coarse
//! value over the `3^N` fine points around it with weights `Π_k (1 if o_k = 0 else 1/2)`; `R`
//! gathers them with `Π_k (1/2 if o_k = 0 else 1/4)`, so `R = Pᵀ / 2^N` and `R A P` of the 5-point
//! Laplacian with spacing `h` is a 9-point operator consistent with spacing `2h` (in 1D it is
//! exactly the 3-point Laplacian with spacing `2h`).

use super::rows::FineRows;

/// Every offset in `[-reach_k, reach_k]` along each axis `k`, in row-major order.
pub(super) fn box_offsets<const N: usize>(reach: [usize; N]) -> Vec<[isize; N]> {
    let mut all = vec![[0isize; N]];
    for k in 0..N {
        let r = reach[k] as isize;
        all = all
            .into_iter()
            .flat_map(|o| {
                (-r..=r).map(move |d| {
                    let mut o = o;
                    o[k] = d;
                    o
                })
            })
            .collect();
    }
    all
}

/// The prolongation's weight at fine offset `o` from a coarse point (zero outside `[-1, 1]^N`).
fn prolongation_weight<const N: usize>(o: [isize; N]) -> f64 {
    o.iter()
        .map(|&d| match d {
            0 => 1.0,
            -1 | 1 => 0.5,
            _ => 0.0,
        })
        .product()
}

/// The full-weighting restriction's taps.
pub(super) fn restriction<const N: usize>() -> Vec<([isize; N], f64)> {
    box_offsets([1; N]).into_iter().map(|o| (o, prolongation_weight(o) / (1usize << N) as f64)).collect()
}

/// The multilinear prolongation's taps, as a stencil read on the fine grid after the coarse
/// values are scattered onto the fine points they coincide with (zeros elsewhere).
pub(super) fn prolongation<const N: usize>() -> Vec<([isize; N], f64)> {
    box_offsets([1; N]).into_iter().map(|o| (o, prolongation_weight(o))).collect()
}

/// `R A P` for the stencil `fine` (taps in `f64`): the coarse taps, zeros dropped, in row-major
/// order of their offsets. Its radius along axis `k` is `(r_k + 2) / 2` for a fine radius `r_k`.
pub(super) fn coarse_operator<const N: usize>(fine: &[([isize; N], f64)]) -> Vec<([isize; N], f64)> {
    let reach: [usize; N] = core::array::from_fn(|k| {
        let r = fine.iter().map(|(o, _)| o[k].unsigned_abs()).max().unwrap_or(0);
        (r + 2) / 2
    });
    let r = restriction::<N>();
    box_offsets(reach)
        .into_iter()
        .filter_map(|j| {
            // (R A P δ_J)(0) = Σ_a R(a) Σ_b A(b) P(a + b − 2J).
            let w: f64 = r
                .iter()
                .map(|&(a, ra)| {
                    ra * fine
                        .iter()
                        .map(|&(b, ab)| ab * prolongation_weight::<N>(core::array::from_fn(|k| a[k] + b[k] - 2 * j[k])))
                        .sum::<f64>()
                })
                .sum();
            (w != 0.0).then_some((j, w))
        })
        .collect()
}

/// What one restriction weight and one fine tap add to the coarse fields: at the coarse point,
/// to the field of each coarse offset (its slot), the fine coefficient times a factor.
struct Feed {
    /// The restriction weight's number.
    weight: usize,
    /// The fine tap's number.
    tap: usize,
    /// `(slot, factor)` pairs.
    targets: Vec<(usize, f64)>,
}

/// The Galerkin coarse operator `R A P` of the fine operator `rows` on `fine_shape`, computed
/// point by point at the coarse points of `block` (global indices; the whole coarse grid on one
/// process): the coarse offsets (every offset within `(r + 2) / 2` along each axis, `r` the
/// fine radius) and their fields on the block padded by that reach. Coarse point `I` coincides
/// with fine point `2 I + first` (wrapped on periodic axes); the restriction reads nothing
/// beyond a bounded axis (the residual is zero there), and the rows of fine points within one
/// of the block's images.
pub(super) fn coarse_fields<const N: usize>(
    rows: &impl FineRows<N>,
    fine_shape: [usize; N],
    block: &[core::ops::Range<usize>; N],
    first: [usize; N],
    periodic: [bool; N],
) -> (Vec<[isize; N]>, Vec<crate::array::Array<f64, N>>) {
    let coarse_shape: [usize; N] = core::array::from_fn(|k| block[k].len());
    use crate::array::Array;
    let offsets = rows.offsets();
    let reach: [usize; N] = core::array::from_fn(|k| {
        let r = offsets.iter().map(|o| o[k].unsigned_abs()).max().unwrap_or(0);
        (r + 2) / 2
    });
    let coarse_offsets = box_offsets(reach);
    // Where coarse offset `j` sits in `coarse_offsets` (row-major over the box).
    let slot = |j: [isize; N]| (0..N).fold(0usize, |s, k| s * (2 * reach[k] + 1) + (j[k] + reach[k] as isize) as usize);
    // For each restriction weight `R(a)` and fine tap `b`, the coarse offsets `j` it feeds and by
    // how much, `R(a) P(a + b − 2 j)`: the same at every point, so found once. Per axis `a + b −
    // 2 j` must lie in [-1, 1]: one or two `j`.
    let restriction = restriction::<N>();
    let mut feeds: Vec<Feed> = Vec::new();
    for (ai, &(a, weight_r)) in restriction.iter().enumerate() {
        for (t, b) in offsets.iter().enumerate() {
            let mut js = vec![[0isize; N]];
            for k in 0..N {
                let s = a[k] + b[k];
                let choices: Vec<isize> =
                    ((s - 1).div_euclid(2)..=(s + 1).div_euclid(2)).filter(|&j| (s - 2 * j).abs() <= 1).collect();
                js = js
                    .into_iter()
                    .flat_map(|j| {
                        choices.iter().map(move |&c| {
                            let mut j = j;
                            j[k] = c;
                            j
                        })
                    })
                    .collect();
            }
            let targets = js
                .into_iter()
                .map(|j| {
                    (slot(j), weight_r * prolongation_weight::<N>(core::array::from_fn(|k| a[k] + b[k] - 2 * j[k])))
                })
                .filter(|&(_, w)| w != 0.0)
                .collect();
            feeds.push(Feed { weight: ai, tap: t, targets });
        }
    }
    let coarse_padded: [usize; N] = core::array::from_fn(|k| coarse_shape[k] + 2 * reach[k]);
    let flat = |i: [usize; N], dims: [usize; N]| (0..N).fold(0usize, |f, k| f * dims[k] + i[k]);
    let coarse_len: usize = coarse_padded.iter().product();
    let mut coarse = vec![vec![0.0f64; coarse_len]; coarse_offsets.len()];
    let count: usize = coarse_shape.iter().product();
    let mut index = [0usize; N];
    // The fine row each restriction weight reads (zeros beyond a bounded axis).
    let mut fine = vec![vec![0.0f64; offsets.len()]; restriction.len()];
    for _ in 0..count {
        for (ai, &(a, _)) in restriction.iter().enumerate() {
            let p: [isize; N] = core::array::from_fn(|k| {
                let p = 2 * (block[k].start + index[k]) as isize + first[k] as isize + a[k];
                if periodic[k] {
                    p.rem_euclid(fine_shape[k] as isize)
                } else {
                    p
                }
            });
            match (0..N).all(|k| (0..fine_shape[k] as isize).contains(&p[k])) {
                true => rows.row(p.map(|p| p as usize), &mut fine[ai]),
                false => fine[ai].fill(0.0),
            }
        }
        let out = flat(core::array::from_fn(|k| index[k] + reach[k]), coarse_padded);
        for feed in &feeds {
            let weight_a = fine[feed.weight][feed.tap];
            if weight_a != 0.0 {
                for &(slot, factor) in &feed.targets {
                    coarse[slot][out] += factor * weight_a;
                }
            }
        }
        for k in (0..N).rev() {
            index[k] += 1;
            if index[k] < coarse_shape[k] {
                break;
            }
            index[k] = 0;
        }
    }
    let coarse = coarse
        .into_iter()
        .map(|values| Array::from_shape_vec(coarse_padded, values).expect("the coarse padded shape's length"))
        .collect();
    (coarse_offsets, coarse)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_galerkin_operator_of_the_3_point_laplacian_is_the_laplacian_of_twice_the_spacing() {
        let c = coarse_operator(&[([-1], 1.0), ([0], -2.0), ([1], 1.0)]);
        assert_eq!(c, vec![([-1], 0.25), ([0], -0.5), ([1], 0.25)]);
    }

    #[test]
    fn the_galerkin_operator_of_the_5_point_laplacian_is_the_known_9_point_one() {
        let five = [([-1, 0], 1.0), ([1, 0], 1.0), ([0, -1], 1.0), ([0, 1], 1.0), ([0, 0], -4.0)];
        let c = coarse_operator(&five);
        // The known result: 1/(2h)^2 [[1/4, 1/2, 1/4], [1/2, -3, 1/2], [1/4, 1/2, 1/4]], here in
        // units of the fine 1/h^2.
        let w = |o: [isize; 2]| c.iter().find(|(p, _)| *p == o).map_or(0.0, |(_, w)| *w);
        assert_eq!(w([0, 0]), -0.75);
        assert_eq!((w([1, 0]), w([0, -1])), (0.125, 0.125));
        assert_eq!((w([1, 1]), w([-1, 1])), (0.0625, 0.0625));
        assert_eq!(c.len(), 9);
        // Consistency: the weights sum to zero (constants are in the kernel) and the second
        // moment along an axis is that of the Laplacian of spacing 2h: Σ w o_0^2 = 2 / 4.
        assert_eq!(c.iter().map(|(_, w)| w).sum::<f64>(), 0.0);
        assert_eq!(c.iter().map(|(o, w)| w * (o[0] * o[0]) as f64).sum::<f64>(), 0.5);
    }

    #[test]
    fn restriction_is_the_scaled_transpose_of_prolongation_and_preserves_constants() {
        let (r, p) = (restriction::<3>(), prolongation::<3>());
        assert_eq!(r.len(), 27);
        assert!((r.iter().map(|(_, w)| w).sum::<f64>() - 1.0).abs() < 1e-15);
        assert!(r.iter().zip(&p).all(|((o, a), (q, b))| o == q && (a * 8.0 - b).abs() < 1e-15));
        assert_eq!(box_offsets([1, 0]), vec![[-1, 0], [0, 0], [1, 0]]);
    }

    /// `R A P` point by point against dense matrices built from the definitions by naive loops,
    /// on a grid with each kind of side: `Neumann` at both ends of axis 0 (odd), a wall below
    /// and `Neumann` above on axis 1 (even), for a 5-point operator with an identity term.
    #[test]
    fn the_pointwise_galerkin_operator_is_the_dense_product_on_mirrored_and_mixed_sides() {
        use super::super::grid::Coarsening;
        use super::super::rows::{ConstantRows, Folded};
        use crate::stencil::{Boundaries, Boundary};
        let (fine, neumann, wall) = ([7usize, 6], Boundary::<f64>::Neumann, Boundary::Value(0.0));
        let boundaries = Boundaries::from([[neumann, neumann], [wall, neumann]]);
        let taps = [([-1, 0], -1.0), ([1, 0], -1.3), ([0, -1], -0.7), ([0, 1], -0.7), ([0, 0], 4.9)];
        let coarsening = Coarsening::of(&boundaries);
        let (coarse, first) = (coarsening.coarser(fine), coarsening.first());
        assert_eq!((coarse, first), ([4, 3], [0, 1]));
        // A: a tap past a Neumann side reads the mirrored point; past the wall, nothing.
        let (nf, nc) = (fine[0] * fine[1], coarse[0] * coarse[1]);
        let mut a = vec![vec![0.0; nf]; nf];
        for i in 0..fine[0] {
            for j in 0..fine[1] {
                for (o, w) in taps {
                    let (p, q) = (i as isize + o[0], j as isize + o[1]);
                    let p = if p < 0 {
                        -p - 1
                    } else if p >= 7 {
                        13 - p
                    } else {
                        p
                    };
                    let q = if q >= 6 { 11 - q } else { q };
                    if q >= 0 {
                        a[i * 6 + j][p as usize * 6 + q as usize] += w;
                    }
                }
            }
        }
        // P: coarse point (I, J) at fine (2I, 2J + 1), linear between coarse points.
        let hat = |d: isize| match d.abs() {
            0 => 1.0,
            1 => 0.5,
            _ => 0.0,
        };
        let p = |f: usize, c: usize| {
            let (fi, fj, ci, cj) = ((f / 6) as isize, (f % 6) as isize, (c / 3) as isize, (c % 3) as isize);
            hat(fi - 2 * ci) * hat(fj - 2 * cj - 1)
        };
        let rap = |c: usize, d: usize| -> f64 {
            (0..nf).map(|f| p(f, c) / 4.0 * (0..nf).map(|g| a[f][g] * p(g, d)).sum::<f64>()).sum()
        };
        let rows = Folded::new(
            ConstantRows { offsets: taps.iter().map(|t| t.0).collect(), weights: taps.iter().map(|t| t.1).collect() },
            fine,
            &boundaries,
        );
        let block = coarse.map(|n| 0..n);
        let (offsets, fields) = coarse_fields(&rows, fine, &block, first, coarsening.periodic());
        let mut matched = 0;
        for c in 0..nc {
            for d in 0..nc {
                let j = [(d / 3) as isize - (c / 3) as isize, (d % 3) as isize - (c % 3) as isize];
                let expected = rap(c, d);
                let got = offsets.iter().position(|&o| o == j).map_or(0.0, |s| fields[s][[c / 3 + 1, c % 3 + 1]]);
                assert!((got - expected).abs() < 1e-13, "coarse {c} -> {d}: {got} against {expected}");
                matched += usize::from(expected != 0.0);
            }
        }
        assert!(matched > 3 * nc, "{matched}");
        // Nothing reaches past the coarse Neumann sides (no weight lost there).
        for (s, o) in offsets.iter().enumerate() {
            for (index, &w) in fields[s].indexed_iter() {
                let (ci, cj) = (index[0] as isize - 1 + o[0], index[1] as isize - 1 + o[1]);
                let inside = (1..=4).contains(&index[0]) && (1..=3).contains(&index[1]);
                if inside && (!(0..4).contains(&ci) || cj >= 3) {
                    assert_eq!(w, 0.0, "offset {o:?} at {index:?}");
                }
            }
        }
    }
}
