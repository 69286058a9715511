//! Stencils read from text at run time ([`TextStencil`], feature `text`): the language of
//! `stencil!`, parsed and checked by the macro's own code (`cnda-lang`), held as expression data,
//! and run by each backend's kernel for data (`ExprStencilKernels::expression_data`: the CPU
//! interprets the nodes over blocks of points, CUDA and WebGPU generate and compile code at first
//! use, cached by the expression) through the same generic algorithms as `stencil!` stencils:
//! the interior sweep, and the one time stepper (fused on the CPU) with boundaries, sources and
//! receivers.

mod parse;

use smallvec::SmallVec;

use super::apply::{apply_interior, Expects};
use super::boundary::{Boundaries, Boundary, StepBoundaries};
use super::state::State;
use super::steps::{step_state, ExprKernel, KernelSweep};
use crate::error::{or_panic, Error, Result};
use crate::kernel::expr::{CheckedExpr, ExprData, Scalar, Tap};
use crate::kernel::{Backend, CopyKernels, Desc, ExprStencilKernels};
use crate::ops::operand::{AsOperand, AsOperandMut};

/// A stencil read from text at run time: the language of [`stencil!`](crate::stencil!) (fields at
/// integer offsets, parameters, several outputs, `#[levels(L)]`, `let`, `select`, the math
/// functions and the finite-difference operators), with its checks and messages, over `N` axes.
/// For models that come from a configuration file or from Python; the values equal those of
/// `stencil!` given the same text, bit for bit (the same operations in the same order).
///
/// ```
/// use cnda::prelude::*;
/// use cnda::stencil::TextStencil;
///
/// let heat = TextStencil::<2>::parse("|u; dt| u[0, 0] + dt * (u[-1, 0] + u[1, 0] + u[0, -1] + u[0, 1] - 4.0 * u[0, 0])");
/// let u = Array::from_fn([8, 8], |[i, j]| (i * 8 + j) as f64);
/// let mut out = Array::zeros([8, 8]);
/// heat.apply(&[&u], &mut [&mut out], &[0.1]);
/// assert_eq!(out[[3, 3]], u[[3, 3]]); // a linear field is its own Laplacian's fixed point
/// ```
///
/// Not read at run time yet: the item form (`struct Name = ...`), `#[writes(..)]` stages and
/// `#[compute(..)]`; each is refused with a message.
#[derive(Clone, Debug)]
pub struct TextStencil<const N: usize> {
    fields: Vec<String>,
    params: Vec<String>,
    levels: usize,
    elem: Option<crate::element::DType>,
    data: ExprData<N>,
    radius: [usize; N],
    source: String,
}

impl<const N: usize> TextStencil<N> {
    /// The stencil `text` defines, over `N` axes.
    ///
    /// # Panics
    ///
    /// As [`TextStencil::try_parse`] errs, with its message.
    #[track_caller]
    pub fn parse(text: &str) -> Self {
        or_panic(Self::try_parse(text))
    }

    /// [`TextStencil::parse`], returning errors.
    ///
    /// # Errors
    ///
    /// `Error::Syntax` (line, column, `stencil!`'s message, and the line with a caret under the
    /// offending token) for text `stencil!` would refuse, or that run-time stencils do not take;
    /// `Error::Layout` when its offsets have another count than `N`.
    pub fn try_parse(text: &str) -> Result<Self> {
        let parsed = parse::parse(text)?;
        if parsed.rank != N {
            return Err(Error::Layout {
                op: "TextStencil::parse",
                reason: format!(
                    "the text reads its fields at {} offsets per point; a TextStencil<{N}> has {N} axes",
                    parsed.rank
                ),
                fix: "read it as a TextStencil of as many axes as its offsets, or give one offset per axis",
            });
        }
        let taps: Vec<Tap<N>> = parse::taps(&parsed);
        // The language's checks passed, so the data is consistent; what `check` may still refuse
        // is its size.
        let expr = CheckedExpr::from_outputs(
            "TextStencil::parse",
            parsed.fields.len(),
            parsed.params.len(),
            taps,
            parsed.nodes,
            parsed.values,
        )
        .map_err(|e| match e {
            Error::Layout { op, reason, .. } => Error::Layout {
                op,
                reason,
                fix: "split the stencil into stages, or name repeated subexpressions with `let` (each computed once)",
            },
            other => other,
        })?;
        let radius = crate::kernel::expr::radius_of(expr.taps());
        Ok(TextStencil {
            fields: parsed.fields,
            params: parsed.params,
            levels: parsed.levels,
            elem: parsed.elem,
            data: ExprData::new(expr),
            radius,
            source: text.to_string(),
        })
    }

    /// The input fields' names, in order.
    pub fn fields(&self) -> &[String] {
        &self.fields
    }

    /// The parameters' names, in order.
    pub fn params(&self) -> &[String] {
        &self.params
    }

    /// The number of values (outputs) it computes at each point.
    pub fn outputs(&self) -> usize {
        self.data.expr().outputs()
    }

    /// The time levels it reads of each field it evolves (`#[levels(L)]`; 1 without).
    pub fn levels(&self) -> usize {
        self.levels
    }

    /// The largest offset along each axis.
    pub fn radius(&self) -> [usize; N] {
        self.radius
    }

    /// The text it was read from.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The checked expression data (what every backend runs).
    pub fn expr(&self) -> &CheckedExpr<N> {
        self.data.expr()
    }

    /// `outputs[m][x]` = value `m` at `x` for every interior point `x` (at least the radius from
    /// every edge, per axis); the other points are left alone. One field per name, one output
    /// per value, all of one shape on one backend; `params` one value per parameter, in order.
    ///
    /// # Panics
    ///
    /// As [`TextStencil::try_apply`] errs.
    #[track_caller]
    pub fn apply<T: Scalar, B: ExprStencilKernels>(
        &self,
        fields: &[impl AsOperand<T, N, B>],
        outputs: &mut [impl AsOperandMut<T, N, B>],
        params: &[T],
    ) {
        or_panic(self.try_apply(fields, outputs, params))
    }

    /// [`TextStencil::apply`], returning errors.
    ///
    /// # Errors
    ///
    /// `Error::Layout` for counts of fields, outputs or parameters other than the stencil's;
    /// `Error::DType` for a stencil that names a concrete type other than `T`;
    /// `Error::ShapeMismatch`; `Error::DeviceMismatch`; `Error::Device` from a device;
    /// `Error::Limit` past a kernel's limits (as `stencil!`'s).
    pub fn try_apply<T: Scalar, B: ExprStencilKernels>(
        &self,
        fields: &[impl AsOperand<T, N, B>],
        outputs: &mut [impl AsOperandMut<T, N, B>],
        params: &[T],
    ) -> Result<()> {
        let (fields, outputs) = self.operands(fields, outputs, params)?;
        // SAFETY: `apply_interior` hands over the interior regions of the borrowed operands,
        // which satisfy the kernel's contract for this expression's counts and radius.
        apply_interior(&outputs, &fields, &self.expects(), |dev, outputs, fields| unsafe {
            B::expression_data::<T, N>(dev, &self.data, outputs, fields, params)
        })
    }

    /// [`TextStencil::apply`] on the CPU with rayon's threads (bands of the first axis); the same
    /// result, bit for bit.
    ///
    /// # Panics
    ///
    /// As [`TextStencil::try_par_apply`] errs.
    #[cfg(feature = "rayon")]
    #[track_caller]
    pub fn par_apply<T: Scalar>(
        &self,
        fields: &[impl AsOperand<T, N, crate::kernel::Cpu>],
        outputs: &mut [impl AsOperandMut<T, N, crate::kernel::Cpu>],
        params: &[T],
    ) {
        or_panic(self.try_par_apply(fields, outputs, params))
    }

    /// [`TextStencil::par_apply`], returning errors.
    ///
    /// # Errors
    ///
    /// As [`TextStencil::try_apply`].
    #[cfg(feature = "rayon")]
    pub fn try_par_apply<T: Scalar>(
        &self,
        fields: &[impl AsOperand<T, N, crate::kernel::Cpu>],
        outputs: &mut [impl AsOperandMut<T, N, crate::kernel::Cpu>],
        params: &[T],
    ) -> Result<()> {
        use crate::kernel::Cpu;
        let (fields, outputs) = self.operands(fields, outputs, params)?;
        // SAFETY: as in `try_apply`, for each band.
        super::apply::par_apply_interior(&outputs, &fields, &self.expects(), |outputs, fields| unsafe {
            Cpu::expression_data::<T, N>(&Cpu, &self.data, outputs, fields, params)
        })
    }

    /// `steps` sweeps over `state` (the fields the stencil evolves, at its levels), each reading
    /// the current levels and writing the next, then rotating them, with `coefficients` (its
    /// fields after the levels; empty for none) read by every sweep: the stepper of
    /// [`StencilApply::apply_steps`](super::StencilApply::apply_steps), fused on the CPU, bit
    /// for bit the same as separate sweeps. The boundary is never written
    /// ([`TextStencil::apply_steps_with`] refills it between sweeps).
    ///
    /// # Panics
    ///
    /// As [`TextStencil::try_apply_steps`] errs.
    #[track_caller]
    pub fn apply_steps<T: Scalar, B: ExprStencilKernels + CopyKernels, const M: usize, const L: usize>(
        &self,
        state: &mut State<T, N, M, L, B>,
        steps: usize,
        coefficients: &[impl AsOperand<T, N, B>],
        params: &[T],
    ) {
        or_panic(self.try_apply_steps(state, steps, coefficients, params))
    }

    /// [`TextStencil::apply_steps`], returning errors.
    ///
    /// # Errors
    ///
    /// As [`TextStencil::try_apply_steps_with`].
    pub fn try_apply_steps<T: Scalar, B: ExprStencilKernels + CopyKernels, const M: usize, const L: usize>(
        &self,
        state: &mut State<T, N, M, L, B>,
        steps: usize,
        coefficients: &[impl AsOperand<T, N, B>],
        params: &[T],
    ) -> Result<()> {
        self.try_apply_steps_with(state, steps, coefficients, params, Boundaries::all(Boundary::Fixed))
    }

    /// [`TextStencil::apply_steps`] with a [`Boundary`] at each side of each axis, per field, or
    /// a [`PointIo`](super::PointIo) of sources and receivers, as
    /// [`StencilApply::apply_steps_with`](super::StencilApply::apply_steps_with).
    ///
    /// # Panics
    ///
    /// As [`TextStencil::try_apply_steps_with`] errs.
    #[track_caller]
    pub fn apply_steps_with<T: Scalar, B: ExprStencilKernels + CopyKernels, const M: usize, const L: usize>(
        &self,
        state: &mut State<T, N, M, L, B>,
        steps: usize,
        coefficients: &[impl AsOperand<T, N, B>],
        params: &[T],
        boundaries: impl StepBoundaries<T, N, M>,
    ) {
        or_panic(self.try_apply_steps_with(state, steps, coefficients, params, boundaries))
    }

    /// [`TextStencil::apply_steps_with`], returning errors.
    ///
    /// # Errors
    ///
    /// `Error::Layout` when the state has other counts of fields (`M`) or levels (`L`) than the
    /// stencil's values and `#[levels(..)]`, or for another count of coefficient fields or
    /// parameters; otherwise as
    /// [`StencilApply::try_apply_steps_with`](super::StencilApply::try_apply_steps_with).
    pub fn try_apply_steps_with<T: Scalar, B: ExprStencilKernels + CopyKernels, const M: usize, const L: usize>(
        &self,
        state: &mut State<T, N, M, L, B>,
        steps: usize,
        coefficients: &[impl AsOperand<T, N, B>],
        params: &[T],
        boundaries: impl StepBoundaries<T, N, M>,
    ) -> Result<()> {
        const OP: &str = "TextStencil apply_steps";
        let sweep = self.sweep(OP, state, coefficients, params)?;
        // SAFETY: `step_state` hands over the plan of the state's distinct arrays, borrowed uniquely.
        step_state(OP, &sweep, state, steps, boundaries, |plan| unsafe { plan.run_sequential() })
    }

    /// [`TextStencil::apply_steps_with`] on rayon's threads, as
    /// [`StencilApply::par_apply_steps_with`](super::StencilApply::par_apply_steps_with); the
    /// same result, bit for bit.
    ///
    /// # Panics
    ///
    /// As [`TextStencil::try_par_apply_steps_with`] errs.
    #[cfg(feature = "rayon")]
    #[track_caller]
    pub fn par_apply_steps_with<T: Scalar, const M: usize, const L: usize>(
        &self,
        state: &mut State<T, N, M, L>,
        steps: usize,
        coefficients: &[impl AsOperand<T, N>],
        params: &[T],
        boundaries: impl StepBoundaries<T, N, M>,
    ) {
        or_panic(self.try_par_apply_steps_with(state, steps, coefficients, params, boundaries))
    }

    /// [`TextStencil::par_apply_steps_with`], returning errors.
    ///
    /// # Errors
    ///
    /// As [`TextStencil::try_apply_steps_with`].
    #[cfg(feature = "rayon")]
    pub fn try_par_apply_steps_with<T: Scalar, const M: usize, const L: usize>(
        &self,
        state: &mut State<T, N, M, L>,
        steps: usize,
        coefficients: &[impl AsOperand<T, N>],
        params: &[T],
        boundaries: impl StepBoundaries<T, N, M>,
    ) -> Result<()> {
        const OP: &str = "TextStencil par_apply_steps";
        let sweep = self.sweep(OP, state, coefficients, params)?;
        // SAFETY: as in `try_apply_steps_with`.
        step_state(OP, &sweep, state, steps, boundaries, |plan| unsafe { super::fused::run_parallel(plan) })
    }

    /// The sweep of the steppers over `state` after checking the parameters, the element type
    /// and the state's levels against the stencil's.
    fn sweep<'s, T: Scalar, B: ExprStencilKernels, const M: usize, const L: usize>(
        &'s self,
        op: &'static str,
        state: &State<T, N, M, L, B>,
        coefficients: &[impl AsOperand<T, N, B>],
        params: &'s [T],
    ) -> Result<KernelSweep<Data<'s, T, N>, B, T, N>> {
        self.check_params::<T>(op, params.len())?;
        if L != self.levels {
            return Err(Error::Layout {
                op,
                reason: format!("the stencil reads {} time levels; the state holds {L}", self.levels),
                fix: "step a State of as many levels as the stencil's `#[levels(..)]` (1 without)",
            });
        }
        let coefficients: SmallVec<[Desc<B, T, N>; 3]> = coefficients.iter().map(|c| c.operand_desc()).collect();
        let kernel = Data { stencil: self, params };
        let fix =
            "step a State of one field per value of the stencil, and pass its fields after the levels as coefficients";
        KernelSweep::with_kernel::<M, L>(op, state.first_desc(), state.halo(), coefficients, kernel, M, fix)
    }

    /// What `apply` expects of its operands.
    fn expects(&self) -> Expects<N> {
        let fix = "pass one field per name the stencil reads and one output per value it computes, in order";
        Expects::new(self.fields.len(), self.outputs(), self.data.expr().taps(), fix)
    }

    /// The operands' descriptors after checking the parameters and the element type.
    #[allow(clippy::type_complexity)]
    fn operands<T: Scalar, B: Backend>(
        &self,
        fields: &[impl AsOperand<T, N, B>],
        outputs: &mut [impl AsOperandMut<T, N, B>],
        params: &[T],
    ) -> Result<(SmallVec<[Desc<B, T, N>; 4]>, SmallVec<[Desc<B, T, N>; 4]>)> {
        self.check_params::<T>("TextStencil apply", params.len())?;
        Ok((
            fields.iter().map(|f| f.operand_desc()).collect(),
            outputs.iter_mut().map(|o| o.operand_desc_mut()).collect(),
        ))
    }

    /// Refuses another count of parameters, or an element type the text excludes.
    fn check_params<T: Scalar>(&self, op: &'static str, given: usize) -> Result<()> {
        if let Some(elem) = self.elem {
            if elem != T::DTYPE {
                return Err(Error::DType { op, expected: elem, got: T::DTYPE });
            }
        }
        if given != self.params.len() {
            return Err(Error::Layout {
                op,
                reason: format!(
                    "the stencil has {} parameters ({}); {given} values were passed",
                    self.params.len(),
                    self.params.join(", ")
                ),
                fix: "pass one value per parameter the stencil names, in its order",
            });
        }
        Ok(())
    }
}

/// A text stencil with its parameters, as a sweep's kernel.
struct Data<'s, T, const N: usize> {
    stencil: &'s TextStencil<N>,
    params: &'s [T],
}

impl<B: ExprStencilKernels, T: Scalar, const N: usize> ExprKernel<B, T, N> for Data<'_, T, N> {
    fn taps(&self) -> &[Tap<N>] {
        self.stencil.data.expr().taps()
    }

    fn field_name(&self, f: usize) -> &str {
        self.stencil.fields.get(f).map_or("?", String::as_str)
    }

    fn counts(&self) -> (usize, usize) {
        (self.stencil.fields.len(), self.stencil.outputs())
    }

    unsafe fn run(&self, dev: &B::Device, outputs: &[Desc<B, T, N>], fields: &[Desc<B, T, N>]) -> Result<()> {
        // SAFETY: the caller's contract.
        unsafe { B::expression_data::<T, N>(dev, &self.stencil.data, outputs, fields, self.params) }
    }

    unsafe fn all_steps(&self, _: &B::Device, _: [Desc<B, T, N>; 2], _: &[Desc<B, T, N>], _: usize) -> Result<bool> {
        Ok(false) // no time-tiled kernel for data yet: one call per sweep
    }
}
