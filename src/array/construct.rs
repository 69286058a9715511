//! Constructors. The plain ones sit on the fully defaulted `Array<T, N>` (defaults do not drive
//! inference, so `Array::zeros([2, 3])` must name one type); the `_in` forms build any dense layout
//! and bounds policy on a given backend.

use super::Array;
use crate::check::BoundsCheck;
use crate::element::{Arithmetic, Pod};
use crate::error::{or_panic, Error, Result};
use crate::kernel::Cpu;
use crate::kernel::{Allocator, Backend, HostAccessible};
use crate::layout::Dense;
use crate::shape;

/// Plain constructors: row-major CPU arrays with the default bounds policy.
impl<T: Pod, const N: usize> Array<T, N> {
    /// A zero-filled array of `shape`.
    ///
    /// # Panics
    ///
    /// When the allocation fails or its size overflows; [`Array::try_zeros`] returns the error instead.
    #[track_caller]
    pub fn zeros(shape: [usize; N]) -> Self {
        or_panic(Self::try_zeros(shape))
    }

    /// A zero-filled array of `shape`.
    ///
    /// # Errors
    ///
    /// `Error::Overflow` when the byte size does not fit an allocation, `Error::Alloc` when the
    /// system refuses the memory (a huge request is an error, never an abort).
    pub fn try_zeros(shape: [usize; N]) -> Result<Self> {
        Self::try_zeros_in(&Cpu, shape)
    }

    /// An array of `shape` with every element `value`.
    ///
    /// # Panics
    ///
    /// As for [`Array::zeros`]; [`Array::try_full`] returns the error instead.
    #[track_caller]
    pub fn full(shape: [usize; N], value: T) -> Self {
        or_panic(Self::try_full(shape, value))
    }

    /// An array of `shape` with every element `value`.
    ///
    /// # Errors
    ///
    /// As for [`Array::try_zeros`].
    pub fn try_full(shape: [usize; N], value: T) -> Result<Self> {
        Self::try_full_in(&Cpu, shape, value)
    }

    /// The same as [`Array::full`], under ndarray's name: one op has one name, so this one is
    /// deprecated (it still works).
    #[deprecated(since = "0.1.0", note = "use `Array::full(shape, value)`: one name per op")]
    #[track_caller]
    pub fn from_elem(shape: [usize; N], value: T) -> Self {
        Self::full(shape, value)
    }

    /// An array of `shape` holding `data` in row-major order (copied once into an aligned buffer).
    ///
    /// # Errors
    ///
    /// `Error::LengthMismatch` when `data.len()` is not the product of `shape`, e.g.
    /// "from_shape_vec: shape [2, 3] needs 6 elements, got 5; pass 6 elements or change the shape".
    pub fn from_shape_vec(shape: [usize; N], data: Vec<T>) -> Result<Self> {
        Self::try_from_shape_vec_in(&Cpu, shape, data)
    }

    /// An array of `shape` filled from `iter` in row-major order.
    ///
    /// # Errors
    ///
    /// `Error::LengthMismatch` when the iterator yields fewer or more elements than the shape needs.
    pub fn from_shape_iter(shape: [usize; N], iter: impl IntoIterator<Item = T>) -> Result<Self> {
        Self::try_from_shape_iter_in(&Cpu, shape, iter)
    }

    /// An array whose element at `index` is `f(index)`, called in row-major order.
    ///
    /// ```
    /// use cnda::prelude::*;
    /// let a = Array::from_fn([2, 3], |[i, j]| (10 * i + j) as f64);
    /// assert_eq!(a[[1, 2]], 12.0);
    /// ```
    ///
    /// # Panics
    ///
    /// As for [`Array::zeros`]; [`Array::try_from_fn`] returns the error instead.
    #[track_caller]
    pub fn from_fn(shape: [usize; N], f: impl FnMut([usize; N]) -> T) -> Self {
        or_panic(Self::try_from_fn(shape, f))
    }

    /// An array whose element at `index` is `f(index)`, called in row-major order.
    ///
    /// # Errors
    ///
    /// As for [`Array::try_zeros`].
    pub fn try_from_fn(shape: [usize; N], f: impl FnMut([usize; N]) -> T) -> Result<Self> {
        Self::try_from_fn_in(&Cpu, shape, f)
    }
}

impl<T: Arithmetic, const N: usize> Array<T, N> {
    /// An array of `shape` with every element one.
    ///
    /// # Panics
    ///
    /// As for [`Array::zeros`]; `Array::try_full(shape, T::ONE)` returns the error instead.
    #[track_caller]
    pub fn ones(shape: [usize; N]) -> Self {
        Self::full(shape, T::ONE)
    }
}

impl<T: Pod, const N: usize, B: Backend, L: Dense, C: BoundsCheck> Array<T, N, B, L, C> {
    /// A zero-filled array of `shape` with layout `L` and bounds policy `C`, from `alloc` (`&Cpu`
    /// for the system allocator, a `&Pool`, or a device's allocator): the backend follows from
    /// the allocator.
    ///
    /// # Errors
    ///
    /// `Error::Overflow` when the byte size does not fit an allocation, `Error::Alloc` when the
    /// system (or the pool's byte cap) refuses the memory.
    pub fn try_zeros_in(alloc: &impl Allocator<B>, shape: [usize; N]) -> Result<Self> {
        let len = shape::checked_len("zeros", &shape, core::mem::size_of::<T>())?;
        Ok(Self::from_buffer_in(alloc.try_alloc_zeroed("zeros", len)?, shape))
    }

    /// A zero-filled array of `shape` from `alloc` (`&Cpu`, a `&Pool`, or a device's allocator).
    ///
    /// ```
    /// use cnda::prelude::*;
    /// let pool = Pool::new();
    /// let a = Array::<f32, 2>::zeros_in(&pool, [64, 64]);
    /// assert_eq!(a.sum(), 0.0);
    /// ```
    ///
    /// # Panics
    ///
    /// When the allocation fails; [`Array::try_zeros_in`] returns the error instead.
    #[track_caller]
    pub fn zeros_in(alloc: &impl Allocator<B>, shape: [usize; N]) -> Self {
        or_panic(Self::try_zeros_in(alloc, shape))
    }
}

/// Constructors that write elements from the host: host-accessible backends.
impl<T: Pod, const N: usize, B: HostAccessible, L: Dense, C: BoundsCheck> Array<T, N, B, L, C> {
    /// An array of `shape` with every element `value`, from `alloc`.
    ///
    /// # Errors
    ///
    /// As for [`Array::try_zeros_in`].
    pub fn try_full_in(alloc: &impl Allocator<B>, shape: [usize; N], value: T) -> Result<Self> {
        Self::try_fill_in(alloc, "full", shape, value)
    }

    fn try_fill_in(alloc: &impl Allocator<B>, op: &'static str, shape: [usize; N], value: T) -> Result<Self> {
        let len = shape::checked_len(op, &shape, core::mem::size_of::<T>())?;
        // SAFETY: the fill writes all `len` elements (zeroing reused pool memory too).
        let buf = unsafe {
            crate::kernel::init_buffer(alloc, op, len, |ptr: *mut T| {
                if bytemuck::bytes_of(&value).iter().all(|&b| b == 0) {
                    core::ptr::write_bytes(ptr, 0, len);
                } else {
                    core::slice::from_raw_parts_mut(ptr.cast::<core::mem::MaybeUninit<T>>(), len).iter_mut().for_each(
                        |x| {
                            x.write(value);
                        },
                    );
                }
            })
        }?;
        Ok(Self::from_buffer_in(buf, shape))
    }

    /// An array whose element at `index` is `f(index)`; `f` is called in memory order.
    ///
    /// # Errors
    ///
    /// As for [`Array::try_zeros_in`].
    pub fn try_from_fn_in(
        alloc: &impl Allocator<B>,
        shape: [usize; N],
        mut f: impl FnMut([usize; N]) -> T,
    ) -> Result<Self> {
        let len = shape::checked_len("from_fn", &shape, core::mem::size_of::<T>())?;
        // SAFETY: the loop writes every one of the `len` elements in memory order; if `f`
        // panics, the partly written buffer is freed without being read.
        let buf = unsafe {
            crate::kernel::init_buffer(alloc, "from_fn", len, |ptr: *mut T| {
                let mut index = [0usize; N];
                for k in 0..len {
                    ptr.add(k).write(f(index));
                    advance_in_memory_order::<L, N>(&mut index, &shape);
                }
            })
        }?;
        Ok(Self::from_buffer_in(buf, shape))
    }

    /// An array of `shape` holding `data`, given in the layout's memory order (row-major for
    /// `RowMajor`, column-major for `ColMajor`). The data is copied once into a 64-byte aligned
    /// buffer from `alloc`.
    ///
    /// # Errors
    ///
    /// `Error::LengthMismatch` when `data.len()` is not the product of `shape`; as for
    /// [`Array::try_zeros_in`] otherwise.
    pub fn try_from_shape_vec_in(alloc: &impl Allocator<B>, shape: [usize; N], data: Vec<T>) -> Result<Self> {
        let len = shape::checked_len("from_shape_vec", &shape, core::mem::size_of::<T>())?;
        if len != data.len() {
            return Err(Error::LengthMismatch {
                op: "from_shape_vec",
                shape: shape.to_vec(),
                expected: len,
                got: data.len(),
            });
        }
        // SAFETY: the copy writes all `len` elements from a vector that cannot overlap fresh memory.
        let buf = unsafe {
            crate::kernel::init_buffer(alloc, "from_shape_vec", len, |ptr: *mut T| {
                core::ptr::copy_nonoverlapping(data.as_ptr(), ptr, len)
            })
        }?;
        Ok(Self::from_buffer_in(buf, shape))
    }

    /// An array of `shape` filled from `iter` in the layout's memory order.
    ///
    /// # Errors
    ///
    /// `Error::LengthMismatch` when the iterator yields fewer elements than the shape needs, or more
    /// (nothing is silently dropped; the count of the surplus stops at 2^20 for endless iterators);
    /// as for [`Array::try_zeros_in`] otherwise.
    pub fn try_from_shape_iter_in(
        alloc: &impl Allocator<B>,
        shape: [usize; N],
        iter: impl IntoIterator<Item = T>,
    ) -> Result<Self> {
        let op = "from_shape_iter";
        let mut a = Self::try_zeros_in(alloc, shape)?;
        let len = a.len();
        let mut iter = iter.into_iter();
        let mut got = 0;
        for (slot, value) in a.as_mut_slice().iter_mut().zip(&mut iter) {
            *slot = value;
            got += 1;
        }
        if got < len {
            return Err(Error::LengthMismatch { op, shape: shape.to_vec(), expected: len, got });
        }
        if iter.next().is_some() {
            let surplus = 1 + iter.take(1 << 20).count();
            return Err(Error::LengthMismatch { op, shape: shape.to_vec(), expected: len, got: len + surplus });
        }
        Ok(a)
    }
}

/// Steps `index` to the next element in the memory order of layout `L`.
#[inline]
fn advance_in_memory_order<L: Dense, const N: usize>(index: &mut [usize; N], shape: &[usize; N]) {
    for k in 0..N {
        let axis = if L::LAST_AXIS_FASTEST { N - 1 - k } else { k };
        index[axis] += 1;
        if index[axis] < shape[axis] {
            return;
        }
        index[axis] = 0;
    }
}

impl<T: Pod> FromIterator<T> for Array<T, 1> {
    /// Collects into a 1D array.
    ///
    /// # Panics
    ///
    /// When the allocation fails.
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let data: Vec<T> = iter.into_iter().collect();
        or_panic(Self::from_shape_vec([data.len()], data))
    }
}
