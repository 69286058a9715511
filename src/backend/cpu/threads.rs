//! The thread splitter: how the CPU cuts data-parallel work into tasks over rayon's pool (row
//! blocks of elementwise ops and reductions, bands of stencil rows). The fused time steps'
//! slabs and pipeline (`stencil/fused/parallel.rs`) run their own scoped threads.

use core::ops::Range;

use rayon::prelude::*;

/// Blocks per thread: enough to balance uneven rows, few enough to amortize task overhead.
const BLOCKS_PER_THREAD: usize = 4;

/// Runs `work` on disjoint sub-ranges covering `range`, about `per_thread` of them per thread of
/// rayon's pool, in parallel.
pub(crate) fn for_each_subrange(range: Range<usize>, per_thread: usize, work: impl Fn(Range<usize>) + Sync + Send) {
    let len = range.len();
    if len == 0 {
        return;
    }
    let parts = (rayon::current_num_threads() * per_thread).clamp(1, len);
    let per_part = len.div_ceil(parts);
    (0..len.div_ceil(per_part)).into_par_iter().for_each(|b| {
        let start = range.start + b * per_part;
        work(start..(start + per_part).min(range.end));
    });
}

/// Calls `work(first_row, block_shape)` for disjoint blocks of rows covering axis 0, in parallel.
pub(crate) fn for_each_row_block<const N: usize>(shape: [usize; N], work: impl Fn(usize, [usize; N]) + Sync + Send) {
    if N == 0 || shape[0] <= 1 || shape.contains(&0) {
        work(0, shape);
        return;
    }
    for_each_subrange(0..shape[0], BLOCKS_PER_THREAD, |rows| {
        let mut block = shape;
        block[0] = rows.len();
        work(rows.start, block);
    });
}
