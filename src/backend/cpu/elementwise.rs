//! The CPU's elementwise kernels: the lane engine (`lanes.rs`) driven by op tokens.

use super::lanes;
use super::simd::{Isa, Kernel};
use crate::element::Pod;
use crate::error::Result;
use crate::kernel::host::{Dst, Src};
use crate::kernel::tokens::{BinaryOp, UnaryOp};
use crate::kernel::Cpu;
use crate::kernel::Desc;
use crate::kernel::ElementwiseKernels;

fn src<T: Pod, const N: usize>(d: Desc<Cpu, T, N>) -> Src<T, N> {
    Src { ptr: d.handle.cast_const(), strides: d.strides }
}

fn dst<T: Pod, const N: usize>(d: Desc<Cpu, T, N>) -> Dst<T, N> {
    Dst { ptr: d.handle, strides: d.strides }
}

// SAFETY: each kernel visits every index of the output's shape once through the lane engine,
// writing exactly the token's result, and returns after the writes.
unsafe impl ElementwiseKernels for Cpu {
    #[inline]
    unsafe fn binary<T: Pod, Op: BinaryOp<T>, const N: usize>(
        _: &Cpu,
        op: Op,
        out: Desc<Cpu, T, N>,
        a: Desc<Cpu, T, N>,
        b: Desc<Cpu, T, N>,
    ) -> Result<()> {
        // SAFETY: the trait's contract for `binary` is the kernel's.
        unsafe { Isa::detect().run(BinaryCall { op, out, a, b }) };
        Ok(())
    }

    #[inline]
    unsafe fn unary<T: Pod, Op: UnaryOp<T>, const N: usize>(
        _: &Cpu,
        op: Op,
        out: Desc<Cpu, Op::Output, N>,
        a: Desc<Cpu, T, N>,
    ) -> Result<()> {
        // SAFETY: the trait's contract for `unary` is the kernel's.
        unsafe { Isa::detect().run(UnaryCall { op, out, a }) };
        Ok(())
    }

    #[inline]
    unsafe fn update<T: Pod, Op: BinaryOp<T>, const N: usize>(
        _: &Cpu,
        op: Op,
        d: Desc<Cpu, T, N>,
        s: Desc<Cpu, T, N>,
    ) -> Result<()> {
        // SAFETY: the trait's contract for `update` is the kernel's.
        unsafe { Isa::detect().run(UpdateCall { op, d, s }) };
        Ok(())
    }

    #[inline]
    unsafe fn update_unary<T: Pod, Op: UnaryOp<T, Output = T>, const N: usize>(
        _: &Cpu,
        op: Op,
        d: Desc<Cpu, T, N>,
    ) -> Result<()> {
        // SAFETY: the trait's contract for `update_unary` is the kernel's.
        unsafe { Isa::detect().run(UpdateUnaryCall { op, d }) };
        Ok(())
    }
}

// The kernels' calls, SIMD-dispatched. Safety (`Kernel::run`): the matching trait method's
// contract holds for the descriptors.

struct BinaryCall<T: Pod, Op, const N: usize> {
    op: Op,
    out: Desc<Cpu, T, N>,
    a: Desc<Cpu, T, N>,
    b: Desc<Cpu, T, N>,
}

impl<T: Pod, Op: BinaryOp<T>, const N: usize> Kernel for BinaryCall<T, Op, N> {
    type Output = ();
    #[inline(always)]
    unsafe fn run<S: pulp::Simd>(self, _: S) {
        let BinaryCall { op, out, a, b } = self;
        // SAFETY: `ElementwiseKernels::binary`'s contract is `binary_map`'s.
        unsafe { lanes::binary_map(out.shape, src(a), src(b), dst(out), |x, y| op.apply(x, y)) };
    }
}

struct UnaryCall<T: Pod, Op: UnaryOp<T>, const N: usize> {
    op: Op,
    out: Desc<Cpu, Op::Output, N>,
    a: Desc<Cpu, T, N>,
}

impl<T: Pod, Op: UnaryOp<T>, const N: usize> Kernel for UnaryCall<T, Op, N> {
    type Output = ();
    #[inline(always)]
    unsafe fn run<S: pulp::Simd>(self, _: S) {
        let UnaryCall { op, out, a } = self;
        // SAFETY: `ElementwiseKernels::unary`'s contract is `unary_map`'s.
        unsafe { lanes::unary_map(out.shape, src(a), dst(out), |x| op.apply(x)) };
    }
}

struct UpdateCall<T: Pod, Op, const N: usize> {
    op: Op,
    d: Desc<Cpu, T, N>,
    s: Desc<Cpu, T, N>,
}

impl<T: Pod, Op: BinaryOp<T>, const N: usize> Kernel for UpdateCall<T, Op, N> {
    type Output = ();
    #[inline(always)]
    unsafe fn run<S: pulp::Simd>(self, _: S) {
        let UpdateCall { op, d, s } = self;
        // SAFETY: `ElementwiseKernels::update`'s contract is `update_with`'s.
        unsafe { lanes::update_with(d.shape, dst(d), src(s), |x, y| *x = op.apply(*x, y)) };
    }
}

struct UpdateUnaryCall<T: Pod, Op, const N: usize> {
    op: Op,
    d: Desc<Cpu, T, N>,
}

impl<T: Pod, Op: UnaryOp<T, Output = T>, const N: usize> Kernel for UpdateUnaryCall<T, Op, N> {
    type Output = ();
    #[inline(always)]
    unsafe fn run<S: pulp::Simd>(self, _: S) {
        let UpdateUnaryCall { op, d } = self;
        // SAFETY: `ElementwiseKernels::update_unary`'s contract is `update`'s.
        unsafe { lanes::update(d.shape, dst(d), |x| *x = op.apply(*x)) };
    }
}

#[cfg(test)]
mod tests {
    use super::{BinaryCall, UnaryCall, UpdateCall};
    use crate::backend::cpu::simd::Isa;
    use crate::kernel::tokens::{Add, Mul, Sqrt};
    use crate::prelude::*;

    #[test]
    fn every_instruction_set_computes_the_same_bits_as_a_naive_loop() {
        let a = Array::from_fn([13, 67], |[i, j]| ((i * 37 + j * 11) % 29) as f64 * 0.31 + 0.07);
        let row = Array::from_fn([1, 67], |[_, j]| (j % 7) as f64 * 1.3 - 2.0);
        for isa in Isa::available() {
            // Broadcast add (stride 0 on axis 0), sqrt of a transposed view, in-place multiply.
            let mut sum = Array::<f64, 2>::zeros([13, 67]);
            let b = row.desc().broadcast([13, 67]).unwrap();
            // SAFETY: owned arrays (or a view of one) of the output's shape; outputs distinct from inputs.
            unsafe { isa.run(BinaryCall { op: Add, out: sum.desc_mut(), a: a.desc(), b }) };
            assert_eq!(sum, Array::from_fn([13, 67], |[i, j]| a[[i, j]] + row[[0, j]]), "{isa:?}");
            let mut roots = Array::<f64, 2>::zeros([67, 13]);
            let at = a.t();
            let t = crate::kernel::Desc::<crate::kernel::Cpu, f64, 2> {
                handle: at.raw.ptr,
                shape: at.shape(),
                strides: at.strides(),
            };
            // SAFETY: owned arrays (or a view of one) of the output's shape; outputs distinct from inputs.
            unsafe { isa.run(UnaryCall { op: Sqrt, out: roots.desc_mut(), a: t }) };
            assert_eq!(roots, Array::from_fn([67, 13], |[j, i]| a[[i, j]].sqrt()), "{isa:?}");
            let mut scaled = a.clone();
            // SAFETY: owned arrays (or a view of one) of the output's shape; outputs distinct from inputs.
            unsafe { isa.run(UpdateCall { op: Mul, d: scaled.desc_mut(), s: sum.desc() }) };
            assert_eq!(scaled, Array::from_fn([13, 67], |[i, j]| a[[i, j]] * sum[[i, j]]), "{isa:?}");
        }
    }
}
