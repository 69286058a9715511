//! The cycles between the levels (V, W and F), full multigrid, and the coarsest level's solve.

use super::level::Level;
use super::{CycleKind, Gathered, Multigrid};
use crate::array::Array;
use crate::error::{Error, Result};
use crate::kernel::tokens::{ScalarRight, Sub};
use crate::kernel::StencilKernels;
use crate::solve::vectors::{SolverBackend, SolverScalar};
use crate::solve::{Cg, SolveOptions};

impl<T: SolverScalar, const N: usize, B: SolverBackend + StencilKernels> Multigrid<T, N, B> {
    /// One cycle of `kind` on `levels[0]`'s `b`, from its `x`: smoothing, the residual restricted,
    /// the coarse correction (one visit for V, two for W, an F-cycle then a V-cycle for F),
    /// interpolated back, smoothing.
    ///
    /// # Errors
    ///
    /// The kernels' errors.
    pub(super) fn cycle(&self, levels: &mut [Level<T, N, B>], kind: CycleKind) -> Result<()> {
        let o = self.options;
        let (fine, coarser) = levels.split_first_mut().expect("a cycle runs on at least one level");
        let Some(coarse) = coarser.first_mut() else {
            return self.coarsest_solve(fine);
        };
        fine.smooth(o.pre, false)?;
        fine.residual()?;
        fine.restrict_to(coarse, &self.restriction)?;
        // The coarsest level is solved, not cycled: a second visit would repeat the solve.
        let visits: &[CycleKind] = match kind {
            _ if coarser.len() == 1 => &[CycleKind::V],
            CycleKind::V => &[CycleKind::V],
            CycleKind::W => &[CycleKind::W, CycleKind::W],
            CycleKind::F => &[CycleKind::F, CycleKind::V],
        };
        for &visit in visits {
            self.cycle(coarser, visit)?;
        }
        fine.correct_from(&coarser[0], &self.prolongation)?;
        fine.smooth(o.post, true)
    }

    /// Full multigrid on `levels[0]`'s `b` (its `x` is overwritten): `b` restricted to every
    /// level, solved on the coarsest, then each finer level started from the coarser solution
    /// interpolated and improved by `cycles` cycles. One pass leaves an algebraic error below
    /// the discretization error of a consistent problem, at the cost of a few fine-grid sweeps.
    ///
    /// # Errors
    ///
    /// The kernels' errors.
    pub(super) fn full(&self, levels: &mut [Level<T, N, B>], cycles: usize) -> Result<()> {
        for l in 0..levels.len() - 1 {
            let (fine, coarser) = levels[l..].split_first_mut().expect("l is below the last level");
            fine.space.copy(&mut fine.r, &fine.b)?;
            fine.restrict_to(&mut coarser[0], &self.restriction)?;
        }
        self.coarsest_solve(levels.last_mut().expect("a hierarchy has a level"))?;
        for l in (0..levels.len() - 1).rev() {
            let (fine, coarser) = levels[l..].split_first_mut().expect("l is below the last level");
            fine.x.try_fill(T::ZERO)?;
            fine.correct_from(&coarser[0], &self.prolongation)?;
            for _ in 0..cycles {
                self.cycle(&mut levels[l..], self.options.cycle)?;
            }
        }
        Ok(())
    }
}

impl<T: SolverScalar, const N: usize, B: SolverBackend + StencilKernels> Multigrid<T, N, B> {
    /// `A x = b` on the coarsest level: by CG on one process; a distributed level's blocks
    /// gathered on process 0, solved there (by the gathered grid's own multigrid where it
    /// coarsens, else CG) and the solution scattered back.
    ///
    /// # Errors
    ///
    /// The kernels' and the collectives' errors.
    fn coarsest_solve(&self, level: &mut Level<T, N, B>) -> Result<()> {
        let Some(exchange) = &mut level.exchange else {
            return coarsest_solve(level, self.singular);
        };
        level.passes += 1;
        let b = exchange.gather(&mut level.b)?;
        let solved = match (&self.gathered, b) {
            (Some(gathered), Some(b)) => gathered.solve(b).map(Some),
            _ => Ok(None),
        };
        // Process 0 scatters even when its solve failed (an absent array: every process fails
        // the scatter alike), then returns its own error.
        let scattered = exchange.scatter(&mut level.x, solved.as_ref().ok().and_then(Option::as_ref));
        solved?;
        scattered
    }
}

impl<T: SolverScalar, const N: usize> Gathered<T, N> {
    /// The gathered coarsest grid's `A x = b` on the host: by its multigrid where it has one,
    /// else CG, to rounding (its last iterate when the iterations run out); the consistent part
    /// when constants are the operator's null space.
    ///
    /// # Errors
    ///
    /// The kernels' errors; `Error::Alloc`.
    fn solve(&self, mut b: Array<T, N>) -> Result<Array<T, N>> {
        let (count, singular) = (b.len(), self.singular);
        if singular {
            remove_mean(&mut b, count)?;
        }
        let mut x = Array::try_zeros_in(&crate::kernel::Cpu, b.shape())?;
        let rtol = if core::mem::size_of::<T>() == 4 { 1e-6 } else { 1e-12 };
        let outcome = match &self.multigrid {
            Some(mg) => mg.try_solve(&self.op, &b, &mut x, SolveOptions::default().rtol(rtol).max_iters(100)).map(drop),
            None => Cg::new().rtol(rtol).max_iters(2 * count).try_solve(&self.op, &b, &mut x).map(drop),
        };
        match outcome {
            Ok(()) | Err(Error::NotConverged { .. }) => {}
            Err(e) => return Err(e),
        }
        if singular {
            remove_mean(&mut x, count)?;
        }
        Ok(x)
    }
}

/// `A x = b` on the coarsest level by CG (to rounding, within twice the unknowns' count of
/// iterations; its last iterate otherwise); the consistent part when `singular` (constants are
/// the operator's null space).
///
/// # Errors
///
/// The kernels' errors; `Error::Alloc`.
pub(super) fn coarsest_solve<T: SolverScalar, const N: usize, B: SolverBackend + StencilKernels>(
    level: &mut Level<T, N, B>,
    singular: bool,
) -> Result<()> {
    let shape = level.space.shape();
    let alloc = level.b.allocator();
    let (mut b, mut x) = (Array::try_zeros_in(&alloc, shape)?, Array::try_zeros_in(&alloc, shape)?);
    level.space.store(&mut b.view_mut().into_strided(), &level.b)?;
    let count: usize = shape.iter().product();
    if singular {
        // Rounding leaves the restricted residual a little inconsistent, which CG would chase;
        // solve its consistent part.
        remove_mean(&mut b, count)?;
    }
    let rtol = if core::mem::size_of::<T>() == 4 { 1e-6 } else { 1e-12 };
    let max_iters = 2 * count;
    level.passes += match Cg::new().rtol(rtol).max_iters(max_iters).try_solve(&level.op, &b, &mut x) {
        Ok(report) => report.work.round() as usize,
        Err(Error::NotConverged { iterations, .. }) => iterations + 1,
        Err(e) => return Err(e),
    };
    if singular {
        remove_mean(&mut x, count)?;
    }
    level.space.load(&mut level.x, &x.view().into_strided())
}

/// `v -= mean(v)` (`count` elements).
fn remove_mean<T: SolverScalar, const N: usize, B: SolverBackend>(v: &mut Array<T, N, B>, count: usize) -> Result<()> {
    // SAFETY: `v`'s own elements, live, borrowed uniquely for both calls (read, then updated).
    let sum = unsafe { crate::ops::reduce::reduce(crate::kernel::tokens::Sum, v.desc()) }?.unwrap_or(T::ZERO);
    let mean = T::from_f64(sum.into() / count as f64);
    // SAFETY: as above.
    unsafe { crate::ops::elementwise::update_unary(ScalarRight(Sub, mean), v.desc_mut()) }
}
