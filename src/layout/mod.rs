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
/// Sealed: safe code relies on `offset` mapping in-bounds indices to the array's own elements.
pub trait Layout: Copy + Default + Debug + Send + Sync + 'static + sealed::Sealed {
    /// What an array of this layout stores besides its shape: `()` for dense layouts.
    type Strides<const N: usize>: Copy + Debug + PartialEq + Send + Sync;

    /// The layout's name, for `Debug` output and error messages.
    const NAME: &'static str;

    /// The layout after reversing all axes (`t()`): C order becomes F order and back.
    type Reversed: Layout;

    /// The metadata of the same array with all axes reversed (`t()`), described in the reversed
    /// layout: derived from the type, with no run-time re-check of the strides. `shape` is the
    /// shape before reversing.
    fn reversed_meta<const N: usize>(
        shape: &[usize; N],
        meta: &Self::Strides<N>,
    ) -> <Self::Reversed as Layout>::Strides<N>;

    /// The layout after a no-copy `reshape` (which reads elements in row-major order): only a
    /// row-major block is guaranteed to stay one.
    type Reshaped: Layout;

    /// Element strides of an array with `shape` and metadata `meta`.
    fn strides<const N: usize>(shape: &[usize; N], meta: &Self::Strides<N>) -> [isize; N];

    /// Whether every offset in `0..len` is an element of the array (no gaps, no foreign
    /// elements between its elements). Only then can one flat test `offset < len` stand in for the
    /// per-axis checks: in a strided or padded view, an offset inside the span may belong to
    /// another view (the other half of `split_at_mut`) or to padding.
    const DENSE: bool;

    /// Element offset of `index` from the first element. Indices are not validated, and the
    /// arithmetic wraps: callers check bounds per axis first (or, on `DENSE` layouts, test the
    /// offset against the element count).
    fn offset<const N: usize>(shape: &[usize; N], meta: &Self::Strides<N>, index: &[usize; N]) -> isize;

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

/// A layout whose lanes along the last axis (rows) are contiguous in memory, `pitch` elements
/// apart: `RowMajor` (pitch = row length) and `Padded`. `rows()` and `rows_mut()` need it.
#[diagnostic::on_unimplemented(
    message = "`rows()` needs rows that are contiguous in memory, and a `{Self}` view has none",
    label = "this view's rows are not contiguous",
    note = "a transposed row-major array is `ColMajor`: iterate its elements in logical order with `iter()`, \
            or copy it with `.contiguous()` and take `rows()` of that; `as_slice()` of a `ColMajor` view \
            exists but is in memory (column) order"
)]
pub trait RowLayout: Layout {
    /// Distance between the starts of consecutive rows, in elements.
    fn row_pitch<const N: usize>(shape: &[usize; N], meta: &Self::Strides<N>) -> usize;
}

impl RowLayout for RowMajor {
    fn row_pitch<const N: usize>(shape: &[usize; N], _: &()) -> usize {
        if N == 0 {
            1
        } else {
            shape[N - 1]
        }
    }
}

impl RowLayout for Padded {
    fn row_pitch<const N: usize>(_: &[usize; N], meta: &PaddedMeta) -> usize {
        meta.pitch()
    }
}
