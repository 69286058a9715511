//! Steady-state 2D heat equation on a 512 x 512 plate by explicit Jacobi sweeps, written with the
//! stencil API, run on all cores, and drawn as a heat-map PNG.
//!
//! The top edge is held at 100 degrees and the other three at 0. A sweep replaces every interior
//! temperature by the mean of its four neighbours; sweeps repeat until no point changes by more
//! than the tolerance. By symmetry and superposition the exact steady state has 25 degrees at the
//! centre, which the run reports against.
//!
//! Plain Jacobi needs O(n^2) sweeps to move smooth errors on an n x n grid (hundreds of thousands
//! at n = 512), and a small per-sweep change then does not mean a small error. So the solve runs
//! coarse to fine: converge on 64 x 64, interpolate to 128 x 128 as the starting guess, converge
//! again, and so on up to 512 x 512 (nested iteration). Every level is the same explicit sweep.
//!
//! `cargo run --release --example heat2d [-- N TOLERANCE OUTPUT.png] [--fused K]`: with
//! `--fused K`, sweeps run as the constant-coefficient Jacobi stencil, `K` fused per pass over
//! memory (`LinearStencil::par_apply_steps`), then a residual check as before.

use std::time::Instant;

use cnda::prelude::*;
use cnda::stencil::{self, DoubleBuffer, LinearStencil};
use indicatif::{ProgressBar, ProgressStyle};

#[path = "common/heat.rs"]
mod heat;
#[path = "common/picture.rs"]
mod picture;
use heat::{jacobi, plate, refine, write_png, CHECK_EVERY, COARSEST, HOT, MAX_SWEEPS};

/// One sweep from the current field into the next (interior only: the boundary rows and columns
/// are never written, so both buffers keep the boundary values they started with).
fn sweep(field: &mut DoubleBuffer<f64, 2>) -> Result<(), Error> {
    let (u, v) = field.split();
    #[cfg(feature = "rayon")]
    stencil::try_par_sweep2(u, v, jacobi)?;
    #[cfg(not(feature = "rayon"))]
    stencil::try_sweep2(u, v, jacobi)?;
    field.swap();
    Ok(())
}

/// `count` sweeps: one at a time with the closure kernel, or, with `--fused k`, as the
/// constant-coefficient Jacobi stencil fused `k` sweeps at a time (one pass over memory per `k`
/// sweeps; `LinearStencil::par_apply_steps`).
fn sweeps(field: &mut DoubleBuffer<f64, 2>, count: usize, fused: Option<usize>) -> Result<(), Error> {
    match fused {
        None => (0..count).try_for_each(|_| sweep(field)),
        Some(k) => {
            let jacobi = LinearStencil::jacobi_5pt();
            let mut done = 0;
            while done < count {
                let steps = k.min(count - done);
                #[cfg(feature = "rayon")]
                jacobi.try_par_apply_steps(field, steps)?;
                #[cfg(not(feature = "rayon"))]
                jacobi.try_apply_steps(field, steps)?;
                done += steps;
            }
            Ok(())
        }
    }
}

/// Sweeps until one sweep changes no point by more than `tolerance`; returns the sweep count.
fn solve(
    initial: Array<f64, 2>,
    tolerance: f64,
    fused: Option<usize>,
    bar: &ProgressBar,
) -> Result<(Array<f64, 2>, usize), Error> {
    let mut field = DoubleBuffer::new(initial);
    let mut sweeps_done = 0;
    while sweeps_done < MAX_SWEEPS {
        sweeps(&mut field, CHECK_EVERY - 1, fused)?;
        let before = field.current().clone();
        sweeps(&mut field, 1, fused)?;
        sweeps_done += CHECK_EVERY;
        let change = field.current().try_zip_with(&before, |a, b| (a - b).abs())?.max().unwrap_or(0.0);
        bar.set_position(sweeps_done as u64);
        bar.set_message(format!("max change {change:.2e}"));
        if change <= tolerance {
            break;
        }
    }
    Ok((field.into_current(), sweeps_done))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // `--fused k` anywhere: fuse k sweeps at a time; the rest are positional.
    let mut all: Vec<String> = std::env::args().skip(1).collect();
    let fused = match all.iter().position(|a| a == "--fused") {
        Some(at) => {
            let k = all.get(at + 1).and_then(|s| s.parse::<usize>().ok()).filter(|&k| k > 0);
            let k = k.ok_or("--fused needs a positive number of sweeps to fuse, as in `--fused 8`")?;
            all.drain(at..at + 2);
            Some(k)
        }
        None => None,
    };
    let mut args = all.into_iter();
    let n: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(512).max(4);
    let tolerance: f64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(1e-6);
    let output = args.next().unwrap_or_else(|| "heat2d.png".to_string());

    println!("heat2d: {n} x {n} plate, top edge {HOT}, other edges 0, tolerance {tolerance:e} per sweep");
    if let Some(k) = fused {
        println!(
            "sweeps fused {k} at a time (constant-coefficient Jacobi stencil, one pass over memory per {k} sweeps)"
        );
    }
    let style = ProgressStyle::with_template("  {prefix:>11} [{bar:30}] {pos:>6} sweeps  {msg}")?.progress_chars("=> ");
    let start = Instant::now();
    let mut size = COARSEST.min(n);
    let mut u = plate(size)?;
    let mut updates = 0usize;
    loop {
        let t = Instant::now();
        let bar = ProgressBar::new(MAX_SWEEPS as u64).with_style(style.clone()).with_prefix(format!("{size} x {size}"));
        let (solved, sweeps) = solve(u, tolerance, fused, &bar)?;
        bar.finish_and_clear();
        u = solved;
        updates += sweeps * (size - 2) * (size - 2);
        println!(
            "  {size:>4} x {size:<4}: {sweeps:>6} sweeps, centre {:.4}, {:.2} s",
            u[[size / 2, size / 2]],
            t.elapsed().as_secs_f64()
        );
        if size == n {
            break;
        }
        size = (2 * size).min(n);
        u = refine(&u, size)?;
    }
    let seconds = start.elapsed().as_secs_f64();
    println!("centre temperature {:.4} (exact steady state 25 at the plate's centre)", u[[n / 2, n / 2]]);
    println!("{seconds:.2} s in all, {:.2} ns per point update", seconds * 1e9 / updates as f64);

    write_png(&output, &u)?;
    println!("heat map written to {output}");
    let step = (n / 8).max(1);
    println!("field sampled every {step} points:\n{:.1}", u.slice(s![..;step as isize, ..;step as isize]));
    Ok(())
}
