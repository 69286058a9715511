//! Halo fills, written once over the copy kernels, so they run on every backend: padded copies
//! ([`pad`], [`pad_axes`]), the in-place refresh of an already padded array ([`fill_halo`], and
//! [`fill_halo_side`] for one side of one axis), and the per-side boundary fills of the time
//! steppers (`boundary.rs`). A halo slab is filled by one `fill` (a constant) or copied from the
//! interior slab its mode reads, so a refresh costs a few kernel calls per axis on any device.

use super::pad::{check_modes, source, PadMode};
use crate::array::Array;
use crate::element::Pod;
use crate::error::{or_panic, Error, Result};
use crate::kernel::{Allocator, CopyKernels, Desc};
use crate::ops::operand::{AsOperand, AsOperandMut};

/// One end of an axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    /// The end at index 0.
    Low,
    /// The end at the last index.
    High,
}

/// Fills the `width` halo slabs at `side` of `axis` of `d` as `mode` says: one fill for a
/// constant, else each slab copied from the interior slab the mode reads (NumPy's `pad` rule),
/// over the whole extent of the other axes.
///
/// # Safety
///
/// `d` addresses live, writable memory on `dev`, accessed by nothing else during the call;
/// `d.shape[axis] >= 2 * width`, with a non-empty interior unless `mode` is `Constant`.
///
/// # Errors
///
/// `Error::Device` from a kernel.
pub(super) unsafe fn fill_side<B: CopyKernels, T: Pod, const N: usize>(
    dev: &B::Device,
    d: Desc<B, T, N>,
    axis: usize,
    width: usize,
    side: Side,
    mode: &PadMode<T>,
) -> Result<()> {
    if width == 0 {
        return Ok(());
    }
    let inner = d.shape[axis] - 2 * width;
    let first = match side {
        Side::Low => 0,
        Side::High => width + inner,
    };
    if let PadMode::Constant(value) = mode {
        // SAFETY: the slabs are part of `d` (the caller's contract).
        return unsafe { B::fill(dev, d.narrowed(axis, first, width), *value) };
    }
    for p in first..first + width {
        let q = source(p as isize - width as isize, inner, mode).expect("only constant halo points have no source");
        // SAFETY: `p` is a halo index and `q + width` an interior one, so the two slabs are
        // distinct elements of `d` (the caller's contract).
        unsafe { B::copy(dev, d.narrowed(axis, p, 1), d.narrowed(axis, q + width, 1)) }?;
    }
    Ok(())
}

/// Both sides of `axis`: `fill_halo`'s pass for one axis.
///
/// # Safety
///
/// As for [`fill_side`].
///
/// # Errors
///
/// `Error::Device` from a kernel.
pub(super) unsafe fn fill_axis<B: CopyKernels, T: Pod, const N: usize>(
    dev: &B::Device,
    d: Desc<B, T, N>,
    axis: usize,
    width: usize,
    mode: &PadMode<T>,
) -> Result<()> {
    // SAFETY: the caller's contract.
    unsafe {
        fill_side(dev, d, axis, width, Side::Low, mode)?;
        fill_side(dev, d, axis, width, Side::High, mode)
    }
}

/// The interior length of each axis of `shape` inside halos of `widths`.
///
/// # Errors
///
/// `Error::Range` when an axis is shorter than twice its halo width.
fn interior_lengths<const N: usize>(op: &'static str, shape: [usize; N], widths: [usize; N]) -> Result<[usize; N]> {
    let mut inner = [0usize; N];
    for k in 0..N {
        inner[k] = widths[k].checked_mul(2).and_then(|both| shape[k].checked_sub(both)).ok_or(Error::Range {
            op,
            axis: k,
            start: isize::try_from(widths[k]).unwrap_or(isize::MAX),
            end: (shape[k] as i128 - widths[k] as i128).clamp(isize::MIN as i128, isize::MAX as i128) as isize,
            size: shape[k],
        })?;
    }
    Ok(inner)
}

/// Refreshes, in place, the halo of an array padded by `widths[k]` points on both ends of axis
/// `k`: every halo point gets what [`pad_axes`] would give it from the current interior. No
/// allocation; axes are filled one after another over their whole extent (halos of the other
/// axes included), so corners come out as `pad_axes` makes them. Any backend: `&mut array` or a
/// mutable view.
///
/// ```
/// use cnda::prelude::*;
/// use cnda::stencil::{fill_halo, pad, PadMode};
/// let mut u = pad(Array::from_fn([3, 3], |[i, j]| (3 * i + j) as f64).view(), 1, PadMode::Periodic);
/// u[[1, 1]] = 100.0;                                       // interior point [0, 0] changes
/// fill_halo(&mut u, [1, 1], [PadMode::Periodic; 2]);      // an array, or any mutable view
/// assert_eq!((u[[4, 1]], u[[1, 4]], u[[4, 4]]), (100.0, 100.0, 100.0)); // its periodic images
/// ```
///
/// # Panics
///
/// As [`try_fill_halo`] errs.
#[track_caller]
pub fn fill_halo<T: Pod, const N: usize, B: CopyKernels>(
    padded: impl AsOperandMut<T, N, B>,
    widths: [usize; N],
    modes: [PadMode<T>; N],
) {
    or_panic(try_fill_halo(padded, widths, modes))
}

/// [`fill_halo`], returning errors.
///
/// # Errors
///
/// `Error::Range` when an axis is shorter than twice its halo width; `Error::Layout` when an
/// interior is empty and a mode needs values from it; `Error::Device` from a kernel.
pub fn try_fill_halo<T: Pod, const N: usize, B: CopyKernels>(
    mut padded: impl AsOperandMut<T, N, B>,
    widths: [usize; N],
    modes: [PadMode<T>; N],
) -> Result<()> {
    let d = padded.operand_desc_mut();
    let inner = interior_lengths("fill_halo", d.shape, widths)?;
    check_modes("fill_halo", inner, &modes)?;
    for k in 0..N {
        // SAFETY: `d` is the uniquely borrowed operand's, live and writable for the call; axis `k`
        // is `2 * widths[k] + inner[k]` long, and only `Constant` halos surround an empty interior.
        unsafe { fill_axis(&B::handle_device(d.handle), d, k, widths[k], &modes[k]) }?;
    }
    Ok(())
}

/// Refreshes the halo of one side of one axis of a padded array (width `width`), as
/// [`fill_halo`] would there and nowhere else: for a boundary condition that differs per side,
/// or a halo exchanged with a neighbour on the other side.
///
/// ```
/// use cnda::prelude::*;
/// use cnda::stencil::{fill_halo_side, PadMode, Side};
/// let mut u = Array::from_fn([4, 6], |[_, j]| j as f64); // interior columns 2 and 3
/// fill_halo_side(&mut u, 1, Side::High, 2, PadMode::Symmetric);
/// assert_eq!(u.row(0).iter().copied().collect::<Vec<_>>(), [0.0, 1.0, 2.0, 3.0, 3.0, 2.0]);
/// ```
///
/// # Panics
///
/// As [`try_fill_halo_side`] errs.
#[track_caller]
pub fn fill_halo_side<T: Pod, const N: usize, B: CopyKernels>(
    padded: impl AsOperandMut<T, N, B>,
    axis: usize,
    side: Side,
    width: usize,
    mode: PadMode<T>,
) {
    or_panic(try_fill_halo_side(padded, axis, side, width, mode))
}

/// [`fill_halo_side`], returning errors.
///
/// # Errors
///
/// `Error::AxisOutOfRange`; `Error::Range` when the axis is shorter than twice the width;
/// `Error::Layout` when its interior is empty and the mode needs values from it;
/// `Error::Device` from a kernel.
pub fn try_fill_halo_side<T: Pod, const N: usize, B: CopyKernels>(
    mut padded: impl AsOperandMut<T, N, B>,
    axis: usize,
    side: Side,
    width: usize,
    mode: PadMode<T>,
) -> Result<()> {
    let d = padded.operand_desc_mut();
    if axis >= N {
        return Err(Error::AxisOutOfRange { op: "fill_halo_side", axis, rank: N });
    }
    let mut widths = [0; N];
    widths[axis] = width;
    let inner = interior_lengths("fill_halo_side", d.shape, widths)?;
    let mut modes = [PadMode::Constant(T::zeroed()); N];
    modes[axis] = mode;
    check_modes("fill_halo_side", inner, &modes)?;
    // SAFETY: as in `try_fill_halo`, for one side of one axis.
    unsafe { fill_side(&B::handle_device(d.handle), d, axis, width, side, &mode) }
}

/// A copy of `a` with `width` halo points on both ends of every axis (shape `n + 2 * width`),
/// filled by `mode`, on `a`'s backend (from its allocator); [`pad_axes`] takes a width and a
/// mode per axis. On the CPU the copy of `a`'s first element starts a cache line (the buffer
/// starts up to 63 bytes before one), as Devito places its domains: when a row of the padded
/// array is a whole number of lines (`208` `f32`s, say), every interior row starts on one and a
/// stencil's vector loads and stores along it split no line.
///
/// # Panics
///
/// As [`try_pad`] errs.
#[track_caller]
pub fn pad<T: Pod, const N: usize, B: CopyKernels>(
    a: impl AsOperand<T, N, B>,
    width: usize,
    mode: PadMode<T>,
) -> Array<T, N, B> {
    or_panic(try_pad(a, width, mode))
}

/// [`pad`], returning errors.
///
/// # Errors
///
/// As [`try_pad_axes`].
pub fn try_pad<T: Pod, const N: usize, B: CopyKernels>(
    a: impl AsOperand<T, N, B>,
    width: usize,
    mode: PadMode<T>,
) -> Result<Array<T, N, B>> {
    try_pad_axes(a, [width; N], [mode; N])
}

/// A copy of `a` padded by `widths[k]` points on both ends of axis `k`, filled by `modes[k]`.
///
/// ```
/// use cnda::prelude::*;
/// use cnda::stencil::{pad_axes, PadMode};
/// let a = Array::from_fn([2, 3], |[i, j]| (3 * i + j) as f64);
/// let p = pad_axes(a.view(), [1, 0], [PadMode::Constant(-1.0), PadMode::Edge]);
/// assert_eq!(p.shape(), [4, 3]);
/// assert_eq!(p.row(0).iter().copied().collect::<Vec<_>>(), [-1.0; 3]);
/// ```
///
/// # Panics
///
/// As [`try_pad_axes`] errs.
#[track_caller]
pub fn pad_axes<T: Pod, const N: usize, B: CopyKernels>(
    a: impl AsOperand<T, N, B>,
    widths: [usize; N],
    modes: [PadMode<T>; N],
) -> Array<T, N, B> {
    or_panic(try_pad_axes(a, widths, modes))
}

/// The row-major position of the interior's first point in an array of shape `padded` with
/// `widths` halo points before it on each axis (0 when the array is empty).
pub(crate) fn interior_start<const N: usize>(padded: [usize; N], widths: [usize; N]) -> usize {
    if padded.contains(&0) {
        return 0;
    }
    // Below the (fitting) element count, since `widths[k] < padded[k]`: no overflow.
    (0..N).fold(0, |at, k| at * padded[k] + widths[k])
}

/// [`pad_axes`], returning errors.
///
/// # Errors
///
/// `Error::Layout` when an axis is empty and its mode needs values from it; `Error::Overflow`
/// when the padded shape overflows; `Error::Alloc`; `Error::Device` from a kernel.
pub fn try_pad_axes<T: Pod, const N: usize, B: CopyKernels>(
    a: impl AsOperand<T, N, B>,
    widths: [usize; N],
    modes: [PadMode<T>; N],
) -> Result<Array<T, N, B>> {
    try_pad_into_rows(a, widths, modes, false)
}

/// [`try_pad_axes`] into rows of whole cache lines where the backend places host memory
/// ([`Allocator::line_pitch`](crate::kernel::Allocator::line_pitch)): the array's last axis is
/// then longer than the padded array's by fewer than `64 / gcd(64, size)` elements (under a
/// line for elements of a power-of-two size), zero past it, so that every row's interior starts
/// on a line, not only the first.
///
/// # Errors
///
/// As [`try_pad_axes`].
pub(crate) fn try_pad_axes_pitched<T: Pod, const N: usize, B: CopyKernels>(
    a: impl AsOperand<T, N, B>,
    widths: [usize; N],
    modes: [PadMode<T>; N],
) -> Result<Array<T, N, B>> {
    try_pad_into_rows(a, widths, modes, true)
}

/// [`try_pad_axes`], its rows of whole cache lines when `pitched`.
fn try_pad_into_rows<T: Pod, const N: usize, B: CopyKernels>(
    a: impl AsOperand<T, N, B>,
    widths: [usize; N],
    modes: [PadMode<T>; N],
    pitched: bool,
) -> Result<Array<T, N, B>> {
    let src = a.operand_desc();
    let shape = src.shape;
    check_modes("pad", shape, &modes)?;
    let mut padded = [0usize; N];
    for k in 0..N {
        padded[k] = widths[k].checked_mul(2).and_then(|w| w.checked_add(shape[k])).ok_or(Error::Overflow {
            op: "pad",
            shape: shape.to_vec(),
            elem_size: core::mem::size_of::<T>(),
        })?;
    }
    let alloc = B::allocator_of_handle(src.handle);
    let mut storage = padded;
    if pitched && N > 0 {
        storage[N - 1] = alloc.line_pitch::<T>(padded[N - 1]).max(padded[N - 1]);
    }
    let len = crate::shape::checked_len("pad", &storage, core::mem::size_of::<T>())?;
    let dev = B::handle_device(src.handle);
    // SAFETY: every element is written before any is read: the columns past the padded array's
    // last (when pitched) and the halo slabs of every axis (which together cover every point
    // outside the interior) are zeroed first, then the interior is copied, then the halos filled
    // from it; the kernels only write their destinations.
    let buffer = unsafe { alloc.try_alloc_for_overwrite_at_line::<T>("pad", len, interior_start(storage, widths)) }?;
    let mut out = Array::<T, N, B>::from_buffer_in(buffer, storage);
    let mut d = out.desc_mut();
    // The interior by the copy kernel, then the halos slab by slab (which gives the corners the
    // same values as `fill_halo`): a copy's speed, where a per-element source lookup ran at
    // about a quarter of it. Only the halo slabs are zeroed, not the whole array.
    // SAFETY: `d` is the fresh array's, owned here; `src` is a live borrowed operand on the same
    // device, which the fresh array cannot overlap.
    unsafe {
        // The columns past the padded array's last (rows of whole lines), zero.
        if storage != padded {
            let last = padded[N - 1];
            B::fill(&dev, d.narrowed(N - 1, last, storage[N - 1] - last), T::zeroed())?;
            d = d.narrowed(N - 1, 0, last);
        }
        for k in 0..N {
            if widths[k] > 0 {
                B::fill(&dev, d.narrowed(k, 0, widths[k]), T::zeroed())?;
                B::fill(&dev, d.narrowed(k, padded[k] - widths[k], widths[k]), T::zeroed())?;
            }
        }
        let interior = (0..N).fold(d, |i, k| i.narrowed(k, widths[k], shape[k]));
        B::copy(&dev, interior, src)?;
        for k in 0..N {
            fill_axis(&dev, d, k, widths[k], &modes[k])?;
        }
    }
    Ok(out)
}
