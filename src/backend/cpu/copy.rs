//! The CPU's copy and fill kernels (behind `contiguous()`, `to_owned()`, `to_layout()`,
//! `assign()` and `fill()`): the only CPU code that copies elements between layouts. The generic
//! algorithms of `ops/fill_copy.rs` guarantee their inputs.

use super::lanes;
use super::stream::Fence;
use crate::element::Pod;
use crate::error::Result;
use crate::iter::Odometer;
use crate::kernel::host::{Dst, Src};
use crate::kernel::CopyKernels;
use crate::kernel::Cpu;
use crate::kernel::Desc;

/// Edge of the square micro-tile, in elements: one cache line of `T`. Inside a tile every source
/// line and every destination line is used whole before moving on, so a power-of-two stride
/// (which maps all lines of a column to one cache set) cannot evict a line before it is used up.
fn micro_tile<T>() -> usize {
    (64 / core::mem::size_of::<T>().max(1)).clamp(1, 64)
}

/// Copies the elements of a strided source into `dst` in row-major order, tiling the last two
/// axes so that a transposed source is read cache line by cache line.
///
/// # Safety
///
/// Every in-bounds index of `shape` maps through `strides` from `src` to a readable element;
/// `dst` is valid for writing `element_count(shape)` elements and does not overlap the source.
unsafe fn gather_row_major<T: Copy, const N: usize>(
    src: *const T,
    shape: [usize; N],
    strides: [isize; N],
    dst: *mut T,
) {
    let len = crate::shape::element_count(&shape).unwrap_or(0);
    if len == 0 {
        return;
    }
    if N < 2 {
        let step = if N == 1 { strides[0] } else { 0 };
        for k in 0..len {
            // SAFETY: k < len indexes the (at most one) axis; dst holds len elements.
            unsafe { *dst.add(k) = *src.offset(k as isize * step) };
        }
        return;
    }
    let (rows, cols) = (shape[N - 2], shape[N - 1]);
    let (row_stride, col_stride) = (strides[N - 2], strides[N - 1]);
    // Walk the outer axes with the last two pinned to 0.
    let mut outer_shape = shape;
    outer_shape[N - 2] = 1;
    outer_shape[N - 1] = 1;
    let mut outer = Odometer::new(outer_shape, strides);
    let mut out = dst;
    while let Some((_, base)) = outer.next() {
        // SAFETY: `base` is the offset of an in-bounds outer index; the 2D block below stays within
        // the source's rows x cols positions and within this block's rows * cols output elements.
        unsafe {
            copy_block(src.offset(base), rows, cols, row_stride, col_stride, out);
            out = out.add(rows * cols);
        }
    }
}

/// Bytes per `memcpy` of a contiguous run: below the size from which glibc's `memcpy` switches
/// to non-temporal stores, so a copy leaves its destination in the cache for the next op, as a
/// row-by-row copy does. (Merged axes turn a dense copy into one run; copied in one call, a
/// 64 MiB `assign` followed by `+=` ran 1.2x slower, measured.)
const RUN_CHUNK_BYTES: usize = 64 << 10;

/// Copies `n` contiguous elements in chunks of [`RUN_CHUNK_BYTES`].
///
/// # Safety
///
/// `src` readable and `dst` writable for `n` elements, not overlapping.
#[inline]
unsafe fn copy_run<T: Copy>(src: *const T, dst: *mut T, n: usize) {
    let chunk = (RUN_CHUNK_BYTES / core::mem::size_of::<T>().max(1)).max(1);
    let mut done = 0;
    while done < n {
        let k = chunk.min(n - done);
        // SAFETY: `done + k <= n`, inside both runs (the caller's contract).
        unsafe { core::ptr::copy_nonoverlapping(src.add(done), dst.add(done), k) };
        done += k;
    }
}

/// One `rows x cols` block, row-major into `dst`.
///
/// # Safety
///
/// As for [`gather_row_major`], for a rank-2 source.
unsafe fn copy_block<T: Copy>(src: *const T, rows: usize, cols: usize, rs: isize, cs: isize, dst: *mut T) {
    if cs == 1 {
        for i in 0..rows {
            // SAFETY: row i is `cols` contiguous source elements; dst row i is inside the block.
            unsafe { copy_run(src.offset(i as isize * rs), dst.add(i * cols), cols) };
        }
        return;
    }
    if rs.unsigned_abs() < cs.unsigned_abs() && core::mem::size_of::<T>() <= 16 {
        // SAFETY: forwarded contract.
        unsafe { transpose_tiles(src, rows, cols, rs, cs, dst) };
        return;
    }
    for i in 0..rows {
        for j in 0..cols {
            // SAFETY: i < rows and j < cols.
            unsafe { *dst.add(i * cols + j) = *src.offset(i as isize * rs + j as isize * cs) };
        }
    }
}

/// The block copy for a source that runs down its columns (a transposed view): each `b x b` tile
/// is read one source line per column into a stack buffer, then written one destination line per
/// row, so both sides use every cache line whole and no power-of-two stride can make the lines
/// of one tile evict each other.
///
/// # Safety
///
/// As for [`copy_block`]; `size_of::<T>() <= 16`.
unsafe fn transpose_tiles<T: Copy>(src: *const T, rows: usize, cols: usize, rs: isize, cs: isize, dst: *mut T) {
    let b = 2 * micro_tile::<T>();
    // Orders the non-temporal stores before anything that reads the destination, on every way
    // out of the loop.
    let _fence = Fence::always();
    for j0 in (0..cols).step_by(b) {
        if j0 + b <= cols {
            for i in 0..rows {
                let (s, d) = (i as isize * rs, i * cols + j0);
                let mut row = [core::mem::MaybeUninit::<T>::uninit(); 128];
                for (dj, slot) in row[..b].iter_mut().enumerate() {
                    // SAFETY: i < rows and j0 + dj < cols.
                    slot.write(unsafe { *src.offset(s + (j0 + dj) as isize * cs) });
                }
                // SAFETY: the first b slots are written; the destination segment is in the block.
                unsafe { store_streaming(row.as_ptr().cast::<T>(), dst.add(d), b) };
            }
        } else {
            for i in 0..rows {
                let (s, d) = (i as isize * rs, i * cols + j0);
                for dj in 0..cols - j0 {
                    // SAFETY: i < rows and j0 + dj < cols.
                    unsafe { *dst.add(d + dj) = *src.offset(s + (j0 + dj) as isize * cs) };
                }
            }
        }
    }
}

/// Copies `n` elements with non-temporal stores when the destination allows it (x86-64, 16-byte
/// aligned, whole 16-byte chunks): the written lines are not read into the cache first.
///
/// # Safety
///
/// `src` readable and `dst` writable for `n` elements, not overlapping.
#[inline(always)]
unsafe fn store_streaming<T: Copy>(src: *const T, dst: *mut T, n: usize) {
    let bytes = n * core::mem::size_of::<T>();
    #[cfg(target_arch = "x86_64")]
    if (dst as usize) % 16 == 0 && bytes % 16 == 0 {
        use core::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_stream_si128};
        let (s, d) = (src.cast::<__m128i>(), dst.cast::<__m128i>());
        for k in 0..bytes / 16 {
            // SAFETY: k * 16 < bytes; `d` is 16-byte aligned; SSE2 is part of x86-64.
            unsafe { _mm_stream_si128(d.add(k), _mm_loadu_si128(s.add(k))) };
        }
        return;
    }
    // SAFETY: the caller's contract.
    unsafe { core::ptr::copy_nonoverlapping(src, dst, n) };
}

/// `dst[idx] = src[idx]` for every index of `shape`, both strided.
///
/// # Safety
///
/// Both pointer/stride pairs address valid elements for every in-bounds index; distinct indices
/// address distinct destination elements, and the destination does not overlap the source.
unsafe fn copy_strided<T: Copy, const N: usize>(
    dst: *mut T,
    dst_strides: [isize; N],
    src: *const T,
    src_strides: [isize; N],
    shape: [usize; N],
) {
    if shape.contains(&0) {
        return;
    }
    if N == 0 {
        // SAFETY: a rank-0 array has one element at offset 0.
        unsafe { *dst = *src };
        return;
    }
    let inner = shape[N - 1];
    let (ds, ss) = (dst_strides[N - 1], src_strides[N - 1]);
    let mut outer_shape = shape;
    outer_shape[N - 1] = 1;
    let mut d_outer = Odometer::new(outer_shape, dst_strides);
    let mut s_outer = Odometer::new(outer_shape, src_strides);
    while let (Some((_, d)), Some((_, s))) = (d_outer.next(), s_outer.next()) {
        // SAFETY: the caller's contract, for row `d`/`s` and positions below `inner`.
        unsafe {
            let (d, s) = (dst.offset(d), src.offset(s));
            if ds == 1 && ss == 1 {
                copy_run(s, d, inner);
            } else {
                for k in 0..inner as isize {
                    *d.offset(k * ds) = *s.offset(k * ss);
                }
            }
        }
    }
}
// SAFETY: `copy` writes every destination index once from the source element at the same index;
// `fill` writes every destination index once.
unsafe impl CopyKernels for Cpu {
    unsafe fn copy<T: Pod, const N: usize>(_: &Cpu, dst: Desc<Cpu, T, N>, src: Desc<Cpu, T, N>) -> Result<()> {
        // SAFETY: the trait's contract; a contiguous destination is `len` elements from its
        // handle, which is what the blocked gather writes.
        unsafe {
            if dst.is_contiguous() {
                gather_row_major(src.handle.cast_const(), dst.shape, src.strides, dst.handle);
            } else {
                copy_strided(dst.handle, dst.strides, src.handle.cast_const(), src.strides, dst.shape);
            }
        }
        Ok(())
    }

    unsafe fn fill<T: Pod, const N: usize>(_: &Cpu, dst: Desc<Cpu, T, N>, value: T) -> Result<()> {
        let out = Dst { ptr: dst.handle, strides: dst.strides };
        let nothing = Src { ptr: dst.handle.cast_const(), strides: dst.strides };
        // SAFETY: the trait's contract; the source pointer is never read.
        unsafe { lanes::unary_map_ptr(dst.shape, nothing, out, |_| value) };
        Ok(())
    }
}
