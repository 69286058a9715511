//! Reductions, written once for every backend: `sum`, `product`, `mean`, `min`, `max`,
//! `argmin`, `argmax` over all elements, and `sum_axis`, `mean_axis`, `min_axis`, `max_axis`
//! along one axis. Each generic algorithm validates, merges axes (moving a reduced axis last),
//! allocates the output and calls the backend's [`ReduceKernels`] with a token from
//! [`crate::kernel::tokens`]. `fold_axis` (a closure) is a host-only convenience.
//!
//! Empty input: reductions with an identity (`sum`, `product`, `sum_axis`) return it; those
//! without one (`mean`, `min`, `max`, `argmin`, `argmax` and the `_axis` forms of the first three)
//! return `Option`, `None` for an empty array or axis, so `mean_axis` is `Option` where
//! `sum_axis` is not, by the same rule as `Iterator::max` against `Iterator::sum`.
//!
//! NaN: `sum`, `product` and `mean` follow IEEE arithmetic (any NaN makes the result NaN). `min`
//! and `max` propagate NaN as NumPy does: if any element is NaN the result is NaN, and
//! `argmin`/`argmax` return the index of the first NaN. The CPU sums floats pairwise
//! (`backend/cpu/reduce.rs`).

use crate::array::Array;
use crate::check::BoundsCheck;
use crate::element::{dtype_of, Arithmetic, DType, Numeric, Pod};
use crate::error::or_panic;
use crate::error::{Error, Result};
use crate::geometry::{merge_axes, remove_axis};
use crate::kernel::tokens::{self, ArgOp, ReduceOp, ScalarRight};
use crate::kernel::ElementwiseKernels;
use crate::kernel::{complex_parts, Desc, ReduceKernels};
use crate::kernel::{Allocator, Cpu, HostAccessible};
use crate::layout::{Layout, RowMajor};
use crate::ops::elementwise;
use crate::ops::output::fresh;
use crate::rank::{Dec, Rank};
use crate::view::{Access, ArrayView, View};

/// `op` over every element of `a`; the op's identity (or `None`) when `a` is empty.
///
/// # Safety
///
/// `a` describes live memory that nothing writes during the call.
///
/// # Errors
///
/// `Error::Device` from the kernel.
pub(crate) unsafe fn reduce<B: ReduceKernels, T: Arithmetic, Op: ReduceOp<T>, const N: usize>(
    op: Op,
    a: Desc<B, T, N>,
) -> Result<Option<T>> {
    if a.is_empty() {
        return Ok(op.identity());
    }
    let (shape, [strides]) = merge_axes(a.shape, [a.strides]);
    // SAFETY: the caller's contract; merging keeps the same elements.
    unsafe { B::reduce(&B::handle_device(a.handle), op, Desc { shape, strides, ..a }) }.map(Some)
}

/// The index of the first best element of `a` (of its first NaN), `None` when `a` is empty.
///
/// # Safety
///
/// As for [`reduce`].
///
/// # Errors
///
/// `Error::Device` from the kernel.
pub(crate) unsafe fn arg_reduce<B: ReduceKernels, T: Numeric, Op: ArgOp<T>, const N: usize>(
    op: Op,
    a: Desc<B, T, N>,
) -> Result<Option<[usize; N]>> {
    if a.is_empty() {
        return Ok(None);
    }
    // Merging keeps row-major order, so the position found is the row-major position in `a`.
    let (shape, [strides]) = merge_axes(a.shape, [a.strides]);
    // SAFETY: the caller's contract.
    let mut flat = unsafe { B::arg_reduce(&B::handle_device(a.handle), op, Desc { shape, strides, ..a }) }?;
    let mut index = [0; N];
    for axis in (0..N).rev() {
        index[axis] = flat % a.shape[axis];
        flat /= a.shape[axis];
    }
    Ok(Some(index))
}

/// `op` along `axis` of `a` into a fresh row-major array of rank `M = N - 1` from `alloc`;
/// `Ok(None)` when the axis is empty and the op has no identity.
///
/// # Safety
///
/// As for [`reduce`].
///
/// # Errors
///
/// `Error::AxisOutOfRange` when `axis >= N`; `Error::Alloc`; `Error::Device`.
pub(crate) unsafe fn reduce_axis<B, T, Op, const N: usize, const M: usize, C>(
    name: &'static str,
    alloc: &impl Allocator<B>,
    op: Op,
    a: Desc<B, T, N>,
    axis: usize,
) -> Result<Option<Array<T, M, B, RowMajor, C>>>
where
    B: ReduceKernels,
    T: Arithmetic,
    Op: ReduceOp<T>,
    C: BoundsCheck,
{
    if axis >= N {
        return Err(Error::AxisOutOfRange { op: name, axis, rank: N });
    }
    let (n, step) = (a.shape[axis], a.strides[axis]);
    if n == 0 && op.identity().is_none() {
        return Ok(None);
    }
    let dev = alloc.device();
    crate::ops::output::same_device::<B>(name, &dev, &[B::handle_device(a.handle)])?;
    let (outer, outer_strides) = remove_axis::<N, M>(&a.shape, &a.strides, axis);
    // SAFETY: the kernel writes every output element; `a` is live (caller's contract).
    let out = unsafe {
        fresh(alloc, name, outer, |out: Desc<B, T, M>| {
            // The outer axes of output and input merge where both step uniformly; the reduced
            // axis goes last.
            let (shape, [so, sa]) = merge_axes(outer, [out.strides, outer_strides]);
            let out = Desc { shape, strides: so, ..out };
            let lanes = Desc {
                shape: core::array::from_fn(|k| if k < M { shape[k] } else { n }),
                strides: core::array::from_fn(|k| if k < M { sa[k] } else { step }),
                ..a
            };
            B::reduce_last_axis(&dev, op, out, lanes)
        })
    }?;
    Ok(Some(out))
}

/// `d[i] = d[i].div_count(n)` on any backend: complex elements part by part (each part a strided
/// array of its float type), so no complex division squares `n`.
///
/// # Safety
///
/// `d` addresses live, initialized, distinct writable elements on its device.
unsafe fn divide_by_count<B: ElementwiseKernels, T: Arithmetic, const M: usize>(
    d: Desc<B, T, M>,
    n: usize,
) -> Result<()> {
    /// # Safety
    ///
    /// As for `divide_by_count`, `T` being two `F`s.
    unsafe fn by_parts<B: ElementwiseKernels, F: Arithmetic, T: Pod, const M: usize>(
        d: Desc<B, T, M>,
        n: usize,
    ) -> Result<()> {
        for part in complex_parts::<F, T, B, M>(d) {
            // SAFETY: the parts of the caller's elements: disjoint floats of the same memory.
            unsafe { elementwise::update_unary(ScalarRight(tokens::Div, F::from_usize(n)), part) }?;
        }
        Ok(())
    }
    match dtype_of::<T>() {
        // SAFETY: the caller's contract; the complex types are two of their part type.
        Some(DType::C64) => unsafe { by_parts::<B, f32, T, M>(d, n) },
        // SAFETY: as above.
        Some(DType::C128) => unsafe { by_parts::<B, f64, T, M>(d, n) },
        // SAFETY: the caller's contract.
        _ => unsafe { elementwise::update_unary(ScalarRight(tokens::Div, T::from_usize(n)), d) },
    }
}

/// One reduction method per line, on views and arrays of any backend with reduction kernels.
macro_rules! reductions {
    ($(#[$doc:meta])* $name:ident [$bound:ident] -> $ret:ty = $body:expr; $($rest:tt)*) => {
        reductions!(@one [$(#[$doc])*] $name $bound $ret, $body);
        reductions!($($rest)*);
    };
    () => {};
    (@one [$($doc:tt)*] $name:ident $bound:ident $ret:ty, $body:expr) => {
        // Every reduction is a method of every arithmetic array, bounded per method, so calling an
        // order's reduction on a complex array names the missing bound (`Numeric`) and its fix.
        impl<T: Arithmetic, const N: usize, A: Access, B: ReduceKernels, L: Layout, C: BoundsCheck> View<'_, T, N, A, B, L, C> {
            $($doc)*
            #[track_caller]
            pub fn $name(&self) -> $ret
            where
                T: $bound,
            {
                let a = self.desc();
                // SAFETY: a live view, borrowed shared for the call.
                or_panic(unsafe { $body(a) })
            }
        }

        impl<T: Arithmetic, const N: usize, B: ReduceKernels, L: Layout, C: BoundsCheck> Array<T, N, B, L, C> {
            $($doc)*
            #[track_caller]
            pub fn $name(&self) -> $ret
            where
                T: $bound,
            {
                let a = self.desc();
                // SAFETY: the array's own elements, borrowed shared for the call.
                or_panic(unsafe { $body(a) })
            }
        }
    };
}

reductions! {
    /// Sum of all elements (pairwise on the CPU, so the rounding error grows like `log n`);
    /// zero for an empty array.
    ///
    /// ```
    /// use cnda::prelude::*;
    /// let a = Array::from_fn([2, 3], |[i, j]| (i * 3 + j) as f64);
    /// assert_eq!(a.sum(), 15.0);
    /// assert_eq!(a.mean(), Some(2.5));
    /// assert_eq!((a.min(), a.max()), (Some(0.0), Some(5.0)));
    /// assert_eq!(a.argmax(), Some([1, 2]));
    /// assert_eq!(a.sum_axis::<1>(0).as_slice(), &[3.0, 5.0, 7.0]);
    /// ```
    sum [Arithmetic] -> T = |a| reduce(tokens::Sum, a).map(|s| s.unwrap_or(T::ZERO));
    /// Product of all elements; one for an empty array.
    product [Arithmetic] -> T = |a| reduce(tokens::Product, a).map(|p| p.unwrap_or(T::ONE));
    /// Arithmetic mean, or `None` for an empty array.
    mean [Arithmetic] -> Option<T> = |a: Desc<_, T, N>| {
        let n = a.len();
        reduce(tokens::Sum, a).map(|s| s.filter(|_| n > 0).map(|s| s.div_count(n)))
    };
    /// Smallest element (NaN if any element is NaN), or `None` for an empty array.
    min [Numeric] -> Option<T> = |a| reduce(tokens::Min, a);
    /// Largest element (NaN if any element is NaN), or `None` for an empty array.
    max [Numeric] -> Option<T> = |a| reduce(tokens::Max, a);
    /// Index of the first smallest element (of the first NaN, if any), or `None` when empty.
    argmin [Numeric] -> Option<[usize; N]> = |a| arg_reduce(tokens::ArgMin, a);
    /// Index of the first largest element (of the first NaN, if any), or `None` when empty.
    argmax [Numeric] -> Option<[usize; N]> = |a| arg_reduce(tokens::ArgMax, a);
}

/// `min_axis`/`max_axis` and their `try_` forms, one line each (inside `axis_reductions!`).
macro_rules! extrema_axis {
    ($($name:ident $try_name:ident $what:literal $token:expr;)*) => {$(
        #[doc = concat!($what, " elements along `axis` (NaN where a lane holds one): rank `N - 1`; `None` when the axis is empty.")]
        ///
        /// # Panics
        ///
        #[doc = concat!("When `axis >= N`; `", stringify!($try_name), "` returns the error instead.")]
        #[track_caller]
        pub fn $name<const M: usize>(&self, axis: usize) -> Option<Array<T, M, B, RowMajor, C>>
        where
            T: Numeric,
            Rank<N>: Dec<Output = Rank<M>>,
        {
            or_panic(self.$try_name(axis))
        }

        #[doc = concat!($what, " elements along `axis`; `Ok(None)` when the axis is empty.")]
        ///
        /// # Errors
        ///
        /// `Error::AxisOutOfRange` when `axis >= N`; `Error::Alloc`.
        pub fn $try_name<const M: usize>(&self, axis: usize) -> Result<Option<Array<T, M, B, RowMajor, C>>>
        where
            T: Numeric,
            Rank<N>: Dec<Output = Rank<M>>,
        {
            // SAFETY: live elements, borrowed shared for the call.
            unsafe { reduce_axis(stringify!($name), &self.allocator(), $token, self.desc(), axis) }
        }
    )*};
}

/// Reductions along an axis, on views and arrays of any backend with reduction and elementwise
/// kernels (outputs from their `allocator()`).
macro_rules! axis_reductions {
    ($($Self:ty, [$($bounds:tt)*];)*) => {$(
        impl<'v, T: Arithmetic, const N: usize, $($bounds)* B: ReduceKernels + ElementwiseKernels, L: Layout, C: BoundsCheck> $Self {
            /// Sums along `axis`: rank `N - 1`, inferred.
            ///
            /// # Panics
            ///
            /// When `axis >= N`, or the result cannot be allocated; `try_sum_axis` returns the
            /// error instead.
            #[track_caller]
            pub fn sum_axis<const M: usize>(&self, axis: usize) -> Array<T, M, B, RowMajor, C>
            where
                Rank<N>: Dec<Output = Rank<M>>,
            {
                or_panic(self.try_sum_axis(axis))
            }

            /// Sums along `axis`: rank `N - 1`, inferred.
            ///
            /// # Errors
            ///
            /// `Error::AxisOutOfRange` when `axis >= N`; `Error::Alloc`.
            pub fn try_sum_axis<const M: usize>(&self, axis: usize) -> Result<Array<T, M, B, RowMajor, C>>
            where
                Rank<N>: Dec<Output = Rank<M>>,
            {
                // SAFETY: live elements, borrowed shared for the call.
                let out = unsafe { reduce_axis("sum_axis", &self.allocator(), tokens::Sum, self.desc(), axis) }?;
                Ok(out.expect("sums have an identity"))
            }

            /// Means along `axis`: rank `N - 1`, inferred; `None` when the axis is empty.
            ///
            /// # Panics
            ///
            /// When `axis >= N`; `try_mean_axis` returns the error instead.
            #[track_caller]
            pub fn mean_axis<const M: usize>(&self, axis: usize) -> Option<Array<T, M, B, RowMajor, C>>
            where
                Rank<N>: Dec<Output = Rank<M>>,
            {
                or_panic(self.try_mean_axis(axis))
            }

            /// Means along `axis`; `Ok(None)` when the axis is empty.
            ///
            /// # Errors
            ///
            /// `Error::AxisOutOfRange` when `axis >= N`; `Error::Alloc`.
            pub fn try_mean_axis<const M: usize>(&self, axis: usize) -> Result<Option<Array<T, M, B, RowMajor, C>>>
            where
                Rank<N>: Dec<Output = Rank<M>>,
            {
                let mut sums = self.try_sum_axis::<M>(axis)?;
                let n = self.shape()[axis];
                if n == 0 {
                    return Ok(None);
                }
                // SAFETY: a fresh array, owned here.
                unsafe { divide_by_count(sums.desc_mut(), n) }?;
                Ok(Some(sums))
            }

            extrema_axis! {
                min_axis try_min_axis "Smallest" tokens::Min;
                max_axis try_max_axis "Largest" tokens::Max;
            }
        }
    )*};
}

axis_reductions! {
    View<'v, T, N, A, B, L, C>, [A: Access,];
    Array<T, N, B, L, C>, [];
}

impl<T: Pod, const N: usize, L: Layout, C: BoundsCheck> ArrayView<'_, T, N, L, C> {
    /// Folds along `axis`: element `i` of the result (rank `N - 1`) is `f(...f(f(init, x0), x1)...)`
    /// over the lane of `axis` through `i`. Sweeps whole hyperplanes, so it streams memory for
    /// any axis.
    ///
    /// # Panics
    ///
    /// When `axis >= N`, or the result cannot be allocated; [`ArrayView::try_fold_axis`] returns
    /// the error instead.
    #[track_caller]
    pub fn fold_axis<const M: usize>(
        &self,
        axis: usize,
        init: T,
        f: impl FnMut(T, T) -> T,
    ) -> Array<T, M, Cpu, RowMajor, C>
    where
        Rank<N>: Dec<Output = Rank<M>>,
    {
        or_panic(self.try_fold_axis(axis, init, f))
    }

    /// Folds along `axis`; see [`ArrayView::fold_axis`].
    ///
    /// # Errors
    ///
    /// `Error::AxisOutOfRange` when `axis >= N`; `Error::Alloc`.
    pub fn try_fold_axis<const M: usize>(
        &self,
        axis: usize,
        init: T,
        mut f: impl FnMut(T, T) -> T,
    ) -> Result<Array<T, M, Cpu, RowMajor, C>>
    where
        Rank<N>: Dec<Output = Rank<M>>,
    {
        if axis >= N {
            return Err(Error::AxisOutOfRange { op: "fold_axis", axis, rank: N });
        }
        let (shape, _) = remove_axis::<N, M>(&self.shape(), &self.strides(), axis);
        let mut out: Array<T, M, Cpu, RowMajor, C> = Array::try_zeros_in(&Cpu, shape)?;
        out.fill(init);
        for k in 0..self.shape()[axis] {
            let plane = self.try_index_axis::<M>(axis, k)?;
            out.try_zip_mut_with(&plane, |acc, x| *acc = f(*acc, x))?;
        }
        Ok(out)
    }
}

impl<T: Pod, const N: usize, B: HostAccessible, L: Layout, C: BoundsCheck> Array<T, N, B, L, C> {
    /// Folds along `axis` with `f`, starting from `init`; see [`ArrayView::fold_axis`].
    ///
    /// # Panics
    ///
    /// When `axis >= N`.
    #[track_caller]
    pub fn fold_axis<const M: usize>(
        &self,
        axis: usize,
        init: T,
        f: impl FnMut(T, T) -> T,
    ) -> Array<T, M, Cpu, RowMajor, C>
    where
        Rank<N>: Dec<Output = Rank<M>>,
    {
        self.host_view().fold_axis(axis, init, f)
    }

    /// Folds along `axis`; see [`ArrayView::try_fold_axis`].
    ///
    /// # Errors
    ///
    /// `Error::AxisOutOfRange` when `axis >= N`; `Error::Alloc`.
    pub fn try_fold_axis<const M: usize>(
        &self,
        axis: usize,
        init: T,
        f: impl FnMut(T, T) -> T,
    ) -> Result<Array<T, M, Cpu, RowMajor, C>>
    where
        Rank<N>: Dec<Output = Rank<M>>,
    {
        self.host_view().try_fold_axis(axis, init, f)
    }
}
