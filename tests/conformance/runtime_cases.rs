//! The run-time stencil cases: `DynStencil` (taps known at run time, radius 1 along axis 0 and 2
//! along axis 1) and `VariableStencil` (a coefficient field per tap; on devices without a
//! one-pass kernel, the composed form) against the reference, in every view, and their time
//! steps against the CPU's.

use cnda::prelude::*;
use cnda::stencil::{Boundary, DynStencil, VariableStencil};

use crate::cases::{check_matrix, rounded, shapes};
use crate::harness::{Harness, View, VIEWS};
use crate::reference::{at, base_shape, eps, field, to_f64};

const OFFSETS: [[isize; 2]; 5] = [[-1, 0], [0, -2], [0, 0], [1, 1], [0, 2]];
const WEIGHTS: [f64; 5] = [0.25, -0.5, 1.5, 0.125, 0.75];

pub fn runtime_stencils<H: Harness>() {
    runtime_stencils_for::<H, f32>();
    if H::supports_f64() {
        runtime_stencils_for::<H, f64>();
    }
}

/// The sum of `factor(k) * u(x + offset_k)` in tap order, rounded in `T` after every operation
/// as the kernels do; `-7` (the output's fill) outside the interior.
fn want<'a, T: Float>(
    u: &'a Array<T, 2>,
    vu: View,
    factor: impl Fn(usize, [usize; 2]) -> f64 + 'a,
    [m, n]: [usize; 2],
) -> impl Fn([usize; 2]) -> f64 + 'a {
    move |[i, j]| {
        if i < 1 || j < 2 || i + 1 >= m || j + 2 >= n {
            return -7.0;
        }
        let term = |k: usize| {
            let x = at(u, vu, [(i as isize + OFFSETS[k][0]) as usize, (j as isize + OFFSETS[k][1]) as usize]);
            rounded::<T>(factor(k, [i, j]) * to_f64(x))
        };
        (1..OFFSETS.len()).fold(term(0), |acc, k| rounded::<T>(acc + term(k)))
    }
}

fn runtime_stencils_for<H: Harness, T: Float>() {
    let d = DynStencil::new(OFFSETS.iter().zip(WEIGHTS).map(|(&o, w)| (o, T::from_f64(w))));
    let v = VariableStencil::new(OFFSETS);
    for (seed, &shape) in shapes().iter().enumerate() {
        let c: Vec<Array<T, 2>> = (0..OFFSETS.len()).map(|k| field::<T>(shape, seed as u64 * 7 + k as u64)).collect();
        let dc: Vec<H::Matrix<T>> = c.iter().map(H::upload).collect();
        for vu in VIEWS {
            let u = field::<T>(base_shape(shape, vu), seed as u64);
            let out = Array::<T, 2>::full(shape, T::from_f64(-7.0));
            let (du, dout) = (H::upload(&u), H::upload(&out));
            let got = H::dyn_stencil(&d, &du, vu, &dout);
            let weights = |k: usize, _: [usize; 2]| to_f64(T::from_f64(WEIGHTS[k]));
            let what = format!("{} DynStencil {vu:?} {shape:?}", H::NAME);
            check_matrix(&what, &got, want(&u, vu, weights, shape), shape, 4.0 * eps::<T>());
            let got = H::variable_stencil(&v, &du, vu, &dc, &dout);
            let fields = |k: usize, x: [usize; 2]| to_f64(c[k][x]);
            let what = format!("{} VariableStencil {vu:?} {shape:?}", H::NAME);
            check_matrix(&what, &got, want(&u, vu, fields, shape), shape, 4.0 * eps::<T>());
        }
    }
}

/// Sums start from the first product on every backend (a zero start turns `-0.0` into `+0.0`),
/// and a stencil without taps writes the empty sum.
pub fn signed_zeros_and_empty_sums<H: Harness>() {
    let shape = [5, 6];
    let zeros = H::upload(&Array::<f32, 2>::zeros(shape));
    let out = H::upload(&Array::<f32, 2>::full(shape, 7.0));
    let minus = DynStencil::new([([0, 0], -1.0f32)]);
    // Radius 0: every point is interior.
    let got = H::dyn_stencil(&minus, &zeros, View::Plain, &out);
    assert!(got.iter().all(|&x| x.to_bits() == (-0.0f32).to_bits()), "{}: DynStencil -1 * 0 is -0: {got:?}", H::NAME);
    let minus_one = H::upload(&Array::<f32, 2>::full(shape, -1.0));
    let got = H::variable_stencil(&VariableStencil::new([[0, 0]]), &zeros, View::Plain, &[minus_one], &out);
    assert!(got.iter().all(|&x| x.to_bits() == (-0.0f32).to_bits()), "{}: VariableStencil: {got:?}", H::NAME);
    let empty = cnda::stencil::LinearStencil::<f32, 2, 1, 0>::new([]);
    let got = H::stencil(&empty, &zeros, View::Plain, &out);
    for (ix, &x) in got.indexed_iter() {
        let want = if (1..4).contains(&ix[0]) && (1..5).contains(&ix[1]) { 0.0 } else { 7.0 };
        assert_eq!(x, want, "{}: no tap at {ix:?}", H::NAME);
    }
}

/// Time steps of both run-time stencils with per-side boundaries against the CPU's (itself
/// checked against refilled single sweeps in tests/time_steps.rs).
pub fn runtime_time_steps<H: Harness>() {
    runtime_time_steps_for::<H, f32>();
    if H::supports_f64() {
        runtime_time_steps_for::<H, f64>();
    }
}

fn runtime_time_steps_for<H: Harness, T: Float>() {
    let d = DynStencil::new(OFFSETS.iter().zip(WEIGHTS).map(|(&o, w)| (o, T::from_f64(w * 0.25))));
    let v = VariableStencil::new(OFFSETS);
    let b = [[Boundary::Value(T::from_f64(0.5)), Boundary::Neumann], [Boundary::Periodic, Boundary::Periodic]];
    for (seed, &shape) in shapes().iter().enumerate() {
        let u = field::<T>(shape, seed as u64 + 5);
        let c: Vec<Array<T, 2>> = (0..OFFSETS.len())
            .map(|k| field::<T>(shape, seed as u64 + 9 * k as u64).map(|x| x * T::from_f64(0.25)))
            .collect();
        for steps in [1, 4] {
            let got = H::runtime_time_steps(&d, &v, &c, &u, steps, b);
            let want = crate::harness::CpuHarness::runtime_time_steps(&d, &v, &c, &u, steps, b);
            for (kind, (got, want)) in ["DynStencil", "VariableStencil"].iter().zip(got.iter().zip(&want)) {
                let what = format!("{} {kind} time steps {steps} {shape:?}", H::NAME);
                let tol = 8.0 * steps as f64 * eps::<T>();
                check_matrix(&format!("{what} current"), &got.0, |ix| to_f64(want.0[ix]), shape, tol);
                check_matrix(&format!("{what} other"), &got.1, |ix| to_f64(want.1[ix]), shape, tol);
            }
        }
    }
}
