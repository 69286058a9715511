//! `DistOperator::diffusion` against `VariableOperator::diffusion_in` on the whole grid: each
//! process's coefficient fields are the whole grid's at its block, bit for bit (the faces
//! between blocks from the exchanged conductivity), multigrid-preconditioned CG over the
//! processes (`Multigrid::for_dist_variable`, Galerkin and rediscretized coarse levels; two
//! rediscretized cycles the same iterate as one process's) solves as one process does, and a conductivity
//! that is not positive on one process is refused on every process. On host blocks
//! (tests/mpi.rs) and device blocks (tests/mpi_device.rs).

use cnda::dist::{Decomposition, DistArray};
use cnda::kernel::Allocator;
use cnda::prelude::*;
use cnda::solve::{Cg, CoarseOperators, DistOperator, Multigrid, MultigridOptions, SolveOptions, VariableOperator};
use cnda::stencil::Boundary;
use mpi::traits::Communicator;

use super::solve::{compare, filled, rhs, Real, SolveBackend};

/// A conductivity varying by a factor of 50 from point to point.
fn conductivity(g: [usize; 2]) -> f64 {
    1.0 + 49.0 * ((g[0] * 3 + g[1] * 5) % 11) as f64 / 10.0
}

/// The checks on walls, `Neumann` sides and a periodic axis (with `every_solve` the solves on each;
/// else on the first, on device blocks whose solver path the other checks test); `rtol` suits
/// `T`.
pub fn check_diffusion<T: Real, B: SolveBackend>(
    alloc: &impl Allocator<B>,
    comm: &impl Communicator,
    rtol: f64,
    every_solve: bool,
) -> usize {
    use Boundary::{Neumann, Periodic, Value};
    let z = T::from_f64(0.0);
    let h = [1.0 / 32.0; 2];
    let cases = [
        (([31, 23], [1, 1], [false, false]), [[Value(z); 2]; 2]),
        (([33, 32], [1, 1], [false, false]), [[Neumann, Neumann], [Value(z), Neumann]]),
        (([32, 31], [1, 1], [true, false]), [[Periodic; 2], [Value(z); 2]]),
    ];
    let mut checks = 0;
    for (case, (grid, sides)) in cases.into_iter().enumerate() {
        let k = filled::<T, 2, B>(alloc, comm, (grid.0, [0, 0], grid.2), conductivity);
        let dist = DistOperator::diffusion(&k, h, 0.5, sides);
        let whole = Array::from_fn(grid.0, |g| T::from_f64(conductivity(g)));
        let one = VariableOperator::diffusion_in(&Cpu, &whole, h, 0.5, sides);
        // This block's fields: the whole grid's at its points.
        let d = k.decomposition();
        let (block, start) = (d.block_shape(k.rank()), d.block(k.rank()).map(|r| r.start));
        for (t, (mine, all)) in dist.local().coefficients().iter().zip(one.coefficients()).enumerate() {
            let mine = mine.to_host();
            for i in 1..=block[0] {
                for j in 1..=block[1] {
                    let (m, a) = (mine[[i, j]], all[[start[0] + i, start[1] + j]]);
                    assert_eq!(m.to_bits_u64(), a.to_bits_u64(), "{:?}, tap {t} at {:?}", grid.0, [i, j]);
                }
            }
        }
        checks += 1;
        if case > 0 && !every_solve {
            continue;
        }
        // Two rediscretized cycles from zero: one process's iterate to rounding (each block's
        // coarse conductivity and fields are the whole grid's, bit for bit). Coarsening stops
        // at 16 points, before a split of 3 or 4 processes would leave one without a point (the
        // distributed levels would stop above one process's coarsest, where it cycles and the
        // gathered level is solved to rounding).
        let rediscretized =
            MultigridOptions { coarse: CoarseOperators::Rediscretized, coarsest: 16, ..Default::default() };
        let two = SolveOptions::default().rtol(1e-30).max_iters(2);
        let b = filled::<T, 2, B>(alloc, comm, grid, rhs);
        let mut x = filled::<T, 2, B>(alloc, comm, grid, |_| 0.0);
        let cycles = Multigrid::for_dist_variable(&dist, rediscretized).try_solve_dist(&dist, &b, &mut x, two);
        // Out of cycles after the two (not failed before them).
        assert!(matches!(cycles, Err(cnda::Error::NotConverged { .. })), "{cycles:?}");
        if let (Some(x_all), Some(b_all)) = (x.gather(0), b.gather(0)) {
            let mut x_one = Array::zeros(grid.0);
            let one_cycles = Multigrid::for_variable(&one, rediscretized).try_solve(&one, &b_all, &mut x_one, two);
            assert!(matches!(one_cycles, Err(cnda::Error::NotConverged { .. })), "{one_cycles:?}");
            let scale = x_one.iter().fold(0f64, |m, v| m.max((*v).into().abs()));
            assert!(scale > 0.0);
            let diff = x_all.iter().zip(x_one.iter()).fold(0f64, |m, (p, q)| m.max(((*p).into() - (*q).into()).abs()));
            let epsilon = if rtol < 1e-6 { 1e-12 } else { 1e-4 };
            let what = core::any::type_name::<T>();
            assert!(
                diff <= epsilon * scale,
                "rediscretized cycles on {:?} ({what}): {diff:e} from one process's",
                grid.0
            );
        }
        checks += 1;
        let mut x = filled::<T, 2, B>(alloc, comm, grid, |_| 0.0);
        let options = MultigridOptions { coarsest: 9, ..Default::default() };
        compare(
            comm,
            &format!("MG-CG, DistOperator::diffusion, {:?}", grid.0),
            &one,
            &dist,
            &b,
            &mut x,
            |a, b, x| Cg::new().rtol(rtol).preconditioner(Multigrid::for_variable(a, options)).solve(a, b, x),
            |a, b, x| Cg::new().rtol(rtol).preconditioner(Multigrid::for_dist_variable(a, options)).solve_dist(a, b, x),
            rtol,
        );
        let mut x = filled::<T, 2, B>(alloc, comm, grid, |_| 0.0);
        let (cg, options) = (Cg::new().rtol(rtol), rediscretized);
        compare(
            comm,
            &format!("MG-CG rediscretized, DistOperator::diffusion, {:?}", grid.0),
            &one,
            &dist,
            &b,
            &mut x,
            |a, b, x| cg.clone().preconditioner(Multigrid::for_variable(a, options)).solve(a, b, x),
            |a, b, x| cg.clone().preconditioner(Multigrid::for_dist_variable(a, options)).solve_dist(a, b, x),
            rtol,
        );
        checks += 2;
    }
    // On 4 processes split 4 x 1, the distributed levels stop at 7 x 3 (a coarser split would
    // leave a process without a point): process 0 rediscretizes the rest of the hierarchy.
    if comm.size() == 4 {
        let d = Decomposition::with_dims([31, 15], [4, 1], [false, false]);
        let make = |halo: [usize; 2], f: &dyn Fn([usize; 2]) -> f64| {
            let mut a = DistArray::<T, 2, B>::try_with_decomposition_in(alloc, comm, d, halo).expect("a 4 x 1 split");
            a.fill_owned_with(|g| T::from_f64(f(g)));
            a
        };
        let k = make([0, 0], &conductivity);
        let dist = DistOperator::diffusion(&k, h, 0.5, [Value(z); 2]);
        let whole = Array::from_fn([31, 15], |g| T::from_f64(conductivity(g)));
        let one = VariableOperator::diffusion_in(&Cpu, &whole, h, 0.5, [Value(z); 2]);
        let (b, mut x) = (make([1, 1], &rhs), make([1, 1], &|_| 0.0));
        let options = MultigridOptions { coarse: CoarseOperators::Rediscretized, coarsest: 2, ..Default::default() };
        let cg = Cg::new().rtol(rtol);
        compare(
            comm,
            "MG-CG rediscretized, gathered above the coarsest",
            &one,
            &dist,
            &b,
            &mut x,
            |a, b, x| cg.clone().preconditioner(Multigrid::for_variable(a, options)).solve(a, b, x),
            |a, b, x| cg.clone().preconditioner(Multigrid::for_dist_variable(a, options)).solve_dist(a, b, x),
            rtol,
        );
        checks += 1;
    }
    // A zero conductivity on the process that owns [20, 7]: refused on every process.
    let grid = ([31, 23], [0, 0], [false, false]);
    let k = filled::<T, 2, B>(alloc, comm, grid, |g| if g == [20, 7] { 0.0 } else { 1.0 });
    let e = DistOperator::try_diffusion(&k, h, 0.0, [Value(z); 2]).expect_err("a zero conductivity");
    assert!(e.to_string().contains("the conductivity at [20, 7] is 0"), "{e}");
    checks + 1
}

/// The bits of a value of either element type, for exact comparisons.
trait Bits {
    fn to_bits_u64(self) -> u64;
}

impl<T: Real> Bits for T {
    fn to_bits_u64(self) -> u64 {
        let v: f64 = self.into();
        v.to_bits()
    }
}
