//! [`solve_box`](super::solve_box) on a [`DistArray`] (features `fft` and `mpi`): the direct
//! solve of `shift u - Δu = f` over every process's block, by pencil transposes. A transform
//! along an axis needs the whole axis on one process, so before transforming along an axis that
//! the grid's split cuts, the processes move the grid to a split that keeps it whole (a pencil:
//! `dist::transpose`, one `MPI_Alltoallv`), transform their pencils, and go on to the next axis;
//! each process divides its share of the modes, and the inverse transforms go back through the
//! same pencils to the array's own split. The axes the split keeps whole go first, so a 2D grid
//! moves twice and a 3D one split along two axes four times. Every axis's transform is real (the DST-I between
//! walls, the DCT-II between mirrors, and on periodic axes the Hartley transform, which
//! diagonalizes the periodic Laplacian as the Fourier transform does: `hartley.rs`), so only
//! real points travel.
//!
//! The transforms run in host memory: a device block comes down once and its solution goes up
//! once, and the transposes move host memory (as MPI does for device blocks' halos). A rank-1
//! grid over several processes has no pencil (its one axis cannot be whole everywhere), nor
//! has a grid whose other axes have fewer points than processes: both are `Error::Decomposition`.

use mpi::datatype::Equivalence;
use mpi::traits::Communicator;

use super::poisson::{box_modes, Laplacian, Sides};
use super::{hartley, trig, FftFloat, Norm};
use crate::array::Array;
use crate::dist::agree::agree;
use crate::dist::transpose::{pencil, redistribute};
use crate::dist::{Decomposition, DistArray, DistBackend};
use crate::error::{or_panic, Error, Result};
use crate::stencil::Boundaries;

/// The `u` with `shift u - Δu = f` on the distributed grid `f` (its points `spacing` apart, each
/// axis periodic, walled or mirrored by `boundaries`, as [`solve_box`](super::solve_box) takes
/// them), on `f`'s split and in its blocks' memory, the halos zero (exchange them before a sweep
/// reads them). The same solution as `solve_box` of the gathered grid, to rounding. Collective:
/// every process of `f` calls it with the same arguments.
///
/// ```no_run
/// use cnda::dist::DistArray;
/// use cnda::fft::{solve_box_dist, Laplacian};
/// use cnda::stencil::Boundary;
///
/// let universe = mpi::initialize().unwrap();
/// let world = universe.world();
/// // -Δu = 1 on 255 x 255 inner points of the unit square, u = 0 on its edge.
/// let mut f = DistArray::<f64, 2>::new(&world, [255, 255], [1, 1], [false; 2]);
/// f.fill_owned_with(|_| 1.0);
/// let h = 1.0 / 256.0;
/// let u = solve_box_dist(&f, [h, h], 0.0, [Boundary::Fixed; 2], Laplacian::SecondOrder);
/// assert_eq!(u.decomposition(), f.decomposition());
/// ```
///
/// # Panics
///
/// As [`try_solve_box_dist`] errs (on every process alike).
#[track_caller]
pub fn solve_box_dist<T: FftFloat + Equivalence, const N: usize, B: DistBackend>(
    f: &DistArray<T, N, B>,
    spacing: [T; N],
    shift: T,
    boundaries: impl Into<Boundaries<T, N>>,
    laplacian: Laplacian,
) -> DistArray<T, N, B> {
    or_panic(try_solve_box_dist(f, spacing, shift, boundaries, laplacian))
}

/// [`solve_box_dist`], returning errors.
///
/// # Errors
///
/// As [`try_solve_box`](super::try_solve_box) for the arguments (the same on every process);
/// `Error::Decomposition` when the grid has no pencils for its processes (see the module
/// documentation) or a transpose would exceed MPI's `int` counts; `Error::Alloc` for the
/// pencils, `Error::Device` for a device block's copies. Every process returns the same error:
/// they agree on what fails on some only (a singular mode is found by the process that holds
/// it, arguments that differ between processes by those given them; the others return
/// `Error::Mpi` naming the first).
pub fn try_solve_box_dist<T: FftFloat + Equivalence, const N: usize, B: DistBackend>(
    f: &DistArray<T, N, B>,
    spacing: [T; N],
    shift: T,
    boundaries: impl Into<Boundaries<T, N>>,
    laplacian: Laplacian,
) -> Result<DistArray<T, N, B>> {
    let op = "solve_box_dist";
    let own = *f.decomposition();
    let global = own.global_shape();
    let comm = f.communicator();
    let rank = comm.rank() as usize;
    // The arguments' checks, and the right-hand side on the host with the walls' values moved
    // into it: agreed on, so a process given other arguments than the rest fails with them.
    let local = box_modes(op, &boundaries.into(), global, spacing, shift, laplacian).and_then(|(sides, divisors)| {
        let plan = plan(op, &own)?;
        let mut block = f.owned().try_to_host()?;
        let mine = own.block(rank);
        for (axis, side) in sides.iter().enumerate() {
            if let &Sides::Walls(low, high) = side {
                let (h, n) = (spacing[axis], block.shape()[axis]);
                if mine[axis].start == 0 {
                    block.view_mut().into_strided().try_narrow(axis, 0, 1)?.try_add_assign(low / h / h)?;
                }
                if mine[axis].end == global[axis] {
                    block.view_mut().into_strided().try_narrow(axis, n - 1, 1)?.try_add_assign(high / h / h)?;
                }
            }
        }
        Ok((sides, divisors, plan, block))
    });
    let (sides, divisors, plan, mut block) = agree(comm, op, local)?;

    let mut at = own;
    for (axis, split) in &plan {
        block = moved(op, f, block, &mut at, split)?;
        agree(comm, op, transform(op, &mut block, sides[*axis], *axis, false))?;
    }
    let origin: [usize; N] = at.block(rank).map(|r| r.start);
    let scaled = divisors.block_factors(op, origin, block.shape()).and_then(|factors| {
        let factors = Array::from_shape_vec(block.shape(), factors)?;
        block.try_mul_assign(&factors)
    });
    agree(comm, op, scaled)?;
    for (axis, split) in plan.iter().rev() {
        block = moved(op, f, block, &mut at, split)?;
        agree(comm, op, transform(op, &mut block, sides[*axis], *axis, true))?;
    }
    block = moved(op, f, block, &mut at, &own)?;

    let mut u = DistArray::try_with_decomposition_in(&f.allocator(), comm, own, f.halo())?;
    let set = u.try_set_owned(&block);
    agree(comm, op, set)?;
    Ok(u)
}

/// The transforms in order, each axis with the split it runs on: every axis the current split
/// keeps whole first (the array's own split to begin with), then a pencil of the next axis, and
/// so on; the inverses retrace the steps. A 2D grid split along its first axis moves twice
/// (there and back), a 3D one split along two axes four times.
fn plan<const N: usize>(op: &'static str, own: &Decomposition<N>) -> Result<Vec<(usize, Decomposition<N>)>> {
    let global = own.global_shape();
    let (mut at, mut dims) = (*own, own.dims());
    let mut done = [false; N];
    let mut plan = Vec::with_capacity(N);
    loop {
        for axis in 0..N {
            if !done[axis] && dims[axis] == 1 {
                plan.push((axis, at));
                done[axis] = true;
            }
        }
        let Some(axis) = (0..N).find(|&a| !done[a]) else { return Ok(plan) };
        dims = pencil(global, dims, axis).ok_or_else(|| Error::Decomposition {
            op,
            reason: format!(
                "a grid of {global:?} over {} processes has no split that keeps axis {axis} whole on every process \
                 (the other axes have too few points for the processes, or there are none)",
                own.ranks()
            ),
            fix: "solve with fewer processes, or on the gathered grid with `solve_box`",
        })?;
        at = Decomposition::try_with_dims(global, dims, [false; N])?;
    }
}

/// `block` moved from split `at` to split `to` (itself when they are one), `at` updated.
fn moved<T: FftFloat + Equivalence, const N: usize, B: DistBackend>(
    op: &'static str,
    f: &DistArray<T, N, B>,
    block: Array<T, N>,
    at: &mut Decomposition<N>,
    to: &Decomposition<N>,
) -> Result<Array<T, N>> {
    if same_blocks(at, to) {
        return Ok(block);
    }
    let block = redistribute(f.communicator(), op, at, &block, to)?;
    *at = *to;
    Ok(block)
}

/// Whether two splits give every process the same block.
fn same_blocks<const N: usize>(a: &Decomposition<N>, b: &Decomposition<N>) -> bool {
    a == b || (0..a.ranks()).all(|r| a.block(r) == b.block(r))
}

/// The transform of an axis of `side`'s kind along `axis` of the whole-axis `block` (its
/// unnormalized forward, or the inverse that undoes it).
fn transform<T: FftFloat, const N: usize>(
    op: &'static str,
    block: &mut Array<T, N>,
    side: Sides<T>,
    axis: usize,
    inverse: bool,
) -> Result<()> {
    match side.trig() {
        Some(kind) => trig::in_place(op, block, axis, kind, Norm::Backward, inverse),
        None => hartley::in_place(block, axis, inverse),
    }
}
