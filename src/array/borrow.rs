//! Borrowing host data whatever its owner or layout: [`AsView`]/[`AsViewMut`] (anything that
//! lends a host view: arrays, views, references to them) and [`CowArray`] (a row-major view that
//! is either borrowed or owns a fresh copy, what `contiguous()` returns).

use crate::array::Array;
use crate::check::BoundsCheck;
use crate::element::Pod;
use crate::error::Result;
use crate::kernel::{Cpu, HostAccessible};
use crate::layout::{Layout, RowMajor};
use crate::view::{ArrayView, ArrayViewMut};

/// Anything that can lend a shared view: arrays on host backends and both view types. Operations
/// that read a second operand (`assign`, arithmetic) take `&impl AsView`.
pub trait AsView<T: Pod, const N: usize> {
    /// Layout of the lent view.
    type Layout: Layout;
    /// Bounds policy of the lent view.
    type Check: BoundsCheck;

    /// A shared view of the whole operand.
    fn as_view(&self) -> ArrayView<'_, T, N, Self::Layout, Self::Check>;
}

impl<T: Pod, const N: usize, B: HostAccessible, L: Layout, C: BoundsCheck> AsView<T, N> for Array<T, N, B, L, C> {
    type Layout = L;
    type Check = C;
    fn as_view(&self) -> ArrayView<'_, T, N, L, C> {
        self.host_view()
    }
}

impl<T: Pod, const N: usize, L: Layout, C: BoundsCheck> AsView<T, N> for ArrayView<'_, T, N, L, C> {
    type Layout = L;
    type Check = C;
    fn as_view(&self) -> ArrayView<'_, T, N, L, C> {
        *self
    }
}

impl<T: Pod, const N: usize, L: Layout, C: BoundsCheck> AsView<T, N> for ArrayViewMut<'_, T, N, L, C> {
    type Layout = L;
    type Check = C;
    fn as_view(&self) -> ArrayView<'_, T, N, L, C> {
        self.view()
    }
}

impl<T: Pod, const N: usize, S: AsView<T, N>> AsView<T, N> for &S {
    type Layout = S::Layout;
    type Check = S::Check;
    fn as_view(&self) -> ArrayView<'_, T, N, S::Layout, S::Check> {
        (**self).as_view()
    }
}

/// Anything that can lend a mutable view: arrays on host backends and mutable views (and `&mut`
/// of either). In-place operations (`stencil::fill_halo`, ...) take `impl AsViewMut`, so both
/// `fill_halo(&mut a, ..)` and `fill_halo(a.view_mut(), ..)` work.
pub trait AsViewMut<T: Pod, const N: usize> {
    /// Layout of the lent view.
    type Layout: Layout;
    /// Bounds policy of the lent view.
    type Check: BoundsCheck;

    /// A mutable view of the whole operand.
    fn as_view_mut(&mut self) -> ArrayViewMut<'_, T, N, Self::Layout, Self::Check>;
}

impl<T: Pod, const N: usize, B: HostAccessible, L: Layout, C: BoundsCheck> AsViewMut<T, N> for Array<T, N, B, L, C> {
    type Layout = L;
    type Check = C;
    fn as_view_mut(&mut self) -> ArrayViewMut<'_, T, N, L, C> {
        self.host_view_mut()
    }
}

impl<T: Pod, const N: usize, L: Layout, C: BoundsCheck> AsViewMut<T, N> for ArrayViewMut<'_, T, N, L, C> {
    type Layout = L;
    type Check = C;
    fn as_view_mut(&mut self) -> ArrayViewMut<'_, T, N, L, C> {
        self.view_mut()
    }
}

impl<T: Pod, const N: usize, S: AsViewMut<T, N>> AsViewMut<T, N> for &mut S {
    type Layout = S::Layout;
    type Check = S::Check;
    fn as_view_mut(&mut self) -> ArrayViewMut<'_, T, N, S::Layout, S::Check> {
        (**self).as_view_mut()
    }
}

/// A row-major view that is either borrowed (the source already was row-major contiguous) or
/// owns a fresh copy: what `contiguous()` returns.
pub enum CowArray<'a, T: Pod, const N: usize, C: BoundsCheck> {
    /// The source itself, no copy made.
    Borrowed(ArrayView<'a, T, N, RowMajor, C>),
    /// A row-major copy of the source.
    Owned(Array<T, N, Cpu, RowMajor, C>),
}

impl<T: Pod, const N: usize, C: BoundsCheck> CowArray<'_, T, N, C> {
    /// A row-major view of the data.
    pub fn view(&self) -> ArrayView<'_, T, N, RowMajor, C> {
        match self {
            CowArray::Borrowed(v) => *v,
            CowArray::Owned(a) => a.view(),
        }
    }

    /// Whether no copy was made.
    pub fn is_borrowed(&self) -> bool {
        matches!(self, CowArray::Borrowed(_))
    }

    /// The data as an owned array (copying only if borrowed).
    pub fn into_owned(self) -> Array<T, N, Cpu, RowMajor, C> {
        match self {
            CowArray::Borrowed(v) => v.to_owned(),
            CowArray::Owned(a) => a,
        }
    }

    /// The elements in row-major order.
    pub fn as_slice(&self) -> &[T] {
        match self {
            CowArray::Borrowed(v) => v.as_slice(),
            CowArray::Owned(a) => a.as_slice(),
        }
    }

    /// The length of each axis.
    pub fn shape(&self) -> [usize; N] {
        self.view().shape()
    }

    /// The element strides (row-major).
    pub fn strides(&self) -> [isize; N] {
        self.view().strides()
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.view().len()
    }

    /// Whether some axis has length 0.
    pub fn is_empty(&self) -> bool {
        self.view().is_empty()
    }

    /// The element at `index`, or `None` when out of bounds.
    pub fn get(&self, index: [usize; N]) -> Option<&T> {
        self.view().get(index)
    }

    /// The element at `index`, always checked per axis.
    ///
    /// # Errors
    ///
    /// `Error::IndexOutOfBounds` naming the first axis out of range.
    pub fn at(&self, index: [usize; N]) -> Result<&T> {
        self.view().at(index)
    }

    /// Iterator over the elements in row-major order.
    pub fn iter(&self) -> crate::iter::Iter<'_, T, N> {
        self.view().iter()
    }
}

/// A `CowArray` is read like an array: `cow[[i, j]]`, `cow.shape()`, and it is an operand of
/// every op that takes `AsView` (`&cow + &b`, `Zip`, `assign`).
impl<T: Pod, const N: usize, C: BoundsCheck> AsView<T, N> for CowArray<'_, T, N, C> {
    type Layout = RowMajor;
    type Check = C;
    fn as_view(&self) -> ArrayView<'_, T, N, RowMajor, C> {
        self.view()
    }
}

impl<T: Pod, const N: usize, C: BoundsCheck> core::ops::Index<[usize; N]> for CowArray<'_, T, N, C> {
    type Output = T;

    #[track_caller]
    fn index(&self, index: [usize; N]) -> &T {
        self.view().index_ref(index)
    }
}

impl<T: Pod + core::fmt::Display, const N: usize, C: BoundsCheck> core::fmt::Display for CowArray<'_, T, N, C> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Display::fmt(&self.view(), f)
    }
}
