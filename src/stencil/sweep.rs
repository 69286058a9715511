//! The sweeps, one for every rank: interior (unchecked inner loops after one region check),
//! boundary (checked), and parallel interior sweeps over disjoint bands of the first axis.
//! `sweep2`/`sweep3` (and their boundary and parallel forms) name the rank for readers and for
//! turbofish callers; they are the generic sweep.

use core::ops::Range;

use super::window::Window;
use crate::check::BoundsCheck;
use crate::element::Pod;
use crate::error::or_panic;
use crate::error::{Error, Result};
use crate::kernel::host::HostEngine;
use crate::kernel::Cpu;
use crate::layout::Layout;
use crate::shape::interior_range;
use crate::view::{ArrayView, ArrayViewMut};

fn same_shape<const N: usize>(op: &'static str, input: [usize; N], output: [usize; N]) -> Result<()> {
    if input == output {
        Ok(())
    } else {
        Err(Error::ShapeMismatch { op, expected: input.to_vec(), got: output.to_vec() })
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

/// The interior points whose first index lies in `first` (a sub-range of axis 0's interior):
/// `f(&mut output[x], window of input around x)`. On unit-stride lanes the window's last stride
/// is the literal 1.
///
/// # Safety
///
/// `first` lies within the interior of axis 0 for radius `R`; the grid's pointers describe live,
/// distinct input and output elements for its shape, and no other code writes these output
/// points.
#[inline(always)]
unsafe fn interior<const N: usize, const R: usize, T>(
    g: Grid<T, N>,
    first: Range<usize>,
    f: &mut impl FnMut(&mut T, Window<'_, T, N, R>),
) {
    if N == 0 {
        // SAFETY: a rank-0 grid is one point, with no neighbour to read.
        unsafe { f(&mut *g.output, Window::new(g.input, g.in_strides)) };
        return;
    }
    let ranges: [Range<usize>; N] =
        core::array::from_fn(|k| if k == 0 { first.clone() } else { interior_range(g.shape[k], R) });
    if ranges.iter().any(|r| r.is_empty()) {
        return; // no interior point (and no loop over a huge axis of an empty grid)
    }
    let start = |strides: [isize; N]| (0..N).fold(0isize, |acc, k| acc + ranges[k].start as isize * strides[k]);
    // SAFETY: the first interior point lies inside both grids.
    let (input, output) = unsafe { (g.input.offset(start(g.in_strides)), g.output.offset(start(g.out_strides))) };
    let shape = ranges.map(|r| r.len());
    let region = Grid { input, in_strides: g.in_strides, output, out_strides: g.out_strides, shape };
    // SAFETY: the walk's contract is this function's, for the interior region: every point
    // walked is an interior point, so its window lies in the input; the output is uniquely
    // borrowed and never the input.
    unsafe {
        Cpu::for_each_point(
            region.input,
            region.in_strides,
            region.output,
            region.out_strides,
            region.shape,
            |out, centre, strides| f(out, Window::new(centre, strides)),
        )
    };
}

/// Calls `f(&mut output[x], window of input around x)` for every interior point `x`: those at
/// least `R` away from every edge. Points nearer the edges are left alone (see [`boundary`]).
/// Any rank; `sweep2`/`sweep3` name ranks 2 and 3.
///
/// # Panics
///
/// When input and output shapes differ; [`try_sweep`] returns the error instead.
#[track_caller]
pub fn sweep<const N: usize, const R: usize, T: Pod, L1: Layout, C1: BoundsCheck, L2: Layout, C2: BoundsCheck>(
    input: ArrayView<'_, T, N, L1, C1>,
    output: ArrayViewMut<'_, T, N, L2, C2>,
    f: impl FnMut(&mut T, Window<'_, T, N, R>),
) {
    or_panic(try_sweep(input, output, f))
}

/// Calls `f(&mut output[x], window of input around x)` for every interior point; see [`sweep`].
///
/// # Errors
///
/// `Error::ShapeMismatch` when input and output shapes differ.
pub fn try_sweep<const N: usize, const R: usize, T: Pod, L1: Layout, C1: BoundsCheck, L2: Layout, C2: BoundsCheck>(
    input: ArrayView<'_, T, N, L1, C1>,
    output: ArrayViewMut<'_, T, N, L2, C2>,
    mut f: impl FnMut(&mut T, Window<'_, T, N, R>),
) -> Result<()> {
    sweep_named("sweep", input, output, &mut f)
}

/// [`try_sweep`] reporting errors under the name the caller used.
fn sweep_named<const N: usize, const R: usize, T: Pod, L1: Layout, C1: BoundsCheck, L2: Layout, C2: BoundsCheck>(
    op: &'static str,
    input: ArrayView<'_, T, N, L1, C1>,
    mut output: ArrayViewMut<'_, T, N, L2, C2>,
    f: &mut impl FnMut(&mut T, Window<'_, T, N, R>),
) -> Result<()> {
    let g = Grid::new(op, &input, &mut output)?;
    let first = if N == 0 { 0..1 } else { interior_range(g.shape[0], R) };
    // SAFETY: one shape checked above; interior points only; `output` is uniquely borrowed and
    // cannot alias the shared `input`.
    unsafe { interior(g, first, f) };
    Ok(())
}

/// [`sweep`] with the interior split over rayon's threads in bands of the first axis.
///
/// # Panics
///
/// When input and output shapes differ; [`try_par_sweep`] returns the error instead.
#[cfg(feature = "rayon")]
#[track_caller]
pub fn par_sweep<
    const N: usize,
    const R: usize,
    T: Pod + Send + Sync,
    L1: Layout,
    C1: BoundsCheck,
    L2: Layout,
    C2: BoundsCheck,
>(
    input: ArrayView<'_, T, N, L1, C1>,
    output: ArrayViewMut<'_, T, N, L2, C2>,
    f: impl Fn(&mut T, Window<'_, T, N, R>) + Sync + Send,
) {
    or_panic(try_par_sweep(input, output, f))
}

/// [`sweep`] with the interior split over rayon's threads in bands of the first axis.
///
/// # Errors
///
/// `Error::ShapeMismatch` when input and output shapes differ.
#[cfg(feature = "rayon")]
pub fn try_par_sweep<
    const N: usize,
    const R: usize,
    T: Pod + Send + Sync,
    L1: Layout,
    C1: BoundsCheck,
    L2: Layout,
    C2: BoundsCheck,
>(
    input: ArrayView<'_, T, N, L1, C1>,
    output: ArrayViewMut<'_, T, N, L2, C2>,
    f: impl Fn(&mut T, Window<'_, T, N, R>) + Sync + Send,
) -> Result<()> {
    par_sweep_named("par_sweep", input, output, f)
}

/// [`try_par_sweep`] reporting errors under the name the caller used.
#[cfg(feature = "rayon")]
fn par_sweep_named<
    const N: usize,
    const R: usize,
    T: Pod + Send + Sync,
    L1: Layout,
    C1: BoundsCheck,
    L2: Layout,
    C2: BoundsCheck,
>(
    op: &'static str,
    input: ArrayView<'_, T, N, L1, C1>,
    mut output: ArrayViewMut<'_, T, N, L2, C2>,
    f: impl Fn(&mut T, Window<'_, T, N, R>) + Sync + Send,
) -> Result<()> {
    let g = Grid::new(op, &input, &mut output)?;
    if N == 0 {
        // SAFETY: as in `try_sweep`.
        unsafe { interior(g, 0..1, &mut &f) };
        return Ok(());
    }
    Cpu::for_each_subrange(interior_range(g.shape[0], R), BANDS_PER_THREAD, |band| {
        // SAFETY: as in `try_sweep`; bands are disjoint, so no output element is written by two
        // tasks.
        unsafe { interior(g, band, &mut &f) }
    });
    Ok(())
}

/// Bands of the first axis per thread in a parallel sweep.
#[cfg(feature = "rayon")]
const BANDS_PER_THREAD: usize = 2;

/// Calls `f(&mut output[index], index, input)` for every point within `R` of an edge (the points
/// [`sweep`] skips), with the whole input as a view for checked access (`input.get(..)`).
///
/// # Panics
///
/// When input and output shapes differ; [`try_boundary`] returns the error instead.
#[track_caller]
pub fn boundary<const N: usize, const R: usize, T: Pod, L1: Layout, C1: BoundsCheck, L2: Layout, C2: BoundsCheck>(
    input: ArrayView<'_, T, N, L1, C1>,
    output: ArrayViewMut<'_, T, N, L2, C2>,
    f: impl FnMut(&mut T, [usize; N], ArrayView<'_, T, N, L1, C1>),
) {
    or_panic(try_boundary::<N, R, T, L1, C1, L2, C2>(input, output, f))
}

/// Calls `f(&mut output[index], index, input)` for every point within `R` of an edge; see
/// [`boundary`].
///
/// # Errors
///
/// `Error::ShapeMismatch` when input and output shapes differ.
pub fn try_boundary<
    const N: usize,
    const R: usize,
    T: Pod,
    L1: Layout,
    C1: BoundsCheck,
    L2: Layout,
    C2: BoundsCheck,
>(
    input: ArrayView<'_, T, N, L1, C1>,
    output: ArrayViewMut<'_, T, N, L2, C2>,
    mut f: impl FnMut(&mut T, [usize; N], ArrayView<'_, T, N, L1, C1>),
) -> Result<()> {
    boundary_named::<N, R, T, L1, C1, L2, C2>("boundary", input, output, &mut f)
}

/// [`try_boundary`] reporting errors under the name the caller used.
fn boundary_named<const N: usize, const R: usize, T: Pod, L1: Layout, C1: BoundsCheck, L2: Layout, C2: BoundsCheck>(
    op: &'static str,
    input: ArrayView<'_, T, N, L1, C1>,
    mut output: ArrayViewMut<'_, T, N, L2, C2>,
    f: &mut impl FnMut(&mut T, [usize; N], ArrayView<'_, T, N, L1, C1>),
) -> Result<()> {
    same_shape(op, input.shape(), output.shape())?;
    let ranges = input.shape().map(|n| interior_range(n, R));
    // The odometer visits nothing when an axis is empty (so no loop over a huge empty axis).
    let mut points = crate::iter::Odometer::new(input.shape(), [0; N]);
    while let Some((index, _)) = points.next() {
        if (0..N).any(|k| !ranges[k].contains(&index[k])) {
            f(&mut output[index], index, input);
        }
    }
    Ok(())
}

/// `sweep2`, `sweep3` and the other rank-named forms: the generic sweeps at one rank, with the
/// radius as their first parameter (`sweep2::<1, _, _, _, _, _>`).
macro_rules! rank_named {
    ($($n:literal: $sweep:ident $try_sweep:ident $boundary:ident $try_boundary:ident $par:ident $try_par:ident;)*) => {$(
        #[doc = concat!("[`sweep`] on a rank-", stringify!($n), " grid.")]
        ///
        /// # Panics
        ///
        /// When input and output shapes differ.
        #[track_caller]
        pub fn $sweep<const R: usize, T: Pod, L1: Layout, C1: BoundsCheck, L2: Layout, C2: BoundsCheck>(
            input: ArrayView<'_, T, $n, L1, C1>,
            output: ArrayViewMut<'_, T, $n, L2, C2>,
            mut f: impl FnMut(&mut T, Window<'_, T, $n, R>),
        ) {
            or_panic(sweep_named(stringify!($sweep), input, output, &mut f))
        }

        #[doc = concat!("[`try_sweep`] on a rank-", stringify!($n), " grid.")]
        ///
        /// # Errors
        ///
        /// `Error::ShapeMismatch` when input and output shapes differ.
        pub fn $try_sweep<const R: usize, T: Pod, L1: Layout, C1: BoundsCheck, L2: Layout, C2: BoundsCheck>(
            input: ArrayView<'_, T, $n, L1, C1>,
            output: ArrayViewMut<'_, T, $n, L2, C2>,
            mut f: impl FnMut(&mut T, Window<'_, T, $n, R>),
        ) -> Result<()> {
            sweep_named(stringify!($sweep), input, output, &mut f)
        }

        #[doc = concat!("[`boundary`] on a rank-", stringify!($n), " grid.")]
        ///
        /// # Panics
        ///
        /// When input and output shapes differ.
        #[track_caller]
        pub fn $boundary<const R: usize, T: Pod, L1: Layout, C1: BoundsCheck, L2: Layout, C2: BoundsCheck>(
            input: ArrayView<'_, T, $n, L1, C1>,
            output: ArrayViewMut<'_, T, $n, L2, C2>,
            mut f: impl FnMut(&mut T, [usize; $n], ArrayView<'_, T, $n, L1, C1>),
        ) {
            or_panic(boundary_named::<$n, R, T, L1, C1, L2, C2>(stringify!($boundary), input, output, &mut f))
        }

        #[doc = concat!("[`try_boundary`] on a rank-", stringify!($n), " grid.")]
        ///
        /// # Errors
        ///
        /// `Error::ShapeMismatch` when input and output shapes differ.
        pub fn $try_boundary<const R: usize, T: Pod, L1: Layout, C1: BoundsCheck, L2: Layout, C2: BoundsCheck>(
            input: ArrayView<'_, T, $n, L1, C1>,
            output: ArrayViewMut<'_, T, $n, L2, C2>,
            mut f: impl FnMut(&mut T, [usize; $n], ArrayView<'_, T, $n, L1, C1>),
        ) -> Result<()> {
            boundary_named::<$n, R, T, L1, C1, L2, C2>(stringify!($boundary), input, output, &mut f)
        }

        #[doc = concat!("[`par_sweep`] on a rank-", stringify!($n), " grid.")]
        ///
        /// # Panics
        ///
        /// When input and output shapes differ.
        #[cfg(feature = "rayon")]
        #[track_caller]
        pub fn $par<const R: usize, T: Pod + Send + Sync, L1: Layout, C1: BoundsCheck, L2: Layout, C2: BoundsCheck>(
            input: ArrayView<'_, T, $n, L1, C1>,
            output: ArrayViewMut<'_, T, $n, L2, C2>,
            f: impl Fn(&mut T, Window<'_, T, $n, R>) + Sync + Send,
        ) {
            or_panic(par_sweep_named(stringify!($par), input, output, f))
        }

        #[doc = concat!("[`try_par_sweep`] on a rank-", stringify!($n), " grid.")]
        ///
        /// # Errors
        ///
        /// `Error::ShapeMismatch` when input and output shapes differ.
        #[cfg(feature = "rayon")]
        pub fn $try_par<const R: usize, T: Pod + Send + Sync, L1: Layout, C1: BoundsCheck, L2: Layout, C2: BoundsCheck>(
            input: ArrayView<'_, T, $n, L1, C1>,
            output: ArrayViewMut<'_, T, $n, L2, C2>,
            f: impl Fn(&mut T, Window<'_, T, $n, R>) + Sync + Send,
        ) -> Result<()> {
            par_sweep_named(stringify!($par), input, output, f)
        }
    )*};
}

rank_named! {
    2: sweep2 try_sweep2 boundary2 try_boundary2 par_sweep2 try_par_sweep2;
    3: sweep3 try_sweep3 boundary3 try_boundary3 par_sweep3 try_par_sweep3;
}

#[cfg(test)]
mod tests {
    use crate::shape::interior_range;

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
