//! Geometric multigrid: convergence factor per cycle on 2D and 3D Poisson problems at three grid
//! sizes (at most 0.1 per V(2,2) cycle with red-black smoothing, a little more with the default
//! damped Jacobi, independent of the size), CG
//! preconditioned by one cycle (iteration counts that do not grow with the grid), agreement with
//! the dense reference, and the refusals.

use cnda::prelude::*;
use cnda::solve::{Cg, CycleKind, Multigrid, MultigridOptions, Smoother, SolveOptions, StencilOperator};
use cnda::stencil::{Boundary, LinearStencil};

#[path = "common/dense.rs"]
mod dense;

/// The geometric mean of the residual reductions per cycle over a solve to 1e-10, after the
/// first cycle (which removes the smooth start).
fn factor(history: &[f64]) -> f64 {
    let n = history.len() - 2;
    (history[history.len() - 1] / history[1]).powf(1.0 / n as f64)
}

fn rhs<const N: usize>(shape: [usize; N]) -> Array<f64, N> {
    Array::from_fn(shape, |i| {
        let s: usize = i.iter().enumerate().map(|(k, &v)| (k + 3) * v).sum();
        ((s * 7919) % 23) as f64 - 11.0
    })
}

fn solve<const N: usize>(a: &StencilOperator<f64, N>, options: MultigridOptions) -> (Vec<f64>, usize) {
    let mg = Multigrid::try_new_in(&Cpu, a, options).unwrap();
    let levels = mg.level_shapes().len();
    let b = rhs(<StencilOperator<f64, N> as cnda::solve::LinearOperator<f64, N, Cpu>>::shape(a));
    let mut x = Array::zeros(b.shape());
    let report = mg.solve(a, &b, &mut x, SolveOptions::default().rtol(1e-10).max_iters(60));
    (report.residual_history, levels)
}

#[test]
fn a_v22_cycle_reduces_the_2d_residual_tenfold_at_every_size() {
    for n in [31, 63, 127] {
        let h = 1.0 / (n + 1) as f64;
        let a = StencilOperator::new(LinearStencil::laplacian_5pt(h), [n, n], [Boundary::Value(0.0); 2]);
        let (history, levels) =
            solve(&a, MultigridOptions { coarsest: 9, smoother: Smoother::RedBlack, ..Default::default() });
        let rho = factor(&history);
        eprintln!("2D n = {n}: {levels} levels, {} cycles, factor {rho:.4}", history.len() - 1);
        assert!(rho <= 0.1, "n = {n}: {rho} ({history:?})");
        assert!(levels >= 3);
    }
}

#[test]
fn a_v22_cycle_reduces_the_3d_residual_tenfold_at_every_size() {
    for n in [7, 15, 31] {
        let h = 1.0 / (n + 1) as f64;
        let a = StencilOperator::new(LinearStencil::laplacian_7pt(h), [n, n, n], [Boundary::Value(0.0); 3]);
        let (history, levels) =
            solve(&a, MultigridOptions { coarsest: 27, smoother: Smoother::RedBlack, ..Default::default() });
        let rho = factor(&history);
        eprintln!("3D n = {n}: {levels} levels, {} cycles, factor {rho:.4}", history.len() - 1);
        assert!(rho <= 0.1, "n = {n}: {rho} ({history:?})");
    }
}

/// The default, damped Jacobi (4/5 in 2D, 6/7 in 3D): a little over a tenth per V(2,2) cycle,
/// whatever the size.
#[test]
fn damped_jacobi_cycles_converge_at_a_rate_independent_of_the_size() {
    for n in [31, 63, 127] {
        let a = StencilOperator::new(LinearStencil::laplacian_5pt(1.0), [n, n], [Boundary::Value(0.0); 2]);
        let rho = factor(&solve(&a, MultigridOptions { coarsest: 9, ..Default::default() }).0);
        eprintln!("damped Jacobi 2D n = {n}: {rho:.4}");
        assert!(rho <= 0.12, "{rho}");
    }
    for n in [15, 31] {
        let a = StencilOperator::new(LinearStencil::laplacian_7pt(1.0), [n, n, n], [Boundary::Value(0.0); 3]);
        let rho = factor(&solve(&a, MultigridOptions { coarsest: 27, ..Default::default() }).0);
        eprintln!("damped Jacobi 3D n = {n}: {rho:.4}");
        assert!(rho <= 0.2, "{rho}");
    }
}

/// Periodic axes coarsen `n → n / 2` (fine point `2 I` on coarse point `I`); with every axis
/// periodic the operator is singular and a zero-sum right-hand side is solved as fast.
#[test]
fn periodic_and_mixed_grids_converge_as_fast() {
    for n in [16, 32, 64] {
        let a = StencilOperator::new(LinearStencil::laplacian_5pt(1.0), [n, n], [Boundary::Periodic; 2]);
        let mg = Multigrid::try_new_in(
            &Cpu,
            &a,
            MultigridOptions { coarsest: 16, smoother: Smoother::RedBlack, ..Default::default() },
        )
        .unwrap();
        let mut b = rhs([n, n]);
        let mean = b.sum() / (n * n) as f64;
        b.map_inplace(|v| *v -= mean);
        let mut x = Array::zeros([n, n]);
        let report = mg.solve(&a, &b, &mut x, SolveOptions::default().rtol(1e-10).max_iters(60));
        let rho = factor(&report.residual_history);
        eprintln!("periodic 2D n = {n}: {} levels, factor {rho:.4}", mg.level_shapes().len());
        assert!(rho <= 0.1, "n = {n}: {rho}");
        assert_eq!(mg.level_shapes().last(), Some(&[4, 4]));
    }
    // A channel: periodic along the first axis, walls along the second.
    let shape = [32, 31];
    let a = StencilOperator::new(LinearStencil::laplacian_5pt(1.0), shape, [Boundary::Periodic, Boundary::Value(0.0)]);
    let mg = Multigrid::try_new_in(&Cpu, &a, MultigridOptions { coarsest: 16, ..Default::default() }).unwrap();
    assert_eq!(mg.level_shapes(), vec![[32, 31], [16, 15], [8, 7], [4, 3]]);
    let b = rhs(shape);
    let mut x = Array::zeros(shape);
    let report = mg.solve(&a, &b, &mut x, SolveOptions::default().rtol(1e-10));
    assert!(factor(&report.residual_history) <= 0.12, "{report:?}");
    let stencil = LinearStencil::laplacian_5pt(1.0);
    let reference = dense::gauss(
        dense::assemble(stencil.taps(), shape, [dense::Edge::Wrap, dense::Edge::Zero]),
        b.iter().copied().collect(),
    );
    let scale = reference.iter().fold(0f64, |m, v| m.max(v.abs()));
    assert!(x.iter().zip(&reference).all(|(p, q)| (p - q).abs() <= 1e-8 * scale));
}

#[test]
fn jacobi_and_w_cycles_converge_too() {
    let n = 63;
    let a = StencilOperator::new(LinearStencil::laplacian_5pt(1.0), [n, n], [Boundary::Value(0.0); 2]);
    let jacobi = MultigridOptions { smoother: Smoother::Jacobi { omega: 0.8 }, coarsest: 9, ..Default::default() };
    let (history, _) = solve(&a, jacobi);
    let rho = factor(&history);
    eprintln!("Jacobi V(2,2): {rho:.6}");
    assert!(rho <= 0.25, "{rho}");
    let (history_w, _) = solve(&a, MultigridOptions { cycle: CycleKind::W, ..jacobi });
    let rho_w = factor(&history_w);
    eprintln!("Jacobi W(2,2): {rho_w:.6}");
    // Jacobi's smoothing bounds both (the two-grid factor): W does more coarse work for as much.
    assert!(rho_w <= rho * 1.01 && history_w != history, "{rho_w} {rho}");
}

#[test]
fn cg_with_a_cycle_as_preconditioner_needs_as_many_iterations_at_every_size() {
    let mut counts = Vec::new();
    for n in [63, 127, 255] {
        let h = 1.0 / (n + 1) as f64;
        let a = StencilOperator::new(LinearStencil::laplacian_5pt(h), [n, n], [Boundary::Value(0.0); 2]);
        let b = rhs([n, n]);
        let mut x = Array::zeros([n, n]);
        let report = Cg::new().rtol(1e-10).preconditioner(Multigrid::new(&a)).solve(&a, &b, &mut x);
        counts.push(report.iterations);
    }
    eprintln!("MG-preconditioned CG iterations: {counts:?}");
    assert!(counts.iter().all(|&c| c <= 8), "{counts:?}");
    assert!(counts.iter().max().unwrap() - counts.iter().min().unwrap() <= 2, "{counts:?}");
}

#[test]
fn the_multigrid_solution_is_the_dense_one() {
    let shape = [15, 7];
    let stencil = LinearStencil::laplacian_5pt(0.5);
    let a = StencilOperator::new(stencil, shape, [Boundary::Value(0.0); 2]);
    let b = rhs(shape);
    let reference =
        dense::gauss(dense::assemble(stencil.taps(), shape, [dense::Edge::Zero; 2]), b.iter().copied().collect());
    let mut x = Array::zeros(shape);
    Multigrid::new(&a).solve(&a, &b, &mut x, SolveOptions::default().rtol(1e-12));
    let scale = reference.iter().fold(0f64, |m, v| m.max(v.abs()));
    assert!(x.iter().zip(&reference).all(|(p, q)| (p - q).abs() <= 1e-10 * scale));
}

#[test]
fn hierarchies_it_cannot_build_are_refused_with_the_reason() {
    let lap = LinearStencil::laplacian_5pt(1.0);
    let even = StencilOperator::new(lap, [32, 31], [Boundary::Value(0.0); 2]);
    let e = Multigrid::try_new_in(&Cpu, &even, MultigridOptions::default()).unwrap_err();
    assert!(e.to_string().contains("2^k - 1"), "{e}");
    let neumann = StencilOperator::new(lap, [31, 31], [Boundary::Neumann; 2]);
    let e = Multigrid::try_new_in(&Cpu, &neumann, MultigridOptions::default()).unwrap_err();
    assert!(e.to_string().contains("Neumann"), "{e}");
    let other = StencilOperator::new(lap, [15, 15], [Boundary::Value(0.0); 2]);
    let e =
        Multigrid::new(&other).try_solve(&even, &rhs([32, 31]), &mut Array::zeros([32, 31]), SolveOptions::default());
    assert!(matches!(e, Err(cnda::Error::ShapeMismatch { .. })), "{e:?}");
}
