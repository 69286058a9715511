//! [`Desc`]: what a kernel receives for one operand.

use core::fmt;

use crate::element::Pod;
use crate::error::Result;
use crate::geometry::{self, Geometry};
use crate::kernel::Backend;

/// One operand of a kernel: the data handle of its element `[0; N]`, its shape, and its strides in
/// elements (negative when flipped, zero on broadcast axes). Views and arrays of every layout
/// reduce to this; the kernel traits of [`crate::kernel`] take nothing else.
pub struct Desc<B: Backend, T: Pod, const N: usize> {
    /// The data handle of element `[0; N]` (a host pointer for `Cpu`).
    pub handle: B::Handle<T>,
    /// The length of each axis.
    pub shape: [usize; N],
    /// The distance between neighbours along each axis, in elements.
    pub strides: [isize; N],
}

impl<B: Backend, T: Pod, const N: usize> Clone for Desc<B, T, N> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<B: Backend, T: Pod, const N: usize> Copy for Desc<B, T, N> {}

impl<B: Backend, T: Pod, const N: usize> fmt::Debug for Desc<B, T, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Desc")
            .field("backend", &B::NAME)
            .field("shape", &self.shape)
            .field("strides", &self.strides)
            .finish()
    }
}

impl<B: Backend, T: Pod, const N: usize> Desc<B, T, N> {
    /// Whether the elements are one dense block in row-major order (a kernel's fast path).
    pub fn is_contiguous(&self) -> bool {
        crate::shape::matches_dense(&self.shape, &self.strides, &crate::shape::row_major_strides(&self.shape))
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        crate::shape::element_count(&self.shape).unwrap_or(usize::MAX)
    }

    /// Whether the operand has no element.
    pub fn is_empty(&self) -> bool {
        self.shape.contains(&0)
    }

    /// This operand stretched to `shape` (NumPy rules; stride 0 on stretched axes).
    ///
    /// # Errors
    ///
    /// `Error::Broadcast` when the shapes do not broadcast.
    pub(crate) fn broadcast<const M: usize>(self, shape: [usize; M]) -> Result<Desc<B, T, M>> {
        let g = Geometry::new(self.shape, self.strides).broadcast(shape)?;
        Ok(Desc { handle: B::moved(self.handle, g.offset), shape: g.shape, strides: g.strides })
    }

    /// Indices `start..start + len` of `axis` (the caller keeps them within the shape; the
    /// handle moves by wrapping arithmetic, so building the descriptor is safe either way).
    pub(crate) fn narrowed(mut self, axis: usize, start: usize, len: usize) -> Self {
        self.handle = B::moved(self.handle, (start as isize).wrapping_mul(self.strides[axis]));
        self.shape[axis] = len;
        self
    }

    /// The same operand with `shape` and `strides` (from `merge_axes`).
    fn with(self, shape: [usize; N], strides: [isize; N]) -> Self {
        Desc { shape, strides, ..self }
    }
}

/// Two operands of one shape with their axes merged wherever both step uniformly.
pub(crate) fn merged2<B: Backend, T: Pod, U: Pod, const N: usize>(
    a: Desc<B, T, N>,
    b: Desc<B, U, N>,
) -> (Desc<B, T, N>, Desc<B, U, N>) {
    debug_assert_eq!(a.shape, b.shape);
    let (shape, [sa, sb]) = geometry::merge_axes(a.shape, [a.strides, b.strides]);
    (a.with(shape, sa), b.with(shape, sb))
}

/// Three operands of one shape with their axes merged wherever all step uniformly.
pub(crate) fn merged3<B: Backend, T: Pod, const N: usize>(
    a: Desc<B, T, N>,
    b: Desc<B, T, N>,
    c: Desc<B, T, N>,
) -> [Desc<B, T, N>; 3] {
    debug_assert!(a.shape == b.shape && b.shape == c.shape);
    let (shape, [sa, sb, sc]) = geometry::merge_axes(a.shape, [a.strides, b.strides, c.strides]);
    [a.with(shape, sa), b.with(shape, sb), c.with(shape, sc)]
}

/// A CPU descriptor handed to several threads. Each use site states why the threads' accesses
/// do not race (disjoint output regions, reads of data no thread writes meanwhile).
#[cfg(feature = "rayon")]
pub(crate) struct SharedDesc<T: Pod, const N: usize>(pub(crate) Desc<crate::kernel::Cpu, T, N>);

// SAFETY: a descriptor is a pointer, a shape and strides; whether concurrent accesses through it
// are sound is argued at each use site (see the type's documentation).
#[cfg(feature = "rayon")]
unsafe impl<T: Pod + Send + Sync, const N: usize> Sync for SharedDesc<T, N> {}

/// The real and imaginary parts of the complex elements `d` describes (`T` laid out as `[F; 2]`,
/// as `Complex<F>` is), as descriptors of `F`s: every stride doubled, the imaginary parts one `F`
/// further. Describes the same memory; reads and writes nothing. Every `F` of a `T` is aligned
/// as `F` is when `T` is two `F`s and aligned at least as `F` (as `Complex<F>` is).
///
/// # Panics
///
/// When `T` is not two `F`s in size.
pub fn complex_parts<F: Pod, T: Pod, B: Backend, const N: usize>(d: Desc<B, T, N>) -> [Desc<B, F, N>; 2] {
    assert_eq!(core::mem::size_of::<T>(), 2 * core::mem::size_of::<F>(), "a complex of two F");
    let re = B::part_handle::<T, F>(d.handle);
    let strides = d.strides.map(|s| s.wrapping_mul(2));
    [Desc { handle: re, shape: d.shape, strides }, Desc { handle: B::moved(re, 1), shape: d.shape, strides }]
}
