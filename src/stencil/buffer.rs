//! Two arrays of one shape whose roles (read / write) swap after every sweep.

use crate::array::Array;
use crate::element::Pod;
use crate::layout::RowMajor;
use crate::view::{ArrayView, ArrayViewMut};

/// The current field and a scratch field of the same shape. Each step reads `current` and writes
/// `next`; [`DoubleBuffer::swap`] then exchanges them without copying.
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
pub struct DoubleBuffer<T: Pod, const N: usize> {
    current: Array<T, N>,
    next: Array<T, N>,
}

impl<T: Pod, const N: usize> DoubleBuffer<T, N> {
    /// Starts from `initial`; the scratch field is a copy, so boundary values set once in
    /// `initial` persist in both.
    pub fn new(initial: Array<T, N>) -> Self {
        let next = initial.clone();
        Self { current: initial, next }
    }

    /// The current field.
    pub fn current(&self) -> &Array<T, N> {
        &self.current
    }

    /// The current field, mutably: to set boundary values or refresh halos between sweeps (set
    /// values that must persist in both fields in `new`'s `initial`, or in both fields).
    pub fn current_mut(&mut self) -> &mut Array<T, N> {
        &mut self.current
    }

    /// The current field to read and the next field to write.
    pub fn split(&mut self) -> (ArrayView<'_, T, N, RowMajor>, ArrayViewMut<'_, T, N, RowMajor>) {
        (self.current.view(), self.next.view_mut())
    }

    /// Both fields, current first, for algorithms that run several sweeps at once.
    pub(crate) fn both_mut(&mut self) -> (&mut Array<T, N>, &mut Array<T, N>) {
        (&mut self.current, &mut self.next)
    }

    /// Makes the field just written the current one.
    pub fn swap(&mut self) {
        core::mem::swap(&mut self.current, &mut self.next);
    }

    /// The current field, consuming the buffer.
    pub fn into_current(self) -> Array<T, N> {
        self.current
    }
}
