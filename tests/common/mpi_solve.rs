//! Distributed linear solves (`solve_dist` on a `DistOperator`) against one process solving the
//! whole grid with the same method from the same guess: the gathered solution within the
//! tolerance of the one-process one, about as many iterations (only the dot products' order of
//! additions differs), the residual of the gathered solution recomputed on one process, and
//! the same report on every process. On host blocks (tests/mpi.rs) and device blocks
//! (tests/mpi_device.rs).

use cnda::dist::{DistArray, DistBackend};
use cnda::kernel::{Allocator, ElementwiseKernels, StencilKernels};
use cnda::prelude::*;
use cnda::solve::{
    Bicgstab, Cg, DistOperator, Gmres, Jacobi, LinearOperator, Minres, SolveOptions, SolveReport, SolverBackend,
    SolverScalar, StencilOperator, VariableOperator,
};
use cnda::stencil::{Boundaries, Boundary, DynStencil, VariableStencil};
use mpi::datatype::Equivalence;
use mpi::traits::{Communicator, CommunicatorCollectives};

/// What the distributed solves need of the blocks' backend.
pub trait SolveBackend: SolverBackend + DistBackend + StencilKernels + ElementwiseKernels + 'static {}
impl<B: SolverBackend + DistBackend + StencilKernels + ElementwiseKernels + 'static> SolveBackend for B {}

/// The element types of the checks.
pub trait Real: SolverScalar + Equivalence + 'static {}
impl<T: SolverScalar + Equivalence + 'static> Real for T {}

/// A smooth right-hand side with some roughness, distinct at every point.
pub fn rhs<const N: usize>(g: [usize; N]) -> f64 {
    g.iter().enumerate().fold(0.3, |acc, (k, &i)| acc + ((i * (k + 3)) % 7) as f64 * 0.1 - 0.25 * k as f64)
}

/// The report's iterations and last residual on every process equal to rank 0's.
fn same_report(comm: &impl Communicator, report: &SolveReport) -> bool {
    let mine: [f64; 2] = [report.iterations as f64, report.residual_norm()];
    let mut all = vec![0.0f64; 2 * comm.size() as usize];
    comm.all_gather_into(&mine[..], &mut all[..]);
    all.chunks_exact(2).all(|pair| pair[0].to_bits() == mine[0].to_bits() && pair[1].to_bits() == mine[1].to_bits())
}

/// `‖b − A x‖₂ / ‖b‖₂` on one process (the whole grid), in `f64`.
fn relative_residual<T: Real, const N: usize, A: LinearOperator<T, N, Cpu>>(
    a: &A,
    b: &Array<T, N>,
    x: &Array<T, N>,
) -> f64 {
    let halo = a.halo();
    let padded: [usize; N] = core::array::from_fn(|k| b.shape()[k] + 2 * halo[k]);
    let mut xp = Array::<T, N>::zeros(padded);
    (0..N).fold(xp.view_mut().into_strided(), |v, k| v.narrow(k, halo[k], b.shape()[k])).assign(x);
    let mut y = Array::<T, N>::zeros(padded);
    a.try_apply(&mut xp, &mut y).expect("the one-process operator applies");
    let y = (0..N).fold(y.view().into_strided(), |v, k| v.narrow(k, halo[k], b.shape()[k])).to_owned();
    let (mut r2, mut b2) = (0.0, 0.0);
    for (yi, bi) in y.iter().zip(b.iter()) {
        let (yi, bi): (f64, f64) = ((*yi).into(), (*bi).into());
        r2 += (bi - yi) * (bi - yi);
        b2 += bi * bi;
    }
    (r2 / b2).sqrt()
}

/// One method's distributed solve against the one-process solve of the same problem.
/// `solve_one(a, b, x)` and `solve_dist(a, b, x)` run the method; `rtol` is theirs.
#[allow(clippy::too_many_arguments)]
pub fn compare<T: Real, const N: usize, B: SolveBackend, A1: LinearOperator<T, N, Cpu>, A2: LinearOperator<T, N, B>>(
    comm: &impl Communicator,
    what: &str,
    one: &A1,
    dist: &DistOperator<T, N, A2, B>,
    b: &DistArray<T, N, B>,
    x: &mut DistArray<T, N, B>,
    solve_one: impl Fn(&A1, &Array<T, N>, &mut Array<T, N>) -> SolveReport,
    solve_dist: impl Fn(&DistOperator<T, N, A2, B>, &DistArray<T, N, B>, &mut DistArray<T, N, B>) -> SolveReport,
    rtol: f64,
) {
    let guess = x.gather(0);
    let report = solve_dist(dist, b, x);
    assert!(same_report(comm, &report), "{what}: the processes' reports differ");
    let (b_all, x_all) = (b.gather(0), x.gather(0));
    let (Some(b_all), Some(x_all)) = (b_all, x_all) else { return };
    let mut x_one = guess.expect("the root has the guess");
    let reference = solve_one(one, &b_all, &mut x_one);
    // The true residual (f32's rounding of the operator caps it above `rtol`, as on one process).
    let (residual, one_residual) = (relative_residual(one, &b_all, &x_all), relative_residual(one, &b_all, &x_one));
    let bound = 2.0 * rtol.max(one_residual);
    assert!(residual <= bound, "{what}: the gathered solution's relative residual is {residual:e} > {bound:e}");
    let (mut diff, mut norm) = (0.0f64, 0.0f64);
    for (d, o) in x_all.iter().zip(x_one.iter()) {
        let (d, o): (f64, f64) = ((*d).into(), (*o).into());
        diff = diff.max((d - o).abs());
        norm = norm.max(o.abs());
    }
    // Two solves to `rtol` differ by at most what the residuals allow: generous for the
    // operator's conditioning on these small grids.
    assert!(diff <= 1e3 * rtol * norm, "{what}: max |x_dist - x_one| = {diff:e} against max |x| = {norm:e}");
    // The same iterations but for the dot products' rounding, which BiCGSTAB's erratic
    // convergence amplifies most.
    let (d, o) = (report.iterations as f64, reference.iterations as f64);
    assert!((d - o).abs() <= 1.0 + 0.15 * o, "{what}: {d} iterations distributed, {o} on one process");
}

/// [`compare`] for CG without a preconditioner.
fn compare_cg<T: Real, const N: usize, B: SolveBackend>(
    comm: &impl Communicator,
    what: &str,
    one: &StencilOperator<T, N>,
    dist: &DistOperator<T, N, StencilOperator<T, N>, B>,
    b: &DistArray<T, N, B>,
    x: &mut DistArray<T, N, B>,
    rtol: f64,
) {
    let cg = Cg::new().rtol(rtol);
    compare(comm, what, one, dist, b, x, |a, b, x| cg.solve(a, b, x), |a, b, x| cg.solve_dist(a, b, x), rtol);
}

/// [`compare`] for multigrid: one process's hierarchy against `Multigrid::for_dist`'s, as CG's
/// preconditioner (one cycle per iteration) or, `alone`, as the solver (`Multigrid::solve` against
/// `Multigrid::solve_dist`).
#[allow(clippy::too_many_arguments)]
fn compare_mg<T: Real, const N: usize, B: SolveBackend>(
    comm: &impl Communicator,
    what: &str,
    one: &StencilOperator<T, N>,
    dist: &DistOperator<T, N, StencilOperator<T, N>, B>,
    b: &DistArray<T, N, B>,
    x: &mut DistArray<T, N, B>,
    rtol: f64,
    options: cnda::solve::MultigridOptions,
    alone: bool,
) {
    use cnda::solve::{Multigrid, SolveOptions};
    if !alone {
        let cg = Cg::new().rtol(rtol);
        let solve_one =
            |a: &_, b: &_, x: &mut _| cg.clone().preconditioner(Multigrid::new_in(&Cpu, a, options)).solve(a, b, x);
        let solve_dist =
            |a: &_, b: &_, x: &mut _| cg.clone().preconditioner(Multigrid::for_dist(a, options)).solve_dist(a, b, x);
        return compare(comm, what, one, dist, b, x, solve_one, solve_dist, rtol);
    }
    // In f32, cycles alone stall where the rounding of the operator caps the residual (CG's
    // preconditioned recurrences go lower), at about 3e-5 here.
    let rtol = if rtol >= 1e-6 { rtol.max(1e-4) } else { rtol };
    let tolerance = SolveOptions::default().rtol(rtol).max_iters(100);
    compare(
        comm,
        what,
        one,
        dist,
        b,
        x,
        |a, b, x| Multigrid::new_in(&Cpu, a, options).solve(a, b, x, tolerance),
        |a, b, x| Multigrid::for_dist(a, options).solve_dist(a, b, x, tolerance),
        rtol,
    );
}

/// A distributed array of `global` on `alloc`'s backend with `halo`, its owned points from `f`.
pub fn filled<T: Real, const N: usize, B: SolveBackend>(
    alloc: &impl Allocator<B>,
    comm: &impl Communicator,
    (global, halo, periodic): ([usize; N], [usize; N], [bool; N]),
    f: impl Fn([usize; N]) -> f64,
) -> DistArray<T, N, B> {
    let mut a = DistArray::<T, N, B>::new_in(alloc, comm, global, halo, periodic);
    a.fill_owned_with(|g| T::from_f64(f(g)));
    a
}

/// CG (with `every_method`, MINRES, BiCGSTAB and GMRES too) on a 2D Poisson problem (zero and
/// mirrored sides), CG on a periodic 9-point problem (edges and corners of the halo read) and
/// on a 3D one, and Jacobi-preconditioned CG on a variable coefficient; `rtol` suits `T`.
pub fn check_solves<T: Real, B: SolveBackend>(
    alloc: &impl Allocator<B>,
    comm: &impl Communicator,
    rtol: f64,
    every_method: bool,
) -> usize {
    use Boundary::{Neumann, Value};
    let z = T::from_f64(0.0);
    let mut checks = 0;
    // -Laplace u = f, zero on three sides, mirrored on one: every method.
    {
        let grid = ([37, 29], [1, 1], [false, false]);
        let (h, sides) = (1.0 / 38.0, [[Value(z), Neumann], [Value(z), Value(z)]]);
        let lap = DynStencil::<T, 2>::new([
            ([0, 0], T::from_f64(4.0 / (h * h))),
            ([-1, 0], T::from_f64(-1.0 / (h * h))),
            ([1, 0], T::from_f64(-1.0 / (h * h))),
            ([0, -1], T::from_f64(-1.0 / (h * h))),
            ([0, 1], T::from_f64(-1.0 / (h * h))),
        ]);
        let b = filled::<T, 2, B>(alloc, comm, grid, rhs);
        let one = StencilOperator::new(lap.clone(), grid.0, sides);
        let dist = DistOperator::stencil(lap, sides, &b);
        let mut x = filled::<T, 2, B>(alloc, comm, grid, |_| 0.0);
        compare_cg(comm, "CG", &one, &dist, &b, &mut x, rtol);
        checks += 1;
        if !every_method {
            return checks + check_more::<T, B>(alloc, comm, rtol);
        }
        let mut x = filled::<T, 2, B>(alloc, comm, grid, |_| 0.0);
        compare(
            comm,
            "MINRES",
            &one,
            &dist,
            &b,
            &mut x,
            |a, b, x| Minres::new().rtol(rtol).solve(a, b, x),
            |a, b, x| Minres::new().rtol(rtol).solve_dist(a, b, x),
            rtol,
        );
        let mut x = filled::<T, 2, B>(alloc, comm, grid, |_| 0.0);
        compare(
            comm,
            "BiCGSTAB",
            &one,
            &dist,
            &b,
            &mut x,
            |a, b, x| Bicgstab::new().rtol(rtol).solve(a, b, x),
            |a, b, x| Bicgstab::new().rtol(rtol).solve_dist(a, b, x),
            rtol,
        );
        // From a non-zero guess, restarted every 10 iterations.
        let mut x = filled::<T, 2, B>(alloc, comm, grid, |g| 0.01 * rhs(g));
        let gmres = Gmres::new().options(SolveOptions::default().rtol(rtol).restart(10));
        compare(
            comm,
            "GMRES(10)",
            &one,
            &dist,
            &b,
            &mut x,
            |a, b, x| gmres.solve(a, b, x),
            |a, b, x| gmres.solve_dist(a, b, x),
            rtol,
        );
        checks += 3;
    }
    checks + check_more::<T, B>(alloc, comm, rtol)
}

/// The CG cases after the first: 9 points on a channel, 3D, a variable coefficient.
fn check_more<T: Real, B: SolveBackend>(alloc: &impl Allocator<B>, comm: &impl Communicator, rtol: f64) -> usize {
    use Boundary::{Neumann, Periodic, Value};
    let z = T::from_f64(0.0);
    let mut checks = 0;
    // A shifted 9-point Laplacian on a channel periodic along axis 0 and mirrored along axis 1:
    // the diagonal taps read the corners the exchange and the mirror fill.
    {
        let grid = ([24, 19], [1, 1], [true, false]);
        let mut taps = vec![([0, 0], T::from_f64(1.0 + 20.0 / 6.0))];
        for (o, w) in [
            ([-1, 0], 4.0),
            ([1, 0], 4.0),
            ([0, -1], 4.0),
            ([0, 1], 4.0),
            ([-1, -1], 1.0),
            ([1, 1], 1.0),
            ([-1, 1], 1.0),
            ([1, -1], 1.0),
        ] {
            taps.push((o, T::from_f64(-w / 6.0)));
        }
        let stencil = DynStencil::<T, 2>::new(taps);
        let sides = Boundaries::from([[Periodic, Periodic], [Neumann, Neumann]]);
        let b = filled::<T, 2, B>(alloc, comm, grid, rhs);
        let one = StencilOperator::new(stencil.clone(), grid.0, sides);
        let dist = DistOperator::stencil(stencil, sides, &b);
        let mut x = filled::<T, 2, B>(alloc, comm, grid, |_| 0.0);
        compare_cg(comm, "CG, 9 points, periodic and mirrored", &one, &dist, &b, &mut x, rtol);
        checks += 1;
    }
    // 3D, 7 points, zero sides.
    {
        let grid = ([13, 11, 9], [1, 1, 1], [false, false, false]);
        let mut taps = vec![([0, 0, 0], T::from_f64(6.0))];
        for k in 0..3 {
            for s in [-1, 1] {
                let mut o = [0; 3];
                o[k] = s;
                taps.push((o, T::from_f64(-1.0)));
            }
        }
        let stencil = DynStencil::<T, 3>::new(taps);
        let b = filled::<T, 3, B>(alloc, comm, grid, rhs);
        let one = StencilOperator::new(stencil.clone(), grid.0, [Value(z); 3]);
        let dist = DistOperator::stencil(stencil, [Value(z); 3], &b);
        let mut x = filled::<T, 3, B>(alloc, comm, grid, |_| 0.0);
        compare_cg(comm, "CG, 3D", &one, &dist, &b, &mut x, rtol);
        checks += 1;
    }
    // -(k u')' on 2D with k varying by a factor of 50: CG preconditioned by each block's own
    // diagonal and by multigrid over the processes (`Multigrid::for_dist_variable`), between
    // walls and (a grid of 2^k + 1 by 2^k points) with Neumann sides.
    use cnda::solve::{Multigrid, MultigridOptions};
    let walls = Boundaries::from([Value(z); 2]);
    let mirrored = Boundaries::from([[Boundary::Neumann, Boundary::Neumann], [Value(z), Boundary::Neumann]]);
    for (grid, sides) in [(([31, 23], [1, 1], [false, false]), walls), (([33, 32], [1, 1], [false, false]), mirrored)] {
        // Conservative form: the face between two points takes their mean conductivity, so the
        // operator is symmetric; a shift of 0.5 on the diagonal.
        let k = |[i, j]: [isize; 2]| 1.0 + 49.0 * ((i * 3 + j * 5).rem_euclid(11) as f64 / 10.0);
        let face = |g: [isize; 2], o: [isize; 2]| 0.5 * (k(g) + k([g[0] + o[0], g[1] + o[1]]));
        let offsets = [[0, 0], [-1, 0], [1, 0], [0, -1], [0, 1]];
        // The coefficients at padded index p (global point p - 1): zero in the halo.
        let coefficient = move |tap: usize| {
            move |p: [usize; 2]| {
                if (0..2).any(|a| p[a] == 0 || p[a] > grid.0[a]) {
                    return 0.0;
                }
                let g = [p[0] as isize - 1, p[1] as isize - 1];
                match tap {
                    0 => 0.5 + offsets[1..].iter().map(|&o| face(g, o)).sum::<f64>(),
                    _ => -face(g, offsets[tap]),
                }
            }
        };
        let fields: Vec<DistArray<T, 2, B>> = (0..offsets.len())
            .map(|tap| {
                let f = coefficient(tap);
                filled::<T, 2, B>(alloc, comm, grid, move |g| f([g[0] + 1, g[1] + 1]))
            })
            .collect();
        let host_fields: Vec<Array<T, 2>> = (0..offsets.len())
            .map(|tap| {
                let f = coefficient(tap);
                Array::from_fn([grid.0[0] + 2, grid.0[1] + 2], |p| T::from_f64(f(p)))
            })
            .collect();
        let one = VariableOperator::new(VariableStencil::new(offsets), host_fields, sides);
        let dist = DistOperator::variable(VariableStencil::new(offsets), &fields, sides);
        let b = filled::<T, 2, B>(alloc, comm, grid, rhs);
        if sides == walls {
            let mut x = filled::<T, 2, B>(alloc, comm, grid, |_| 0.0);
            compare(
                comm,
                "Jacobi-CG, variable coefficient",
                &one,
                &dist,
                &b,
                &mut x,
                |a, b, x| Cg::new().rtol(rtol).preconditioner(Jacobi::new(&a.diagonal())).solve(a, b, x),
                |a, b, x| Cg::new().rtol(rtol).preconditioner(Jacobi::new(&a.local().diagonal())).solve_dist(a, b, x),
                rtol,
            );
            checks += 1;
        }
        let options = MultigridOptions { coarsest: 9, ..Default::default() };
        // Two cycles from zero: the same iterate as one process's to rounding (the coarse
        // operators, point by point on each block, are the whole grid's).
        let two = cnda::solve::SolveOptions::default().rtol(1e-30).max_iters(2);
        let mut x = filled::<T, 2, B>(alloc, comm, grid, |_| 0.0);
        let _ = Multigrid::for_dist_variable(&dist, options).try_solve_dist(&dist, &b, &mut x, two);
        if let (Some(x_all), Some(b_all)) = (x.gather(0), b.gather(0)) {
            let mut x_one = Array::zeros(grid.0);
            let _ = Multigrid::for_variable(&one, options).try_solve(&one, &b_all, &mut x_one, two);
            let scale = x_one.iter().fold(0f64, |m, v| m.max((*v).into().abs()));
            let diff = x_all.iter().zip(x_one.iter()).fold(0f64, |m, (p, q)| m.max(((*p).into() - (*q).into()).abs()));
            let epsilon = if rtol < 1e-6 { 1e-12 } else { 1e-4 };
            assert!(diff <= epsilon * scale, "two cycles on {:?}: {diff:e} from one process's (of {scale:e})", grid.0);
        }
        checks += 1;
        let mut x = filled::<T, 2, B>(alloc, comm, grid, |_| 0.0);
        compare(
            comm,
            &format!("MG-CG, variable coefficient, {:?}", grid.0),
            &one,
            &dist,
            &b,
            &mut x,
            |a, b, x| Cg::new().rtol(rtol).preconditioner(Multigrid::for_variable(a, options)).solve(a, b, x),
            |a, b, x| Cg::new().rtol(rtol).preconditioner(Multigrid::for_dist_variable(a, options)).solve_dist(a, b, x),
            rtol,
        );
        checks += 1;
    }
    checks
}

/// Refusals and failures, the same error on every process: a right-hand side split otherwise,
/// a boundary value that makes the operator affine, a periodic condition the decomposition
/// does not wrap, and the iteration limit.
#[allow(dead_code)] // tests/mpi.rs's (host blocks)
pub fn check_solve_errors(comm: &impl Communicator, same_everywhere: impl Fn(&str) -> bool) -> usize {
    use Boundary::{Periodic, Value};
    let lap =
        DynStencil::<f64, 2>::new([([0, 0], 4.0), ([-1, 0], -1.0), ([1, 0], -1.0), ([0, -1], -1.0), ([0, 1], -1.0)]);
    let laplacian = lap.clone();
    let b = filled::<f64, 2, Cpu>(&Cpu, comm, ([20, 15], [1, 1], [false, false]), rhs);
    let a = DistOperator::stencil(lap.clone(), [Value(0.0); 2], &b);
    let expect = |e: cnda::Error, text: &str| {
        let message = e.to_string();
        assert!(message.contains(text), "{message}");
        assert!(same_everywhere(&message), "not the same everywhere: {message}");
    };
    let mut other = filled::<f64, 2, Cpu>(&Cpu, comm, ([15, 20], [1, 1], [false, false]), |_| 0.0);
    expect(Cg::new().try_solve_dist(&a, &b, &mut other).unwrap_err(), "x is a [15, 20] grid");
    expect(DistOperator::try_stencil(lap.clone(), [Value(1.0); 2], &b).unwrap_err(), "affine");
    expect(DistOperator::try_stencil(lap, [Periodic, Value(0.0)], &b).unwrap_err(), "axis 0 is not periodic");
    let mut x = filled::<f64, 2, Cpu>(&Cpu, comm, ([20, 15], [1, 1], [false, false]), |_| 0.0);
    expect(Cg::new().rtol(1e-12).max_iters(3).try_solve_dist(&a, &b, &mut x).unwrap_err(), "3 iterations");
    // Multigrid's cycles alone: out of cycles, and a hierarchy of another grid.
    use cnda::solve::{Multigrid, MultigridOptions, SolveOptions};
    let b = filled::<f64, 2, Cpu>(&Cpu, comm, ([63, 63], [1, 1], [false, false]), rhs);
    let a = DistOperator::stencil(laplacian.clone(), [Value(0.0); 2], &b);
    let mg = Multigrid::for_dist(&a, MultigridOptions { coarsest: 9, ..Default::default() });
    let mut x = filled::<f64, 2, Cpu>(&Cpu, comm, ([63, 63], [1, 1], [false, false]), |_| 0.0);
    let few = SolveOptions::default().rtol(1e-12).max_iters(2);
    expect(mg.try_solve_dist(&a, &b, &mut x, few).unwrap_err(), "2 iterations");
    let c = filled::<f64, 2, Cpu>(&Cpu, comm, ([15, 15], [1, 1], [false, false]), rhs);
    let small = DistOperator::stencil(laplacian.clone(), [Value(0.0); 2], &c);
    let mut y = filled::<f64, 2, Cpu>(&Cpu, comm, ([15, 15], [1, 1], [false, false]), |_| 0.0);
    let e = mg.try_solve_dist(&small, &c, &mut y, few).unwrap_err();
    assert!(matches!(e, cnda::Error::ShapeMismatch { .. } | cnda::Error::Mpi { .. }), "{e}");
    // Rediscretized coarse levels need a conductivity, which coefficient fields lack.
    let weight = |t: usize| move |_: [usize; 2]| if t == 0 { 4.0 } else { -1.0 };
    let grid = ([63, 63], [1, 1], [false, false]);
    let fields: Vec<_> = (0..5).map(|t| filled::<f64, 2, Cpu>(&Cpu, comm, grid, weight(t))).collect();
    let taps = VariableStencil::new([[0, 0], [-1, 0], [1, 0], [0, -1], [0, 1]]);
    let v = DistOperator::variable(taps, &fields, [Value(0.0); 2]);
    let options = MultigridOptions { coarse: cnda::solve::CoarseOperators::Rediscretized, ..Default::default() };
    expect(Multigrid::try_for_dist_variable(&v, options).unwrap_err(), "DistOperator::diffusion");
    7
}

/// Multigrid-preconditioned CG over the processes (`Multigrid::for_dist`) against one process's
/// on 2D Poisson with each smoother (red-black colours by global index), on a periodic
/// channel, and (with `every_case`) the other smoothers and 3D: the same solution, about as
/// many iterations, and few of them.
pub fn check_multigrid<T: Real, B: SolveBackend>(
    alloc: &impl Allocator<B>,
    comm: &impl Communicator,
    rtol: f64,
    every_case: bool,
) -> usize {
    use cnda::solve::{Multigrid, MultigridOptions, Smoother};
    use Boundary::{Neumann, Periodic, Value};
    let z = T::from_f64(0.0);
    let laplacian = |h: f64, n: usize| {
        let mut taps = vec![([0; 3], T::from_f64(2.0 * n as f64 / (h * h)))];
        for k in 0..n {
            for s in [-1, 1] {
                let mut o = [0; 3];
                o[k] = s;
                taps.push((o, T::from_f64(-1.0 / (h * h))));
            }
        }
        taps
    };
    let two = |taps: Vec<([isize; 3], T)>| DynStencil::<T, 2>::new(taps.into_iter().map(|(o, w)| ([o[0], o[1]], w)));
    let mut checks = 0;
    let mut run =
        |what: &str, one: &StencilOperator<T, 2>, grid, sides: Boundaries<T, 2>, options: MultigridOptions, alone| {
            let b = filled::<T, 2, B>(alloc, comm, grid, rhs);
            let dist = DistOperator::stencil(one.stencil().clone(), sides, &b);
            let mut x = filled::<T, 2, B>(alloc, comm, grid, |_| 0.0);
            let report =
                Cg::new().rtol(rtol).preconditioner(Multigrid::for_dist(&dist, options)).solve_dist(&dist, &b, &mut x);
            assert!(report.iterations <= 12, "{what}: {report:?}");
            let mut x = filled::<T, 2, B>(alloc, comm, grid, |_| 0.0);
            compare_mg(comm, what, one, &dist, &b, &mut x, rtol, options, false);
            checks += 1;
            // Cycles alone: every case, or the first on devices (whose runs take longest).
            if alone && (every_case || checks == 1) {
                let mut x = filled::<T, 2, B>(alloc, comm, grid, |_| 0.0);
                compare_mg(comm, &format!("{what}, cycles alone"), one, &dist, &b, &mut x, rtol, options, true);
                checks += 1;
            }
        };
    // Devices (not `every_case`) take grids of half the width: on the CPU-hosted CUDA device and
    // lavapipe every level's sweeps are launches, and the full sizes took half the device test's
    // time; the hierarchies keep three levels or more.
    let n = if every_case { 64 } else { 32 };
    let grid = ([n - 1, n - 1], [1, 1], [false, false]);
    let one = StencilOperator::new(two(laplacian(1.0 / n as f64, 2)), grid.0, [Value(z); 2]);
    let smoothers: &[Smoother] = match every_case {
        true => &[Smoother::DampedJacobi, Smoother::RedBlack, Smoother::Chebyshev],
        false => &[Smoother::RedBlack],
    };
    for &smoother in smoothers {
        let options = MultigridOptions { smoother, ..Default::default() };
        run(&format!("MG-CG {smoother:?}"), &one, grid, Boundaries::from([Value(z); 2]), options, true);
    }
    // A channel: periodic along axis 0 (64 points, or 32), walls along axis 1; coarsening stops
    // early.
    let grid = ([n, n / 2 - 1], [1, 1], [true, false]);
    let sides = Boundaries::from([Periodic, Value(z)]);
    let one = StencilOperator::new(two(laplacian(2.0 / n as f64, 2)), grid.0, sides);
    run("MG-CG on a channel", &one, grid, sides, MultigridOptions { coarsest: n / 4, ..Default::default() }, true);
    // Neumann sides, mirrored at both ends of axis 0 (65 points: 33, 17, ... keep the ends; or 33)
    // and above a wall along axis 1 (64 points, or 32): coarse operators point by point on each
    // block, their halos exchanged, the coarsest gathered with its own hierarchy.
    let grid = ([n + 1, n], [1, 1], [false, false]);
    let sides = Boundaries::from([[Neumann, Neumann], [Value(z), Neumann]]);
    let one = StencilOperator::new(two(laplacian(1.0 / n as f64, 2)), grid.0, sides);
    let smoothers: &[Smoother] = match every_case {
        true => &[Smoother::RedBlack, Smoother::Chebyshev],
        false => &[Smoother::RedBlack],
    };
    for &smoother in smoothers {
        let options = MultigridOptions { smoother, coarsest: 9, ..Default::default() };
        // Cycles alone in f64 only: in f32 the operator's rounding stops them near 3e-4 here (on
        // one process too), above the tolerance the comparison can ask.
        run(&format!("MG-CG {smoother:?} with Neumann sides"), &one, grid, sides, options, rtol < 1e-6);
    }
    if !every_case {
        return checks;
    }
    // 3D, red-black.
    let grid = ([31, 31, 31], [1, 1, 1], [false; 3]);
    let b = filled::<T, 3, B>(alloc, comm, grid, rhs);
    let stencil = DynStencil::<T, 3>::new(laplacian(1.0 / 32.0, 3));
    let options = MultigridOptions { smoother: Smoother::RedBlack, ..Default::default() };
    let one = StencilOperator::new(stencil.clone(), grid.0, [Value(z); 3]);
    let dist = DistOperator::stencil(stencil, [Value(z); 3], &b);
    let mut x = filled::<T, 3, B>(alloc, comm, grid, |_| 0.0);
    compare_mg(comm, "MG-CG 3D", &one, &dist, &b, &mut x, rtol, options, false);
    checks + 1
}

/// A distributed operator handed to a one-process solve is refused (its dot products would be
/// this process's alone), the same on every process; and the distributed types move between
/// threads (they refuse MPI calls on other threads).
#[allow(dead_code)] // tests/mpi.rs's (host blocks)
pub fn check_dist_operator_refused_by_one_process_solves(comm: &impl Communicator) -> usize {
    fn movable<X: Send + Sync>(_: &X) {}
    let lap =
        DynStencil::<f64, 2>::new([([0, 0], 4.0), ([-1, 0], -1.0), ([1, 0], -1.0), ([0, -1], -1.0), ([0, 1], -1.0)]);
    let b = filled::<f64, 2, Cpu>(&Cpu, comm, ([31, 15], [1, 1], [false, false]), rhs);
    let a = DistOperator::stencil(lap, [Boundary::Value(0.0); 2], &b);
    movable(&a);
    movable(&cnda::solve::Multigrid::for_dist(&a, Default::default()));
    let local = b.local().clone();
    let mut x = local.clone();
    let e = Cg::new().try_solve(&a, &local, &mut x).unwrap_err().to_string();
    assert!(e.contains("split over MPI processes") && e.contains("solve_dist"), "{e}");
    1
}

/// A `stencil!` operator on the grid (`DistOperator::expr`: a conductivity in conservative
/// form, `k` distributed with its halos exchanged, zero at the grid's edges) solved by CG's
/// `solve_dist`, against one process's `ExprOperator` with the same `k` padded by zeros; and a
/// stencil that is not linear refused alike everywhere.
pub fn check_expr_operator<T: Real + cnda::kernel::expr::Scalar, B: SolveBackend + cnda::kernel::ExprStencilKernels>(
    alloc: &impl Allocator<B>,
    comm: &impl Communicator,
    rtol: f64,
) -> usize {
    use cnda::solve::ExprOperator;
    let flux = stencil!(|u, k; c: T| {
        let kn = 0.5 * (k[0, 0] + k[-1, 0]);
        let ks = 0.5 * (k[0, 0] + k[1, 0]);
        let kw = 0.5 * (k[0, 0] + k[0, -1]);
        let ke = 0.5 * (k[0, 0] + k[0, 1]);
        c * (kn * (u[0, 0] - u[-1, 0]) + ks * (u[0, 0] - u[1, 0]) + kw * (u[0, 0] - u[0, -1]) + ke * (u[0, 0] - u[0, 1]))
    });
    let (shape, z) = ([33, 29], T::from_f64(0.0));
    let grid = (shape, [1, 1], [false, false]);
    let conductivity = |[i, j]: [usize; 2]| 1.0 + 9.0 * (((i / 5 + j / 7) % 2) as f64);
    let mut k = filled::<T, 2, B>(alloc, comm, grid, conductivity);
    k.exchange_halos();
    let b = filled::<T, 2, B>(alloc, comm, grid, rhs);
    let scale = (T::from_f64(64.0),);
    let dist = DistOperator::expr(flux, [Boundary::Value(z); 2], &k, scale, &b);
    let padded = Array::from_fn([shape[0] + 2, shape[1] + 2], |[i, j]| {
        let inside = (1..=shape[0]).contains(&i) && (1..=shape[1]).contains(&j);
        T::from_f64(if inside { conductivity([i - 1, j - 1]) } else { 0.0 })
    });
    let one = ExprOperator::new(flux, shape, [Boundary::Value(z); 2], padded, scale);
    let mut x = filled::<T, 2, B>(alloc, comm, grid, |_| 0.0);
    let cg = Cg::new().rtol(rtol);
    compare(
        comm,
        "CG on a stencil! operator",
        &one,
        &dist,
        &b,
        &mut x,
        |a, b, x| cg.solve(a, b, x),
        |a, b, x| cg.solve_dist(a, b, x),
        rtol,
    );
    let burgers = stencil!(|u| u[0, 0] * (u[0, 1] - u[0, -1]));
    let e = DistOperator::try_expr(burgers, [Boundary::Value(z); 2], (), (), &b).unwrap_err();
    assert!(e.to_string().contains("multiplies two terms"), "{e}");
    let thin = filled::<T, 2, B>(alloc, comm, (shape, [2, 2], [false, false]), |_| 1.0);
    let e = DistOperator::try_expr(flux, [Boundary::Value(z); 2], &thin, scale, &b).unwrap_err();
    assert!(matches!(e, cnda::Error::Decomposition { .. }), "{e}");
    3
}
