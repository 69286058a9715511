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
        let mut offsets = [0; N];
        for (k, offset) in offsets.iter_mut().enumerate() {
            let n = self.global[k];
            if self.staggered[k] {
                continue; // refused below, by name
            }
            *offset = match self.periodic[k] {
                true if n % 2 == 0 && n >= 2 => 0,
                false if n % 2 == 1 && n >= 3 => 1,
                periodic => {
                    return Err(Error::Decomposition {
                        op,
                        reason: format!(
                            "axis {k} has {n} points, which do not halve {}",
                            if periodic {
                                "on a periodic axis (an even count)"
                            } else {
                                "between fixed edges (an odd count, at least 3)"
                            }
                        ),
                        fix: "use 2^k points on periodic axes and 2^k - 1 between fixed edges",
                    });
                }
            };
        }
        self.coarsened_onto(op, offsets)
    }

    /// This grid coarsened with coarse point `I` on fine point `2 I + offset` along each axis,
    /// as many coarse points as have their image on the grid (`⌈(n − offset) / 2⌉`), as
    /// multigrid coarsens next to `Neumann` sides (offset 0: the end points kept); each coarse
    /// point owned by the process owning its image.
    ///
    /// # Errors
    ///
    /// As [`Decomposition::try_coarsened`]; `Error::Decomposition` for an offset other than 0
    /// or 1, or another than an earlier coarsening's along the axis.
    #[cfg(feature = "mpi")]
    pub(crate) fn try_coarsened_onto(&self, offsets: [usize; N]) -> Result<Self> {
        self.coarsened_onto("Decomposition::coarsened", offsets)
    }

    fn coarsened_onto(&self, op: &'static str, offsets: [usize; N]) -> Result<Self> {
        let mut coarse = *self;
        for (k, &offset) in offsets.iter().enumerate() {
            if self.staggered[k] {
                return Err(Error::Decomposition {
                    op,
                    reason: format!("axis {k} is staggered"),
                    fix: "coarsen the cells' decomposition",
                });
            }
            let n = self.global[k];
            // Coarse point I lies on 2 I + offset at every level: `coarse_block` replays them.
            let changed = self.halvings[k] > 0 && usize::from(self.image_offset[k]) != offset;
            if offset > 1 || n <= offset || changed {
                return Err(Error::Decomposition {
                    op,
                    reason: format!(
                        "axis {k} of {n} points coarsened onto fine points 2 I + {offset}{}",
                        if changed { format!(", after coarsening onto 2 I + {}", self.image_offset[k]) } else { String::new() }
                    ),
                    fix: "coarsen onto 2 I (periodic axes, Neumann sides) or 2 I + 1 (fixed edges), the same at every level",
                });
            }
            let points = (n - offset).div_ceil(2);
            coarse.global[k] = points;
            coarse.image_offset[k] = offset as u8;
            coarse.halvings[k] = self.halvings[k].checked_add(1).expect("fewer than 256 halvings of a usize");
            if let Some(c) = (0..self.dims[k]).find(|&c| coarse.coarse_block(k, c).is_empty()) {
                return Err(Error::Decomposition {
                    op,
                    reason: format!(
                        "process {c} along axis {k} would own no point of the coarse grid's {points} (its block of \
                         the {} fine points holds no coarse point's image)",
                        self.global[k]
                    ),
                    fix: "stop coarsening the distributed grid here and gather the coarse levels onto fewer processes",
                });
            }
        }
        Ok(coarse)
    }

    /// The coarse points along axis `k` that the processes at coordinate `c` own: those whose
    /// fine images they own, level by level from the finest split.
    pub(super) fn coarse_block(&self, k: usize, c: usize) -> Range<usize> {
        let mut block = split(self.finest[k], self.dims[k], c);
        for _ in 0..self.halvings[k] {
            // I on 2 I + 1 (fixed edges), owned when lo <= 2 I + 1 < hi; I on 2 I (periodic, or
            // next to a `Neumann` side), owned when lo <= 2 I < hi. The last block ends at the
            // grid's end (the last coarse point's image may lie before it).
            block = match self.image_offset[k] {
                1 => block.start / 2..block.end / 2,
                _ => block.start.div_ceil(2)..block.end.div_ceil(2),
            };
        }
        block
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Asserts that every point `I` of `coarse` belongs to the process owning fine point `2 I +
    /// offset`, that the blocks partition the coarse grid, and that `owner` agrees.
    fn with_their_images(fine: &Decomposition<2>, coarse: &Decomposition<2>, offset: [usize; 2]) {
        let mut owned = 0;
        for r in 0..coarse.ranks() {
            let [a, b] = coarse.block(r);
            owned += a.len() * b.len();
            for i in a.clone() {
                for j in b.clone() {
                    let image = [2 * i + offset[0], 2 * j + offset[1]];
                    assert_eq!(fine.owner(image), r, "{:?} over {} [{i}, {j}]", fine.global_shape(), coarse.ranks());
                    assert_eq!(coarse.owner([i, j]), r);
                }
            }
        }
        assert_eq!(owned, coarse.global_shape().iter().product::<usize>());
    }

    /// Every coarse point belongs to the process owning its fine image, the blocks partition the
    /// coarse grid, and `owner` agrees, level after level, on fixed and periodic axes.
    #[test]
    fn coarse_points_stay_with_their_fine_images() {
        for ranks in 1..=8 {
            for (global, periodic) in [([127, 63], [false, false]), ([64, 31], [true, false]), ([32, 64], [true, true])]
            {
                let Ok(mut fine) = Decomposition::try_new(global, ranks, periodic) else { continue };
                while let Ok(coarse) = fine.try_coarsened() {
                    with_their_images(&fine, &coarse, periodic.map(|p| usize::from(!p)));
                    fine = coarse;
                }
            }
        }
    }

    /// Next to `Neumann` sides (coarse point `I` on `2 I`, the end points kept: 65 -> 33 -> 17
    /// points; one wall: 64 -> 32 on `2 I + 1`), every coarse point stays with its fine image,
    /// the blocks partition the coarse grid, and a changed offset is refused.
    #[test]
    #[cfg(feature = "mpi")]
    fn coarsening_onto_chosen_images_keeps_points_with_their_images() {
        for ranks in 1..=6 {
            let Ok(mut fine) = Decomposition::try_new([65, 64], ranks, [false, false]) else { continue };
            while fine.global_shape().iter().all(|&n| n >= 5) {
                let [n0, n1] = fine.global_shape();
                let Ok(coarse) = fine.try_coarsened_onto([0, 1]) else { break };
                assert_eq!(coarse.global_shape(), [n0.div_ceil(2), n1 / 2]);
                with_their_images(&fine, &coarse, [0, 1]);
                fine = coarse;
            }
            assert!(fine.global_shape()[0] < 65, "{ranks}: never coarsened");
        }
        let once = Decomposition::new([65, 64], 2, [false; 2]).try_coarsened_onto([0, 1]).unwrap();
        let e = once.try_coarsened_onto([1, 1]).unwrap_err().to_string();
        assert!(e.contains("after coarsening onto 2 I + 0"), "{e}");
        // 65 -> 33 points onto 2 I; then 33, odd, would halve between fixed edges onto 2 I + 1.
        let mirrored = Decomposition::new([65], 1, [false]).try_coarsened_onto([0]).unwrap();
        assert!(mirrored.try_coarsened().unwrap_err().to_string().contains("after coarsening onto 2 I + 0"));
        assert!(Decomposition::new([9], 1, [false]).try_coarsened_onto([2]).is_err());
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
