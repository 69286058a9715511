//! Memory layouts: the `L` parameter of the array types.
//!
//! A layout maps an index to an element offset. Dense layouts ([`RowMajor`], [`ColMajor`]) store no
//! strides at all (their `Strides<N>` is `()`), so a row-major 2D access is `ptr[i * shape[1] + j]`
//! with no stride load. [`Strided`] stores `isize` strides (negative for flips, zero for broadcasts).
//! Each layout lives in its own file and implements [`Layout`]; the array types hold no stride math.

mod col_major;
pub(crate) mod padded;
mod row_major;
mod strided;

use core::fmt::Debug;

pub use col_major::ColMajor;
pub use padded::{Padded, PaddedMeta};
pub use row_major::RowMajor;
pub use strided::{StrideMeta, Strided};

pub(crate) mod sealed {
    pub trait Sealed {}
}

/// How an array's elements are placed in memory; see the module documentation.
///
/// Sealed: safe code relies on `offset` and `covers` agreeing with the memory an array owns.
pub trait Layout: Copy + Default + Debug + Send + Sync + 'static + sealed::Sealed {
    /// What an array of this layout stores besides its shape: `()` for dense layouts.
    type Strides<const N: usize>: Copy + Debug + PartialEq + Send + Sync;

    /// The layout's name, for `Debug` output and error messages.
    const NAME: &'static str;

    /// The layout after reversing all axes (`t()`): C order becomes F order and back.
    type Reversed: Layout;

    /// The layout after a no-copy `reshape` (which reads elements in row-major order): only a
    /// row-major block is guaranteed to stay one.
    type Reshaped: Layout;

    /// Element strides of an array with `shape` and metadata `meta`.
    fn strides<const N: usize>(shape: &[usize; N], meta: &Self::Strides<N>) -> [isize; N];

    /// Element offset of `index` from the first element. Indices are not validated, and the
    /// arithmetic wraps: callers check bounds per axis or with [`Layout::covers`].
    fn offset<const N: usize>(shape: &[usize; N], meta: &Self::Strides<N>, index: &[usize; N]) -> isize;

    /// Whether `offset` lands inside the memory of an array of `len` elements with metadata `meta`:
    /// the single flat check that keeps `Unchecked` access memory-safe.
    fn covers<const N: usize>(meta: &Self::Strides<N>, len: usize, offset: isize) -> bool;

    /// The metadata describing `shape` with `strides`, or `None` when this layout cannot express them.
    fn from_strides<const N: usize>(shape: &[usize; N], strides: &[isize; N]) -> Option<Self::Strides<N>>;
}

/// A layout whose arrays are one dense block in a fixed axis order and store no strides.
pub trait Dense: Layout {
    /// `true` when the last axis is the fastest-varying one (C order), `false` for F order.
    const LAST_AXIS_FASTEST: bool;

    /// The metadata of every array of this layout.
    fn dense_meta<const N: usize>() -> Self::Strides<N>;
}
