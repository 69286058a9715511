//! Reductions: `sum`, `product`, `mean`, `min`, `max`, `argmin`, `argmax`, and the per-axis
//! `sum_axis`, `mean_axis`, `fold_axis`.
//!
//! Float sums are pairwise over blocks of 8 interleaved accumulators: the rounding error grows
//! with the logarithm of the length, not the length (10^7 additions of 0.1f32 stay within 1e-6
//! relative, where a running sum is off by 9%), and the accumulators vectorize.
//!
//! NaN: `sum`, `product` and `mean` follow IEEE arithmetic (any NaN makes the result NaN). `min`
//! and `max` propagate NaN as NumPy does: if any element is NaN the result is NaN, and
//! `argmin`/`argmax` return the index of the first NaN.

use crate::array::Array;
use crate::backend::{Cpu, HostAccessible};
use crate::check::BoundsCheck;
use crate::element::{Numeric, Pod};
use crate::error::{Error, Result};
use crate::layout::{Layout, RowMajor};
use crate::ops::lanes::{self, Src};
use crate::ops::map::collect;
use crate::rank::{Dec, Rank};
use crate::view::ops_shared::or_panic;
use crate::view::ArrayView;

/// Length below which a slice is summed directly with 8 accumulators.
const PAIRWISE_BLOCK: usize = 128;

/// Pairwise sum of a slice: blocks of `PAIRWISE_BLOCK` summed with 8 accumulators, blocks
/// combined as a balanced tree.
pub(crate) fn sum_slice<T: Numeric>(x: &[T]) -> T {
    if x.len() <= PAIRWISE_BLOCK {
        let mut acc = [T::ZERO; 8];
        let chunks = x.chunks_exact(8);
        let tail = chunks.remainder();
        for c in chunks {
            for k in 0..8 {
                acc[k] = acc[k] + c[k];
            }
        }
        let mut s = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
        for &t in tail {
            s = s + t;
        }
        return s;
    }
    // Split on a block boundary so every leaf but the last is a full block.
    let half = (x.len() / 2).div_ceil(PAIRWISE_BLOCK) * PAIRWISE_BLOCK;
    let (a, b) = x.split_at(half.min(x.len()));
    sum_slice(a) + sum_slice(b)
}

/// Pushes the sums of consecutive blocks of `PAIRWISE_BLOCK` elements of a strided lane (8
/// interleaved accumulators each), for a pairwise sum over the blocks afterwards.
///
/// # Safety
///
/// `p.offset(i * step)` is a readable element for every `i < len`.
unsafe fn sum_strided_blocks<T: Numeric>(p: *const T, len: usize, step: isize, out: &mut Vec<T>) {
    let mut start = 0;
    while start < len {
        let end = (start + PAIRWISE_BLOCK).min(len);
        let mut acc = [T::ZERO; 8];
        let mut i = start;
        while i + 8 <= end {
            for (k, a) in acc.iter_mut().enumerate() {
                // SAFETY: i + k < len.
                *a = *a + unsafe { *p.offset((i + k) as isize * step) };
            }
            i += 8;
        }
        let mut s = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
        for j in i..end {
            // SAFETY: j < len.
            s = s + unsafe { *p.offset(j as isize * step) };
        }
        out.push(s);
        start = end;
    }
}

/// `f(acc, x)` over every element, lane by lane.
fn fold_lanes<T: Pod, A, const N: usize>(
    src: Src<T, N>,
    shape: [usize; N],
    init: A,
    mut f: impl FnMut(A, &[T]) -> A,
    mut g: impl FnMut(A, T) -> A,
) -> A {
    let mut acc = Some(init);
    lanes::for_each_lane(shape, [src.strides], |[base], len, [step]| {
        let a = acc.take().expect("set between lanes");
        // SAFETY: the lane lies inside the view the source describes.
        acc = Some(unsafe {
            let p = src.ptr.offset(base);
            if step == 1 {
                f(a, core::slice::from_raw_parts(p, len))
            } else {
                (0..len as isize).fold(a, |a, i| g(a, *p.offset(i * step)))
            }
        });
    });
    acc.expect("set after the last lane")
}

fn min_max<T: Numeric, const N: usize, L: Layout, C: BoundsCheck>(
    v: &ArrayView<'_, T, N, L, C>,
    keep_new: impl Fn(T, T) -> bool,
) -> Option<T> {
    let first = *v.iter().next()?;
    // NaN propagates: once the running value is NaN it stays; a NaN element replaces it.
    let pick = |best: T, x: T| if best.is_nan() || !(x.is_nan() || keep_new(x, best)) { best } else { x };
    Some(fold_lanes(v.src(), v.shape(), first, |best, xs| xs.iter().fold(best, |b, &x| pick(b, x)), pick))
}

fn arg_best<T: Numeric, const N: usize, L: Layout, C: BoundsCheck>(
    v: &ArrayView<'_, T, N, L, C>,
    better: impl Fn(T, T) -> bool,
) -> Option<[usize; N]> {
    let mut it = v.indexed_iter();
    let (mut best_ix, &first) = it.next()?;
    let mut best = first;
    if best.is_nan() {
        return Some(best_ix);
    }
    for (ix, &x) in it {
        if x.is_nan() {
            return Some(ix);
        }
        if better(x, best) {
            best = x;
            best_ix = ix;
        }
    }
    Some(best_ix)
}

impl<T: Numeric, const N: usize, L: Layout, C: BoundsCheck> ArrayView<'_, T, N, L, C> {
    /// Sum of all elements (pairwise for accuracy); zero for an empty array.
    pub fn sum(&self) -> T {
        let src = self.src();
        let mut partial = Vec::new();
        lanes::for_each_lane(self.shape(), [src.strides], |[base], len, [step]| {
            // SAFETY: the lane lies inside this view.
            unsafe {
                let p = src.ptr.offset(base);
                if step == 1 {
                    partial.push(sum_slice(core::slice::from_raw_parts(p, len)));
                } else {
                    sum_strided_blocks(p, len, step, &mut partial);
                }
            }
        });
        sum_slice(&partial)
    }

    /// Product of all elements; one for an empty array.
    pub fn product(&self) -> T {
        fold_lanes(self.src(), self.shape(), T::ONE, |p, xs| xs.iter().fold(p, |p, &x| p * x), |p, x| p * x)
    }

    /// Arithmetic mean, or `None` for an empty array.
    pub fn mean(&self) -> Option<T> {
        (!self.is_empty()).then(|| self.sum() / T::from_usize(self.len()))
    }

    /// Smallest element (NaN if any element is NaN), or `None` for an empty array.
    pub fn min(&self) -> Option<T> {
        min_max(self, |x, best| x < best)
    }

    /// Largest element (NaN if any element is NaN), or `None` for an empty array.
    pub fn max(&self) -> Option<T> {
        min_max(self, |x, best| x > best)
    }

    /// Index of the first smallest element (of the first NaN, if any), or `None` when empty.
    pub fn argmin(&self) -> Option<[usize; N]> {
        arg_best(self, |x, best| x < best)
    }

    /// Index of the first largest element (of the first NaN, if any), or `None` when empty.
    pub fn argmax(&self) -> Option<[usize; N]> {
        arg_best(self, |x, best| x > best)
    }

    /// Sums along `axis`: rank `N - 1`, inferred.
    ///
    /// # Panics
    ///
    /// When `axis >= N`, or the result cannot be allocated; [`ArrayView::try_sum_axis`] returns
    /// the error instead.
    #[track_caller]
    pub fn sum_axis<const M: usize>(&self, axis: usize) -> Array<T, M, Cpu, RowMajor, C>
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
    pub fn try_sum_axis<const M: usize>(&self, axis: usize) -> Result<Array<T, M, Cpu, RowMajor, C>>
    where
        Rank<N>: Dec<Output = Rank<M>>,
    {
        let (outer, outer_strides) = without_axis::<N, M>("sum_axis", self.shape(), self.strides(), axis)?;
        if self.strides()[axis] != 1 {
            return self.try_fold_axis(axis, T::ZERO, |acc, x| acc + x);
        }
        // Each output element is the pairwise sum of one contiguous lane.
        let n = self.shape()[axis];
        let base = self.raw.ptr.cast_const();
        // SAFETY: for each outer index the lane of `n` elements from it lies inside this view;
        // the fresh destination gets one write per outer index, in row-major order.
        unsafe {
            collect::<T, M, C>("sum_axis", outer, |dst| {
                let mut odometer = crate::iter::Odometer::new(outer, outer_strides);
                let mut k = 0;
                while let Some((_, offset)) = odometer.next() {
                    dst.ptr.add(k).write(sum_slice(core::slice::from_raw_parts(base.offset(offset), n)));
                    k += 1;
                }
            })
        }
    }

    /// Means along `axis`: rank `N - 1`, inferred; `None` when the axis is empty.
    ///
    /// # Panics
    ///
    /// When `axis >= N`; [`ArrayView::try_mean_axis`] returns the error instead.
    #[track_caller]
    pub fn mean_axis<const M: usize>(&self, axis: usize) -> Option<Array<T, M, Cpu, RowMajor, C>>
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
    pub fn try_mean_axis<const M: usize>(&self, axis: usize) -> Result<Option<Array<T, M, Cpu, RowMajor, C>>>
    where
        Rank<N>: Dec<Output = Rank<M>>,
    {
        without_axis::<N, M>("mean_axis", self.shape(), self.strides(), axis)?;
        let n = self.shape()[axis];
        if n == 0 {
            return Ok(None);
        }
        let mut s = self.try_sum_axis(axis)?;
        let n = T::from_usize(n);
        s.map_inplace(|x| *x = *x / n);
        Ok(Some(s))
    }
}

/// Shape and strides without `axis`.
///
/// # Errors
///
/// `Error::AxisOutOfRange` when `axis >= N`.
fn without_axis<const N: usize, const M: usize>(
    op: &'static str,
    shape: [usize; N],
    strides: [isize; N],
    axis: usize,
) -> Result<([usize; M], [isize; M])> {
    if axis >= N {
        return Err(Error::AxisOutOfRange { op, axis, rank: N });
    }
    Ok(crate::geometry::remove_axis(&shape, &strides, axis))
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
        let (shape, _) = without_axis::<N, M>("fold_axis", self.shape(), self.strides(), axis)?;
        let mut out: Array<T, M, Cpu, RowMajor, C> = Array::try_zeros_in(&Cpu, shape)?;
        out.fill(init);
        for k in 0..self.shape()[axis] {
            let plane = self.try_index_axis::<M>(axis, k)?;
            out.try_zip_mut_with(&plane, |acc, x| *acc = f(*acc, x))?;
        }
        Ok(out)
    }
}

impl<T: Numeric, const N: usize, B: HostAccessible, L: Layout, C: BoundsCheck> Array<T, N, B, L, C> {
    /// The sum of all elements, by pairwise summation (error grows like `log n`, not `n`); see
    /// [`ArrayView::sum`].
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
    pub fn sum(&self) -> T {
        self.view().sum()
    }

    /// The product of all elements; see [`ArrayView::product`].
    pub fn product(&self) -> T {
        self.view().product()
    }

    /// The mean of all elements, `None` when empty; see [`ArrayView::mean`].
    pub fn mean(&self) -> Option<T> {
        self.view().mean()
    }

    /// The smallest element (NaN if any is NaN, as NumPy), `None` when empty.
    pub fn min(&self) -> Option<T> {
        self.view().min()
    }

    /// The largest element (NaN if any is NaN, as NumPy), `None` when empty.
    pub fn max(&self) -> Option<T> {
        self.view().max()
    }

    /// The index of the first smallest element (of the first NaN, if any), `None` when empty.
    pub fn argmin(&self) -> Option<[usize; N]> {
        self.view().argmin()
    }

    /// The index of the first largest element (of the first NaN, if any), `None` when empty.
    pub fn argmax(&self) -> Option<[usize; N]> {
        self.view().argmax()
    }

    /// Sums along `axis`: rank `N - 1`, inferred; see [`ArrayView::sum_axis`].
    ///
    /// # Panics
    ///
    /// When `axis >= N`.
    #[track_caller]
    pub fn sum_axis<const M: usize>(&self, axis: usize) -> Array<T, M, Cpu, RowMajor, C>
    where
        Rank<N>: Dec<Output = Rank<M>>,
    {
        self.view().sum_axis(axis)
    }

    /// Means along `axis`, `None` when that axis is empty; see [`ArrayView::mean_axis`].
    ///
    /// # Panics
    ///
    /// When `axis >= N`.
    #[track_caller]
    pub fn mean_axis<const M: usize>(&self, axis: usize) -> Option<Array<T, M, Cpu, RowMajor, C>>
    where
        Rank<N>: Dec<Output = Rank<M>>,
    {
        self.view().mean_axis(axis)
    }

    /// Sums along `axis`; see [`ArrayView::try_sum_axis`].
    ///
    /// # Errors
    ///
    /// `Error::AxisOutOfRange` when `axis >= N`; `Error::Alloc`.
    pub fn try_sum_axis<const M: usize>(&self, axis: usize) -> Result<Array<T, M, Cpu, RowMajor, C>>
    where
        Rank<N>: Dec<Output = Rank<M>>,
    {
        self.view().try_sum_axis(axis)
    }

    /// Means along `axis`; see [`ArrayView::try_mean_axis`].
    ///
    /// # Errors
    ///
    /// `Error::AxisOutOfRange` when `axis >= N`; `Error::Alloc`.
    pub fn try_mean_axis<const M: usize>(&self, axis: usize) -> Result<Option<Array<T, M, Cpu, RowMajor, C>>>
    where
        Rank<N>: Dec<Output = Rank<M>>,
    {
        self.view().try_mean_axis(axis)
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
        self.view().fold_axis(axis, init, f)
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
        self.view().try_fold_axis(axis, init, f)
    }
}
