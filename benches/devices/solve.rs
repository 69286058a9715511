//! The linear solvers on a device (`CNDA_BENCH_ONLY=solve` runs these alone): one CG iteration on
//! the 2D Poisson problem against the traffic it must move (11 vectors: the product reads `p` and
//! writes `q`, the dot products read four, the updates read five and write three, counted as a
//! fused raw loop would move them), the 3D Poisson problem solved to a relative residual by CG
//! preconditioned with one multigrid V(2,2) cycle (Chebyshev and damped-Jacobi smoothing), a solve
//! of one cycle and one operator application alone, and the product of a CSR matrix (the 7-point 3D
//! Laplacian) with a vector against the bytes it reads. `SOLVE2` and `SOLVE3` set the sizes
//! (4096 and "127 255" by default). `benches/cupy_devices.py` times CuPy's CG and cuSPARSE's
//! product on the same problems.

use cnda::kernel::{SparseKernels, StencilKernels, Upload};
use cnda::prelude::*;
use cnda::solve::{
    Cg, Multigrid, MultigridOptions, Smoother, SolveOptions, SolverBackend, SolverScalar, StencilOperator,
};
use cnda::sparse::CsrMatrix;
use cnda::stencil::{Boundary, LinearStencil};

use super::{median, sizes, Bench};

/// Every solver case in `T` (`rtol`: the 3D solve's tolerance).
/// `target` moves host matrices to the device.
pub fn solvers<D, T>(dev: &D, target: &impl Upload<Target = D::B>, repeats: usize, rtol: f64)
where
    D: Bench,
    D::B: SolverBackend + StencilKernels + SparseKernels,
    T: SolverScalar,
{
    if !dev.supports::<T>() {
        return;
    }
    let t = core::any::type_name::<T>();
    for n in sizes("SOLVE2", "4096") {
        cg_iteration::<D, T>(dev, n, repeats, t);
    }
    for n in sizes("SOLVE3", "127 255") {
        poisson_3d::<D, T>(dev, n, repeats.min(5), rtol, t);
        spmv::<D, T>(dev, target, n, repeats, t);
    }
}

/// The seconds of one device-to-device copy of `points` values of `T` (the bandwidth baseline).
fn copy_seconds<D: Bench, T: SolverScalar>(dev: &D, points: usize, repeats: usize) -> f64 {
    let a = dev.upload(&Array::<T, 1>::zeros([points]));
    median(dev, repeats, || drop(a.to_owned()))
}

fn cg_iteration<D, T>(dev: &D, n: usize, repeats: usize, t: &str)
where
    D: Bench,
    D::B: SolverBackend + StencilKernels,
    T: SolverScalar,
{
    const ITERATIONS: usize = 50;
    let h = T::from_f64(1.0 / (n + 1) as f64);
    let a = StencilOperator::new(LinearStencil::laplacian_5pt(h), [n, n], [Boundary::Value(T::ZERO); 2]);
    let b = dev.upload(&Array::from_fn([n, n], |[i, j]| T::from_f64(((i * 7 + j * 3) % 11) as f64 - 5.0)));
    let mut x = dev.upload(&Array::<T, 2>::zeros([n, n]));
    let cg = Cg::new().max_iters(ITERATIONS).rtol(1e-300).atol(1e-300);
    let s = median(dev, repeats.min(7), || {
        x.fill(T::ZERO);
        let _ = cg.try_solve(&a, &b, &mut x);
    }) / ITERATIONS as f64;
    let copy = copy_seconds::<D, T>(dev, n * n, repeats);
    // A copy moves two vectors; the iteration's least traffic is eleven.
    let bound = 5.5 * copy;
    println!(
        "  {:<32} {:>9.3} ms  {:>8.1} GPts/s  ({n}^2 {t}, {:.2}x the 11-vector traffic bound {:.3} ms)",
        "CG iteration, 2D Poisson",
        s * 1e3,
        (n * n) as f64 / s / 1e9,
        s / bound,
        bound * 1e3
    );
}

fn poisson_3d<D, T>(dev: &D, n: usize, repeats: usize, rtol: f64, t: &str)
where
    D: Bench,
    D::B: SolverBackend + StencilKernels,
    T: SolverScalar,
{
    let h = T::from_f64(1.0 / (n + 1) as f64);
    let lap = LinearStencil::laplacian_7pt(h);
    let a = StencilOperator::new(lap, [n, n, n], [Boundary::Value(T::ZERO); 3]);
    let b =
        dev.upload(&Array::from_fn([n, n, n], |[i, j, k]| T::from_f64(((i * 7 + j * 3 + k * 5) % 11) as f64 - 5.0)));
    let mut x = dev.upload(&Array::<T, 3>::zeros([n, n, n]));
    let alloc = b.allocator();
    // One operator application on padded arrays (the unit the work counts).
    let padded = dev.upload(&Array::<T, 3>::full([n + 2, n + 2, n + 2], T::ONE));
    let mut out = dev.upload(&Array::<T, 3>::zeros([n + 2, n + 2, n + 2]));
    let apply = median(dev, repeats, || lap.apply(&padded, &mut out));
    println!("  {:<32} {:>9.3} ms  ({n}^3 {t})", "7-point operator application", apply * 1e3);
    for (name, smoother) in
        [("Chebyshev", Smoother::Chebyshev), ("damped Jacobi", Smoother::Jacobi { omega: 6.0 / 7.0 })]
    {
        let options = MultigridOptions { smoother, ..Default::default() };
        let mg = match Multigrid::try_new_in(&alloc, &a, options) {
            Ok(mg) => mg,
            Err(e) => {
                println!("  multigrid {n}^3 {t}: {e}");
                return;
            }
        };
        let cycle = median(dev, repeats, || {
            x.fill(T::ZERO);
            let _ = mg.try_solve(&a, &b, &mut x, SolveOptions::default().max_iters(1).rtol(1e-300).atol(1e-300));
        });
        let pcg = Cg::new().rtol(rtol).preconditioner(mg);
        let mut report = None;
        let s = median(dev, repeats, || {
            x.fill(T::ZERO);
            report = Some(pcg.solve(&a, &b, &mut x));
        });
        let report = report.expect("the solve ran");
        println!(
            "  {:<32} {:>9.3} ms  {:>8.1} MDoF/s  ({n}^3 {t}, rtol {rtol:.0e}: {} iterations, work {:.0}; a one-cycle solve {:.3} ms = {:.1} applications)",
            format!("MG-CG, {name}"),
            s * 1e3,
            (n * n * n) as f64 / s / 1e6,
            report.iterations,
            report.work,
            cycle * 1e3,
            cycle / apply
        );
    }
}

fn spmv<D, T>(dev: &D, target: &impl Upload<Target = D::B>, n: usize, repeats: usize, t: &str)
where
    D: Bench,
    D::B: SolverBackend + SparseKernels,
    T: SolverScalar,
{
    let h = T::from_f64(1.0 / (n + 1) as f64);
    let op = StencilOperator::new(LinearStencil::laplacian_7pt(h), [n, n, n], [Boundary::Value(T::ZERO); 3]);
    let matrix = CsrMatrix::from_stencil(&op).to_device(target);
    let rows = n * n * n;
    let x = dev.upload(&Array::from_fn([rows], |[i]| T::from_f64(((i * 37) % 101) as f64 / 50.0 - 1.0)));
    let mut y = dev.upload(&Array::<T, 1>::zeros([rows]));
    let s = median(dev, repeats, || matrix.spmv(&x, &mut y));
    let size = core::mem::size_of::<T>();
    // Values and column indices once, row offsets, x once (cached), y written.
    let bytes = (matrix.nnz() * (size + 4) + (rows + 1) * 4 + 2 * rows * size) as f64;
    let copy_rate = 2.0 * (rows * size) as f64 / copy_seconds::<D, T>(dev, rows, repeats);
    println!(
        "  {:<32} {:>9.3} ms  {:>8.1} GB/s  {:>5.2} of copy  ({n}^3 rows, {} nonzeros, {t})",
        "CSR product (7-point)",
        s * 1e3,
        bytes / s / 1e9,
        bytes / s / copy_rate,
        matrix.nnz()
    );
}
