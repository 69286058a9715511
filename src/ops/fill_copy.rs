//! Fill and copy, written once for every backend: `fill`, `assign` (with broadcasting),
//! `to_layout` / `to_owned` / `contiguous()` (a copy into a fresh dense array). The generic
//! algorithms check devices, broadcast, put a column-major destination in row-major terms
//! (reversing every operand's axes, which a copy does not notice), merge axes, and call the
//! backend's [`CopyKernels`].

use crate::array::Array;
use crate::check::BoundsCheck;
use crate::element::Pod;
use crate::error::Result;
use crate::kernel::{merged2, CopyKernels, Desc};
use crate::kernel::{Allocator, Backend};
use crate::layout::Dense;
use crate::ops::output::same_device;

/// The same elements with every axis reversed (a copy between two operands reversed alike visits
/// the same pairs).
fn reversed<B: Backend, T: Pod, const N: usize>(mut d: Desc<B, T, N>) -> Desc<B, T, N> {
    d.shape.reverse();
    d.strides.reverse();
    d
}

/// `dst = value` for every element.
///
/// # Safety
///
/// `dst` addresses distinct elements that the caller borrows uniquely.
///
/// # Errors
///
/// `Error::Device`.
pub(crate) unsafe fn fill<B: CopyKernels, T: Pod, const N: usize>(dst: Desc<B, T, N>, value: T) -> Result<()> {
    let (shape, [strides]) = crate::geometry::merge_axes(dst.shape, [dst.strides]);
    // SAFETY: the caller's contract; merging keeps the same elements.
    unsafe { B::fill(&B::handle_device(dst.handle), Desc { shape, strides, ..dst }, value) }
}

/// `dst = src` with `src` broadcast to `dst`'s shape.
///
/// # Safety
///
/// `dst` addresses distinct elements that the caller borrows uniquely, none of which `src` (a
/// live operand) overlaps.
///
/// # Errors
///
/// `Error::Broadcast` when `src` does not broadcast to `dst`; `Error::DeviceMismatch`;
/// `Error::Device`.
pub(crate) unsafe fn assign<B: CopyKernels, T: Pod, const N: usize, const M: usize>(
    dst: Desc<B, T, N>,
    src: Desc<B, T, M>,
) -> Result<()> {
    let dev = B::handle_device(dst.handle);
    same_device::<B>("assign", &dev, &[B::handle_device(src.handle)])?;
    let src = src.broadcast(dst.shape)?;
    let (dst, src) = merged2(dst, src);
    // SAFETY: the caller's contract; `src` covers `dst`'s shape after the broadcast.
    unsafe { B::copy(&dev, dst, src) }
}

/// A copy of `src` in dense layout `L2`, from `alloc`.
///
/// # Safety
///
/// `src` describes live elements that nothing writes during the call.
///
/// # Errors
///
/// `Error::DeviceMismatch`; `Error::Overflow`/`Error::Alloc`; `Error::Device`.
pub(crate) unsafe fn to_layout<B, T, const N: usize, L2, C>(
    alloc: &impl Allocator<B>,
    src: Desc<B, T, N>,
) -> Result<Array<T, N, B, L2, C>>
where
    B: CopyKernels,
    T: Pod,
    L2: Dense,
    C: BoundsCheck,
{
    let dev = alloc.device();
    same_device::<B>("to_layout", &dev, &[B::handle_device(src.handle)])?;
    let len = crate::shape::checked_len("to_layout", &src.shape, core::mem::size_of::<T>())?;
    // SAFETY: the copy below writes every element before anything reads one.
    let buf = unsafe { alloc.try_alloc_for_overwrite::<T>("to_layout", len) }?;
    let mut out = Array::<T, N, B, L2, C>::from_buffer_in(buf, src.shape);
    let (mut dst, mut src) = (out.desc_mut(), src);
    if !L2::LAST_AXIS_FASTEST {
        // A column-major array is a row-major one of reversed axes.
        (dst, src) = (reversed(dst), reversed(src));
    }
    let (dst, src) = merged2(dst, src);
    // SAFETY: a fresh destination, which no source overlaps; `src` is live (caller's contract).
    unsafe { B::copy(&dev, dst, src) }?;
    Ok(out)
}
