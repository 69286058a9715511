//! The heat2d problem distributed over MPI processes: the plate is split into blocks
//! (`dist::DistArray`, one per process, halos of 1), each Jacobi sweep
//! (`LinearStencil::jacobi_5pt().apply_dist`, heat2d's update bit for bit) exchanges the halos
//! while the block's interior is swept, and the global residual (the largest change of one
//! sweep, `max_abs_diff`) decides convergence on every process alike. The nested iteration of
//! heat2d runs level by level: each level's result is gathered on rank 0, refined, and scattered
//! again. Rank 0 writes the PNG.
//!
//! - `--backend cpu|cuda|wgpu`: where the blocks live (each process opens its node's GPU
//!   `local rank % count` for CUDA); the same calls and, on this machine's CPU-hosted CUDA
//!   device and lavapipe, the same field bit for bit.
//! - `--check`: rank 0 then solves the same problem on its own (on the CPU, with heat2d's own
//!   closure) and requires the two final fields to be equal bit for bit, whatever the split and
//!   the backend.
//! - `--checkpoint FILE` (feature `hdf5`): at the finest level, saves the field every 1,000
//!   sweeps and when it stops; `--stop-after S` stops after `S` sweeps there (a job killed by its
//!   time limit); `--restart FILE` resumes from the file, on any process count, and ends with
//!   the field an uninterrupted run gets, bit for bit.
//! - `--3d`: the 3D analogue (a cube with a hot face, the 7-point `LinearStencil`, a 3D process
//!   grid, one level).
//!
//! `cargo build --release --features mpi,hdf5 --example heat2d_mpi`, then
//! `mpirun -n 4 "${CARGO_TARGET_DIR:-target}/release/examples/heat2d_mpi" [N TOLERANCE OUTPUT.png] [--check] [--3d] [--backend B] [--checkpoint FILE [--stop-after S]] [--restart FILE]`

use std::time::Instant;

use cnda::dist::{DistArray, DistBackend, DistDoubleBuffer};
use cnda::kernel::{ElementwiseKernels, ReduceKernels, StencilKernels};
use cnda::prelude::*;
use cnda::stencil::{self, DoubleBuffer, LinearStencil};
use mpi::traits::Communicator;

#[path = "common/heat.rs"]
mod heat;
#[path = "common/picture.rs"]
mod picture;
use heat::{jacobi, plate, refine, write_png, CHECK_EVERY, COARSEST, HOT, MAX_SWEEPS};

/// What the solver needs of the backend its blocks live on.
trait Place: DistBackend + StencilKernels + ElementwiseKernels + ReduceKernels {}
impl<B: DistBackend + StencilKernels + ElementwiseKernels + ReduceKernels> Place for B {}

/// Sweeps between two checkpoints.
const CHECKPOINT_EVERY: usize = 1000;

/// Where the finest level's sweeps start and stop, and where they are saved.
#[derive(Default)]
struct Run {
    /// Sweeps already done (a restart's saved step).
    start: usize,
    /// Stop after this many sweeps (a multiple of `CHECK_EVERY`, so the residual checks fall on
    /// the same sweeps as in an uninterrupted run).
    stop_after: Option<usize>,
    /// Save the field here every `CHECKPOINT_EVERY` sweeps and at the end.
    checkpoint: Option<String>,
}

/// Sweeps `field` with `sweep(current, next)` from sweep `run.start` until one sweep changes no
/// point by more than `tolerance` (checked every `CHECK_EVERY` sweeps, as heat2d does), or
/// `run.stop_after` sweeps; saves checkpoints as `run` says. Returns the sweeps done in all and
/// whether the field converged.
fn solve_dist<B: Place, const N: usize>(
    field: &mut DistDoubleBuffer<f64, N, B>,
    mut sweep: impl FnMut(&mut DistArray<f64, N, B>, &mut DistArray<f64, N, B>),
    tolerance: f64,
    run: &Run,
) -> Result<(usize, bool), Box<dyn std::error::Error>> {
    let mut done = run.start;
    let end = run.stop_after.map_or(MAX_SWEEPS, |s| (run.start + s).min(MAX_SWEEPS));
    while done < end {
        let mut converged = false;
        for step in 0..CHECK_EVERY {
            let (u, v) = field.both_mut();
            sweep(u, v);
            let change = (step + 1 == CHECK_EVERY).then(|| v.max_abs_diff(u));
            field.swap();
            converged = change.is_some_and(|c| c <= tolerance);
        }
        done += CHECK_EVERY;
        let stopping = converged || done >= end;
        if let Some(path) = &run.checkpoint {
            if stopping || done.is_multiple_of(CHECKPOINT_EVERY) {
                save(field.current(), path, done)?;
            }
        }
        if converged {
            return Ok((done, true));
        }
    }
    Ok((done, false))
}

/// Writes `u` with its step count (feature `hdf5`).
fn save<B: Place, const N: usize>(
    u: &DistArray<f64, N, B>,
    path: &str,
    step: usize,
) -> Result<(), Box<dyn std::error::Error>> {
    #[cfg(feature = "hdf5")]
    return Ok(u.try_save(path, cnda::dist::Checkpoint { step: step as u64, time: step as f64 })?);
    #[cfg(not(feature = "hdf5"))]
    {
        let _ = (u, path, step);
        Err("--checkpoint needs the example built with feature hdf5".into())
    }
}

/// The same sweeps on one process, with `sweep(current, next)`.
fn solve_one<const N: usize>(
    initial: Array<f64, N>,
    mut sweep: impl FnMut(ArrayView<'_, f64, N, RowMajor>, ArrayViewMut<'_, f64, N, RowMajor>),
    tolerance: f64,
) -> Array<f64, N> {
    let mut field = DoubleBuffer::new(initial);
    let mut done = 0;
    while done < MAX_SWEEPS {
        let mut change = 0.0f64;
        for step in 0..CHECK_EVERY {
            let before = (step + 1 == CHECK_EVERY).then(|| field.current().clone());
            let (u, v) = field.split();
            sweep(u, v);
            field.swap();
            if let Some(before) = before {
                change =
                    Zip::from(field.current().view()).and(before.view()).fold(0.0, |m, &a, &b| m.max((a - b).abs()));
            }
        }
        done += CHECK_EVERY;
        if change <= tolerance {
            break;
        }
    }
    field.into_current()
}

/// The nested 2D solve over `world` with blocks from `alloc`: the final field on rank 0, or
/// `None` there too when the run stopped before converging. A restart skips the coarser levels.
fn heat2d<B: Place>(
    world: &impl Communicator,
    alloc: &impl Allocator<B>,
    n: usize,
    tolerance: f64,
    mut run: Run,
    restart: Option<&str>,
) -> Result<Option<Array<f64, 2>>, Box<dyn std::error::Error>> {
    let root = world.rank() == 0;
    let mut size = COARSEST.min(n);
    let mut global = if root { Some(plate(size)?) } else { None };
    let mut resumed = None;
    if let Some(path) = restart {
        let (u, step) = load(world, alloc, path)?;
        size = u.decomposition().global_shape()[0];
        if size != n {
            return Err(format!("{path} holds a {size} x {size} field, not {n} x {n}").into());
        }
        run.start = step;
        resumed = Some(u);
    }
    loop {
        let t = Instant::now();
        let u = match resumed.take() {
            Some(u) => u,
            None => {
                let mut u = DistArray::try_new_in(alloc, world, [size, size], [1, 1], [false, false])?;
                u.try_scatter(0, global.as_ref())?;
                u
            }
        };
        let mut field = DistDoubleBuffer::new(u);
        let jacobi = LinearStencil::jacobi_5pt();
        let finest = size == n;
        let level_run = if finest { std::mem::take(&mut run) } else { Run::default() };
        let (sweeps, converged) = solve_dist(&mut field, |u, v| jacobi.apply_dist(u, v), tolerance, &level_run)?;
        global = field.current().gather(0);
        if let Some(g) = &global {
            let dims = field.current().decomposition().dims();
            println!(
                "  {size:>4} x {size:<4} on a {} x {} process grid: {sweeps:>6} sweeps{}, centre {:.4}, {:.2} s",
                dims[0],
                dims[1],
                if converged { "" } else { " (stopped)" },
                g[[size / 2, size / 2]],
                t.elapsed().as_secs_f64()
            );
        }
        if finest {
            return Ok(global.filter(|_| converged || level_run.stop_after.is_none()));
        }
        size = (2 * size).min(n);
        global = global.map(|g| refine(&g, size)).transpose()?;
    }
}

/// A saved field and its step (feature `hdf5`).
fn load<B: Place>(
    world: &impl Communicator,
    alloc: &impl Allocator<B>,
    path: &str,
) -> Result<(DistArray<f64, 2, B>, usize), Box<dyn std::error::Error>> {
    #[cfg(feature = "hdf5")]
    {
        let (u, at) = DistArray::try_load_in(alloc, world, path, [1, 1])?;
        Ok((u, at.step as usize))
    }
    #[cfg(not(feature = "hdf5"))]
    {
        let _ = (world, alloc, path);
        Err("--restart needs the example built with feature hdf5".into())
    }
}

/// The same nested solve on one process, with heat2d's own closure.
fn heat2d_one(n: usize, tolerance: f64) -> Result<Array<f64, 2>, Error> {
    let mut size = COARSEST.min(n);
    let mut u = plate(size)?;
    loop {
        u = solve_one(u, |a, b| stencil::sweep2(a, b, jacobi), tolerance);
        if size == n {
            return Ok(u);
        }
        size = (2 * size).min(n);
        u = refine(&u, size)?;
    }
}

/// A cube of `n^3` points with its `i = 0` face hot.
fn cube(n: usize) -> Result<Array<f64, 3>, Error> {
    Array::try_from_fn([n, n, n], |[i, _, _]| if i == 0 { HOT } else { 0.0 })
}

/// The command line.
struct Options {
    n: usize,
    tolerance: f64,
    output: String,
    check: bool,
    three_d: bool,
    run: Run,
    restart: Option<String>,
}

/// The 3D solve with blocks from `alloc`, checked against one process with `check`.
fn heat3d<B: Place>(
    world: &impl Communicator,
    alloc: &impl Allocator<B>,
    o: &Options,
) -> Result<(), Box<dyn std::error::Error>> {
    let (n, start) = (o.n, Instant::now());
    if world.rank() == 0 {
        println!("heat3d over {} processes: {n}^3 cube, hot face {HOT}, tolerance {:e}", world.size(), o.tolerance);
    }
    let jacobi = LinearStencil::jacobi_7pt();
    let mut u = DistArray::try_new_in(alloc, world, [n, n, n], [1, 1, 1], [false; 3])?;
    u.fill_owned_with(|[i, _, _]| if i == 0 { HOT } else { 0.0 });
    let dims = u.decomposition().dims();
    let mut field = DistDoubleBuffer::new(u);
    let (sweeps, _) = solve_dist(&mut field, |u, v| jacobi.apply_dist(u, v), o.tolerance, &Run::default())?;
    let centre = field.current().gather(0);
    if let Some(c) = &centre {
        println!(
            "  {dims:?} process grid: {sweeps} sweeps, centre {:.4}, {:.2} s",
            c[[n / 2, n / 2, n / 2]],
            start.elapsed().as_secs_f64()
        );
    }
    if let (true, Some(distributed)) = (o.check, centre) {
        let one = solve_one(cube(n)?, |a, b| jacobi.apply(a, b), o.tolerance);
        if distributed != one {
            return Err("the distributed 3D field differs from the one-process field".into());
        }
        println!("bit for bit the same as one process");
    }
    Ok(())
}

/// The 2D solve with blocks from `alloc`: the PNG, and the check.
fn run_2d<B: Place>(
    world: &impl Communicator,
    alloc: &impl Allocator<B>,
    o: Options,
) -> Result<(), Box<dyn std::error::Error>> {
    let (n, start) = (o.n, Instant::now());
    if world.rank() == 0 {
        println!("heat2d over {} processes: {n} x {n} plate, tolerance {:e} per sweep", world.size(), o.tolerance);
    }
    let stopping = o.run.stop_after.is_some();
    let field = heat2d(world, alloc, n, o.tolerance, o.run, o.restart.as_deref())?;
    if let Some(u) = field {
        println!("centre temperature {:.4}, {:.2} s in all", u[[n / 2, n / 2]], start.elapsed().as_secs_f64());
        write_png(&o.output, &u)?;
        println!("heat map written to {}", o.output);
        if o.check {
            if u != heat2d_one(n, o.tolerance)? {
                return Err("the distributed field differs from the one-process field".into());
            }
            println!("bit for bit the same as one process");
        }
    } else if stopping && world.rank() == 0 {
        println!("stopped before converging; resume with --restart");
    }
    Ok(())
}

/// The solve on the backend `--backend` names.
fn dispatch(
    world: &mpi::topology::SimpleCommunicator,
    backend: &str,
    o: Options,
) -> Result<(), Box<dyn std::error::Error>> {
    // This process's place among those sharing its node: which GPU it takes.
    let local_rank = usize::try_from(world.split_shared(0).rank()).unwrap_or(0);
    let _ = local_rank;
    match backend {
        "cpu" if o.three_d => heat3d(world, &Cpu, &o),
        "cpu" => run_2d(world, &Cpu, o),
        #[cfg(feature = "cuda")]
        "cuda" => {
            let dev =
                cnda::backend::cuda::CudaDevice::new(local_rank % cnda::backend::cuda::CudaDevice::count().max(1))?;
            if o.three_d {
                heat3d(world, &dev, &o)
            } else {
                run_2d(world, &dev, o)
            }
        }
        #[cfg(feature = "wgpu")]
        "wgpu" => {
            let dev = cnda::backend::wgpu::WgpuDevice::new()?;
            if o.three_d {
                heat3d(world, &dev, &o)
            } else {
                run_2d(world, &dev, o)
            }
        }
        other => Err(format!(
            "--backend {other}: this build knows cpu{}{} (build with --features cuda or wgpu for the others)",
            if cfg!(feature = "cuda") { ", cuda" } else { "" },
            if cfg!(feature = "wgpu") { ", wgpu" } else { "" }
        )
        .into()),
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let universe = mpi::initialize().ok_or("MPI was initialized already")?;
    let world = universe.world();
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut flag = |name: &str| args.iter().position(|a| a == name).map(|at| args.remove(at)).is_some();
    let (check, three_d) = (flag("--check"), flag("--3d"));
    let mut value = |name: &str| -> Option<String> {
        let at = args.iter().position(|a| a == name)?;
        args.remove(at);
        (at < args.len()).then(|| args.remove(at))
    };
    let backend = value("--backend").unwrap_or_else(|| "cpu".to_string());
    let checkpoint = value("--checkpoint");
    let restart = value("--restart");
    let stop_after = value("--stop-after")
        .map(|s| s.parse::<usize>().map_err(|e| format!("--stop-after {s}: {e}")))
        .transpose()?
        .map(|s| s.div_ceil(CHECK_EVERY).max(1) * CHECK_EVERY);
    let mut args = args.into_iter();
    let n: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(if three_d { 64 } else { 512 }).max(4);
    let tolerance: f64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(1e-6);
    let output = args.next().unwrap_or_else(|| "heat2d_mpi.png".to_string());
    let run = Run { start: 0, stop_after, checkpoint };
    let options = Options { n, tolerance, output, check, three_d, run, restart };
    dispatch(&world, &backend, options)
}
