//! Distributed spectral solves (`fft::solve_box_dist`) under `mpirun` (tests/mpi.rs, feature
//! `fft`): against `solve_box` of the gathered grid on one process, for every kind of axis
//! (periodic, walls with values, mirrors), both Laplacians, Helmholtz shifts and Poisson's free
//! constant, `f64` and `f32`, 2D and 3D grids of odd and even sizes on the default splits, on
//! explicit ones (every process along one axis, so that each transform needs a transpose) and on
//! a staggered one; the
//! refusals (a rank-1 grid over several processes, a resonant shift found by one process only)
//! the same on every process.

use cnda::dist::{Decomposition, DistArray};
use cnda::fft::{solve_box, solve_box_dist, try_solve_box_dist, FftFloat, Laplacian};
use cnda::prelude::*;
use cnda::stencil::Boundaries;
use cnda::stencil::Boundary::{Fixed, Neumann, Periodic, Value};
use mpi::datatype::Equivalence;
use mpi::traits::Communicator;

use super::same_everywhere;

/// A rough right-hand side, distinct at every point.
fn rhs<const N: usize>(g: [usize; N]) -> f64 {
    g.iter().enumerate().fold(0.25, |acc, (k, &i)| acc + (((i + 1) * (k + 5)) % 11) as f64 * 0.2 - 0.7)
}

/// `f` filled from `rhs`, solved over the processes and gathered, against one process's solve of
/// the gathered right-hand side: the largest difference within `tol` of the solution's size.
fn check<T: FftFloat + Equivalence + Into<f64>, const N: usize>(
    mut f: DistArray<T, N>,
    spacing: [f64; N],
    shift: f64,
    sides: impl Into<Boundaries<T, N>> + Copy,
    laplacian: Laplacian,
    tol: f64,
) {
    f.fill_owned_with(|g| <T as cnda::Float>::from_f64(rhs(g)));
    let h = spacing.map(<T as cnda::Float>::from_f64);
    let u = solve_box_dist(&f, h, <T as cnda::Float>::from_f64(shift), sides, laplacian);
    assert_eq!((u.decomposition(), u.halo()), (f.decomposition(), f.halo()));
    let (gathered, solved) = (f.gather(0), u.gather(0));
    if let (Some(gathered), Some(solved)) = (gathered, solved) {
        let want = solve_box(&gathered, h, <T as cnda::Float>::from_f64(shift), sides, laplacian);
        let size = want.iter().fold(0.0f64, |m, x| m.max(Into::<f64>::into(*x).abs()));
        let diff = solved
            .iter()
            .zip(want.iter())
            .fold(0.0f64, |m, (a, b)| m.max((Into::<f64>::into(*a) - Into::<f64>::into(*b)).abs()));
        assert!(
            diff <= tol * size.max(1.0),
            "{:?} over {:?}: differs by {diff} from one process's solve (size {size})",
            f.decomposition().global_shape(),
            f.decomposition().dims()
        );
    }
}

/// A zero grid of `global` split over `dims`, halos `halo`.
fn split<const N: usize>(
    comm: &impl Communicator,
    global: [usize; N],
    dims: [usize; N],
    halo: [usize; N],
) -> DistArray<f64, N> {
    let d = Decomposition::with_dims(global, dims, [false; N]);
    DistArray::try_with_decomposition_in(&Cpu, comm, d, halo).expect("a valid split")
}

/// The checks; returns how many ran.
pub fn check_solve_box_dist(comm: &impl Communicator) -> usize {
    let size = comm.size() as usize;
    let second = Laplacian::SecondOrder;
    // Periodic Poisson (the constant free), walls with values beside mirrors, 3D mixed axes.
    check(DistArray::<f64, 2>::new(comm, [24, 18], [1, 1], [true; 2]), [0.1, 0.2], 0.0, [Periodic; 2], second, 1e-10);
    let walls = [[Value(0.5), Value(-1.0)], [Neumann, Neumann]];
    check(DistArray::<f64, 2>::new(comm, [17, 12], [1, 2], [false; 2]), [0.05, 0.1], 0.0, walls, second, 1e-10);
    let mixed = [Periodic, Fixed, Neumann];
    check(
        DistArray::<f64, 3>::new(comm, [12, 10, 9], [1; 3], [true, false, false]),
        [0.1; 3],
        2.5,
        mixed,
        second,
        1e-10,
    );
    check(
        DistArray::<f64, 3>::new(comm, [9, 8, 7], [1; 3], [false; 3]),
        [0.2, 0.1, 0.3],
        1.0,
        [Fixed, Periodic, Neumann],
        Laplacian::Spectral,
        1e-10,
    );
    // Every process along one axis, then the other: every transform moves the grid.
    check(split(comm, [20, 16], [size, 1], [1, 1]), [0.1, 0.1], 0.5, [Periodic, Fixed], second, 1e-10);
    check(split(comm, [20, 16], [1, size], [2, 1]), [0.1, 0.1], 0.0, [Neumann, Periodic], second, 1e-10);
    check(split(comm, [11, 7, 13], [1, 1, size], [1; 3]), [0.1; 3], 3.0, [Periodic; 3], Laplacian::Spectral, 1e-10);
    // From a staggered split (faces, one point longer along axis 0, the last process owning the
    // extra face): the transposes take any split's blocks.
    let cells = DistArray::<f64, 2>::new(comm, [15, 12], [1, 1], [false; 2]);
    check(DistArray::<f64, 2>::staggered(&cells, 0, [1, 1]), [0.1, 0.1], 1.5, [Fixed, Neumann], second, 1e-10);
    // Single precision.
    check(
        DistArray::<f32, 2>::new(comm, [24, 15], [1, 1], [false; 2]),
        [0.1, 0.1],
        1.0,
        [Periodic, Neumann],
        second,
        1e-4,
    );
    let mut checks = 9;

    // A rank-1 grid over several processes has no pencil; over one, it solves.
    let line = DistArray::<f64, 1>::new(comm, [40], [1], [true]);
    let solved = try_solve_box_dist(&line, [0.1], 1.0, [Periodic], second);
    if size == 1 {
        check(line, [0.1], 1.0, [Periodic], second, 1e-10);
    } else {
        let Err(e) = solved else { panic!("no pencil for a rank-1 grid") };
        assert!(e.to_string().contains("keeps axis 0 whole"), "{e}");
        assert!(same_everywhere(comm, &e.to_string()), "{e}");
    }
    // A resonant shift: minus the eigenvalue of mode (1, 0), which one process holds.
    let f = DistArray::<f64, 2>::new(comm, [16, 12], [1, 1], [true; 2]);
    let resonance = -(2.0 * (std::f64::consts::PI / 16.0).sin() / 0.1).powi(2);
    let Err(e) = try_solve_box_dist(&f, [0.1, 0.1], resonance, [Periodic; 2], second) else { panic!("singular") };
    assert!(e.to_string().contains("singular"), "{e}");
    assert!(same_everywhere(comm, &e.to_string()), "{e}");
    // Bad arguments: the box solve's checks, before any message.
    let Err(e) = try_solve_box_dist(&f, [0.1, -1.0], 0.0, [Periodic; 2], second) else { panic!("a negative spacing") };
    assert!(e.to_string().contains("not positive and finite"), "{e}");
    checks += 3;
    checks
}
