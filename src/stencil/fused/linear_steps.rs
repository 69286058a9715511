//! `LinearStencil`'s time steps on one thread: its taps as a [`Sweep`] of the fused engine.

use super::{run_steps, Sweep};
use crate::element::Numeric;
use crate::error::{or_panic, Result};
use crate::kernel::{CopyKernels, Desc, StencilKernels};
use crate::stencil::boundary::Boundaries;
use crate::stencil::buffer::DoubleBuffer;
use crate::stencil::linear::LinearStencil;

/// A `LinearStencil`'s taps as a sweep.
pub(super) struct LinearSweep<'t, T, const N: usize, const K: usize> {
    pub(super) taps: &'t [([isize; N], T); K],
    pub(super) radius: usize,
}

impl<B: StencilKernels, T: Numeric, const N: usize, const K: usize> Sweep<B, T, N> for LinearSweep<'_, T, N, K> {
    fn radius(&self) -> [usize; N] {
        [self.radius; N]
    }

    fn wavefront(&self) -> bool {
        B::WAVEFRONT
    }

    unsafe fn region(
        &self,
        dev: &B::Device,
        _stage: usize,
        outputs: &[Desc<B, T, N>],
        inputs: &[Desc<B, T, N>],
        _: [usize; N],
        _: [usize; N],
    ) -> Result<()> {
        // One field at one level (a `DoubleBuffer`'s ring): one output, one input.
        debug_assert!(outputs.len() == 1 && inputs.len() == 1);
        // SAFETY: the caller's contract is the kernel's.
        unsafe { B::linear(dev, outputs[0], inputs[0], self.taps) }
    }
}

impl<T: Numeric, const N: usize, const R: usize, const K: usize> LinearStencil<T, N, R, K> {
    /// `steps` sweeps over `field`, each reading the current field and writing the next one, then
    /// swapping them: the same result, bit for bit, as `steps` times
    /// `self.apply(current, next); field.swap()`, on any backend (fused into one pass over
    /// memory on the CPU, see the module documentation). The boundary (points within `R` of an
    /// edge) is never written, so each field keeps the boundary values it had.
    ///
    /// ```
    /// use cnda::prelude::*;
    /// use cnda::stencil::{DoubleBuffer, LinearStencil};
    ///
    /// let hot_top = |[i, _]: [usize; 2]| if i == 0 { 1.0 } else { 0.0 };
    /// let jacobi = LinearStencil::jacobi_5pt();
    /// let mut fused = DoubleBuffer::new(Array::from_fn([64, 64], hot_top));
    /// jacobi.apply_steps(&mut fused, 8);
    /// let mut one_by_one = DoubleBuffer::new(Array::from_fn([64, 64], hot_top));
    /// for _ in 0..8 {
    ///     let (u, v) = one_by_one.split();
    ///     jacobi.apply(u, v);
    ///     one_by_one.swap();
    /// }
    /// assert_eq!(fused.current(), one_by_one.current());
    /// ```
    ///
    /// # Panics
    ///
    /// As [`LinearStencil::try_apply_steps`] errs (never for a `DoubleBuffer` and a step count
    /// below about `usize::MAX / R`).
    #[track_caller]
    pub fn apply_steps<B: StencilKernels + CopyKernels>(&self, field: &mut DoubleBuffer<T, N, B>, steps: usize) {
        or_panic(self.try_apply_steps(field, steps))
    }

    /// `steps` sweeps over `field`; see [`LinearStencil::apply_steps`].
    ///
    /// # Errors
    ///
    /// `Error::ShapeMismatch` when the fields' shapes differ; `Error::Decomposition` when `steps`
    /// is so large that the skewed wavefront's step count (the interior's end along axis 0 plus
    /// `steps` times the radius, at least 1) overflows `usize`: such a call could never finish, so
    /// it is refused at once rather than left to run with a wrapped count; `Error::Device` from
    /// a kernel.
    pub fn try_apply_steps<B: StencilKernels + CopyKernels>(
        &self,
        field: &mut DoubleBuffer<T, N, B>,
        steps: usize,
    ) -> Result<()> {
        self.try_apply_steps_with(field, steps, Boundaries::all(crate::stencil::Boundary::Fixed))
    }

    /// `steps` sweeps over `field` with a [`Boundary`](crate::stencil::Boundary) at each side of each
    /// axis (one per axis, or [`Boundaries`] per side). Bit for bit the same as, `steps` times,
    /// refilling the current field's halos as the boundaries say (axis by axis, as
    /// [`fill_halo`](crate::stencil::fill_halo) with width `R`), `apply`, `swap`, and a last refill: both
    /// fields end with consistent halos.
    ///
    /// ```
    /// use cnda::prelude::*;
    /// use cnda::stencil::{pad, Boundary, DoubleBuffer, LinearStencil, PadMode};
    ///
    /// // A 16 x 16 torus with a halo of 1 (the radius) on both axes.
    /// let torus = Array::from_fn([16, 16], |[i, j]| ((3 * i + 5 * j) % 7) as f64);
    /// let mut field = DoubleBuffer::new(pad(torus.view(), 1, PadMode::Periodic));
    /// let jacobi = LinearStencil::jacobi_5pt();
    /// jacobi.apply_steps_with(&mut field, 6, [Boundary::Periodic; 2]);
    /// // Averaging on a torus keeps the mean.
    /// let mean = |a: &Array<f64, 2>| a.slice(s![1..17, 1..17]).sum() / 256.0;
    /// assert!((mean(field.current()) - mean(&pad(torus.view(), 1, PadMode::Periodic))).abs() < 1e-12);
    /// ```
    ///
    /// # Panics
    ///
    /// As [`LinearStencil::try_apply_steps_with`] errs.
    #[track_caller]
    pub fn apply_steps_with<B: StencilKernels + CopyKernels>(
        &self,
        field: &mut DoubleBuffer<T, N, B>,
        steps: usize,
        boundaries: impl Into<Boundaries<T, N>>,
    ) {
        or_panic(self.try_apply_steps_with(field, steps, boundaries))
    }

    /// [`LinearStencil::apply_steps_with`], returning errors.
    ///
    /// # Errors
    ///
    /// As [`LinearStencil::try_apply_steps`]; `Error::Layout` for an axis periodic on one side
    /// only.
    pub fn try_apply_steps_with<B: StencilKernels + CopyKernels>(
        &self,
        field: &mut DoubleBuffer<T, N, B>,
        steps: usize,
        boundaries: impl Into<Boundaries<T, N>>,
    ) -> Result<()> {
        let sweep = LinearSweep { taps: self.taps(), radius: R };
        // SAFETY: `run_steps` hands over the plan of two distinct fields, borrowed uniquely.
        run_steps("LinearStencil::apply_steps", &sweep, field, steps, &[boundaries.into()], None, |plan| unsafe {
            plan.run_sequential()
        })
    }
}
