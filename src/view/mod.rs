//! Borrowed views: [`ArrayView`] (shared) and [`ArrayViewMut`] (exclusive).
//!
//! A view is a pointer, a shape and layout metadata, borrowed from an owner for `'a`: creating one
//! never copies elements, and the borrow checker rules out a view outliving its owner or two
//! mutable views of the same array.

mod copies;
pub(crate) mod ops_shared;
mod ops_unique;
mod shared;
mod unique;

pub use copies::{AsView, CowArray};
pub use ops_unique::SplitMut;
pub use shared::ArrayView;
pub use unique::ArrayViewMut;
