//! Borrowed views: one type, [`View`], shared or unique by its access marker and on any backend;
//! [`ArrayView`] (shared) and [`ArrayViewMut`] (exclusive) are its CPU forms.
//!
//! A view is a data handle, a shape and layout metadata, borrowed from an owner for `'a`:
//! creating one never copies elements, and the borrow checker rules out a view outliving its
//! owner or two mutable views of the same array.
//!
//! `ArrayView<T, N>` names the default layout, `Strided`, while `a.view()` of a row-major array is
//! `ArrayView<T, N, RowMajor>`, which knows more (no stride loads, `as_slice`). A function can
//! take either form:
//!
//! ```
//! use cnda::prelude::*;
//!
//! // Any layout, no conversion: generic over the layout, or over anything that lends a view.
//! fn peak<L: Layout>(u: ArrayView<f64, 2, L>) -> f64 {
//!     u.max().unwrap_or(f64::NAN)
//! }
//! fn total(u: &impl AsView<f64, 2>) -> f64 {
//!     u.as_view().sum()
//! }
//! // The default (`Strided`) type: callers convert with `.into()`.
//! fn corner(u: ArrayView<f64, 2>) -> f64 {
//!     u[[0, 0]]
//! }
//!
//! let a = Array::from_fn([2, 3], |[i, j]| (i * 3 + j) as f64);
//! assert_eq!(peak(a.view()), 5.0);
//! assert_eq!(peak(a.t()), 5.0);
//! assert_eq!(total(&a), 15.0);
//! assert_eq!(total(&a.t()), 15.0);
//! assert_eq!(corner(a.view().into()), 0.0);
//! assert_eq!(corner((&a).into()), 0.0);
//! ```

mod base;
mod dynamic;
pub(crate) mod foreign;
mod multi;
pub(crate) mod ops;
mod shared;
mod unique;

pub use base::{Access, ArrayView, ArrayViewMut, Shared, Unique, View};
pub use dynamic::{DynView, DynViewMut};
pub use ops::{Split, SplitMut};
