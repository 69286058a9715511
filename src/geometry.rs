//! View algebra as metadata math: every view operation maps (offset, shape, strides) to new
//! (offset, shape, strides), here and nowhere else. No function in this file touches elements, and
//! nothing here knows about backends, so arrays, views and device arrays all share it.
//!
//! Overflow: offsets are computed with wrapping arithmetic through [`moved`]. For a non-empty
//! result every element lies in the source's memory, whose offsets fit `isize`, so the wrapped
//! value is exact; an empty result's offset is never used (`RawParts::remap` keeps the source's
//! pointer). Element counts are checked where a result is described (`RawParts::remap`), so a
//! broadcast to a shape whose product overflows is `Error::Overflow`. Positions and counts of
//! slices are resolved in `i128`, where `isize` and `usize` bounds cannot overflow.

use crate::error::Error;
use crate::slice::AxisSlice;

/// Where a view's elements are, relative to the first element of its source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Geometry<const N: usize> {
    /// Element offset of the new first element from the old one.
    pub(crate) offset: isize,
    pub(crate) shape: [usize; N],
    pub(crate) strides: [isize; N],
}

impl<const N: usize> Geometry<N> {
    pub(crate) fn new(shape: [usize; N], strides: [isize; N]) -> Self {
        Self { offset: 0, shape, strides }
    }

    /// The metadata layout `L` stores for this geometry.
    ///
    /// # Errors
    ///
    /// `Error::Layout` when `L` cannot express the strides.
    pub(crate) fn meta<L: crate::layout::Layout>(&self) -> Result<L::Strides<N>, Error> {
        L::from_strides(&self.shape, &self.strides).ok_or_else(|| Error::Layout {
            op: "view",
            reason: format!("shape {:?} with strides {:?} is not a {} block", self.shape, self.strides, L::NAME),
            fix: "keep the view `Strided` (`into_strided`), or copy it with `contiguous()`",
        })
    }

    fn check_axis(&self, op: &'static str, axis: usize) -> Result<(), Error> {
        if axis < N {
            Ok(())
        } else {
            Err(Error::AxisOutOfRange { op, axis, rank: N })
        }
    }

    /// Axes `a` and `b` swapped.
    pub(crate) fn transposed(mut self, a: usize, b: usize) -> Result<Self, Error> {
        self.check_axis("transpose", a)?;
        self.check_axis("transpose", b)?;
        self.shape.swap(a, b);
        self.strides.swap(a, b);
        Ok(self)
    }

    /// Axis `k` of the result is axis `axes[k]` of `self`.
    pub(crate) fn permuted(self, axes: [usize; N]) -> Result<Self, Error> {
        let mut seen = [false; N];
        for &axis in &axes {
            if axis >= N || seen[axis] {
                return Err(Error::InvalidAxes { op: "permute", axes: axes.to_vec(), rank: N });
            }
            seen[axis] = true;
        }
        Ok(Self {
            offset: self.offset,
            shape: axes.map(|axis| self.shape[axis]),
            strides: axes.map(|axis| self.strides[axis]),
        })
    }

    /// `len` elements of axis `axis` from `start`.
    pub(crate) fn narrowed(mut self, axis: usize, start: usize, len: usize) -> Result<Self, Error> {
        self.check_axis("narrow", axis)?;
        let size = self.shape[axis];
        match start.checked_add(len) {
            Some(end) if end <= size => {}
            _ => {
                let end = start.saturating_add(len);
                return Err(Error::Range { op: "narrow", axis, start: start as isize, end: end as isize, size });
            }
        }
        self.offset = moved(self.offset, start, self.strides[axis]);
        self.shape[axis] = len;
        Ok(self)
    }

    /// Axis `axis` walked backwards.
    pub(crate) fn flipped(mut self, axis: usize) -> Result<Self, Error> {
        self.check_axis("flip", axis)?;
        if self.shape[axis] > 0 {
            self.offset = moved(self.offset, self.shape[axis] - 1, self.strides[axis]);
        }
        self.strides[axis] = self.strides[axis].wrapping_neg();
        Ok(self)
    }

    /// The two parts of axis `axis` before and from `index`.
    pub(crate) fn split(self, axis: usize, index: usize) -> Result<(Self, Self), Error> {
        self.check_axis("split_at", axis)?;
        let size = self.shape[axis];
        if index > size {
            return Err(Error::Range { op: "split_at", axis, start: index as isize, end: size as isize, size });
        }
        let mut first = self;
        first.shape[axis] = index;
        let mut second = self;
        second.shape[axis] = size - index;
        second.offset = moved(self.offset, index, self.strides[axis]);
        Ok((first, second))
    }

    /// The sub-array at position `index` of axis `axis`, one rank lower.
    pub(crate) fn indexed<const M: usize>(self, axis: usize, index: usize) -> Result<Geometry<M>, Error> {
        debug_assert_eq!(M + 1, N);
        self.check_axis("index_axis", axis)?;
        if index >= self.shape[axis] {
            return Err(Error::IndexOutOfBounds { axis, index, size: self.shape[axis] });
        }
        let (shape, strides) = remove_axis(&self.shape, &self.strides, axis);
        Ok(Geometry { offset: moved(self.offset, index, self.strides[axis]), shape, strides })
    }

    /// Axis `axis`, of length 1, removed.
    pub(crate) fn squeezed<const M: usize>(self, axis: usize) -> Result<Geometry<M>, Error> {
        debug_assert_eq!(M + 1, N);
        self.check_axis("squeeze", axis)?;
        if self.shape[axis] != 1 {
            return Err(Error::Layout {
                op: "squeeze",
                reason: format!("axis {axis} of shape {:?} has length {}, not 1", self.shape, self.shape[axis]),
                fix: "squeeze only axes of length 1, or select one position with `index_axis`",
            });
        }
        let (shape, strides) = remove_axis(&self.shape, &self.strides, axis);
        Ok(Geometry { offset: self.offset, shape, strides })
    }

    /// A new axis of length 1 before `axis` (`axis == N` appends).
    pub(crate) fn unsqueezed<const M: usize>(self, axis: usize) -> Result<Geometry<M>, Error> {
        debug_assert_eq!(N + 1, M);
        if axis > N {
            return Err(Error::AxisOutOfRange { op: "unsqueeze", axis, rank: M });
        }
        let mut shape = [1; M];
        let mut strides = [0; M];
        for k in 0..N {
            let dst = if k < axis { k } else { k + 1 };
            shape[dst] = self.shape[k];
            strides[dst] = self.strides[k];
        }
        // The stride a dense layout would give the new axis, so dense views stay dense (a unit
        // axis's stride never moves a pointer, so wrapping cannot matter).
        strides[axis] = if axis < N { moved(0, self.shape[axis], self.strides[axis]) } else { 1 };
        Ok(Geometry { offset: self.offset, shape, strides })
    }

    /// Broadcast to `target` (NumPy rules: trailing axes aligned, length-1 axes stretched with
    /// stride 0, new leading axes of stride 0).
    pub(crate) fn broadcast<const M: usize>(self, target: [usize; M]) -> Result<Geometry<M>, Error> {
        debug_assert!(M >= N);
        let lead = M - N;
        let mut strides = [0isize; M];
        for k in 0..N {
            let (from, to) = (self.shape[k], target[lead + k]);
            strides[lead + k] = if from == to {
                self.strides[k]
            } else if from == 1 {
                0
            } else {
                return Err(Error::Broadcast {
                    from: self.shape.to_vec(),
                    to: target.to_vec(),
                    axis: lead + k,
                    from_size: from,
                    to_size: to,
                });
            };
        }
        Ok(Geometry { offset: self.offset, shape: target, strides })
    }

    /// The same elements in row-major order under `target`, without copying (NumPy's no-copy
    /// reshape): fails when the strides cannot express it.
    pub(crate) fn reshaped<const M: usize>(self, target: [usize; M]) -> Result<Geometry<M>, Error> {
        let len = crate::shape::element_count(&self.shape).unwrap_or(usize::MAX);
        let target_len = crate::shape::element_count(&target);
        if target_len != Some(len) {
            return Err(Error::LengthMismatch {
                op: "reshape",
                shape: target.to_vec(),
                expected: target_len.unwrap_or(usize::MAX),
                got: len,
            });
        }
        let strides = reshape_strides(&self.shape, &self.strides, &target).ok_or_else(|| Error::Layout {
            op: "reshape",
            reason: format!(
                "shape {:?} with strides {:?} cannot be read as {target:?} in row-major order without copying",
                self.shape, self.strides
            ),
            fix: "call `.contiguous()` first (it copies), then reshape",
        })?;
        Ok(Geometry { offset: self.offset, shape: target, strides })
    }

    /// The region selected by one `AxisSlice` per axis; index items drop their axis.
    pub(crate) fn sliced<const M: usize>(self, items: &[AxisSlice; N]) -> Result<Geometry<M>, Error> {
        let mut out = Geometry { offset: self.offset, shape: [0; M], strides: [0; M] };
        let mut kept = 0;
        for (axis, &item) in items.iter().enumerate() {
            let stride = self.strides[axis];
            let p = Positions::of(axis, item, self.shape[axis])?;
            out.offset = moved(out.offset, p.first, stride);
            // An index item drops its axis; a range keeps it.
            if let AxisSlice::Range { .. } = item {
                debug_assert!(kept < M, "s! counts kept axes");
                out.shape[kept] = p.count;
                // With two or more positions, |step| < size, so the product lies within the
                // source's memory; with fewer the stride is never used to move.
                out.strides[kept] = stride.wrapping_mul(p.step);
                kept += 1;
            }
        }
        debug_assert_eq!(kept, M);
        Ok(out)
    }
}

/// The shape two operands broadcast to, NumPy-style (trailing axes aligned): the rule of binary
/// ops, beside `Geometry::broadcast`, the rule of one operand stretched to a given shape.
pub(crate) fn broadcast_shapes<const N: usize, const M: usize, const K: usize>(
    a: [usize; N],
    b: [usize; M],
) -> Result<[usize; K], Error> {
    let mut out = [1usize; K];
    for k in 0..K {
        let x = if k + N >= K { a[k + N - K] } else { 1 };
        let y = if k + M >= K { b[k + M - K] } else { 1 };
        out[k] = match (x, y) {
            _ if x == y => x,
            (1, _) => y,
            (_, 1) => x,
            _ => {
                return Err(Error::BroadcastOperands {
                    lhs: a.to_vec(),
                    rhs: b.to_vec(),
                    axis: k,
                    lhs_size: x,
                    rhs_size: y,
                })
            }
        };
    }
    Ok(out)
}

/// The same walk over `K` operands with fewer axes: adjacent axes merge wherever every operand
/// steps through them uniformly (`strides[a] == strides[a + 1] * shape[a + 1]`), and size-1 axes
/// drop out. The result is right-aligned: merged axes become leading axes of size 1 and stride 0,
/// so the rank stays `N` and a fully contiguous walk is one axis. Element order is unchanged.
pub(crate) fn merge_axes<const N: usize, const K: usize>(
    shape: [usize; N],
    strides: [[isize; N]; K],
) -> ([usize; N], [[isize; N]; K]) {
    let mut out_shape = [1usize; N];
    let mut out_strides = [[0isize; N]; K];
    if shape.contains(&0) {
        return (shape, strides);
    }
    // Walk from the last axis, extending the current output axis while every operand steps
    // uniformly from it into the next axis out.
    let mut at = N;
    for axis in (0..N).rev() {
        if shape[axis] == 1 {
            continue;
        }
        let extends =
            at < N && (0..K).all(|k| strides[k][axis] == out_strides[k][at].wrapping_mul(out_shape[at] as isize));
        if extends {
            out_shape[at] *= shape[axis];
        } else {
            at -= 1;
            out_shape[at] = shape[axis];
            for k in 0..K {
                out_strides[k][at] = strides[k][axis];
            }
        }
    }
    (out_shape, out_strides)
}

/// The positions one slice item selects on an axis of `size` elements: `first + k * step` for
/// `k < count`, in source index space.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Positions {
    first: usize,
    count: usize,
    step: isize,
}

impl Positions {
    /// The positions `item` selects on an axis of `size` elements.
    ///
    /// # Errors
    ///
    /// As for `Geometry::sliced`.
    pub(crate) fn of(axis: usize, item: AxisSlice, size: usize) -> Result<Self, Error> {
        match item {
            AxisSlice::Index(index) => {
                let first = resolve_index(index, size).ok_or(Error::Range {
                    op: "slice",
                    axis,
                    start: index,
                    end: index.saturating_add(1),
                    size,
                })?;
                Ok(Positions { first, count: 1, step: 1 })
            }
            AxisSlice::Range { start, end, step } => {
                let (first, count, step) = resolve_range(axis, start, end, step, size)?;
                Ok(Positions { first, count, step })
            }
        }
    }

    /// Lowest and highest position and the step's magnitude, or `None` when empty.
    fn span(self) -> Option<(i128, i128, i128)> {
        if self.count == 0 {
            return None;
        }
        let last = self.first as i128 + (self.count as i128 - 1) * self.step as i128;
        let (lo, hi) = if self.step > 0 { (self.first as i128, last) } else { (last, self.first as i128) };
        Some((lo, hi, self.step.unsigned_abs() as i128))
    }

    /// Whether the two selections provably share no position: one is empty, their ranges do not
    /// overlap, or they lie on residues that never meet (`a ≡ b` fails modulo the gcd of the
    /// steps, as for the red and black rows `0..;2` and `1..;2`). Conservative: other disjoint
    /// pairs (rare) are reported as overlapping.
    pub(crate) fn disjoint(self, other: Positions) -> bool {
        let (Some((lo1, hi1, s1)), Some((lo2, hi2, s2))) = (self.span(), other.span()) else {
            return true;
        };
        if hi1 < lo2 || hi2 < lo1 {
            return true;
        }
        let (s1, s2) = (if lo1 == hi1 { 0 } else { s1 }, if lo2 == hi2 { 0 } else { s2 });
        let g = gcd(s1, s2);
        g != 0 && (lo1 - lo2).rem_euclid(g) != 0
    }
}

fn gcd(a: i128, b: i128) -> i128 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// `offset + index * stride`, wrapping (see the module documentation on overflow).
#[inline]
fn moved(offset: isize, index: usize, stride: isize) -> isize {
    offset.wrapping_add((index as isize).wrapping_mul(stride))
}

/// `shape` and `strides` without axis `axis` (which the caller has checked is below `N`).
pub(crate) fn remove_axis<const N: usize, const M: usize>(
    shape: &[usize; N],
    strides: &[isize; N],
    axis: usize,
) -> ([usize; M], [isize; M]) {
    let mut out_shape = [0; M];
    let mut out_strides = [0; M];
    for (k, src) in (0..N).filter(|&k| k != axis).enumerate() {
        out_shape[k] = shape[src];
        out_strides[k] = strides[src];
    }
    (out_shape, out_strides)
}

/// A possibly negative index (from the end) as a position below `size`.
fn resolve_index(index: isize, size: usize) -> Option<usize> {
    let size = size as i128;
    let i = if index < 0 { index as i128 + size } else { index as i128 };
    (0..size).contains(&i).then_some(i as usize)
}

/// First position, element count and step of `start..end;step` on an axis of `size` elements.
/// A negative step walks the range from its back end.
fn resolve_range(
    axis: usize,
    start: isize,
    end: Option<isize>,
    step: isize,
    size: usize,
) -> Result<(usize, usize, isize), Error> {
    if step == 0 {
        return Err(Error::ZeroStep { axis });
    }
    // In i128, so that `usize` sizes, `isize` bounds and `isize::MIN` steps cannot overflow.
    let n = size as i128;
    let resolve = |b: isize| if b < 0 { b as i128 + n } else { b as i128 };
    let (lo, hi) = (resolve(start), end.map_or(n, resolve));
    if !((0..=n).contains(&lo) && (0..=n).contains(&hi)) {
        let end = end.unwrap_or(isize::try_from(size).unwrap_or(isize::MAX));
        return Err(Error::Range { op: "slice", axis, start, end, size });
    }
    // A reversed range (`1..-1` on an axis of length 1) is empty, as in NumPy: stencil code
    // taking the interior `s![1..-1, 1..-1]` of a thin grid gets an empty view, not an error.
    let hi = hi.max(lo);
    let magnitude = step.unsigned_abs() as i128;
    let count = (hi - lo + magnitude - 1) / magnitude;
    let first = if step > 0 || count == 0 { lo } else { hi - 1 };
    Ok((first as usize, count as usize, step))
}

/// NumPy's no-copy reshape: groups of old axes whose product equals a group of new axes must be
/// contiguous among themselves; the new strides then follow from the group's innermost stride.
fn reshape_strides<const N: usize, const M: usize>(
    shape: &[usize; N],
    strides: &[isize; N],
    target: &[usize; M],
) -> Option<[isize; M]> {
    let mut out = [0isize; M];
    if shape.contains(&0) {
        // No element is ever addressed: any strides do; use row-major ones.
        return Some(crate::shape::row_major_strides(target));
    }
    let old: Vec<(usize, isize)> =
        shape.iter().copied().zip(strides.iter().copied()).filter(|&(n, _)| n != 1).collect();
    let (mut oi, mut ni) = (0, 0);
    while oi < old.len() && ni < M {
        let (mut oj, mut nj) = (oi + 1, ni + 1);
        let (mut op, mut np) = (old[oi].0, target[ni]);
        while op != np {
            if np < op {
                np *= target[nj];
                nj += 1;
            } else {
                op *= old[oj].0;
                oj += 1;
            }
        }
        if (oi..oj - 1).any(|k| old[k].1 != old[k + 1].1 * old[k + 1].0 as isize) {
            return None;
        }
        out[nj - 1] = old[oj - 1].1;
        for k in (ni + 1..nj).rev() {
            out[k - 1] = out[k] * target[k] as isize;
        }
        oi = oj;
        ni = nj;
    }
    // Trailing axes of length 1 (the only ones left): give them the stride a dense layout would.
    for k in ni..M {
        out[k] = if k > 0 { out[k - 1] } else { 1 };
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shape::row_major_strides;

    fn g<const N: usize>(shape: [usize; N]) -> Geometry<N> {
        Geometry::new(shape, row_major_strides(&shape))
    }

    /// Every (index, offset per operand) a walk visits, in order.
    fn walk<const N: usize, const K: usize>(shape: [usize; N], strides: [[isize; N]; K]) -> Vec<[isize; K]> {
        let mut out = Vec::new();
        crate::backend::cpu::lanes::for_each_lane(shape, strides, |bases, len, steps| {
            for i in 0..len as isize {
                out.push(core::array::from_fn(|k| bases[k] + i * steps[k]));
            }
        });
        out
    }

    #[test]
    fn merged_axes_walk_the_same_offsets_in_the_same_order() {
        let cases: [([usize; 3], [[isize; 3]; 2]); 5] = [
            ([2, 3, 4], [[12, 4, 1], [12, 4, 1]]),  // both dense: one axis
            ([2, 3, 4], [[12, 4, 1], [0, 1, 0]]),   // a broadcast operand
            ([2, 3, 4], [[1, 2, 6], [12, 4, 1]]),   // transposed against dense
            ([2, 1, 4], [[4, 99, 1], [-4, 7, -1]]), // size-1 axis, flipped operand
            ([3, 2, 2], [[8, 2, 1], [4, 2, 1]]),    // stepped rows merge only inside
        ];
        for (shape, strides) in cases {
            let (ms, mst) = merge_axes(shape, strides);
            assert_eq!(walk(ms, mst), walk(shape, strides), "{shape:?} {strides:?}");
            assert_eq!(ms.iter().product::<usize>(), shape.iter().product::<usize>());
        }
        assert_eq!(merge_axes([2, 3, 4], [[12, 4, 1], [12, 4, 1]]).0, [1, 1, 24]);
        assert_eq!(merge_axes([3, 2, 2], [[8, 2, 1], [4, 2, 1]]).0, [1, 3, 4]);
        assert_eq!(merge_axes([2, 0, 4], [[0, 4, 1]]).0, [2, 0, 4]);
    }

    #[test]
    fn reshape_of_dense_is_dense() {
        let r = g([2, 3, 4]).reshaped([6, 4]).unwrap();
        assert_eq!(r.strides, [4, 1]);
        let r = g([6]).reshaped([1, 2, 1, 3]).unwrap();
        assert_eq!((r.shape, r.strides[1], r.strides[3]), ([1, 2, 1, 3], 3, 1));
    }

    #[test]
    fn reshape_of_transposed_fails_and_of_split_axis_works() {
        assert!(matches!(Geometry::new([4, 3], [1, 4]).reshaped([12]), Err(Error::Layout { .. })));
        // A column of every other row: strides [8, 1] on [3, 4] -> [3, 2, 2] keeps stride 8.
        let v = g([6, 4]).sliced::<2>(&[AxisSlice::Range { start: 0, end: None, step: 2 }, AxisSlice::FULL]).unwrap();
        let r = v.reshaped([3, 2, 2]).unwrap();
        assert_eq!(r.strides, [8, 2, 1]);
        assert!(matches!(g([2, 3]).reshaped([7]), Err(Error::LengthMismatch { .. })));
    }

    #[test]
    fn negative_steps_walk_from_the_back_of_the_range() {
        let s = g([5]).sliced::<1>(&[AxisSlice::Range { start: 0, end: None, step: -2 }]).unwrap();
        assert_eq!((s.offset, s.shape, s.strides), (4, [3], [-2]));
        let s = g([6]).sliced::<1>(&[AxisSlice::Range { start: 1, end: Some(-1), step: -1 }]).unwrap();
        assert_eq!((s.offset, s.shape, s.strides), (4, [4], [-1]));
    }

    #[test]
    fn bad_slices_are_errors() {
        let r = AxisSlice::Range { start: 2, end: Some(9), step: 1 };
        assert!(matches!(g([4]).sliced::<1>(&[r]), Err(Error::Range { axis: 0, size: 4, .. })));
        let z = AxisSlice::Range { start: 0, end: None, step: 0 };
        assert_eq!(g([4]).sliced::<1>(&[z]), Err(Error::ZeroStep { axis: 0 }));
        assert!(g([4]).sliced::<0>(&[AxisSlice::Index(-5)]).is_err());
        assert_eq!(g([4]).sliced::<0>(&[AxisSlice::Index(-1)]).unwrap().offset, 3);
    }

    #[test]
    fn broadcast_stretches_unit_axes_only() {
        let b = g([3, 1]).broadcast([2, 3, 4]).unwrap();
        assert_eq!(b.strides, [0, 1, 0]);
        assert!(matches!(g([3, 2]).broadcast([3, 4]), Err(Error::Broadcast { axis: 1, from_size: 2, to_size: 4, .. })));
    }

    #[test]
    fn positions_are_disjoint_when_ranges_or_residues_differ() {
        let r = |start, end, step| AxisSlice::Range { start, end, step };
        let p = |item| Positions::of(0, item, 10).unwrap();
        assert!(p(r(0, Some(5), 1)).disjoint(p(r(5, None, 1))));
        assert!(!p(r(0, Some(6), 1)).disjoint(p(r(5, None, 1))));
        assert!(p(r(0, None, 2)).disjoint(p(r(1, None, 2))), "red and black");
        assert!(!p(r(0, None, 2)).disjoint(p(r(0, None, 3))), "0 and 6 meet");
        assert!(p(r(1, None, 4)).disjoint(p(r(0, None, 2))));
        assert!(p(AxisSlice::Index(3)).disjoint(p(AxisSlice::Index(4))));
        assert!(!p(AxisSlice::Index(-1)).disjoint(p(r(0, None, -3))), "9 is in 9, 6, 3, 0");
        assert!(p(r(3, Some(3), 1)).disjoint(p(r(0, None, 1))), "empty");
    }

    #[test]
    fn shapes_broadcast_numpy_style() {
        assert_eq!(broadcast_shapes::<2, 1, 2>([4, 3], [3]), Ok([4, 3]));
        assert_eq!(broadcast_shapes::<2, 3, 3>([4, 1], [2, 1, 5]), Ok([2, 4, 5]));
        assert_eq!(broadcast_shapes::<0, 2, 2>([], [2, 2]), Ok([2, 2]));
        assert!(matches!(broadcast_shapes::<2, 2, 2>([4, 3], [4, 2]), Err(Error::BroadcastOperands { axis: 1, .. })));
    }

    #[test]
    fn permute_rejects_repeats() {
        assert!(matches!(g([2, 3, 4]).permuted([0, 0, 1]), Err(Error::InvalidAxes { .. })));
        assert_eq!(g([2, 3, 4]).permuted([2, 0, 1]).unwrap().shape, [4, 2, 3]);
    }
}
