//! Rediscretized coarse levels ([`CoarseOperators::Rediscretized`](super::CoarseOperators)): a
//! diffusion operator's conductivity restricted by full weighting to each coarser grid and
//! discretized there again at twice the spacing, `2N + 1` taps on every level where Galerkin
//! products have `3^N`.

use super::grid::Coarsening;
use super::level::Level;
use super::operator::LevelOperator;
use super::{Multigrid, MultigridOptions};
use crate::array::Array;
use crate::error::Result;
use crate::kernel::{Download, StencilKernels, Upload};
use crate::solve::diffusion::Conductivity;
use crate::solve::variable_operator::VariableOperator;
use crate::solve::vectors::{SolverBackend, SolverScalar};

impl<T: SolverScalar, const N: usize, B: SolverBackend + StencilKernels + Download> Multigrid<T, N, B>
where
    B::Alloc: Upload<Target = B>,
{
    /// The coarser levels below `levels` (the finest, the diffusion operator of `conductivity`),
    /// each the diffusion operator of the conductivity restricted from the level above, with the
    /// finest level's sides and twice its spacing.
    ///
    /// # Errors
    ///
    /// `Error::Alloc`; `Error::Device` from the uploads; as [`Level::new`].
    pub(super) fn rediscretized_levels(
        mut levels: Vec<Level<T, N, B>>,
        conductivity: &Conductivity<T, N>,
        coarsening: Coarsening<N>,
        alloc: &B::Alloc,
        options: MultigridOptions,
        singular: bool,
    ) -> Result<Self> {
        let sides = *levels[0].op.boundaries();
        let (mut shape, mut h) = (levels[0].space.shape(), conductivity.h);
        let mut k = None;
        while coarsening.halvable(shape) && shape.iter().product::<usize>() > options.coarsest {
            shape = coarsening.coarser(shape);
            h = h.map(|s| 2.0 * s);
            let coarse =
                restrict(k.as_ref().unwrap_or(&conductivity.k), shape, coarsening.first(), coarsening.periodic())?;
            let op = VariableOperator::try_diffusion_in(alloc, &coarse, h, conductivity.shift, sides)?;
            let op = LevelOperator::Variable(op);
            let host = op.host_taps()?;
            levels.push(Level::new(op, &host, alloc, options.smoother, None, coarsening.first())?);
            k = Some(coarse);
        }
        Self::from_levels(levels, options, singular)
    }
}

/// `k` (a positive field) restricted by full weighting to `coarse` points, coarse point `I` on
/// fine point `2 I + first`: the fine point's value a half, each neighbour along an axis a
/// quarter (the product over axes), a neighbour past a periodic seam its image, past a bounded
/// end its mirror image. Positive again, and linear fields stay exact in the interior; rounded
/// to `T`.
///
/// # Errors
///
/// `Error::Alloc`.
pub(super) fn restrict<T: SolverScalar, const N: usize>(
    k: &Array<T, N>,
    coarse: [usize; N],
    first: [usize; N],
    periodic: [bool; N],
) -> Result<Array<T, N>> {
    let fine = k.shape();
    Array::try_from_fn(coarse, |c| {
        let sum = full_weighting(c, first, fine, periodic, |j| {
            let p: [usize; N] = core::array::from_fn(|a| match periodic[a] {
                true => j[a].rem_euclid(fine[a] as isize) as usize,
                false => j[a] as usize,
            });
            k[p].into()
        });
        T::from_f64(sum)
    })
}

/// Full weighting at coarse point `c` of a fine field that `read(j)` reads at fine index `j`:
/// on a bounded axis `j` lies on the grid (a neighbour past an end mirrored back), on a periodic
/// one it may lie one point past an end (the reader wraps it, or finds it in a halo). The same
/// additions in the same order wherever the field lives.
pub(super) fn full_weighting<const N: usize>(
    c: [usize; N],
    first: [usize; N],
    fine: [usize; N],
    periodic: [bool; N],
    read: impl Fn([isize; N]) -> f64,
) -> f64 {
    let centre: [isize; N] = core::array::from_fn(|a| (2 * c[a] + first[a]) as isize);
    let mut sum = 0.0;
    for m in 0..3usize.pow(N as u32) {
        let (mut j, mut w, mut rest) = ([0isize; N], 1.0, m);
        for a in 0..N {
            let o = (rest % 3) as isize - 1;
            rest /= 3;
            j[a] = centre[a] + o;
            let n = fine[a] as isize;
            if !periodic[a] && !(0..n).contains(&j[a]) {
                // Past a bounded end: its mirror image (the axis has at least 2 points to halve).
                j[a] = (if j[a] < 0 { -j[a] } else { 2 * (n - 1) - j[a] }).clamp(0, n - 1);
            }
            w *= if o == 0 { 0.5 } else { 0.25 };
        }
        sum += w * read(j);
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Full weighting keeps a linear field exact where no neighbour is mirrored or wrapped,
    /// averages a constant to itself everywhere, and wraps across a periodic seam.
    #[test]
    fn full_weighting_of_conductivities() {
        let linear = |[i, j]: [usize; 2]| 2.0 + 0.5 * i as f64 + 0.25 * j as f64;
        let k = Array::from_fn([15, 9], linear);
        // Walls along axis 0 (coarse I on fine 2I + 1), Neumann sides along axis 1 (2J).
        let c = restrict(&k, [7, 5], [1, 0], [false, false]).unwrap();
        for i in 0..7 {
            for j in 1..4 {
                assert!((c[[i, j]] - linear([2 * i + 1, 2 * j])).abs() < 1e-12, "{i} {j}");
            }
            // Mirrored at the ends: the fine neighbour inside counts twice.
            let end = 0.5 * linear([2 * i + 1, 0]) + 0.5 * linear([2 * i + 1, 1]);
            assert!((c[[i, 0]] - end).abs() < 1e-12, "{i}: {} {end}", c[[i, 0]]);
        }
        let constant = restrict(&Array::<f64, 2>::full([8, 9], 3.0), [4, 5], [0, 0], [true, false]).unwrap();
        assert!(constant.iter().all(|&v| (v - 3.0).abs() < 1e-15));
        // Periodic along axis 0: coarse point 0 reads fine points 7, 0 and 1.
        let k = Array::from_fn([8, 3], |[i, _]| i as f64);
        let c = restrict(&k, [4, 2], [0, 0], [true, false]).unwrap();
        assert!((c[[0, 0]] - (0.25 * 7.0 + 0.5 * 0.0 + 0.25 * 1.0)).abs() < 1e-12, "{}", c[[0, 0]]);
    }
}
