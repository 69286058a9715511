//! `stencil!`'s finite-difference operators (`laplace`, `diff`, `diff_half`) against manufactured
//! solutions: the error of each operator on smooth functions falls as `h^order` (the observed
//! order of two grids, within a quarter), and against a naive loop with Fornberg's tabulated
//! weights (Devito's `fd_weights`), typed here by hand.

use cnda::prelude::*;
use cnda::stencil::stencil;

use std::f64::consts::PI;

/// The largest error of `approx` against `exact` over the interior points `r..n - r` of a 1D
/// grid on `[0, 2 pi)` with `n` points: `approx(u, h)` gets the samples of `f`.
fn error_1d(
    n: usize,
    r: usize,
    f: impl Fn(f64) -> f64,
    exact: impl Fn(f64) -> f64,
    shift: f64,
    approx: impl Fn(&Array<f64, 1>, f64) -> Array<f64, 1>,
) -> f64 {
    let h = 2.0 * PI / n as f64;
    let u = Array::from_fn([n], |[i]| f(i as f64 * h));
    let d = approx(&u, h);
    (r..n - r).map(|i| (d[[i]] - exact((i as f64 + shift) * h)).abs()).fold(0.0, |m: f64, e| {
        if e.is_nan() {
            f64::INFINITY
        } else {
            m.max(e)
        }
    })
}

/// The observed order of accuracy between grids of `n` and `2n` points.
fn observed(e_coarse: f64, e_fine: f64) -> f64 {
    (e_coarse / e_fine).log2()
}

macro_rules! centred_orders {
    ($($name:ident: $n:literal, $order:literal;)*) => {$(
        #[test]
        fn $name() {
            let s = stencil!(|u; s: f64| s * diff(u[0], 0, $n, $order));
            let r: usize = ($n as usize).div_ceil(2) - 1 + $order / 2;
            // The n-th derivative of sin(x + 1).
            let exact = |x: f64| (x + 1.0 + $n as f64 * PI / 2.0).sin();
            let run = |n: usize| {
                error_1d(n, r, |x| (x + 1.0).sin(), exact, 0.0, |u, h| {
                    let mut out = Array::zeros(u.shape());
                    s.apply(u, &mut out, (1.0 / h.powi($n),));
                    out
                })
            };
            let (coarse, fine) = (run(24), run(48));
            let order = observed(coarse, fine);
            assert!((order - $order as f64).abs() < 0.25, "observed order {order} for {}: errors {coarse:e}, {fine:e}", stringify!($name));
        }
    )*};
}

centred_orders! {
    first_derivative_order_2: 1, 2;
    first_derivative_order_4: 1, 4;
    first_derivative_order_8: 1, 8;
    second_derivative_order_2: 2, 2;
    second_derivative_order_6: 2, 6;
    second_derivative_order_8: 2, 8;
    third_derivative_order_4: 3, 4;
    fourth_derivative_order_2: 4, 2;
}

#[test]
fn staggered_first_derivatives_converge_at_their_order_on_both_sides() {
    let after = stencil!(|u; s: f64| s * diff_half(u[0], 0, 8, 1));
    let before = stencil!(|u; s: f64| s * diff_half(u[0], 0, 4, -1));
    for (side, order) in [(0.5, 8.0), (-0.5, 4.0)] {
        let run = |n: usize| {
            error_1d(
                n,
                4,
                |x| (2.0 * x).cos(),
                |x| -2.0 * (2.0 * x).sin(),
                side,
                |u, h| {
                    let mut out = Array::zeros(u.shape());
                    if side > 0.0 {
                        after.apply(u, &mut out, (1.0 / h,));
                    } else {
                        before.apply(u, &mut out, (1.0 / h,));
                    }
                    out
                },
            )
        };
        let (coarse, fine) = (run(32), run(64));
        let observed = observed(coarse, fine);
        assert!((observed - order).abs() < 0.25, "side {side}: observed order {observed}");
    }
}

#[test]
fn the_3d_laplacian_of_order_8_converges_and_matches_the_tabulated_weights() {
    let lap = stencil!(|u; s: f64| s * laplace(u[0, 0, 0], 8));
    let f = |x: f64, y: f64, z: f64| (x + 0.3).sin() * (2.0 * y).cos() * (z - 0.1).sin();
    let run = |n: usize| {
        let h = 2.0 * PI / n as f64;
        let u = Array::from_fn([n, n, n], |[i, j, k]| f(i as f64 * h, j as f64 * h, k as f64 * h));
        let mut out = Array::zeros([n, n, n]);
        lap.apply(&u, &mut out, (1.0 / (h * h),));
        // The exact Laplacian is -6 f; and a naive loop with the table's weights.
        let w = [-205.0 / 72.0, 8.0 / 5.0, -1.0 / 5.0, 8.0 / 315.0, -1.0 / 560.0];
        let mut err: f64 = 0.0;
        let mut naive_gap: f64 = 0.0;
        for i in 4..n - 4 {
            for j in 4..n - 4 {
                for k in 4..n - 4 {
                    let mut sum = 3.0 * w[0] * u[[i, j, k]];
                    for (d, &wd) in w.iter().enumerate().skip(1) {
                        sum += wd
                            * (u[[i + d, j, k]]
                                + u[[i - d, j, k]]
                                + u[[i, j + d, k]]
                                + u[[i, j - d, k]]
                                + u[[i, j, k + d]]
                                + u[[i, j, k - d]]);
                    }
                    let naive = sum / (h * h);
                    naive_gap = naive_gap.max((out[[i, j, k]] - naive).abs() / naive.abs().max(1.0));
                    err = err.max((out[[i, j, k]] + 6.0 * f(i as f64 * h, j as f64 * h, k as f64 * h)).abs());
                }
            }
        }
        assert!(naive_gap < 1e-12, "against the tabulated weights: {naive_gap:e}");
        err
    };
    let (coarse, fine) = (run(20), run(40));
    let order = observed(coarse, fine);
    assert!((order - 8.0).abs() < 0.3, "observed order {order}: errors {coarse:e}, {fine:e}");
}

#[test]
fn operators_compose_with_the_rest_of_the_language() {
    // An acoustic-wave update reading the Laplacian once through a binding, in f32 and f64:
    // the operator's taps are the point function's, so the stencil agrees with its own data.
    let wave = stencil!(|u, um, m; dt2: T| {
        let lap = laplace(u, 4);
        2.0 * u[0, 0] - um[0, 0] + dt2 / m[0, 0] * lap
    });
    let n = 12;
    let u = Array::from_fn([n, n], |[i, j]| ((i * 7 + j * 3) % 11) as f32 * 0.1);
    let um = Array::from_fn([n, n], |[i, j]| ((i + j) % 5) as f32 * 0.05);
    let m = Array::from_fn([n, n], |[i, j]| 1.0 + ((i * j) % 3) as f32);
    let mut out = Array::zeros([n, n]);
    wave.apply((&u, &um, &m), &mut out, (0.01,));
    let w = [-5.0_f32 / 2.0, 4.0 / 3.0, -1.0 / 12.0];
    for i in 2..n - 2 {
        for j in 2..n - 2 {
            // The expansion's order: 2 w0 u + w1 (x pair + y pair) + w2 (x pair + y pair).
            let (a, b) = (w[1] * (((u[[i + 1, j]] + u[[i - 1, j]]) + u[[i, j + 1]]) + u[[i, j - 1]]), {
                w[2] * (((u[[i + 2, j]] + u[[i - 2, j]]) + u[[i, j + 2]]) + u[[i, j - 2]])
            });
            let lap = ((2.0 * w[0]) * u[[i, j]] + a) + b;
            let want = 2.0 * u[[i, j]] - um[[i, j]] + 0.01 / m[[i, j]] * lap;
            assert_eq!(out[[i, j]].to_bits(), want.to_bits(), "at {i}, {j}");
        }
    }
}
