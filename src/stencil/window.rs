//! The neighbourhood handed to a stencil closure: one type for every rank.

use core::marker::PhantomData;
use core::ops::Index;

/// The neighbours within radius `R` of one point of an `N`-dimensional grid: `w[offset]` is the
/// input at `point + offset`, for `|offset[k]| <= R` on every axis. Index it with an array
/// (`w[[-1, 0]]`) or, in 2D and 3D, a tuple (`w[(-1, 0)]`, `w[(0, 0, 1)]`); in 1D with an
/// `isize` (`w[-1]`).
#[derive(Clone, Copy)]
pub struct Window<'a, T, const N: usize, const R: usize> {
    centre: *const T,
    strides: [isize; N],
    life: PhantomData<&'a T>,
}

/// A window on a 1D grid: `w[di]`.
pub type Window1<'a, T, const R: usize> = Window<'a, T, 1, R>;
/// A window on a 2D grid: `w[(di, dj)]`.
pub type Window2<'a, T, const R: usize> = Window<'a, T, 2, R>;
/// A window on a 3D grid: `w[(di, dj, dk)]`.
pub type Window3<'a, T, const R: usize> = Window<'a, T, 3, R>;

impl<'a, T, const N: usize, const R: usize> Window<'a, T, N, R> {
    /// # Safety
    ///
    /// Every point within `R` of `centre` (through `strides`) is an element valid for `'a`.
    #[inline(always)]
    pub(crate) unsafe fn new(centre: *const T, strides: [isize; N]) -> Self {
        Self { centre, strides, life: PhantomData }
    }

    /// The centre value.
    #[inline(always)]
    pub fn centre(&self) -> &'a T {
        // SAFETY: offset 0 is within the radius.
        unsafe { &*self.centre }
    }

    /// The input `delta` elements from the centre.
    ///
    /// # Safety
    ///
    /// `delta` is `offset · strides` for an `offset` with `|offset[k]| <= R` on every axis.
    #[inline(always)]
    pub(crate) unsafe fn at_flat(&self, delta: isize) -> &'a T {
        // SAFETY: the caller's contract puts the element within the radius.
        unsafe { &*self.centre.offset(delta) }
    }

    /// The input at `offset` from the centre; the offset is asserted to lie within the radius
    /// (with literal offsets the assertion folds away).
    #[inline(always)]
    #[track_caller]
    fn at(&self, offset: [isize; N]) -> &'a T {
        if offset.iter().any(|d| d.unsigned_abs() > R) {
            outside_radius(offset, R);
        }
        let delta = (0..N).fold(0isize, |acc, k| acc + offset[k] * self.strides[k]);
        // SAFETY: within the radius, which the constructor's contract covers.
        unsafe { self.at_flat(delta) }
    }
}

#[cold]
#[inline(never)]
#[track_caller]
fn outside_radius<const K: usize>(offset: [isize; K], radius: usize) -> ! {
    panic!("stencil offset {offset:?} reaches past the window radius {radius}; raise the radius R of the sweep")
}

impl<T, const N: usize, const R: usize> Index<[isize; N]> for Window<'_, T, N, R> {
    type Output = T;

    #[inline(always)]
    #[track_caller]
    fn index(&self, offset: [isize; N]) -> &T {
        self.at(offset)
    }
}

impl<T, const R: usize> Index<isize> for Window<'_, T, 1, R> {
    type Output = T;

    #[inline(always)]
    #[track_caller]
    fn index(&self, di: isize) -> &T {
        self.at([di])
    }
}

impl<T, const R: usize> Index<(isize, isize)> for Window<'_, T, 2, R> {
    type Output = T;

    #[inline(always)]
    #[track_caller]
    fn index(&self, (di, dj): (isize, isize)) -> &T {
        self.at([di, dj])
    }
}

impl<T, const R: usize> Index<(isize, isize, isize)> for Window<'_, T, 3, R> {
    type Output = T;

    #[inline(always)]
    #[track_caller]
    fn index(&self, (di, dj, dk): (isize, isize, isize)) -> &T {
        self.at([di, dj, dk])
    }
}
