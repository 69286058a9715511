//! `fft::solve_periodic` against references written here: the second-order Laplacian applied by
//! a naive periodic loop (the solve must give back the `u` it was applied to, to rounding), a
//! band-limited manufactured solution of the continuous equation (spectral: exact to
//! rounding), the mean of a Poisson right-hand side, resonances and bad parameters.
#![cfg(feature = "fft")]

use cnda::fft::{solve_periodic, try_solve_periodic, Laplacian};
use cnda::prelude::*;
use std::f64::consts::PI;

/// `shift u - Δ_h u` with the second-order Laplacian on a periodic grid, by a naive loop.
fn apply_naive<const N: usize>(u: &Array<f64, N>, h: [f64; N], shift: f64) -> Array<f64, N> {
    let shape = u.shape();
    Array::from_fn(shape, |idx| {
        let mut value = shift * u[idx];
        for a in 0..N {
            let (mut lo, mut hi) = (idx, idx);
            lo[a] = (idx[a] + shape[a] - 1) % shape[a];
            hi[a] = (idx[a] + 1) % shape[a];
            value -= (u[lo] - 2.0 * u[idx] + u[hi]) / (h[a] * h[a]);
        }
        value
    })
}

fn field<const N: usize>(shape: [usize; N], seed: usize) -> Array<f64, N> {
    Array::from_fn(shape, |idx| {
        let k = idx.iter().fold(seed, |acc, &i| acc.wrapping_mul(31).wrapping_add(i * 7 + 3));
        ((k * 2_654_435_761) % 1000) as f64 / 1000.0 - 0.5
    })
}

fn max_diff<const N: usize>(a: &Array<f64, N>, b: &Array<f64, N>) -> f64 {
    a.as_slice().iter().zip(b.as_slice()).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max)
}

fn mean<const N: usize>(a: &Array<f64, N>) -> f64 {
    a.as_slice().iter().sum::<f64>() / a.as_slice().len() as f64
}

#[test]
fn second_order_solves_invert_the_finite_difference_operator() {
    // Helmholtz (shift > 0): unique, so the solve gives back u itself.
    let u = field([12, 9, 10], 1);
    let h = [0.1, 0.25, 0.07];
    let f = apply_naive(&u, h, 2.5);
    let solved = solve_periodic(&f, h, 2.5, Laplacian::SecondOrder);
    assert!(max_diff(&solved, &u) < 1e-12, "{}", max_diff(&solved, &u));
    // Poisson: u up to its mean, from a transposed view of f.
    let u2 = field([16, 11], 2);
    let h2 = [0.5, 0.2];
    let f2 = apply_naive(&u2, h2, 0.0);
    let ft = Array::from_fn([11, 16], |[j, i]| f2[[i, j]]);
    let solved2 = solve_periodic(ft.t(), h2, 0.0, Laplacian::SecondOrder);
    let centred = u2.map(|x| x - mean(&u2));
    assert!(max_diff(&solved2, &centred) < 1e-11, "{}", max_diff(&solved2, &centred));
    assert!(mean(&solved2).abs() < 1e-14);
    // f32 within its precision; rank 1.
    let f32s = f.map(|x| x as f32);
    let solved32 = solve_periodic(&f32s, h.map(|x| x as f32), 2.5, Laplacian::SecondOrder);
    assert!(solved32.as_slice().iter().zip(u.as_slice()).all(|(s, w)| (*s as f64 - w).abs() < 1e-4));
    let u1 = field([7], 3);
    let solved1 = solve_periodic(apply_naive(&u1, [0.3], 1.0), [0.3], 1.0, Laplacian::SecondOrder);
    assert!(max_diff(&solved1, &u1) < 1e-13);
}

/// Spacings far from 1: the eigenvalues neither underflow nor overflow.
#[test]
fn extreme_spacings_keep_their_eigenvalues() {
    let u = field([8, 6], 5);
    for h in [1e-150, 1e150] {
        let f = apply_naive(&u.map(|x| x * h * h), [h, h], 0.0);
        let solved = solve_periodic(&f, [h, h], 0.0, Laplacian::SecondOrder);
        let want = u.map(|x| (x - mean(&u)) * h * h);
        let scale = want.as_slice().iter().fold(0.0f64, |m, x| m.max(x.abs()));
        assert!(max_diff(&solved, &want) <= 1e-12 * scale, "{h}");
    }
}

#[test]
fn spectral_solves_are_exact_for_band_limited_solutions() {
    // u = sin(2 pi x) cos(4 pi y) + 0.5 cos(6 pi x + 2 pi y) on [0, 1) x [0, 2), 24 x 40 points.
    let (n, m) = (24, 40);
    let (hx, hy) = (1.0 / n as f64, 2.0 / m as f64);
    let at = |i: usize, j: usize| (i as f64 * hx, j as f64 * hy);
    let u = Array::from_fn([n, m], |[i, j]| {
        let (x, y) = at(i, j);
        (2.0 * PI * x).sin() * (4.0 * PI * y).cos() + 0.5 * (6.0 * PI * x + 2.0 * PI * y).cos()
    });
    // -Δ: (2π)² (1 + 4) and (2π)² (9 + 1) times each term; plus a shift of 3.
    let f = Array::from_fn([n, m], |[i, j]| {
        let (x, y) = at(i, j);
        let a = (2.0 * PI * x).sin() * (4.0 * PI * y).cos();
        let b = 0.5 * (6.0 * PI * x + 2.0 * PI * y).cos();
        (3.0 + 20.0 * PI * PI) * a + (3.0 + 40.0 * PI * PI) * b
    });
    let solved = solve_periodic(&f, [hx, hy], 3.0, Laplacian::Spectral);
    assert!(max_diff(&solved, &u) < 1e-13, "{}", max_diff(&solved, &u));
}

#[test]
fn a_poisson_right_hand_side_loses_its_mean_and_resonances_are_refused() {
    let u = field([10, 10], 4);
    let f = apply_naive(&u, [1.0, 1.0], 0.0).map(|x| x + 7.0);
    let solved = solve_periodic(&f, [1.0, 1.0], 0.0, Laplacian::SecondOrder);
    let residual = apply_naive(&solved, [1.0, 1.0], 0.0);
    let consistent = f.map(|x| x - mean(&f));
    assert!(max_diff(&residual, &consistent) < 1e-12);
    // -4 sin²(π/10) - 0: the shift that cancels wavenumber (1, 0) on 10 points of spacing 1.
    let resonance = -4.0 * (PI / 10.0).sin().powi(2);
    // Rounding leaves the shifted eigenvalue a hair from zero: still a resonance.
    for shift in [resonance, resonance * (1.0 + 1e-15)] {
        let e = try_solve_periodic(&f, [1.0, 1.0], shift, Laplacian::SecondOrder).unwrap_err();
        assert!(e.to_string().contains("singular"), "{e}");
    }
    // Away from it by a little more than rounding, a solution.
    assert!(try_solve_periodic(&f, [1.0, 1.0], resonance * (1.0 + 1e-9), Laplacian::SecondOrder).is_ok());
    let e = try_solve_periodic(Array::<f64, 1>::zeros([4]), [1.0], -4.0, Laplacian::SecondOrder).unwrap_err();
    assert!(e.to_string().contains("singular") && e.to_string().contains("[2]"), "{e}");
    for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        let e = try_solve_periodic(&f, [1.0, bad], 0.0, Laplacian::Spectral).unwrap_err();
        assert!(e.to_string().contains("spacing") && e.to_string().contains("axis 1"), "{e}");
    }
    let e = try_solve_periodic(&f, [1.0, 1.0], f64::NAN, Laplacian::Spectral).unwrap_err();
    assert!(e.to_string().contains("shift"), "{e}");
    let e = try_solve_periodic(Array::<f64, 0>::zeros([]), [], 1.0, Laplacian::Spectral).unwrap_err();
    assert!(e.to_string().contains("rank-0"), "{e}");
}
