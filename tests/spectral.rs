//! `fft::solve_periodic` and `solve_box` against references written here: the second-order
//! Laplacian applied by a naive loop with each kind of side (the solve must give back the `u` it
//! was applied to, to rounding), manufactured solutions of the continuous equation in the
//! transforms' modes (spectral: exact to rounding), a CG solve of the same `StencilOperator`, the
//! mean of a Poisson right-hand side, resonances and bad parameters.
#![cfg(feature = "fft")]

use cnda::fft::{solve_box, solve_periodic, try_solve_box, try_solve_periodic, BoxPreconditioner, Laplacian};
use cnda::prelude::*;
use cnda::solve::{Cg, FnOperator, LinearOperator, Preconditioner, StencilOperator};
use cnda::stencil::{Boundary, DynStencil, LinearStencil};
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
    a.as_slice().iter().zip(b.as_slice()).map(|(x, y)| (x - y).abs()).fold(0.0, |m: f64, e| {
        if e.is_nan() {
            f64::INFINITY
        } else {
            m.max(e)
        }
    })
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

/// `shift u - Δ_h u` with the second-order Laplacian, the points past each end read as `sides`
/// say: the periodic image, the wall's value, or the edge point mirrored (a naive loop).
fn apply_box<const N: usize>(
    u: &Array<f64, N>,
    h: [f64; N],
    shift: f64,
    sides: [[Boundary<f64>; 2]; N],
) -> Array<f64, N> {
    let shape = u.shape();
    Array::from_fn(shape, |idx| {
        let mut value = shift * u[idx];
        for a in 0..N {
            let n = shape[a];
            let neighbour = |step: isize, side: Boundary<f64>| {
                let p = idx[a] as isize + step;
                let mut at = idx;
                if (0..n as isize).contains(&p) {
                    at[a] = p as usize;
                    return u[at];
                }
                match side {
                    Boundary::Periodic => {
                        at[a] = p.rem_euclid(n as isize) as usize;
                        u[at]
                    }
                    Boundary::Neumann => u[idx],
                    Boundary::Value(g) => g,
                    Boundary::Fixed => 0.0,
                }
            };
            let (lo, hi) = (neighbour(-1, sides[a][0]), neighbour(1, sides[a][1]));
            value -= (lo - 2.0 * u[idx] + hi) / (h[a] * h[a]);
        }
        value
    })
}

#[test]
fn box_solves_invert_the_operator_with_every_kind_of_side() {
    let (p, n, w) = (Boundary::Periodic, Boundary::Neumann, Boundary::Value(0.0));
    let lifted = [Boundary::Value(1.5), Boundary::Value(-0.25)];
    // 2D: each pair of kinds, walls with values too; a shift or a wall makes the solution unique.
    let cases2: [([[Boundary<f64>; 2]; 2], f64); 6] = [
        ([[w; 2], [n; 2]], 0.0),
        ([[p; 2], [w; 2]], 0.0),
        ([[n; 2], [p; 2]], 1.5),
        ([lifted, [n; 2]], 0.0),
        ([[Boundary::Fixed; 2], lifted], 0.0),
        ([[n; 2], [n; 2]], 0.75),
    ];
    for (sides, shift) in cases2 {
        let u = field([11, 8], 7);
        let h = [0.3, 0.05];
        let f = apply_box(&u, h, shift, sides);
        let solved = solve_box(&f, h, shift, sides, Laplacian::SecondOrder);
        let scale = u.as_slice().iter().fold(0.0f64, |m, x| m.max(x.abs()));
        assert!(max_diff(&solved, &u) < 1e-11 * scale, "{sides:?}: {}", max_diff(&solved, &u));
    }
    // 3D, all three kinds at once, from a transposed view; and rank 1 between walls of one point.
    let sides3 = [[w, Boundary::Value(2.0)], [p; 2], [n; 2]];
    let u = field([6, 10, 7], 8);
    let h = [0.2, 0.1, 0.4];
    let f = apply_box(&u, h, 0.0, sides3);
    let ft = Array::from_fn([7, 10, 6], |[k, j, i]| f[[i, j, k]]);
    let solved = solve_box(ft.permute([2, 1, 0]), h, 0.0, sides3, Laplacian::SecondOrder);
    assert!(max_diff(&solved, &u) < 1e-11, "3D: {}", max_diff(&solved, &u));
    let u1 = field([1], 9);
    let sides1 = [[Boundary::Value(0.5), Boundary::Value(-1.0)]];
    let solved1 = solve_box(apply_box(&u1, [0.5], 0.0, sides1), [0.5], 0.0, sides1, Laplacian::SecondOrder);
    assert!(max_diff(&solved1, &u1) < 1e-14);
    // f32 within its precision.
    let u32s = field([9, 12], 10);
    let sides = [[w; 2], [n; 2]];
    let f32s = apply_box(&u32s, [0.1, 0.1], 0.0, sides).map(|x| x as f32);
    let solved32 = solve_box(
        &f32s,
        [0.1f32, 0.1],
        0.0,
        [[Boundary::Value(0.0f32); 2], [Boundary::Neumann; 2]],
        Laplacian::SecondOrder,
    );
    assert!(solved32.as_slice().iter().zip(u32s.as_slice()).all(|(s, w)| (*s as f64 - w).abs() < 1e-4));
}

/// Large single-precision grids: the smallest modes' divisors are ~1e-6 of the largest, near
/// f32's rounding, yet exact; a solve must not take them for a resonance (one grid-wide tolerance
/// did, from 805² Neumann and 1140 points between walls).
#[test]
fn large_f32_grids_are_not_taken_as_singular() {
    // 2D Neumann Poisson, 1024²: a smooth solution of mean zero, through the f64 operator.
    let n = 1024;
    let h = 1.0 / n as f64;
    let u = Array::from_fn([n, n], |[i, j]| {
        let (x, y) = ((i as f64 + 0.5) * h, (j as f64 + 0.5) * h);
        (PI * x).cos() * (2.0 * PI * y).cos() + 0.5 * (3.0 * PI * y).cos()
    });
    let sides = [[Boundary::Neumann; 2]; 2];
    let f = apply_box(&u, [h, h], 0.0, sides).map(|x| x as f32);
    let hf = [h as f32; 2];
    let solved = try_solve_box(&f, hf, 0.0, [[Boundary::<f32>::Neumann; 2]; 2], Laplacian::SecondOrder).unwrap();
    let error = solved
        .as_slice()
        .iter()
        .zip(u.as_slice())
        .map(|(s, w)| (*s as f64 - w).abs())
        .fold(0.0, |m: f64, e| if e.is_nan() { f64::INFINITY } else { m.max(e) });
    assert!(error < 1e-3, "{error}");
    // 1D between walls, 4096 points.
    let n = 4096;
    let h = 1.0 / (n + 1) as f64;
    let u = Array::from_fn([n], |[i]| ((i + 1) as f64 * h * PI).sin() + 0.25);
    let walls = [Boundary::Value(0.25), Boundary::Value(0.25)];
    let f = apply_box(&u, [h], 0.0, [walls]).map(|x| x as f32);
    let walls32 = [Boundary::Value(0.25f32), Boundary::Value(0.25f32)];
    let solved = try_solve_box(&f, [h as f32], 0.0, [walls32], Laplacian::SecondOrder).unwrap();
    let error = solved
        .as_slice()
        .iter()
        .zip(u.as_slice())
        .map(|(s, w)| (*s as f64 - w).abs())
        .fold(0.0, |m: f64, e| if e.is_nan() { f64::INFINITY } else { m.max(e) });
    assert!(error < 1e-3, "{error}");
}

/// Spacings whose `1/h²` leaves the element type's range are refused with the scaling that
/// fixes them, not reported as a singular operator or solved to infinities.
#[test]
fn spacings_out_of_range_are_refused() {
    let f = field([8, 6], 12);
    for (h, shift) in [(1e-160, 0.0), (1e160, 0.0), (1e160, 1.0)] {
        let e = try_solve_box(&f, [h, 1.0], shift, [Boundary::Neumann; 2], Laplacian::SecondOrder).unwrap_err();
        assert!(e.to_string().contains("axis 0") && e.to_string().contains("scaled units"), "{h}: {e}");
    }
    let f32s = f.map(|x| x as f32);
    let e = try_solve_box(&f32s, [1.0, 1e-20], 0.0, [Boundary::<f32>::Fixed; 2], Laplacian::SecondOrder).unwrap_err();
    assert!(e.to_string().contains("axis 1") && e.to_string().contains("scaled units"), "{e}");
}

#[test]
fn mirrored_poisson_loses_the_mean_as_periodic_poisson_does() {
    let sides = [[Boundary::Neumann; 2], [Boundary::Periodic; 2]];
    let u = field([9, 12], 11);
    let f = apply_box(&u, [1.0, 0.5], 0.0, sides).map(|x| x + 3.0);
    let solved = solve_box(&f, [1.0, 0.5], 0.0, sides, Laplacian::SecondOrder);
    assert!(mean(&solved).abs() < 1e-13);
    let consistent = f.map(|x| x - mean(&f));
    assert!(max_diff(&apply_box(&solved, [1.0, 0.5], 0.0, sides), &consistent) < 1e-12);
}

/// The same operator solved iteratively (the library's `StencilOperator`, its halo rules, CG).
#[test]
fn box_solves_agree_with_cg_on_the_stencil_operator() {
    let (n, m, h) = (31, 20, 1.0 / 32.0);
    let sides = [Boundary::Value(0.0), Boundary::Neumann];
    let f = Array::from_fn([n, m], |[i, j]| 1.0 + (i as f64 * h).sin() * (j as f64 * 0.3).cos());
    let direct = solve_box(&f, [h, h], 0.0, sides, Laplacian::SecondOrder);
    // `laplacian_5pt` applies +Δ: A u = -f.
    let a = StencilOperator::new(LinearStencil::laplacian_5pt(h), [n, m], sides);
    let mut iterative = Array::zeros([n, m]);
    Cg::new().rtol(1e-13).max_iters(5000).solve(&a, &f.map(|x| -x), &mut iterative);
    let scale = direct.as_slice().iter().fold(0.0f64, |s, x| s.max(x.abs()));
    assert!(max_diff(&direct, &iterative) < 1e-9 * scale, "{}", max_diff(&direct, &iterative));
}

#[test]
fn spectral_box_solves_are_exact_in_the_transforms_modes() {
    // Walls along x (points at (i + 1) hx, hx = 1 / (n + 1)): sines vanishing at 0 and 1. Mirrors
    // along y (points at (j + 1/2) hy, hy = 1 / m): cosines of zero slope at 0 and 1.
    let (n, m) = (23, 16);
    let (hx, hy) = (1.0 / (n + 1) as f64, 1.0 / m as f64);
    let at = |i: usize, j: usize| ((i + 1) as f64 * hx, (j as f64 + 0.5) * hy);
    let modes = [(1.0, 0.0, 1.0), (4.0, 2.0, 0.3), (2.0, 5.0, -0.7)];
    let u = Array::from_fn([n, m], |[i, j]| {
        let (x, y) = at(i, j);
        modes.iter().map(|(a, b, c)| c * (a * PI * x).sin() * (b * PI * y).cos()).sum::<f64>()
    });
    let shift = 2.0;
    let f = Array::from_fn([n, m], |[i, j]| {
        let (x, y) = at(i, j);
        modes
            .iter()
            .map(|(a, b, c)| (shift + PI * PI * (a * a + b * b)) * c * (a * PI * x).sin() * (b * PI * y).cos())
            .sum::<f64>()
    });
    let sides = [Boundary::Fixed, Boundary::Neumann];
    let solved = solve_box(&f, [hx, hy], shift, sides, Laplacian::Spectral);
    assert!(max_diff(&solved, &u) < 1e-13, "{}", max_diff(&solved, &u));
}

#[test]
fn box_refusals_name_the_axis_and_the_fix() {
    let f = Array::<f64, 2>::zeros([6, 5]);
    let mixed = [[Boundary::Value(0.0), Boundary::Neumann], [Boundary::Periodic; 2]];
    let e = try_solve_box(&f, [1.0, 1.0], 0.0, mixed, Laplacian::SecondOrder).unwrap_err();
    assert!(e.to_string().contains("axis 0") && e.to_string().contains("one kind"), "{e}");
    let half_periodic = [[Boundary::Neumann; 2], [Boundary::Periodic, Boundary::Fixed]];
    let e = try_solve_box(&f, [1.0, 1.0], 0.0, half_periodic, Laplacian::SecondOrder).unwrap_err();
    assert!(e.to_string().contains("axis 1"), "{e}");
    let valued = [Boundary::Value(1.0), Boundary::Neumann];
    let e = try_solve_box(&f, [1.0, 1.0], 0.0, valued, Laplacian::Spectral).unwrap_err();
    assert!(e.to_string().contains("SecondOrder"), "{e}");
    let nan = [Boundary::Value(f64::NAN), Boundary::Neumann];
    let e = try_solve_box(&f, [1.0, 1.0], 0.0, nan, Laplacian::SecondOrder).unwrap_err();
    assert!(e.to_string().contains("finite"), "{e}");
    // An empty axis between walls: refused, not a panic in the lifting of the wall values.
    let empty = Array::<f64, 2>::zeros([0, 3]);
    let e = try_solve_box(&empty, [1.0, 1.0], 0.0, [Boundary::Value(1.0), Boundary::Neumann], Laplacian::SecondOrder)
        .unwrap_err();
    assert!(e.to_string().contains("no points"), "{e}");
    // Mirrors alone, Helmholtz at the resonance of mode (1, 0): -4 sin²(π / 12).
    let resonance = -4.0 * (PI / 12.0).sin().powi(2);
    let e = try_solve_box(&f, [1.0, 1.0], resonance, [Boundary::Neumann; 2], Laplacian::SecondOrder).unwrap_err();
    assert!(e.to_string().contains("singular") && e.to_string().contains("[1, 0]"), "{e}");
}

/// As CG's preconditioner: exact for the operator it inverts (one iteration, through the
/// operator's halo), and a few iterations for a smoothly varying coefficient where plain CG takes
/// hundreds; the same solution either way.
#[test]
fn the_box_solve_preconditions_cg() {
    let (n, m, h) = (63, 48, 1.0 / 64.0);
    let sides = [Boundary::Value(0.0), Boundary::Periodic];
    let f = Array::from_fn([n, m], |[i, j]| 1.0 + (i as f64 * h * 5.0).sin() * (j as f64 * 0.4).cos());
    // -Δ_h, positive definite as the preconditioner.
    let (c, e) = (4.0 / (h * h), -1.0 / (h * h));
    let minus_laplacian = DynStencil::new([([0, 0], c), ([-1, 0], e), ([1, 0], e), ([0, -1], e), ([0, 1], e)]);
    let exact = StencilOperator::new(minus_laplacian, [n, m], sides);
    assert!(LinearOperator::<f64, 2, cnda::Cpu>::halo(&exact).iter().all(|&w| w == 1));
    let mut u = Array::zeros([n, m]);
    let m_exact = BoxPreconditioner::new([n, m], [h, h], 0.0, sides);
    let report = Cg::new().rtol(1e-12).preconditioner(m_exact).solve(&exact, &f, &mut u);
    assert!(report.iterations <= 2, "{report:?}");
    assert!(max_diff(&u, &solve_box(&f, [h, h], 0.0, sides, Laplacian::SecondOrder)) < 1e-10);
    // -∇·(k ∇u) with k between 1 and 2, walls along x and periodic along y.
    let k = |x: f64, y: f64| 1.5 + 0.5 * (2.0 * PI * x).sin() * (2.0 * PI * y / (m as f64 * h)).cos();
    let variable = FnOperator::new([n, m], move |u: &Array<f64, 2>, y: &mut Array<f64, 2>| {
        let at = |i: isize, j: usize| if (0..n as isize).contains(&i) { u[[i as usize, j]] } else { 0.0 };
        for i in 0..n {
            for j in 0..m {
                let (x, yy) = ((i + 1) as f64 * h, j as f64 * h);
                let (jm, jp) = ((j + m - 1) % m, (j + 1) % m);
                let c = u[[i, j]];
                let flux_x =
                    k(x - h / 2.0, yy) * (c - at(i as isize - 1, j)) - k(x + h / 2.0, yy) * (at(i as isize + 1, j) - c);
                let flux_y = k(x, yy - h / 2.0) * (c - u[[i, jm]]) - k(x, yy + h / 2.0) * (u[[i, jp]] - c);
                y[[i, j]] = (flux_x + flux_y) / (h * h);
            }
        }
    });
    let mut plain = Array::zeros([n, m]);
    let plain_report = Cg::new().rtol(1e-10).max_iters(5000).solve(&variable, &f, &mut plain);
    let mut preconditioned = Array::zeros([n, m]);
    let m_inv = BoxPreconditioner::new([n, m], [h, h], 0.0, sides);
    let report = Cg::new().rtol(1e-10).preconditioner(m_inv.clone()).solve(&variable, &f, &mut preconditioned);
    assert!(report.iterations * 4 < plain_report.iterations, "{} vs {}", report.iterations, plain_report.iterations);
    // The work counts each application at its flop estimate (two transforms along each axis).
    let per_application = (5.0 * (n as f64).log2() + 5.0 * (m as f64).log2()) / 10.0;
    let applied = report.work - (report.iterations as f64 + 1.0);
    let applications = applied / per_application;
    assert!(
        (applications - applications.round()).abs() < 1e-9 && applications >= report.iterations as f64,
        "{report:?}"
    );
    let scale = plain.as_slice().iter().fold(0.0f64, |s, x| s.max(x.abs()));
    assert!(max_diff(&plain, &preconditioned) < 1e-7 * scale, "{}", max_diff(&plain, &preconditioned));
    // Vectors of another shape are refused, named.
    let mut z = Array::zeros([n, m]);
    let e = m_inv.try_apply(&Array::zeros([n + 2, m]), &mut z, [0, 0]).unwrap_err();
    assert!(e.to_string().contains("BoxPreconditioner"), "{e}");
    assert!(BoxPreconditioner::<f64, 2>::try_new([n, 0], [h, h], 0.0, sides).is_err());
    // A resonant shift is refused when made, not at CG's first application: mode (1, 0) of
    // mirrors on a 6 x 5 grid of unit spacing.
    let resonance = -4.0 * (PI / 12.0).sin().powi(2);
    let e = BoxPreconditioner::<f64, 2>::try_new([6, 5], [1.0, 1.0], resonance, [Boundary::Neumann; 2]).unwrap_err();
    assert!(e.to_string().contains("singular") && e.to_string().contains("[1, 0]"), "{e}");
    assert!(BoxPreconditioner::<f64, 2>::try_new(
        [n, m],
        [h, h],
        0.0,
        [[Boundary::Neumann, Boundary::Fixed], [Boundary::Periodic; 2]]
    )
    .is_err());
}
