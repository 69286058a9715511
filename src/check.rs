//! Bounds-check policies: the `C` parameter of the array types.
//!
//! Every safe access touches only the accessed array's or view's own elements, whatever the
//! policy, layout or build. What the policies choose is how an index is tested:
//!
//! | policy | `a[idx]` on `RowMajor`/`ColMajor` | on `Strided`/`Padded` |
//! |---|---|---|
//! | [`Checked`] | every axis; panics naming axis, index and size | the same |
//! | [`DefaultCheck`] | every axis, in debug **and release** builds | the same |
//! | [`Unchecked`] | one flat test `offset < len` (every axis in debug builds and under feature `bounds-check`) | every axis |
//!
//! Why per-axis checks by default, in release too: they are written as one `if` per constant
//! axis, which LLVM proves from the loop ranges of a stencil loop and hoists, so `a[[i, j]]` in a
//! loop runs at the speed of a raw slice loop (`docs/BENCHMARKS.md`, "Indexing"); the flat test
//! cannot be proven from loop ranges and measured 1.10-1.15x slower on cache-resident grids. A
//! wrong index then panics instead of reading another element.
//!
//! Why `Unchecked` tests a flat offset only on dense layouts: on `RowMajor`/`ColMajor` every
//! offset in `0..len` is an element of the same array or view, so a wrong index reads a wrong
//! element of the same array, never foreign memory. On `Strided` and `Padded` views an offset
//! inside the span may belong to another view (the other half of `split_at_mut`, which another
//! thread may be writing) or to padding, so only per-axis tests are sound there. `Unchecked` is
//! for random-access code whose indices are computed, where one compare beats `N`.
//!
//! Only `unsafe fn get_unchecked` skips every test (and even it tests every axis under feature
//! `bounds-check`, the debugging switch). `at(idx)` always returns a `Result`.
//!
//! `DefaultCheck` stays a type of its own (not an alias of `Checked`), so that code written
//! against it keeps compiling if its release behaviour is ever made configurable again, and
//! enabling a feature in one crate never makes another crate's impls conflict.

use core::fmt::Debug;

use crate::error::Error;

mod sealed {
    pub trait Sealed {}
}

/// A bounds-check policy; see the module documentation.
pub trait BoundsCheck: Copy + Default + Debug + Send + Sync + 'static + sealed::Sealed {
    /// Whether `a[idx]` checks every axis on every layout (otherwise dense layouts test one flat
    /// offset, and the others still check every axis).
    const PER_AXIS: bool;
    /// The policy's name, for `Debug` output.
    const NAME: &'static str;
}

/// Check every axis of every index; panic naming the axis, index and size.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Checked;

/// One flat test on dense layouts (a wrong index reads a wrong element of the same array);
/// per-axis checks on strided and padded views, where only they are sound.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Unchecked;

/// The default policy: every axis checked, in every build (as fast as no check in loops; see
/// the module documentation).
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
    const PER_AXIS: bool = cfg!(any(feature = "bounds-check", debug_assertions));
    const NAME: &'static str = "Unchecked";
}

impl BoundsCheck for DefaultCheck {
    const PER_AXIS: bool = true;
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

/// Panic for an index that failed the flat test of an `Unchecked` access on a dense layout.
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
    fn unchecked_checks_every_axis_only_in_debug_or_with_the_feature() {
        assert_eq!(Unchecked::PER_AXIS, cfg!(debug_assertions) || cfg!(feature = "bounds-check"));
    }
}
