//! The CPU's expression-stencil kernel (what `stencil!` stencils run on): the stencil's compiled
//! point function at every point of a lane walk over the outputs and the fields, each tap read
//! through a flat offset in its field's strides (computed once per call).

use super::lanes::Lane;
use super::simd::{Isa, Kernel};
use super::stencil::MAX_TAPS;
use crate::error::{Error, Result};
use crate::kernel::expr::{Scalar, Stencil, TapReader, Values, MAX_OUTPUTS};
use crate::kernel::{Cpu, Desc, ExprStencilKernels};

/// The most input fields of an expression stencil on the CPU (a wave with a source mask reads
/// five; a system of four fields with coefficients, eight).
const MAX_FIELDS: usize = 8;

/// The operands of one lane walk: the outputs, then the fields.
const OPERANDS: usize = MAX_OUTPUTS + MAX_FIELDS;

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

/// One call's expression sweep, as a SIMD-dispatched kernel over lanes of the outputs and the
/// fields. Safety (`Kernel::run`): as for `ExprStencilKernels::expression`.
struct ExprSweep<'p, S: Stencil<T, N>, T: Scalar, const N: usize> {
    /// Absent outputs and fields repeat the first (walked, never read or written).
    operands: [Desc<Cpu, T, N>; OPERANDS],
    deltas: [isize; MAX_TAPS],
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
        if steps.iter().all(|&step| step == 1) {
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
fn too_many(what: &'static str, got: usize, max: usize, fix: &'static str) -> Error {
    Error::Limit { op: "stencil apply", backend: "Cpu", what, got: got as u64, max: max as u64, fix }
}

// SAFETY: the lane walk visits every point of the outputs once and writes each output's value
// there, reading each tap through `Taps`, inside its field (the caller's contract).
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
        let mut deltas = [0isize; MAX_TAPS];
        for (k, tap) in S::TAPS.iter().enumerate() {
            let strides = operands[MAX_OUTPUTS + tap.field.min(MAX_FIELDS - 1)].strides;
            // Wrapping: every tap of every visited point lies inside its field, so the true
            // offset fits and the wrapped value equals it.
            deltas[k] = (0..N).fold(0isize, |acc, a| acc.wrapping_add(tap.offset[a].wrapping_mul(strides[a])));
        }
        // SAFETY: the trait's contract is the kernel's.
        unsafe { Isa::detect().run(ExprSweep::<S, T, N> { operands, deltas, params }) };
        Ok(())
    }
}
