//! The reduction kernel family: whole-operand reductions, arg-reductions and reductions along
//! the last axis, each named by a token.

use crate::element::{Arithmetic, Numeric};
use crate::error::Result;
use crate::kernel::tokens::{ArgOp, ReduceOp};
use crate::kernel::{Backend, Desc};

/// The reduction kernels a backend provides.
///
/// # Safety
///
/// Implementations read only the indices of their operands' shapes, write every element of
/// `out` in `reduce_last_axis`, and return results as the tokens define them (NaN rules included).
/// A device backend that picks its kernel by the token's name takes only cnda's own
/// ([`DEVICE_FOLD`](crate::kernel::tokens::DEVICE_FOLD) for reductions,
/// [`DEVICE_ARG`](crate::kernel::tokens::DEVICE_ARG) for searches) and refuses any other with
/// `Error::NoKernel`.
pub unsafe trait ReduceKernels: Backend {
    /// `op` over every element of `a`, which is not empty.
    ///
    /// # Safety
    ///
    /// `a` addresses live memory on `dev` for every index of its shape.
    ///
    /// # Errors
    ///
    /// `Error::Device` when a device fails.
    unsafe fn reduce<T: Arithmetic, Op: ReduceOp<T>, const N: usize>(
        dev: &Self::Device,
        op: Op,
        a: Desc<Self, T, N>,
    ) -> Result<T>;

    /// `out[i] = op` over the last axis of `a` at outer index `i`: `a` has `N = M + 1` axes, its
    /// first `M` are `out`'s shape; an empty last axis gives the op's identity (the generic
    /// algorithm only passes one when the identity exists).
    ///
    /// # Safety
    ///
    /// Both address live memory on `dev`; `out`'s indices address distinct writable elements
    /// (possibly uninitialized) that overlap no element of `a`.
    ///
    /// # Errors
    ///
    /// `Error::Device` when a device fails.
    unsafe fn reduce_last_axis<T: Arithmetic, Op: ReduceOp<T>, const N: usize, const M: usize>(
        dev: &Self::Device,
        op: Op,
        out: Desc<Self, T, M>,
        a: Desc<Self, T, N>,
    ) -> Result<()>;

    /// The row-major position of the first best element of `a` (of its first NaN, if any); `a`
    /// is not empty.
    ///
    /// # Safety
    ///
    /// As for [`ReduceKernels::reduce`].
    ///
    /// # Errors
    ///
    /// `Error::Device` when a device fails.
    unsafe fn arg_reduce<T: Numeric, Op: ArgOp<T>, const N: usize>(
        dev: &Self::Device,
        op: Op,
        a: Desc<Self, T, N>,
    ) -> Result<usize>;
}
