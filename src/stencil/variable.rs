//! Variable-coefficient stencils known at run time: `out[x] = sum_k c_k[x] * in[x + offset_k]`,
//! one coefficient field per tap, read at the output's point (a conductivity, a metric term, a
//! mask). On a backend with a one-pass kernel (the CPU) the fields stream once per sweep;
//! elsewhere the generic algorithm composes the sum from elementwise products and sums, with the
//! same roundings, so every backend gives the same bits.
//!
//! ```
//! use cnda::prelude::*;
//! use cnda::stencil::VariableStencil;
//!
//! // A 1D flux difference with a conductivity per face: k(x) u(x-1) + k(x) u(x+1) - 2 k(x) u(x).
//! let u = Array::from_fn([8], |[i]| (i * i) as f64);
//! let k = Array::from_fn([8], |[i]| 1.0 + i as f64);
//! let minus_two_k = Array::from_fn([8], |[i]| -2.0 * (1.0 + i as f64));
//! let flux = VariableStencil::new([[-1], [1], [0]]);
//! let mut v = Array::<f64, 1>::zeros([8]);
//! flux.apply(&u, &[&k, &k, &minus_two_k], &mut v);
//! assert_eq!(v[[3]], 2.0 * 4.0); // k(3) times the second difference of i^2
//! ```

use smallvec::SmallVec;

use super::boundary::Boundaries;
use super::buffer::DoubleBuffer;
use super::dynamic::radius_of;
use super::fused::{run_steps, run_steps_between, Sweep};
use super::region::{orient, Interior};
use crate::array::Array;
use crate::element::Numeric;
use crate::error::{or_panic, Error, Result};
use crate::kernel::tokens::{Add, Mul};
use crate::kernel::{CopyKernels, Desc, ElementwiseKernels, StencilKernels};
use crate::ops::operand::{AsOperand, AsOperandMut};

/// Descriptors of the coefficient fields of one call (most stencils have a handful of taps).
pub(super) type Fields<B, T, const N: usize> = SmallVec<[Desc<B, T, N>; 9]>;

/// Up to [`MAX_TAPS`](super::MAX_TAPS) tap offsets on a rank-`N` grid, each weighted at every
/// point by its own coefficient field: `out[x] = sum_k c_k[x] * in[x + offset_k]`, summed in tap
/// order from the first product.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VariableStencil<const N: usize> {
    offsets: Vec<[isize; N]>,
    radius: [usize; N],
}

impl<const N: usize> VariableStencil<N> {
    /// A stencil of the given tap offsets, summed in this order.
    ///
    /// # Panics
    ///
    /// As [`VariableStencil::try_new`] errs.
    #[track_caller]
    pub fn new(offsets: impl IntoIterator<Item = [isize; N]>) -> Self {
        or_panic(Self::try_new(offsets))
    }

    /// A stencil of the given tap offsets.
    ///
    /// # Errors
    ///
    /// `Error::Layout` for no tap, more than [`MAX_TAPS`](super::MAX_TAPS), or an offset past
    /// [`MAX_RADIUS`](super::MAX_RADIUS).
    pub fn try_new(offsets: impl IntoIterator<Item = [isize; N]>) -> Result<Self> {
        let offsets: Vec<[isize; N]> = offsets.into_iter().collect();
        let radius = radius_of("VariableStencil::new", &offsets)?;
        Ok(VariableStencil { offsets, radius })
    }

    /// The tap offsets, in summation order.
    pub fn offsets(&self) -> &[[isize; N]] {
        &self.offsets
    }

    /// The radius along each axis.
    pub fn radius(&self) -> [usize; N] {
        self.radius
    }

    /// `output[x] = sum_k coefficients[k][x] * input[x + offset_k]` for every interior point;
    /// the other points are left alone. One coefficient field per tap, each of the input's shape.
    ///
    /// # Panics
    ///
    /// As [`VariableStencil::try_apply`] errs.
    #[track_caller]
    pub fn apply<T: Numeric, B: StencilKernels + ElementwiseKernels>(
        &self,
        input: impl AsOperand<T, N, B>,
        coefficients: &[impl AsOperand<T, N, B>],
        output: impl AsOperandMut<T, N, B>,
    ) {
        or_panic(self.try_apply(input, coefficients, output))
    }

    /// The interior sweep of [`VariableStencil::apply`].
    ///
    /// # Errors
    ///
    /// `Error::Layout` when the coefficient fields are not one per tap; `Error::ShapeMismatch`;
    /// `Error::DeviceMismatch`; `Error::Limit`; `Error::Alloc` or `Error::Device` from the
    /// composed form's scratch field or kernels.
    pub fn try_apply<T: Numeric, B: StencilKernels + ElementwiseKernels>(
        &self,
        input: impl AsOperand<T, N, B>,
        coefficients: &[impl AsOperand<T, N, B>],
        mut output: impl AsOperandMut<T, N, B>,
    ) -> Result<()> {
        let fields = self.fields("VariableStencil::apply", coefficients)?;
        let (input, out) = (input.operand_desc(), output.operand_desc_mut());
        let Some(interior) = Interior::of("VariableStencil::apply", self.radius, &input, &out, &fields)? else {
            return Ok(());
        };
        let fields: Fields<B, T, N> = fields.iter().map(|&c| interior.narrow(c)).collect();
        // SAFETY: the interior keeps every tap inside the input and every field is of the
        // output's shape; the output is borrowed uniquely and the others shared.
        unsafe {
            varying(&B::handle_device(out.handle), interior.narrow(out), interior.narrow(input), &self.offsets, &fields)
        }
    }

    /// [`VariableStencil::apply`] on CPU views with the interior split over rayon's threads in
    /// bands of the first axis.
    ///
    /// # Panics
    ///
    /// As [`VariableStencil::try_apply`] errs.
    #[cfg(feature = "rayon")]
    #[track_caller]
    pub fn par_apply<T: Numeric + Send + Sync>(
        &self,
        input: impl AsOperand<T, N>,
        coefficients: &[impl AsOperand<T, N>],
        output: impl AsOperandMut<T, N>,
    ) {
        or_panic(self.try_par_apply(input, coefficients, output))
    }

    /// [`VariableStencil::par_apply`], returning errors.
    ///
    /// # Errors
    ///
    /// As [`VariableStencil::try_apply`].
    #[cfg(feature = "rayon")]
    pub fn try_par_apply<T: Numeric + Send + Sync>(
        &self,
        input: impl AsOperand<T, N>,
        coefficients: &[impl AsOperand<T, N>],
        mut output: impl AsOperandMut<T, N>,
    ) -> Result<()> {
        use super::region::{band, par_bands, sweep_bytes};
        use crate::kernel::host::HostEngine;
        use crate::kernel::{Cpu, SharedDesc};
        let fields = self.fields("VariableStencil::par_apply", coefficients)?;
        let (input, out) = (input.operand_desc(), output.operand_desc_mut());
        let Some(interior) = Interior::of("VariableStencil::par_apply", self.radius, &input, &out, &fields)? else {
            return Ok(());
        };
        let (out, input) = (SharedDesc(interior.narrow(out)), SharedDesc(interior.narrow(input)));
        let fields: SmallVec<[SharedDesc<T, N>; 9]> = fields.iter().map(|&c| SharedDesc(interior.narrow(c))).collect();
        if N == 0 {
            let fields: Fields<Cpu, T, N> = fields.iter().map(|c| c.0).collect();
            // SAFETY: as in `try_apply`.
            return unsafe { varying(&Cpu, out.0, input.0, &self.offsets, &fields) };
        }
        let whole = sweep_bytes(&out.0);
        par_bands(out.0.shape[0], |rows| {
            let (out, input, fields) = (&out, &input, &fields);
            let fields: Fields<Cpu, T, N> = fields.iter().map(|c| band(c.0, rows.clone())).collect();
            let (out, input, offsets, fields) =
                oriented(band(out.0, rows.clone()), band(input.0, rows), &self.offsets, &fields);
            // SAFETY: as in `try_apply`; bands of the first axis are disjoint, so no output
            // element is written by two tasks.
            unsafe { Cpu::varying_in_sweep(out, input, &offsets, &fields, whole) }
        })
    }

    /// `steps` sweeps over `field` with the same coefficient fields every sweep and `boundaries`
    /// at each side of each axis, bit for bit as `steps` times refilling the halos, `apply` and
    /// `swap`, and a last refill (see [`LinearStencil::apply_steps_with`](super::LinearStencil::apply_steps_with)):
    /// fused into one pass over memory on the CPU, one call per sweep on devices.
    ///
    /// # Panics
    ///
    /// As [`VariableStencil::try_apply_steps_with`] errs.
    #[track_caller]
    pub fn apply_steps_with<T: Numeric, B: StencilKernels + ElementwiseKernels + CopyKernels>(
        &self,
        field: &mut DoubleBuffer<T, N, B>,
        steps: usize,
        coefficients: &[impl AsOperand<T, N, B>],
        boundaries: impl Into<Boundaries<T, N>>,
    ) {
        or_panic(self.try_apply_steps_with(field, steps, coefficients, boundaries))
    }

    /// [`VariableStencil::apply_steps_with`], returning errors.
    ///
    /// # Errors
    ///
    /// As [`VariableStencil::try_apply`] and
    /// [`LinearStencil::try_apply_steps_with`](super::LinearStencil::try_apply_steps_with).
    pub fn try_apply_steps_with<T: Numeric, B: StencilKernels + ElementwiseKernels + CopyKernels>(
        &self,
        field: &mut DoubleBuffer<T, N, B>,
        steps: usize,
        coefficients: &[impl AsOperand<T, N, B>],
        boundaries: impl Into<Boundaries<T, N>>,
    ) -> Result<()> {
        const OP: &str = "VariableStencil::apply_steps";
        let sweep = self.sweep_for(OP, &field.current().desc(), coefficients)?;
        // SAFETY: `run_steps` hands over the plan of two distinct fields, borrowed uniquely.
        run_steps(OP, &sweep, field, steps, &[boundaries.into()], None, |plan| unsafe { plan.run_sequential() })
    }

    /// [`VariableStencil::apply_steps_with`] on rayon's threads; the same result, bit for bit.
    ///
    /// # Panics
    ///
    /// As [`VariableStencil::try_par_apply_steps_with`] errs.
    #[cfg(feature = "rayon")]
    #[track_caller]
    pub fn par_apply_steps_with<T: Numeric + Send + Sync>(
        &self,
        field: &mut DoubleBuffer<T, N>,
        steps: usize,
        coefficients: &[impl AsOperand<T, N>],
        boundaries: impl Into<Boundaries<T, N>>,
    ) {
        or_panic(self.try_par_apply_steps_with(field, steps, coefficients, boundaries))
    }

    /// [`VariableStencil::par_apply_steps_with`], returning errors.
    ///
    /// # Errors
    ///
    /// As [`VariableStencil::try_apply_steps_with`].
    #[cfg(feature = "rayon")]
    pub fn try_par_apply_steps_with<T: Numeric + Send + Sync>(
        &self,
        field: &mut DoubleBuffer<T, N>,
        steps: usize,
        coefficients: &[impl AsOperand<T, N>],
        boundaries: impl Into<Boundaries<T, N>>,
    ) -> Result<()> {
        const OP: &str = "VariableStencil::par_apply_steps";
        let sweep = self.sweep_for(OP, &field.current().desc(), coefficients)?;
        // SAFETY: `run_steps` hands over the plan of two distinct fields, borrowed uniquely.
        run_steps(OP, &sweep, field, steps, &[boundaries.into()], None, |plan| unsafe {
            super::fused::run_parallel(plan)
        })
    }

    /// `steps` sweeps alternating between two fields lent as views or arrays, without a
    /// [`DoubleBuffer`], as [`DynStencil::apply_steps_between`](super::DynStencil::apply_steps_between):
    /// `first` holds sweep 0, sweep `steps` ends in `first` when `steps` is even, in `second`
    /// when odd.
    ///
    /// # Panics
    ///
    /// As [`VariableStencil::try_apply_steps_between`] errs.
    #[track_caller]
    pub fn apply_steps_between<T: Numeric, B: StencilKernels + ElementwiseKernels + CopyKernels>(
        &self,
        first: impl AsOperandMut<T, N, B>,
        second: impl AsOperandMut<T, N, B>,
        steps: usize,
        coefficients: &[impl AsOperand<T, N, B>],
        boundaries: impl Into<Boundaries<T, N>>,
    ) {
        or_panic(self.try_apply_steps_between(first, second, steps, coefficients, boundaries))
    }

    /// [`VariableStencil::apply_steps_between`], returning errors.
    ///
    /// # Errors
    ///
    /// As [`VariableStencil::try_apply_steps_with`].
    pub fn try_apply_steps_between<T: Numeric, B: StencilKernels + ElementwiseKernels + CopyKernels>(
        &self,
        mut first: impl AsOperandMut<T, N, B>,
        mut second: impl AsOperandMut<T, N, B>,
        steps: usize,
        coefficients: &[impl AsOperand<T, N, B>],
        boundaries: impl Into<Boundaries<T, N>>,
    ) -> Result<()> {
        const OP: &str = "VariableStencil::apply_steps";
        let fields = [first.operand_desc_mut(), second.operand_desc_mut()];
        let sweep = self.sweep_for(OP, &fields[0], coefficients)?;
        // SAFETY: two uniquely borrowed operands (so distinct elements), borrowed for the call;
        // the plan it hands over is of those two fields.
        unsafe { run_steps_between(OP, &sweep, fields, steps, boundaries.into(), |plan| plan.run_sequential()) }
    }

    /// [`VariableStencil::apply_steps_between`] on rayon's threads; the same result, bit for bit.
    ///
    /// # Panics
    ///
    /// As [`VariableStencil::try_par_apply_steps_between`] errs.
    #[cfg(feature = "rayon")]
    #[track_caller]
    pub fn par_apply_steps_between<T: Numeric + Send + Sync>(
        &self,
        first: impl AsOperandMut<T, N>,
        second: impl AsOperandMut<T, N>,
        steps: usize,
        coefficients: &[impl AsOperand<T, N>],
        boundaries: impl Into<Boundaries<T, N>>,
    ) {
        or_panic(self.try_par_apply_steps_between(first, second, steps, coefficients, boundaries))
    }

    /// [`VariableStencil::par_apply_steps_between`], returning errors.
    ///
    /// # Errors
    ///
    /// As [`VariableStencil::try_apply_steps_with`].
    #[cfg(feature = "rayon")]
    pub fn try_par_apply_steps_between<T: Numeric + Send + Sync>(
        &self,
        mut first: impl AsOperandMut<T, N>,
        mut second: impl AsOperandMut<T, N>,
        steps: usize,
        coefficients: &[impl AsOperand<T, N>],
        boundaries: impl Into<Boundaries<T, N>>,
    ) -> Result<()> {
        const OP: &str = "VariableStencil::par_apply_steps";
        let fields = [first.operand_desc_mut(), second.operand_desc_mut()];
        let sweep = self.sweep_for(OP, &fields[0], coefficients)?;
        // SAFETY: as in `try_apply_steps_between`.
        unsafe {
            run_steps_between(OP, &sweep, fields, steps, boundaries.into(), |plan| super::fused::run_parallel(plan))
        }
    }

    /// The coefficient fields' descriptors, after checking there is one per tap.
    pub(super) fn fields<T: Numeric, B: StencilKernels + ElementwiseKernels>(
        &self,
        op: &'static str,
        coefficients: &[impl AsOperand<T, N, B>],
    ) -> Result<Fields<B, T, N>> {
        if coefficients.len() != self.offsets.len() {
            return Err(Error::Layout {
                op,
                reason: format!(
                    "{} coefficient fields for a stencil of {} taps",
                    coefficients.len(),
                    self.offsets.len()
                ),
                fix: "give one coefficient field per tap, in the taps' order",
            });
        }
        Ok(coefficients.iter().map(|c| c.operand_desc()).collect())
    }

    /// The time stepper's sweep, after checking the coefficient fields against the field's
    /// shape and device.
    fn sweep_for<'s, T: Numeric, B: StencilKernels + ElementwiseKernels>(
        &'s self,
        op: &'static str,
        current: &Desc<B, T, N>,
        coefficients: &[impl AsOperand<T, N, B>],
    ) -> Result<VaryingSweep<'s, B, T, N>> {
        let fields = self.fields(op, coefficients)?;
        Interior::of(op, [0; N], current, current, &fields)?;
        Ok(VaryingSweep { offsets: &self.offsets, fields, radius: self.radius })
    }
}

/// `out`, `input`, the offsets and the fields with their axes in the order the kernels walk
/// fastest (`orient`).
#[allow(clippy::type_complexity)]
fn oriented<T: Numeric, B: StencilKernels, const N: usize>(
    out: Desc<B, T, N>,
    input: Desc<B, T, N>,
    offsets: &[[isize; N]],
    fields: &[Desc<B, T, N>],
) -> (Desc<B, T, N>, Desc<B, T, N>, SmallVec<[[isize; N]; 9]>, Fields<B, T, N>) {
    let (order, [out, input]) = orient([out, input]);
    let offsets = offsets.iter().map(|o| order.map(|a| o[a])).collect();
    let fields = fields
        .iter()
        .map(|c| Desc { handle: c.handle, shape: out.shape, strides: order.map(|a| c.strides[a]) })
        .collect();
    (out, input, offsets, fields)
}

/// The sweep over `out`, by the backend's one-pass kernel where it has one, else composed: the
/// first product into `out`, then each further product into a scratch field and added, with
/// the kernel's roundings (one product, one sum per tap, in tap order).
///
/// # Safety
///
/// As for `StencilKernels::varying`, with at least one offset (a `VariableStencil` has one).
pub(super) unsafe fn varying<T: Numeric, B: StencilKernels + ElementwiseKernels, const N: usize>(
    dev: &B::Device,
    out: Desc<B, T, N>,
    input: Desc<B, T, N>,
    offsets: &[[isize; N]],
    fields: &[Desc<B, T, N>],
) -> Result<()> {
    let (out, input, offsets, fields) = oriented(out, input, offsets, fields);
    // SAFETY: the caller's contract is the kernel's.
    if unsafe { B::varying(dev, out, input, &offsets, &fields) }? {
        return Ok(());
    }
    let tap = |o: &[isize; N]| {
        let delta = (0..N).fold(0isize, |acc, a| acc.wrapping_add(o[a].wrapping_mul(input.strides[a])));
        Desc { handle: B::moved(input.handle, delta), shape: out.shape, strides: input.strides }
    };
    // SAFETY: every tap's shifted input lies inside the input and each field covers the output's
    // points (the caller's contract); `out` and the scratch field overlap no input.
    unsafe {
        B::binary(dev, Mul, out, fields[0], tap(&offsets[0]))?;
        if offsets.len() > 1 {
            let mut product = Array::<T, N, B>::try_zeros_in(&B::allocator_of_handle(out.handle), out.shape)?;
            for (offset, &field) in offsets.iter().zip(fields.iter()).skip(1) {
                B::binary(dev, Mul, product.desc_mut(), field, tap(offset))?;
                B::update(dev, Add, out, product.desc())?;
            }
        }
    }
    Ok(())
}

/// A variable-coefficient stencil as a sweep of the time stepper: the coefficient fields are
/// whole fields, narrowed to each region the stepper sweeps.
struct VaryingSweep<'s, B: crate::kernel::Backend, T: Numeric, const N: usize> {
    offsets: &'s [[isize; N]],
    fields: Fields<B, T, N>,
    radius: [usize; N],
}

impl<B: StencilKernels + ElementwiseKernels, T: Numeric, const N: usize> Sweep<B, T, N> for VaryingSweep<'_, B, T, N> {
    fn radius(&self) -> [usize; N] {
        self.radius
    }

    fn wavefront(&self) -> bool {
        B::WAVEFRONT
    }

    fn coefficient_fields(&self) -> usize {
        self.offsets.len()
    }

    unsafe fn region(
        &self,
        dev: &B::Device,
        _stage: usize,
        outputs: &[Desc<B, T, N>],
        inputs: &[Desc<B, T, N>],
        start: [usize; N],
        shape: [usize; N],
    ) -> Result<()> {
        // One field at one level (a `DoubleBuffer`'s ring): one output, one input.
        debug_assert!(outputs.len() == 1 && inputs.len() == 1);
        let region = |d: Desc<B, T, N>| (0..N).fold(d, |d, k| d.narrowed(k, start[k], shape[k]));
        let fields: Fields<B, T, N> = self.fields.iter().map(|&c| region(c)).collect();
        // SAFETY: the caller's contract; the coefficient fields are shared borrows of the
        // field's shape (checked when the sweep was made), narrowed to the region.
        unsafe { varying(dev, outputs[0], inputs[0], self.offsets, &fields) }
    }
}
