//! [`Decomposition::coarsened`]: the split of a grid coarsened by two, as geometric multigrid
//! coarsens it, that keeps every coarse point on the process owning its fine image, so the grid
//! transfers between levels need no message beyond the halo exchanges.

use core::ops::Range;

use super::decomposition::{split, Decomposition};
use crate::error::{Error, Result};

impl<const N: usize> Decomposition<N> {
    /// The decomposition of this grid coarsened by two along every axis, as
    /// [`Multigrid`](crate::solve::Multigrid) coarsens: between fixed edges `n` points (odd)
    /// become `(n − 1) / 2`, coarse point `I` lying on fine point `2 I + 1`; along a periodic
    /// axis `n` points (even) become `n / 2`, `I` on `2 I`. Each process owns the coarse points
    /// whose fine images it owns, on the same process grid, so restriction and interpolation
    /// stay within a block and its halo.
    ///
    /// ```
    /// use cnda::dist::Decomposition;
    /// let fine = Decomposition::new([63, 16], 3, [false, true]);
    /// let coarse = fine.coarsened();
    /// assert_eq!(coarse.global_shape(), [31, 8]);
    /// assert_eq!(fine.block(1)[0], 21..42);
    /// assert_eq!(coarse.block(1)[0], 10..21); // fine points 21, 23, ..., 41
    /// assert_eq!(coarse.owner([20, 0]), 1);
    /// ```
    ///
    /// # Panics
    ///
    /// As [`Decomposition::try_coarsened`] errs.
    #[track_caller]
    pub fn coarsened(&self) -> Self {
        crate::error::or_panic(self.try_coarsened())
    }

    /// [`Decomposition::coarsened`], returning errors.
    ///
    /// # Errors
    ///
    /// `Error::Decomposition` for a staggered axis, an axis that does not halve (an even count
    /// between fixed edges or fewer than 3 points, an odd count on a periodic axis), or a
    /// process that would own no coarse point (blocks too small: gather the grid instead).
    pub fn try_coarsened(&self) -> Result<Self> {
        let op = "Decomposition::coarsened";
        let refuse = |reason: String, fix| Err(Error::Decomposition { op, reason, fix });
        let mut coarse = *self;
        for k in 0..N {
            let n = self.global[k];
            if self.staggered[k] {
                return refuse(format!("axis {k} is staggered"), "coarsen the cells' decomposition");
            }
            coarse.global[k] = match self.periodic[k] {
                true if n % 2 == 0 && n >= 2 => n / 2,
                false if n % 2 == 1 && n >= 3 => (n - 1) / 2,
                periodic => {
                    return refuse(
                        format!(
                            "axis {k} has {n} points, which do not halve {}",
                            if periodic {
                                "on a periodic axis (an even count)"
                            } else {
                                "between fixed edges (an odd count, at least 3)"
                            }
                        ),
                        "use 2^k points on periodic axes and 2^k - 1 between fixed edges",
                    );
                }
            };
            coarse.halvings[k] = self.halvings[k].checked_add(1).expect("fewer than 256 halvings of a usize");
            if let Some(c) = (0..self.dims[k]).find(|&c| coarse.coarse_block(k, c).is_empty()) {
                return refuse(
                    format!(
                        "process {c} along axis {k} would own no point of the coarse grid's {} (its block of the \
                         {n} fine points holds no coarse point's image)",
                        coarse.global[k]
                    ),
                    "stop coarsening the distributed grid here and gather the coarse levels onto fewer processes",
                );
            }
        }
        Ok(coarse)
    }

    /// The coarse points along axis `k` that the processes at coordinate `c` own: those whose
    /// fine images they own, level by level from the finest split.
    pub(super) fn coarse_block(&self, k: usize, c: usize) -> Range<usize> {
        let mut block = split(self.finest[k], self.dims[k], c);
        for _ in 0..self.halvings[k] {
            // Fixed edges: I on 2 I + 1, owned when lo <= 2 I + 1 < hi. Periodic: I on 2 I.
            block = match self.periodic[k] {
                false => block.start / 2..block.end / 2,
                true => block.start.div_ceil(2)..block.end.div_ceil(2),
            };
        }
        block
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every coarse point belongs to the process owning its fine image, the blocks partition the
    /// coarse grid, and `owner` agrees, level after level, on fixed and periodic axes.
    #[test]
    fn coarse_points_stay_with_their_fine_images() {
        for ranks in 1..=8 {
            for (global, periodic) in [([127, 63], [false, false]), ([64, 31], [true, false]), ([32, 64], [true, true])]
            {
                let Ok(mut fine) = Decomposition::try_new(global, ranks, periodic) else { continue };
                while let Ok(coarse) = fine.try_coarsened() {
                    let [n0, n1] = coarse.global_shape();
                    let mut owned = 0;
                    for r in 0..ranks {
                        let [a, b] = coarse.block(r);
                        owned += a.len() * b.len();
                        for i in a.clone() {
                            for j in b.clone() {
                                let image = [2 * i + usize::from(!periodic[0]), 2 * j + usize::from(!periodic[1])];
                                assert_eq!(fine.owner(image), r, "{ranks} {global:?} [{i}, {j}]");
                                assert_eq!(coarse.owner([i, j]), r);
                            }
                        }
                    }
                    assert_eq!(owned, n0 * n1);
                    fine = coarse;
                }
            }
        }
    }

    #[test]
    fn grids_that_do_not_halve_or_leave_a_process_empty_are_refused() {
        let even = Decomposition::new([10, 7], 1, [false, false]);
        assert!(even.try_coarsened().unwrap_err().to_string().contains("axis 0 has 10 points"));
        let odd = Decomposition::new([9, 8], 1, [true, true]);
        assert!(odd.try_coarsened().unwrap_err().to_string().contains("on a periodic axis"));
        // 7 points over 4 processes: blocks 2, 2, 2, 1; the last (point 6) holds no 2 I + 1.
        let thin = Decomposition::with_dims([7], [4], [false]);
        let e = thin.try_coarsened().unwrap_err().to_string();
        assert!(e.contains("process 3 along axis 0 would own no point"), "{e}");
        let staggered = Decomposition::new([7, 7], 1, [false, false]).staggered(0);
        assert!(staggered.try_coarsened().unwrap_err().to_string().contains("staggered"));
        assert!(Decomposition::new([7, 7], 1, [false; 2]).coarsened().try_staggered(0).is_err());
    }
}
