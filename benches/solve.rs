//! One CG iteration on the 2D Poisson problem (5-point Laplacian, zero walls, `f64`, 2048^2 by
//! default; `CNDA_SOLVE_N` to change): cnda's `Cg` with a `StencilOperator`, against a raw CG on
//! padded `Vec`s whose loops fuse what can be fused (the product with its dot product, both
//! updates with the residual's norm), and a copy of one vector (the memory bandwidth: the raw
//! iteration moves 11 vectors, a copy 2). 50 iterations per sample from a zero guess; throughput
//! in grid points per second, times 50. And CG on a conductivity (`VariableOperator::diffusion_in`,
//! five coefficient fields) with `p · A p` from the product's slabs, or as a separate pass.
//!
//! And the 3D Poisson problem (7-point Laplacian, zero walls, `f64`, 127^3 by default;
//! `CNDA_SOLVE_N3`, a `2^k - 1`) solved to a relative residual of 1e-8 from zero: by multigrid
//! V(2,2) cycles alone and by CG preconditioned with one cycle (red-black, Jacobi and Chebyshev
//! smoothing), by cycles after a full-multigrid pass, and that pass alone; throughput in
//! unknowns solved per second.
//!
//! And the 3D diffusion problem `−∇·(k∇u) = f` with a smoothly varying conductivity (a factor
//! of 19 between its extremes; the same grid, zero walls, `f64`, to 1e-8 from zero) by CG
//! preconditioned with one V(2,2) cycle (red-black smoothing) whose coarse operators are Galerkin
//! products (27 taps) or rediscretized (7 taps): the solves, and the hierarchies' builds.
//!
//! `cargo bench --bench solve`

use cnda::prelude::*;
use cnda::solve::{
    Cg, CoarseOperators, LinearOperator, Multigrid, MultigridOptions, Smoother, SolveOptions, Start, StencilOperator,
    VariableOperator,
};
use cnda::stencil::{Boundary, LinearStencil};
use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};

const ITERATIONS: usize = 50;

fn size() -> usize {
    std::env::var("CNDA_SOLVE_N").ok().and_then(|s| s.parse().ok()).unwrap_or(2048)
}

fn rhs(n: usize) -> Array<f64, 2> {
    Array::from_fn([n, n], |[i, j]| ((i * 7 + j * 3) % 11) as f64 - 5.0)
}

/// Raw CG: `q = A p` with `p · q` in the same loop, `x += α p` and `r -= α q` with `r · r` in one
/// loop, `p = r + β p`; vectors padded by one zero cell so the product needs no branches.
fn raw_cg(n: usize, b: &[f64], iterations: usize) -> f64 {
    let w = n + 2;
    let idx = |i: usize, j: usize| (i + 1) * w + j + 1;
    let (mut x, mut r, mut p, mut q) = (vec![0.0; w * w], vec![0.0; w * w], vec![0.0; w * w], vec![0.0; w * w]);
    for i in 0..n {
        for j in 0..n {
            r[idx(i, j)] = b[i * n + j];
            p[idx(i, j)] = b[i * n + j];
        }
    }
    let mut rr: f64 = r.iter().map(|v| v * v).sum();
    let h2 = 1.0 / (1.0 / 2048.0f64).powi(2);
    for _ in 0..iterations {
        let mut pq = 0.0;
        for i in 1..=n {
            let (above, row, below) = (&p[(i - 1) * w..i * w], &p[i * w..(i + 1) * w], &p[(i + 1) * w..(i + 2) * w]);
            let out = &mut q[i * w..(i + 1) * w];
            for j in 1..=n {
                let v = (above[j] + below[j] + row[j - 1] + row[j + 1] - 4.0 * row[j]) * h2;
                out[j] = v;
                pq += v * row[j];
            }
        }
        let alpha = rr / pq;
        let mut rr_next = 0.0;
        for i in 1..=n {
            let s = i * w + 1..i * w + 1 + n;
            for (((xv, rv), pv), qv) in x[s.clone()].iter_mut().zip(&mut r[s.clone()]).zip(&p[s.clone()]).zip(&q[s]) {
                *xv += alpha * pv;
                *rv -= alpha * qv;
                rr_next += *rv * *rv;
            }
        }
        let beta = rr_next / rr;
        rr = rr_next;
        for i in 1..=n {
            let s = i * w + 1..i * w + 1 + n;
            for (pv, rv) in p[s.clone()].iter_mut().zip(&r[s]) {
                *pv = rv + beta * *pv;
            }
        }
    }
    rr.sqrt() + x[idx(n / 2, n / 2)]
}

fn cg_iteration(c: &mut Criterion) {
    let n = size();
    let b = rhs(n);
    let a = StencilOperator::new(LinearStencil::laplacian_5pt(1.0 / 2048.0), [n, n], [Boundary::Value(0.0); 2]);
    let mut group = c.benchmark_group(format!("cg_poisson_2d_{n}_f64"));
    group.sample_size(10).throughput(Throughput::Elements((n * n * ITERATIONS) as u64));
    group.bench_function("cnda_cg", |bench| {
        let mut x = Array::zeros([n, n]);
        bench.iter(|| {
            x.fill(0.0);
            let outcome = Cg::new().max_iters(ITERATIONS).rtol(1e-300).atol(1e-300).try_solve(&a, &b, &mut x);
            black_box((outcome.is_err(), x[[n / 2, n / 2]]))
        })
    });
    // The same operator behind a wrapper that only applies: the product and `p · A p` as two
    // passes (what `cnda_cg` did before they shared a sweep).
    struct Separate<'a, A>(&'a A);
    impl<A: LinearOperator<f64, 2, Cpu>> LinearOperator<f64, 2, Cpu> for Separate<'_, A> {
        fn shape(&self) -> [usize; 2] {
            self.0.shape()
        }
        fn halo(&self) -> [usize; 2] {
            self.0.halo()
        }
        fn try_apply(&self, x: &mut Array<f64, 2>, y: &mut Array<f64, 2>) -> cnda::Result<()> {
            self.0.try_apply(x, y)
        }
    }
    group.bench_function("cnda_cg_separate_dot", |bench| {
        let mut x = Array::zeros([n, n]);
        bench.iter(|| {
            x.fill(0.0);
            let outcome =
                Cg::new().max_iters(ITERATIONS).rtol(1e-300).atol(1e-300).try_solve(&Separate(&a), &b, &mut x);
            black_box((outcome.is_err(), x[[n / 2, n / 2]]))
        })
    });
    // A conductivity (five coefficient fields): `p · A p` from the product's slabs, or after it.
    let k = Array::from_fn([n, n], |[i, j]| 1.0 + ((i * 3 + j * 5) % 7) as f64);
    let diffusion = VariableOperator::diffusion_in(&Cpu, &k, [1.0 / n as f64; 2], 0.0, [Boundary::Value(0.0); 2]);
    for (name, separate) in [("cnda_cg_diffusion", false), ("cnda_cg_diffusion_separate_dot", true)] {
        group.bench_function(name, |bench| {
            let mut x = Array::zeros([n, n]);
            bench.iter(|| {
                x.fill(0.0);
                let cg = Cg::new().max_iters(ITERATIONS).rtol(1e-300).atol(1e-300);
                let outcome = match separate {
                    true => cg.try_solve(&Separate(&diffusion), &b, &mut x),
                    false => cg.try_solve(&diffusion, &b, &mut x),
                };
                black_box((outcome.is_err(), x[[n / 2, n / 2]]))
            })
        });
    }
    group.bench_function("raw_cg", |bench| bench.iter(|| black_box(raw_cg(n, b.as_slice(), ITERATIONS))));
    let src = vec![1.0f64; (n + 2) * (n + 2)];
    let mut dst = vec![0.0f64; (n + 2) * (n + 2)];
    // One core's read bandwidth: a sum of one vector (8 accumulators, vectorized), the pass
    // that 7 of the 11 a CG iteration moves are.
    group.bench_function("read_one_vector_x50", |bench| {
        bench.iter(|| {
            let mut total = 0.0;
            for _ in 0..ITERATIONS {
                let mut acc = [0.0f64; 8];
                for chunk in black_box(&src).chunks_exact(8) {
                    for k in 0..8 {
                        acc[k] += chunk[k];
                    }
                }
                total += acc.iter().sum::<f64>();
            }
            black_box(total)
        })
    });
    group.bench_function("copy_one_vector_x50", |bench| {
        bench.iter(|| {
            for _ in 0..ITERATIONS {
                dst.copy_from_slice(black_box(&src));
            }
            black_box(dst[7])
        })
    });
    group.finish();
}

fn poisson_3d(c: &mut Criterion) {
    let n = std::env::var("CNDA_SOLVE_N3").ok().and_then(|s| s.parse().ok()).unwrap_or(127);
    let h = 1.0 / (n + 1) as f64;
    let a = StencilOperator::new(LinearStencil::laplacian_7pt(h), [n, n, n], [Boundary::Value(0.0); 3]);
    let b = Array::from_fn([n, n, n], |[i, j, k]| ((i * 7 + j * 3 + k * 5) % 11) as f64 - 5.0);
    let mut group = c.benchmark_group(format!("poisson_3d_{n}_f64_rtol_1e-8"));
    group.sample_size(10).throughput(Throughput::Elements((n * n * n) as u64));
    let mut x = Array::zeros([n, n, n]);
    let smoothers = [
        ("red_black", Smoother::RedBlack),
        ("jacobi", Smoother::Jacobi { omega: 6.0 / 7.0 }),
        ("chebyshev", Smoother::Chebyshev),
    ];
    let tolerance = SolveOptions::default().rtol(1e-8);
    for (name, smoother) in smoothers {
        let options = MultigridOptions { smoother, ..Default::default() };
        let mg = Multigrid::new_in(&Cpu, &a, options);
        x.fill(0.0);
        let alone = mg.solve(&a, &b, &mut x, tolerance);
        let preconditioned = Cg::new().rtol(1e-8).preconditioner(Multigrid::new_in(&Cpu, &a, options));
        let with_cg = preconditioned.solve(&a, &b, &mut Array::zeros([n, n, n]));
        eprintln!(
            "{name}: levels {:?}: {} V(2,2) cycles alone (work {:.0}), {} preconditioned CG iterations (work {:.0})",
            mg.level_shapes(),
            alone.iterations,
            alone.work,
            with_cg.iterations,
            with_cg.work
        );
        group.bench_function(format!("multigrid_v22_{name}"), |bench| {
            bench.iter(|| {
                x.fill(0.0);
                black_box(mg.solve(&a, &b, &mut x, tolerance).iterations)
            })
        });
        group.bench_function(format!("cg_multigrid_{name}"), |bench| {
            bench.iter(|| {
                x.fill(0.0);
                black_box(preconditioned.solve(&a, &b, &mut x).iterations)
            })
        });
    }
    // Multigrid from a full-multigrid pass, and that pass alone (to the discretization error, for
    // a smooth right-hand side; this one is rough, which changes the work of neither).
    let start = Start::FullMultigrid { cycles: 1 };
    let fmg = Multigrid::new_in(&Cpu, &a, MultigridOptions { start, ..Default::default() });
    x.fill(0.0);
    let started = fmg.solve(&a, &b, &mut x, tolerance);
    let pass = fmg.full_multigrid(&a, &b, &mut Array::zeros([n, n, n]), 1);
    eprintln!(
        "damped Jacobi from FMG: {} cycles (work {:.0}); one FMG pass: work {:.1}, residual {:.2e} of the first",
        started.iterations,
        started.work,
        pass.work,
        pass.residual_norm() / pass.residual_history[0]
    );
    group.bench_function("multigrid_v22_damped_jacobi_fmg_start", |bench| {
        bench.iter(|| {
            x.fill(0.0);
            black_box(fmg.solve(&a, &b, &mut x, tolerance).iterations)
        })
    });
    group.bench_function("full_multigrid_pass", |bench| {
        bench.iter(|| {
            x.fill(0.0);
            black_box(fmg.full_multigrid(&a, &b, &mut x, 1).work)
        })
    });
    group.bench_function("one_operator_application", |bench| {
        let mut padded = Array::zeros([n + 2, n + 2, n + 2]);
        let mut out = Array::zeros([n + 2, n + 2, n + 2]);
        padded.fill(1.0);
        bench.iter(|| {
            LinearStencil::laplacian_7pt(h).apply(&padded, &mut out);
            black_box(out[[1, 1, 1]])
        })
    });
    group.finish();
}

fn diffusion_3d(c: &mut Criterion) {
    let n = std::env::var("CNDA_SOLVE_N3").ok().and_then(|s| s.parse().ok()).unwrap_or(127);
    let h = 1.0 / (n + 1) as f64;
    let k = Array::from_fn([n, n, n], |[i, j, l]| {
        let (x, y, z) = (i as f64 * h, j as f64 * h, l as f64 * h);
        1.0 + 0.9 * (6.0 * x + 3.0 * y).sin() * (4.0 * z).cos()
    });
    let a = VariableOperator::diffusion_in(&Cpu, &k, [h; 3], 0.0, [Boundary::Value(0.0); 3]);
    let b = Array::from_fn([n, n, n], |[i, j, k]| ((i * 7 + j * 3 + k * 5) % 11) as f64 - 5.0);
    let mut group = c.benchmark_group(format!("diffusion_3d_{n}_f64_rtol_1e-8"));
    group.sample_size(10).throughput(Throughput::Elements((n * n * n) as u64));
    let mut x = Array::zeros([n, n, n]);
    for (name, coarse) in [("galerkin", CoarseOperators::Galerkin), ("rediscretized", CoarseOperators::Rediscretized)] {
        let options = MultigridOptions { smoother: Smoother::RedBlack, coarse, ..Default::default() };
        let preconditioned = Cg::new().rtol(1e-8).preconditioner(Multigrid::for_variable(&a, options));
        let report = preconditioned.solve(&a, &b, &mut Array::zeros([n, n, n]));
        eprintln!("{name}: {} MG-CG iterations (work {:.0})", report.iterations, report.work);
        group.bench_function(format!("cg_multigrid_{name}"), |bench| {
            bench.iter(|| {
                x.fill(0.0);
                black_box(preconditioned.solve(&a, &b, &mut x).iterations)
            })
        });
        group.bench_function(format!("build_{name}"), |bench| {
            bench.iter(|| black_box(Multigrid::for_variable(&a, options).level_shapes().len()))
        });
    }
    group.finish();
}

criterion_group!(benches, cg_iteration, poisson_3d, diffusion_3d);
criterion_main!(benches);
