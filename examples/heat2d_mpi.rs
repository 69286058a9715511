//! The heat2d problem distributed over MPI processes: the plate is split into blocks
//! (`dist::DistArray`, one per process, halos of 1), each Jacobi sweep exchanges the halos while
//! the block's interior is swept (`dist::sweep_dist` with heat2d's own closure, so the field and
//! the PNG are heat2d's, bit for bit), and the global residual (the
//! largest change of one sweep, `max_abs_diff`) decides convergence on every process alike. The
//! nested iteration of heat2d runs level by level: each level's result is gathered on rank 0,
//! refined, and scattered again. Rank 0 writes the PNG.
//!
//! With `--check`, rank 0 then solves the same problem on its own (heat2d's sweeps) and requires
//! the two final fields to be equal bit for bit: a distributed sweep computes every point exactly
//! as one process does, whatever the split. `--3d` solves the 3D analogue instead (a cube with a
//! hot face, the 7-point `LinearStencil` with `apply_dist`, a 3D process grid, one level).
//!
//! `cargo build --release --features mpi --example heat2d_mpi`, then
//! `mpirun -n 4 "${CARGO_TARGET_DIR:-target}/release/examples/heat2d_mpi" [N TOLERANCE OUTPUT.png] [--check] [--3d]`

use std::time::Instant;

use cnda::dist::{sweep_dist, DistArray, DistDoubleBuffer};
use cnda::prelude::*;
use cnda::stencil::{self, DoubleBuffer, LinearStencil};
use mpi::traits::Communicator;

#[path = "common/heat.rs"]
mod heat;
use heat::{jacobi, plate, refine, write_png, CHECK_EVERY, COARSEST, HOT, MAX_SWEEPS};

/// Sweeps `field` with `sweep(current, next)` until one sweep changes no point by more than
/// `tolerance` (checked every `CHECK_EVERY` sweeps, as heat2d does); returns the sweep count.
fn solve_dist<const N: usize>(
    field: &mut DistDoubleBuffer<f64, N>,
    mut sweep: impl FnMut(&mut DistArray<f64, N>, &mut DistArray<f64, N>),
    tolerance: f64,
) -> usize {
    let mut done = 0;
    while done < MAX_SWEEPS {
        for step in 0..CHECK_EVERY {
            let (u, v) = field.both_mut();
            sweep(u, v);
            let change = (step + 1 == CHECK_EVERY).then(|| v.max_abs_diff(u));
            field.swap();
            if change.is_some_and(|c| c <= tolerance) {
                return done + CHECK_EVERY;
            }
        }
        done += CHECK_EVERY;
    }
    done
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

/// The nested 2D solve over `world`; the final field on rank 0.
fn heat2d(world: &impl Communicator, n: usize, tolerance: f64) -> Result<Option<Array<f64, 2>>, Error> {
    let root = world.rank() == 0;
    let mut size = COARSEST.min(n);
    let mut global = if root { Some(plate(size)?) } else { None };
    loop {
        let t = Instant::now();
        let mut u = DistArray::try_new(world, [size, size], [1, 1], [false, false])?;
        u.scatter(0, global.as_ref());
        let mut field = DistDoubleBuffer::new(u);
        let sweeps = solve_dist(&mut field, |u, v| sweep_dist(u, v, jacobi), tolerance);
        global = field.current().gather(0);
        if let Some(g) = &global {
            let dims = field.current().decomposition().dims();
            println!(
                "  {size:>4} x {size:<4} on a {} x {} process grid: {sweeps:>6} sweeps, centre {:.4}, {:.2} s",
                dims[0],
                dims[1],
                g[[size / 2, size / 2]],
                t.elapsed().as_secs_f64()
            );
        }
        if size == n {
            return Ok(global);
        }
        size = (2 * size).min(n);
        global = global.map(|g| refine(&g, size)).transpose()?;
    }
}

/// The same nested solve on one process.
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

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let universe = mpi::initialize().ok_or("MPI was initialized already")?;
    let world = universe.world();
    let root = world.rank() == 0;
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut flag = |name: &str| args.iter().position(|a| a == name).map(|at| args.remove(at)).is_some();
    let (check, three_d) = (flag("--check"), flag("--3d"));
    let mut args = args.into_iter();
    let n: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(if three_d { 64 } else { 512 }).max(4);
    let tolerance: f64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(1e-6);
    let output = args.next().unwrap_or_else(|| "heat2d_mpi.png".to_string());
    let start = Instant::now();
    if three_d {
        if root {
            println!("heat3d over {} processes: {n}^3 cube, hot face {HOT}, tolerance {tolerance:e}", world.size());
        }
        let jacobi = LinearStencil::jacobi_7pt();
        let mut u = DistArray::try_new(&world, [n, n, n], [1, 1, 1], [false; 3])?;
        u.fill_owned_with(|[i, _, _]| if i == 0 { HOT } else { 0.0 });
        let dims = u.decomposition().dims();
        let mut field = DistDoubleBuffer::new(u);
        let sweeps = solve_dist(&mut field, |u, v| jacobi.apply_dist(u, v), tolerance);
        let centre = field.current().gather(0);
        if let Some(c) = &centre {
            println!(
                "  {dims:?} process grid: {sweeps} sweeps, centre {:.4}, {:.2} s",
                c[[n / 2, n / 2, n / 2]],
                start.elapsed().as_secs_f64()
            );
        }
        if let (true, Some(distributed)) = (check, centre) {
            let one = solve_one(cube(n)?, |a, b| jacobi.apply(a, b), tolerance);
            if distributed != one {
                return Err("the distributed 3D field differs from the one-process field".into());
            }
            println!("bit for bit the same as one process");
        }
        return Ok(());
    }
    if root {
        println!("heat2d over {} processes: {n} x {n} plate, tolerance {tolerance:e} per sweep", world.size());
    }
    let field = heat2d(&world, n, tolerance)?;
    if let Some(u) = field {
        println!("centre temperature {:.4}, {:.2} s in all", u[[n / 2, n / 2]], start.elapsed().as_secs_f64());
        write_png(&output, &u)?;
        println!("heat map written to {output}");
        if check {
            if u != heat2d_one(n, tolerance)? {
                return Err("the distributed field differs from the one-process field".into());
            }
            println!("bit for bit the same as one process");
        }
    }
    Ok(())
}
