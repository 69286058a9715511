//! Bounds-check policies: the `C` parameter of the array types.
//!
//! | policy | `a[idx]` checks | cost |
//! |---|---|---|
//! | [`Checked`] | every axis; panics naming axis, index and size | a compare per axis, hoisted where LLVM can |
//! | [`Unchecked`] | one flat check that the element lies inside the array's memory | one compare |
//! | [`DefaultCheck`] | as `Checked` under `debug_assertions` or feature `bounds-check`, else as `Unchecked` | |
//!
//! `Unchecked` is still memory-safe: an index that is wrong on one axis but lands inside the
//! array reads the wrong element instead of foreign memory. Only `unsafe fn get_unchecked` skips
//! every check (and even it checks under feature `bounds-check`).
//!
//! `DefaultCheck` is one fixed type whose constant follows the cfg, not an alias that changes with
//! the feature, so enabling `bounds-check` in one crate of a build cannot make another crate's
//! impls conflict.

use core::fmt::Debug;

use crate::error::Error;

mod sealed {
    pub trait Sealed {}
}

/// A bounds-check policy; see the module documentation.
pub trait BoundsCheck: Copy + Default + Debug + Send + Sync + 'static + sealed::Sealed {
    /// Whether `a[idx]` checks every axis (otherwise it checks one flat offset).
    const PER_AXIS: bool;
    /// The policy's name, for `Debug` output.
    const NAME: &'static str;
}

/// Check every axis of every index; panic naming the axis, index and size.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Checked;

/// No per-axis checks; one flat check keeps accesses inside the array's memory.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Unchecked;

/// `Checked` in debug builds or with feature `bounds-check`, `Unchecked` otherwise.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct DefaultCheck;

impl sealed::Sealed for Checked {}
impl sealed::Sealed for Unchecked {}
impl sealed::Sealed for DefaultCheck {}

impl BoundsCheck for Checked {
    const PER_AXIS: bool = true;
    const NAME: &'static str = "Checked";
}

impl BoundsCheck for Unchecked {
    const PER_AXIS: bool = false;
    const NAME: &'static str = "Unchecked";
}

impl BoundsCheck for DefaultCheck {
    const PER_AXIS: bool = cfg!(any(feature = "bounds-check", debug_assertions));
    const NAME: &'static str = "DefaultCheck";
}

/// Whether `get_unchecked` checks anyway (feature `bounds-check`).
pub(crate) const CHECK_UNCHECKED: bool = cfg!(feature = "bounds-check");

/// Panics unless every `index[k] < shape[k]`.
///
/// Axes 0..4 are tested with one `if` each on a constant axis number: LLVM hoists such tests out of
/// loops, while a `for k in 0..N` loop over the axes keeps every test in the loop body and stops
/// vectorization (measured on this crate's stencil benches).
#[inline(always)]
#[track_caller]
pub(crate) fn check_axes<const N: usize>(index: &[usize; N], shape: &[usize; N]) {
    if N > 0 && index[0] >= shape[0] {
        out_of_bounds(0, index[0], shape[0]);
    }
    if N > 1 && index[1] >= shape[1] {
        out_of_bounds(1, index[1], shape[1]);
    }
    if N > 2 && index[2] >= shape[2] {
        out_of_bounds(2, index[2], shape[2]);
    }
    if N > 3 && index[3] >= shape[3] {
        out_of_bounds(3, index[3], shape[3]);
    }
    if N > 4 {
        for axis in 4..N {
            if index[axis] >= shape[axis] {
                out_of_bounds(axis, index[axis], shape[axis]);
            }
        }
    }
}

/// The `Result` form of [`check_axes`].
#[inline]
pub(crate) fn try_check_axes<const N: usize>(index: &[usize; N], shape: &[usize; N]) -> Result<(), Error> {
    match Error::first_out_of_bounds(index, shape) {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

#[cold]
#[inline(never)]
#[track_caller]
fn out_of_bounds(axis: usize, index: usize, size: usize) -> ! {
    panic!("{}", Error::IndexOutOfBounds { axis, index, size })
}

/// Panic for an index that failed the flat check of an `Unchecked` access.
#[cold]
#[inline(never)]
#[track_caller]
pub(crate) fn flat_out_of_bounds<const N: usize>(index: [usize; N], shape: [usize; N]) -> ! {
    match Error::first_out_of_bounds(&index, &shape) {
        Some(e) => panic!("{e}"),
        None => panic!("index {index:?} is out of bounds for shape {shape:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn in_range_indices_pass() {
        check_axes(&[0, 4, 2, 0, 0, 6], &[1, 5, 3, 1, 1, 7]);
        check_axes::<0>(&[], &[]);
    }

    #[test]
    #[should_panic(expected = "index 3 is out of bounds for axis 2 with size 3")]
    fn third_axis_is_named() {
        check_axes(&[0, 0, 3], &[1, 1, 3]);
    }

    #[test]
    #[should_panic(expected = "index 9 is out of bounds for axis 5 with size 2")]
    fn axes_past_four_are_checked() {
        check_axes(&[0, 0, 0, 0, 0, 9], &[1, 1, 1, 1, 1, 2]);
    }

    #[test]
    fn try_form_returns_the_error() {
        assert_eq!(try_check_axes(&[2, 0], &[2, 1]), Err(Error::IndexOutOfBounds { axis: 0, index: 2, size: 2 }));
    }

    #[test]
    fn default_check_follows_debug_assertions_and_feature() {
        assert_eq!(DefaultCheck::PER_AXIS, cfg!(debug_assertions) || cfg!(feature = "bounds-check"));
    }
}
