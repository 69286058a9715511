//! Copies between layouts: `contiguous()` (the explicit view tax), `to_owned()`, `to_layout()`,
//! and `assign()` with broadcasting, on views and arrays, over the generic fill and copy
//! algorithms (`fill_copy.rs`).

use crate::array::{Array, CowArray};
use crate::check::BoundsCheck;
use crate::element::Pod;
use crate::error::or_panic;
use crate::error::Result;
use crate::kernel::CopyKernels;
use crate::kernel::{Allocator, HostAccessible};
use crate::layout::{Dense, Layout, RowMajor};
use crate::ops::fill_copy;
use crate::ops::operand::AsOperand;
use crate::rank::{BroadcastInto, Rank};
use crate::view::{Access, ArrayView, Unique, View};

impl<'a, T: Pod, const N: usize, L: Layout, C: BoundsCheck> ArrayView<'a, T, N, L, C> {
    /// Row-major contiguous data: the view itself when it already is (no copy), otherwise a copy
    /// made by a cache-blocked kernel. This is the explicit "view tax".
    ///
    /// ```
    /// use cnda::prelude::*;
    /// let a = Array::from_fn([2, 3], |[i, j]| 10 * i + j);
    /// assert!(a.view().contiguous().is_borrowed());
    /// let t = a.t().contiguous();
    /// assert!(!t.is_borrowed());
    /// assert_eq!(t.as_slice(), &[0, 10, 1, 11, 2, 12]);
    /// ```
    ///
    /// # Panics
    ///
    /// When the copy cannot be allocated.
    pub fn contiguous(self) -> CowArray<'a, T, N, C> {
        // A stride test first: the error `try_layout` builds (a formatted message) is for users,
        // not for choosing a branch.
        if self.raw.is_row_major() {
            if let Ok(view) = self.try_layout::<RowMajor>() {
                return CowArray::Borrowed(view);
            }
        }
        CowArray::Owned(self.to_layout::<RowMajor>())
    }
}

impl<T: Pod, const N: usize, B: CopyKernels, L: Layout, C: BoundsCheck> View<'_, T, N, Unique, B, L, C> {
    /// Copies `src` (an array or view on the same backend, `&` either) into this view element
    /// by element, broadcasting `src` to this view's shape (its rank `M` may be lower, checked by
    /// the type); on a device, by its copy kernel.
    ///
    /// ```
    /// use cnda::prelude::*;
    /// let mut grid = Array::<f32, 2>::zeros([2, 3]);
    /// let row = Array::from_shape_vec([3], vec![1.0, 2.0, 3.0]).unwrap();
    /// grid.assign(&row);
    /// assert_eq!(grid.as_slice(), &[1.0, 2.0, 3.0, 1.0, 2.0, 3.0]);
    /// ```
    ///
    /// # Panics
    ///
    /// When the shapes do not broadcast; [`View::try_assign`] returns the error.
    #[track_caller]
    pub fn assign<const M: usize, S: AsOperand<T, M, B>>(&mut self, src: &S)
    where
        Rank<M>: BroadcastInto<Rank<N>>,
    {
        or_panic(self.try_assign(src))
    }

    /// Copies `src` into this view, broadcasting it to this view's shape.
    ///
    /// # Errors
    ///
    /// `Error::Broadcast` when `src`'s shape does not broadcast to this view's;
    /// `Error::DeviceMismatch`; `Error::Device` from the copy kernel.
    pub fn try_assign<const M: usize, S: AsOperand<T, M, B>>(&mut self, src: &S) -> Result<()>
    where
        Rank<M>: BroadcastInto<Rank<N>>,
    {
        // SAFETY: a mutable view's indices address distinct elements it borrows uniquely; `src`
        // is a shared borrow, so it cannot overlap them.
        unsafe { fill_copy::assign(self.desc_mut(), src.operand_desc()) }
    }
}

impl<T: Pod, const N: usize, B: HostAccessible, L: Layout, C: BoundsCheck> Array<T, N, B, L, C> {
    /// Row-major contiguous data, borrowed when already so; see [`ArrayView::contiguous`].
    pub fn contiguous(&self) -> CowArray<'_, T, N, C> {
        self.host_view().contiguous()
    }
}

impl<T: Pod, const N: usize, B: CopyKernels, L: Layout, C: BoundsCheck> Array<T, N, B, L, C> {
    /// Copies `src` in, broadcasting it; see [`View::assign`].
    #[track_caller]
    pub fn assign<const M: usize, S: AsOperand<T, M, B>>(&mut self, src: &S)
    where
        Rank<M>: BroadcastInto<Rank<N>>,
    {
        self.view_mut().assign(src)
    }

    /// Copies `src` in, broadcasting it; see [`View::try_assign`].
    ///
    /// # Errors
    ///
    /// As for [`View::try_assign`].
    pub fn try_assign<const M: usize, S: AsOperand<T, M, B>>(&mut self, src: &S) -> Result<()>
    where
        Rank<M>: BroadcastInto<Rank<N>>,
    {
        self.view_mut().try_assign(src)
    }
}

/// Copies on views and arrays of any backend with copy kernels, from their `allocator()`.
macro_rules! copies {
    ($([$($generics:tt)*] $Self:ty;)*) => {$(
        impl<$($generics)*> $Self {
            /// An owned copy in dense layout `L2` (on the CPU made by the cache-blocked kernel),
            /// from `allocator()` (an array's own, the system for a CPU view).
            ///
            /// # Panics
            ///
            /// When the copy cannot be allocated.
            #[track_caller]
            pub fn to_layout<L2: Dense>(&self) -> Array<T, N, B, L2, C> {
                // SAFETY: live elements, borrowed shared for the call.
                or_panic(unsafe { fill_copy::to_layout(&self.allocator(), self.desc()) })
            }

            /// A row-major, owned copy of the elements, from `allocator()`.
            ///
            /// # Panics
            ///
            /// When the copy cannot be allocated.
            #[track_caller]
            pub fn to_owned(&self) -> Array<T, N, B, RowMajor, C> {
                self.to_layout::<RowMajor>()
            }

            /// [`to_layout`](Self::to_layout), returning the error instead of panicking.
            ///
            /// # Errors
            ///
            /// `Error::Alloc` when the copy cannot be allocated.
            pub fn try_to_layout<L2: Dense>(&self) -> Result<Array<T, N, B, L2, C>> {
                // SAFETY: live elements, borrowed shared for the call.
                unsafe { fill_copy::to_layout(&self.allocator(), self.desc()) }
            }

            /// [`to_owned`](Self::to_owned), returning the error instead of panicking.
            ///
            /// # Errors
            ///
            /// `Error::Alloc` when the copy cannot be allocated.
            pub fn try_to_owned(&self) -> Result<Array<T, N, B, RowMajor, C>> {
                self.try_to_layout::<RowMajor>()
            }

            /// A row-major, owned copy from allocator `alloc` of the same backend (a pool, say),
            /// made where the elements are: on their device, never through the host.
            ///
            /// # Panics
            ///
            /// When the copy cannot be allocated, or `alloc` is on another device.
            #[track_caller]
            pub fn to_owned_in(&self, alloc: &impl Allocator<B>) -> Array<T, N, B, RowMajor, C> {
                or_panic(self.try_to_owned_in(alloc))
            }

            /// [`to_owned_in`](Self::to_owned_in), returning the error instead of panicking.
            ///
            /// # Errors
            ///
            /// `Error::Alloc` when the copy cannot be allocated; `Error::DeviceMismatch` when
            /// `alloc` is on another device than the elements.
            pub fn try_to_owned_in(&self, alloc: &impl Allocator<B>) -> Result<Array<T, N, B, RowMajor, C>> {
                // SAFETY: live elements, borrowed shared for the call.
                unsafe { fill_copy::to_layout(alloc, self.desc()) }
            }
        }
    )*};
}

copies! {
    [T: Pod, const N: usize, A: Access, B: CopyKernels, L: Layout, C: BoundsCheck] View<'_, T, N, A, B, L, C>;
    [T: Pod, const N: usize, B: CopyKernels, L: Layout, C: BoundsCheck] Array<T, N, B, L, C>;
}

/// Fills: unique views and arrays of any backend with copy kernels.
macro_rules! fills {
    ($([$($generics:tt)*] $Self:ty;)*) => {$(
        impl<$($generics)*> $Self {
            /// Sets every element to `value`.
            ///
            /// # Panics
            ///
            /// Where [`try_fill`](Self::try_fill) fails (only on a device).
            #[track_caller]
            pub fn fill(&mut self, value: T) {
                or_panic(self.try_fill(value))
            }

            /// Sets every element to `value`.
            ///
            /// # Errors
            ///
            /// `Error::Device` with the error the device's fill kernel raised (never on the
            /// CPU).
            pub fn try_fill(&mut self, value: T) -> Result<()> {
                // SAFETY: the indices of a unique view or an owned array address distinct
                // elements, borrowed uniquely through `&mut self`.
                unsafe { fill_copy::fill(self.desc_mut(), value) }
            }
        }
    )*};
}

fills! {
    [T: Pod, const N: usize, B: CopyKernels, L: Layout, C: BoundsCheck] View<'_, T, N, Unique, B, L, C>;
    [T: Pod, const N: usize, B: CopyKernels, L: Layout, C: BoundsCheck] Array<T, N, B, L, C>;
}
