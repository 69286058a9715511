//! Halos refilled by their definitions, with no cnda halo code: the reference of the time
//! stepper's tests (`time_steps.rs`, `stencil_systems.rs`).

use cnda::prelude::*;
use cnda::stencil::Boundary;

/// Where halo position `p` (relative to the interior start) reads from on an axis with `n`
/// interior points, by the definition of each boundary; `None` for a value or a fixed point.
fn source(p: isize, n: isize, b: Boundary<f64>) -> Option<isize> {
    match b {
        Boundary::Fixed | Boundary::Value(_) => None,
        Boundary::Periodic => Some(p.rem_euclid(n)),
        Boundary::Neumann => {
            // Mirror about the face, the edge repeated, one fold at a time.
            let mut q = p;
            while !(0..n).contains(&q) {
                q = if q < 0 { -q - 1 } else { 2 * n - 1 - q };
            }
            Some(q)
        }
    }
}

/// The naive refill of `a`'s halos (width `r[k]` on axis `k`), axis by axis, as `fill_halo`
/// orders them.
pub fn refill<const N: usize>(a: &mut Array<f64, N>, r: [usize; N], b: &[[Boundary<f64>; 2]; N]) {
    let shape = a.shape();
    for k in 0..N {
        let n = (shape[k] - 2 * r[k]) as isize;
        let copy = a.clone();
        *a = Array::from_fn(shape, |index| {
            let p = index[k] as isize - r[k] as isize;
            if (0..n).contains(&p) {
                return copy[index];
            }
            let side = b[k][usize::from(p >= n)];
            match (side, source(p, n, side)) {
                (Boundary::Value(v), _) => v,
                (_, Some(q)) => {
                    let mut from = index;
                    from[k] = (q + r[k] as isize) as usize;
                    copy[from]
                }
                _ => copy[index],
            }
        });
    }
}

/// A random boundary for one side (periodic is decided per axis).
pub fn side_boundary(pick: u8, value: f64) -> Boundary<f64> {
    match pick % 3 {
        0 => Boundary::Fixed,
        1 => Boundary::Value(value),
        _ => Boundary::Neumann,
    }
}

pub fn boundaries<const N: usize>(picks: [u8; 4], periodic: [bool; N]) -> [[Boundary<f64>; 2]; N] {
    core::array::from_fn(|k| {
        if periodic[k] {
            [Boundary::Periodic; 2]
        } else {
            [side_boundary(picks[(2 * k) % 4], -1.5 + k as f64), side_boundary(picks[(2 * k + 1) % 4], 2.25)]
        }
    })
}
