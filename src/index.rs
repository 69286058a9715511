//! `a[[i, j]]`: `Index`/`IndexMut` for arrays and views, following the type's bounds policy.
//!
//! Each impl is one line over `RawParts::element_ptr::<C>`, where the policy's check happens, so
//! the three types cannot drift apart.

use core::ops::{Index, IndexMut};

use crate::array::Array;
use crate::check::BoundsCheck;
use crate::element::Pod;
use crate::kernel::HostAccessible;
use crate::layout::Layout;
use crate::view::{ArrayView, ArrayViewMut};

impl<T: Pod, const N: usize, B: HostAccessible, L: Layout, C: BoundsCheck> Index<[usize; N]> for Array<T, N, B, L, C> {
    type Output = T;

    #[inline(always)]
    #[track_caller]
    fn index(&self, index: [usize; N]) -> &T {
        // SAFETY: `element_ptr` checks (per axis, or flat) that the pointer is an element of `self`.
        unsafe { &*self.raw().element_ptr::<C>(index) }
    }
}

impl<T: Pod, const N: usize, B: HostAccessible, L: Layout, C: BoundsCheck> IndexMut<[usize; N]>
    for Array<T, N, B, L, C>
{
    #[inline(always)]
    #[track_caller]
    fn index_mut(&mut self, index: [usize; N]) -> &mut T {
        // SAFETY: as in `index`, and `&mut self` makes the access unique.
        unsafe { &mut *self.raw_mut().element_ptr::<C>(index) }
    }
}

impl<T: Pod, const N: usize, L: Layout, C: BoundsCheck> Index<[usize; N]> for ArrayView<'_, T, N, L, C> {
    type Output = T;

    #[inline(always)]
    #[track_caller]
    fn index(&self, index: [usize; N]) -> &T {
        // SAFETY: `element_ptr` checks that the pointer is an element of the view.
        unsafe { &*self.raw.element_ptr::<C>(index) }
    }
}

impl<T: Pod, const N: usize, L: Layout, C: BoundsCheck> Index<[usize; N]> for ArrayViewMut<'_, T, N, L, C> {
    type Output = T;

    #[inline(always)]
    #[track_caller]
    fn index(&self, index: [usize; N]) -> &T {
        // SAFETY: `element_ptr` checks that the pointer is an element of the view.
        unsafe { &*self.raw.element_ptr::<C>(index) }
    }
}

impl<T: Pod, const N: usize, L: Layout, C: BoundsCheck> IndexMut<[usize; N]> for ArrayViewMut<'_, T, N, L, C> {
    #[inline(always)]
    #[track_caller]
    fn index_mut(&mut self, index: [usize; N]) -> &mut T {
        // SAFETY: as in `index`; the view borrows its elements uniquely.
        unsafe { &mut *self.raw.element_ptr::<C>(index) }
    }
}
