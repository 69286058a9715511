//! The sweeps: interior (unchecked inner loops after one region check), boundary (checked), and
//! parallel interior sweeps over disjoint bands of output rows.

use core::ops::Range;

use super::window::{Window2, Window3};
use crate::check::BoundsCheck;
use crate::element::Pod;
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::view::ops_shared::or_panic;
use crate::view::{ArrayView, ArrayViewMut};

fn same_shape<const N: usize>(op: &'static str, input: [usize; N], output: [usize; N]) -> Result<()> {
    if input == output {
        Ok(())
    } else {
        Err(Error::ShapeMismatch { op, expected: input.to_vec(), got: output.to_vec() })
    }
}

/// The interior range of an axis of length `n` for radius `r` (empty when `n < 2r + 1`).
/// Written without `2 * r`, which overflows for radii near `usize::MAX / 2`.
pub(crate) fn interior_range(n: usize, r: usize) -> Range<usize> {
    if r < n && n - r > r {
        r..n - r
    } else {
        0..0
    }
}

/// Raw operands of one sweep, shared by the sequential and parallel drivers.
#[derive(Clone, Copy)]
struct Grid<T, const N: usize> {
    input: *const T,
    in_strides: [isize; N],
    output: *mut T,
    out_strides: [isize; N],
    shape: [usize; N],
}

// SAFETY: parallel sweeps hand each task a disjoint band of output rows; the input is only read.
unsafe impl<T: Sync + Send, const N: usize> Send for Grid<T, N> {}
// SAFETY: as above.
unsafe impl<T: Sync + Send, const N: usize> Sync for Grid<T, N> {}

impl<T, const N: usize> Grid<T, N> {
    fn new<L1: Layout, C1: BoundsCheck, L2: Layout, C2: BoundsCheck>(
        op: &'static str,
        input: &ArrayView<'_, T, N, L1, C1>,
        output: &mut ArrayViewMut<'_, T, N, L2, C2>,
    ) -> Result<Self>
    where
        T: Pod,
    {
        same_shape(op, input.shape(), output.shape())?;
        Ok(Grid {
            input: input.raw.ptr.cast_const(),
            in_strides: input.strides(),
            output: output.raw.ptr,
            out_strides: output.strides(),
            shape: input.shape(),
        })
    }
}

/// One interior row of a grid whose rows are contiguous (unit column stride in input and
/// output): the window's column stride is the literal 1 and the output row is a slice, so LLVM
/// knows the writes alias no read and vectorizes the loop. The input is read through raw
/// pointers only: a slice spanning the rows around this one would also span memory between
/// rows that may belong to other views.
///
/// # Safety
///
/// `centre_row` points at column 0 of an interior row whose `R` rows above and below exist
/// `row_stride` apart; `cols` lies within the interior of rows of `out_row.len()` columns.
#[inline(always)]
unsafe fn unit_stride_row<const R: usize, T>(
    centre_row: *const T,
    row_stride: isize,
    out_row: &mut [T],
    cols: Range<usize>,
    f: &mut impl FnMut(&mut T, Window2<'_, T, R>),
) {
    for j in cols {
        // SAFETY: (row, j) is an interior point, so its window lies in the grid; j < the row length.
        unsafe {
            let w = Window2::new(centre_row.add(j), [row_stride, 1]);
            f(out_row.get_unchecked_mut(j), w);
        }
    }
}

/// Interior rows `rows` of a 2D sweep.
///
/// # Safety
///
/// `rows` lies within the interior for radius `R`; the grid's pointers describe live, distinct
/// input and output elements for its shape, and no other code writes these output rows.
#[inline(always)]
unsafe fn rows2<const R: usize, T>(g: Grid<T, 2>, rows: Range<usize>, f: &mut impl FnMut(&mut T, Window2<'_, T, R>)) {
    let cols = interior_range(g.shape[1], R);
    if cols.is_empty() {
        return; // no interior point in any row (and no loop over a huge axis of empty rows)
    }
    let [n, m] = g.shape;
    if g.in_strides[1] == 1 && g.out_strides[1] == 1 && g.in_strides[0] >= m as isize && n > 0 {
        let s0 = g.in_strides[0];
        for i in rows {
            // SAFETY: rows i - R ..= i + R exist; output row i is `m` contiguous elements of the
            // uniquely borrowed output view, which cannot overlap the shared input.
            unsafe {
                let centre_row = g.input.offset(i as isize * s0);
                let out_row = core::slice::from_raw_parts_mut(g.output.offset(i as isize * g.out_strides[0]), m);
                unit_stride_row(centre_row, s0, out_row, cols.clone(), f);
            }
        }
        return;
    }
    for i in rows {
        // SAFETY: row i and its R neighbours on both sides are inside the grid.
        unsafe {
            let in_row = g.input.offset(i as isize * g.in_strides[0]);
            let out_row = g.output.offset(i as isize * g.out_strides[0]);
            for j in cols.clone() {
                let w = Window2::new(in_row.offset(j as isize * g.in_strides[1]), g.in_strides);
                f(&mut *out_row.offset(j as isize * g.out_strides[1]), w);
            }
        }
    }
}

/// One interior row (fixed plane and row) of a 3D grid with contiguous rows; see
/// [`unit_stride_row`].
///
/// # Safety
///
/// `centre_row` points at column 0 of an interior row whose neighbours within `R` on the two
/// outer axes exist `strides` apart; `cols` lies within the interior of rows of `out_row.len()`.
#[inline(always)]
unsafe fn unit_stride_row3<const R: usize, T>(
    centre_row: *const T,
    strides: [isize; 2],
    out_row: &mut [T],
    cols: Range<usize>,
    f: &mut impl FnMut(&mut T, Window3<'_, T, R>),
) {
    for k in cols {
        // SAFETY: (plane, row, k) is an interior point, so its window lies in the grid.
        unsafe {
            let w = Window3::new(centre_row.add(k), [strides[0], strides[1], 1]);
            f(out_row.get_unchecked_mut(k), w);
        }
    }
}

/// Interior planes `planes` of a 3D sweep.
///
/// # Safety
///
/// As for [`rows2`].
#[inline(always)]
unsafe fn planes3<const R: usize, T>(
    g: Grid<T, 3>,
    planes: Range<usize>,
    f: &mut impl FnMut(&mut T, Window3<'_, T, R>),
) {
    let (rows, cols) = (interior_range(g.shape[1], R), interior_range(g.shape[2], R));
    if rows.is_empty() || cols.is_empty() {
        return; // no interior point in any plane
    }
    let [_, n1, n2] = g.shape;
    let [s0, s1, s2] = g.in_strides;
    let dense_rows = s2 == 1 && g.out_strides[2] == 1 && s1 >= n2 as isize && s0 >= s1 * n1 as isize;
    for i in planes {
        for j in rows.clone() {
            // SAFETY: (i, j) and its R neighbours on every axis are inside the grid; in the dense
            // case the output row is `n2` contiguous elements of the uniquely borrowed output.
            unsafe {
                let out_row = g.output.offset(i as isize * g.out_strides[0] + j as isize * g.out_strides[1]);
                if dense_rows {
                    let centre_row = g.input.offset(i as isize * s0 + j as isize * s1);
                    let out_row = core::slice::from_raw_parts_mut(out_row, n2);
                    unit_stride_row3(centre_row, [s0, s1], out_row, cols.clone(), f);
                    continue;
                }
                let in_row = g.input.offset(i as isize * s0 + j as isize * s1);
                for k in cols.clone() {
                    let w = Window3::new(in_row.offset(k as isize * s2), g.in_strides);
                    f(&mut *out_row.offset(k as isize * g.out_strides[2]), w);
                }
            }
        }
    }
}

/// Calls `f(&mut output[i, j], window of input around (i, j))` for every interior point: those at
/// least `R` away from every edge. Points nearer the edges are left alone (see [`boundary2`]).
///
/// # Panics
///
/// When input and output shapes differ; [`try_sweep2`] returns the error instead.
#[track_caller]
pub fn sweep2<const R: usize, T: Pod, L1: Layout, C1: BoundsCheck, L2: Layout, C2: BoundsCheck>(
    input: ArrayView<'_, T, 2, L1, C1>,
    output: ArrayViewMut<'_, T, 2, L2, C2>,
    f: impl FnMut(&mut T, Window2<'_, T, R>),
) {
    or_panic(try_sweep2(input, output, f))
}

/// Calls `f(&mut output[i, j], window of input around (i, j))` for every interior point: those at
/// least `R` away from every edge. Points nearer the edges are left alone (see [`boundary2`]).
///
/// # Errors
///
/// `Error::ShapeMismatch` when input and output shapes differ.
pub fn try_sweep2<const R: usize, T: Pod, L1: Layout, C1: BoundsCheck, L2: Layout, C2: BoundsCheck>(
    input: ArrayView<'_, T, 2, L1, C1>,
    mut output: ArrayViewMut<'_, T, 2, L2, C2>,
    mut f: impl FnMut(&mut T, Window2<'_, T, R>),
) -> Result<()> {
    let g = Grid::new("sweep2", &input, &mut output)?;
    // SAFETY: one shape checked above; interior rows only; `output` is uniquely borrowed and
    // cannot alias the shared `input`.
    unsafe { rows2(g, interior_range(g.shape[0], R), &mut f) };
    Ok(())
}

/// The 3D form of [`sweep2`]: `f(&mut output[i, j, k], window)` for every interior point.
///
/// # Panics
///
/// When input and output shapes differ; [`try_sweep3`] returns the error instead.
#[track_caller]
pub fn sweep3<const R: usize, T: Pod, L1: Layout, C1: BoundsCheck, L2: Layout, C2: BoundsCheck>(
    input: ArrayView<'_, T, 3, L1, C1>,
    output: ArrayViewMut<'_, T, 3, L2, C2>,
    f: impl FnMut(&mut T, Window3<'_, T, R>),
) {
    or_panic(try_sweep3(input, output, f))
}

/// The 3D form of [`sweep2`]: `f(&mut output[i, j, k], window)` for every interior point.
///
/// # Errors
///
/// `Error::ShapeMismatch` when input and output shapes differ.
pub fn try_sweep3<const R: usize, T: Pod, L1: Layout, C1: BoundsCheck, L2: Layout, C2: BoundsCheck>(
    input: ArrayView<'_, T, 3, L1, C1>,
    mut output: ArrayViewMut<'_, T, 3, L2, C2>,
    mut f: impl FnMut(&mut T, Window3<'_, T, R>),
) -> Result<()> {
    let g = Grid::new("sweep3", &input, &mut output)?;
    // SAFETY: as in `sweep2`.
    unsafe { planes3(g, interior_range(g.shape[0], R), &mut f) };
    Ok(())
}

/// [`sweep2`] with the interior rows split over rayon's threads.
///
/// # Panics
///
/// When input and output shapes differ; [`try_par_sweep2`] returns the error instead.
#[cfg(feature = "rayon")]
#[track_caller]
pub fn par_sweep2<const R: usize, T: Pod + Send + Sync, L1: Layout, C1: BoundsCheck, L2: Layout, C2: BoundsCheck>(
    input: ArrayView<'_, T, 2, L1, C1>,
    output: ArrayViewMut<'_, T, 2, L2, C2>,
    f: impl Fn(&mut T, Window2<'_, T, R>) + Sync + Send,
) {
    or_panic(try_par_sweep2(input, output, f))
}

/// [`sweep2`] with the interior rows split over rayon's threads.
///
/// # Errors
///
/// `Error::ShapeMismatch` when input and output shapes differ.
#[cfg(feature = "rayon")]
pub fn try_par_sweep2<
    const R: usize,
    T: Pod + Send + Sync,
    L1: Layout,
    C1: BoundsCheck,
    L2: Layout,
    C2: BoundsCheck,
>(
    input: ArrayView<'_, T, 2, L1, C1>,
    mut output: ArrayViewMut<'_, T, 2, L2, C2>,
    f: impl Fn(&mut T, Window2<'_, T, R>) + Sync + Send,
) -> Result<()> {
    let g = Grid::new("par_sweep2", &input, &mut output)?;
    par_bands(interior_range(g.shape[0], R), |rows| {
        // SAFETY: as in `sweep2`; bands of rows are disjoint, so no output element is written by
        // two tasks.
        unsafe { rows2(g, rows, &mut &f) }
    });
    Ok(())
}

/// [`sweep3`] with the interior planes split over rayon's threads.
///
/// # Panics
///
/// When input and output shapes differ; [`try_par_sweep3`] returns the error instead.
#[cfg(feature = "rayon")]
#[track_caller]
pub fn par_sweep3<const R: usize, T: Pod + Send + Sync, L1: Layout, C1: BoundsCheck, L2: Layout, C2: BoundsCheck>(
    input: ArrayView<'_, T, 3, L1, C1>,
    output: ArrayViewMut<'_, T, 3, L2, C2>,
    f: impl Fn(&mut T, Window3<'_, T, R>) + Sync + Send,
) {
    or_panic(try_par_sweep3(input, output, f))
}

/// [`sweep3`] with the interior planes split over rayon's threads.
///
/// # Errors
///
/// `Error::ShapeMismatch` when input and output shapes differ.
#[cfg(feature = "rayon")]
pub fn try_par_sweep3<
    const R: usize,
    T: Pod + Send + Sync,
    L1: Layout,
    C1: BoundsCheck,
    L2: Layout,
    C2: BoundsCheck,
>(
    input: ArrayView<'_, T, 3, L1, C1>,
    mut output: ArrayViewMut<'_, T, 3, L2, C2>,
    f: impl Fn(&mut T, Window3<'_, T, R>) + Sync + Send,
) -> Result<()> {
    let g = Grid::new("par_sweep3", &input, &mut output)?;
    par_bands(interior_range(g.shape[0], R), |planes| {
        // SAFETY: as in `par_sweep2`, with disjoint bands of planes.
        unsafe { planes3(g, planes, &mut &f) }
    });
    Ok(())
}

/// Bands of rows per thread in a parallel sweep.
#[cfg(feature = "rayon")]
const BANDS_PER_THREAD: usize = 2;

/// Runs `work` on disjoint bands of `range`, in parallel (the crate's one splitter).
#[cfg(feature = "rayon")]
fn par_bands(range: Range<usize>, work: impl Fn(Range<usize>) + Sync + Send) {
    crate::ops::par::for_each_subrange(range, BANDS_PER_THREAD, work);
}

/// Calls `f(&mut output[index], index, input)` for every point within `R` of an edge (the points
/// [`sweep2`] skips), with the whole input as a view for checked access (`input.get(..)`).
///
/// # Panics
///
/// When input and output shapes differ; [`try_boundary2`] returns the error instead.
#[track_caller]
pub fn boundary2<const R: usize, T: Pod, L1: Layout, C1: BoundsCheck, L2: Layout, C2: BoundsCheck>(
    input: ArrayView<'_, T, 2, L1, C1>,
    output: ArrayViewMut<'_, T, 2, L2, C2>,
    f: impl FnMut(&mut T, [usize; 2], ArrayView<'_, T, 2, L1, C1>),
) {
    or_panic(try_boundary2::<R, T, L1, C1, L2, C2>(input, output, f))
}

/// Calls `f(&mut output[index], index, input)` for every point within `R` of an edge (the points
/// [`sweep2`] skips), with the whole input as a view for checked access (`input.get(..)`).
///
/// # Errors
///
/// `Error::ShapeMismatch` when input and output shapes differ.
pub fn try_boundary2<const R: usize, T: Pod, L1: Layout, C1: BoundsCheck, L2: Layout, C2: BoundsCheck>(
    input: ArrayView<'_, T, 2, L1, C1>,
    mut output: ArrayViewMut<'_, T, 2, L2, C2>,
    mut f: impl FnMut(&mut T, [usize; 2], ArrayView<'_, T, 2, L1, C1>),
) -> Result<()> {
    same_shape("boundary2", input.shape(), output.shape())?;
    let [n, m] = input.shape();
    if n == 0 || m == 0 {
        return Ok(()); // no point at all (and no loop over a huge empty axis)
    }
    let (rows, cols) = (interior_range(n, R), interior_range(m, R));
    for i in 0..n {
        for j in 0..m {
            if !(rows.contains(&i) && cols.contains(&j)) {
                f(&mut output[[i, j]], [i, j], input);
            }
        }
    }
    Ok(())
}

/// The 3D form of [`boundary2`].
///
/// # Panics
///
/// When input and output shapes differ; [`try_boundary3`] returns the error instead.
#[track_caller]
pub fn boundary3<const R: usize, T: Pod, L1: Layout, C1: BoundsCheck, L2: Layout, C2: BoundsCheck>(
    input: ArrayView<'_, T, 3, L1, C1>,
    output: ArrayViewMut<'_, T, 3, L2, C2>,
    f: impl FnMut(&mut T, [usize; 3], ArrayView<'_, T, 3, L1, C1>),
) {
    or_panic(try_boundary3::<R, T, L1, C1, L2, C2>(input, output, f))
}

/// The 3D form of [`boundary2`].
///
/// # Errors
///
/// `Error::ShapeMismatch` when input and output shapes differ.
pub fn try_boundary3<const R: usize, T: Pod, L1: Layout, C1: BoundsCheck, L2: Layout, C2: BoundsCheck>(
    input: ArrayView<'_, T, 3, L1, C1>,
    mut output: ArrayViewMut<'_, T, 3, L2, C2>,
    mut f: impl FnMut(&mut T, [usize; 3], ArrayView<'_, T, 3, L1, C1>),
) -> Result<()> {
    same_shape("boundary3", input.shape(), output.shape())?;
    let [n0, n1, n2] = input.shape();
    if n0 == 0 || n1 == 0 || n2 == 0 {
        return Ok(()); // no point at all (and no loop over a huge empty axis)
    }
    let ranges = [interior_range(n0, R), interior_range(n1, R), interior_range(n2, R)];
    for i in 0..n0 {
        for j in 0..n1 {
            for k in 0..n2 {
                let inside = ranges[0].contains(&i) && ranges[1].contains(&j) && ranges[2].contains(&k);
                if !inside {
                    f(&mut output[[i, j, k]], [i, j, k], input);
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::interior_range;

    #[test]
    fn interior_range_never_overflows() {
        assert_eq!(interior_range(5, 1), 1..4);
        assert_eq!(interior_range(3, 1), 1..2);
        assert_eq!(interior_range(2, 1), 0..0);
        assert_eq!(interior_range(usize::MAX, 1 << 63), 0..0);
        assert_eq!(interior_range(10, usize::MAX / 2 + 1), 0..0);
        assert_eq!(interior_range(usize::MAX, usize::MAX / 2), usize::MAX / 2..usize::MAX / 2 + 1);
    }
}
