//! The Krylov solvers on every backend, written once: the model backend (naive kernels under the
//! same generic algorithms), CUDA (the CPU-hosted device in CI) and WebGPU (lavapipe), each
//! against the dense reference on the host and against the CPU's solve. Device reductions sum in
//! another order than the CPU's pairwise sum, so iterates agree to the tolerance, not bit for bit.

use cnda::kernel::{Download, ExprStencilKernels, StencilKernels};
use cnda::prelude::*;
use cnda::solve::{
    Bicgstab, Cg, CoarseOperators, CycleKind, ExprOperator, FnOperator, Gmres, Jacobi, Minres, Multigrid,
    MultigridOptions, Smoother, SolveOptions, SolverBackend, SolverScalar, Start, StencilOperator, VariableOperator,
};
use cnda::stencil::{Boundary, DynStencil, LinearStencil, VariableStencil};

#[path = "common/dense.rs"]
mod dense;
#[path = "common/model.rs"]
mod model;

/// `‖b − m x‖ / ‖b‖` on the host, in f64.
fn relative_residual<T: SolverScalar>(m: &[Vec<f64>], b: &Array<T, 2>, x: &Array<T, 2>) -> f64 {
    let x: Vec<f64> = x.iter().map(|&v| v.into()).collect();
    let b: Vec<f64> = b.iter().map(|&v| v.into()).collect();
    let r = dense::matvec(m, &x);
    let norm = |v: &mut dyn Iterator<Item = f64>| v.map(|q| q * q).sum::<f64>().sqrt();
    norm(&mut r.iter().zip(&b).map(|(p, q)| q - p)) / norm(&mut b.iter().copied())
}

fn max_difference<T: SolverScalar>(a: &Array<T, 2>, b: &Array<T, 2>) -> f64 {
    let scale = b.iter().fold(0f64, |m, &v| m.max(v.into().abs()));
    a.iter().zip(b.iter()).fold(0f64, |m, (&p, &q)| m.max((p.into() - q.into()).abs())) / scale
}

/// A solve of `b` into `x` (a method with its operator).
type SolveFn<'a, T, B> = &'a dyn Fn(&Array<T, 2, B>, &mut Array<T, 2, B>);

/// Every method on backend `B` (arrays moved there by `upload`), against the dense reference and
/// the CPU; `rtol` suits `T`.
fn solves_on<T, B>(name: &str, rtol: f64, upload: impl Fn(&Array<T, 2>) -> Array<T, 2, B>)
where
    T: SolverScalar + cnda::kernel::expr::Scalar,
    B: SolverBackend + StencilKernels + ExprStencilKernels + Download,
    B::Alloc: cnda::kernel::Upload<Target = B>,
{
    let shape = [24, 20];
    let b = Array::from_fn(shape, |[i, j]| T::from_f64(((i * 7 + j * 3) % 11) as f64 - 4.5));
    let on_device = |solve: SolveFn<'_, T, B>| {
        let mut x = upload(&Array::zeros(shape));
        solve(&upload(&b), &mut x);
        x.to_host()
    };
    let on_cpu = |solve: SolveFn<'_, T, Cpu>| {
        let mut x = Array::zeros(shape);
        solve(&b, &mut x);
        x
    };
    let check = |what: &str, m: &[Vec<f64>], device: &Array<T, 2>, cpu: &Array<T, 2>| {
        let (res, diff) = (relative_residual(m, &b, device), max_difference(device, cpu));
        assert!(res <= 10.0 * rtol, "{name} {what}: residual {res}");
        assert!(diff <= 100.0 * rtol, "{name} {what}: {diff} from the CPU's solution");
    };

    // CG on the 5-point Poisson problem with walls.
    let lap = LinearStencil::laplacian_5pt(T::ONE);
    let poisson = StencilOperator::new(lap, shape, [Boundary::Value(T::ZERO); 2]);
    let taps: Vec<([isize; 2], f64)> = lap.taps().iter().map(|&(o, w)| (o, w.into())).collect();
    let m = dense::assemble(&taps, shape, [dense::Edge::Zero; 2]);
    let cg = Cg::new().rtol(rtol);
    check(
        "cg",
        &m,
        &on_device(&|b, x| drop(cg.solve(&poisson, b, x))),
        &on_cpu(&|b, x| drop(cg.solve(&poisson, b, x))),
    );

    // MINRES on `−Δ − 0.3`: symmetric, indefinite (9 eigenvalues below zero, the nearest 0.033
    // from it).
    let taps = [([-1, 0], -1.0), ([1, 0], -1.0), ([0, -1], -1.0), ([0, 1], -1.0), ([0, 0], 3.7)];
    let helmholtz = StencilOperator::new(
        DynStencil::new(taps.map(|(o, v)| (o, T::from_f64(v)))),
        shape,
        [Boundary::Value(T::ZERO); 2],
    );
    let m = dense::assemble(&taps, shape, [dense::Edge::Zero; 2]);
    let minres = Minres::new().rtol(rtol);
    check(
        "minres",
        &m,
        &on_device(&|b, x| drop(minres.solve(&helmholtz, b, x))),
        &on_cpu(&|b, x| drop(minres.solve(&helmholtz, b, x))),
    );

    // BiCGSTAB and GMRES on a nonsymmetric operator with mirrored and periodic sides.
    let w = |v: f64| T::from_f64(v);
    let taps = [([-1, 0], -1.0), ([1, 0], -1.0), ([0, -1], -1.8), ([0, 1], -0.2), ([0, 0], 4.5)];
    let stencil = DynStencil::new(taps.map(|(o, v)| (o, w(v))));
    let convection = StencilOperator::new(stencil, shape, [Boundary::Neumann, Boundary::Periodic]);
    let m = dense::assemble(&taps, shape, [dense::Edge::Mirror, dense::Edge::Wrap]);
    let bicgstab = Bicgstab::new().rtol(rtol);
    check(
        "bicgstab",
        &m,
        &on_device(&|b, x| drop(bicgstab.solve(&convection, b, x))),
        &on_cpu(&|b, x| drop(bicgstab.solve(&convection, b, x))),
    );
    let gmres = Gmres::new().options(SolveOptions::default().rtol(rtol).restart(10));
    check(
        "gmres",
        &m,
        &on_device(&|b, x| drop(gmres.solve(&convection, b, x))),
        &on_cpu(&|b, x| drop(gmres.solve(&convection, b, x))),
    );

    // Multigrid's levels on the device, a V-cycle as CG's preconditioner (2^5 - 1 points per
    // axis: five levels down to 3 x 3).
    let n = 31;
    let mg_b = Array::from_fn([n, n], |[i, j]| T::from_f64(((i * 5 + j * 11) % 13) as f64 - 6.0));
    let poisson = StencilOperator::new(lap, [n, n], [Boundary::Value(T::ZERO); 2]);
    let options = MultigridOptions { coarsest: 9, ..Default::default() };
    let alloc = upload(&Array::zeros([1, 1])).allocator();
    let preconditioned = Cg::new().rtol(rtol).preconditioner(Multigrid::new_in(&alloc, &poisson, options));
    let mut x = upload(&Array::zeros([n, n]));
    let report = preconditioned.solve(&poisson, &upload(&mg_b), &mut x);
    assert!(report.iterations <= 8, "{name} multigrid: {report:?}");
    let on_cpu = Cg::new().rtol(rtol).preconditioner(Multigrid::new_in(&Cpu, &poisson, options));
    let mut cpu = Array::zeros([n, n]);
    on_cpu.solve(&poisson, &mg_b, &mut cpu);
    let taps: Vec<([isize; 2], f64)> = lap.taps().iter().map(|&(o, w)| (o, w.into())).collect();
    let m = dense::assemble(&taps, [n, n], [dense::Edge::Zero; 2]);
    let x = x.to_host();
    assert!(relative_residual(&m, &mg_b, &x) <= 10.0 * rtol, "{name} multigrid residual");
    assert!(max_difference(&x, &cpu) <= 100.0 * rtol, "{name} multigrid: from the CPU's solution");

    // A periodic hierarchy (levels 32, 16, 8, 4 per axis), singular: a zero-sum right-hand side.
    let periodic = StencilOperator::new(lap, [32, 32], [Boundary::Periodic; 2]);
    let mut pb = Array::from_fn([32, 32], |[i, j]| T::from_f64(((i * 5 + j * 11) % 13) as f64));
    let mean = T::from_f64(pb.iter().map(|&v| v.into()).sum::<f64>() / 1024.0);
    pb.map_inplace(|v| *v = *v - mean);
    let preconditioned = Cg::new().rtol(rtol).preconditioner(Multigrid::new_in(
        &alloc,
        &periodic,
        MultigridOptions { coarsest: 16, ..Default::default() },
    ));
    let mut x = upload(&Array::zeros([32, 32]));
    let report = preconditioned.solve(&periodic, &upload(&pb), &mut x);
    assert!(report.iterations <= 10, "{name} periodic multigrid: {report:?}");
    let m = dense::assemble(&taps, [32, 32], [dense::Edge::Wrap; 2]);
    assert!(relative_residual(&m, &pb, &x.to_host()) <= 10.0 * rtol, "{name} periodic multigrid residual");

    // Neumann sides (levels 33, 17, 9, 5 per axis, Galerkin fields from the folded rows,
    // uploaded), singular: the zero-sum right-hand side; as on the CPU, and solving the system.
    let mirrored = StencilOperator::new(lap, [33, 33], [Boundary::Neumann; 2]);
    let mut nb = Array::from_fn([33, 33], |[i, j]| T::from_f64(((i * 5 + j * 11) % 13) as f64));
    let mean = T::from_f64(nb.iter().map(|&v| v.into()).sum::<f64>() / 1089.0);
    nb.map_inplace(|v| *v = *v - mean);
    let neumann_options = MultigridOptions { coarsest: 25, ..Default::default() };
    let preconditioned = Cg::new().rtol(rtol).preconditioner(Multigrid::new_in(&alloc, &mirrored, neumann_options));
    let mut x = upload(&Array::zeros([33, 33]));
    let report = preconditioned.solve(&mirrored, &upload(&nb), &mut x);
    let on_cpu = Cg::new().rtol(rtol).preconditioner(Multigrid::new_in(&Cpu, &mirrored, neumann_options));
    let cpu_report = on_cpu.solve(&mirrored, &nb, &mut Array::zeros([33, 33]));
    assert!(report.iterations <= cpu_report.iterations + 1, "{name} Neumann multigrid: {report:?} {cpu_report:?}");
    let m = dense::assemble(&taps, [33, 33], [dense::Edge::Mirror; 2]);
    assert!(relative_residual(&m, &nb, &x.to_host()) <= 10.0 * rtol, "{name} Neumann multigrid residual");

    // Chebyshev smoothing, F-cycles and a full-multigrid start, multigrid as the solver: as on
    // the CPU.
    let options = MultigridOptions {
        smoother: Smoother::Chebyshev,
        cycle: CycleKind::F,
        start: Start::FullMultigrid { cycles: 1 },
        coarsest: 9,
        ..Default::default()
    };
    let tolerance = SolveOptions::default().rtol(rtol);
    let mut x = upload(&Array::zeros([n, n]));
    let report = Multigrid::new_in(&alloc, &poisson, options).solve(&poisson, &upload(&mg_b), &mut x, tolerance);
    let mut cpu = Array::zeros([n, n]);
    let cpu_report = Multigrid::new_in(&Cpu, &poisson, options).solve(&poisson, &mg_b, &mut cpu, tolerance);
    assert!(report.iterations <= cpu_report.iterations + 1, "{name} Chebyshev F-cycles: {report:?} {cpu_report:?}");
    assert!(max_difference(&x.to_host(), &cpu) <= 100.0 * rtol, "{name} Chebyshev F-cycles: from the CPU's solution");

    // Multigrid for a varying conductivity (the Galerkin fields computed on the host, uploaded;
    // or the conductivity restricted and rediscretized), preconditioning CG: as on the CPU.
    let k = Array::from_fn([n, n], |[i, j]| T::from_f64(if (i + 2 * j) % 7 < 3 { 10.0 } else { 1.0 }));
    let walls = [Boundary::Value(T::ZERO); 2];
    let on_dev = VariableOperator::diffusion_in(&alloc, &k, [1.0 / 32.0; 2], 0.0, walls);
    let on_host = VariableOperator::diffusion_in(&Cpu, &k, [1.0 / 32.0; 2], 0.0, walls);
    let options = MultigridOptions { coarsest: 9, ..Default::default() };
    for coarse in [CoarseOperators::Galerkin, CoarseOperators::Rediscretized] {
        let options = MultigridOptions { coarse, ..options };
        let mut x = upload(&Array::zeros([n, n]));
        let preconditioned = Cg::new().rtol(rtol).preconditioner(Multigrid::for_variable(&on_dev, options));
        let report = preconditioned.solve(&on_dev, &upload(&mg_b), &mut x);
        let mut cpu = Array::zeros([n, n]);
        let preconditioned = Cg::new().rtol(rtol).preconditioner(Multigrid::for_variable(&on_host, options));
        let cpu_report = preconditioned.solve(&on_host, &mg_b, &mut cpu);
        let what = format!("{name} variable multigrid, {coarse:?}");
        assert!(report.iterations <= cpu_report.iterations + 1, "{what}: {report:?} {cpu_report:?}");
        assert!(max_difference(&x.to_host(), &cpu) <= 100.0 * rtol, "{what}: from the CPU's solution");
    }

    // The same conductivity as a `stencil!` operator (its field uploaded), and multigrid on its
    // probed variable form, as on the CPU.
    let flux = stencil!(|u, k; c: T| {
        let kn = 0.5 * (k[0, 0] + k[-1, 0]);
        let ks = 0.5 * (k[0, 0] + k[1, 0]);
        let kw = 0.5 * (k[0, 0] + k[0, -1]);
        let ke = 0.5 * (k[0, 0] + k[0, 1]);
        c * (kn * (u[0, 0] - u[-1, 0]) + ks * (u[0, 0] - u[1, 0]) + kw * (u[0, 0] - u[0, -1]) + ke * (u[0, 0] - u[0, 1]))
    });
    let k = Array::from_fn([n + 2, n + 2], |[i, j]| T::from_f64(if (i + 2 * j) % 7 < 3 { 10.0 } else { 1.0 }));
    let scale = (T::from_f64(1024.0),);
    let on_dev = ExprOperator::new(flux, [n, n], walls, upload(&k), scale);
    let on_host = ExprOperator::new(flux, [n, n], walls, k.clone(), scale);
    let probed = on_dev.to_variable_in(&alloc);
    for (d, h) in probed.coefficients().iter().zip(on_host.to_variable_in(&Cpu).coefficients()) {
        assert_eq!(&d.to_host(), h, "{name} probe");
    }
    let mut x = upload(&Array::zeros([n, n]));
    let report = Cg::new().rtol(rtol).preconditioner(Multigrid::for_variable(&probed, options)).solve(
        &on_dev,
        &upload(&mg_b),
        &mut x,
    );
    let mut cpu = Array::zeros([n, n]);
    let cpu_report = Cg::new()
        .rtol(rtol)
        .preconditioner(Multigrid::for_variable(&on_host.to_variable_in(&Cpu), options))
        .solve(&on_host, &mg_b, &mut cpu);
    assert!(report.iterations <= cpu_report.iterations + 1, "{name} stencil! operator: {report:?} {cpu_report:?}");
    assert!(max_difference(&x.to_host(), &cpu) <= 100.0 * rtol, "{name} stencil! operator: from the CPU's solution");

    // A variable-coefficient operator (its fields uploaded) with its diagonal as Jacobi, against
    // the same solve on the CPU.
    let offsets = [[-1, 0], [1, 0], [0, -1], [0, 1], [0, 0]];
    let field = |t: usize| {
        Array::from_fn([shape[0] + 2, shape[1] + 2], |[i, j]| {
            let k = 1.0 + ((i * 3 + j * 7) % 5) as f64;
            w(if t == 4 { 4.0 * k + 0.5 } else { -k })
        })
    };
    let host_fields: Vec<Array<T, 2>> = (0..5).map(field).collect();
    let on_host =
        VariableOperator::new(VariableStencil::new(offsets), host_fields.clone(), [Boundary::Value(T::ZERO); 2]);
    let on_dev = VariableOperator::new(
        VariableStencil::new(offsets),
        host_fields.iter().map(&upload).collect(),
        [Boundary::Value(T::ZERO); 2],
    );
    let mut x = upload(&Array::zeros(shape));
    Cg::new().rtol(rtol).preconditioner(Jacobi::new(&on_dev.diagonal())).solve(&on_dev, &upload(&b), &mut x);
    let mut cpu = Array::zeros(shape);
    Cg::new().rtol(rtol).preconditioner(Jacobi::new(&on_host.diagonal())).solve(&on_host, &b, &mut cpu);
    assert!(max_difference(&x.to_host(), &cpu) <= 100.0 * rtol, "{name} variable operator: from the CPU's solution");

    // Jacobi on the device: exact in one iteration for a diagonal operator (a closure of device
    // ops).
    let diagonal = Array::from_fn(shape, |[i, j]| w(1.0 + (i + j) as f64));
    let d = upload(&diagonal);
    let scaled = FnOperator::new(shape, |x: &Array<T, 2, B>, y: &mut Array<T, 2, B>| y.assign(&(x * &d)));
    let mut x = upload(&Array::zeros(shape));
    let report = Cg::new().rtol(rtol).preconditioner(Jacobi::new(&d)).solve(&scaled, &upload(&b), &mut x);
    assert_eq!(report.iterations, 1, "{name} jacobi");
    let expected = Array::from_fn(shape, |[i, j]| b[[i, j]] / diagonal[[i, j]]);
    assert!(max_difference(&x.to_host(), &expected) <= 4.0 * rtol, "{name} jacobi");
}

/// CG on operators whose vectors take each vector-kernel form of a device: interiors with long
/// dense rows (a 2D grid of 140 rows of 70 points: a row per multiprocessor of an H100 and more,
/// as CUDA's row form asks), one dense block (the interior of a 1D grid), and
/// short strided rows (a 2D grid of 9-point rows); shifted Laplacians, so CG converges in a few
/// tens of iterations in f32 too. Against the CPU's solve.
fn layouts_on<T, B>(
    name: &str,
    rtol: f64,
    upload: impl Fn(&Array<T, 2>) -> Array<T, 2, B>,
    upload_1d: impl Fn(&Array<T, 1>) -> Array<T, 1, B>,
) where
    T: SolverScalar,
    B: SolverBackend + StencilKernels + Download,
{
    let w = |v: f64| T::from_f64(v);
    let cross = DynStencil::new([
        ([-1, 0], w(-1.0)),
        ([1, 0], w(-1.0)),
        ([0, -1], w(-1.0)),
        ([0, 1], w(-1.0)),
        ([0, 0], w(5.0)),
    ]);
    for shape in [[140, 70], [40, 9]] {
        let op = StencilOperator::new(cross.clone(), shape, [Boundary::Value(T::ZERO); 2]);
        let b = Array::from_fn(shape, |[i, j]| w(((i * 7 + j * 3) % 11) as f64 - 4.5));
        let mut x = upload(&Array::zeros(shape));
        let report = Cg::new().rtol(rtol).solve(&op, &upload(&b), &mut x);
        // From zero the first residual is `b`: its norm is the device's dot product.
        let norm = b.iter().map(|&v| v.into() * v.into()).sum::<f64>().sqrt();
        let first = report.residual_history[0];
        assert!((first - norm).abs() <= 10.0 * rtol * norm, "{name} on {shape:?}: ‖b‖ {first}, on the host {norm}");
        let mut cpu = Array::zeros(shape);
        let on_cpu = Cg::new().rtol(rtol).solve(&op, &b, &mut cpu);
        assert!(max_difference(&x.to_host(), &cpu) <= 100.0 * rtol, "{name} CG on {shape:?}: from the CPU's solution");
        // The next residual norms come from the fused update and sum of squares (`axpby_sumsq`).
        for (k, (d, c)) in report.residual_history.iter().zip(&on_cpu.residual_history).enumerate().take(4) {
            assert!((d - c).abs() <= 10.0 * rtol * c, "{name} on {shape:?}: residual {k} is {d}, on the CPU {c}");
        }
    }
    let line = DynStencil::new([([-1], w(-1.0)), ([1], w(-1.0)), ([0], w(3.0))]);
    let op = StencilOperator::new(line, [3000], [Boundary::Value(T::ZERO)]);
    let b = Array::from_fn([3000], |[i]| w(((i * 7) % 11) as f64 - 4.5));
    let mut x = upload_1d(&Array::zeros([3000]));
    Cg::new().rtol(rtol).solve(&op, &upload_1d(&b), &mut x);
    let mut cpu = Array::zeros([3000]);
    Cg::new().rtol(rtol).solve(&op, &b, &mut cpu);
    let (x, scale) = (x.to_host(), cpu.iter().fold(0f64, |m, &v| m.max(v.into().abs())));
    let diff = x.iter().zip(cpu.iter()).fold(0f64, |m, (&p, &q)| m.max((p.into() - q.into()).abs()));
    assert!(diff <= 100.0 * rtol * scale, "{name} CG on a line: {diff} from the CPU's solution");
}

#[test]
fn the_model_backend_solves_as_the_cpu_does() {
    solves_on::<f64, model::Model>("model", 1e-10, |a| model::model(3, a.shape(), |i| a[i]));
    layouts_on::<f64, model::Model>(
        "model",
        1e-10,
        |a| model::model(3, a.shape(), |i| a[i]),
        |a| model::model(3, a.shape(), |i| a[i]),
    );
}

#[cfg(feature = "cuda")]
#[test]
fn cuda_solves_as_the_cpu_does() {
    let dev = match CudaDevice::new(0) {
        Ok(dev) => dev,
        Err(e) => {
            assert!(std::env::var_os("CNDA_REQUIRE_CUDA").is_none(), "CNDA_REQUIRE_CUDA is set but: {e}");
            return eprintln!("SKIP: {e}");
        }
    };
    solves_on::<f32, Cuda>("cuda f32", 1e-5, |a| a.to_device(&dev));
    solves_on::<f64, Cuda>("cuda f64", 1e-10, |a| a.to_device(&dev));
    layouts_on::<f32, Cuda>("cuda f32", 1e-5, |a| a.to_device(&dev), |a| a.to_device(&dev));
    layouts_on::<f64, Cuda>("cuda f64", 1e-10, |a| a.to_device(&dev), |a| a.to_device(&dev));
    sparse_on::<f32, _>("cuda f32", &dev, true);
    sparse_on::<f64, _>("cuda f64", &dev, true);
}

#[cfg(feature = "wgpu")]
#[test]
fn webgpu_solves_as_the_cpu_does() {
    let dev = match WgpuDevice::new() {
        Ok(dev) => dev,
        Err(e) => {
            assert!(std::env::var_os("CNDA_REQUIRE_WGPU").is_none(), "CNDA_REQUIRE_WGPU is set but: {e}");
            return eprintln!("SKIP: {e}");
        }
    };
    solves_on::<f32, Wgpu>("webgpu f32", 1e-5, |a| a.to_device(&dev));
    layouts_on::<f32, Wgpu>("webgpu f32", 1e-5, |a| a.to_device(&dev), |a| a.to_device(&dev));
    // WGSL gives no say over fused multiply-adds: the products agree to rounding.
    sparse_on::<f32, _>("webgpu f32", &dev, false);
}

/// A CSR matrix on device `dev`: the matrix of a 9-point stencil with mixed boundaries, `spmv`
/// against the CPU's (bit for bit where the device rounds as the CPU does, `exact`), and CG with
/// the matrix as operator on the grid against the CPU's solve.
#[cfg(any(feature = "cuda", feature = "wgpu"))]
fn sparse_on<T, D>(name: &str, dev: &D, exact: bool)
where
    T: SolverScalar,
    D: cnda::kernel::Upload,
    D::Target: SolverBackend + cnda::kernel::SparseKernels + Download,
{
    use cnda::sparse::CsrMatrix;
    let shape = [23, 17];
    let w = |v: f64| T::from_f64(v);
    let taps = [
        ([-1, -1], 0.25),
        ([-1, 0], -1.0),
        ([0, -1], -1.0),
        ([0, 0], 4.5),
        ([0, 1], -1.0),
        ([1, 0], -1.0),
        ([1, 1], 0.25),
    ];
    let stencil = DynStencil::new(taps.map(|(o, v)| (o, w(v))));
    let op = StencilOperator::new(stencil, shape, [Boundary::Periodic, Boundary::Neumann]);
    let host = CsrMatrix::from_stencil(&op);
    let matrix = host.to_device(dev);
    assert_eq!(matrix.to_host().values().as_slice(), host.values().as_slice(), "{name}: the matrix's round trip");
    let points = shape[0] * shape[1];
    let x = Array::from_fn([points], |[i]| w(((i * 37) % 101) as f64 / 50.0 - 1.0));
    let mut y = Array::zeros([points]);
    host.spmv(&x, &mut y);
    let mut on_device = x.to_device(dev);
    matrix.spmv(&x.to_device(dev), &mut on_device);
    let on_device = on_device.to_host();
    let worst = y.iter().zip(on_device.iter()).fold(0f64, |m, (&p, &q)| m.max((p.into() - q.into()).abs()));
    assert!(if exact { worst == 0.0 } else { worst <= 1e-5 }, "{name} spmv: {worst} from the CPU's");
    let b = Array::from_fn(shape, |[i, j]| w(((i * 7 + j * 3) % 11) as f64 - 4.5));
    let rtol = if core::mem::size_of::<T>() == 4 { 1e-5 } else { 1e-10 };
    let mut x = Array::zeros(shape).to_device(dev);
    let report = Cg::new().rtol(rtol).solve(&matrix.on_grid(shape), &b.to_device(dev), &mut x);
    let mut cpu = Array::zeros(shape);
    Cg::new().rtol(rtol).solve(&op, &b, &mut cpu);
    assert!(max_difference(&x.to_host(), &cpu) <= 100.0 * rtol, "{name} CG on a CSR matrix: {report:?}");
}
