//! The metadata every array and view shares, and the one place where an index becomes a pointer.

use core::fmt;

use num_complex::Complex;

use crate::check::{self, BoundsCheck};
use crate::element::{ComplexPart, Pod};
use crate::error::Error;
use crate::geometry::Geometry;
use crate::kernel::{Backend, Cpu};
use crate::layout::Layout;
use crate::shape;

/// The data handle of the element at index `[0; N]` (a pointer on the CPU), shape, layout
/// metadata and element count: what every view is.
///
/// Invariant (upheld by every constructor): on the CPU `ptr` is non-null and aligned, even when
/// the array is empty; for every in-bounds index, `ptr + L::offset(index)` addresses an
/// initialized element of one live allocation; `len` is the product of `shape` and
/// `len * size_of::<T>() <= isize::MAX`; on a `L::DENSE` layout the offsets of the in-bounds
/// indices are exactly `0..len`.
pub(crate) struct RawParts<T: Pod, const N: usize, L: Layout, B: Backend = Cpu> {
    pub(crate) ptr: B::Handle<T>,
    pub(crate) shape: [usize; N],
    pub(crate) meta: L::Strides<N>,
    pub(crate) len: usize,
}

impl<T: Pod, const N: usize, L: Layout, B: Backend> Clone for RawParts<T, N, L, B> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: Pod, const N: usize, L: Layout, B: Backend> Copy for RawParts<T, N, L, B> {}

impl<T: Pod, const N: usize, L: Layout, B: Backend> fmt::Debug for RawParts<T, N, L, B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RawParts").field("shape", &self.shape).field("meta", &self.meta).finish()
    }
}

/// Metadata and the view algebra's re-description: every backend.
impl<T: Pod, const N: usize, L: Layout, B: Backend> RawParts<T, N, L, B> {
    /// Element strides.
    #[inline]
    pub(crate) fn strides(&self) -> [isize; N] {
        L::strides(&self.shape, &self.meta)
    }

    /// The kernel descriptor of these elements.
    #[inline]
    pub(crate) fn desc(&self) -> crate::kernel::Desc<B, T, N> {
        crate::kernel::Desc { handle: self.ptr, shape: self.shape, strides: self.strides() }
    }

    /// The same elements with all axes reversed, in layout `L::Reversed`: the metadata follows
    /// from the type (`Layout::reversed_meta`), so nothing is re-checked at run time.
    pub(crate) fn reversed(self) -> RawParts<T, N, L::Reversed, B> {
        let meta = L::reversed_meta(&self.shape, &self.meta);
        let mut shape = self.shape;
        shape.reverse();
        RawParts { ptr: self.ptr, shape, meta, len: self.len }
    }

    /// Whether the elements are one dense block in C order.
    pub(crate) fn is_row_major(&self) -> bool {
        shape::matches_dense(&self.shape, &self.strides(), &shape::row_major_strides(&self.shape))
    }

    /// Whether the elements are one dense block in Fortran order.
    pub(crate) fn is_col_major(&self) -> bool {
        shape::matches_dense(&self.shape, &self.strides(), &shape::col_major_strides(&self.shape))
    }

    /// The view's own geometry, as input to the view algebra.
    pub(crate) fn geometry(&self) -> Geometry<N> {
        Geometry::new(self.shape, self.strides())
    }

    /// The elements `g` selects, described in layout `L2`.
    ///
    /// Sound for any `g` that `geometry.rs` derived from `self.geometry()`: those select only
    /// elements of `self` (possibly repeated, for broadcasts), so the invariant carries over; the
    /// footprint of a `Strided` result is recomputed from its own strides.
    ///
    /// # Errors
    ///
    /// `Error::Layout` when `L2` cannot express the strides of `g`; `Error::Overflow` when the
    /// element count of `g` (a broadcast target, say) overflows or its bytes exceed `isize::MAX`.
    pub(crate) fn remap<const M: usize, L2: Layout>(self, g: Geometry<M>) -> Result<RawParts<T, M, L2, B>, Error> {
        let len = shape::checked_len("view", &g.shape, core::mem::size_of::<T>())?;
        let meta = g.meta::<L2>()?;
        // An empty view keeps its source's handle: the offset of an empty selection may point
        // anywhere (even at null), and slices need a non-null, aligned pointer even when empty.
        let ptr = if len == 0 { self.ptr } else { B::moved(self.ptr, g.offset) };
        Ok(RawParts { ptr, shape: g.shape, meta, len })
    }
}

/// Complex elements seen as their parts: every backend.
impl<F: ComplexPart, const N: usize, L: Layout, B: Backend> RawParts<Complex<F>, N, L, B> {
    /// The real (`im` false) or imaginary parts of the elements, described as `F`s
    /// ([`complex_parts`](crate::kernel::complex_parts): every stride doubled, the imaginary
    /// parts one `F` further). The same memory and element count, so the invariant carries over;
    /// each `F` is aligned, as `Complex<F>` is `#[repr(C)]` `{ re: F, im: F }`.
    pub(crate) fn complex_part(self, im: bool) -> RawParts<F, N, crate::layout::Strided, B> {
        let whole = crate::kernel::Desc { handle: self.ptr, shape: self.shape, strides: self.strides() };
        let part = crate::kernel::complex_parts::<F, Complex<F>, B, N>(whole)[usize::from(im)];
        let meta = <crate::layout::Strided as Layout>::from_strides(&self.shape, &part.strides)
            .expect("Strided expresses any strides");
        RawParts { ptr: part.handle, shape: self.shape, meta, len: self.len }
    }
}

/// Host access: where an index becomes a pointer.
impl<T: Pod, const N: usize, L: Layout> RawParts<T, N, L> {
    /// Pointer to `index` under bounds policy `C`: per-axis checks, or, for `Unchecked` on a
    /// dense layout, one flat test that keeps the pointer on one of the array's own elements.
    /// Panics when the check fails.
    #[inline(always)]
    #[track_caller]
    pub(crate) fn element_ptr<C: BoundsCheck>(&self, index: [usize; N]) -> *mut T {
        let flat = !C::PER_AXIS && L::DENSE;
        if !flat {
            check::check_axes(&index, &self.shape);
        }
        let offset = L::offset(&self.shape, &self.meta, &index);
        // On a dense layout the offsets `0..len` are exactly the array's elements (invariant).
        if flat && offset as usize >= self.len {
            check::flat_out_of_bounds(index, self.shape);
        }
        self.ptr.wrapping_offset(offset)
    }

    /// Pointer to `index` after a per-axis check that reports failure as an `Error`.
    #[inline]
    pub(crate) fn try_element_ptr(&self, index: [usize; N]) -> Result<*mut T, Error> {
        check::try_check_axes(&index, &self.shape)?;
        Ok(self.ptr.wrapping_offset(L::offset(&self.shape, &self.meta, &index)))
    }

    /// Pointer to `index` with no check (per-axis checks under feature `bounds-check`).
    ///
    /// # Safety
    ///
    /// Every `index[k] < shape[k]`.
    #[inline(always)]
    #[track_caller]
    pub(crate) unsafe fn element_ptr_unchecked(&self, index: [usize; N]) -> *mut T {
        if check::CHECK_UNCHECKED {
            check::check_axes(&index, &self.shape);
        }
        let offset = L::offset(&self.shape, &self.meta, &index);
        // SAFETY: the caller promises an in-bounds index, whose offset lies in the allocation.
        unsafe { self.ptr.offset(offset) }
    }
}

impl<T: Pod, const N: usize> RawParts<T, N, crate::layout::Strided> {
    /// A strided description of `shape`/`strides` from `ptr`; the caller vouches for the memory.
    pub(crate) fn strided(ptr: *mut T, shape: [usize; N], strides: [isize; N]) -> Self {
        let meta =
            <crate::layout::Strided as Layout>::from_strides(&shape, &strides).expect("Strided expresses any strides");
        let len = shape::element_count(&shape).expect("the caller's shape describes memory it vouches for");
        RawParts { ptr, shape, meta, len }
    }
}
