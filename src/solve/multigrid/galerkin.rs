//! Stencil algebra for vertex-centred coarsening by two, on the host and exact: the full-weighting
//! restriction `R`, the multilinear prolongation `P`, and the Galerkin coarse operator `R A P` of
//! a constant-coefficient stencil `A`.
//!
//! Fine point `2I + 1` (interior indices) coincides with coarse point `I`. `P` spreads a coarse
//! value over the `3^N` fine points around it with weights `Π_k (1 if o_k = 0 else 1/2)`; `R`
//! gathers them with `Π_k (1/2 if o_k = 0 else 1/4)`, so `R = Pᵀ / 2^N` and `R A P` of the 5-point
//! Laplacian with spacing `h` is a 9-point operator consistent with spacing `2h` (in 1D it is
//! exactly the 3-point Laplacian with spacing `2h`).

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

/// The Galerkin coarse operator `R A P` of a fine operator with a coefficient field per tap
/// (`offsets`, `fields` on the fine grid padded by `fine_halo`, in `f64`), computed point by
/// point: the coarse offsets (every offset within `(r + 2) / 2` along each axis, `r` the fine
/// radius) and their fields on the coarse grid padded by that reach. Coarse point `I` coincides
/// with fine point `2 I + 1` between walls and `2 I` on a periodic axis (wrapped there).
pub(super) fn coarse_fields<const N: usize>(
    offsets: &[[isize; N]],
    fields: &[crate::array::Array<f64, N>],
    fine_halo: [usize; N],
    fine_shape: [usize; N],
    coarse_shape: [usize; N],
    periodic: [bool; N],
) -> (Vec<[isize; N]>, Vec<crate::array::Array<f64, N>>) {
    use crate::array::Array;
    let reach: [usize; N] = core::array::from_fn(|k| {
        let r = offsets.iter().map(|o| o[k].unsigned_abs()).max().unwrap_or(0);
        (r + 2) / 2
    });
    let coarse_offsets = box_offsets(reach);
    let padded: [usize; N] = core::array::from_fn(|k| coarse_shape[k] + 2 * reach[k]);
    let mut coarse: Vec<Array<f64, N>> = coarse_offsets.iter().map(|_| Array::zeros(padded)).collect();
    // Where coarse offset `j` sits in `coarse_offsets` (row-major over the box).
    let slot = |j: [isize; N]| (0..N).fold(0usize, |s, k| s * (2 * reach[k] + 1) + (j[k] + reach[k] as isize) as usize);
    let restriction = restriction::<N>();
    let count: usize = coarse_shape.iter().product();
    let mut index = [0usize; N];
    for _ in 0..count {
        for &(a, weight_r) in &restriction {
            // The fine point this restriction weight reads: inside the fine grid between walls
            // (2 I + 1 + a lies in 0..=2 m for I < m), wrapped on periodic axes.
            let p: [usize; N] = core::array::from_fn(|k| {
                let p = 2 * index[k] as isize + isize::from(!periodic[k]) + a[k];
                p.rem_euclid(fine_shape[k] as isize) as usize
            });
            let at: [usize; N] = core::array::from_fn(|k| p[k] + fine_halo[k]);
            for (t, b) in offsets.iter().enumerate() {
                let weight_a = fields[t][at];
                if weight_a == 0.0 {
                    continue;
                }
                // Coarse offsets `j` with `a + b − 2 j` in [-1, 1] on every axis: one or two per axis.
                let mut js = vec![[0isize; N]];
                for k in 0..N {
                    let s = a[k] + b[k];
                    let choices = ((s - 1).div_euclid(2)..=(s + 1).div_euclid(2)).filter(|&j| (s - 2 * j).abs() <= 1);
                    let choices: Vec<isize> = choices.collect();
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
                for j in js {
                    let d: [isize; N] = core::array::from_fn(|k| a[k] + b[k] - 2 * j[k]);
                    let out: [usize; N] = core::array::from_fn(|k| index[k] + reach[k]);
                    coarse[slot(j)][out] += weight_r * weight_a * prolongation_weight(d);
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
}
