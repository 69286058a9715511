//! Two arrays of one shape whose roles (read / write) swap after every sweep, on any backend: the
//! one-field, one-level [`State`].

use super::state::State;
use crate::array::Array;
use crate::element::Pod;
use crate::error::{or_panic, Result};
use crate::kernel::{Backend, CopyKernels, Cpu};
use crate::layout::RowMajor;
use crate::view::{Shared, Unique, View};

/// A view of one of a [`DoubleBuffer`]'s fields.
pub type FieldView<'a, T, const N: usize, A, B> = View<'a, T, N, A, B, RowMajor>;

/// The current field and a scratch field of the same shape, on backend `B` (the CPU by default):
/// the [`State`] of one field at one level. Each step reads `current` and writes `next`;
/// [`DoubleBuffer::swap`] then exchanges them without copying.
///
/// ```
/// use cnda::prelude::*;
/// use cnda::stencil::{self, DoubleBuffer};
/// let mut field = DoubleBuffer::new(Array::from_fn([5, 5], |[i, _]| if i == 0 { 1.0 } else { 0.0 }));
/// for _ in 0..10 {
///     let (u, v) = field.split();
///     stencil::sweep2::<1, _, _, _, _, _>(u, v, |out, w| *out = 0.25 * (w[(-1, 0)] + w[(1, 0)] + w[(0, -1)] + w[(0, 1)]));
///     field.swap();
/// }
/// assert!(field.current()[[1, 2]] > 0.0);
/// ```
pub type DoubleBuffer<T, const N: usize, B = Cpu> = State<T, N, 1, 1, B>;

impl<T: Pod, const N: usize, B: CopyKernels> State<T, N, 1, 1, B> {
    /// Starts from `initial`; the scratch field is a copy (by the backend's copy kernel, from
    /// the same allocator), so boundary values set once in `initial` persist in both.
    ///
    /// # Panics
    ///
    /// When the copy's memory is refused; [`DoubleBuffer::try_new`] returns the error instead.
    #[track_caller]
    pub fn new(initial: Array<T, N, B>) -> Self {
        or_panic(Self::try_new(initial))
    }

    /// [`DoubleBuffer::new`], returning errors.
    ///
    /// # Errors
    ///
    /// `Error::Alloc` when the copy's memory is refused; `Error::Device` from the copy.
    pub fn try_new(initial: Array<T, N, B>) -> Result<Self> {
        Self::try_from_levels([[initial]])
    }
}

impl<T: Pod, const N: usize, B: Backend> State<T, N, 1, 1, B> {
    /// Starts from `current` and a scratch field `next` of the same shape (its values are read
    /// only where no sweep writes: keep the boundary values of `current` there).
    ///
    /// # Panics
    ///
    /// When the shapes differ.
    #[track_caller]
    pub fn from_pair(current: Array<T, N, B>, next: Array<T, N, B>) -> Self {
        assert_eq!(current.shape(), next.shape(), "DoubleBuffer::from_pair: the two fields must have one shape");
        State::from_ring(vec![current, next])
    }

    /// The current field.
    pub fn current(&self) -> &Array<T, N, B> {
        self.field(0)
    }

    /// The current field, mutably: to set boundary values or refresh halos between sweeps (set
    /// values that must persist in both fields in `new`'s `initial`, or in both fields).
    pub fn current_mut(&mut self) -> &mut Array<T, N, B> {
        self.field_mut(0)
    }

    /// The current field to read and the next field to write.
    pub fn split(&mut self) -> (FieldView<'_, T, N, Shared, B>, FieldView<'_, T, N, Unique, B>) {
        let (current, next) = self.newest_and_scratch(0);
        (current.view(), next.view_mut())
    }

    /// Makes the field just written the current one.
    pub fn swap(&mut self) {
        self.rotate();
    }

    /// The current field, consuming the buffer.
    pub fn into_current(self) -> Array<T, N, B> {
        let [current] = self.into_fields();
        current
    }
}
