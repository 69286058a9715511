//! Element-moving kernels behind `contiguous()`, `to_owned()`, `to_layout()` and `assign()`: the
//! only CPU code that copies elements between layouts. Inputs are raw (pointer, shape, strides);
//! the safe wrappers in `view/copies.rs` guarantee them.

use crate::iter::Odometer;

/// Tile edge, in elements, of the blocked 2D copy: a 64 x 64 tile of f64 reads 64 source lines
/// that stay in L1 while the tile is written row by row.
const TILE: usize = 64;

/// Copies the elements of a strided source into `dst` in row-major order, tiling the last two
/// axes so that a transposed source is read cache line by cache line.
///
/// # Safety
///
/// Every in-bounds index of `shape` maps through `strides` from `src` to a readable element;
/// `dst` is valid for writing `shape.iter().product()` elements and does not overlap the source.
pub(crate) unsafe fn gather_row_major<T: Copy, const N: usize>(
    src: *const T,
    shape: [usize; N],
    strides: [isize; N],
    dst: *mut T,
) {
    let len: usize = shape.iter().product();
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

/// One `rows x cols` block, row-major into `dst`.
///
/// # Safety
///
/// As for [`gather_row_major`], for a rank-2 source.
unsafe fn copy_block<T: Copy>(src: *const T, rows: usize, cols: usize, rs: isize, cs: isize, dst: *mut T) {
    if cs == 1 {
        for i in 0..rows {
            // SAFETY: row i is `cols` contiguous source elements; dst row i is inside the block.
            unsafe { core::ptr::copy_nonoverlapping(src.offset(i as isize * rs), dst.add(i * cols), cols) };
        }
        return;
    }
    for i0 in (0..rows).step_by(TILE) {
        for j0 in (0..cols).step_by(TILE) {
            for i in i0..(i0 + TILE).min(rows) {
                let (s, d) = (i as isize * rs, i * cols);
                for j in j0..(j0 + TILE).min(cols) {
                    // SAFETY: i < rows and j < cols.
                    unsafe { *dst.add(d + j) = *src.offset(s + j as isize * cs) };
                }
            }
        }
    }
}

/// `dst[idx] = src[idx]` for every index of `shape`, both strided.
///
/// # Safety
///
/// Both pointer/stride pairs address valid elements for every in-bounds index; distinct indices
/// address distinct destination elements, and the destination does not overlap the source.
pub(crate) unsafe fn copy_strided<T: Copy, const N: usize>(
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
                core::ptr::copy_nonoverlapping(s, d, inner);
            } else {
                for k in 0..inner as isize {
                    *d.offset(k * ds) = *s.offset(k * ss);
                }
            }
        }
    }
}
