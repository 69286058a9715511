//! The matrix of a stencil operator: each unknown's row holds the stencil's taps at the columns
//! they read, the halo's images folded in by the boundary conditions' own index rule (the one
//! the halo fills use), so `spmv` and the operator's `apply` agree.

use super::csr::CsrMatrix;
use crate::element::Float;
use crate::error::{or_panic, Error, Result};
use crate::kernel::Cpu;
use crate::solve::{LinearOperator, StencilOperator};
use crate::stencil::Side;

impl<T: Float> CsrMatrix<T> {
    /// The matrix of `op` on its unknowns, numbered row-major: row `i` holds the taps of the
    /// stencil at unknown `i`, at the columns they read, a tap that reads the halo moved to the
    /// unknown it mirrors (`Neumann`) or wraps to (`Periodic`), or dropped (a zero wall); taps
    /// that land on one column add up. Each row's columns come out sorted.
    ///
    /// ```
    /// use cnda::prelude::*;
    /// use cnda::solve::StencilOperator;
    /// use cnda::sparse::CsrMatrix;
    /// use cnda::stencil::{Boundary, DynStencil};
    /// let op = StencilOperator::new(DynStencil::new([([-1], 1.0), ([0], -2.0), ([1], 1.0)]), [4], [Boundary::Neumann]);
    /// let a = CsrMatrix::from_stencil(&op);
    /// assert_eq!(a.try_to_dense().unwrap().as_slice(), &[
    ///     -1.0, 1.0, 0.0, 0.0, // the mirrored tap adds to the centre
    ///     1.0, -2.0, 1.0, 0.0,
    ///     0.0, 1.0, -2.0, 1.0,
    ///     0.0, 0.0, 1.0, -1.0,
    /// ]);
    /// ```
    ///
    /// # Panics
    ///
    /// As [`CsrMatrix::try_from_stencil`] errs.
    #[track_caller]
    pub fn from_stencil<const N: usize>(op: &StencilOperator<T, N>) -> Self {
        or_panic(Self::try_from_stencil(op))
    }

    /// [`CsrMatrix::from_stencil`], returning errors.
    ///
    /// # Errors
    ///
    /// `Error::Parameter` when the unknowns or the entries exceed `i32::MAX` (32-bit indices);
    /// `Error::Alloc`.
    pub fn try_from_stencil<const N: usize>(op: &StencilOperator<T, N>) -> Result<Self> {
        const OP: &str = "CsrMatrix::from_stencil";
        let shape = <StencilOperator<T, N> as LinearOperator<T, N, Cpu>>::shape(op);
        let unknowns = shape.iter().try_fold(1usize, |n, &k| n.checked_mul(k)).filter(|&n| n <= i32::MAX as usize);
        let Some(unknowns) = unknowns else {
            return Err(Error::Parameter {
                op: OP,
                reason: format!("the grid {shape:?} has more unknowns than 32-bit indices count"),
                fix: "assemble blocks of the grid, or solve without a matrix (the stencil operator itself)",
            });
        };
        let taps = op.stencil().taps();
        let boundaries = op.boundaries();
        let capacity = unknowns.saturating_mul(taps.len());
        let alloc_error = |count: usize, size: usize| Error::Alloc {
            op: OP,
            bytes: count.saturating_mul(size),
            reason: "the system allocator refused".into(),
        };
        let mut columns: Vec<i32> = Vec::new();
        columns.try_reserve_exact(capacity).map_err(|_| alloc_error(capacity, 4))?;
        let mut values: Vec<T> = Vec::new();
        values.try_reserve_exact(capacity).map_err(|_| alloc_error(capacity, core::mem::size_of::<T>()))?;
        let mut offsets = Vec::with_capacity(unknowns + 1);
        offsets.push(0i32);
        let mut row: Vec<(usize, T)> = Vec::with_capacity(taps.len());
        let mut index = [0usize; N];
        for _ in 0..unknowns {
            row.clear();
            'taps: for &(offset, weight) in taps {
                let mut column = 0usize;
                for k in 0..N {
                    let p = index[k] as isize + offset[k];
                    let side = if p < 0 { Side::Low } else { Side::High };
                    let source = if (0..shape[k] as isize).contains(&p) {
                        p as usize
                    } else {
                        match boundaries.at(k, side).source(p, shape[k]) {
                            Some(s) => s,
                            None => continue 'taps,
                        }
                    };
                    column = column * shape[k] + source;
                }
                row.push((column, weight));
            }
            row.sort_unstable_by_key(|&(c, _)| c);
            let mut last = None;
            for &(c, w) in &row {
                if last == Some(c) {
                    let v = values.last_mut().expect("the column was stored");
                    *v = *v + w;
                } else {
                    // Below `unknowns`, which fits an `i32`.
                    columns.push(c as i32);
                    values.push(w);
                    last = Some(c);
                }
            }
            if columns.len() > i32::MAX as usize {
                return Err(Error::Parameter {
                    op: OP,
                    reason: format!("the matrix has more than {} entries", i32::MAX),
                    fix: "assemble blocks of the grid, or solve without a matrix",
                });
            }
            offsets.push(columns.len() as i32);
            // The next unknown, row-major.
            for k in (0..N).rev() {
                index[k] += 1;
                if index[k] < shape[k] {
                    break;
                }
                index[k] = 0;
            }
        }
        Self::try_from_parts([unknowns; 2], offsets, columns, values)
    }
}
