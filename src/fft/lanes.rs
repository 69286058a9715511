//! Transforms along one axis of a row-major array, whatever the axis: every lane of the axis is
//! gathered into a lane-major scratch (blocks of neighbouring lanes at a time, so the reads of
//! one block stay in a few cache lines), transformed in batches on rayon's threads, and
//! scattered into the output (rows of the output at a time, likewise). Along the last axis the
//! lanes are already contiguous: the output is written in place of a scatter.

use crate::element::Pod;
use crate::error::{Error, Result};

/// Lanes per block of the gather and rows per block of the scatter.
const BLOCK: usize = 16;

/// Points per batch of lanes one task transforms: enough to pay for the task.
const POINTS_PER_TASK: usize = 1 << 14;

/// A row-major shape seen from one axis: `outer` blocks before it, each of `len` hyperplanes of
/// `inner` elements.
#[derive(Clone, Copy, Debug)]
pub(super) struct Around {
    pub(super) outer: usize,
    pub(super) inner: usize,
}

impl Around {
    pub(super) fn new<const N: usize>(shape: [usize; N], axis: usize) -> Self {
        Around { outer: shape[..axis].iter().product(), inner: shape[axis + 1..].iter().product() }
    }

    fn lanes(self) -> usize {
        self.outer * self.inner
    }
}

/// `output` (the shape with `n_out` along the axis) from `input` (the same shape with `n_in`),
/// lane by lane: `transform(lanes_in, lanes_out)` takes a batch of whole lanes, `n_in` points
/// each in, `n_out` each out, and may overwrite its input.
///
/// # Errors
///
/// `Error::Alloc` when the scratch cannot be had; the transform's errors.
pub(super) fn along_axis<U, V>(
    op: &'static str,
    input: &[U],
    output: &mut [V],
    around: Around,
    (n_in, n_out): (usize, usize),
    transform: impl Fn(&mut [U], &mut [V]) -> Result<()> + Sync,
) -> Result<()>
where
    U: Pod + Send + Sync,
    V: Pod + Send + Sync,
{
    let lanes = around.lanes();
    debug_assert!(input.len() == lanes * n_in && output.len() == lanes * n_out);
    if lanes == 0 || n_in == 0 || n_out == 0 {
        return Ok(());
    }
    let batch = (POINTS_PER_TASK / n_in.max(n_out)).max(1);
    let mut lanes_in = scratch::<U>(op, input.len())?;
    gather(input, &mut lanes_in, around, n_in);
    if around.inner == 1 {
        // The lanes are the rows of the output.
        return chunk_pairs(&mut lanes_in, batch * n_in, output, batch * n_out, &transform);
    }
    let mut lanes_out = scratch::<V>(op, output.len())?;
    chunk_pairs(&mut lanes_in, batch * n_in, &mut lanes_out, batch * n_out, &transform)?;
    drop(lanes_in);
    scatter(&lanes_out, output, around, n_out);
    Ok(())
}

/// `lanes[l * n + k] = input[(o n + k) inner + i]` for lane `l = o inner + i`.
fn gather<U: Pod + Send + Sync>(input: &[U], lanes: &mut [U], around: Around, n: usize) {
    let inner = around.inner;
    if inner == 1 {
        lanes.copy_from_slice(input);
        return;
    }
    for_chunks(lanes, BLOCK * n, |block, chunk| {
        let first = block * BLOCK;
        let count = chunk.len() / n;
        for k in 0..n {
            for b in 0..count {
                let (o, i) = ((first + b) / inner, (first + b) % inner);
                chunk[b * n + k] = input[(o * n + k) * inner + i];
            }
        }
    });
}

/// `output[(o n + k) inner + i] = lanes[(o inner + i) n + k]`.
fn scatter<V: Pod + Send + Sync>(lanes: &[V], output: &mut [V], around: Around, n: usize) {
    let inner = around.inner;
    for_chunks(output, BLOCK * inner, |block, chunk| {
        let first = block * BLOCK;
        let rows = chunk.len() / inner;
        for i in 0..inner {
            for r in 0..rows {
                let (o, k) = ((first + r) / n, (first + r) % n);
                chunk[r * inner + i] = lanes[(o * inner + i) * n + k];
            }
        }
    });
}

/// `work(index, chunk)` for the chunks of `size` elements of `data`, on rayon's threads.
fn for_chunks<X: Send>(data: &mut [X], size: usize, work: impl Fn(usize, &mut [X]) + Sync) {
    #[cfg(feature = "rayon")]
    {
        use rayon::prelude::*;
        data.par_chunks_mut(size).enumerate().for_each(|(c, chunk)| work(c, chunk));
    }
    #[cfg(not(feature = "rayon"))]
    data.chunks_mut(size).enumerate().for_each(|(c, chunk)| work(c, chunk));
}

/// `work(a_chunk, b_chunk)` for matching chunks of `a` and `b`, on rayon's threads.
fn chunk_pairs<X: Send, Y: Send>(
    a: &mut [X],
    size_a: usize,
    b: &mut [Y],
    size_b: usize,
    work: &(impl Fn(&mut [X], &mut [Y]) -> Result<()> + Sync),
) -> Result<()> {
    #[cfg(feature = "rayon")]
    {
        use rayon::prelude::*;
        a.par_chunks_mut(size_a).zip(b.par_chunks_mut(size_b)).try_for_each(|(x, y)| work(x, y))
    }
    #[cfg(not(feature = "rayon"))]
    a.chunks_mut(size_a).zip(b.chunks_mut(size_b)).try_for_each(|(x, y)| work(x, y))
}

/// A zeroed buffer of `len` elements, refused rather than aborting when the memory is not there.
pub(super) fn scratch<X: Pod>(op: &'static str, len: usize) -> Result<Vec<X>> {
    let mut v = Vec::new();
    v.try_reserve_exact(len).map_err(|_| Error::Alloc {
        op,
        bytes: len.saturating_mul(size_of::<X>()),
        reason: "the host refused the memory for the transform's scratch".into(),
    })?;
    v.resize(len, X::zeroed());
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every axis of a 3D shape: gather then scatter is the identity, and the lanes are the
    /// axis's runs in row-major lane order.
    #[test]
    fn lanes_are_the_runs_along_the_axis_and_the_scatter_undoes_the_gather() {
        let shape = [3, 5, 37];
        let data: Vec<u32> = (0..3 * 5 * 37).collect();
        for axis in 0..3 {
            let around = Around::new(shape, axis);
            let n = shape[axis];
            let mut lanes = vec![0; data.len()];
            gather(&data, &mut lanes, around, n);
            let mut l = 0;
            for o in 0..around.outer {
                for i in 0..around.inner {
                    let want: Vec<u32> = (0..n).map(|k| data[(o * n + k) * around.inner + i]).collect();
                    assert_eq!(&lanes[l * n..(l + 1) * n], &want[..], "axis {axis}");
                    l += 1;
                }
            }
            let mut back = vec![0; data.len()];
            scatter(&lanes, &mut back, around, n);
            assert_eq!(back, data, "axis {axis}");
        }
    }
}
