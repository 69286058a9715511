//! The cases, each generic over the harness: shapes (empty, unit, square, tall, wide), the four
//! views, f32 and f64, against `reference`. Copies and views must match exactly; arithmetic
//! within a few ulps scaled to the operation (a device may fuse or reorder).

use cnda::prelude::*;
use cnda::stencil::{Boundary, LinearStencil, Scalar};
use cnda::GemmElement;

use crate::harness::{BinOp, Harness, Reduction, UnOp, View, VIEWS};
use crate::reference::{at, base_index, base_shape, close, eps, field, to_f64};

/// The shapes every case runs on (of the viewed operand).
/// The edge cases (empty either way, one element, square, tall, wide) and six random shapes up to
/// 40 x 40 from a seeded generator: `CNDA_CONFORMANCE_SEED` picks another seed, and every failure
/// message names its shape.
pub fn shapes() -> Vec<[usize; 2]> {
    let mut shapes = vec![[0, 3], [3, 0], [1, 1], [3, 5], [4, 4], [7, 3], [17, 9]];
    let seed = std::env::var("CNDA_CONFORMANCE_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(0x5eed_u64);
    let mut state = seed;
    let mut next = move || {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        1 + (state >> 33) as usize % 40
    };
    shapes.extend((0..6).map(|_| [next(), next()]));
    shapes
}

pub fn check_matrix<T: Float>(
    what: &str,
    got: &Array<T, 2>,
    want: impl Fn([usize; 2]) -> f64,
    shape: [usize; 2],
    rel: f64,
) {
    assert_eq!(got.shape(), shape, "{what}: shape");
    for (index, &x) in got.indexed_iter() {
        let w = want(index);
        assert!(close(x, w, rel, w.abs().max(1.0)), "{what}: at {index:?} got {} want {w}", to_f64(x));
    }
}

/// The indices of `shape` in row-major order.
fn indices([m, n]: [usize; 2]) -> impl Iterator<Item = [usize; 2]> {
    (0..m).flat_map(move |i| (0..n).map(move |j| [i, j]))
}

/// The whole base array `a` after a write through view `va` (of shape `shape`) that sets each
/// viewed element to `new(old value, index in the view)`; elements outside the view keep theirs.
fn after_write<T: Float>(
    a: &Array<T, 2>,
    va: View,
    shape: [usize; 2],
    new: impl Fn(f64, [usize; 2]) -> f64,
) -> Array<f64, 2> {
    let mut want = Array::from_fn(a.shape(), |ix| to_f64(a[ix]));
    for ix in indices(shape) {
        let at_base = base_index(a.shape(), va, ix);
        want[at_base] = new(want[at_base], ix);
    }
    want
}

fn apply_bin(op: BinOp, x: f64, y: f64) -> f64 {
    match op {
        BinOp::Add => x + y,
        BinOp::Sub => x - y,
        BinOp::Mul => x * y,
        BinOp::Div => x / y,
    }
}

/// The same operation rounded to `T` (what an exact elementwise kernel returns).
pub fn rounded<T: Float>(x: f64) -> f64 {
    to_f64(T::from_f64(x))
}

pub fn binary<H: Harness>() {
    binary_for::<H, f32>();
    if H::supports_f64() {
        binary_for::<H, f64>();
    }
}

fn binary_for<H: Harness, T: Float>() {
    for (k, &shape) in shapes().iter().enumerate() {
        for va in VIEWS {
            for vb in VIEWS {
                let a = field::<T>(base_shape(shape, va), k as u64);
                let b = field::<T>(base_shape(shape, vb), 100 + k as u64);
                let (da, db) = (H::upload(&a), H::upload(&b));
                for op in [BinOp::Add, BinOp::Sub, BinOp::Mul, BinOp::Div] {
                    let got = H::binary(op, &da, va, &db, vb);
                    let want = |ix| rounded::<T>(apply_bin(op, to_f64(at(&a, va, ix)), to_f64(at(&b, vb, ix))));
                    let what = format!("{} {op:?} {va:?} {vb:?} {shape:?}", H::NAME);
                    check_matrix(&what, &got, want, shape, 2.0 * eps::<T>());
                }
            }
            // A row broadcast over the rows (a rank-1 right operand).
            let a = field::<T>(base_shape(shape, va), k as u64);
            let row = Array::from_fn([shape[1]], |[j]| T::from_f64(0.5 + j as f64));
            let (da, drow) = (H::upload(&a), H::upload_vector(&row));
            for op in [BinOp::Add, BinOp::Mul, BinOp::Div] {
                let got = H::binary_row(op, &da, va, &drow);
                let want =
                    |[i, j]: [usize; 2]| rounded::<T>(apply_bin(op, to_f64(at(&a, va, [i, j])), to_f64(row[[j]])));
                check_matrix(&format!("{} row {op:?} {va:?} {shape:?}", H::NAME), &got, want, shape, 2.0 * eps::<T>());
            }
        }
    }
}

pub fn scalar_and_unary<H: Harness>() {
    scalar_and_unary_for::<H, f32>();
    if H::supports_f64() {
        scalar_and_unary_for::<H, f64>();
    }
}

fn scalar_and_unary_for<H: Harness, T: Float>() {
    for (k, &shape) in shapes().iter().enumerate() {
        for va in VIEWS {
            let a = field::<T>(base_shape(shape, va), k as u64);
            let da = H::upload(&a);
            let s = T::from_f64(1.5);
            let (times, minus) = H::scalar(&da, va, s);
            let what = format!("{} scalar {va:?} {shape:?}", H::NAME);
            check_matrix(&what, &times, |ix| rounded::<T>(to_f64(at(&a, va, ix)) * 1.5), shape, 0.0);
            check_matrix(&what, &minus, |ix| rounded::<T>(1.5 - to_f64(at(&a, va, ix))), shape, 0.0);
            for op in [UnOp::Abs, UnOp::Sqrt, UnOp::Exp, UnOp::Neg] {
                let f64_exp = matches!(op, UnOp::Exp) && core::mem::size_of::<T>() == 8;
                if f64_exp && !H::supports_f64_transcendentals() {
                    continue; // refused with Error::UnsupportedDType (tested per backend)
                }
                let got = H::unary(op, &da, va);
                let f = |x: f64| match op {
                    UnOp::Abs => x.abs(),
                    UnOp::Sqrt => x.sqrt(),
                    UnOp::Exp => x.exp(),
                    UnOp::Neg => -x,
                };
                // abs and neg are exact; sqrt and exp within a few ulps of the f64 result.
                let rel = if matches!(op, UnOp::Abs | UnOp::Neg) { 0.0 } else { 4.0 * eps::<T>() };
                let want = |ix| rounded::<T>(f(to_f64(at(&a, va, ix))));
                check_matrix(&format!("{} {op:?} {va:?} {shape:?}", H::NAME), &got, want, shape, rel);
            }
        }
    }
}

pub fn compound_assignment<H: Harness>() {
    compound_assignment_for::<H, f32>();
    if H::supports_f64() {
        compound_assignment_for::<H, f64>();
    }
}

fn compound_assignment_for<H: Harness, T: Float>() {
    for (k, &shape) in shapes().iter().enumerate() {
        for va in VIEWS {
            for vb in [View::Plain, View::Transposed, View::Flipped] {
                let a = field::<T>(base_shape(shape, va), k as u64);
                let b = field::<T>(base_shape(shape, vb), 7 + k as u64);
                let mut da = H::upload(&a);
                let got = H::add_assign(&mut da, va, &H::upload(&b), vb);
                // Elements of `a` inside the view get `+ b`; the others (stepped-over columns)
                // keep their value.
                let want = after_write(&a, va, shape, |old, ix| rounded::<T>(old + to_f64(at(&b, vb, ix))));
                check_matrix(&format!("{} += {va:?} {vb:?} {shape:?}", H::NAME), &got, |ix| want[ix], a.shape(), 0.0);
            }
        }
    }
}

pub fn fill_copy_contiguous<H: Harness>() {
    fill_copy_contiguous_for::<H, f32>();
    if H::supports_f64() {
        fill_copy_contiguous_for::<H, f64>();
    }
}

fn fill_copy_contiguous_for<H: Harness, T: Float>() {
    for (k, &shape) in shapes().iter().enumerate() {
        for va in VIEWS {
            let a = field::<T>(base_shape(shape, va), k as u64);
            let da = H::upload(&a);
            assert_eq!(H::download(&da), a, "{} upload/download round trip", H::NAME);
            let got = H::contiguous(&da, va);
            check_matrix(
                &format!("{} contiguous {va:?} {shape:?}", H::NAME),
                &got,
                |ix| to_f64(at(&a, va, ix)),
                shape,
                0.0,
            );
            let mut db = H::upload(&a);
            let filled = H::fill(&mut db, va, T::from_f64(-9.0));
            let want = after_write(&a, va, shape, |_, _| -9.0);
            check_matrix(&format!("{} fill {va:?} {shape:?}", H::NAME), &filled, |ix| want[ix], a.shape(), 0.0);
        }
    }
}

pub fn reductions<H: Harness>() {
    reductions_for::<H, f32>();
    if H::supports_f64() {
        reductions_for::<H, f64>();
    }
}

fn reductions_for<H: Harness, T: Float>() {
    for (k, &shape) in shapes().iter().enumerate() {
        for va in VIEWS {
            let a = field::<T>(base_shape(shape, va), k as u64);
            let da = H::upload(&a);
            let what = format!("{} {va:?} {shape:?}", H::NAME);
            let values: Vec<([usize; 2], f64)> = indices(shape).map(|ix| (ix, to_f64(at(&a, va, ix)))).collect();
            let n = values.len() as f64;
            let sum: f64 = values.iter().map(|(_, x)| x).sum();
            let abs_sum: f64 = values.iter().map(|(_, x)| x.abs()).sum();
            let tol = (n + 2.0) * eps::<T>();
            let got_sum = H::reduce(Reduction::Sum, &da, va).map(to_f64);
            assert!(
                got_sum.is_some_and(|s| (s - sum).abs() <= tol * abs_sum.max(1.0)),
                "{what}: sum {got_sum:?} vs {sum}"
            );
            let got_mean = H::reduce(Reduction::Mean, &da, va).map(to_f64);
            match values.is_empty() {
                true => assert_eq!(got_mean, None, "{what}: mean of nothing"),
                false => assert!(
                    got_mean.is_some_and(|m| (m - sum / n).abs() <= tol * (abs_sum / n).max(1.0)),
                    "{what}: mean {got_mean:?} vs {}",
                    sum / n
                ),
            }
            let min = values.iter().map(|&(_, x)| x).reduce(f64::min);
            let max = values.iter().map(|&(_, x)| x).reduce(f64::max);
            assert_eq!(H::reduce(Reduction::Min, &da, va).map(to_f64), min, "{what}: min");
            assert_eq!(H::reduce(Reduction::Max, &da, va).map(to_f64), max, "{what}: max");
            let argmin = values.iter().find(|&&(_, x)| Some(x) == min).map(|&(ix, _)| ix);
            let argmax = values.iter().find(|&&(_, x)| Some(x) == max).map(|&(ix, _)| ix);
            assert_eq!(H::arg_extrema(&da, va), (argmin, argmax), "{what}: argmin/argmax");
            for axis in 0..2 {
                let got = H::sum_axis(&da, va, axis);
                let other = 1 - axis;
                assert_eq!(got.shape(), [shape[other]], "{what}: sum_axis({axis}) shape");
                for p in 0..shape[other] {
                    let lane: Vec<f64> = (0..shape[axis])
                        .map(|q| if axis == 0 { [q, p] } else { [p, q] })
                        .map(|ix| to_f64(at(&a, va, ix)))
                        .collect();
                    let want: f64 = lane.iter().sum();
                    let scale: f64 = lane.iter().map(|x| x.abs()).sum();
                    let got = to_f64(got[[p]]);
                    assert!(
                        (got - want).abs() <= (lane.len() as f64 + 2.0) * eps::<T>() * scale.max(1.0),
                        "{what}: sum_axis({axis})[{p}] {got} vs {want}"
                    );
                }
            }
        }
    }
}

/// CSR products on matrices with empty rows, repeated entries (summed) and no rows at all,
/// against the dense sum of their triplets.
pub fn sparse_products<H: Harness>() {
    sparse_products_for::<H, f32>();
    if H::supports_f64() {
        sparse_products_for::<H, f64>();
    }
}

fn sparse_products_for<H: Harness, T: Float>() {
    for [rows, cols] in [[0, 3], [1, 1], [5, 7], [33, 17], [300, 256]] {
        let mut triplets = Vec::new();
        for r in 0..rows {
            for k in 0..(r * 7 + 3) % 6 {
                let c = (r * 31 + k * 17) % cols;
                triplets.push((r, c, T::from_f64(((r * 13 + k * 5) % 9) as f64 / 4.0 - 1.0)));
            }
        }
        triplets.extend(triplets.iter().step_by(4).map(|&(r, c, v)| (r, c, v)).collect::<Vec<_>>());
        let m = cnda::sparse::CsrMatrix::from_triplets([rows, cols], &triplets);
        let x = field::<T>([1, cols], cols as u64).reshape([cols]).to_owned();
        let got = H::spmv(&m, &x);
        let what = format!("{} spmv {rows} x {cols}", H::NAME);
        assert_eq!(got.shape(), [rows], "{what}");
        let (mut want, mut scale) = (vec![0.0; rows], vec![0.0; rows]);
        for &(r, c, v) in &triplets {
            want[r] += to_f64(v) * to_f64(x[[c]]);
            scale[r] += (to_f64(v) * to_f64(x[[c]])).abs();
        }
        for r in 0..rows {
            let tol = 16.0 * eps::<T>() * scale[r];
            assert!((to_f64(got[[r]]) - want[r]).abs() <= tol, "{what}: row {r}: {} vs {}", to_f64(got[[r]]), want[r]);
        }
    }
}

pub fn matmul<H: Harness>() {
    matmul_for::<H, f32>();
    if H::supports_f64() {
        matmul_for::<H, f64>();
    }
}

fn matmul_for<H: Harness, T: Float + GemmElement>() {
    for &[m, kk] in &shapes() {
        let n = 1 + (m + kk) % 5;
        for va in [View::Plain, View::Transposed, View::Flipped] {
            for vb in [View::Plain, View::Transposed] {
                let a = field::<T>(base_shape([m, kk], va), m as u64);
                let b = field::<T>(base_shape([kk, n], vb), 50 + n as u64);
                let got = H::matmul(&H::upload(&a), va, &H::upload(&b), vb);
                let want = |[i, j]: [usize; 2]| {
                    (0..kk).map(|p| to_f64(at(&a, va, [i, p])) * to_f64(at(&b, vb, [p, j]))).sum::<f64>()
                };
                let scale = |[i, j]: [usize; 2]| {
                    (0..kk).map(|p| (to_f64(at(&a, va, [i, p])) * to_f64(at(&b, vb, [p, j]))).abs()).sum::<f64>()
                };
                let what = format!("{} matmul {va:?} {vb:?} [{m}, {kk}] x [{kk}, {n}]", H::NAME);
                assert_eq!(got.shape(), [m, n], "{what}: shape");
                for (ix, &x) in got.indexed_iter() {
                    let tol = (kk as f64 + 2.0) * eps::<T>() * scale(ix).max(1.0);
                    assert!((to_f64(x) - want(ix)).abs() <= tol, "{what}: at {ix:?} {} vs {}", to_f64(x), want(ix));
                }
            }
        }
    }
}

pub fn stencils<H: Harness>() {
    stencils_for::<H, f32>();
    if H::supports_f64() {
        stencils_for::<H, f64>();
    }
}

fn stencils_for<H: Harness, T: Float>() {
    for (k, &shape) in shapes().iter().enumerate() {
        for va in VIEWS {
            let a = field::<T>(base_shape(shape, va), k as u64);
            let out = Array::<T, 2>::full(shape, T::from_f64(-7.0));
            let (da, dout) = (H::upload(&a), H::upload(&out));
            check_stencil::<H, T, 5>(&LinearStencil::laplacian_5pt(T::from_f64(0.5)), &a, va, &da, &dout, shape);
            check_stencil::<H, T, 9>(&LinearStencil::laplacian_9pt(T::from_f64(2.0)), &a, va, &da, &dout, shape);
            check_stencil::<H, T, 4>(&LinearStencil::jacobi_5pt(), &a, va, &da, &dout, shape);
        }
    }
}

pub fn expression_stencils<H: Harness>() {
    expression_stencils_for::<H, f32>();
    // WGSL has no f64 stencil expressions, as it has no f64 transcendental functions.
    if H::supports_f64_transcendentals() {
        expression_stencils_for::<H, f64>();
    }
}

/// `Mixed` (harness.rs) against its expression evaluated here in `T`, one rounding per operation
/// in the source's order: exact on the CPU, the model and CUDA (no fused multiply-adds); WebGPU
/// may fuse (Vulkan allows it), hence the few-ulp tolerance.
fn expression_stencils_for<H: Harness, T: Scalar>() {
    for (seed, &shape) in shapes().iter().enumerate() {
        for vu in VIEWS {
            let u = field::<T>(base_shape(shape, vu), seed as u64);
            let k = field::<T>(shape, seed as u64 + 99);
            let out = Array::<T, 2>::full(shape, T::from_f64(-7.0));
            let a = T::from_f64(0.375);
            let got = H::expression_stencil(&H::upload(&u), vu, &H::upload(&k), a, &H::upload(&out));
            let [m, n] = shape;
            let want = |[i, j]: [usize; 2]| {
                if i == 0 || j == 0 || i + 1 >= m || j + 1 >= n {
                    return -7.0;
                }
                let uu = |di: isize, dj: isize| at(&u, vu, [(i as isize + di) as usize, (j as isize + dj) as usize]);
                let kk = |di: isize, dj: isize| k[[(i as isize + di) as usize, (j as isize + dj) as usize]];
                let two = T::from_f64(2.0);
                let lap = uu(-1, 0) + uu(1, 0) - two * uu(0, 0);
                let pick = if uu(1, 1) > kk(0, 0) {
                    uu(-1, -1).abs().sqrt()
                } else {
                    kk(-1, 1) * kk(-1, 1) - T::from_f64(0.5) * uu(0, -1)
                };
                to_f64(uu(0, 0) + a * kk(0, 1) * lap + pick)
            };
            check_matrix(&format!("{} stencil! {vu:?} {shape:?}", H::NAME), &got, want, shape, 4.0 * eps::<T>());
        }
    }
}

pub fn time_steps<H: Harness>() {
    time_steps_for::<H, f32>();
    if H::supports_f64_transcendentals() {
        time_steps_for::<H, f64>();
    }
}

/// `Mixed`'s time steps with per-side boundaries against the CPU's (itself checked against
/// naive sweeps in tests/time_steps.rs): one call per sweep on devices, the fused wavefront on
/// the CPU, the same result (exact where operations round alike, a few ulps per step on
/// WebGPU).
fn time_steps_for<H: Harness, T: Scalar>() {
    let b = [[Boundary::Neumann, Boundary::Value(T::from_f64(0.5))], [Boundary::Periodic, Boundary::Periodic]];
    for (seed, &shape) in shapes().iter().enumerate() {
        let u = field::<T>(shape, seed as u64 + 11);
        let k = field::<T>(shape, seed as u64 + 13);
        for steps in [1, 4, 9] {
            let got = H::time_steps(&u, &k, T::from_f64(0.25), steps, b);
            let want = crate::harness::CpuHarness::time_steps(&u, &k, T::from_f64(0.25), steps, b);
            let what = format!("{} time steps {steps} {shape:?}", H::NAME);
            let tol = 8.0 * steps as f64 * eps::<T>();
            check_matrix(&format!("{what} current"), &got.0, |ix| to_f64(want.0[ix]), shape, tol);
            check_matrix(&format!("{what} other"), &got.1, |ix| to_f64(want.1[ix]), shape, tol);
        }
    }
}

pub fn subnormals<H: Harness>() {
    subnormals_for::<H, f32>(1e-6);
    if H::supports_f64_transcendentals() {
        subnormals_for::<H, f64>(1e-45);
    }
}

/// The reference's arithmetic, in Rust's own `f32`/`f64` (independent of cnda's `Scalar`).
trait Ieee: Scalar {
    fn decayed(a: Self, x: Self, y: Self) -> Self;
    fn is_subnormal(self) -> bool;
    /// Below the smallest normal: the zero of the same sign, written with std's constants.
    fn flushed(self) -> Self;
    fn bits(self) -> u64;
    fn shifted(self) -> Self;
}

macro_rules! ieee {
    ($($t:ident),*) => {$(
        impl Ieee for $t {
            fn decayed(a: $t, x: $t, y: $t) -> $t {
                a * x.max(y)
            }
            fn is_subnormal(self) -> bool {
                $t::is_subnormal(self)
            }
            fn flushed(self) -> $t {
                if self.abs() < $t::MIN_POSITIVE {
                    (0.0 as $t).copysign(self)
                } else {
                    self
                }
            }
            fn bits(self) -> u64 {
                self.to_bits() as u64
            }
            fn shifted(self) -> $t {
                self + (0.5 as $t).copysign(self)
            }
        }
    )*};
}
ieee!(f32, f64);

/// A field decaying through the subnormals (`Decay`, steppers.rs), against a naive loop: flushed
/// by default on every backend, bit for bit, each subnormal the zero of its sign; kept where the
/// backend keeps them (not WebGPU, whose adapters may flush: lavapipe does).
fn subnormals_for<H: Harness, T: Ieee>(a: f64) {
    let a = T::from_f64(a);
    for (seed, &shape) in shapes().iter().enumerate() {
        // Magnitudes from 0.5 on, of both signs, so the zeros' signs are checked too; the walls
        // (the outer ring) zero, as the boundaries hold them.
        let [m, n] = shape;
        let wall = |[i, j]: [usize; 2]| i == 0 || j == 0 || i + 1 == m || j + 1 == n;
        let f = field::<T>(shape, seed as u64 + 17);
        let u = Array::from_fn(shape, |ix| if wall(ix) { T::from_f64(0.0) } else { f[ix].shifted() });
        for keep in [false, true] {
            if keep && !H::keeps_subnormals() {
                continue;
            }
            let mut want = u.clone();
            let mut saw_subnormal = false;
            for steps in 1..=9 {
                let mut next = Array::<T, 2>::zeros(shape);
                for i in 1..m.saturating_sub(1) {
                    for j in 1..n.saturating_sub(1) {
                        let v = T::decayed(a, want[[i - 1, j]], want[[i + 1, j]]);
                        saw_subnormal |= v.is_subnormal();
                        next[[i, j]] = if keep { v } else { v.flushed() };
                    }
                }
                want = next;
                let got = H::decay_steps(&u, a, steps, keep);
                let what = format!("{} subnormals keep={keep} steps {steps} {shape:?}", H::NAME);
                let same = got.iter().zip(want.iter()).all(|(g, w)| g.bits() == w.bits());
                assert!(same, "{what}: not bit for bit\n got {got:?}\nwant {want:?}");
            }
            // With two interior rows, some point reads an interior neighbour.
            if m > 3 && n > 2 {
                assert!(saw_subnormal, "{} {shape:?}: the case reaches the subnormals", H::NAME);
            }
        }
    }
}

fn check_stencil<H: Harness, T: Float, const K: usize>(
    s: &LinearStencil<T, 2, 1, K>,
    a: &Array<T, 2>,
    va: View,
    da: &H::Matrix<T>,
    dout: &H::Matrix<T>,
    shape: [usize; 2],
) {
    let got = H::stencil(s, da, va, dout);
    let [m, n] = shape;
    let want = |[i, j]: [usize; 2]| {
        if i == 0 || j == 0 || i + 1 >= m || j + 1 >= n {
            return -7.0; // outside the interior: untouched
        }
        // In tap order, rounded after every step as the kernel does.
        s.taps()
            .iter()
            .fold(None::<f64>, |acc, &([di, dj], w)| {
                let x = to_f64(at(a, va, [(i as isize + di) as usize, (j as isize + dj) as usize]));
                let term = rounded::<T>(to_f64(w) * x);
                Some(acc.map_or(term, |acc| rounded::<T>(acc + term)))
            })
            .unwrap_or(0.0)
    };
    check_matrix(&format!("{} stencil K={K} {va:?} {shape:?}", H::NAME), &got, want, shape, 4.0 * eps::<T>());
}
