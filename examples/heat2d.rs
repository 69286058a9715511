//! Steady-state 2D heat equation on a 512 x 512 plate by explicit Jacobi sweeps.
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
//! `cargo run --release --example heat2d [-- N TOLERANCE]`

use std::time::Instant;

use cnda::prelude::*;

const HOT: f64 = 100.0;
const COARSEST: usize = 64;

/// A plate of `n x n` points: hot top row, everything else 0.
fn plate(n: usize) -> Result<Array<f64, 2>, Error> {
    Array::try_from_fn([n, n], |[i, _]| if i == 0 { HOT } else { 0.0 })
}

/// One Jacobi sweep from `u` into `v` over the interior; returns the largest change.
///
/// Works on row slices: the shapes are checked once per row, and the inner loop vectorizes.
fn sweep(u: &Array<f64, 2>, v: &mut Array<f64, 2>) -> f64 {
    let [n, m] = u.shape();
    let rows: Vec<&[f64]> = u.rows().collect();
    let mut change = 0.0f64;
    for (i, out) in v.rows_mut().enumerate().take(n - 1).skip(1) {
        let (up, mid, down, out) = (&rows[i - 1][..m], &rows[i][..m], &rows[i + 1][..m], &mut out[..m]);
        for j in 1..m - 1 {
            let new = 0.25 * (up[j] + down[j] + mid[j - 1] + mid[j + 1]);
            change = change.max((new - mid[j]).abs());
            out[j] = new;
        }
    }
    change
}

/// Bilinear interpolation of the interior of `coarse` onto a plate of `n x n` points.
fn refine(coarse: &Array<f64, 2>, n: usize) -> Result<Array<f64, 2>, Error> {
    let c = coarse.shape()[0];
    let scale = (c - 1) as f64 / (n - 1) as f64;
    let mut fine = plate(n)?;
    for i in 1..n - 1 {
        for j in 1..n - 1 {
            let (y, x) = (i as f64 * scale, j as f64 * scale);
            let (i0, j0) = ((y as usize).min(c - 2), (x as usize).min(c - 2));
            let (fy, fx) = (y - i0 as f64, x - j0 as f64);
            fine[[i, j]] = (1.0 - fy) * ((1.0 - fx) * coarse[[i0, j0]] + fx * coarse[[i0, j0 + 1]])
                + fy * ((1.0 - fx) * coarse[[i0 + 1, j0]] + fx * coarse[[i0 + 1, j0 + 1]]);
        }
    }
    Ok(fine)
}

/// Sweeps `u` until the largest change is at most `tolerance`; returns the sweep count.
fn solve(u: &mut Array<f64, 2>, tolerance: f64) -> usize {
    let mut v = u.clone();
    let mut sweeps = 0;
    loop {
        let change = sweep(u, &mut v);
        std::mem::swap(u, &mut v);
        sweeps += 1;
        if sweeps % 20_000 == 0 {
            println!("    sweep {sweeps:>6}: max change {change:.2e}");
        }
        if change <= tolerance {
            return sweeps;
        }
    }
}

fn parse<T: std::str::FromStr>(arg: Option<String>, default: T) -> T {
    arg.and_then(|s| s.parse().ok()).unwrap_or(default)
}

fn main() -> Result<(), Error> {
    let mut args = std::env::args().skip(1);
    let n: usize = parse(args.next(), 512).max(4);
    let tolerance: f64 = parse(args.next(), 1e-6);

    println!("heat2d: {n} x {n} plate, top edge {HOT}, other edges 0, tolerance {tolerance:e} per sweep");
    let start = Instant::now();
    let mut size = COARSEST.min(n);
    let mut u = plate(size)?;
    let mut updates = 0usize;
    loop {
        let t = Instant::now();
        let sweeps = solve(&mut u, tolerance);
        updates += sweeps * (size - 2) * (size - 2);
        let centre = u[[size / 2, size / 2]];
        println!("  {size:>4} x {size:<4}: {sweeps:>6} sweeps, centre {centre:.4}, {:.2} s", t.elapsed().as_secs_f64());
        if size == n {
            break;
        }
        size = (2 * size).min(n);
        u = refine(&u, size)?;
    }
    let seconds = start.elapsed().as_secs_f64();

    let centre = u[[n / 2, n / 2]];
    println!("centre temperature {centre:.4} (exact steady state 25 at the plate's centre)");
    println!("{seconds:.2} s in all, {:.2} ns per point update", seconds * 1e9 / updates as f64);

    // A coarse look at the field: every (n/8)th point.
    let step = (n / 8).max(1);
    let coarse = Array::from_fn([n.div_ceil(step), n.div_ceil(step)], |[i, j]| u[[i * step, j * step]]);
    println!("field sampled every {step} points:\n{coarse:.1}");
    Ok(())
}
