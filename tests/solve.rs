//! The Krylov solvers on the CPU against a dense reference (the operator assembled from its taps
//! by a naive loop and solved by Gaussian elimination), manufactured solutions, property tests on
//! random matrices, and the typed errors.

use cnda::prelude::*;
use cnda::solve::{
    Bicgstab, Cg, ExprOperator, FnOperator, Gmres, Jacobi, LinearOperator, Minres, Multigrid, MultigridOptions,
    SolveOptions, StencilOperator, VariableOperator,
};
use cnda::stencil::{Boundary, DynStencil, LinearStencil, VariableStencil};
use cnda::Error;
use proptest::prelude::*;

#[path = "common/dense.rs"]
mod dense;
use dense::{assemble, gauss, matvec, Edge};

/// The largest difference between a solution and the dense reference, over the reference's
/// largest magnitude.
fn relative_error(x: &Array<f64, 2>, reference: &[f64]) -> f64 {
    let scale = reference.iter().fold(0f64, |m, v| m.max(v.abs()));
    x.iter().zip(reference).fold(0f64, |m, (a, b)| m.max((a - b).abs())) / scale
}

fn rhs(shape: [usize; 2]) -> Array<f64, 2> {
    Array::from_fn(shape, |[i, j]| ((i * 7 + j * 3) % 11) as f64 - 4.5 + 0.25 * (i as f64).sin())
}

/// CG on a stencil, constant or with coefficient fields, sweeps the product in slabs and sums
/// `p · A p` from each while it is in cache (on the CPU): the same iterates as an operator that
/// only applies, to rounding (the products' sums in another order), on grids of many slabs in 2D
/// and 3D, every kind of side.
#[test]
fn cg_on_a_stencil_sums_p_dot_ap_from_the_slabs_as_a_separate_pass_would() {
    struct Plain<'a, A>(&'a A);
    impl<const N: usize, A: LinearOperator<f64, N, Cpu>> LinearOperator<f64, N, Cpu> for Plain<'_, A> {
        fn shape(&self) -> [usize; N] {
            self.0.shape()
        }
        fn halo(&self) -> [usize; N] {
            self.0.halo()
        }
        fn try_apply(&self, x: &mut Array<f64, N>, y: &mut Array<f64, N>) -> cnda::Result<()> {
            self.0.try_apply(x, y)
        }
    }
    fn compare<const N: usize, A: LinearOperator<f64, N, Cpu>>(a: &A, b: &Array<f64, N>) {
        assert!(a.applies_in_slabs());
        let cg = Cg::new().rtol(1e-10);
        let (mut x, mut y) = (Array::zeros(b.shape()), Array::zeros(b.shape()));
        let (fused, plain) = (cg.solve(a, b, &mut x), cg.solve(&Plain(a), b, &mut y));
        assert_eq!(fused.iterations, plain.iterations, "{fused:?} {plain:?}");
        let close = |p: f64, q: f64| (p - q).abs() <= 1e-9 * q.abs().max(1e-300);
        assert!(fused.residual_history.iter().zip(&plain.residual_history).all(|(&p, &q)| close(p, q)));
        let scale = y.iter().fold(0f64, |m, v| m.max(v.abs()));
        assert!(x.iter().zip(y.iter()).all(|(p, q)| (p - q).abs() <= 1e-10 * scale));
    }
    let taps = [([-1, 0], -1.0), ([1, 0], -1.0), ([0, -1], -1.0), ([0, 1], -1.0), ([0, 0], 4.5)];
    let sides = [[Boundary::Value(0.0), Boundary::Neumann], [Boundary::Periodic; 2]];
    let a = StencilOperator::new(DynStencil::new(taps), [61, 1200], sides);
    compare(&a, &Array::from_fn([61, 1200], |[i, j]| ((i * 7 + j * 3) % 11) as f64 - 4.5));
    let seven = DynStencil::new([
        ([0, 0, 0], 6.5),
        ([-1, 0, 0], -1.0),
        ([1, 0, 0], -1.0),
        ([0, -1, 0], -1.0),
        ([0, 1, 0], -1.0),
        ([0, 0, -1], -1.0),
        ([0, 0, 1], -1.0),
    ]);
    let a = StencilOperator::new(seven, [9, 40, 200], [Boundary::Value(0.0), Boundary::Neumann, Boundary::Value(0.0)]);
    compare(&a, &Array::from_fn([9, 40, 200], |[i, j, k]| ((i * 7 + j * 3 + k) % 11) as f64 - 4.5));
    // A conductivity: five fields streamed alongside each slab.
    let k = Array::from_fn([61, 1200], |[i, j]| 1.0 + ((i * 3 + j * 5) % 7) as f64);
    let a = VariableOperator::diffusion_in(&Cpu, &k, [1.0; 2], 0.5, sides);
    compare(&a, &Array::from_fn([61, 1200], |[i, j]| ((i * 7 + j * 3) % 11) as f64 - 4.5));
}

#[test]
fn cg_solves_poisson_with_walls_as_the_dense_solve_does() {
    let shape = [13, 17];
    let stencil = LinearStencil::laplacian_5pt(0.1);
    let a = StencilOperator::new(stencil, shape, [Boundary::Value(0.0); 2]);
    let b = rhs(shape);
    let mut x = Array::zeros(shape);
    let report = Cg::new().rtol(1e-12).solve(&a, &b, &mut x);
    let reference = gauss(assemble(stencil.taps(), shape, [Edge::Zero; 2]), b.iter().copied().collect());
    assert!(relative_error(&x, &reference) < 1e-9, "{}", relative_error(&x, &reference));
    assert!(report.iterations <= 13 * 17, "{report:?}");
    assert_eq!(report.residual_history.len(), report.iterations + 1);
    assert!(report.residual_norm() <= report.threshold);
    // The history is the residual of the iterate: recomputed here from the dense matrix.
    let m = assemble(stencil.taps(), shape, [Edge::Zero; 2]);
    let ax = matvec(&m, &x.iter().copied().collect::<Vec<_>>());
    let true_residual = ax.iter().zip(b.iter()).map(|(p, q)| (q - p).powi(2)).sum::<f64>().sqrt();
    assert!(
        (true_residual - report.residual_norm()).abs() <= 1e-6 * report.threshold.max(1e-300) + 1e-9,
        "{true_residual} {report:?}"
    );
}

/// `−Δ − k²` (5-point, spacing `h`, zero walls) with `k²` between the operator's eigenvalues:
/// symmetric, indefinite, positive diagonal.
fn helmholtz(h: f64, k2: f64) -> DynStencil<f64, 2> {
    let d = 1.0 / (h * h);
    DynStencil::new([([-1, 0], -d), ([1, 0], -d), ([0, -1], -d), ([0, 1], -d), ([0, 0], 4.0 * d - k2)])
}

#[test]
fn minres_solves_an_indefinite_helmholtz_problem_as_the_dense_solve_does() {
    let shape = [15, 13];
    // The eigenvalues of −Δ here run from 18 to 1615: k² = 550 has 50 of the 195 below it and
    // lies 9.6 from the nearest (a condition number of about 170).
    let stencil = helmholtz(0.07, 550.0);
    let a = StencilOperator::new(stencil.clone(), shape, [Boundary::Value(0.0); 2]);
    let b = rhs(shape);
    let reference = gauss(assemble(stencil.taps(), shape, [Edge::Zero; 2]), b.iter().copied().collect());
    let mut x = Array::zeros(shape);
    let report = Minres::new().rtol(1e-11).solve(&a, &b, &mut x);
    assert!(relative_error(&x, &reference) < 1e-8, "{} {report:?}", relative_error(&x, &reference));
    // Minimal residual: the history never grows; and it is the true residual, to rounding.
    let h = &report.residual_history;
    assert!(h.windows(2).all(|w| w[1] <= w[0] * (1.0 + 1e-12)), "{h:?}");
    let m = assemble(stencil.taps(), shape, [Edge::Zero; 2]);
    let ax = matvec(&m, &x.iter().copied().collect::<Vec<_>>());
    let true_residual = ax.iter().zip(b.iter()).map(|(p, q)| (q - p).powi(2)).sum::<f64>().sqrt();
    assert!((true_residual - report.residual_norm()).abs() <= 1e-3 * report.threshold, "{true_residual} {report:?}");
    assert_eq!(report.work, (report.iterations + 1) as f64);

    // Preconditioned by the (positive) diagonal: the same solution, the true residual recorded.
    let diagonal = Array::full(shape, 4.0 / (0.07 * 0.07) - 550.0);
    let mut y = Array::zeros(shape);
    let preconditioned = Minres::new().rtol(1e-11).preconditioner(Jacobi::new(&diagonal)).solve(&a, &b, &mut y);
    assert!(relative_error(&y, &reference) < 1e-8, "{preconditioned:?}");
    let ay = matvec(&m, &y.iter().copied().collect::<Vec<_>>());
    let true_residual = ay.iter().zip(b.iter()).map(|(p, q)| (q - p).powi(2)).sum::<f64>().sqrt();
    assert!(
        (true_residual - preconditioned.residual_norm()).abs() <= 1e-3 * preconditioned.threshold,
        "{true_residual} {preconditioned:?}"
    );

    // A preconditioner that is not positive definite is a breakdown that says so.
    let negative = Array::full(shape, -1.0);
    let e = Minres::new().preconditioner(Jacobi::new(&negative)).try_solve(&a, &b, &mut Array::zeros(shape));
    match e {
        Err(Error::Breakdown { method: "minres", ref reason, .. }) => {
            assert!(reason.contains("positive definite"), "{e:?}")
        }
        other => panic!("{other:?}"),
    }
}

/// `-Laplace + c d/dx + shift`: nonsymmetric, with mirrored (Neumann) walls on axis 0 and a
/// periodic axis 1.
fn convection_diffusion() -> DynStencil<f64, 2> {
    DynStencil::new([([-1, 0], -1.0), ([1, 0], -1.0), ([0, -1], -1.0 - 0.8), ([0, 1], -1.0 + 0.8), ([0, 0], 4.5)])
}

#[test]
fn bicgstab_and_gmres_solve_a_nonsymmetric_operator_with_mirrored_and_periodic_sides() {
    let shape = [11, 14];
    let stencil = convection_diffusion();
    let a = StencilOperator::new(stencil.clone(), shape, [Boundary::Neumann, Boundary::Periodic]);
    let b = rhs(shape);
    let reference = gauss(assemble(stencil.taps(), shape, [Edge::Mirror, Edge::Wrap]), b.iter().copied().collect());
    let mut x = Array::zeros(shape);
    let report = Bicgstab::new().rtol(1e-11).solve(&a, &b, &mut x);
    assert!(relative_error(&x, &reference) < 1e-8, "bicgstab {} {report:?}", relative_error(&x, &reference));
    for restart in [5, 30] {
        let mut x = Array::zeros(shape);
        let report = Gmres::new().options(SolveOptions::default().rtol(1e-11).restart(restart)).solve(&a, &b, &mut x);
        assert!(
            relative_error(&x, &reference) < 1e-8,
            "gmres({restart}) {} {report:?}",
            relative_error(&x, &reference)
        );
        // GMRES minimizes the residual: its estimates never grow within a cycle.
        if restart == 30 {
            let h = &report.residual_history;
            assert!(h.windows(2).take(29).all(|w| w[1] <= w[0] * (1.0 + 1e-12)), "{h:?}");
        }
    }
}

#[test]
fn jacobi_cuts_the_iterations_of_a_variable_coefficient_diffusion() {
    // y = -div(k grad x) + x in 1D with k jumping by 1000, as a closure; its diagonal is known.
    let n = 200;
    let k = Array::from_fn([n + 1], |[i]| if i < n / 2 { 1.0 } else { 1000.0 });
    let apply = |x: &Array<f64, 1>, y: &mut Array<f64, 1>| {
        for i in 0..n {
            let left = if i > 0 { x[[i - 1]] } else { 0.0 };
            let right = if i + 1 < n { x[[i + 1]] } else { 0.0 };
            y[[i]] = k[[i]] * (x[[i]] - left) + k[[i + 1]] * (x[[i]] - right) + x[[i]];
        }
    };
    let diagonal = Array::from_fn([n], |[i]| k[[i]] + k[[i + 1]] + 1.0);
    let a = FnOperator::new([n], apply);
    let b = Array::from_fn([n], |[i]| (i as f64 * 0.3).cos());
    let (mut plain, mut jacobi) = (Array::zeros([n]), Array::zeros([n]));
    let cg = Cg::new().rtol(1e-10);
    let r1 = cg.solve(&a, &b, &mut plain);
    let r2 = cg.clone().preconditioner(Jacobi::new(&diagonal)).solve(&a, &b, &mut jacobi);
    assert!(r2.iterations < r1.iterations, "{} vs {}", r2.iterations, r1.iterations);
    let mut back = Array::zeros([n]);
    apply(&jacobi, &mut back);
    let err = (&back - &b).map(|v| v * v).sum().sqrt() / b.map(|v| v * v).sum().sqrt();
    assert!(err <= 1e-10 * 1.01, "{err}");
    assert!(plain.iter().zip(jacobi.iter()).all(|(p, q)| (p - q).abs() < 1e-8));
    // The same preconditioner serves BiCGSTAB and GMRES on the right.
    for x in [&mut plain, &mut jacobi] {
        x.fill(0.0);
    }
    Bicgstab::new().rtol(1e-10).preconditioner(Jacobi::new(&diagonal)).solve(&a, &b, &mut plain);
    Gmres::new().rtol(1e-10).preconditioner(Jacobi::new(&diagonal)).solve(&a, &b, &mut jacobi);
    assert!(plain.iter().zip(jacobi.iter()).all(|(p, q)| (p - q).abs() < 1e-7));
}

/// The 5-point `-div(k grad u)` with a conductivity varying over three orders of magnitude, as
/// a `VariableOperator` (a coefficient field per tap), solved by CG with its diagonal as Jacobi
/// preconditioner, against the dense solve of the matrix assembled from the same fields.
/// Diffusion with a conductivity spanning three decades (`k` at the padded points) and the
/// harmonic mean at each face, in conservative form with zero walls on `shape`: the taps' offsets,
/// a coefficient field per tap (padded, zero outside), the dense matrix row by row from the same
/// coefficients, and the conductivity.
struct Harmonic {
    offsets: [[isize; 2]; 5],
    fields: Vec<Array<f64, 2>>,
    dense: Vec<Vec<f64>>,
    k: Array<f64, 2>,
}

fn harmonic(shape: [usize; 2]) -> Harmonic {
    let k = |i: usize, j: usize| 10f64.powf(((i * 7 + j * 5) % 13) as f64 / 4.0);
    let face = |a: f64, b: f64| 2.0 * a * b / (a + b);
    let offsets = [[-1, 0], [1, 0], [0, -1], [0, 1], [0, 0]];
    let neighbour = |[i, j]: [usize; 2], o: [isize; 2]| [(i as isize + o[0]) as usize, (j as isize + o[1]) as usize];
    let inside = |[i, j]: [usize; 2]| (1..=shape[0]).contains(&i) && (1..=shape[1]).contains(&j);
    let coefficient = |tap: usize, p: [usize; 2]| {
        if !inside(p) {
            return 0.0;
        }
        let across = |t: usize| {
            let q = neighbour(p, offsets[t]);
            face(k(p[0], p[1]), k(q[0], q[1]))
        };
        if tap < 4 {
            -across(tap)
        } else {
            (0..4).map(across).sum()
        }
    };
    let padded = [shape[0] + 2, shape[1] + 2];
    let fields: Vec<Array<f64, 2>> = (0..5).map(|t| Array::from_fn(padded, |[i, j]| coefficient(t, [i, j]))).collect();
    let n = shape[0] * shape[1];
    let mut dense = vec![vec![0.0; n]; n];
    for i in 0..shape[0] {
        for j in 0..shape[1] {
            for (t, o) in offsets.iter().enumerate() {
                let q = neighbour([i + 1, j + 1], *o);
                if inside(q) {
                    dense[i * shape[1] + j][(q[0] - 1) * shape[1] + q[1] - 1] += coefficient(t, [i + 1, j + 1]);
                }
            }
        }
    }
    Harmonic { offsets, fields, dense, k: Array::from_fn(padded, |[i, j]| k(i, j)) }
}

#[test]
fn a_variable_coefficient_operator_solves_as_the_dense_matrix_does() {
    let shape = [12, 15];
    let Harmonic { offsets, fields, dense, .. } = harmonic(shape);
    let a = VariableOperator::new(VariableStencil::new(offsets), fields, [Boundary::Value(0.0); 2]);
    let b = rhs(shape);
    let reference = gauss(dense, b.iter().copied().collect());
    let (mut plain, mut preconditioned) = (Array::zeros(shape), Array::zeros(shape));
    let r1 = Cg::new().rtol(1e-12).solve(&a, &b, &mut plain);
    let r2 = Cg::new().rtol(1e-12).preconditioner(Jacobi::new(&a.diagonal())).solve(&a, &b, &mut preconditioned);
    assert!(relative_error(&plain, &reference) < 1e-8, "{}", relative_error(&plain, &reference));
    assert!(relative_error(&preconditioned, &reference) < 1e-8);
    assert!(r2.iterations < r1.iterations, "{} vs {}", r2.iterations, r1.iterations);
    let e = VariableOperator::try_new(
        VariableStencil::new(offsets),
        vec![Array::<f64, 2>::zeros([3, 3])],
        [Boundary::Value(0.0); 2],
    )
    .unwrap_err();
    assert!(e.to_string().contains("1 coefficient fields for 5 taps"), "{e}");
}

/// The same operator written with `stencil!` (the harmonic means computed from `k` at each
/// point): its coefficients, found by probing, are bit for bit the hand-built fields; it solves
/// as the dense matrix does, plain and with multigrid on its variable form; and its application
/// fills a mirrored halo as the boundary says.
#[test]
fn a_stencil_macro_operator_probes_to_its_coefficients_and_solves() {
    let shape = [15, 15]; // odd: multigrid coarsens it
    let Harmonic { offsets, fields, dense, k } = harmonic(shape);
    let conservative = stencil!(|u, k; c: T| {
        let kn = 2.0 * k[0, 0] * k[-1, 0] / (k[0, 0] + k[-1, 0]);
        let ks = 2.0 * k[0, 0] * k[1, 0] / (k[0, 0] + k[1, 0]);
        let kw = 2.0 * k[0, 0] * k[0, -1] / (k[0, 0] + k[0, -1]);
        let ke = 2.0 * k[0, 0] * k[0, 1] / (k[0, 0] + k[0, 1]);
        c * (kn * (u[0, 0] - u[-1, 0]) + ks * (u[0, 0] - u[1, 0]) + kw * (u[0, 0] - u[0, -1]) + ke * (u[0, 0] - u[0, 1]))
    });
    let a = ExprOperator::new(conservative, shape, [Boundary::Value(0.0); 2], k.clone(), (1.0,));
    let probed = a.to_variable_in(&Cpu);
    for (t, o) in offsets.iter().enumerate() {
        let p = probed.stencil().offsets().iter().position(|q| q == o).unwrap();
        assert_eq!(probed.coefficients()[p], fields[t], "the coefficients of the tap at {o:?}");
    }
    let b = rhs(shape);
    let reference = gauss(dense, b.iter().copied().collect());
    let mut x = Array::zeros(shape);
    let plain = Cg::new().rtol(1e-12).solve(&a, &b, &mut x);
    assert!(relative_error(&x, &reference) < 1e-8, "{}", relative_error(&x, &reference));
    let mg = Multigrid::for_variable(&probed, MultigridOptions { coarsest: 9, ..Default::default() });
    let mut y = Array::zeros(shape);
    let preconditioned = Cg::new().rtol(1e-12).preconditioner(mg).solve(&a, &b, &mut y);
    assert!(relative_error(&y, &reference) < 1e-8, "{}", relative_error(&y, &reference));
    assert!(preconditioned.iterations * 3 < plain.iterations, "{preconditioned:?} {plain:?}");

    // One application with a mirrored axis, against a naive loop over the halo it fills.
    let mirrored = ExprOperator::new(conservative, shape, [Boundary::Value(0.0), Boundary::Neumann], k.clone(), (0.5,));
    let mut u = Array::from_fn([shape[0] + 2, shape[1] + 2], |[i, j]| ((i * 5 + j * 3) % 7) as f64 - 3.0);
    let mut out = Array::zeros(u.shape());
    LinearOperator::<f64, 2, Cpu>::try_apply(&mirrored, &mut u, &mut out).unwrap();
    let at = |i: usize, j: usize| {
        let j = j.clamp(1, shape[1]); // the mirror of a radius of one repeats the edge
        if (1..=shape[0]).contains(&i) {
            u[[i, j]]
        } else {
            0.0
        }
    };
    let face = |a: f64, b: f64| 2.0 * a * b / (a + b);
    for i in 1..=shape[0] {
        for j in 1..=shape[1] {
            let c = k[[i, j]];
            let naive = 0.5
                * (face(c, k[[i - 1, j]]) * (at(i, j) - at(i - 1, j))
                    + face(c, k[[i + 1, j]]) * (at(i, j) - at(i + 1, j))
                    + face(c, k[[i, j - 1]]) * (at(i, j) - at(i, j - 1))
                    + face(c, k[[i, j + 1]]) * (at(i, j) - at(i, j + 1)));
            assert!((out[[i, j]] - naive).abs() <= 1e-12 * naive.abs().max(1.0), "{i} {j}: {} {naive}", out[[i, j]]);
        }
    }
}

/// A coefficient read further out than the unknown (here two points along axis 0) pads the
/// operator's vectors wider than its probed variable form's: multigrid on that form still
/// preconditions it.
#[test]
fn multigrid_on_a_probed_operator_takes_vectors_padded_wider() {
    let shape = [31, 31];
    let smoothed = stencil!(|u, k| {
        let c = 0.25 * (k[-2, 0] + 2.0 * k[0, 0] + k[2, 0]);
        c * (4.0 * u[0, 0] - u[-1, 0] - u[1, 0] - u[0, -1] - u[0, 1])
    });
    let k = Array::from_fn([35, 33], |[i, j]| 1.0 + ((i / 4 + j / 5) % 3) as f64);
    let a = ExprOperator::new(smoothed, shape, [Boundary::Value(0.0); 2], k, ());
    let probed = a.to_variable_in(&Cpu);
    assert_eq!((LinearOperator::<f64, 2, Cpu>::halo(&a), probed.halo()), ([2, 1], [1, 1]));
    let mg = Multigrid::for_variable(&probed, MultigridOptions { coarsest: 9, ..Default::default() });
    let b = rhs(shape);
    let (mut x, mut y) = (Array::zeros(shape), Array::zeros(shape));
    let report = Cg::new().rtol(1e-10).preconditioner(mg).solve(&a, &b, &mut x);
    let plain = Cg::new().rtol(1e-10).solve(&a, &b, &mut y);
    assert!(report.iterations * 3 < plain.iterations, "{report:?} {plain:?}");
    assert!(relative_error(&x, y.as_slice()) < 1e-7, "{}", relative_error(&x, y.as_slice()));
}

/// Linearity is decided on the expression: products with coefficients and parameters, sums,
/// quotients by constants, selections on the coefficients, `powi(_, 1)` are linear; the rest is
/// refused with the operation named, and a wrong field shape with the shapes.
#[test]
fn a_stencil_macro_operator_must_be_linear_in_its_first_field() {
    let walls = [Boundary::Value(0.0)];
    let k = Array::<f64, 1>::ones([10]);
    macro_rules! refused {
        ($stencil:expr, $fields:expr, $says:literal) => {{
            let e = ExprOperator::try_new($stencil, [8], walls, $fields, ()).unwrap_err();
            assert!(matches!(e, Error::Parameter { .. }) && e.to_string().contains($says), "{e}");
        }};
    }
    refused!(stencil!(|u| u[0] * u[1]), (), "multiplies two terms");
    refused!(stencil!(|u| u[0] + 1.0), (), "affine");
    refused!(stencil!(|u| exp(u[0])), (), "nonlinear function");
    refused!(stencil!(|u| u[0].powi(2)), (), "nonlinear function");
    refused!(stencil!(|u, k| k[0] / u[0]), k.clone(), "divides by a term");
    refused!(stencil!(|u| select(u[0] > 0.0, u[0], -u[0])), (), "compares or selects");
    refused!(stencil!(|u| min(u[0], u[1])), (), "nonlinear function");
    refused!(stencil!(|u, k| k[0] * 2.0), k.clone(), "does not read `u`");
    let linear = ExprOperator::try_new(
        stencil!(|u, k| select(k[0] > 0.5, -u[-1], 0.0) + (k[0] * u[0] - u[1]).powi(1) / 2.0),
        [8],
        walls,
        k.clone(),
        (),
    );
    let a = linear.unwrap();
    let diagonal = a.to_variable_in(&Cpu).diagonal();
    assert_eq!(diagonal, Array::full([8], 0.5));
    let e = ExprOperator::try_new(stencil!(|u, k| k[0] * u[0]), [8], walls, Array::ones([9]), ()).unwrap_err();
    assert!(matches!(e, Error::ShapeMismatch { .. }), "{e:?}");
}

/// `-Laplace u = f` with `u = sin(pi x) sin(pi y)` on the unit square: the 5-point solution's
/// error falls as `h^2` (a ratio near 4 per halving of `h`).
#[test]
fn the_five_point_poisson_solution_converges_at_second_order() {
    let error = |n: usize| {
        let h = 1.0 / (n + 1) as f64;
        let exact = Array::from_fn([n, n], |[i, j]| {
            let (x, y) = ((i + 1) as f64 * h, (j + 1) as f64 * h);
            (std::f64::consts::PI * x).sin() * (std::f64::consts::PI * y).sin()
        });
        let f = exact.map(|u| -2.0 * std::f64::consts::PI.powi(2) * u); // Laplace u
        let a = StencilOperator::new(LinearStencil::laplacian_5pt(h), [n, n], [Boundary::Value(0.0); 2]);
        let mut u = Array::zeros([n, n]);
        Cg::new().rtol(1e-12).solve(&a, &f, &mut u);
        (&u - &exact).map(f64::abs).max().unwrap()
    };
    let (e1, e2, e3) = (error(15), error(31), error(63));
    for ratio in [e1 / e2, e2 / e3] {
        assert!((3.8..4.2).contains(&ratio), "{e1} {e2} {e3}");
    }
}

#[test]
fn f32_and_3d_solve_too() {
    let shape = [9, 10, 11];
    let a = StencilOperator::new(LinearStencil::<f32, 3, 1, 7>::laplacian_7pt(1.0), shape, [Boundary::Value(0.0); 3]);
    let b = Array::from_fn(shape, |[i, j, k]| ((i + 2 * j + 3 * k) % 5) as f32 - 2.0);
    let mut x = Array::zeros(shape);
    let report = Cg::new().rtol(1e-5).solve(&a, &b, &mut x);
    let taps: Vec<([isize; 3], f64)> = LinearStencil::<f64, 3, 1, 7>::laplacian_7pt(1.0).taps().to_vec();
    let m = assemble(&taps, shape, [Edge::Zero; 3]);
    let ax = matvec(&m, &x.iter().map(|&v| v as f64).collect::<Vec<_>>());
    let r = ax.iter().zip(b.iter()).map(|(p, &q)| (q as f64 - p).powi(2)).sum::<f64>().sqrt();
    let bn = b.iter().map(|&v| (v as f64).powi(2)).sum::<f64>().sqrt();
    assert!(r <= 2e-5 * bn, "{r} {bn} {report:?}");
}

#[test]
fn a_zero_right_hand_side_or_an_exact_guess_takes_no_iteration() {
    let a = StencilOperator::new(LinearStencil::laplacian_5pt(1.0), [6, 6], [Boundary::Value(0.0); 2]);
    let mut x = Array::full([6, 6], 3.0);
    let report = Cg::new().solve(&a, &Array::zeros([6, 6]), &mut x);
    assert_eq!((report.iterations, x.sum()), (0, 0.0));
    let b = rhs([6, 6]);
    Gmres::new().rtol(1e-13).solve(&a, &b, &mut x);
    let again = Bicgstab::new().rtol(1e-6).solve(&a, &b, &mut x);
    assert_eq!(again.iterations, 0);
}

#[test]
fn errors_say_what_failed_and_leave_the_last_iterate() {
    let shape = [20, 20];
    let a = StencilOperator::new(LinearStencil::laplacian_5pt(1.0), shape, [Boundary::Value(0.0); 2]);
    let b = rhs(shape);
    let mut x = Array::zeros(shape);
    let e = Cg::new().max_iters(3).try_solve(&a, &b, &mut x).unwrap_err();
    assert!(matches!(e, Error::NotConverged { method: "cg", iterations: 3, .. }), "{e:?}");
    assert!(e.to_string().contains("max_iters"), "{e}");
    assert!(x.iter().any(|&v| v != 0.0), "the last iterate is kept");

    // An indefinite diagonal: p · A p = 1 - 1 = 0 at once.
    let d = Array::from_shape_vec([2], vec![1.0, -1.0]).unwrap();
    let indefinite = FnOperator::new([2], |x: &Array<f64, 1>, y: &mut Array<f64, 1>| y.assign(&(x * &d)));
    let e = Cg::new().try_solve(&indefinite, &Array::ones([2]), &mut Array::zeros([2])).unwrap_err();
    assert!(matches!(e, Error::Breakdown { method: "cg", iteration: 0, .. }), "{e:?}");
    assert!(e.to_string().contains("GMRES"), "{e}");
    // GMRES solves it.
    let mut x = Array::zeros([2]);
    Gmres::new().solve(&indefinite, &Array::ones([2]), &mut x);
    assert!((x[[0]] - 1.0).abs() < 1e-14 && (x[[1]] + 1.0).abs() < 1e-14, "{x:?}");

    let e = Cg::new().rtol(-1.0).try_solve(&a, &b, &mut Array::zeros([3, 3])).unwrap_err();
    assert!(matches!(e, Error::ShapeMismatch { .. }), "{e:?}");
    let e = Cg::new().rtol(-1.0).try_solve(&a, &b, &mut Array::zeros(shape)).unwrap_err();
    assert!(matches!(e, Error::Parameter { .. }) && e.to_string().contains("rtol is -1"), "{e}");
    let e = Gmres::new()
        .options(SolveOptions::default().restart(0))
        .try_solve(&a, &b, &mut Array::zeros(shape))
        .unwrap_err();
    assert!(e.to_string().contains("restart is 0"), "{e}");
    let e = Cg::new().try_solve(&a, &b.map(|v| v * f64::NAN), &mut Array::zeros(shape)).unwrap_err();
    assert!(matches!(e, Error::Parameter { .. }) && e.to_string().contains("NaN"), "{e}");
    let e = StencilOperator::try_new(LinearStencil::laplacian_5pt(1.0), shape, [Boundary::Value(1.0); 2]).unwrap_err();
    assert!(e.to_string().contains("right-hand side"), "{e}");
    let e = StencilOperator::try_new(LinearStencil::laplacian_5pt(1.0), [0, 3], [Boundary::Value(0.0); 2]).unwrap_err();
    assert!(e.to_string().contains("empty"), "{e}");
}

/// Safe code that misuses the traits gets errors, never a kernel outside an array: an operator
/// that swaps its output for another shape, a preconditioner applied with an absurd halo.
#[test]
fn misbehaving_operators_and_halos_are_errors() {
    use cnda::solve::Preconditioner;
    let shrinking = FnOperator::new([8], |_: &Array<f64, 1>, y: &mut Array<f64, 1>| *y = Array::zeros([3]));
    let e = Cg::new().try_solve(&shrinking, &Array::ones([8]), &mut Array::zeros([8])).unwrap_err();
    assert!(matches!(e, Error::ShapeMismatch { .. }), "{e:?}");
    let jacobi = Jacobi::new(&Array::<f64, 1>::ones([4]));
    let (r, mut z) = (Array::<f64, 1>::ones([4]), Array::<f64, 1>::zeros([4]));
    let e = jacobi.try_apply(&r, &mut z, [1 << 63]).unwrap_err();
    assert!(matches!(e, Error::Overflow { .. }), "{e:?}");
    let e = jacobi.try_apply(&r, &mut z, [1]).unwrap_err();
    assert!(matches!(e, Error::ShapeMismatch { .. }), "{e:?}");
    let a = StencilOperator::new(LinearStencil::laplacian_5pt(1.0), [4, 4], [Boundary::Value(0.0); 2]);
    let e = Cg::new().max_iters(0).try_solve(&a, &rhs([4, 4]), &mut Array::zeros([4, 4])).unwrap_err();
    assert!(e.to_string().contains("max_iters is 0"), "{e}");
}

#[test]
#[should_panic(expected = "no convergence in 2 iterations")]
fn solve_panics_with_the_message() {
    let a = StencilOperator::new(LinearStencil::laplacian_5pt(1.0), [9, 9], [Boundary::Value(0.0); 2]);
    Cg::new().max_iters(2).solve(&a, &rhs([9, 9]), &mut Array::zeros([9, 9]));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Random symmetric positive definite matrices (M^T M + I): CG meets its tolerance, checked
    /// by a naive product.
    #[test]
    fn cg_meets_its_tolerance_on_random_spd_matrices(n in 1usize..24, seed in any::<u64>()) {
        let m = dense::random(n, seed);
        let spd: Vec<Vec<f64>> = (0..n).map(|i| (0..n).map(|j| {
            (0..n).map(|k| m[k][i] * m[k][j]).sum::<f64>() + if i == j { 1.0 } else { 0.0 }
        }).collect()).collect();
        check_solver(&spd, seed, |a, b, x| Cg::new().rtol(1e-10).try_solve(a, b, x).map(|_| ()));
    }

    /// Random symmetric indefinite matrices (diagonals of alternating sign that dominate):
    /// MINRES meets its tolerance, plain and with the diagonal's magnitude as preconditioner.
    #[test]
    fn minres_meets_its_tolerance_on_random_symmetric_indefinite_matrices(n in 1usize..24, seed in any::<u64>()) {
        let m = dense::random(n, seed);
        let symmetric: Vec<Vec<f64>> = (0..n).map(|i| (0..n).map(|j| {
            (m[i][j] + m[j][i]) / 2.0 + if i != j { 0.0 } else if i % 2 == 0 { 2.0 * n as f64 } else { -2.0 * n as f64 }
        }).collect()).collect();
        check_solver(&symmetric, seed, |a, b, x| Minres::new().rtol(1e-10).try_solve(a, b, x).map(|_| ()));
        let magnitude = Array::from_fn([n], |[i]| symmetric[i][i].abs());
        check_solver(&symmetric, seed, |a, b, x| {
            Minres::new().rtol(1e-10).preconditioner(Jacobi::new(&magnitude)).try_solve(a, b, x).map(|_| ())
        });
    }

    /// Random nonsymmetric, diagonally dominant matrices: BiCGSTAB and GMRES meet theirs.
    #[test]
    fn bicgstab_and_gmres_meet_their_tolerance_on_random_matrices(n in 1usize..24, seed in any::<u64>()) {
        let mut m = dense::random(n, seed);
        for (i, row) in m.iter_mut().enumerate() {
            row[i] += 2.0 * n as f64;
        }
        check_solver(&m, seed, |a, b, x| Bicgstab::new().rtol(1e-10).try_solve(a, b, x).map(|_| ()));
        check_solver(&m, seed, |a, b, x| {
            Gmres::new().options(SolveOptions::default().rtol(1e-10).restart(1 + n / 3)).try_solve(a, b, x).map(|_| ())
        });
    }
}

/// Solves `m x = b` for a random `b` with `solve` and checks `‖b − m x‖ ≤ 1e-10 ‖b‖` (a little
/// slack for the last rounding).
fn check_solver(
    m: &[Vec<f64>],
    seed: u64,
    solve: impl Fn(&dyn cnda::solve::LinearOperator<f64, 1, Cpu>, &Array<f64, 1>, &mut Array<f64, 1>) -> cnda::Result<()>,
) {
    let n = m.len();
    let op = FnOperator::new([n], |x: &Array<f64, 1>, y: &mut Array<f64, 1>| {
        let r = matvec(m, x.as_slice());
        y.as_mut_slice().copy_from_slice(&r);
    });
    let b = Array::from_shape_vec([n], dense::random_vec(n, seed ^ 0x5eed)).unwrap();
    let mut x = Array::zeros([n]);
    solve(&op, &b, &mut x).unwrap();
    let r = matvec(m, x.as_slice());
    let res = r.iter().zip(b.iter()).map(|(p, q)| (q - p).powi(2)).sum::<f64>().sqrt();
    let bn = b.iter().map(|q| q * q).sum::<f64>().sqrt();
    assert!(res <= 1.01e-10 * bn, "{res} {bn}");
}
