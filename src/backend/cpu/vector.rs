//! The CPU's vector kernels for the solvers, one pass each: the inner product (blocks of 512
//! products summed in vector registers (`block_dot`), blocks combined pairwise by a binary
//! counter, so the rounding error grows with the logarithm of the length) and `y = a x + b y`.

use super::block_dot::block_dot;
use super::lanes::{walk_lanes, Lane};
use super::simd::{Isa, Kernel};
use crate::element::Float;
use crate::error::Result;
use crate::kernel::{Cpu, Desc, VectorKernels};

/// Products per block, summed by [`block_dot`] before the pairwise combination (a block of `y`
/// stays in the level-1 cache between its update and its sum of squares).
const BLOCK: usize = 512;

// SAFETY: `dot` reads only the elements `x` and `y` address, `axpby` writes only `y`'s and
// `axpy_xpby` only `x`'s and `p`'s, through the lane engine over their shape, and all return
// after their writes.
unsafe impl VectorKernels for Cpu {
    #[inline]
    unsafe fn dot<T: Float, const N: usize>(
        _: &Cpu,
        x: Desc<Cpu, T, N>,
        y: Desc<Cpu, T, N>,
        _: Desc<Cpu, T, N>,
    ) -> Result<T> {
        // SAFETY: the trait's contract for `dot` is the kernel's.
        Ok(unsafe { Isa::detect().run(DotCall { x, y }) })
    }

    #[inline]
    unsafe fn axpby<T: Float, const N: usize>(
        _: &Cpu,
        a: T,
        x: Desc<Cpu, T, N>,
        b: T,
        y: Desc<Cpu, T, N>,
        _: Desc<Cpu, T, N>,
    ) -> Result<()> {
        // SAFETY: the trait's contract for `axpby` is the kernel's.
        unsafe { Isa::detect().run(AxpbyCall { a, x, b, y, sums: None }) };
        Ok(())
    }

    #[inline]
    unsafe fn axpby_sumsq<T: Float, const N: usize>(
        _: &Cpu,
        a: T,
        x: Desc<Cpu, T, N>,
        b: T,
        y: Desc<Cpu, T, N>,
        _: Desc<Cpu, T, N>,
    ) -> Result<T> {
        // SAFETY: the trait's contract for `axpby_sumsq` (`axpby`'s) is the kernel's.
        Ok(unsafe { Isa::detect().run(AxpbyCall { a, x, b, y, sums: Some(Pairwise::new()) }) })
    }

    #[inline]
    unsafe fn axpy_xpby<T: Float, const N: usize>(
        _: &Cpu,
        a: T,
        p: Desc<Cpu, T, N>,
        x: Desc<Cpu, T, N>,
        b: T,
        r: Desc<Cpu, T, N>,
        _: Desc<Cpu, T, N>,
    ) -> Result<()> {
        // SAFETY: the trait's contract for `axpy_xpby` is the kernel's.
        unsafe { Isa::detect().run(AxpyXpbyCall { a, p, x, b, r }) };
        Ok(())
    }
}

/// `x = a p + x`, then `p = r + b p`, per element in one pass.
struct AxpyXpbyCall<T: Float, const N: usize> {
    a: T,
    p: Desc<Cpu, T, N>,
    x: Desc<Cpu, T, N>,
    b: T,
    r: Desc<Cpu, T, N>,
}

impl<T: Float, const N: usize> Kernel for AxpyXpbyCall<T, N> {
    type Output = ();

    #[inline(always)]
    unsafe fn run<S: pulp::Simd>(self, _: S) {
        let AxpyXpbyCall { a, p, x, b, r } = self;
        let lanes = AxpyXpbyLanes { a, p: p.handle, x: x.handle, b, r: r.handle.cast_const() };
        walk_lanes(p.shape, [p.strides, x.strides, r.strides], lanes);
    }
}

/// The lanes of `x = a p + x; p = r + b p` (a lane type, not a closure, so that it is compiled
/// for the kernel's instruction set).
struct AxpyXpbyLanes<T> {
    a: T,
    p: *mut T,
    x: *mut T,
    b: T,
    r: *const T,
}

impl<T: Float> Lane<3> for AxpyXpbyLanes<T> {
    #[inline(always)]
    fn run(&mut self, [bp, bx, br]: [isize; 3], len: usize, [sp, sx, sr]: [isize; 3]) {
        let (a, b) = (self.a, self.b);
        // SAFETY: the lane's offsets are in bounds for the three operands; `p` and `x` are
        // distinct writable elements that overlap each other and `r` nowhere (the kernel's
        // contract).
        unsafe {
            let (pp, px, pr) = (self.p.offset(bp), self.x.offset(bx), self.r.offset(br));
            if sp == 1 && sx == 1 && sr == 1 {
                let ps = core::slice::from_raw_parts_mut(pp, len);
                let xs = core::slice::from_raw_parts_mut(px, len);
                let rs = core::slice::from_raw_parts(pr, len);
                for ((pv, xv), &rv) in ps.iter_mut().zip(xs).zip(rs) {
                    *xv = a * *pv + *xv;
                    *pv = rv + b * *pv;
                }
            } else {
                for i in 0..len as isize {
                    let (pv, xv) = (pp.offset(i * sp), px.offset(i * sx));
                    *xv = a * *pv + *xv;
                    *pv = *pr.offset(i * sr) + b * *pv;
                }
            }
        }
    }
}

/// Sums pushed in order, combined as a balanced binary tree (a binary counter of partial sums):
/// pairwise summation without storing the leaves.
struct Pairwise<T> {
    levels: [T; 64],
    filled: u64,
}

impl<T: Float> Pairwise<T> {
    fn new() -> Self {
        Pairwise { levels: [T::ZERO; 64], filled: 0 }
    }

    #[inline(always)]
    fn push(&mut self, mut v: T) {
        let mut level = 0;
        while self.filled & (1 << level) != 0 {
            v = self.levels[level] + v;
            self.filled &= !(1 << level);
            level += 1;
        }
        self.levels[level] = v;
        self.filled |= 1 << level;
    }

    fn total(&self) -> T {
        (0..64).rev().filter(|l| self.filled & (1 << l) != 0).fold(T::ZERO, |s, l| s + self.levels[l])
    }
}

struct DotCall<T: Float, const N: usize> {
    x: Desc<Cpu, T, N>,
    y: Desc<Cpu, T, N>,
}

impl<T: Float, const N: usize> Kernel for DotCall<T, N> {
    type Output = T;

    #[inline(always)]
    unsafe fn run<S: pulp::Simd>(self, simd: S) -> T {
        let DotCall { x, y } = self;
        let mut lanes = DotLanes { simd, x: x.handle.cast_const(), y: y.handle.cast_const(), sums: Pairwise::new() };
        walk_lanes(x.shape, [x.strides, y.strides], &mut lanes);
        lanes.sums.total()
    }
}

/// The lanes of a dot product, each cut into blocks.
struct DotLanes<S, T> {
    simd: S,
    x: *const T,
    y: *const T,
    sums: Pairwise<T>,
}

impl<S: pulp::Simd, T: Float> Lane<2> for &mut DotLanes<S, T> {
    #[inline(always)]
    fn run(&mut self, [bx, by]: [isize; 2], len: usize, [sx, sy]: [isize; 2]) {
        // SAFETY: the lane's offsets are in bounds for both operands (the kernel's contract).
        unsafe {
            let (px, py) = (self.x.offset(bx), self.y.offset(by));
            if sx == 1 && sy == 1 {
                let (xs, ys) = (core::slice::from_raw_parts(px, len), core::slice::from_raw_parts(py, len));
                for (a, b) in xs.chunks(BLOCK).zip(ys.chunks(BLOCK)) {
                    self.sums.push(block_dot(self.simd, a, b));
                }
            } else {
                for start in (0..len).step_by(BLOCK) {
                    let s = (start..(start + BLOCK).min(len))
                        .fold(T::ZERO, |s, i| s + *px.offset(i as isize * sx) * *py.offset(i as isize * sy));
                    self.sums.push(s);
                }
            }
        }
    }
}

/// `y = a x + b y`, and with `sums` the sum of the new `y`'s squares, block by block as `dot`
/// sums (each block summed while it is in cache: one pass over memory).
struct AxpbyCall<T: Float, const N: usize> {
    a: T,
    x: Desc<Cpu, T, N>,
    b: T,
    y: Desc<Cpu, T, N>,
    sums: Option<Pairwise<T>>,
}

impl<T: Float, const N: usize> Kernel for AxpbyCall<T, N> {
    type Output = T;

    #[inline(always)]
    unsafe fn run<S: pulp::Simd>(self, simd: S) -> T {
        let AxpbyCall { a, x, b, y, sums } = self;
        let mut lanes = AxpbyLanes { simd, a, x: x.handle.cast_const(), b, y: y.handle, sums };
        walk_lanes(y.shape, [y.strides, x.strides], &mut lanes);
        lanes.sums.map_or(T::ZERO, |s| s.total())
    }
}

/// The lanes of `y = a x + b y` (and of the new `y`'s squares, with `sums`).
struct AxpbyLanes<S, T> {
    simd: S,
    a: T,
    x: *const T,
    b: T,
    y: *mut T,
    sums: Option<Pairwise<T>>,
}

impl<S: pulp::Simd, T: Float> Lane<2> for &mut AxpbyLanes<S, T> {
    #[inline(always)]
    fn run(&mut self, [by, bx]: [isize; 2], len: usize, [sy, sx]: [isize; 2]) {
        let (a, b) = (self.a, self.b);
        // SAFETY: the lane's offsets are in bounds; `y`'s elements are distinct, writable and
        // overlap no element of `x` (the kernel's contract).
        unsafe {
            let (py, px) = (self.y.offset(by), self.x.offset(bx));
            if sy == 1 && sx == 1 {
                let (ys, xs) = (core::slice::from_raw_parts_mut(py, len), core::slice::from_raw_parts(px, len));
                for (yb, xb) in ys.chunks_mut(BLOCK).zip(xs.chunks(BLOCK)) {
                    for (v, &u) in yb.iter_mut().zip(xb) {
                        *v = a * u + b * *v;
                    }
                    if let Some(sums) = &mut self.sums {
                        sums.push(block_dot(self.simd, yb, yb));
                    }
                }
            } else {
                for start in (0..len).step_by(BLOCK) {
                    let mut s = T::ZERO;
                    for i in start as isize..(start + BLOCK).min(len) as isize {
                        let v = py.offset(i * sy);
                        *v = a * *px.offset(i * sx) + b * *v;
                        s = s + *v * *v;
                    }
                    if let Some(sums) = &mut self.sums {
                        sums.push(s);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Pairwise;
    use crate::array::Array;
    use crate::kernel::{Cpu, VectorKernels};

    /// On unit-stride, strided and transposed operands: `axpby` is the naive `a x + b y` bit for
    /// bit, `dot` the naive sum to rounding.
    #[test]
    fn axpby_and_dot_match_naive_loops_on_any_strides() {
        let x = Array::from_fn([37, 300], |[i, j]| ((i * 300 + j) % 97) as f64 * 0.37 - 11.0);
        let y0 = Array::from_fn([37, 300], |[i, j]| ((i * 13 + j * 7) % 89) as f64 * 0.11 + 0.5);
        let (a, b) = (0.3, -1.7);
        for case in 0..3 {
            let mut y = y0.clone();
            let (xd, yd, shape) = match case {
                0 => (x.desc(), y.desc_mut(), [37, 300]),
                1 => (x.desc().narrowed(1, 3, 100), y.desc_mut().narrowed(1, 5, 100), [37, 100]),
                _ => {
                    // Both transposed: columns become lanes of stride 300.
                    let (mut xd, mut yd) = (x.desc(), y.desc_mut());
                    (xd.shape, xd.strides, yd.shape, yd.strides) = ([300, 37], [1, 300], [300, 37], [1, 300]);
                    (xd, yd, [300, 37])
                }
            };
            let at = |d: &crate::kernel::Desc<Cpu, f64, 2>, (i, j): (usize, usize)| {
                // SAFETY: `(i, j)` lies within the descriptor's shape, whose elements belong to
                // a live array.
                unsafe { *d.handle.offset(i as isize * d.strides[0] + j as isize * d.strides[1]) }
            };
            let points = || (0..shape[0]).flat_map(|i| (0..shape[1]).map(move |j| (i, j)));
            let naive_dot: f64 = points().map(|p| at(&xd, p) * at(&yd, p)).sum();
            let mut scratch = Array::<f64, 2>::zeros(shape);
            let sd = scratch.desc_mut();
            // SAFETY: both descriptors address elements of live arrays; the scratch is a third.
            let dot = unsafe { Cpu::dot(&Cpu, xd, yd, sd) }.unwrap();
            assert!((dot - naive_dot).abs() <= 1e-12 * naive_dot.abs().max(1.0), "case {case}: {dot} {naive_dot}");
            let expected: Vec<f64> = points().map(|p| a * at(&xd, p) + b * at(&yd, p)).collect();
            // SAFETY: `y` is uniquely borrowed and distinct from `x` and the scratch.
            unsafe { Cpu::axpby(&Cpu, a, xd, b, yd, sd) }.unwrap();
            let got: Vec<f64> = points().map(|p| at(&yd, p)).collect();
            assert_eq!(got, expected, "case {case}");
            // Fused with the sum of the new values' squares: the same bits, and the sum.
            let expected: Vec<f64> = points().map(|p| b * at(&xd, p) + a * at(&yd, p)).collect();
            let naive_squares: f64 = expected.iter().map(|v| v * v).sum();
            // SAFETY: as above.
            let squares = unsafe { Cpu::axpby_sumsq(&Cpu, b, xd, a, yd, sd) }.unwrap();
            let got: Vec<f64> = points().map(|p| at(&yd, p)).collect();
            assert_eq!(got, expected, "case {case}: axpby_sumsq");
            assert!((squares - naive_squares).abs() <= 1e-12 * naive_squares, "case {case}: {squares} {naive_squares}");
        }
    }

    /// `axpy_xpby` is `axpby` twice (the iterate, then the direction) bit for bit, on unit-stride
    /// and strided operands.
    #[test]
    fn the_fused_iterate_and_direction_update_is_two_axpbys() {
        let p0 = Array::from_fn([23, 310], |[i, j]| ((i * 310 + j) % 97) as f64 * 0.37 - 11.0);
        let x0 = Array::from_fn([23, 310], |[i, j]| ((i * 13 + j * 7) % 89) as f64 * 0.11 + 0.5);
        let r = Array::from_fn([23, 310], |[i, j]| ((i * 5 + j * 3) % 31) as f64 * 0.7 - 9.0);
        let (a, b) = (0.3, -1.7);
        for strided in [false, true] {
            let narrow = |d: crate::kernel::Desc<Cpu, f64, 2>| if strided { d.narrowed(1, 4, 150) } else { d };
            let (mut p, mut x, mut q, mut y) = (p0.clone(), x0.clone(), p0.clone(), x0.clone());
            let mut scratch = Array::<f64, 2>::zeros([23, 310]);
            let sd = narrow(scratch.desc_mut());
            // SAFETY: distinct live arrays; `p`, `x`, `q` and `y` uniquely borrowed.
            unsafe {
                Cpu::axpy_xpby(&Cpu, a, narrow(p.desc_mut()), narrow(x.desc_mut()), b, narrow(r.desc()), sd).unwrap();
                Cpu::axpby(&Cpu, a, narrow(q.desc()), 1.0, narrow(y.desc_mut()), sd).unwrap();
                Cpu::axpby(&Cpu, 1.0, narrow(r.desc()), b, narrow(q.desc_mut()), sd).unwrap();
            }
            assert_eq!((&x, &p), (&y, &q), "strided: {strided}");
            assert_ne!(p, p0);
        }
    }

    /// The counter combines as a balanced tree: 2^k equal terms sum exactly, and any count sums
    /// every term once.
    #[test]
    fn the_binary_counter_sums_every_term_once_as_a_tree() {
        for n in [0usize, 1, 2, 3, 7, 8, 100, 1025] {
            let mut p = Pairwise::<f64>::new();
            (1..=n).for_each(|i| p.push(i as f64));
            assert_eq!(p.total(), (n * (n + 1) / 2) as f64, "{n}");
        }
        // 2^24 + 1 ones in f32: a running sum stalls at 2^24, the tree does not.
        let mut p = Pairwise::<f32>::new();
        (0..(1 << 24) + 8).for_each(|_| p.push(1.0));
        assert_eq!(p.total(), (1u32 << 24) as f32 + 8.0);
    }
}
