//! The `s!` macro and what it builds: one [`AxisSlice`] per axis, with the result rank and the
//! result layout decided at compile time from the macro's items.
//!
//! ```
//! use cnda::prelude::*;
//! let a = Array::from_fn([4, 6], |[i, j]| 10 * i + j);
//! let interior = a.slice(s![1..-1, 1..-1]);     // rows 1..3, columns 1..5
//! assert_eq!(interior.shape(), [2, 4]);
//! let rows = a.slice(s![1..3, ..]);              // a row range of a RowMajor array...
//! let _: ArrayView<usize, 2, RowMajor> = rows;   // ...is still RowMajor, by type
//! let col = a.slice(s![..;-1, 2]);               // every row backwards, column 2: rank 1
//! assert_eq!(col.iter().copied().collect::<Vec<_>>(), vec![32, 22, 12, 2]);
//! ```
//!
//! Items, separated by commas, one per axis:
//!
//! | item | meaning |
//! |---|---|
//! | `..` | the whole axis |
//! | `a..b`, `a..`, `..b`, `a..=b` | a range; negative bounds count from the end (`1..-1` drops both ends); bounds must lie in `0..=len` once resolved, and a reversed range is empty (`1..-1` on an axis of length 1), as in NumPy |
//! | `range;step` | every `step`-th element of the range; a negative step starts at the back of the range |
//! | `i` | one position (negative counts from the end); the axis is dropped |
//!
//! Ranges must be written literally (a range stored in a variable is read as an index and rejected
//! at compile time). Out-of-range bounds and zero steps are errors (`try_slice`) or panics
//! (`slice`), never silently clamped.
//!
//! Result layout: a `RowMajor` source stays `RowMajor` when the items are leading indices, then at
//! most one step-less range, then whole axes (`s![i, a..b, ..]`); a `ColMajor` source stays
//! `ColMajor` for the mirror image (`s![.., a..b, i]`); everything else is `Strided`.

use core::ops::{Range, RangeFrom, RangeFull, RangeInclusive, RangeTo, RangeToInclusive};

use crate::layout::{ColMajor, Layout, Padded, RowMajor, Strided};

/// What one `s!` item selects on one axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AxisSlice {
    /// One position, dropping the axis; negative counts from the end.
    Index(isize),
    /// The positions `start..end` (negative bounds count from the end; `end: None` is the end of
    /// the axis), every `step`-th; a negative step walks from the back of the range.
    Range {
        /// First bound.
        start: isize,
        /// Second bound, exclusive; `None` for the end of the axis.
        end: Option<isize>,
        /// Step between selected positions; not 0.
        step: isize,
    },
}

impl AxisSlice {
    /// The whole axis.
    pub const FULL: AxisSlice = AxisSlice::Range { start: 0, end: None, step: 1 };

    /// This range with step `step` (an index stays an index).
    pub fn step_by(self, step: isize) -> AxisSlice {
        match self {
            AxisSlice::Range { start, end, .. } => AxisSlice::Range { start, end, step },
            index => index,
        }
    }
}

/// A full `s!` specification for a rank-`IN` array, giving a rank-`OUT` view. `C_ORDER` /
/// `F_ORDER` say whether the selection keeps a row-major / column-major block dense; the view ops
/// verify the claim against the actual strides, so a wrong claim is an error, never unsound.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SliceSpec<const IN: usize, const OUT: usize, const C_ORDER: bool, const F_ORDER: bool> {
    items: [AxisSlice; IN],
}

impl<const IN: usize, const OUT: usize, const C_ORDER: bool, const F_ORDER: bool> SliceSpec<IN, OUT, C_ORDER, F_ORDER> {
    /// A specification from its items; use the `s!` macro instead, which computes `OUT` and the
    /// layout flags.
    ///
    /// # Panics
    ///
    /// When the number of range items differs from `OUT`.
    #[track_caller]
    pub fn new(items: [AxisSlice; IN]) -> Self {
        let kept = items.iter().filter(|item| matches!(item, AxisSlice::Range { .. })).count();
        assert_eq!(kept, OUT, "SliceSpec: {kept} range items make a rank-{kept} view, not rank {OUT}");
        Self { items }
    }

    /// The items, one per axis.
    pub fn items(&self) -> &[AxisSlice; IN] {
        &self.items
    }
}

/// The layout of a slice of an `L` array, given the `s!` flags.
pub trait SliceLayout<const C_ORDER: bool, const F_ORDER: bool>: Layout {
    /// The result layout.
    type Out: Layout;
}

impl<const F: bool> SliceLayout<true, F> for RowMajor {
    type Out = RowMajor;
}
impl<const F: bool> SliceLayout<false, F> for RowMajor {
    type Out = Strided;
}
impl<const C: bool> SliceLayout<C, true> for ColMajor {
    type Out = ColMajor;
}
impl<const C: bool> SliceLayout<C, false> for ColMajor {
    type Out = Strided;
}
impl<const F: bool> SliceLayout<true, F> for Padded {
    type Out = Padded;
}
impl<const F: bool> SliceLayout<false, F> for Padded {
    type Out = Strided;
}
impl<const C: bool, const F: bool> SliceLayout<C, F> for Strided {
    type Out = Strided;
}

fn bound<B: TryInto<isize>>(b: B) -> isize {
    // A bound past isize::MAX is past every axis: keep it out of range, never wrap it into range.
    b.try_into().unwrap_or(isize::MAX)
}

/// A range usable as an `s!` item.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a range an `s!` item accepts",
    note = "write ranges of usize, isize or i32 literally: `a..b`, `a..`, `..b`, `a..=b`, `..`"
)]
pub trait IntoAxisRange {
    /// The range as an `AxisSlice` with step 1.
    fn into_axis_range(self) -> AxisSlice;
}

/// A position usable as an `s!` index item.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an index an `s!` item accepts",
    note = "an index item is a usize, isize or i32; write ranges literally inside `s![...]` (`a..b`, not a variable holding a range)"
)]
pub trait IntoAxisIndex {
    /// The position (negative counts from the end).
    fn into_axis_index(self) -> isize;
}

impl IntoAxisRange for RangeFull {
    fn into_axis_range(self) -> AxisSlice {
        AxisSlice::FULL
    }
}

macro_rules! axis_items {
    ($($t:ty)*) => {$(
        impl IntoAxisIndex for $t {
            fn into_axis_index(self) -> isize { bound(self) }
        }
        impl IntoAxisRange for Range<$t> {
            fn into_axis_range(self) -> AxisSlice {
                AxisSlice::Range { start: bound(self.start), end: Some(bound(self.end)), step: 1 }
            }
        }
        impl IntoAxisRange for RangeFrom<$t> {
            fn into_axis_range(self) -> AxisSlice {
                AxisSlice::Range { start: bound(self.start), end: None, step: 1 }
            }
        }
        impl IntoAxisRange for RangeTo<$t> {
            fn into_axis_range(self) -> AxisSlice {
                AxisSlice::Range { start: 0, end: Some(bound(self.end)), step: 1 }
            }
        }
        impl IntoAxisRange for RangeInclusive<$t> {
            fn into_axis_range(self) -> AxisSlice {
                let end = inclusive_end(bound(*self.end()));
                AxisSlice::Range { start: bound(*self.start()), end, step: 1 }
            }
        }
        impl IntoAxisRange for RangeToInclusive<$t> {
            fn into_axis_range(self) -> AxisSlice {
                AxisSlice::Range { start: 0, end: inclusive_end(bound(self.end)), step: 1 }
            }
        }
    )*};
}
axis_items!(usize isize i32);

/// `..=e` as an exclusive end: `..=-1` runs to the end of the axis.
fn inclusive_end(e: isize) -> Option<isize> {
    if e == -1 {
        None
    } else {
        Some(e.saturating_add(1))
    }
}

#[doc(hidden)]
pub fn range_item(r: impl IntoAxisRange) -> AxisSlice {
    r.into_axis_range()
}

#[doc(hidden)]
pub fn index_item(i: impl IntoAxisIndex) -> AxisSlice {
    AxisSlice::Index(i.into_axis_index())
}

/// Builds a [`SliceSpec`](crate::slice::SliceSpec) for `slice`/`slice_mut`; see the
/// [`slice`](crate::slice) module for the item syntax, rank and layout rules.
#[macro_export]
macro_rules! s {
    ($($t:tt)*) => { $crate::__s_split!([] [] $($t)*) };
}

/// Splits `s!` input at top-level commas into parenthesized items.
#[doc(hidden)]
#[macro_export]
macro_rules! __s_split {
    ([$($items:tt)*] []) => { $crate::__s_classify!([] $($items)*) };
    ([$($items:tt)*] [$($cur:tt)+]) => { $crate::__s_classify!([] $($items)* ($($cur)+)) };
    ([$($items:tt)*] [$($cur:tt)+] , $($rest:tt)*) => { $crate::__s_split!([$($items)* ($($cur)+)] [] $($rest)*) };
    ([$($items:tt)*] [$($cur:tt)*] $t:tt $($rest:tt)*) => { $crate::__s_split!([$($items)*] [$($cur)* $t] $($rest)*) };
}

/// Tags each item: `F` whole axis, `R` step-less range, `S` stepped range, `I` index.
#[doc(hidden)]
#[macro_export]
macro_rules! __s_classify {
    ([$(($kind:ident $e:expr))*]) => { $crate::__s_emit!([$($kind)*] [$($e),*]) };
    ([$($done:tt)*] (..) $($rest:tt)*) => {
        $crate::__s_classify!([$($done)* (F $crate::slice::AxisSlice::FULL)] $($rest)*)
    };
    ([$($done:tt)*] ($($item:tt)+) $($rest:tt)*) => { $crate::__s_step!([$($done)*] [] [$($item)+] $($rest)*) };
}

/// Looks for `;` in one item.
#[doc(hidden)]
#[macro_export]
macro_rules! __s_step {
    ([$($done:tt)*] [$($range:tt)+] [; $($step:tt)+] $($rest:tt)*) => {
        $crate::__s_classify!(
            [$($done)* (S $crate::__s_range_expr!($($range)+).step_by($($step)+))] $($rest)*
        )
    };
    ([$($done:tt)*] [$($item:tt)+] [] $($rest:tt)*) => { $crate::__s_range!([$($done)*] [$($item)+] [$($item)+] $($rest)*) };
    ([$($done:tt)*] [$($seen:tt)*] [$t:tt $($more:tt)*] $($rest:tt)*) => {
        $crate::__s_step!([$($done)*] [$($seen)* $t] [$($more)*] $($rest)*)
    };
}

/// Looks for `..` / `..=` in a step-less item: a range if found, an index otherwise.
#[doc(hidden)]
#[macro_export]
macro_rules! __s_range {
    ([$($done:tt)*] [$($item:tt)+] [.. $($more:tt)*] $($rest:tt)*) => {
        $crate::__s_classify!([$($done)* (R $crate::__s_range_expr!($($item)+))] $($rest)*)
    };
    ([$($done:tt)*] [$($item:tt)+] [..= $($more:tt)*] $($rest:tt)*) => {
        $crate::__s_classify!([$($done)* (R $crate::__s_range_expr!($($item)+))] $($rest)*)
    };
    ([$($done:tt)*] [$($item:tt)+] [] $($rest:tt)*) => {
        $crate::__s_classify!([$($done)* (I $crate::slice::index_item($($item)+))] $($rest)*)
    };
    ([$($done:tt)*] [$($item:tt)+] [$t:tt $($more:tt)*] $($rest:tt)*) => {
        $crate::__s_range!([$($done)*] [$($item)+] [$($more)*] $($rest)*)
    };
}

/// One range item as an `AxisSlice`. `1..-1` is a valid item though an empty `Range` to clippy,
/// hence the `allow` on the binding.
#[doc(hidden)]
#[macro_export]
macro_rules! __s_range_expr {
    ($($range:tt)+) => {{
        #[allow(clippy::reversed_empty_ranges)]
        let range = $($range)+;
        $crate::slice::range_item(range)
    }};
}

#[doc(hidden)]
#[macro_export]
macro_rules! __s_emit {
    ([$($kind:ident)*] [$($e:expr),*]) => {
        $crate::slice::SliceSpec::<
            { 0 $(+ $crate::__s_count!($kind I))* },
            { 0 $(+ $crate::__s_count!($kind F R S))* },
            { $crate::__s_c_order!($($kind)*) },
            { $crate::__s_f_order!($($kind)*) },
        >::new([$($e),*])
    };
}

/// 1 when the kind is one of the listed ones (or for `I` alone: every item counts).
#[doc(hidden)]
#[macro_export]
macro_rules! __s_count {
    ($kind:ident I) => {
        1
    };
    (I F R S) => {
        0
    };
    ($kind:ident F R S) => {
        1
    };
}

/// Row-major blocks stay dense for: leading indices, then at most one step-less range, then whole axes.
#[doc(hidden)]
#[macro_export]
macro_rules! __s_c_order {
    () => { true };
    (I $($k:ident)*) => { $crate::__s_c_order!($($k)*) };
    (R $(F)*) => { true };
    (F $(F)*) => { true };
    ($($k:ident)*) => { false };
}

/// Column-major blocks stay dense for the mirror image: whole axes, at most one range, then indices.
#[doc(hidden)]
#[macro_export]
macro_rules! __s_f_order {
    () => { true };
    (F $($k:ident)*) => { $crate::__s_f_order!($($k)*) };
    (R $(I)*) => { true };
    (I $(I)*) => { true };
    ($($k:ident)*) => { false };
}
