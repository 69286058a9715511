//! Closure sweeps over several input fields, with the point's index: what a variable-coefficient
//! update written by hand needs (`stencil!` covers the same on every backend; these run any Rust
//! code, on the CPU). One region check for the whole sweep, then unchecked windows, as [`sweep`].
//!
//! [`sweep`]: super::sweep

use super::window::Window;
use crate::check::BoundsCheck;
use crate::element::Pod;
use crate::error::{or_panic, Error, Result};
use crate::iter::Odometer;
use crate::layout::{Layout, Strided};
use crate::shape::interior_range;
use crate::view::{ArrayView, ArrayViewMut};

/// The raw operands of one multi-field sweep.
struct Fields<T, const N: usize, const F: usize> {
    inputs: [(*const T, [isize; N]); F],
    output: (*mut T, [isize; N]),
    shape: [usize; N],
}

// SAFETY: parallel sweeps hand each task a disjoint band of output rows; the inputs are only
// read.
unsafe impl<T: Sync + Send, const N: usize, const F: usize> Sync for Fields<T, N, F> {}

impl<T: Pod, const N: usize, const F: usize> Fields<T, N, F> {
    fn new<C1: BoundsCheck, L2: Layout, C2: BoundsCheck>(
        op: &'static str,
        inputs: &[ArrayView<'_, T, N, Strided, C1>; F],
        output: &mut ArrayViewMut<'_, T, N, L2, C2>,
    ) -> Result<Self> {
        let shape = output.shape();
        if let Some(input) = inputs.iter().find(|i| i.shape() != shape) {
            return Err(Error::ShapeMismatch { op, expected: shape.to_vec(), got: input.shape().to_vec() });
        }
        Ok(Fields {
            inputs: core::array::from_fn(|f| (inputs[f].raw.ptr.cast_const(), inputs[f].strides())),
            output: (output.raw.ptr, output.strides()),
            shape,
        })
    }

    /// `f` at every interior point (radius `R`) whose first index lies in `first`.
    ///
    /// # Safety
    ///
    /// `first` lies within the interior of axis 0; the operands are live, the output distinct
    /// from every input, and no other code writes these output points.
    unsafe fn run<const R: usize>(
        &self,
        first: core::ops::Range<usize>,
        f: &mut impl FnMut(&mut T, [Window<'_, T, N, R>; F], [usize; N]),
    ) {
        let ranges: [core::ops::Range<usize>; N] =
            core::array::from_fn(|k| if k == 0 { first.clone() } else { interior_range(self.shape[k], R) });
        if ranges.iter().any(|r| r.is_empty()) {
            return;
        }
        let offset =
            |strides: [isize; N], index: [usize; N]| (0..N).fold(0isize, |acc, k| acc + index[k] as isize * strides[k]);
        let Some(last) = N.checked_sub(1) else {
            // Rank 0: the one point.
            // SAFETY: the point is the whole (interior) shape: every element is live.
            unsafe { f(&mut *self.output.0, self.inputs.map(|(ptr, strides)| Window::new(ptr, strides)), [0; N]) };
            return;
        };
        // Rows along the last axis, each walked with pointers stepping by that axis' strides
        // held in locals (values read through `self` would be reloaded after every store). Where
        // every operand steps by one, the windows get the literal 1 as their last stride, so
        // LLVM sees constant neighbour offsets.
        let (row_start, row_len) = (ranges[last].start, ranges[last].len());
        let inputs = self.inputs;
        let (out_ptr, out_strides) = self.output;
        let unit = inputs.iter().all(|(_, s)| s[last] == 1) && out_strides[last] == 1;
        let mut rows = ranges.clone();
        rows[last] = 0..1;
        let mut points = Odometer::new(rows.clone().map(|r| r.len()), [0; N]);
        while let Some((at, _)) = points.next() {
            let mut index: [usize; N] = core::array::from_fn(|k| rows[k].start + at[k]);
            index[last] = row_start;
            // SAFETY: every point `index` + (0, .., j) for `j < row_len` is an interior point:
            // its element and every neighbour within `R` lie inside each input, and its output
            // element is live, distinct and unshared; the offsets stay within the fields.
            unsafe {
                let bases = inputs.map(|(ptr, strides)| (ptr.offset(offset(strides, index)), strides));
                let out = out_ptr.offset(offset(out_strides, index));
                if unit {
                    let windows_at = bases.map(|(ptr, mut strides)| {
                        strides[last] = 1;
                        (ptr, strides)
                    });
                    for j in 0..row_len {
                        index[last] = row_start + j;
                        let windows = windows_at.map(|(ptr, strides)| Window::new(ptr.add(j), strides));
                        f(&mut *out.add(j), windows, index);
                    }
                } else {
                    for j in 0..row_len {
                        index[last] = row_start + j;
                        let jj = j as isize;
                        let windows = bases.map(|(ptr, strides)| Window::new(ptr.offset(jj * strides[last]), strides));
                        f(&mut *out.offset(jj * out_strides[last]), windows, index);
                    }
                }
            }
        }
    }
}

/// `f(&mut output[x], [window of each input around x], x)` for every interior point `x` (at least
/// `R` from every edge): several fields read at once (a variable coefficient, a velocity), with
/// the point's index (a source term, a position-dependent rule). Inputs and output share one
/// shape; the output is a separate, uniquely borrowed view. Inputs of any layout convert with
/// `.into()` (to the `Strided` layout the array of inputs shares).
///
/// ```
/// use cnda::prelude::*;
/// use cnda::stencil::{sweep_fields, Window2};
///
/// let u = Array::from_fn([5, 6], |[i, j]| (i * j) as f64);
/// let k = Array::from_fn([5, 6], |[i, _]| if i < 2 { 1.0 } else { 0.5 });
/// let mut v = Array::<f64, 2>::zeros([5, 6]);
/// sweep_fields(
///     [u.view().into(), k.view().into()],
///     v.view_mut(),
///     |out, [u, k]: [Window2<f64, 1>; 2], [i, _]| *out = k[(0, 0)] * u[(0, 0)] + i as f64,
/// );
/// assert_eq!(v[[3, 2]], 0.5 * 6.0 + 3.0);
/// ```
///
/// # Panics
///
/// When a shape differs from the output's; [`try_sweep_fields`] returns the error instead.
#[track_caller]
pub fn sweep_fields<
    const N: usize,
    const R: usize,
    const F: usize,
    T: Pod,
    C1: BoundsCheck,
    L2: Layout,
    C2: BoundsCheck,
>(
    inputs: [ArrayView<'_, T, N, Strided, C1>; F],
    output: ArrayViewMut<'_, T, N, L2, C2>,
    f: impl FnMut(&mut T, [Window<'_, T, N, R>; F], [usize; N]),
) {
    or_panic(try_sweep_fields(inputs, output, f))
}

/// [`sweep_fields`], returning errors.
///
/// # Errors
///
/// `Error::ShapeMismatch` when a shape differs from the output's.
pub fn try_sweep_fields<
    const N: usize,
    const R: usize,
    const F: usize,
    T: Pod,
    C1: BoundsCheck,
    L2: Layout,
    C2: BoundsCheck,
>(
    inputs: [ArrayView<'_, T, N, Strided, C1>; F],
    mut output: ArrayViewMut<'_, T, N, L2, C2>,
    mut f: impl FnMut(&mut T, [Window<'_, T, N, R>; F], [usize; N]),
) -> Result<()> {
    let fields = Fields::new("sweep_fields", &inputs, &mut output)?;
    let first = if N == 0 { 0..1 } else { interior_range(fields.shape[0], R) };
    // SAFETY: the operands are borrowed views of one shape, the output uniquely; `first` is the
    // interior of axis 0.
    unsafe { fields.run::<R>(first, &mut f) };
    Ok(())
}

/// [`sweep_fields`] with the interior split over rayon's threads in bands of the first axis.
///
/// # Panics
///
/// As [`try_par_sweep_fields`] errs.
#[cfg(feature = "rayon")]
#[track_caller]
pub fn par_sweep_fields<
    const N: usize,
    const R: usize,
    const F: usize,
    T: Pod + Send + Sync,
    C1: BoundsCheck,
    L2: Layout,
    C2: BoundsCheck,
>(
    inputs: [ArrayView<'_, T, N, Strided, C1>; F],
    output: ArrayViewMut<'_, T, N, L2, C2>,
    f: impl Fn(&mut T, [Window<'_, T, N, R>; F], [usize; N]) + Sync + Send,
) {
    or_panic(try_par_sweep_fields(inputs, output, f))
}

/// [`par_sweep_fields`], returning errors.
///
/// # Errors
///
/// As [`try_sweep_fields`].
#[cfg(feature = "rayon")]
pub fn try_par_sweep_fields<
    const N: usize,
    const R: usize,
    const F: usize,
    T: Pod + Send + Sync,
    C1: BoundsCheck,
    L2: Layout,
    C2: BoundsCheck,
>(
    inputs: [ArrayView<'_, T, N, Strided, C1>; F],
    mut output: ArrayViewMut<'_, T, N, L2, C2>,
    f: impl Fn(&mut T, [Window<'_, T, N, R>; F], [usize; N]) + Sync + Send,
) -> Result<()> {
    use crate::kernel::host::HostEngine;
    use crate::kernel::Cpu;
    let fields = Fields::new("par_sweep_fields", &inputs, &mut output)?;
    if N == 0 {
        // SAFETY: as in `try_sweep_fields`.
        unsafe { fields.run::<R>(0..1, &mut &f) };
        return Ok(());
    }
    Cpu::for_each_subrange(interior_range(fields.shape[0], R), 2, |band| {
        // SAFETY: as in `try_sweep_fields`; bands are disjoint, so no output element is written
        // by two tasks.
        unsafe { fields.run::<R>(band, &mut &f) }
    });
    Ok(())
}
