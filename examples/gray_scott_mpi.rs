//! Gray-Scott over MPI: the system of `gray_scott.rs` on a periodic grid split over the
//! processes. A `DistState` holds both fields; `apply_steps_dist` steps them with deep halos: one
//! exchange, carrying both fields' halos in one message per neighbour, serves `HALO` steps,
//! which each process runs as one fused pass over its block widened into the halos (on all its
//! threads). The result is the one-process run's, bit for bit: `--check` runs that too (on rank 0)
//! and compares the gathered fields. The picture is `v`, gathered on rank 0.
//!
//! ```text
//! cargo build --release --features mpi --example gray_scott_mpi
//! mpirun -n 4 "${CARGO_TARGET_DIR:-target}/release/examples/gray_scott_mpi" 256 4000 spots.png --check
//! ```
//!
//! `gray_scott_mpi [N] [STEPS] [V.png] [--check]`: `f32`, `N x N` points over all the processes
//! (each block at least `HALO` points along each split axis). As root, Open MPI also wants
//! `OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1`.

use std::process::ExitCode;
use std::time::Instant;

use cnda::dist::{Communicator, DistArray, DistState, StencilApplyDist};
use cnda::prelude::*;
use cnda::stencil::{Boundary, State, StencilApply};

#[path = "common/gray_scott.rs"]
mod gs;
#[path = "common/picture.rs"]
mod picture;

use gs::{GrayScott, PARAMS};

/// The halo: steps per exchange (the stencil's radius is 1).
const HALO: usize = 8;
const PERIODIC: [Boundary<f32>; 2] = [Boundary::Periodic; 2];

fn main() -> Result<ExitCode, Box<dyn std::error::Error>> {
    let universe = cnda::dist::initialize().ok_or("MPI was initialized already")?;
    let world = universe.world();
    let root = world.rank() == 0;
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (flags, positional): (Vec<String>, Vec<String>) = args.into_iter().partition(|a| a.starts_with("--"));
    let n: usize = positional.first().map(|s| s.parse()).transpose()?.unwrap_or(256);
    let steps: usize = positional.get(1).map(|s| s.parse()).transpose()?.unwrap_or(4000);
    let picture = positional.get(2).cloned();
    let check = flags.iter().any(|f| f == "--check");
    if n < 16 || flags.iter().any(|f| f != "--check") {
        if root {
            eprintln!("usage: mpirun -n P gray_scott_mpi [N >= 16] [STEPS] [V.png] [--check]");
        }
        return Ok(ExitCode::from(2));
    }
    // Both fields over every process, each point's value from its place on the whole grid.
    let field = |species: usize| -> Result<DistArray<f32, 2>, Error> {
        let mut a = DistArray::try_new(&world, [n, n], [HALO; 2], [true; 2])?;
        a.fill_owned_with(|[i, j]| gs::value(n, species, [i + 1, j + 1]));
        Ok(a)
    };
    let mut state = DistState::try_from_fields([field(0)?, field(1)?])?;
    if root {
        let dims = state.field(0).decomposition().dims();
        println!(
            "Gray-Scott over {} processes ({dims:?}), {n} x {n} periodic, {steps} steps, {HALO} per exchange",
            world.size()
        );
    }
    let start = Instant::now();
    #[cfg(feature = "rayon")]
    GrayScott.try_par_apply_steps_dist(&mut state, steps, (), PARAMS, PERIODIC)?;
    #[cfg(not(feature = "rayon"))]
    GrayScott.try_apply_steps_dist(&mut state, steps, (), PARAMS, PERIODIC)?;
    let seconds = start.elapsed().as_secs_f64();
    let (u, v) = (state.field(0).try_gather(0)?, state.field(1).try_gather(0)?);
    let (Some(u), Some(v)) = (u, v) else { return Ok(ExitCode::SUCCESS) }; // the other ranks are done
    println!("{seconds:.3} s ({:.3} GPts/s of both fields)", (n * n * steps) as f64 / seconds / 1e9);
    let (vmin, vmax) = v.iter().fold((f32::MAX, f32::MIN), |(lo, hi), &x| (lo.min(x), hi.max(x)));
    println!("v from {vmin:.4} to {vmax:.4}; u mean {:.4}", u.sum() / (n * n) as f32);
    if let Some(path) = picture {
        gs::write_png(&path, &v)?;
    }
    if check {
        // One process stepping the whole grid (a one-point periodic halo), fused.
        let mut one = State::from_fields(gs::initial(n));
        #[cfg(feature = "rayon")]
        GrayScott.try_par_apply_steps_with(&mut one, steps, (), PARAMS, PERIODIC)?;
        #[cfg(not(feature = "rayon"))]
        GrayScott.try_apply_steps_with(&mut one, steps, (), PARAMS, PERIODIC)?;
        let inner = |a: &Array<f32, 2>| a.slice(s![1..n + 1, 1..n + 1]).to_owned();
        let same =
            |a: &Array<f32, 2>, b: &Array<f32, 2>| a.iter().zip(b.iter()).all(|(x, y)| x.to_bits() == y.to_bits());
        if !same(&u, &inner(one.field(0))) || !same(&v, &inner(one.field(1))) {
            return Err("check: the distributed run differs from one process's".into());
        }
        println!("check: both fields equal one process's, bit for bit");
    }
    Ok(ExitCode::SUCCESS)
}
