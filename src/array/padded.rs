//! Construction and row access for [`Padded`] arrays.

use core::marker::PhantomData;

use super::Array;
use crate::check::BoundsCheck;
use crate::element::Pod;
use crate::error::{Error, Result};
use crate::kernel::Allocator;
use crate::kernel::Cpu;
use crate::layout::padded::{aligned_pitch, PaddedMeta};
use crate::layout::Padded;
use crate::shape;

impl<T: Pod, const N: usize, C: BoundsCheck> Array<T, N, Cpu, Padded, C> {
    /// A zero-filled array of `shape` whose rows (lanes of the last axis) each start on a 64-byte
    /// boundary: the row pitch is the row length rounded up to a whole number of cache lines.
    ///
    /// ```
    /// use cnda::prelude::*;
    /// let a = Array::<f64, 2, Cpu, Padded>::try_zeros_padded_in(&Cpu, [3, 5]).unwrap();
    /// assert_eq!((a.pitch(), a.strides()), (8, [8, 1]));
    /// ```
    ///
    /// # Errors
    ///
    /// `Error::Overflow` when the padded size does not fit an allocation, `Error::Alloc` when the
    /// allocator refuses the memory.
    pub fn try_zeros_padded_in(alloc: &impl Allocator<Cpu>, shape: [usize; N]) -> Result<Self> {
        Self::try_from_fn_padded_in(alloc, shape, |_| T::zeroed())
    }

    /// A padded array whose element at `index` is `f(index)` (row-major order); the padding is
    /// zero.
    ///
    /// # Errors
    ///
    /// As for [`Array::try_zeros_padded_in`].
    pub fn try_from_fn_padded_in(
        alloc: &impl Allocator<Cpu>,
        shape: [usize; N],
        mut f: impl FnMut([usize; N]) -> T,
    ) -> Result<Self> {
        let op = "padded array";
        let elem = core::mem::size_of::<T>();
        let overflow = || Error::Overflow { op, shape: shape.to_vec(), elem_size: elem };
        let len = shape::checked_len(op, &shape, elem)?;
        // An empty array allocates nothing, whatever its other axes (`[1 << 40, 0]`); otherwise
        // `len / row_len` counts the rows without a second, overflow-prone product.
        let (row_len, rows) = match N {
            0 => (1, 1),
            _ if len == 0 => (shape[N - 1], 0),
            _ => (shape[N - 1], len / shape[N - 1]),
        };
        let pitch = aligned_pitch(row_len, elem).ok_or_else(overflow)?;
        let mut padded_shape = [rows, pitch];
        if N == 0 {
            padded_shape = [1, pitch];
        }
        let total = shape::checked_len(op, &padded_shape, elem)?;
        // SAFETY: every element of the `rows x pitch` block is written: the logical ones by `f`
        // in row-major order, the padding with zeros.
        let buf = unsafe {
            crate::kernel::init_buffer(alloc, op, total, |ptr: *mut T| {
                core::ptr::write_bytes(ptr, 0, total);
                let mut index = [0usize; N];
                for k in 0..len {
                    let offset = if N == 0 { 0 } else { (k / row_len.max(1)) * pitch + k % row_len.max(1) };
                    ptr.add(offset).write(f(index));
                    for axis in (0..N).rev() {
                        index[axis] += 1;
                        if index[axis] < shape[axis] {
                            break;
                        }
                        index[axis] = 0;
                    }
                }
            })
        }?;
        let meta = PaddedMeta::new(pitch);
        Ok(Array { buf, offset: 0, shape, meta, len, check: PhantomData })
    }
}

impl<T: Pod, const N: usize, B: crate::kernel::Backend, C: BoundsCheck> Array<T, N, B, Padded, C> {
    /// Distance between the starts of consecutive rows, in elements.
    pub fn pitch(&self) -> usize {
        self.meta.pitch()
    }
}
