//! The loop engine of every elementwise op: walks the lanes (runs along the last axes) of up to K
//! operands in lockstep, merging trailing axes whenever every operand steps through them
//! uniformly, so contiguous operands become one long lane and inner loops run over slices.

use core::mem::MaybeUninit;

use crate::kernel::host::{Dst, Src};

/// What runs on each lane of `K` operands: `run(bases, len, steps)`. Closures are lanes; the hot
/// kernels implement it on a named type with `#[inline(always)]`, so that their loops are compiled
/// inside the SIMD-dispatched function that calls them (`backend/cpu/simd.rs`): a closure's body
/// is inlined only when LLVM deems it small.
pub(crate) trait Lane<const K: usize> {
    fn run(&mut self, bases: [isize; K], len: usize, steps: [isize; K]);
}

/// A closure as a lane.
struct FnLane<F>(F);

impl<const K: usize, F: FnMut([isize; K], usize, [isize; K])> Lane<K> for FnLane<F> {
    #[inline(always)]
    fn run(&mut self, bases: [isize; K], len: usize, steps: [isize; K]) {
        (self.0)(bases, len, steps)
    }
}

/// Calls `f(bases, len, steps)` once per lane: `bases[k]` is operand `k`'s element offset of the
/// lane's first element, `len` the lane length, `steps[k]` operand `k`'s stride along the lane.
/// Lanes come in row-major order of the outer indices. Nothing is called for an empty shape.
#[inline]
pub(crate) fn for_each_lane<const N: usize, const K: usize>(
    shape: [usize; N],
    strides: [[isize; N]; K],
    f: impl FnMut([isize; K], usize, [isize; K]),
) {
    walk_lanes(shape, strides, FnLane(f))
}

/// [`for_each_lane`] for a [`Lane`].
#[inline(always)]
pub(crate) fn walk_lanes<const N: usize, const K: usize>(
    shape: [usize; N],
    strides: [[isize; N]; K],
    mut f: impl Lane<K>,
) {
    if shape.contains(&0) {
        return;
    }
    if N == 0 {
        f.run([0; K], 1, [0; K]);
        return;
    }
    let steps: [isize; K] = core::array::from_fn(|k| strides[k][N - 1]);
    // Merge outer axes into the lane while every operand steps through them uniformly.
    let mut len = shape[N - 1];
    let mut first = N - 1;
    while first > 0 {
        let axis = first - 1;
        if (0..K).all(|k| strides[k][axis] == steps[k] * len as isize) {
            len *= shape[axis];
            first = axis;
        } else {
            break;
        }
    }
    let mut index = [0usize; N];
    let mut bases = [0isize; K];
    loop {
        f.run(bases, len, steps);
        let mut axis = first;
        loop {
            if axis == 0 {
                return;
            }
            axis -= 1;
            // Step only within the axis, so the bases only take values of visited lanes (a
            // length-1 axis may carry any stride, which is never added) and cannot overflow.
            if index[axis] + 1 < shape[axis] {
                index[axis] += 1;
                for k in 0..K {
                    bases[k] += strides[k][axis];
                }
                break;
            }
            for k in 0..K {
                bases[k] -= strides[k][axis] * index[axis] as isize;
            }
            index[axis] = 0;
        }
    }
}

/// `out[i] = f(a[i], b[i])` for every index of `shape`.
///
/// # Safety
///
/// Every in-bounds index maps each operand to a valid element; `out` elements are distinct per
/// index, writable, may be uninitialized, and overlap neither input.
#[inline(always)]
pub(crate) unsafe fn binary_map<A: Copy, B: Copy, R, const N: usize>(
    shape: [usize; N],
    a: Src<A, N>,
    b: Src<B, N>,
    out: Dst<R, N>,
    f: impl FnMut(A, B) -> R,
) {
    walk_lanes(shape, [a.strides, b.strides, out.strides], BinaryLanes { a, b, out, f });
}

/// The lanes of [`binary_map`]: slice loops for unit and broadcast (stride 0) inputs.
struct BinaryLanes<A, B, R, const N: usize, F> {
    a: Src<A, N>,
    b: Src<B, N>,
    out: Dst<R, N>,
    f: F,
}

impl<A: Copy, B: Copy, R, const N: usize, F: FnMut(A, B) -> R> Lane<3> for BinaryLanes<A, B, R, N, F> {
    #[inline(always)]
    fn run(&mut self, [ba, bb, bo]: [isize; 3], len: usize, [sa, sb, so]: [isize; 3]) {
        let f = &mut self.f;
        // SAFETY: the lane's offsets are in bounds for every operand (`binary_map`'s contract).
        unsafe {
            let (pa, pb, po) = (self.a.ptr.offset(ba), self.b.ptr.offset(bb), self.out.ptr.offset(bo));
            if so == 1 {
                let o = core::slice::from_raw_parts_mut(po.cast::<MaybeUninit<R>>(), len);
                match (sa, sb) {
                    (1, 1) => {
                        let (xa, xb) = (core::slice::from_raw_parts(pa, len), core::slice::from_raw_parts(pb, len));
                        for ((o, &x), &y) in o.iter_mut().zip(xa).zip(xb) {
                            o.write(f(x, y));
                        }
                    }
                    (1, 0) => {
                        let (xa, y) = (core::slice::from_raw_parts(pa, len), *pb);
                        for (o, &x) in o.iter_mut().zip(xa) {
                            o.write(f(x, y));
                        }
                    }
                    (0, 1) => {
                        let (x, xb) = (*pa, core::slice::from_raw_parts(pb, len));
                        for (o, &y) in o.iter_mut().zip(xb) {
                            o.write(f(x, y));
                        }
                    }
                    _ => {
                        for (i, o) in o.iter_mut().enumerate() {
                            o.write(f(*pa.offset(i as isize * sa), *pb.offset(i as isize * sb)));
                        }
                    }
                }
            } else {
                for i in 0..len as isize {
                    po.offset(i * so).write(f(*pa.offset(i * sa), *pb.offset(i * sb)));
                }
            }
        }
    }
}

/// `out[i] = f(a[i])` for every index of `shape`.
///
/// # Safety
///
/// As for [`binary_map`], with one input.
#[inline(always)]
pub(crate) unsafe fn unary_map<A: Copy, R, const N: usize>(
    shape: [usize; N],
    a: Src<A, N>,
    out: Dst<R, N>,
    f: impl FnMut(A) -> R,
) {
    walk_lanes(shape, [a.strides, out.strides], UnaryLanes { a, out, f });
}

/// The lanes of [`unary_map`].
struct UnaryLanes<A, R, const N: usize, F> {
    a: Src<A, N>,
    out: Dst<R, N>,
    f: F,
}

impl<A: Copy, R, const N: usize, F: FnMut(A) -> R> Lane<2> for UnaryLanes<A, R, N, F> {
    #[inline(always)]
    fn run(&mut self, [ba, bo]: [isize; 2], len: usize, [sa, so]: [isize; 2]) {
        let f = &mut self.f;
        // SAFETY: in-bounds lane offsets (`unary_map`'s contract).
        unsafe {
            let (pa, po) = (self.a.ptr.offset(ba), self.out.ptr.offset(bo));
            if sa == 1 && so == 1 {
                let o = core::slice::from_raw_parts_mut(po.cast::<MaybeUninit<R>>(), len);
                for (o, &x) in o.iter_mut().zip(core::slice::from_raw_parts(pa, len)) {
                    o.write(f(x));
                }
            } else {
                for i in 0..len as isize {
                    po.offset(i * so).write(f(*pa.offset(i * sa)));
                }
            }
        }
    }
}

/// `out[i] = f(pointer to a[i])` for every index of `shape`: for kernels that read a run of
/// elements from each position (a reduction along a lane).
///
/// # Safety
///
/// As for [`unary_map`]; `f` reads only memory the caller vouches for.
#[inline]
pub(crate) unsafe fn unary_map_ptr<A, R, const N: usize>(
    shape: [usize; N],
    a: Src<A, N>,
    out: Dst<R, N>,
    mut f: impl FnMut(*const A) -> R,
) {
    for_each_lane(shape, [a.strides, out.strides], |[ba, bo], len, [sa, so]| {
        for i in 0..len as isize {
            // The source pointer is only computed here (`wrapping_offset`): `f` decides whether
            // to read through it, so an empty source (a reduction over an empty axis) is fine.
            let src = a.ptr.wrapping_offset(ba + i * sa);
            // SAFETY: in-bounds output lane offsets (caller's contract).
            unsafe { out.ptr.offset(bo + i * so).write(f(src)) };
        }
    });
}

/// `f(&mut dst[i], src[i])` for every index of `shape`.
///
/// # Safety
///
/// `dst` elements are initialized, distinct per index, and overlap no `src` element read.
#[inline(always)]
pub(crate) unsafe fn update_with<T, U: Copy, const N: usize>(
    shape: [usize; N],
    dst: Dst<T, N>,
    src: Src<U, N>,
    f: impl FnMut(&mut T, U),
) {
    walk_lanes(shape, [dst.strides, src.strides], UpdateWithLanes { dst, src, f });
}

/// The lanes of [`update_with`].
struct UpdateWithLanes<T, U, const N: usize, F> {
    dst: Dst<T, N>,
    src: Src<U, N>,
    f: F,
}

impl<T, U: Copy, const N: usize, F: FnMut(&mut T, U)> Lane<2> for UpdateWithLanes<T, U, N, F> {
    #[inline(always)]
    fn run(&mut self, [bd, bs]: [isize; 2], len: usize, [sd, ss]: [isize; 2]) {
        let f = &mut self.f;
        // SAFETY: in-bounds lane offsets (`update_with`'s contract).
        unsafe {
            let (pd, ps) = (self.dst.ptr.offset(bd), self.src.ptr.offset(bs));
            match (sd, ss) {
                (1, 1) => {
                    let d = core::slice::from_raw_parts_mut(pd, len);
                    for (d, &x) in d.iter_mut().zip(core::slice::from_raw_parts(ps, len)) {
                        f(d, x);
                    }
                }
                (1, 0) => {
                    let x = *ps;
                    for d in core::slice::from_raw_parts_mut(pd, len) {
                        f(d, x);
                    }
                }
                _ => {
                    for i in 0..len as isize {
                        f(&mut *pd.offset(i * sd), *ps.offset(i * ss));
                    }
                }
            }
        }
    }
}

/// `f(&mut dst[i])` for every index of `shape`.
///
/// # Safety
///
/// `dst` elements are initialized and distinct per index.
#[inline(always)]
pub(crate) unsafe fn update<T, const N: usize>(shape: [usize; N], dst: Dst<T, N>, f: impl FnMut(&mut T)) {
    walk_lanes(shape, [dst.strides], UpdateLanes { dst, f });
}

/// The lanes of [`update`].
struct UpdateLanes<T, const N: usize, F> {
    dst: Dst<T, N>,
    f: F,
}

impl<T, const N: usize, F: FnMut(&mut T)> Lane<1> for UpdateLanes<T, N, F> {
    #[inline(always)]
    fn run(&mut self, [bd]: [isize; 1], len: usize, [sd]: [isize; 1]) {
        let f = &mut self.f;
        // SAFETY: in-bounds lane offsets (`update`'s contract).
        unsafe {
            let pd = self.dst.ptr.offset(bd);
            if sd == 1 {
                core::slice::from_raw_parts_mut(pd, len).iter_mut().for_each(f);
            } else {
                for i in 0..len as isize {
                    f(&mut *pd.offset(i * sd));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lanes<const N: usize, const K: usize>(shape: [usize; N], strides: [[isize; N]; K]) -> Vec<([isize; K], usize)> {
        let mut out = Vec::new();
        for_each_lane(shape, strides, |b, len, _| out.push((b, len)));
        out
    }

    #[test]
    fn contiguous_operands_make_one_lane() {
        assert_eq!(lanes([3, 4], [[4, 1], [4, 1]]), vec![([0, 0], 12)]);
    }

    #[test]
    fn a_transposed_operand_keeps_rows_apart() {
        assert_eq!(lanes([2, 3], [[3, 1], [1, 2]]), vec![([0, 0], 3), ([3, 1], 3)]);
    }

    #[test]
    fn broadcast_rows_merge_only_where_uniform() {
        // Operand 1 repeats one row: the lanes stay rows.
        assert_eq!(lanes([2, 3], [[3, 1], [0, 1]]), vec![([0, 0], 3), ([3, 0], 3)]);
        assert!(lanes([0, 3], [[3, 1]]).is_empty());
        assert_eq!(lanes::<0, 1>([], [[]]), vec![([0], 1)]);
    }
}
