//! The CPU's elementwise kernels: the lane engine (`ops/lanes.rs`) driven by op tokens.

use super::Cpu;
use crate::element::Pod;
use crate::error::Result;
use crate::ops::desc::Desc;
use crate::ops::elementwise::ElementwiseKernels;
use crate::ops::lanes::{self, Dst, Src};
use crate::ops::tokens::{BinaryOp, UnaryOp};

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
        // SAFETY: the trait's contract is `binary_map`'s.
        unsafe { lanes::binary_map(out.shape, src(a), src(b), dst(out), |x, y| op.apply(x, y)) };
        Ok(())
    }

    #[inline]
    unsafe fn unary<T: Pod, Op: UnaryOp<T>, const N: usize>(
        _: &Cpu,
        op: Op,
        out: Desc<Cpu, Op::Output, N>,
        a: Desc<Cpu, T, N>,
    ) -> Result<()> {
        // SAFETY: the trait's contract is `unary_map`'s.
        unsafe { lanes::unary_map(out.shape, src(a), dst(out), |x| op.apply(x)) };
        Ok(())
    }

    #[inline]
    unsafe fn update<T: Pod, Op: BinaryOp<T>, const N: usize>(
        _: &Cpu,
        op: Op,
        d: Desc<Cpu, T, N>,
        s: Desc<Cpu, T, N>,
    ) -> Result<()> {
        // SAFETY: the trait's contract is `update_with`'s.
        unsafe { lanes::update_with(d.shape, dst(d), src(s), |x, y| *x = op.apply(*x, y)) };
        Ok(())
    }

    #[inline]
    unsafe fn update_unary<T: Pod, Op: UnaryOp<T, Output = T>, const N: usize>(
        _: &Cpu,
        op: Op,
        d: Desc<Cpu, T, N>,
    ) -> Result<()> {
        // SAFETY: the trait's contract is `update`'s.
        unsafe { lanes::update(d.shape, dst(d), |x| *x = op.apply(*x)) };
        Ok(())
    }
}
