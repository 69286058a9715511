//! The one view type, [`View`]: a data handle, a shape and layout metadata, borrowed from an
//! owner for `'a`, shared or unique by its access marker ([`Shared`], [`Unique`]) and on any
//! backend. [`ArrayView`] and [`ArrayViewMut`] are its CPU forms. The view algebra (`t()`,
//! `slice`, `reshape` ...) is written once for every access and backend (`view/ops.rs`);
//! host-only operations (indexing, iteration, slices, `Display`) exist on the CPU forms.

use core::marker::PhantomData;

use crate::check::{BoundsCheck, DefaultCheck};
use crate::element::Pod;
use crate::geometry::Geometry;
use crate::kernel::Desc;
use crate::kernel::{Backend, Cpu};
use crate::layout::{Layout, Strided};
use crate::rank::{IsMatrix, Rank};
use crate::raw::RawParts;

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::Shared {}
    impl Sealed for super::Unique {}
}

/// How a view borrows its elements: [`Shared`] (read-only, `Copy`, may repeat elements through
/// broadcasting) or [`Unique`] (writable, exclusive, never repeats an element).
pub trait Access: sealed::Sealed + 'static {
    /// The borrow this access stands for: `&'a T` or `&'a mut T` (what makes a view `Send` and
    /// `Sync` exactly when that reference is).
    type Ref<'a, T: 'a>;
}

/// Shared access: the view reads its elements, as `&'a T`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Shared;

/// Unique access: the view reads and writes its elements, as `&'a mut T`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Unique;

impl Access for Shared {
    type Ref<'a, T: 'a> = &'a T;
}

impl Access for Unique {
    type Ref<'a, T: 'a> = &'a mut T;
}

/// A view of `N`-dimensional data of `T` on backend `B`, with access `A`, layout `L` and bounds
/// policy `C`, borrowed for `'a`. Creating one never copies elements, and the borrow checker
/// rules out a view outliving its owner or two unique views of the same array.
pub struct View<
    'a,
    T: Pod,
    const N: usize,
    A: Access,
    B: Backend = Cpu,
    L: Layout = Strided,
    C: BoundsCheck = DefaultCheck,
> {
    pub(crate) raw: RawParts<T, N, L, B>,
    // Covariant in `'a` like both references (elements are `'static` plain data, so the variance
    // in `T` does not matter); `Send`/`Sync` follow `A::Ref<'a, T>` through the impls below.
    life: PhantomData<(&'a T, A, C)>,
}

/// A shared, read-only view on the CPU: `Copy`, so passing it around copies only its metadata.
pub type ArrayView<'a, T, const N: usize, L = Strided, C = DefaultCheck> = View<'a, T, N, Shared, Cpu, L, C>;

/// An exclusive, writable view on the CPU: while it lives, nothing else reads or writes the
/// elements it covers.
pub type ArrayViewMut<'a, T, const N: usize, L = Strided, C = DefaultCheck> = View<'a, T, N, Unique, Cpu, L, C>;

impl<T: Pod, const N: usize, B: Backend, L: Layout, C: BoundsCheck> Clone for View<'_, T, N, Shared, B, L, C> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: Pod, const N: usize, B: Backend, L: Layout, C: BoundsCheck> Copy for View<'_, T, N, Shared, B, L, C> {}

// SAFETY: a view hands out what its borrow `A::Ref<'a, T>` would (`&T` or `&mut T`), so it may
// cross threads exactly when that reference may.
unsafe impl<'a, T: Pod, const N: usize, A: Access, B: Backend, L: Layout, C: BoundsCheck> Send
    for View<'a, T, N, A, B, L, C>
where
    A::Ref<'a, T>: Send,
{
}

// SAFETY: as above.
unsafe impl<'a, T: Pod, const N: usize, A: Access, B: Backend, L: Layout, C: BoundsCheck> Sync
    for View<'a, T, N, A, B, L, C>
where
    A::Ref<'a, T>: Sync,
{
}

/// Metadata: every access and backend.
impl<'a, T: Pod, const N: usize, A: Access, B: Backend, L: Layout, C: BoundsCheck> View<'a, T, N, A, B, L, C> {
    /// # Safety
    ///
    /// `raw` satisfies the `RawParts` invariant for memory that stays valid for `'a`; for
    /// `Shared`, nothing writes it for `'a`; for `Unique`, nothing else accesses it for `'a` and
    /// distinct in-bounds indices map to distinct elements (no zero strides).
    #[inline(always)]
    pub(crate) unsafe fn from_raw(raw: RawParts<T, N, L, B>) -> Self {
        Self { raw, life: PhantomData }
    }

    /// The length of each axis.
    #[inline(always)]
    pub fn shape(&self) -> [usize; N] {
        self.raw.shape
    }

    /// The distance between neighbours along each axis, in elements (negative when flipped, zero
    /// when broadcast).
    pub fn strides(&self) -> [isize; N] {
        self.raw.strides()
    }

    /// The number of axes, `N`.
    pub const fn ndim(&self) -> usize {
        N
    }

    /// The number of elements.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.raw.len
    }

    /// Whether some axis has length 0.
    pub fn is_empty(&self) -> bool {
        self.raw.len == 0
    }

    /// Whether the elements are one dense block in row-major (C) order.
    pub fn is_contiguous(&self) -> bool {
        self.raw.is_row_major()
    }

    /// Whether the elements are one dense block in column-major (Fortran) order.
    pub fn is_fortran_contiguous(&self) -> bool {
        self.raw.is_col_major()
    }

    /// Number of rows of a matrix (`shape()[0]`).
    pub fn nrows(&self) -> usize
    where
        Rank<N>: IsMatrix,
    {
        self.raw.shape[0]
    }

    /// Number of columns of a matrix (`shape()[1]`).
    pub fn ncols(&self) -> usize
    where
        Rank<N>: IsMatrix,
    {
        self.raw.shape[1]
    }

    /// The same view with bounds policy `C2`: a zero-cost type change.
    pub fn with_check<C2: BoundsCheck>(self) -> View<'a, T, N, A, B, L, C2> {
        // SAFETY: same memory, same borrow.
        unsafe { View::from_raw(self.raw) }
    }

    /// The allocator the outputs of ops on this view come from: the system on the CPU (a view
    /// does not know its owner's pool; ops on the owned array use the pool), the view's device
    /// elsewhere.
    pub fn allocator(&self) -> B::Alloc {
        B::allocator_of_handle(self.raw.ptr)
    }

    /// The view's own geometry, as input to the view algebra.
    pub(crate) fn geometry(&self) -> Geometry<N> {
        self.raw.geometry()
    }

    /// The kernel descriptor of this view.
    #[inline]
    pub(crate) fn desc(&self) -> Desc<B, T, N> {
        self.raw.desc()
    }
}

/// Reborrows of unique views: every backend.
impl<'a, T: Pod, const N: usize, B: Backend, L: Layout, C: BoundsCheck> View<'a, T, N, Unique, B, L, C> {
    /// A shared view of the same elements, borrowing this one.
    #[inline(always)]
    pub fn view(&self) -> View<'_, T, N, Shared, B, L, C> {
        // SAFETY: shared access for the borrow of `self`, which blocks writes through `self`.
        unsafe { View::from_raw(self.raw) }
    }

    /// A shorter-lived mutable view of the same elements (a reborrow).
    #[inline(always)]
    pub fn view_mut(&mut self) -> View<'_, T, N, Unique, B, L, C> {
        // SAFETY: exclusive access for the borrow of `self`.
        unsafe { View::from_raw(self.raw) }
    }

    /// A mutable view of the region `spec` selects, borrowing this view (the same name and form
    /// as [`Array::slice_mut`](crate::Array::slice_mut); [`View::slice`] consumes the view).
    ///
    /// ```
    /// use cnda::prelude::*;
    /// let mut a = Array::<i32, 2>::zeros([3, 4]);
    /// let mut v = a.view_mut();
    /// v.slice_mut(s![1..-1, 1..-1]).fill(7);
    /// v.slice_mut(s![0, ..]).fill(1);
    /// assert_eq!(a.as_slice(), &[1, 1, 1, 1, 0, 7, 7, 0, 0, 0, 0, 0]);
    /// ```
    ///
    /// # Panics
    ///
    /// As [`View::slice`]; [`View::try_slice_mut`] returns the error.
    #[track_caller]
    pub fn slice_mut<const M: usize, const CO: bool, const FO: bool>(
        &mut self,
        spec: crate::slice::SliceSpec<N, M, CO, FO>,
    ) -> View<'_, T, M, Unique, B, <L as crate::slice::SliceLayout<CO, FO>>::Out, C>
    where
        L: crate::slice::SliceLayout<CO, FO>,
    {
        self.view_mut().slice(spec)
    }

    /// [`View::slice_mut`], returning the error.
    ///
    /// # Errors
    ///
    /// As [`View::try_slice`].
    pub fn try_slice_mut<const M: usize, const CO: bool, const FO: bool>(
        &mut self,
        spec: crate::slice::SliceSpec<N, M, CO, FO>,
    ) -> crate::error::Result<View<'_, T, M, Unique, B, <L as crate::slice::SliceLayout<CO, FO>>::Out, C>>
    where
        L: crate::slice::SliceLayout<CO, FO>,
    {
        self.view_mut().try_slice(spec)
    }

    /// Turns this view into a shared view for the whole lifetime `'a`.
    pub fn into_view(self) -> View<'a, T, N, Shared, B, L, C> {
        // SAFETY: giving up the unique borrow leaves shared access for 'a.
        unsafe { View::from_raw(self.raw) }
    }

    /// The kernel descriptor of this view, for writing.
    #[inline]
    pub(crate) fn desc_mut(&mut self) -> Desc<B, T, N> {
        self.raw.desc()
    }
}
