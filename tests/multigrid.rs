//! Geometric multigrid: convergence factor per cycle on 2D and 3D Poisson problems at three grid
//! sizes (at most 0.1 per V(2,2) cycle with red-black smoothing, a little more with the default
//! damped Jacobi, independent of the size), CG
//! preconditioned by one cycle (iteration counts that do not grow with the grid), agreement with
//! the dense reference, and the refusals.

use cnda::prelude::*;
use cnda::solve::{
    Cg, CoarseOperators, CycleKind, Multigrid, MultigridOptions, Smoother, SolveOptions, Start, StencilOperator,
    VariableOperator,
};
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
    let neumann = StencilOperator::new(lap, [32, 33], [Boundary::Neumann; 2]);
    let e = Multigrid::try_new_in(&Cpu, &neumann, MultigridOptions::default()).unwrap_err();
    assert!(e.to_string().contains("2^k + 1 between Neumann sides"), "{e}");
    let other = StencilOperator::new(lap, [15, 15], [Boundary::Value(0.0); 2]);
    let e =
        Multigrid::new(&other).try_solve(&even, &rhs([32, 31]), &mut Array::zeros([32, 31]), SolveOptions::default());
    assert!(matches!(e, Err(cnda::Error::ShapeMismatch { .. })), "{e:?}");
}

/// Chebyshev smoothing of degree 2 (as parallel as Jacobi, one stencil pass per degree): a tenth
/// of the residual per cycle or better, whatever the size.
#[test]
fn chebyshev_cycles_reduce_the_residual_tenfold_at_every_size() {
    let chebyshev = MultigridOptions { smoother: Smoother::Chebyshev, ..Default::default() };
    for n in [31, 63, 127] {
        let a = StencilOperator::new(LinearStencil::laplacian_5pt(1.0), [n, n], [Boundary::Value(0.0); 2]);
        let rho = factor(&solve(&a, MultigridOptions { coarsest: 9, ..chebyshev }).0);
        eprintln!("Chebyshev 2D n = {n}: {rho:.4}");
        assert!(rho <= 0.1, "{rho}");
    }
    for n in [7, 15, 31] {
        let a = StencilOperator::new(LinearStencil::laplacian_7pt(1.0), [n, n, n], [Boundary::Value(0.0); 3]);
        let rho = factor(&solve(&a, MultigridOptions { coarsest: 27, ..chebyshev }).0);
        eprintln!("Chebyshev 3D n = {n}: {rho:.4}");
        assert!(rho <= 0.1, "{rho}");
    }
    // Periodic: the mean-free part converges as fast.
    let n = 64;
    let a = StencilOperator::new(LinearStencil::laplacian_5pt(1.0), [n, n], [Boundary::Periodic; 2]);
    let mg = Multigrid::try_new_in(&Cpu, &a, MultigridOptions { coarsest: 16, ..chebyshev }).unwrap();
    let mut b = rhs([n, n]);
    let mean = b.sum() / (n * n) as f64;
    b.map_inplace(|v| *v -= mean);
    let report = mg.solve(&a, &b, &mut Array::zeros([n, n]), SolveOptions::default().rtol(1e-10).max_iters(60));
    let rho = factor(&report.residual_history);
    eprintln!("Chebyshev periodic 2D n = {n}: {rho:.4}");
    assert!(rho <= 0.1, "{rho}");
}

/// F-cycles sit between V and W: at least V's reduction per cycle, at less than W's work.
#[test]
fn f_cycles_converge_as_fast_as_w_cycles_for_less_work() {
    let n = 127;
    let a = StencilOperator::new(LinearStencil::laplacian_5pt(1.0), [n, n], [Boundary::Value(0.0); 2]);
    let b = rhs([n, n]);
    let run = |cycle| {
        let mg =
            Multigrid::try_new_in(&Cpu, &a, MultigridOptions { cycle, coarsest: 9, ..Default::default() }).unwrap();
        let report = mg.solve(&a, &b, &mut Array::zeros([n, n]), SolveOptions::default().rtol(1e-10));
        (factor(&report.residual_history), report.work / report.iterations as f64)
    };
    let ((v, v_work), (w, w_work), (f, f_work)) = (run(CycleKind::V), run(CycleKind::W), run(CycleKind::F));
    eprintln!("factor and work per cycle: V {v:.4} {v_work:.2}, W {w:.4} {w_work:.2}, F {f:.4} {f_work:.2}");
    assert!(f <= v * 1.01 && w <= v * 1.01, "{v} {w} {f}");
    assert!(v_work < f_work && f_work < w_work, "{v_work} {f_work} {w_work}");
    // A V(2,2) cycle in 2D: 2 + 2 sweeps, a residual, a restriction and an interpolation on each
    // level, each level a quarter of the one above (7 · 4/3 ≈ 9.3), the residual check, and the
    // coarsest solve.
    assert!((8.0..11.0).contains(&v_work), "{v_work}");
}

/// `u = Π sin(π x_k)` on the unit square and cube with `Δu = −N π² u`: one pass of full
/// multigrid (one V(2,2) cycle per level) leaves an error against `u` below the discretization
/// error itself (the exact discrete solution's), and an algebraic error (against the discrete
/// solution) below it too, so shrinking as `h²`: at every size, in 13 (3D) to 17 (2D) fine-grid
/// operator applications of work.
#[test]
fn full_multigrid_reaches_the_discretization_error_in_one_pass() {
    fn check<const N: usize>(n: usize, a: &StencilOperator<f64, N>, options: MultigridOptions) -> (f64, f64) {
        let h = 1.0 / (n + 1) as f64;
        let u = Array::<f64, N>::from_fn([n; N], |i| {
            i.iter().map(|&v| (std::f64::consts::PI * (v + 1) as f64 * h).sin()).product()
        });
        let b = u.map(|v| -(N as f64) * std::f64::consts::PI.powi(2) * v);
        let mg = Multigrid::try_new_in(&Cpu, a, options).unwrap();
        let mut exact = Array::zeros([n; N]);
        mg.solve(a, &b, &mut exact, SolveOptions::default().rtol(1e-11));
        let mut fmg = Array::zeros([n; N]);
        let report = mg.full_multigrid(a, &b, &mut fmg, 1);
        let error = |x: &Array<f64, N>| x.iter().zip(u.iter()).fold(0f64, |m, (p, q)| m.max((p - q).abs()));
        let (discretization, fmg_error) = (error(&exact), error(&fmg));
        let algebraic = exact.iter().zip(fmg.iter()).fold(0f64, |m, (p, q)| m.max((p - q).abs()));
        eprintln!(
            "FMG {N}D n = {n}: error {fmg_error:.3e}, discretization error {discretization:.3e} (ratio {:.3}), \
             algebraic error {algebraic:.3e}, work {:.2}",
            fmg_error / discretization,
            report.work
        );
        // The error the solver leaves is below the discretization's.
        assert!(algebraic <= discretization, "{algebraic} {discretization}");
        (fmg_error / discretization, report.work)
    }
    // The largest grids only where the build is optimized (the sanitizer run): unoptimized, they
    // would take most of the suite's time.
    let optimized = !cfg!(debug_assertions);
    let mut errors = Vec::new();
    for n in [31, 63, 127, 255].into_iter().filter(|&n| optimized || n < 255) {
        let h = 1.0 / (n + 1) as f64;
        let a = StencilOperator::new(LinearStencil::laplacian_5pt(h), [n, n], [Boundary::Value(0.0); 2]);
        let (ratio, work) = check(n, &a, MultigridOptions { coarsest: 9, ..Default::default() });
        assert!(ratio <= 1.1 && work <= 20.0, "{ratio} {work}");
        errors.push(ratio);
    }
    for n in [7, 15, 31, 63].into_iter().filter(|&n| if optimized { n > 7 } else { n < 63 }) {
        let h = 1.0 / (n + 1) as f64;
        let a = StencilOperator::new(LinearStencil::laplacian_7pt(h), [n, n, n], [Boundary::Value(0.0); 3]);
        let (ratio, work) = check(n, &a, MultigridOptions { coarsest: 27, ..Default::default() });
        assert!(ratio <= 1.1 && work <= 20.0, "{ratio} {work}");
    }
}

#[test]
fn a_solve_that_starts_with_full_multigrid_needs_fewer_cycles() {
    let n = 127;
    let h = 1.0 / (n + 1) as f64;
    let a = StencilOperator::new(LinearStencil::laplacian_5pt(h), [n, n], [Boundary::Value(0.0); 2]);
    // A smooth right-hand side, as a discretized PDE has (a rough one gains nothing: its error is
    // all oscillatory, which one cycle removes as well).
    let b = Array::from_fn([n, n], |[i, j]| {
        let (x, y) = ((i + 1) as f64 * h, (j + 1) as f64 * h);
        (x * (1.0 - x) * (3.0 * y).sin()).exp()
    });
    let cycles = |start| {
        let mg =
            Multigrid::try_new_in(&Cpu, &a, MultigridOptions { start, coarsest: 9, ..Default::default() }).unwrap();
        let mut x = Array::zeros([n, n]);
        let report = mg.solve(&a, &b, &mut x, SolveOptions::default().rtol(1e-10));
        eprintln!("{start:?}: {} cycles, work {:.1}", report.iterations, report.work);
        (report.iterations, report.work)
    };
    let (from_guess, from_fmg) = (cycles(Start::Guess), cycles(Start::FullMultigrid { cycles: 1 }));
    assert!(from_fmg.0 < from_guess.0 && from_fmg.1 < from_guess.1, "{from_fmg:?} {from_guess:?}");
}

/// Each solve reports its work in operator applications: CG one per iteration and one for the
/// first residual; a multigrid preconditioner adds its cycles' passes.
#[test]
fn solves_report_their_work() {
    let n = 63;
    let a = StencilOperator::new(LinearStencil::laplacian_5pt(1.0), [n, n], [Boundary::Value(0.0); 2]);
    let b = rhs([n, n]);
    let plain = Cg::new().rtol(1e-8).solve(&a, &b, &mut Array::zeros([n, n]));
    assert_eq!(plain.work, (plain.iterations + 1) as f64);
    let mg = Multigrid::try_new_in(&Cpu, &a, MultigridOptions { coarsest: 9, ..Default::default() }).unwrap();
    let preconditioned = Cg::new().rtol(1e-8).preconditioner(mg).solve(&a, &b, &mut Array::zeros([n, n]));
    let per_iteration = (preconditioned.work - 1.0) / preconditioned.iterations as f64;
    // One application, and one cycle from zero per iteration (plus the first): about 8 each.
    eprintln!("MG-CG: {} iterations, work {:.1}", preconditioned.iterations, preconditioned.work);
    assert!((7.0..12.0).contains(&per_iteration), "{preconditioned:?}");
}

/// `−∇·(k∇u)` with `k` from `conductivity` on `[n; N]` points of spacing `1 / (n + 1)`.
fn diffusion<const N: usize>(
    n: usize,
    conductivity: impl Fn([usize; N]) -> f64,
    boundaries: [Boundary<f64>; N],
) -> VariableOperator<f64, N, Cpu> {
    let k = Array::from_fn([n; N], conductivity);
    VariableOperator::diffusion_in(&Cpu, &k, [1.0 / (n + 1) as f64; N], 0.0, boundaries)
}

/// With a constant conductivity the variable hierarchy (Galerkin products point by point) is
/// the constant one (the stencil algebra): the same residual after every cycle.
#[test]
fn a_uniform_conductivity_cycles_as_the_constant_stencil_does() {
    let n = 31;
    for sides in [[Boundary::Value(0.0); 2], [Boundary::Value(0.0), Boundary::Periodic]] {
        let n1 = if sides[1] == Boundary::Periodic { 32 } else { 31 };
        let k = Array::ones([n, n1]);
        let h2 = ((n + 1) * (n + 1)) as f64;
        let a = VariableOperator::diffusion_in(&Cpu, &k, [1.0 / (n + 1) as f64; 2], 0.0, sides);
        let taps = [([-1, 0], -h2), ([1, 0], -h2), ([0, -1], -h2), ([0, 1], -h2), ([0, 0], 4.0 * h2)];
        let constant = StencilOperator::new(cnda::stencil::DynStencil::new(taps), [n, n1], sides);
        let options = MultigridOptions { coarsest: 9, ..Default::default() };
        let b = rhs([n, n1]);
        let run = |mg: Multigrid<f64, 2>, a: &dyn cnda::solve::LinearOperator<f64, 2, Cpu>| {
            let mut x = Array::zeros([n, n1]);
            (mg.level_shapes(), mg.solve(a, &b, &mut x, SolveOptions::default().rtol(1e-10)).residual_history)
        };
        let (shapes_v, history_v) = run(Multigrid::for_variable(&a, options), &a);
        let (shapes_c, history_c) = run(Multigrid::try_new_in(&Cpu, &constant, options).unwrap(), &constant);
        assert_eq!(shapes_v, shapes_c);
        assert_eq!(history_v.len(), history_c.len(), "{history_v:?} {history_c:?}");
        for (v, c) in history_v.iter().zip(&history_c) {
            assert!((v - c).abs() <= 1e-9 * history_c[0], "{sides:?}: {history_v:?} {history_c:?}");
        }
    }
}

/// Conductivity jumping by 1000 across layers and around an inclusion: CG preconditioned by the
/// variable hierarchy needs under twenty iterations at every size, where plain CG needs
/// thousands, and agrees with it.
#[test]
fn jumping_conductivities_converge_in_few_iterations_at_every_size() {
    // Plain CG is compared at 63^2 where the build is optimized, at 31^2 unoptimized.
    let compared = if cfg!(debug_assertions) { 31 } else { 63 };
    let mut counts = Vec::new();
    for n in [31, 63, 127] {
        let layered = |[i, j]: [usize; 2]| {
            let inclusion = (i as f64 / n as f64 - 0.6).hypot(j as f64 / n as f64 - 0.4) < 0.2;
            if inclusion || i < n / 3 {
                1000.0
            } else {
                1.0
            }
        };
        let a = diffusion(n, layered, [Boundary::Value(0.0); 2]);
        let b = rhs([n, n]);
        let mut x = Array::zeros([n, n]);
        let mg = Multigrid::for_variable(&a, MultigridOptions { coarsest: 9, ..Default::default() });
        let report = Cg::new().rtol(1e-10).preconditioner(mg).solve(&a, &b, &mut x);
        counts.push(report.iterations);
        if n == compared {
            let mut y = Array::zeros([n, n]);
            let plain = Cg::new().rtol(1e-12).max_iters(20_000).solve(&a, &b, &mut y);
            let scale = y.iter().fold(0f64, |m, v| m.max(v.abs()));
            assert!(x.iter().zip(y.iter()).all(|(p, q)| (p - q).abs() <= 1e-7 * scale));
            eprintln!("plain CG: {} iterations", plain.iterations);
            assert!(plain.iterations > 10 * report.iterations);
        }
    }
    // 15, 17, 18 here: a slow growth with the size, as geometric multigrid shows on jumps that
    // coarse grid lines do not follow (plain CG: 4157 iterations at 63^2).
    eprintln!("variable multigrid-preconditioned CG iterations: {counts:?}");
    assert!(counts.iter().all(|&c| c <= 20), "{counts:?}");
    assert!(counts.iter().max().unwrap() - counts.iter().min().unwrap() <= 4, "{counts:?}");
}

/// Smoothly varying conductivity in 3D, every smoother, Galerkin and rediscretized coarse
/// operators: a tenth of the residual per cycle or close, at every size. Rediscretized levels
/// take a conductivity smooth on the unit cube (the same waves at every size); Galerkin ones
/// also one that varies on a fixed number of points (finer waves on larger grids), which an
/// averaged conductivity on coarse grids cannot follow.
#[test]
fn variable_cycles_converge_at_a_rate_independent_of_the_size() {
    // 7^3 and 15^3 unoptimized, 15^3 and 31^3 optimized (the sanitizer run).
    let sizes = if cfg!(debug_assertions) { [7, 15] } else { [15, 31] };
    for coarse in [CoarseOperators::Galerkin, CoarseOperators::Rediscretized] {
        for smoother in [Smoother::DampedJacobi, Smoother::RedBlack, Smoother::Chebyshev] {
            for n in sizes {
                let s = match coarse {
                    CoarseOperators::Galerkin => 1.0,
                    _ => 16.0 / (n + 1) as f64,
                };
                let smooth = |[i, j, k]: [usize; 3]| {
                    1.0 + 0.9 * ((i + 2 * j) as f64 * 0.3 * s).sin() * (k as f64 * 0.2 * s).cos()
                };
                let a = diffusion(n, smooth, [Boundary::Value(0.0); 3]);
                let options = MultigridOptions { smoother, coarsest: 27, coarse, ..Default::default() };
                let mg = Multigrid::for_variable(&a, options);
                let b = rhs([n, n, n]);
                let report =
                    mg.solve(&a, &b, &mut Array::zeros([n, n, n]), SolveOptions::default().rtol(1e-10).max_iters(60));
                let rho = factor(&report.residual_history);
                eprintln!("variable 3D {coarse:?} {smoother:?} n = {n}: factor {rho:.4}");
                assert!(rho <= 0.25, "{coarse:?} {smoother:?} n = {n}: {rho}");
            }
        }
    }
}

/// Rediscretized coarse levels on every kind of side (walls, `Neumann` sides with the singular
/// null space, periodic axes) and on jumps: CG preconditioned by them converges in few
/// iterations, to the solution of plain CG; an operator built from coefficient fields has no
/// conductivity to rediscretize.
#[test]
fn rediscretized_coarse_levels_precondition_cg() {
    use Boundary::{Neumann, Periodic, Value};
    let options = MultigridOptions { coarse: CoarseOperators::Rediscretized, coarsest: 9, ..Default::default() };
    let wavy = |[i, j]: [usize; 2]| 1.0 + 0.8 * (i as f64 * 0.4).sin() * (j as f64 * 0.3).cos();
    let jumps = |[i, j]: [usize; 2]| if (i / 8 + j / 8) % 2 == 0 { 100.0 } else { 1.0 };
    type Case<'a> = (&'a str, [usize; 2], [[Boundary<f64>; 2]; 2], &'a dyn Fn([usize; 2]) -> f64, usize);
    let cases: [Case<'_>; 4] = [
        // 10, 13, 10 and 29 iterations here (Galerkin products: 8, 8, 8 and 25).
        ("walls", [63, 63], [[Value(0.0); 2]; 2], &wavy, 12),
        ("Neumann", [65, 65], [[Neumann; 2]; 2], &wavy, 16),
        ("periodic and wall", [64, 63], [[Periodic; 2], [Value(0.0); 2]], &wavy, 12),
        ("checkerboard jumps", [63, 63], [[Value(0.0); 2]; 2], &jumps, 35),
    ];
    for (what, shape, sides, k, most) in cases {
        let k = Array::from_fn(shape, k);
        let a = VariableOperator::diffusion_in(&Cpu, &k, [1.0 / 64.0; 2], 0.0, sides);
        let mut b = rhs(shape);
        let mean = b.iter().sum::<f64>() / b.len() as f64;
        b.map_inplace(|v| *v -= mean); // consistent where constants are the null space
        let mut x = Array::zeros(shape);
        let report = Cg::new().rtol(1e-10).preconditioner(Multigrid::for_variable(&a, options)).solve(&a, &b, &mut x);
        eprintln!("rediscretized MG-CG, {what}: {} iterations", report.iterations);
        assert!(report.iterations <= most, "{what}: {report:?}");
        let mut y = Array::zeros(shape);
        Cg::new().rtol(1e-12).max_iters(20_000).solve(&a, &b, &mut y);
        // Up to a constant where it is the null space.
        let shift =
            if what == "Neumann" { (x.iter().sum::<f64>() - y.iter().sum::<f64>()) / x.len() as f64 } else { 0.0 };
        let scale = y.iter().fold(0f64, |m, v| m.max(v.abs()));
        let worst = x.iter().zip(y.iter()).fold(0f64, |m, (p, q)| m.max((p - shift - q).abs()));
        assert!(worst <= 1e-7 * scale, "{what}: {worst:e} against {scale:e}");
    }
    // The option takes effect: on a uniform conductivity the rediscretized coarse levels (5
    // taps) reduce the residual otherwise than the Galerkin ones (9 taps, the constant
    // stencil's: `a_uniform_conductivity_cycles_as_the_constant_stencil_does`).
    let uniform = diffusion(31, |_| 1.0, [Value(0.0); 2]);
    let b = rhs([31, 31]);
    let first_cycle = |coarse| {
        let mg = Multigrid::for_variable(&uniform, MultigridOptions { coarse, coarsest: 9, ..Default::default() });
        let report = mg.solve(&uniform, &b, &mut Array::zeros([31, 31]), SolveOptions::default().rtol(1e-8));
        report.residual_history[1] / report.residual_history[0]
    };
    let (galerkin, rediscretized) =
        (first_cycle(CoarseOperators::Galerkin), first_cycle(CoarseOperators::Rediscretized));
    assert!((galerkin - rediscretized).abs() > 1e-3 * galerkin, "{galerkin} {rediscretized}");
    let fields = diffusion(15, |_| 1.0, [Value(0.0); 2]);
    let copied = VariableOperator::new(fields.stencil().clone(), fields.coefficients().to_vec(), [Value(0.0); 2]);
    let error = Multigrid::try_for_variable(&copied, options).expect_err("no conductivity");
    assert!(error.to_string().contains("diffusion_in"), "{error}");
}

/// Faces take the harmonic mean without overflow or underflow at extreme conductivities, and a
/// variable hierarchy's Chebyshev bound reads only the interior of fields whose halo holds
/// anything (the operator never reads it).
#[test]
fn extreme_conductivities_and_stray_halo_values_are_harmless() {
    for scale in [1e-200f64, 1e200] {
        let k = Array::from_fn([7, 7], |[i, _]| if i < 3 { scale } else { 2.0 * scale });
        let a = VariableOperator::diffusion_in(&Cpu, &k, [1.0; 2], 0.0, [Boundary::Value(0.0); 2]);
        let d = a.diagonal();
        assert!(d.iter().all(|&v| v.is_finite() && v > 0.0), "{scale}: {d:?}");
        assert!((d[[1, 1]] / (4.0 * scale) - 1.0).abs() < 1e-12, "{scale}: {}", d[[1, 1]]);
    }
    let n = 31;
    let clean = diffusion(n, |[i, j]| 1.0 + ((i * j) % 5) as f64, [Boundary::Value(0.0); 2]);
    let stray: Vec<Array<f64, 2>> = clean
        .coefficients()
        .iter()
        .map(|f| Array::from_fn(f.shape(), |[i, j]| if i == 0 || j == 0 { 1e9 } else { f[[i, j]] }))
        .collect();
    let dirty = VariableOperator::new(clean.stencil().clone(), stray, [Boundary::Value(0.0); 2]);
    let options = MultigridOptions { smoother: Smoother::Chebyshev, coarsest: 9, ..Default::default() };
    let b = rhs([n, n]);
    let run = |a: &VariableOperator<f64, 2, Cpu>| {
        let report = Multigrid::for_variable(a, options).solve(
            a,
            &b,
            &mut Array::zeros([n, n]),
            SolveOptions::default().rtol(1e-10),
        );
        report.residual_history
    };
    assert_eq!(run(&clean), run(&dirty));
}

/// Hierarchies and preconditioned methods move between threads and are shared (the Python
/// module releases the GIL around a solve): a compile-time check.
#[test]
fn hierarchies_and_methods_are_send_and_sync() {
    fn movable<X: Send + Sync>() {}
    movable::<Multigrid<f64, 2>>();
    movable::<Multigrid<f32, 3>>();
    movable::<cnda::solve::Cg<Multigrid<f64, 2>>>();
}
