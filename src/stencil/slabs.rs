//! A stencil's application in slabs of the outermost axis, each small enough to stay in cache
//! while a caller's pass reads it back (CG's `p · A p` after each product), on backends whose
//! kernels leave what they wrote in cache ([`StencilKernels::OUTPUT_IN_CACHE`]: the CPU): the
//! pair then costs the memory traffic of the product alone.

use super::dynamic::DynStencil;
use super::region::{orient, Interior};
use super::variable::{varying, Fields, VariableStencil};
use crate::element::{Numeric, Pod};
use crate::error::Result;
use crate::ops::operand::AsOperand;
use core::marker::PhantomData;

use crate::kernel::{Backend, Desc, ElementwiseKernels, StencilKernels};

/// The bytes of output a slab aims at: with the input's slab (and its halo rows) it stays in a
/// core's L2 cache.
const SLAB_BYTES: usize = 128 << 10;

/// One slab of a product: its input points, its output (just written) and the same points of a
/// scratch array, one shape, on one backend, valid while the pass that gets it runs (it cannot
/// outlive that call, and only cnda makes one).
pub struct Slab<'s, B: Backend, T: Pod, const N: usize> {
    descs: [Desc<B, T, N>; 3],
    _call: PhantomData<&'s mut T>,
}

impl<B: Backend, T: Pod, const N: usize> Slab<'_, B, T, N> {
    /// The input, output and scratch points. They address live memory: the inputs readable,
    /// the output (initialized) and scratch writable, distinct and overlapping no other operand,
    /// for as long as the slab lives.
    pub(crate) fn descs(&self) -> [Desc<B, T, N>; 3] {
        self.descs
    }
}

/// What runs on each slab after the product.
pub type SlabPass<'a, B, T, const N: usize> = dyn for<'s> FnMut(Slab<'s, B, T, N>) -> Result<()> + 'a;

impl<T: Numeric, const N: usize> DynStencil<T, N> {
    /// `output = self(input)` over the interior (as [`DynStencil::try_apply`]), slab by slab,
    /// `each` run on every slab right after it is written; `false` (nothing done) where the
    /// backend's kernels do not leave their output in cache or the interior is not of `shape`.
    ///
    /// # Safety
    ///
    /// The three describe live arrays of one shape on one backend, for the whole call; `output`
    /// and `scratch` address distinct writable elements, borrowed uniquely, that overlap no
    /// other operand.
    ///
    /// # Errors
    ///
    /// As [`DynStencil::try_apply`], and `each`'s.
    pub(crate) unsafe fn try_apply_in_slabs<B: StencilKernels>(
        &self,
        shape: [usize; N],
        [input, output, scratch]: [Desc<B, T, N>; 3],
        each: &mut SlabPass<'_, B, T, N>,
    ) -> Result<bool> {
        if !B::OUTPUT_IN_CACHE || N == 0 {
            return Ok(false);
        }
        let Some(interior) = Interior::of("DynStencil::apply", self.radius(), &input, &output, &[scratch])? else {
            return Ok(false);
        };
        let (order, [out, input, scratch]) =
            orient([interior.narrow(output), interior.narrow(input), interior.narrow(scratch)]);
        if order.map(|a| shape[a]) != out.shape {
            return Ok(false);
        }
        let taps: Vec<([isize; N], T)> = self.taps().iter().map(|&(o, w)| (order.map(|a| o[a]), w)).collect();
        let dev = B::handle_device(out.handle);
        let row_bytes = out.shape[1..].iter().product::<usize>().max(1) * core::mem::size_of::<T>();
        let rows = (SLAB_BYTES / row_bytes).max(1);
        for start in (0..out.shape[0]).step_by(rows) {
            let slab = |d: Desc<B, T, N>| d.narrowed(0, start, rows.min(out.shape[0] - start));
            let (o, i, s) = (slab(out), slab(input), slab(scratch));
            // SAFETY: as in `try_apply`: the interior keeps every tap of every point of the slab
            // inside the input; the output is borrowed uniquely and overlaps neither the input
            // nor the scratch array (the caller's contract).
            unsafe { B::taps(&dev, o, i, &taps) }?;
            // The three as the caller's contract describes them, for the call only.
            each(Slab { descs: [i, o, s], _call: PhantomData })?;
        }
        Ok(true)
    }
}

impl<const N: usize> VariableStencil<N> {
    /// `output = self(input, coefficients)` over the interior (as [`VariableStencil::try_apply`]),
    /// slab by slab, `each` run on every slab right after it is written; `false` (nothing done)
    /// where the backend's kernels do not leave their output in cache or the interior is not of
    /// `shape`. A slab's output is smaller than [`DynStencil::try_apply_in_slabs`]'s by the
    /// fields streamed alongside it, so that the input and output slabs stay in cache.
    ///
    /// # Safety
    ///
    /// As [`DynStencil::try_apply_in_slabs`]; the fields are live, of the input's shape, and
    /// overlap neither `output` nor `scratch`.
    ///
    /// # Errors
    ///
    /// As [`VariableStencil::try_apply`], and `each`'s.
    pub(crate) unsafe fn try_apply_in_slabs<T: Numeric, B: StencilKernels + ElementwiseKernels>(
        &self,
        shape: [usize; N],
        coefficients: &[impl AsOperand<T, N, B>],
        [input, output, scratch]: [Desc<B, T, N>; 3],
        each: &mut SlabPass<'_, B, T, N>,
    ) -> Result<bool> {
        const OP: &str = "VariableStencil::apply";
        if !B::OUTPUT_IN_CACHE || N == 0 {
            return Ok(false);
        }
        let fields = self.fields(OP, coefficients)?;
        let others: Fields<B, T, N> = fields.iter().copied().chain([scratch]).collect();
        let Some(interior) = Interior::of(OP, self.radius(), &input, &output, &others)? else {
            return Ok(false);
        };
        let (order, [out, input, scratch]) =
            orient([interior.narrow(output), interior.narrow(input), interior.narrow(scratch)]);
        if order.map(|a| shape[a]) != out.shape {
            return Ok(false);
        }
        let permuted = |d: Desc<B, T, N>| Desc {
            handle: d.handle,
            shape: order.map(|a| d.shape[a]),
            strides: order.map(|a| d.strides[a]),
        };
        let fields: Fields<B, T, N> = fields.iter().map(|&c| permuted(interior.narrow(c))).collect();
        let offsets: Vec<[isize; N]> = self.offsets().iter().map(|o| order.map(|a| o[a])).collect();
        let dev = B::handle_device(out.handle);
        let row_bytes = out.shape[1..].iter().product::<usize>().max(1) * core::mem::size_of::<T>();
        // The input, output and fields of a slab together within about three slabs' bytes.
        let rows = (3 * SLAB_BYTES / (2 + fields.len()) / row_bytes).max(1);
        for start in (0..out.shape[0]).step_by(rows) {
            let slab = |d: Desc<B, T, N>| d.narrowed(0, start, rows.min(out.shape[0] - start));
            let (o, i, s) = (slab(out), slab(input), slab(scratch));
            let f: Fields<B, T, N> = fields.iter().map(|&c| slab(c)).collect();
            // SAFETY: as in `try_apply`: the interior keeps every tap of every point of the slab
            // inside the input, each field covers the slab's points; the output is borrowed
            // uniquely and overlaps no other operand (the caller's contract).
            unsafe { varying(&dev, o, i, &offsets, &f) }?;
            // The three as the caller's contract describes them, for the call only.
            each(Slab { descs: [i, o, s], _call: PhantomData })?;
        }
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::Cpu;
    use crate::prelude::*;

    /// Slab by slab the product is `try_apply`'s, bit for bit, every interior point visited
    /// once, slabs in order, the last one short; on a transposed layout too (swept along its
    /// contiguous axis).
    #[test]
    fn slabs_cover_the_interior_once_with_the_products_bits() {
        let stencil = DynStencil::new([([-1, 0], 1.5), ([1, 0], -0.5), ([0, -1], 2.0), ([0, 1], 0.25), ([0, 0], -3.0)]);
        for (shape, transposed) in [([72, 3002], false), ([3002, 72], true), ([9, 9], false)] {
            let stored = if transposed { [shape[1], shape[0]] } else { shape };
            let x = Array::<f64, 2>::from_fn(stored, |[i, j]| ((i * 31 + j * 17) % 23) as f64 - 11.0);
            let (mut y, mut scratch) = (Array::<f64, 2>::zeros(stored), Array::<f64, 2>::zeros(stored));
            let x_desc = if transposed { x.t().desc() } else { x.desc() };
            let mut expected = Array::zeros(shape);
            if transposed {
                stencil.apply(x.t(), &mut expected);
            } else {
                stencil.apply(&x, &mut expected);
            }
            let (mut visited, mut rows) = (0, Vec::new());
            let mut each = |slab: Slab<'_, Cpu, f64, 2>| {
                let [input, output, _] = slab.descs();
                visited += input.shape.iter().product::<usize>();
                rows.push(output.shape[0]);
                Ok(())
            };
            let interior = [shape[0] - 2, shape[1] - 2];
            let (y_desc, s_desc) = match transposed {
                true => (y.view_mut().t().desc_mut(), scratch.view_mut().t().desc_mut()),
                false => (y.desc_mut(), scratch.desc_mut()),
            };
            // SAFETY: three live arrays, `y` and `scratch` borrowed uniquely.
            let fused = unsafe { stencil.try_apply_in_slabs(interior, [x_desc, y_desc, s_desc], &mut each) };
            assert!(fused.unwrap());
            assert_eq!(visited, interior[0] * interior[1]);
            assert!(rows.len() > 1 || shape == [9, 9], "{rows:?}");
            assert!(rows[..rows.len() - 1].iter().all(|&r| r == rows[0]) && rows[rows.len() - 1] <= rows[0]);
            let y = if transposed { y.t().to_owned() } else { y };
            assert_eq!(y, expected, "{shape:?}");
            // Another shape than the interior's: nothing done.
            let mut nothing = |_: Slab<'_, Cpu, f64, 2>| -> Result<()> { unreachable!() };
            // SAFETY: as above.
            let wider = unsafe { stencil.try_apply_in_slabs(shape, [x_desc, y_desc, s_desc], &mut nothing) };
            assert!(!wider.unwrap());
        }
    }

    /// The variable form's slabs: `try_apply`'s product bit for bit, every interior point once,
    /// slabs smaller than the constant form's by the fields read alongside.
    #[test]
    fn variable_slabs_cover_the_interior_once_with_the_products_bits() {
        let stencil = VariableStencil::new([[-1, 0], [1, 0], [0, -1], [0, 1], [0, 0]]);
        for shape in [[74, 1502], [9, 9]] {
            let x = Array::<f64, 2>::from_fn(shape, |[i, j]| ((i * 31 + j * 17) % 23) as f64 - 11.0);
            let fields: Vec<Array<f64, 2>> =
                (0..5).map(|t| Array::from_fn(shape, |[i, j]| 1.0 + ((i * 7 + j * 3 + t) % 5) as f64)).collect();
            let mut expected = Array::zeros(shape);
            stencil.apply(&x, &fields, &mut expected);
            let (mut y, mut scratch) = (Array::<f64, 2>::zeros(shape), Array::<f64, 2>::zeros(shape));
            let (mut visited, mut rows) = (0, Vec::new());
            let mut each = |slab: Slab<'_, Cpu, f64, 2>| {
                let [input, output, _] = slab.descs();
                visited += input.shape.iter().product::<usize>();
                rows.push(output.shape[0]);
                Ok(())
            };
            let interior = [shape[0] - 2, shape[1] - 2];
            // SAFETY: live arrays, `y` and `scratch` borrowed uniquely.
            let fused = unsafe {
                stencil.try_apply_in_slabs(interior, &fields, [x.desc(), y.desc_mut(), scratch.desc_mut()], &mut each)
            };
            assert!(fused.unwrap());
            assert_eq!(visited, interior[0] * interior[1]);
            assert!(rows.len() > 2 || shape == [9, 9], "{rows:?}");
            assert_eq!(y, expected, "{shape:?}");
        }
    }
}
