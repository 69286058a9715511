//! Parallel variants over rayon: the work is split along axis 0 into disjoint blocks of rows, one
//! task each, and every block runs the same sequential kernel. Sound by construction: a mutable
//! operand's blocks share no element because positions of axis 0 are distinct elements.

use crate::array::Array;
use crate::check::BoundsCheck;
use crate::element::{Arithmetic, Pod};
use crate::error::or_panic;
use crate::kernel::host::HostEngine;
use crate::kernel::{Cpu, HostAccessible};
use crate::layout::{Layout, RowMajor};
use crate::ops::map::collect;
use crate::view::{ArrayView, ArrayViewMut};

impl<T: Pod + Sync, const N: usize, L: Layout, C: BoundsCheck> ArrayView<'_, T, N, L, C> {
    /// [`ArrayView::map`] on all threads of rayon's pool.
    pub fn par_map<R: Pod + Send>(&self, f: impl Fn(T) -> R + Sync + Send) -> Array<R, N, Cpu, RowMajor, C> {
        let (shape, src) = (self.shape(), self.src());
        // SAFETY: each block writes its own rows of the fresh destination exactly once.
        let out = unsafe {
            collect("par_map", shape, |dst| {
                Cpu::for_each_row_block(shape, |first, block| {
                    Cpu::unary_map(block, src.at_row(first), dst.at_row(first), &f);
                })
            })
        };
        or_panic(out)
    }
}

impl<T: Arithmetic, const N: usize, L: Layout, C: BoundsCheck> ArrayView<'_, T, N, L, C> {
    /// [`ArrayView::sum`] on all threads: blocks of rows summed in parallel, block sums combined
    /// pairwise.
    pub fn par_sum(&self) -> T {
        let (shape, src) = (self.shape(), self.src());
        let sums = std::sync::Mutex::new(Vec::new());
        Cpu::for_each_row_block(shape, |first, block| {
            let rows = src.at_row(first);
            // SAFETY: the block's rows lie inside this view and are only read.
            let view: ArrayView<'_, T, N, crate::layout::Strided, C> = unsafe {
                ArrayView::from_raw(crate::raw::RawParts::<T, N, crate::layout::Strided>::strided(
                    rows.ptr.cast_mut(),
                    block,
                    rows.strides,
                ))
            };
            let s = view.sum();
            sums.lock().unwrap_or_else(|e| e.into_inner()).push((first, s));
        });
        let mut sums = sums.into_inner().unwrap_or_else(|e| e.into_inner());
        sums.sort_by_key(|&(first, _)| first);
        Cpu::sum_slice(&sums.into_iter().map(|(_, s)| s).collect::<Vec<_>>())
    }
}

impl<T: Pod + Send, const N: usize, L: Layout, C: BoundsCheck> ArrayViewMut<'_, T, N, L, C> {
    /// [`ArrayViewMut::map_inplace`] on all threads of rayon's pool.
    pub fn par_map_inplace(&mut self, f: impl Fn(&mut T) + Sync + Send) {
        let (shape, dst) = (self.shape(), self.dst());
        Cpu::for_each_row_block(shape, |first, block| {
            // SAFETY: blocks are disjoint rows of a view whose indices address distinct elements.
            unsafe { Cpu::update(block, dst.at_row(first), &f) };
        });
    }
}

impl<T: Pod + Send + Sync, const N: usize, B: HostAccessible, L: Layout, C: BoundsCheck> Array<T, N, B, L, C> {
    /// See [`ArrayView::par_map`].
    pub fn par_map<R: Pod + Send>(&self, f: impl Fn(T) -> R + Sync + Send) -> Array<R, N, Cpu, RowMajor, C> {
        self.host_view().par_map(f)
    }

    /// See [`ArrayViewMut::par_map_inplace`].
    pub fn par_map_inplace(&mut self, f: impl Fn(&mut T) + Sync + Send) {
        self.host_view_mut().par_map_inplace(f)
    }
}

impl<T: Arithmetic, const N: usize, B: HostAccessible, L: Layout, C: BoundsCheck> Array<T, N, B, L, C> {
    /// See [`ArrayView::par_sum`].
    pub fn par_sum(&self) -> T {
        self.host_view().par_sum()
    }
}
