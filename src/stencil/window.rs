//! The neighbourhood handed to a stencil closure.

use core::marker::PhantomData;
use core::ops::Index;

/// The neighbours within radius `R` of one point of a 2D grid: `w[(di, dj)]` is the input at
/// `(i + di, j + dj)`, for `|di|, |dj| <= R`.
#[derive(Clone, Copy)]
pub struct Window2<'a, T, const R: usize> {
    centre: *const T,
    strides: [isize; 2],
    life: PhantomData<&'a T>,
}

/// The neighbours within radius `R` of one point of a 3D grid: `w[(di, dj, dk)]`.
#[derive(Clone, Copy)]
pub struct Window3<'a, T, const R: usize> {
    centre: *const T,
    strides: [isize; 3],
    life: PhantomData<&'a T>,
}

impl<'a, T, const R: usize> Window2<'a, T, R> {
    /// # Safety
    ///
    /// Every point within `R` of `centre` (through `strides`) is an element valid for `'a`.
    #[inline(always)]
    pub(crate) unsafe fn new(centre: *const T, strides: [isize; 2]) -> Self {
        Self { centre, strides, life: PhantomData }
    }

    /// The centre value.
    #[inline(always)]
    pub fn centre(&self) -> &'a T {
        // SAFETY: offset (0, 0) is within the radius.
        unsafe { &*self.centre }
    }
}

impl<'a, T, const R: usize> Window3<'a, T, R> {
    /// # Safety
    ///
    /// Every point within `R` of `centre` (through `strides`) is an element valid for `'a`.
    #[inline(always)]
    pub(crate) unsafe fn new(centre: *const T, strides: [isize; 3]) -> Self {
        Self { centre, strides, life: PhantomData }
    }

    /// The centre value.
    #[inline(always)]
    pub fn centre(&self) -> &'a T {
        // SAFETY: offset (0, 0, 0) is within the radius.
        unsafe { &*self.centre }
    }
}

impl<'a, T, const R: usize> Window2<'a, T, R> {
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
}

impl<'a, T, const R: usize> Window3<'a, T, R> {
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
}

#[cold]
#[inline(never)]
#[track_caller]
fn outside_radius<const K: usize>(offset: [isize; K], radius: usize) -> ! {
    panic!("stencil offset {offset:?} reaches past the window radius {radius}; raise the radius R of the sweep")
}

impl<T, const R: usize> Index<(isize, isize)> for Window2<'_, T, R> {
    type Output = T;

    #[inline(always)]
    #[track_caller]
    fn index(&self, (di, dj): (isize, isize)) -> &T {
        if di.unsigned_abs() > R || dj.unsigned_abs() > R {
            outside_radius([di, dj], R);
        }
        // SAFETY: within the radius, which the constructor's contract covers.
        unsafe { &*self.centre.offset(di * self.strides[0] + dj * self.strides[1]) }
    }
}

impl<T, const R: usize> Index<(isize, isize, isize)> for Window3<'_, T, R> {
    type Output = T;

    #[inline(always)]
    #[track_caller]
    fn index(&self, (di, dj, dk): (isize, isize, isize)) -> &T {
        if di.unsigned_abs() > R || dj.unsigned_abs() > R || dk.unsigned_abs() > R {
            outside_radius([di, dj, dk], R);
        }
        // SAFETY: within the radius, which the constructor's contract covers.
        unsafe { &*self.centre.offset(di * self.strides[0] + dj * self.strides[1] + dk * self.strides[2]) }
    }
}
