//! Halo padding: a copy of an array with extra points on both sides of each axis, filled like
//! NumPy's `np.pad` modes (one width and mode for all axes, or one per axis), the in-place refresh
//! of the halo of an already padded array (`fill_halo`, what a time loop or a distributed halo
//! exchange calls between sweeps), and the view of the original region inside a padded array.

use crate::array::Array;
use crate::array::AsViewMut;
use crate::check::BoundsCheck;
use crate::element::Pod;
use crate::error::or_panic;
use crate::error::{Error, Result};
use crate::kernel::{CopyKernels, Cpu, Desc};
use crate::layout::{Layout, Strided};
use crate::view::ArrayView;

/// How halo points are filled.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PadMode<T> {
    /// A fixed value (`np.pad(mode="constant")`), e.g. a Dirichlet boundary.
    Constant(T),
    /// The nearest edge value repeated (`mode="edge"`), a zero-gradient boundary.
    Edge,
    /// Mirrored about the edge, the edge itself not repeated (`mode="reflect"`).
    Reflect,
    /// Wrapped around (`mode="wrap"`), a periodic domain.
    Periodic,
}

/// Where padded position `p` (relative to the original start) reads from on an axis of length `n`,
/// or `None` for a constant halo point.
fn source<T>(p: isize, n: usize, mode: &PadMode<T>) -> Option<usize> {
    let n = n as isize;
    if (0..n).contains(&p) {
        return Some(p as usize);
    }
    match mode {
        PadMode::Constant(_) => None,
        PadMode::Edge => Some(p.clamp(0, n - 1) as usize),
        PadMode::Periodic => Some(p.rem_euclid(n) as usize),
        PadMode::Reflect => {
            if n == 1 {
                return Some(0);
            }
            // Reflection has period 2(n - 1): fold into one period, then mirror its second half.
            let period = 2 * (n - 1);
            let q = p.rem_euclid(period);
            Some(if q < n { q } else { period - q } as usize)
        }
    }
}

/// A copy of `a` with `width` halo points on both ends of every axis (shape `n + 2 * width`),
/// filled by `mode`; [`pad_axes`] takes a width and a mode per axis.
///
/// # Panics
///
/// When an axis is empty and the mode needs values from it, or the padded array cannot be allocated; [`try_pad`] returns the error instead.
#[track_caller]
pub fn pad<T: Pod, const N: usize, L: Layout, C: BoundsCheck>(
    a: ArrayView<'_, T, N, L, C>,
    width: usize,
    mode: PadMode<T>,
) -> Array<T, N> {
    or_panic(try_pad(a, width, mode))
}

/// A copy of `a` with `width` halo points on both ends of every axis (shape `n + 2 * width`),
/// filled by `mode`; [`pad_axes`] takes a width and a mode per axis.
///
/// ```
/// use cnda::prelude::*;
/// use cnda::stencil::{pad, PadMode};
/// let a = Array::from_shape_vec([3], vec![1, 2, 3]).unwrap();
/// assert_eq!(pad(a.view(), 2, PadMode::Reflect).as_slice(), &[3, 2, 1, 2, 3, 2, 1]);
/// assert_eq!(pad(a.view(), 2, PadMode::Periodic).as_slice(), &[2, 3, 1, 2, 3, 1, 2]);
/// assert_eq!(pad(a.view(), 1, PadMode::Edge).as_slice(), &[1, 1, 2, 3, 3]);
/// assert_eq!(pad(a.view(), 1, PadMode::Constant(0)).as_slice(), &[0, 1, 2, 3, 0]);
/// ```
///
/// # Errors
///
/// `Error::Layout` when an axis is empty and the mode needs values from it (every mode but
/// `Constant`); `Error::Overflow` / `Error::Alloc` for a padded shape too large.
pub fn try_pad<T: Pod, const N: usize, L: Layout, C: BoundsCheck>(
    a: ArrayView<'_, T, N, L, C>,
    width: usize,
    mode: PadMode<T>,
) -> Result<Array<T, N>> {
    try_pad_axes(a, [width; N], [mode; N])
}

/// A copy of `a` with `widths[k]` halo points on both ends of axis `k`, filled by `modes[k]`:
/// periodic in one axis and a fixed value in another, say. A halo point outside the array on
/// several axes (a corner) takes `Constant`'s value if any of those axes is `Constant`, else the
/// value the other modes select together, as NumPy's `np.pad` does.
///
/// # Panics
///
/// As for [`pad`], per axis; [`try_pad_axes`] returns the error instead.
#[track_caller]
pub fn pad_axes<T: Pod, const N: usize, L: Layout, C: BoundsCheck>(
    a: ArrayView<'_, T, N, L, C>,
    widths: [usize; N],
    modes: [PadMode<T>; N],
) -> Array<T, N> {
    or_panic(try_pad_axes(a, widths, modes))
}

/// A copy of `a` with `widths[k]` halo points on both ends of axis `k`, filled by `modes[k]`:
/// periodic in one axis and a fixed value in another, say. A halo point outside the array on
/// several axes (a corner) takes `Constant`'s value if any of those axes is `Constant`, else the
/// value the other modes select together, as NumPy's `np.pad` does.
///
/// ```
/// use cnda::prelude::*;
/// use cnda::stencil::{pad_axes, PadMode};
/// let a = Array::from_fn([2, 2], |[i, j]| (10 * i + j) as i32);
/// let p = pad_axes(a.view(), [1, 1], [PadMode::Periodic, PadMode::Constant(-1)]);
/// assert_eq!(p.as_slice(), &[-1, 10, 11, -1,
///                            -1,  0,  1, -1,
///                            -1, 10, 11, -1,
///                            -1,  0,  1, -1]);
/// ```
///
/// # Errors
///
/// As for [`pad`], per axis.
pub fn try_pad_axes<T: Pod, const N: usize, L: Layout, C: BoundsCheck>(
    a: ArrayView<'_, T, N, L, C>,
    widths: [usize; N],
    modes: [PadMode<T>; N],
) -> Result<Array<T, N>> {
    let shape = a.shape();
    check_modes("pad", shape, &modes)?;
    let mut padded = [0usize; N];
    for k in 0..N {
        padded[k] = widths[k].checked_mul(2).and_then(|w| w.checked_add(shape[k])).ok_or(Error::Overflow {
            op: "pad",
            shape: shape.to_vec(),
            elem_size: core::mem::size_of::<T>(),
        })?;
    }
    // The interior by the blocked copy kernel, then the halos slab by slab (`fill_halo`, which
    // gives the corners the same values): a copy's speed, where a per-element source lookup
    // ran at about a quarter of it. No zeroing pass over the whole array: only the halo slabs
    // are zeroed, so that every element is written before `fill_halo` reads any.
    let len = crate::shape::checked_len("pad", &padded, core::mem::size_of::<T>())?;
    // SAFETY: every element is written before any is read: the halo slabs of every axis (which
    // together cover every point outside the interior) by `fill` just below, then the interior
    // by `assign`; `fill` and `assign` only write their destination.
    let buffer = unsafe { crate::kernel::Allocator::try_alloc_for_overwrite(&crate::kernel::Cpu, "pad", len)? };
    let mut out = Array::<T, N>::from_buffer_in(buffer, padded);
    for k in 0..N {
        if widths[k] > 0 {
            out.view_mut().try_narrow(k, 0, widths[k])?.fill(T::zeroed());
            out.view_mut().try_narrow(k, padded[k] - widths[k], widths[k])?.fill(T::zeroed());
        }
    }
    let mut interior = out.view_mut().into_strided();
    for k in 0..N {
        interior = interior.try_narrow(k, widths[k], shape[k])?;
    }
    interior.assign(&a);
    try_fill_halo(out.view_mut(), widths, modes)?;
    Ok(out)
}

/// Refreshes, in place, the halo of an array padded by `widths[k]` points on both ends of axis
/// `k`: every halo point gets what [`pad_axes`] would give it from the current interior. No
/// allocation of the array; axes are filled one after another over their whole extent (halos of
/// the other axes included), so corners come out as `pad_axes` makes them.
///
/// # Panics
///
/// When an axis is shorter than twice its halo width, or an interior is empty and a mode needs values from it; [`try_fill_halo`] returns the error instead.
#[track_caller]
pub fn fill_halo<T: Pod, const N: usize>(padded: impl AsViewMut<T, N>, widths: [usize; N], modes: [PadMode<T>; N]) {
    or_panic(try_fill_halo(padded, widths, modes))
}

/// Refreshes, in place, the halo of an array padded by `widths[k]` points on both ends of axis
/// `k`: every halo point gets what [`pad_axes`] would give it from the current interior. No
/// allocation of the array; axes are filled one after another over their whole extent (halos of
/// the other axes included), so corners come out as `pad_axes` makes them.
///
/// ```
/// use cnda::prelude::*;
/// use cnda::stencil::{fill_halo, pad, PadMode};
/// let mut u = pad(Array::from_fn([3, 3], |[i, j]| (3 * i + j) as f64).view(), 1, PadMode::Periodic);
/// u[[1, 1]] = 100.0;                                           // interior point [0, 0] changes
/// fill_halo(&mut u, [1, 1], [PadMode::Periodic; 2]);      // an array, or any mutable view
/// assert_eq!((u[[4, 1]], u[[1, 4]], u[[4, 4]]), (100.0, 100.0, 100.0)); // its periodic images
/// ```
///
/// # Errors
///
/// `Error::Range` when an axis is shorter than twice its halo width; `Error::Layout` when an
/// interior is empty and a mode needs values from it.
pub fn try_fill_halo<T: Pod, const N: usize>(
    mut padded: impl AsViewMut<T, N>,
    widths: [usize; N],
    modes: [PadMode<T>; N],
) -> Result<()> {
    let mut padded = padded.as_view_mut();
    let shape = padded.shape();
    let mut inner = [0usize; N];
    for k in 0..N {
        inner[k] = widths[k].checked_mul(2).and_then(|both| shape[k].checked_sub(both)).ok_or(Error::Range {
            op: "fill_halo",
            axis: k,
            start: isize::try_from(widths[k]).unwrap_or(isize::MAX),
            end: (shape[k] as i128 - widths[k] as i128).clamp(isize::MIN as i128, isize::MAX as i128) as isize,
            size: shape[k],
        })?;
    }
    check_modes("fill_halo", inner, &modes)?;
    let desc = padded.desc_mut();
    for k in 0..N {
        // SAFETY: `desc` is the uniquely borrowed view's, live and writable for the call; axis
        // `k` is `2 * widths[k] + inner[k]` long (checked above), and only `Constant` halos are
        // filled around an empty interior (`check_modes`).
        unsafe { fill_axis_halo::<Cpu, T, N>(&Cpu, desc, k, widths[k], &modes[k]) }?;
    }
    Ok(())
}

/// Fills, along `axis` of `d`, every halo slab (the `width` indices at each end) as `mode` says:
/// the constant, or a copy of the slab of the interior its mode reads (NumPy's `pad` rule, which
/// [`fill_halo`] documents), over the whole extent of the other axes. Written over the copy
/// kernels, so it runs on every backend: `fill_halo`'s pass for one axis, and the periodic
/// refresh of the fused steps.
///
/// # Safety
///
/// `d` addresses live, writable memory on `dev`, accessed by nothing else during the call;
/// `d.shape[axis] >= 2 * width`, with a non-empty interior unless `mode` is `Constant`.
///
/// # Errors
///
/// `Error::Device` from a kernel.
pub(super) unsafe fn fill_axis_halo<B: CopyKernels, T: Pod, const N: usize>(
    dev: &B::Device,
    d: Desc<B, T, N>,
    axis: usize,
    width: usize,
    mode: &PadMode<T>,
) -> Result<()> {
    let inner = d.shape[axis] - 2 * width;
    for p in (0..width).chain(width + inner..2 * width + inner) {
        let slab = d.narrowed(axis, p, 1);
        match source(p as isize - width as isize, inner, mode) {
            // SAFETY: the slab is part of `d` (the caller's contract).
            None => unsafe { B::fill(dev, slab, constant(mode)) }?,
            // SAFETY: `p` is a halo index and `q + width` an interior one, so the two slabs are
            // distinct elements of `d`.
            Some(q) => unsafe { B::copy(dev, slab, d.narrowed(axis, q + width, 1)) }?,
        }
    }
    Ok(())
}

/// The fill value of a `Constant` mode.
fn constant<T: Pod>(mode: &PadMode<T>) -> T {
    match mode {
        PadMode::Constant(value) => *value,
        _ => T::zeroed(),
    }
}

/// Every mode but `Constant` reads the interior: it must not be empty on that axis.
fn check_modes<T, const N: usize>(op: &'static str, interior: [usize; N], modes: &[PadMode<T>; N]) -> Result<()> {
    for k in 0..N {
        if interior[k] == 0 && !matches!(modes[k], PadMode::Constant(_)) {
            return Err(Error::Layout {
                op,
                reason: format!(
                    "axis {k} of the interior shape {interior:?} is empty, so edge, reflect and periodic modes have no values to copy"
                ),
                fix: "use `PadMode::Constant` on empty axes",
            });
        }
    }
    Ok(())
}

/// The region of a padded array inside a halo of `width`: a view of shape `n - 2 * width`.
///
/// # Panics
///
/// When an axis is shorter than twice `width`; [`try_interior`] returns the error instead.
#[track_caller]
pub fn interior<'a, T: Pod, const N: usize, L: Layout, C: BoundsCheck>(
    padded: ArrayView<'a, T, N, L, C>,
    width: usize,
) -> ArrayView<'a, T, N, Strided, C> {
    or_panic(try_interior(padded, width))
}

/// The region of a padded array inside a halo of `width`: a view of shape `n - 2 * width`.
///
/// # Errors
///
/// `Error::Range` when an axis is shorter than `2 * width`.
pub fn try_interior<'a, T: Pod, const N: usize, L: Layout, C: BoundsCheck>(
    padded: ArrayView<'a, T, N, L, C>,
    width: usize,
) -> Result<ArrayView<'a, T, N, Strided, C>> {
    let mut v = padded.into_strided();
    for axis in 0..N {
        let n = v.shape()[axis];
        let len = width.checked_mul(2).and_then(|both| n.checked_sub(both)).ok_or(Error::Range {
            op: "interior",
            axis,
            start: isize::try_from(width).unwrap_or(isize::MAX),
            end: (n as i128 - width as i128).clamp(isize::MIN as i128, isize::MAX as i128) as isize,
            size: n,
        })?;
        v = v.try_narrow(axis, width, len)?;
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn periodic_halo_indices_map_to_their_images() {
        // Width 2, interior 3 (indices 2, 3, 4): np.pad(x, 2, mode="wrap") takes positions
        // [1, 2, 0, 1, 2, 0, 1] of x, i.e. padded indices [3, 4, 2, 3, 4, 2, 3].
        let image =
            |p: usize, w: usize, n: usize| source::<u8>(p as isize - w as isize, n, &PadMode::Periodic).unwrap() + w;
        let got: Vec<usize> = [0, 1, 5, 6].iter().map(|&p| image(p, 2, 3)).collect();
        assert_eq!(got, vec![3, 4, 2, 3]);
        // A halo wider than the interior wraps several times.
        let got: Vec<usize> = [0, 1, 2, 4, 5, 6].iter().map(|&p| image(p, 3, 1)).collect();
        assert_eq!(got, vec![3; 6]);
    }

    #[test]
    fn reflect_folds_wide_halos_like_numpy() {
        // np.pad([1, 2, 3], 5, mode="reflect") == [2, 1, 2, 3, 2, 1, 2, 3, 2, 1, 2, 3, 2]
        // (NumPy 2.4), i.e. source positions [1, 0, 1, 2, 1, 0, 1, 2, 1, 0, 1, 2, 1].
        let got: Vec<usize> = (-5..8).map(|p| source::<u8>(p, 3, &PadMode::Reflect).unwrap()).collect();
        assert_eq!(got, vec![1, 0, 1, 2, 1, 0, 1, 2, 1, 0, 1, 2, 1]);
    }
}
