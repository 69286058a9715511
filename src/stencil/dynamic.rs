//! Constant-coefficient stencils whose taps are known only at run time (read from a file, built
//! from a user's weight array, passed from Python): up to [`MAX_TAPS`] taps within
//! [`MAX_RADIUS`] on every axis, on grids of any rank. The same generic algorithm as
//! [`LinearStencil`](super::LinearStencil) (one interior, the backend's kernel, the one time
//! stepper), with a per-axis radius, so a stencil along one axis keeps every point of the others.
//!
//! ```
//! use cnda::prelude::*;
//! use cnda::stencil::{DynStencil, LinearStencil};
//!
//! // The 5-point Laplacian from a centred weight array, as a user might read it from a file.
//! let weights = Array::from_shape_vec([3, 3], vec![0.0, 1.0, 0.0, 1.0, -4.0, 1.0, 0.0, 1.0, 0.0]).unwrap();
//! let lap = DynStencil::from_weights(&weights);
//! assert_eq!(lap.radius(), [1, 1]);
//!
//! let u = Array::from_fn([6, 7], |[i, j]| (i * i + 3 * j) as f64);
//! let mut v = Array::<f64, 2>::zeros([6, 7]);
//! lap.apply(u.view(), v.view_mut());
//! assert_eq!(v[[2, 3]], 2.0); // d2/di2 of i^2
//! ```

use super::boundary::Boundaries;
use super::buffer::DoubleBuffer;
use super::fused::{run_steps, run_steps_between, run_steps_from, Sweep};
use super::linear::LinearStencil;
use super::region::{orient, Interior};
use crate::array::AsView;
use crate::element::Numeric;
use crate::error::{or_panic, Error, Result};
use crate::kernel::{CopyKernels, Desc, StencilKernels};
use crate::ops::operand::{AsOperand, AsOperandMut};

/// The most taps of a run-time stencil ([`DynStencil`], [`VariableStencil`](super::VariableStencil)).
pub const MAX_TAPS: usize = 64;

/// The largest offset of a run-time stencil's tap along any axis.
pub const MAX_RADIUS: usize = 8;

/// The radius along each axis of `offsets` (the largest offset magnitude), after checking that
/// there is at least one tap, at most [`MAX_TAPS`], each within [`MAX_RADIUS`].
///
/// # Errors
///
/// `Error::Layout` saying which limit is passed and by which tap.
pub(super) fn radius_of<const N: usize>(op: &'static str, offsets: &[[isize; N]]) -> Result<[usize; N]> {
    if offsets.is_empty() {
        return Err(Error::Layout {
            op,
            reason: "the stencil has no tap (or every weight is zero)".into(),
            fix: "give at least one tap: an offset and a weight",
        });
    }
    if offsets.len() > MAX_TAPS {
        return Err(Error::Layout {
            op,
            reason: format!(
                "the stencil has {} taps, more than the {MAX_TAPS} a run-time stencil takes",
                offsets.len()
            ),
            fix: "split it into a sum of smaller stencils applied one after the other",
        });
    }
    if let Some(k) = offsets.iter().position(|o| o.iter().any(|d| d.unsigned_abs() > MAX_RADIUS)) {
        return Err(Error::Layout {
            op,
            reason: format!("tap {k} has offset {:?}, past the largest radius {MAX_RADIUS}", offsets[k]),
            fix: "keep every offset within 8 points of the centre on each axis",
        });
    }
    Ok(core::array::from_fn(|a| offsets.iter().map(|o| o[a].unsigned_abs()).max().unwrap_or(0)))
}

/// Up to [`MAX_TAPS`] taps `(offset, weight)` on a rank-`N` grid, known at run time:
/// `out[x] = sum_k weight_k * in[x + offset_k]` over the interior, summed in tap order (which
/// fixes the rounding, as for [`LinearStencil`], whose results it equals bit for bit).
#[derive(Clone, Debug, PartialEq)]
pub struct DynStencil<T, const N: usize> {
    taps: Vec<([isize; N], T)>,
    radius: [usize; N],
}

impl<T: Numeric, const N: usize> DynStencil<T, N> {
    /// A stencil of the given taps, summed in this order.
    ///
    /// # Panics
    ///
    /// As [`DynStencil::try_new`] errs.
    #[track_caller]
    pub fn new(taps: impl IntoIterator<Item = ([isize; N], T)>) -> Self {
        or_panic(Self::try_new(taps))
    }

    /// A stencil of the given taps.
    ///
    /// # Errors
    ///
    /// `Error::Layout` for no tap, more than [`MAX_TAPS`], or an offset past [`MAX_RADIUS`].
    pub fn try_new(taps: impl IntoIterator<Item = ([isize; N], T)>) -> Result<Self> {
        let taps: Vec<([isize; N], T)> = taps.into_iter().collect();
        let offsets: Vec<[isize; N]> = taps.iter().map(|&(o, _)| o).collect();
        let radius = radius_of("DynStencil::new", &offsets)?;
        Ok(DynStencil { taps, radius })
    }

    /// The stencil of a centred weight array (each extent odd, `2 r + 1` for radius `r`): a tap
    /// for every nonzero weight, in row-major order of the array.
    ///
    /// # Panics
    ///
    /// As [`DynStencil::try_from_weights`] errs.
    #[track_caller]
    pub fn from_weights(weights: &impl AsView<T, N>) -> Self {
        or_panic(Self::try_from_weights(weights))
    }

    /// The stencil of a centred weight array; see [`DynStencil::from_weights`].
    ///
    /// # Errors
    ///
    /// `Error::Layout` for an even extent (no centre), or as [`DynStencil::try_new`].
    pub fn try_from_weights(weights: &impl AsView<T, N>) -> Result<Self> {
        let weights = weights.as_view();
        let shape = weights.shape();
        if let Some(axis) = (0..N).find(|&a| shape[a] % 2 == 0) {
            return Err(Error::Layout {
                op: "DynStencil::from_weights",
                reason: format!("axis {axis} of the weight array has even extent {} and so no centre", shape[axis]),
                fix: "give an odd extent 2 r + 1 on every axis, the centre weight in the middle",
            });
        }
        let taps = weights
            .indexed_iter()
            .filter(|&(_, &w)| w != T::ZERO)
            .map(|(index, &w)| (core::array::from_fn(|a| index[a] as isize - (shape[a] / 2) as isize), w));
        let stencil = Self::try_new(taps);
        stencil.map_err(|e| match e {
            Error::Layout { reason, fix, .. } => Error::Layout { op: "DynStencil::from_weights", reason, fix },
            e => e,
        })
    }

    /// The taps, in summation order.
    pub fn taps(&self) -> &[([isize; N], T)] {
        &self.taps
    }

    /// The radius along each axis: the points within it of an edge are the boundary a sweep
    /// leaves alone (and the halo a time step refills).
    pub fn radius(&self) -> [usize; N] {
        self.radius
    }

    /// `output[x] = sum_k weight_k * input[x + offset_k]` for every interior point (at least the
    /// radius from every edge, per axis); the other points are left alone. Input and output are
    /// views (CPU) or arrays (`&u`, `&mut v`) on one backend, of any strides (the sweep runs
    /// along the output's axis of smallest stride).
    ///
    /// # Panics
    ///
    /// As [`DynStencil::try_apply`] errs.
    #[track_caller]
    pub fn apply<B: StencilKernels>(&self, input: impl AsOperand<T, N, B>, output: impl AsOperandMut<T, N, B>) {
        or_panic(self.try_apply(input, output))
    }

    /// The interior sweep of [`DynStencil::apply`].
    ///
    /// # Errors
    ///
    /// `Error::ShapeMismatch` when the shapes differ; `Error::DeviceMismatch`; `Error::Limit`
    /// past a backend's tap count; `Error::Device`.
    pub fn try_apply<B: StencilKernels>(
        &self,
        input: impl AsOperand<T, N, B>,
        mut output: impl AsOperandMut<T, N, B>,
    ) -> Result<()> {
        let (input, out) = (input.operand_desc(), output.operand_desc_mut());
        let Some(interior) = Interior::of("DynStencil::apply", self.radius, &input, &out, &[])? else {
            return Ok(());
        };
        let (order, [out, input]) = orient([interior.narrow(out), interior.narrow(input)]);
        let taps: Vec<([isize; N], T)> = self.taps.iter().map(|&(o, w)| (order.map(|a| o[a]), w)).collect();
        // SAFETY: the interior keeps every tap inside the input (the taps reordered with the
        // axes); the output is borrowed uniquely and the input shared, so they cannot overlap.
        unsafe { B::taps(&B::handle_device(out.handle), out, input, &taps) }
    }

    /// [`DynStencil::apply`] on CPU views with the interior split over rayon's threads in bands
    /// of the first axis.
    ///
    /// # Panics
    ///
    /// As [`DynStencil::try_par_apply`] errs.
    #[cfg(feature = "rayon")]
    #[track_caller]
    pub fn par_apply(&self, input: impl AsOperand<T, N>, output: impl AsOperandMut<T, N>)
    where
        T: Send + Sync,
    {
        or_panic(self.try_par_apply(input, output))
    }

    /// [`DynStencil::par_apply`], returning errors.
    ///
    /// # Errors
    ///
    /// As [`DynStencil::try_apply`].
    #[cfg(feature = "rayon")]
    pub fn try_par_apply(&self, input: impl AsOperand<T, N>, mut output: impl AsOperandMut<T, N>) -> Result<()>
    where
        T: Send + Sync,
    {
        use super::region::{band, par_bands, sweep_bytes};
        use crate::kernel::host::HostEngine;
        use crate::kernel::{Cpu, SharedDesc};
        let (input, out) = (input.operand_desc(), output.operand_desc_mut());
        let Some(interior) = Interior::of("DynStencil::par_apply", self.radius, &input, &out, &[])? else {
            return Ok(());
        };
        let (out, input) = (interior.narrow(out), interior.narrow(input));
        if N == 0 {
            // SAFETY: as in `try_apply`.
            return unsafe { Cpu::taps(&Cpu, out, input, &self.taps) };
        }
        let whole = sweep_bytes(&out);
        let (out, input) = (SharedDesc(out), SharedDesc(input));
        par_bands(out.0.shape[0], |rows| {
            let (out, input) = (&out, &input);
            let (order, [out, input]) = orient([band(out.0, rows.clone()), band(input.0, rows)]);
            let taps: Vec<([isize; N], T)> = self.taps.iter().map(|&(o, w)| (order.map(|a| o[a]), w)).collect();
            // SAFETY: as in `try_apply`; bands of the first axis are disjoint, so no output
            // element is written by two tasks.
            unsafe { Cpu::taps_in_sweep(out, input, &taps, whole) }
        })
    }

    /// `steps` sweeps over `field` with `boundaries` at each side of each axis, bit for bit as
    /// `steps` times refilling the halos (width: the radius, per axis), `apply` and `swap`, and
    /// a last refill (see [`LinearStencil::apply_steps_with`]): fused into one pass over memory
    /// on the CPU, one call per sweep on devices.
    ///
    /// # Panics
    ///
    /// As [`DynStencil::try_apply_steps_with`] errs.
    #[track_caller]
    pub fn apply_steps_with<B: StencilKernels + CopyKernels>(
        &self,
        field: &mut DoubleBuffer<T, N, B>,
        steps: usize,
        boundaries: impl Into<Boundaries<T, N>>,
    ) {
        or_panic(self.try_apply_steps_with(field, steps, boundaries))
    }

    /// [`DynStencil::apply_steps_with`], returning errors.
    ///
    /// # Errors
    ///
    /// As [`LinearStencil::try_apply_steps_with`].
    pub fn try_apply_steps_with<B: StencilKernels + CopyKernels>(
        &self,
        field: &mut DoubleBuffer<T, N, B>,
        steps: usize,
        boundaries: impl Into<Boundaries<T, N>>,
    ) -> Result<()> {
        let sweep = TapSweep { taps: &self.taps, radius: self.radius };
        // SAFETY: `run_steps` hands over the plan of two distinct fields, borrowed uniquely.
        run_steps("DynStencil::apply_steps", &sweep, field, steps, &[boundaries.into()], None, |plan| unsafe {
            plan.run_sequential()
        })
    }

    /// [`DynStencil::apply_steps_with`] on rayon's threads (bands of each hyperplane, slabs of the
    /// grid or a pipeline of sweep groups, as [`LinearStencil::par_apply_steps`]); the same
    /// result, bit for bit.
    ///
    /// # Panics
    ///
    /// As [`DynStencil::try_par_apply_steps_with`] errs.
    #[cfg(feature = "rayon")]
    #[track_caller]
    pub fn par_apply_steps_with(
        &self,
        field: &mut DoubleBuffer<T, N>,
        steps: usize,
        boundaries: impl Into<Boundaries<T, N>>,
    ) where
        T: Send + Sync,
    {
        or_panic(self.try_par_apply_steps_with(field, steps, boundaries))
    }

    /// [`DynStencil::par_apply_steps_with`], returning errors.
    ///
    /// # Errors
    ///
    /// As [`DynStencil::try_apply_steps_with`].
    #[cfg(feature = "rayon")]
    pub fn try_par_apply_steps_with(
        &self,
        field: &mut DoubleBuffer<T, N>,
        steps: usize,
        boundaries: impl Into<Boundaries<T, N>>,
    ) -> Result<()>
    where
        T: Send + Sync,
    {
        let sweep = TapSweep { taps: &self.taps, radius: self.radius };
        // SAFETY: `run_steps` hands over the plan of two distinct fields, borrowed uniquely.
        run_steps("DynStencil::par_apply_steps", &sweep, field, steps, &[boundaries.into()], None, |plan| unsafe {
            super::fused::run_parallel(plan)
        })
    }
}

impl<T: Numeric, const N: usize> DynStencil<T, N> {
    /// `steps` sweeps alternating between two fields lent as views or arrays (memory owned
    /// elsewhere: parts of larger arrays, a NumPy array), without a [`DoubleBuffer`]: `first`
    /// holds sweep 0 and, as both fields of a `DoubleBuffer` do, the boundary values in its halo
    /// (`second` holds them too on `Fixed` sides); sweep `steps` ends in `first` when `steps` is
    /// even, in `second` when it is odd. Otherwise as [`DynStencil::apply_steps_with`], bit for
    /// bit.
    ///
    /// # Panics
    ///
    /// As [`DynStencil::try_apply_steps_between`] errs.
    #[track_caller]
    pub fn apply_steps_between<B: StencilKernels + CopyKernels>(
        &self,
        first: impl AsOperandMut<T, N, B>,
        second: impl AsOperandMut<T, N, B>,
        steps: usize,
        boundaries: impl Into<Boundaries<T, N>>,
    ) {
        or_panic(self.try_apply_steps_between(first, second, steps, boundaries))
    }

    /// [`DynStencil::apply_steps_between`], returning errors.
    ///
    /// # Errors
    ///
    /// As [`DynStencil::try_apply_steps_with`].
    pub fn try_apply_steps_between<B: StencilKernels + CopyKernels>(
        &self,
        mut first: impl AsOperandMut<T, N, B>,
        mut second: impl AsOperandMut<T, N, B>,
        steps: usize,
        boundaries: impl Into<Boundaries<T, N>>,
    ) -> Result<()> {
        let sweep = TapSweep { taps: &self.taps, radius: self.radius };
        let fields = [first.operand_desc_mut(), second.operand_desc_mut()];
        // SAFETY: two uniquely borrowed operands (so distinct elements), borrowed for the call;
        // the plan it hands over is of those two fields.
        unsafe {
            run_steps_between("DynStencil::apply_steps", &sweep, fields, steps, boundaries.into(), |plan| {
                plan.run_sequential()
            })
        }
    }

    /// [`DynStencil::apply_steps_between`] on rayon's threads; the same result, bit for bit.
    ///
    /// # Panics
    ///
    /// As [`DynStencil::try_par_apply_steps_between`] errs.
    #[cfg(feature = "rayon")]
    #[track_caller]
    pub fn par_apply_steps_between(
        &self,
        first: impl AsOperandMut<T, N>,
        second: impl AsOperandMut<T, N>,
        steps: usize,
        boundaries: impl Into<Boundaries<T, N>>,
    ) where
        T: Send + Sync,
    {
        or_panic(self.try_par_apply_steps_between(first, second, steps, boundaries))
    }

    /// [`DynStencil::par_apply_steps_between`], returning errors.
    ///
    /// # Errors
    ///
    /// As [`DynStencil::try_apply_steps_with`].
    #[cfg(feature = "rayon")]
    pub fn try_par_apply_steps_between(
        &self,
        mut first: impl AsOperandMut<T, N>,
        mut second: impl AsOperandMut<T, N>,
        steps: usize,
        boundaries: impl Into<Boundaries<T, N>>,
    ) -> Result<()>
    where
        T: Send + Sync,
    {
        let sweep = TapSweep { taps: &self.taps, radius: self.radius };
        let fields = [first.operand_desc_mut(), second.operand_desc_mut()];
        // SAFETY: as in `try_apply_steps_between`.
        unsafe {
            run_steps_between("DynStencil::par_apply_steps", &sweep, fields, steps, boundaries.into(), |plan| {
                super::fused::run_parallel(plan)
            })
        }
    }
}

impl<T: Numeric, const N: usize> DynStencil<T, N> {
    /// `steps` sweeps with `Fixed` boundaries from `input` (only read), alternating between
    /// `first` and `second` as [`DynStencil::apply_steps_between`] does after copying `input`
    /// into `first`, but without that copy: sweep 1 reads `input` itself. The caller fills both
    /// fields' halos with `input`'s halo first (nothing here writes them: with other halos the
    /// result differs from [`DynStencil::apply_steps_between`]'s); `first`'s interior is only
    /// written (from sweep 2 on). Sweep `steps` ends in `first` when `steps` is even, in `second` when odd; the
    /// same result, bit for bit. With `steps == 0` nothing is written (`first` does not receive
    /// `input`: copy it, or skip the call).
    ///
    /// # Panics
    ///
    /// As [`DynStencil::try_apply_steps_from`] errs.
    #[track_caller]
    pub fn apply_steps_from<B: StencilKernels + CopyKernels>(
        &self,
        input: impl AsOperand<T, N, B>,
        first: impl AsOperandMut<T, N, B>,
        second: impl AsOperandMut<T, N, B>,
        steps: usize,
    ) {
        or_panic(self.try_apply_steps_from(input, first, second, steps))
    }

    /// [`DynStencil::apply_steps_from`], returning errors.
    ///
    /// # Errors
    ///
    /// As [`DynStencil::try_apply_steps_with`]; `Error::ShapeMismatch` when `input`'s shape
    /// differs from the fields'; `Error::DeviceMismatch` when it is on another device.
    pub fn try_apply_steps_from<B: StencilKernels + CopyKernels>(
        &self,
        input: impl AsOperand<T, N, B>,
        mut first: impl AsOperandMut<T, N, B>,
        mut second: impl AsOperandMut<T, N, B>,
        steps: usize,
    ) -> Result<()> {
        let sweep = TapSweep { taps: &self.taps, radius: self.radius };
        let fields = [first.operand_desc_mut(), second.operand_desc_mut()];
        let fixed = Boundaries::all(super::Boundary::Fixed);
        // SAFETY: two uniquely borrowed operands and a shared one, so distinct elements, borrowed
        // for the call; the plan it hands over is of those fields.
        unsafe {
            run_steps_from(
                "DynStencil::apply_steps_from",
                &sweep,
                Some(input.operand_desc()),
                fields,
                steps,
                fixed,
                |plan| plan.run_sequential(),
            )
        }
    }

    /// [`DynStencil::apply_steps_from`] on rayon's threads; the same result, bit for bit.
    ///
    /// # Panics
    ///
    /// As [`DynStencil::try_apply_steps_from`] errs.
    #[cfg(feature = "rayon")]
    #[track_caller]
    pub fn par_apply_steps_from(
        &self,
        input: impl AsOperand<T, N>,
        first: impl AsOperandMut<T, N>,
        second: impl AsOperandMut<T, N>,
        steps: usize,
    ) where
        T: Send + Sync,
    {
        or_panic(self.try_par_apply_steps_from(input, first, second, steps))
    }

    /// [`DynStencil::par_apply_steps_from`], returning errors.
    ///
    /// # Errors
    ///
    /// As [`DynStencil::try_apply_steps_from`].
    #[cfg(feature = "rayon")]
    pub fn try_par_apply_steps_from(
        &self,
        input: impl AsOperand<T, N>,
        mut first: impl AsOperandMut<T, N>,
        mut second: impl AsOperandMut<T, N>,
        steps: usize,
    ) -> Result<()>
    where
        T: Send + Sync,
    {
        let sweep = TapSweep { taps: &self.taps, radius: self.radius };
        let fields = [first.operand_desc_mut(), second.operand_desc_mut()];
        let (op, fixed) = ("DynStencil::par_apply_steps_from", Boundaries::all(super::Boundary::Fixed));
        // SAFETY: as in `try_apply_steps_from`.
        unsafe {
            run_steps_from(op, &sweep, Some(input.operand_desc()), fields, steps, fixed, |plan| {
                super::fused::run_parallel(plan)
            })
        }
    }
}

impl<T: Numeric, const N: usize, const R: usize, const K: usize> From<LinearStencil<T, N, R, K>> for DynStencil<T, N> {
    /// The same taps, known at run time (the radius per axis may be smaller than `R`).
    ///
    /// # Panics
    ///
    /// When the stencil has no tap, more than [`MAX_TAPS`], or a radius past [`MAX_RADIUS`].
    #[track_caller]
    fn from(stencil: LinearStencil<T, N, R, K>) -> Self {
        DynStencil::new(*stencil.taps())
    }
}

/// A run-time stencil's taps as a sweep of the time stepper.
struct TapSweep<'t, T, const N: usize> {
    taps: &'t [([isize; N], T)],
    radius: [usize; N],
}

impl<B: StencilKernels, T: Numeric, const N: usize> Sweep<B, T, N> for TapSweep<'_, T, N> {
    fn radius(&self) -> [usize; N] {
        self.radius
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
        unsafe { B::taps(dev, outputs[0], inputs[0], self.taps) }
    }
}

#[cfg(test)]
mod tests {
    use super::DynStencil;
    use crate::stencil::LinearStencil;
    use crate::Array;

    /// Sweeps from a separate input equal the copy-then-sweep form bit for bit, on one thread and
    /// on three of rayon's (a pipeline on the short grid, slabs on the tall one), whatever the
    /// outputs held before.
    #[test]
    fn steps_from_an_input_equal_steps_between_after_a_copy() {
        for shape in [[37, 29], [333, 7]] {
            let u = Array::<f64, 2>::from_fn(shape, |[i, j]| ((i * 7 + j * 3) % 11) as f64 - 0.5 * j as f64);
            let s: DynStencil<f64, 2> = LinearStencil::laplacian_9pt(1.0).into();
            for steps in 1..6 {
                let (mut a, mut b) = (u.clone(), u.clone());
                s.apply_steps_between(a.view_mut(), b.view_mut(), steps, [crate::stencil::Boundary::Fixed; 2]);
                let want = if steps % 2 == 0 { a } else { b };
                for par in [false, cfg!(feature = "rayon")] {
                    let halo = |[i, j]: [usize; 2]| i == 0 || i == shape[0] - 1 || j == 0 || j == shape[1] - 1;
                    let garbage = Array::<f64, 2>::from_fn(shape, |x| if halo(x) { u[x] } else { f64::NAN });
                    let (mut first, mut second) = (garbage.clone(), garbage.clone());
                    #[cfg(feature = "rayon")]
                    if par {
                        let pool = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
                        pool.install(|| {
                            s.try_par_apply_steps_from(u.view(), first.view_mut(), second.view_mut(), steps)
                        })
                        .unwrap();
                    }
                    if !par {
                        s.apply_steps_from(u.view(), first.view_mut(), second.view_mut(), steps);
                    }
                    let got = if steps % 2 == 0 { first } else { second };
                    let bits = |a: &Array<f64, 2>| a.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                    assert_eq!(bits(&got), bits(&want), "{shape:?} {steps} {par}");
                }
            }
        }
    }
}
