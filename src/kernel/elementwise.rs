//! The elementwise kernel family: binary, unary and in-place ops, each named by a token.

use crate::element::Pod;
use crate::error::Result;
use crate::kernel::tokens::{BinaryOp, UnaryOp};
use crate::kernel::{Backend, Desc};

/// The elementwise kernels a backend provides. Every operand has the shape of the output (the
/// generic algorithm broadcast them already) and axes already merged where possible.
///
/// # Safety
///
/// Implementations write every element of `out` (or `dst`) for every index of its shape, exactly
/// as the op token computes it, touch no other memory, and return only after the writes are
/// visible to the next operation on the same device (or ordered before it on its stream). A
/// device backend that picks its kernel by the token's name takes only the names of cnda's own
/// tokens ([`DEVICE_BINARY`](crate::kernel::tokens::DEVICE_BINARY),
/// [`DEVICE_UNARY`](crate::kernel::tokens::DEVICE_UNARY)) and refuses any other with
/// `Error::NoKernel`, so no token, whatever it names, selects a kernel of another signature.
pub unsafe trait ElementwiseKernels: Backend {
    /// `out[i] = op(a[i], b[i])`.
    ///
    /// # Safety
    ///
    /// Every descriptor addresses live memory on `dev` for every index of `out.shape`; `out`'s
    /// indices address distinct writable elements (possibly uninitialized) that overlap no input.
    ///
    /// # Errors
    ///
    /// `Error::Device` when a device fails to run the kernel.
    unsafe fn binary<T: Pod, Op: BinaryOp<T>, const N: usize>(
        dev: &Self::Device,
        op: Op,
        out: Desc<Self, T, N>,
        a: Desc<Self, T, N>,
        b: Desc<Self, T, N>,
    ) -> Result<()>;

    /// `out[i] = op(a[i])`.
    ///
    /// # Safety
    ///
    /// As for [`ElementwiseKernels::binary`], with one input.
    ///
    /// # Errors
    ///
    /// As for [`ElementwiseKernels::binary`].
    unsafe fn unary<T: Pod, Op: UnaryOp<T>, const N: usize>(
        dev: &Self::Device,
        op: Op,
        out: Desc<Self, Op::Output, N>,
        a: Desc<Self, T, N>,
    ) -> Result<()>;

    /// `dst[i] = op(dst[i], src[i])`.
    ///
    /// # Safety
    ///
    /// Both address live memory on `dev` for every index; `dst`'s indices address distinct,
    /// initialized, writable elements that overlap no element of `src`.
    ///
    /// # Errors
    ///
    /// As for [`ElementwiseKernels::binary`].
    unsafe fn update<T: Pod, Op: BinaryOp<T>, const N: usize>(
        dev: &Self::Device,
        op: Op,
        dst: Desc<Self, T, N>,
        src: Desc<Self, T, N>,
    ) -> Result<()>;

    /// `dst[i] = op(dst[i])`.
    ///
    /// # Safety
    ///
    /// `dst` addresses live memory on `dev` for every index, distinct initialized writable
    /// elements.
    ///
    /// # Errors
    ///
    /// As for [`ElementwiseKernels::binary`].
    unsafe fn update_unary<T: Pod, Op: UnaryOp<T, Output = T>, const N: usize>(
        dev: &Self::Device,
        op: Op,
        dst: Desc<Self, T, N>,
    ) -> Result<()>;
}
