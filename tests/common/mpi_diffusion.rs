//! `DistOperator::diffusion` against `VariableOperator::diffusion_in` on the whole grid: each
//! process's coefficient fields are the whole grid's at its block, bit for bit (the faces
//! between blocks from the exchanged conductivity), multigrid-preconditioned CG over the
//! processes (`Multigrid::for_dist_variable`) solves as one process does, and a conductivity
//! that is not positive on one process is refused on every process. On host blocks
//! (tests/mpi.rs) and device blocks (tests/mpi_device.rs).

use cnda::kernel::Allocator;
use cnda::prelude::*;
use cnda::solve::{Cg, DistOperator, Multigrid, MultigridOptions, VariableOperator};
use cnda::stencil::Boundary;
use mpi::traits::Communicator;

use super::solve::{compare, filled, rhs, Real, SolveBackend};

/// A conductivity varying by a factor of 50 from point to point.
fn conductivity(g: [usize; 2]) -> f64 {
    1.0 + 49.0 * ((g[0] * 3 + g[1] * 5) % 11) as f64 / 10.0
}

/// The checks on walls, `Neumann` sides and a periodic axis (with `every_solve` MG-CG on each;
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
        let b = filled::<T, 2, B>(alloc, comm, grid, rhs);
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
