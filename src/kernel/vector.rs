//! The vector kernels of the iterative solvers: an inner product and a linear combination, each
//! in one pass over memory where the backend has a kernel for it. The provided methods run them
//! as two or three passes of the elementwise and reduction kernels through a scratch operand, so
//! a backend implements the trait with no method and overrides what it can fuse (the CPU and CUDA
//! do; WebGPU runs the provided methods).

use super::desc::merged3;
use super::elementwise::ElementwiseKernels;
use super::reduce::ReduceKernels;
use super::tokens::{Add, Mul, ScalarRight, Sum};
use super::Desc;
use crate::element::Float;
use crate::error::Result;

/// Inner products and linear combinations for the solvers (`crate::solve`).
///
/// # Safety
///
/// An implementation reads only the elements the input descriptors address, writes only those
/// the output ones address (`y`; `x` and `p` in `axpy_xpby`; `scratch` where it uses it), and returns after its writes are
/// visible to the next operation on the same device (or ordered before it on its stream).
pub unsafe trait VectorKernels: ElementwiseKernels + ReduceKernels {
    /// `Σ x[i] y[i]` over the shape of `x` (an empty shape gives zero), in any summation order.
    ///
    /// # Safety
    ///
    /// `x`, `y` and `scratch` have one shape and address live memory on `dev`; `scratch`
    /// addresses distinct writable elements that overlap neither input, and may be overwritten.
    ///
    /// # Errors
    ///
    /// `Error::Device` when a device fails to run the kernel.
    unsafe fn dot<T: Float, const N: usize>(
        dev: &Self::Device,
        x: Desc<Self, T, N>,
        y: Desc<Self, T, N>,
        scratch: Desc<Self, T, N>,
    ) -> Result<T> {
        if x.is_empty() {
            return Ok(T::ZERO);
        }
        let [s, x, y] = merged3(scratch, x, y);
        // SAFETY: the caller's contract: `s` is writable, distinct from the live inputs.
        unsafe { Self::binary(dev, Mul, s, x, y) }?;
        // SAFETY: `s` was just written; nothing else writes it during the call.
        unsafe { Self::reduce(dev, Sum, s) }
    }

    /// `y[i] = a x[i] + b y[i]`, rounded as `fl(fl(a x) + fl(b y))` (with `b y = y` exactly when
    /// `b` is one), so every backend's kernel gives the same bits.
    ///
    /// # Safety
    ///
    /// As for [`VectorKernels::dot`]; `y` addresses distinct writable elements, initialized,
    /// overlapping neither `x` nor `scratch`.
    ///
    /// # Errors
    ///
    /// As for [`VectorKernels::dot`].
    unsafe fn axpby<T: Float, const N: usize>(
        dev: &Self::Device,
        a: T,
        x: Desc<Self, T, N>,
        b: T,
        y: Desc<Self, T, N>,
        scratch: Desc<Self, T, N>,
    ) -> Result<()> {
        let [y, x, s] = merged3(y, x, scratch);
        if b != T::ONE {
            // SAFETY: `y` is the caller's writable operand.
            unsafe { Self::update_unary(dev, ScalarRight(Mul, b), y) }?;
        }
        if a == T::ONE {
            // SAFETY: `y` and `x` do not overlap (the caller's contract).
            return unsafe { Self::update(dev, Add, y, x) };
        }
        // SAFETY: `s` is writable and distinct from `x`; then `y` from `s`.
        unsafe { Self::unary(dev, ScalarRight(Mul, a), s, x) }?;
        // SAFETY: as above.
        unsafe { Self::update(dev, Add, y, s) }
    }

    /// [`VectorKernels::axpby`], then `Σ y[i]²` over the updated `y` (in any summation order):
    /// a Krylov method's residual update and its norm in one pass where the backend fuses them
    /// (the CPU and CUDA do; the provided form is the two passes).
    ///
    /// # Safety
    ///
    /// As for [`VectorKernels::axpby`].
    ///
    /// # Errors
    ///
    /// As for [`VectorKernels::dot`].
    unsafe fn axpby_sumsq<T: Float, const N: usize>(
        dev: &Self::Device,
        a: T,
        x: Desc<Self, T, N>,
        b: T,
        y: Desc<Self, T, N>,
        scratch: Desc<Self, T, N>,
    ) -> Result<T> {
        // SAFETY: the caller's contract for `axpby`, which covers `dot`'s (`y` read twice, the
        // scratch distinct from it).
        unsafe { Self::axpby(dev, a, x, b, y, scratch) }?;
        // SAFETY: as above.
        unsafe { Self::dot(dev, y, y, scratch) }
    }

    /// `x = a p + x`, then `p = r + b p` (each rounded as [`VectorKernels::axpby`] rounds it):
    /// CG's iterate and its next direction in one pass where the backend fuses them (the CPU and
    /// CUDA do; the provided form is the two passes).
    ///
    /// # Safety
    ///
    /// The four have one shape and address live memory on `dev`; `x` and `p` address distinct
    /// writable, initialized elements that overlap each other, `r` and `scratch` nowhere;
    /// `scratch` as for [`VectorKernels::dot`].
    ///
    /// # Errors
    ///
    /// As for [`VectorKernels::dot`].
    unsafe fn axpy_xpby<T: Float, const N: usize>(
        dev: &Self::Device,
        a: T,
        p: Desc<Self, T, N>,
        x: Desc<Self, T, N>,
        b: T,
        r: Desc<Self, T, N>,
        scratch: Desc<Self, T, N>,
    ) -> Result<()> {
        // SAFETY: the caller's contract: `x` is writable and apart from `p` and the scratch;
        // then `p` is, apart from `r` and the scratch.
        unsafe { Self::axpby(dev, a, p, T::ONE, x, scratch) }?;
        // SAFETY: as above.
        unsafe { Self::axpby(dev, T::ONE, r, b, p, scratch) }
    }
}
