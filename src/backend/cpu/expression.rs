//! The CPU's expression-stencil kernel (what `stencil!` stencils run on): the stencil's compiled
//! point function at every point of a lane walk over the outputs and the fields, each tap read
//! through a flat offset in its field's strides (computed once per call).

use super::lanes::Lane;
use super::simd::{Isa, Kernel};
use super::stencil::MAX_TAPS;
use crate::error::{Error, Result};
use crate::kernel::expr::{ExprData, Scalar, Stencil, Tap, TapReader, Values, MAX_OUTPUTS};
use crate::kernel::{Cpu, Desc, ExprStencilKernels};

/// The most input fields of an expression stencil on the CPU (a wave with a source mask reads
/// five; a system of four fields with coefficients, eight).
pub(super) const MAX_FIELDS: usize = 8;

/// The operands of one lane walk: the outputs, then the fields.
pub(super) const OPERANDS: usize = MAX_OUTPUTS + MAX_FIELDS;

/// Reads tap `k` of the current point: field `TAPS[k].field`'s pointer at the point, moved by
/// the tap's flat offset in that field's strides.
struct Taps<T, const N: usize, S> {
    at: [*const T; MAX_FIELDS],
    deltas: [isize; MAX_TAPS],
    stencil: core::marker::PhantomData<S>,
}

impl<T: Scalar, const N: usize, S: Stencil<T, N>> TapReader<T> for Taps<T, N, S> {
    #[inline(always)]
    fn tap(&self, k: usize) -> T {
        let field = S::TAPS[k].field;
        // SAFETY: `at[field]` is the field's element at the current point, and the tap lies
        // inside the field (the kernel's contract); `k < TAPS.len() <= MAX_TAPS` (checked when
        // the deltas were made).
        unsafe { *self.at[field].offset(self.deltas[k]) }
    }
}

/// Reads tap `k` of the current point where every operand's last axis is contiguous: the
/// pointer of its field at the point, moved to the tap's row (`rows[ROW[k]]`, the same pointer
/// for every tap of the row) and along it by the tap's last offset, a constant. The taps of one
/// row then share one hoisted pointer with constant displacements (a 25-point star in 3D reads 17
/// rows of its field), where distinct run-time deltas held one pointer per tap, more than the
/// registers, spilled and reloaded at every vector of points.
struct RowTaps<T, const N: usize, S> {
    at: [*const T; MAX_FIELDS],
    /// Per tap that starts a row (`ROW[k] == k`), the flat offset of its row: its offsets along
    /// every axis but the last, in its field's strides.
    rows: [isize; MAX_TAPS],
    stencil: core::marker::PhantomData<S>,
}

impl<T: Scalar, const N: usize, S: Stencil<T, N>> RowTaps<T, N, S> {
    /// Per tap, the first tap of the same field on the same row (equal offsets along every axis
    /// but the last): itself when none comes before it.
    const ROW: [usize; MAX_TAPS] = rows_of(S::TAPS);
}

impl<T: Scalar, const N: usize, S: Stencil<T, N>> TapReader<T> for RowTaps<T, N, S> {
    #[inline(always)]
    fn tap(&self, k: usize) -> T {
        let tap = &S::TAPS[k];
        let row = self.rows[Self::ROW[k]];
        // SAFETY: as for `Taps`: with the last axis contiguous (stride 1), `row` plus the last
        // offset is the tap's flat offset, and the point on the tap's row at the point's own
        // last index lies inside the field's array too (the tap's indices along the other axes
        // do, and the point's last index is one of the field's, which has the outputs' shape:
        // the kernel's contract); `k <
        // TAPS.len() <= MAX_TAPS` and `N >= 1` (checked before this reader is made).
        unsafe { *self.at[tap.field].offset(row).offset(tap.offset[N - 1]) }
    }
}

/// [`RowTaps::ROW`] for `taps` (at most `MAX_TAPS`; the rest map to themselves).
const fn rows_of<const N: usize>(taps: &[Tap<N>]) -> [usize; MAX_TAPS] {
    let mut row = [0; MAX_TAPS];
    let mut k = 0;
    while k < MAX_TAPS {
        row[k] = k;
        if k < taps.len() {
            let mut first = 0;
            while first < k {
                if same_row(&taps[first], &taps[k]) {
                    row[k] = first;
                    break;
                }
                first += 1;
            }
        }
        k += 1;
    }
    row
}

/// Whether two taps read one row of one field.
const fn same_row<const N: usize>(a: &Tap<N>, b: &Tap<N>) -> bool {
    if a.field != b.field {
        return false;
    }
    let mut axis = 0;
    while axis + 1 < N {
        if a.offset[axis] != b.offset[axis] {
            return false;
        }
        axis += 1;
    }
    true
}

/// One call's expression sweep, as a SIMD-dispatched kernel over lanes of the outputs and the
/// fields. Safety (`Kernel::run`): as for `ExprStencilKernels::expression`.
struct ExprSweep<'p, S: Stencil<T, N>, T: Scalar, const N: usize> {
    /// Absent outputs and fields repeat the first (walked, never read or written).
    operands: [Desc<Cpu, T, N>; OPERANDS],
    deltas: [isize; MAX_TAPS],
    /// The deltas without the last axis (`RowTaps::rows`).
    rows: [isize; MAX_TAPS],
    params: &'p S::Params,
}

impl<S: Stencil<T, N>, T: Scalar, const N: usize> Kernel for ExprSweep<'_, S, T, N> {
    type Output = ();

    #[inline(always)]
    unsafe fn run<V: pulp::Simd>(self, _: V) {
        let strides = self.operands.map(|d| d.strides);
        super::lanes::walk_lanes(self.operands[0].shape, strides, ExprLanes::<S, T, N> { sweep: &self });
    }
}

/// The lanes of [`ExprSweep`].
struct ExprLanes<'s, 'p, S: Stencil<T, N>, T: Scalar, const N: usize> {
    sweep: &'s ExprSweep<'p, S, T, N>,
}

impl<S: Stencil<T, N>, T: Scalar, const N: usize> Lane<OPERANDS> for ExprLanes<'_, '_, S, T, N> {
    #[inline(always)]
    fn run(&mut self, bases: [isize; OPERANDS], len: usize, steps: [isize; OPERANDS]) {
        let s = self.sweep;
        let outputs = <S::Values as Values<T>>::LEN;
        let out: [*mut T; MAX_OUTPUTS] = core::array::from_fn(|m| s.operands[m].handle.wrapping_offset(bases[m]));
        let first: [*const T; MAX_FIELDS] = core::array::from_fn(|f| {
            let o = MAX_OUTPUTS + f;
            s.operands[o].handle.cast_const().wrapping_offset(bases[o])
        });
        let mut taps = Taps::<T, N, S> { at: first, deltas: s.deltas, stencil: core::marker::PhantomData };
        if N >= 1 && steps.iter().all(|&step| step == 1) {
            let mut taps = RowTaps::<T, N, S> { at: first, rows: s.rows, stencil: core::marker::PhantomData };
            for j in 0..len {
                taps.at = core::array::from_fn(|f| first[f].wrapping_add(j));
                let values = S::point(&taps, s.params);
                for (m, out) in out.iter().enumerate().take(outputs) {
                    // SAFETY: `j < len` is a point of the lane, whose element of each output is
                    // distinct and writable (the kernel's contract); `m` is an output.
                    unsafe { *out.add(j) = values.get(m) };
                }
            }
        } else {
            for j in 0..len as isize {
                taps.at = core::array::from_fn(|f| first[f].wrapping_offset(j * steps[MAX_OUTPUTS + f]));
                let values = S::point(&taps, s.params);
                for (m, out) in out.iter().enumerate().take(outputs) {
                    // SAFETY: as above.
                    unsafe { *out.offset(j * steps[m]) = values.get(m) };
                }
            }
        }
    }
}

/// The refusal of more operands of one kind than the kernel's tables hold.
pub(super) fn too_many(what: &'static str, got: usize, max: usize, fix: &'static str) -> Error {
    Error::Limit { op: "stencil apply", backend: "Cpu", what, got: got as u64, max: max as u64, fix }
}

// SAFETY: the lane walk visits every point of the outputs once and writes each output's value
// there, reading each tap through `Taps` or `RowTaps` (the interpreter: in place along a
// contiguous lane, else gathered), inside its field (the caller's contract).
unsafe impl ExprStencilKernels for Cpu {
    const WAVEFRONT: bool = true;

    unsafe fn expression<S: Stencil<T, N>, T: Scalar, const N: usize>(
        _: &Cpu,
        outputs: &[Desc<Cpu, T, N>],
        fields: &[Desc<Cpu, T, N>],
        params: &S::Params,
    ) -> Result<()> {
        if fields.len() > MAX_FIELDS {
            let fix =
                "pass fewer fields (combine coefficient fields into one beforehand, or split the stencil into stages)";
            return Err(too_many("the number of input fields", fields.len(), MAX_FIELDS, fix));
        }
        if S::TAPS.len() > MAX_TAPS {
            return Err(too_many(
                "the number of stencil taps",
                S::TAPS.len(),
                MAX_TAPS,
                "split the stencil into sums of smaller ones",
            ));
        }
        // The caller's contract gives one output per value; a count the tables cannot hold, or
        // none, is refused rather than trusted.
        let count = <S::Values as Values<T>>::LEN;
        if outputs.len() != count || count == 0 || count > MAX_OUTPUTS || fields.is_empty() {
            return Err(Error::Layout {
                op: "stencil apply",
                reason: format!(
                    "{} outputs and {} fields for a stencil of {count} values",
                    outputs.len(),
                    fields.len()
                ),
                fix: "pass one array per output and per field the stencil names",
            });
        }
        let operands: [Desc<Cpu, T, N>; OPERANDS] = core::array::from_fn(|o| match o.checked_sub(MAX_OUTPUTS) {
            None => *outputs.get(o).unwrap_or(&outputs[0]),
            Some(f) => *fields.get(f).unwrap_or(&fields[0]),
        });
        let (mut deltas, mut rows) = ([0isize; MAX_TAPS], [0isize; MAX_TAPS]);
        for (k, tap) in S::TAPS.iter().enumerate() {
            let strides = operands[MAX_OUTPUTS + tap.field.min(MAX_FIELDS - 1)].strides;
            // Wrapping: every tap of every visited point lies inside its field, so the true
            // offsets fit and the wrapped values equal them.
            let along = |axes: core::ops::Range<usize>| {
                axes.fold(0isize, |acc, a| acc.wrapping_add(tap.offset[a].wrapping_mul(strides[a])))
            };
            (deltas[k], rows[k]) = (along(0..N), along(0..N.saturating_sub(1)));
        }
        // SAFETY: the trait's contract is the kernel's.
        unsafe { Isa::detect().run(ExprSweep::<S, T, N> { operands, deltas, rows, params }) };
        Ok(())
    }

    unsafe fn expression_data<T: Scalar, const N: usize>(
        _: &Cpu,
        data: &ExprData<N>,
        outputs: &[Desc<Cpu, T, N>],
        fields: &[Desc<Cpu, T, N>],
        params: &[T],
    ) -> Result<()> {
        // SAFETY: the trait's contract is the interpreter's.
        unsafe { super::interpret::expression_data(data, outputs, fields, params) }
    }
}

#[cfg(test)]
mod tests {
    use super::{rows_of, Tap};

    #[test]
    fn taps_of_one_row_of_one_field_share_the_first_ones_row() {
        let tap = |field, offset| Tap::<3> { field, offset };
        // A star's centre row, two more rows of its field, the same offsets in another field.
        let taps = [
            tap(0, [0, 0, 0]),
            tap(0, [0, 0, -1]),
            tap(0, [0, 1, 0]),
            tap(0, [-1, 0, 0]),
            tap(0, [0, 0, 2]),
            tap(1, [0, 0, 1]),
            tap(0, [0, 1, 3]),
            tap(1, [0, 0, 0]),
            tap(0, [1, 0, 0]),
        ];
        let rows = rows_of(&taps);
        assert_eq!(&rows[..taps.len()], &[0, 0, 2, 3, 0, 5, 2, 5, 8]);
        assert!(rows[taps.len()..].iter().enumerate().all(|(k, &r)| r == taps.len() + k), "the rest map to themselves");
        // Rank 1: one row per field.
        let line = [Tap::<1> { field: 0, offset: [-1] }, Tap { field: 1, offset: [0] }, Tap { field: 0, offset: [1] }];
        assert_eq!(&rows_of(&line)[..3], &[0, 1, 0]);
    }
}
