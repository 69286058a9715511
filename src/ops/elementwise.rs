//! The elementwise op family, written once for every backend: binary ops with NumPy broadcasting,
//! unary ops (math, scalar operands), and in-place updates (compound assignment).
//!
//! Each generic algorithm here validates and broadcasts the operands, checks that they share a
//! device, allocates the output from the given allocator, merges the axes every operand steps
//! through uniformly, and hands [`Desc`]s and an op token to the backend's
//! [`ElementwiseKernels`]. The CPU's implementation is the lane engine (`backend/cpu`).

use crate::array::Array;
use crate::check::BoundsCheck;
use crate::element::Pod;
use crate::error::Result;
use crate::geometry::broadcast_shapes;
use crate::kernel::tokens::{BinaryOp, UnaryOp};
use crate::kernel::Allocator;
use crate::kernel::{merged2, merged3, Desc, ElementwiseKernels};
use crate::layout::RowMajor;
use crate::ops::output::{fresh, same_device};

/// `op(a, b)` over the broadcast shape of `a` and `b`, into a fresh row-major array from `alloc`.
///
/// # Safety
///
/// `a` and `b` describe live operands: every element their shapes and strides reach is
/// initialized memory on their device, valid for the call (what an array's or view's `desc()`
/// gives). The kernels read through them unchecked.
///
/// # Errors
///
/// `Error::BroadcastOperands` when the shapes do not broadcast; `Error::DeviceMismatch`;
/// `Error::Overflow`/`Error::Alloc` from the allocation; `Error::Device` from the kernel.
pub(crate) unsafe fn binary<B, T, Op, const N: usize, const M: usize, const K: usize, C>(
    alloc: &impl Allocator<B>,
    op: Op,
    a: Desc<B, T, N>,
    b: Desc<B, T, M>,
) -> Result<Array<T, K, B, RowMajor, C>>
where
    B: ElementwiseKernels,
    T: Pod,
    Op: BinaryOp<T>,
    C: BoundsCheck,
{
    let dev = alloc.device();
    same_device::<B>(Op::NAME, &dev, &[B::handle_device(a.handle), B::handle_device(b.handle)])?;
    let shape = broadcast_shapes::<N, M, K>(a.shape, b.shape)?;
    let (a, b) = (a.broadcast(shape)?, b.broadcast(shape)?);
    // SAFETY: the kernel writes every element of `out`, a fresh allocation no input overlaps;
    // `a` and `b` are broadcasts of live operands covering `shape`.
    unsafe {
        fresh(alloc, Op::NAME, shape, |out| {
            let [out, a, b] = merged3(out, a, b);
            B::binary(&dev, op, out, a, b)
        })
    }
}

/// `op(a)` for every element, into a fresh row-major array from `alloc`.
///
/// # Safety
///
/// As for [`binary`], for `a`.
///
/// # Errors
///
/// As for [`binary`], less the broadcast.
pub(crate) unsafe fn unary<B, T, Op, const N: usize, C>(
    alloc: &impl Allocator<B>,
    op: Op,
    a: Desc<B, T, N>,
) -> Result<Array<Op::Output, N, B, RowMajor, C>>
where
    B: ElementwiseKernels,
    T: Pod,
    Op: UnaryOp<T>,
    C: BoundsCheck,
{
    let dev = alloc.device();
    same_device::<B>(Op::NAME, &dev, &[B::handle_device(a.handle)])?;
    // SAFETY: as in `binary`.
    unsafe {
        fresh(alloc, Op::NAME, a.shape, |out| {
            let (out, a) = merged2(out, a);
            B::unary(&dev, op, out, a)
        })
    }
}

/// `dst = op(dst, src)` with `src` broadcast to `dst`'s shape.
///
/// # Safety
///
/// `dst` addresses distinct, initialized elements that the caller borrows uniquely, none of which
/// `src` (a live operand) overlaps.
///
/// # Errors
///
/// `Error::Broadcast` when `src` does not broadcast to `dst`; `Error::DeviceMismatch`;
/// `Error::Device`.
pub(crate) unsafe fn update<B, T, Op, const N: usize, const M: usize>(
    op: Op,
    dst: Desc<B, T, N>,
    src: Desc<B, T, M>,
) -> Result<()>
where
    B: ElementwiseKernels,
    T: Pod,
    Op: BinaryOp<T>,
{
    let dev = B::handle_device(dst.handle);
    same_device::<B>(Op::NAME, &dev, &[B::handle_device(src.handle)])?;
    let src = src.broadcast(dst.shape)?;
    let (dst, src) = merged2(dst, src);
    // SAFETY: the caller's contract; `src` covers `dst`'s shape after the broadcast.
    unsafe { B::update(&dev, op, dst, src) }
}

/// `dst = op(dst)`.
///
/// # Safety
///
/// `dst` addresses distinct, initialized elements that the caller borrows uniquely.
///
/// # Errors
///
/// `Error::Device`.
pub(crate) unsafe fn update_unary<B, T, Op, const N: usize>(op: Op, dst: Desc<B, T, N>) -> Result<()>
where
    B: ElementwiseKernels,
    T: Pod,
    Op: UnaryOp<T, Output = T>,
{
    let dev = B::handle_device(dst.handle);
    let (shape, [strides]) = crate::geometry::merge_axes(dst.shape, [dst.strides]);
    // SAFETY: the caller's contract.
    unsafe { B::update_unary(&dev, op, Desc { shape, strides, ..dst }) }
}
