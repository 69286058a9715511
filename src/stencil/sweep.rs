//! The sweeps, one for every rank: interior (unchecked inner loops after one region check),
//! boundary (checked), and parallel interior sweeps over disjoint bands of the first axis.
//! `sweep2`/`sweep3` (and their boundary and parallel forms) name the rank for readers and for
//! turbofish callers; they are the generic sweep.

use core::ops::Range;

use super::window::Window;
use crate::backend::cpu::simd::{Isa, Kernel};
use crate::check::BoundsCheck;
use crate::element::Pod;
use crate::error::or_panic;
use crate::error::{Error, Result};
use crate::layout::Layout;
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

/// `f(&mut output[x], pointer to input[x], strides)` for every point `x` of `shape`, with `input`
/// and `output` pointing at the point `[0; N]` and `strides` the input's. Walks lanes along the
/// last axis; on lanes where both step by one, the output lane is a slice and the strides handed
/// to `f` end in the literal 1, so LLVM knows the writes alias no read and the neighbours' offsets
/// are constants, and vectorizes the loop. Everything the loop reads is a local value (moved
/// into the lane closure, copied before the loop): values read through a closure's environment
/// would be reloaded after every store, which kept the loop scalar (3x slower, measured). The
/// input is read through raw pointers only: a slice spanning rows around a lane would also span
/// memory between rows that may belong to other views. The one point walker of the interior
/// sweeps and the CPU's stencil kernel.
///
/// # Safety
///
/// Every point's input element is a live element and its output element is live, writable,
/// distinct per point and written by nobody else; `f` reads only input elements the caller
/// vouches for; the output does not overlap them.
#[inline(always)]
pub(crate) unsafe fn for_each_point<T, const N: usize>(
    input: *const T,
    in_strides: [isize; N],
    output: *mut T,
    out_strides: [isize; N],
    shape: [usize; N],
    f: &mut impl FnMut(&mut T, *const T, [isize; N]),
) {
    crate::ops::lanes::walk_lanes(shape, [in_strides, out_strides], PointLanes { input, in_strides, output, f });
}

/// The lanes of [`for_each_point`] (a named type, so the SIMD-dispatched stencil kernel inlines
/// its loops).
struct PointLanes<'f, T, const N: usize, F> {
    input: *const T,
    in_strides: [isize; N],
    output: *mut T,
    f: &'f mut F,
}

impl<T, const N: usize, F: FnMut(&mut T, *const T, [isize; N])> crate::ops::lanes::Lane<2> for PointLanes<'_, T, N, F> {
    #[inline(always)]
    fn run(&mut self, [bi, bo]: [isize; 2], len: usize, [si, so]: [isize; 2]) {
        let (f, in_strides) = (&mut *self.f, self.in_strides);
        // SAFETY: `for_each_point`'s contract, for every point of the lane (in-bounds pointer
        // arithmetic, which LLVM needs to vectorize the loop).
        unsafe {
            let (centre, out) = (self.input.offset(bi), self.output.offset(bo));
            if si == 1 && so == 1 {
                let mut unit = in_strides;
                unit[N - 1] = 1;
                let out = core::slice::from_raw_parts_mut(out, len);
                for j in 0..len {
                    f(out.get_unchecked_mut(j), centre.add(j), unit);
                }
            } else {
                for j in 0..len as isize {
                    f(&mut *out.offset(j * so), centre.offset(j * si), in_strides);
                }
            }
        }
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
    // SAFETY: the walk's contract is this function's, for the interior region.
    unsafe { Isa::detect().run(InteriorWalk::<T, N, R, _> { region, f }) };
}

/// The interior walk of a sweep as a SIMD-dispatched kernel, so the user's closure is compiled for
/// the CPU's instruction set inside the loop. Safety (`Kernel::run`): the region's points are
/// interior points of live input and output grids (`interior`'s contract).
struct InteriorWalk<'f, T, const N: usize, const R: usize, F> {
    /// The interior region: pointers at its first point, its shape.
    region: Grid<T, N>,
    f: &'f mut F,
}

impl<T, const N: usize, const R: usize, F: FnMut(&mut T, Window<'_, T, N, R>)> Kernel for InteriorWalk<'_, T, N, R, F> {
    type Output = ();

    #[inline(always)]
    unsafe fn run(self) {
        let InteriorWalk { region: g, f } = self;
        // SAFETY: every point walked is an interior point, so its window lies in the input; the
        // output is uniquely borrowed and never the input (the kernel's contract).
        unsafe {
            for_each_point(g.input, g.in_strides, g.output, g.out_strides, g.shape, &mut |out, centre, strides| {
                f(out, Window::new(centre, strides))
            })
        };
    }
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
    crate::ops::par::for_each_subrange(interior_range(g.shape[0], R), BANDS_PER_THREAD, |band| {
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
