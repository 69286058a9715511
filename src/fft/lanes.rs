//! Transforms along one axis of a row-major array, whatever the axis. Along the last axis the
//! lanes are the rows: batches of them are transformed where they lie. Along another axis, a
//! block of `BLOCK` neighbouring lanes (the same position in the axes after it) is gathered into
//! a scratch (each of its rows one read of a few cache lines; the block stays in cache unless
//! the axis is very long), transformed there, and scattered back (or into another array): one
//! read and one write of the array per axis. Blocks and batches run on rayon's threads.

use crate::element::Pod;
use crate::error::Result;
use crate::kernel::try_zeroed_vec;

/// Lanes per block gathered from a non-contiguous axis: 32 doubles are four cache lines of each
/// row, read together (16 lanes took a quarter longer on 1024^2 grids, 64 no shorter).
const BLOCK: usize = 32;

/// Points per batch of contiguous lanes one task transforms: enough to pay for the task.
const POINTS_PER_TASK: usize = 1 << 14;

/// The distance between the starts of neighbouring lanes of `n` elements of `X` in a gathered
/// block: `n`, or one cache line more when lanes are long. Lanes a power-of-two number of bytes
/// long would otherwise start in the same cache set, and the gather's writes to all the block's
/// lanes at once (each row of the axis fills one element of every lane) would evict one
/// another: a quarter to a half of a transform's time along a non-contiguous axis.
fn pitch<X>(n: usize) -> usize {
    let size = core::mem::size_of::<X>().max(1);
    if n * size >= 1024 {
        n + 64usize.div_ceil(size)
    } else {
        n
    }
}

/// A row-major shape seen from one axis: `outer` blocks before it, each of the axis's
/// hyperplanes of `inner` elements.
#[derive(Clone, Copy, Debug)]
pub(super) struct Around {
    pub(super) outer: usize,
    pub(super) inner: usize,
}

impl Around {
    pub(super) fn new<const N: usize>(shape: [usize; N], axis: usize) -> Self {
        Around { outer: shape[..axis].iter().product(), inner: shape[axis + 1..].iter().product() }
    }

    /// The blocks of lanes: `inner.div_ceil(BLOCK)` per outer index.
    fn blocks(self) -> usize {
        self.outer * self.inner.div_ceil(BLOCK)
    }

    /// Block `b`'s outer index, first inner index and number of lanes.
    fn block(self, b: usize) -> (usize, usize, usize) {
        let per_outer = self.inner.div_ceil(BLOCK);
        let first = (b % per_outer) * BLOCK;
        (b / per_outer, first, BLOCK.min(self.inner - first))
    }
}

/// A pointer the tasks of one transform share, each writing only its own lanes.
#[derive(Clone, Copy)]
struct Lanes<X>(*mut X);

// SAFETY: the tasks that share it write disjoint elements (`in_place`, `between`) and nothing else
// accesses the array during the transform (it is borrowed uniquely by the caller).
unsafe impl<X: Send> Send for Lanes<X> {}
// SAFETY: as above.
unsafe impl<X: Send> Sync for Lanes<X> {}

/// Every lane of `data` (row-major, `n` points along the axis of `around`) transformed in place
/// by `transform`, which takes a batch of lanes (rows where they lie, at least `min_rows` of them
/// where the array has that many, or a gathered block) and a scratch it may use (`scratch`
/// elements).
///
/// # Errors
///
/// `Error::Alloc` when a scratch cannot be had; the transform's errors.
pub(super) fn in_place<X: Pod + Send + Sync, W: Pod + Send>(
    op: &'static str,
    data: &mut [X],
    around: Around,
    (n, min_rows): (usize, usize),
    scratch: usize,
    transform: impl Fn(Batch<'_, X>, &mut [W]) -> Result<()> + Sync,
) -> Result<()> {
    // The unsafe accesses below rely on it: checked in every build.
    assert_eq!(data.len(), around.outer * around.inner * n, "lanes of the array's shape");
    if data.is_empty() || n == 0 {
        return Ok(());
    }
    if around.inner == 1 {
        let batch = (POINTS_PER_TASK / n).max(min_rows).max(1) * n;
        let make = || try_zeroed_vec::<W>(op, scratch);
        return for_each_chunk(data, batch, make, |_, rows, work| {
            let count = rows.len() / n;
            transform(Batch::new(rows, n, n, count), work)
        });
    }
    let base = shared(data);
    let inner = around.inner;
    let pitch = pitch::<X>(n);
    for_each_task(
        around.blocks(),
        || Ok((try_zeroed_vec::<X>(op, BLOCK * pitch)?, try_zeroed_vec::<W>(op, scratch)?)),
        |b, (lanes, work)| {
            let (o, first, count) = around.block(b);
            // Block `b`'s lanes are the elements `(o, k, first + l)` for `l < count`: inside
            // `data`, and no other block's; this task alone reads and writes them.
            let at = |k: usize, l: usize| (o * n + k) * inner + first + l;
            for k in 0..n {
                for l in 0..count {
                    // SAFETY: element `(o, k, first + l)` of this block (above).
                    lanes[l * pitch + k] = unsafe { *base.ptr().add(at(k, l)) };
                }
            }
            transform(Batch::new(lanes, pitch, n, count), work)?;
            for k in 0..n {
                for l in 0..count {
                    // SAFETY: as above.
                    unsafe { *base.ptr().add(at(k, l)) = lanes[l * pitch + k] };
                }
            }
            Ok(())
        },
    )
}

/// Lanes of one task, one after the other `pitch` elements apart, each `len` long.
pub(super) struct Batch<'a, X> {
    data: &'a mut [X],
    pitch: usize,
    len: usize,
    count: usize,
}

impl<'a, X> Batch<'a, X> {
    fn new(data: &'a mut [X], pitch: usize, len: usize, count: usize) -> Self {
        assert!(count == 0 || (count - 1) * pitch + len <= data.len(), "lanes inside the batch's elements");
        Batch { data, pitch, len, count }
    }

    /// How many lanes.
    pub(super) fn count(&self) -> usize {
        self.count
    }

    /// Lane `i`.
    pub(super) fn lane(&mut self, i: usize) -> &mut [X] {
        assert!(i < self.count, "a lane of the batch");
        &mut self.data[i * self.pitch..][..self.len]
    }

    /// Every lane as one run, where they lie back to back.
    pub(super) fn whole(&mut self) -> Option<&mut [X]> {
        (self.pitch == self.len).then(|| &mut self.data[..self.count * self.len])
    }

    /// Lanes `i` and `i + 1`.
    pub(super) fn pair(&mut self, i: usize) -> (&mut [X], &mut [X]) {
        assert!(i + 1 < self.count, "two lanes of the batch");
        let (first, second) = self.data[i * self.pitch..].split_at_mut(self.pitch);
        (&mut first[..self.len], &mut second[..self.len])
    }
}

/// `output` (row-major, `n_out` points along the axis) from `input` (the same shape with `n_in`),
/// a batch of lanes at a time: `transform(lanes_in, lanes_out, scratch)` writes every lane of
/// `lanes_out` from the same lane of `lanes_in` (which it may overwrite: a copy), with a scratch of
/// `scratch` elements. A batch holds one lane or more (rows at least `min_rows` where the array has
/// that many).
///
/// # Errors
///
/// As [`in_place`].
pub(super) fn between<U: Pod + Send + Sync, V: Pod + Send + Sync, W: Pod + Send>(
    op: &'static str,
    input: &[U],
    output: &mut [V],
    around: Around,
    ((n_in, n_out), min_rows): ((usize, usize), usize),
    scratch: usize,
    transform: impl Fn(Batch<'_, U>, Batch<'_, V>, &mut [W]) -> Result<()> + Sync,
) -> Result<()> {
    let lanes = around.outer * around.inner;
    // The unsafe writes below rely on it: checked in every build.
    assert!(input.len() == lanes * n_in && output.len() == lanes * n_out, "lanes of the arrays' shapes");
    if lanes == 0 || n_in == 0 || n_out == 0 {
        return Ok(());
    }
    if around.inner == 1 {
        // Rows in, rows out: a batch of rows copied once into lanes the transform may overwrite.
        let rows = (POINTS_PER_TASK / n_in.max(n_out)).max(min_rows).max(1);
        let make = || Ok((try_zeroed_vec::<U>(op, rows * n_in)?, try_zeroed_vec::<W>(op, scratch)?));
        return for_each_chunk(output, rows * n_out, make, |t, out, (copy, work)| {
            let count = out.len() / n_out;
            let first = t * rows * n_in;
            copy[..count * n_in].copy_from_slice(&input[first..first + count * n_in]);
            transform(Batch::new(copy, n_in, n_in, count), Batch::new(out, n_out, n_out, count), work)
        });
    }
    let base = shared(output);
    let inner = around.inner;
    let (pitch_in, pitch_out) = (pitch::<U>(n_in), pitch::<V>(n_out));
    let make = || {
        Ok((
            try_zeroed_vec::<U>(op, BLOCK * pitch_in)?,
            try_zeroed_vec::<V>(op, BLOCK * pitch_out)?,
            try_zeroed_vec::<W>(op, scratch)?,
        ))
    };
    for_each_task(around.blocks(), make, |b, (lanes_in, lanes_out, work)| {
        let (o, first, count) = around.block(b);
        for k in 0..n_in {
            for l in 0..count {
                lanes_in[l * pitch_in + k] = input[(o * n_in + k) * inner + first + l];
            }
        }
        transform(Batch::new(lanes_in, pitch_in, n_in, count), Batch::new(lanes_out, pitch_out, n_out, count), work)?;
        for k in 0..n_out {
            for l in 0..count {
                // SAFETY: block `b`'s output lanes, `(o, k, first + l)`, lie in `output` and
                // belong to no other block; this task alone writes them.
                unsafe { *base.ptr().add((o * n_out + k) * inner + first + l) = lanes_out[l * pitch_out + k] };
            }
        }
        Ok(())
    })
}

impl<X> Lanes<X> {
    /// The pointer (a method, so that closures capture the whole `Lanes`, which is `Sync`).
    fn ptr(self) -> *mut X {
        self.0
    }
}

fn shared<X>(data: &mut [X]) -> Lanes<X> {
    Lanes(data.as_mut_ptr())
}

/// `work(task, buffers)` for every task `0..count`, on rayon's threads, each thread making its
/// buffers once per rayon job (a few per thread); the first error.
fn for_each_task<W: Send>(
    count: usize,
    make: impl Fn() -> Result<W> + Sync + Send,
    work: impl Fn(usize, &mut W) -> Result<()> + Sync + Send,
) -> Result<()> {
    #[cfg(feature = "rayon")]
    {
        use rayon::prelude::*;
        (0..count).into_par_iter().try_for_each_init(&make, |buffers, t| match buffers {
            Ok(w) => work(t, w),
            Err(e) => Err(e.clone()),
        })
    }
    #[cfg(not(feature = "rayon"))]
    {
        let mut buffers = make()?;
        (0..count).try_for_each(|t| work(t, &mut buffers))
    }
}

/// `work(index, chunk, buffers)` for the chunks of `size` elements of `data`, on rayon's threads,
/// each rayon job making its buffers once; the first error.
fn for_each_chunk<X: Send, W: Send>(
    data: &mut [X],
    size: usize,
    make: impl Fn() -> Result<W> + Sync + Send,
    work: impl Fn(usize, &mut [X], &mut W) -> Result<()> + Sync + Send,
) -> Result<()> {
    #[cfg(feature = "rayon")]
    {
        use rayon::prelude::*;
        data.par_chunks_mut(size).enumerate().try_for_each_init(&make, |buffers, (t, chunk)| match buffers {
            Ok(w) => work(t, chunk, w),
            Err(e) => Err(e.clone()),
        })
    }
    #[cfg(not(feature = "rayon"))]
    {
        let mut buffers = make()?;
        data.chunks_mut(size).enumerate().try_for_each(|(t, chunk)| work(t, chunk, &mut buffers))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every axis of a 3D shape: the lanes a transform sees are the axis's runs, and what it
    /// writes lands where they came from (`in_place`) or in the other array (`between`).
    #[test]
    fn transforms_see_the_runs_along_the_axis_and_write_them_back() {
        // Short lanes (gathered back to back) and long ones (a cache line apart).
        for shape in [[3, 5, 37], [2, 130, 19]] {
            runs_of(shape);
        }
    }

    fn runs_of(shape: [usize; 3]) {
        let data: Vec<u64> = (0..shape.iter().product::<usize>() as u64).collect();
        for axis in 0..3 {
            let around = Around::new(shape, axis);
            let n = shape[axis];
            let lane_of = |x: u64| {
                let (o, rest) = (x as usize / (n * around.inner), x as usize % (n * around.inner));
                (o, rest % around.inner)
            };
            // Each lane must be one run: the same (outer, inner) position, k = 0, 1, ...
            let check = |lanes: &[u64]| {
                assert_eq!(lanes.len() % n, 0, "whole lanes");
                for lane in lanes.chunks(n) {
                    assert!(lane.iter().all(|&x| lane_of(x) == lane_of(lane[0])), "axis {axis}");
                    assert!(lane.windows(2).all(|w| w[1] == w[0] + around.inner as u64), "axis {axis}");
                }
            };
            let mut copy = data.clone();
            in_place("test", &mut copy, around, (n, 1), 0, |mut lanes, _: &mut [u8]| {
                for i in 0..lanes.count() {
                    check(lanes.lane(i));
                    lanes.lane(i).iter_mut().for_each(|x| *x += 1000);
                }
                Ok(())
            })
            .unwrap();
            assert!(copy.iter().zip(&data).all(|(c, d)| *c == d + 1000), "axis {axis}");
            let mut out = vec![0u64; data.len()];
            between("test", &data, &mut out, around, ((n, n), 2), 0, |mut lanes, mut into, _: &mut [u8]| {
                assert!(lanes.count() >= 1 && lanes.count() == into.count());
                for i in 0..lanes.count() {
                    check(lanes.lane(i));
                    into.lane(i).copy_from_slice(lanes.lane(i));
                }
                Ok(())
            })
            .unwrap();
            assert_eq!(out, data, "axis {axis}");
        }
    }
}
