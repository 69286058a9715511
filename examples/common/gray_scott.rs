//! What the Gray-Scott examples share (gray_scott.rs, gray_scott_mpi.rs): the stencil, Pearson's
//! parameters, the seeded initial fields, the picture of `v`.

use cnda::prelude::*;

stencil! {
    /// One explicit step of both species.
    pub struct GrayScott = |u, v; du: f32, dv: f32, feed: f32, kill: f32, dt: f32| {
        let uvv = u[0, 0] * v[0, 0] * v[0, 0];
        (
            u[0, 0] + dt * (du * laplace(u, 2) - uvv + feed * (1.0 - u[0, 0])),
            v[0, 0] + dt * (dv * laplace(v, 2) + uvv - (feed + kill) * v[0, 0]),
        )
    };
}

/// Pearson's "spots and worms" regime (F = 0.037, k = 0.06), dt = 1 on a unit grid.
pub const PARAMS: (f32, f32, f32, f32, f32) = (0.16, 0.08, 0.037, 0.06, 1.0);

/// The initial fields (a one-cell periodic halo around `n x n`): `u = 1`, `v = 0`, and a seeded
/// square in the middle with a little deterministic noise, so the pattern grows from it.
pub fn initial(n: usize) -> [Array<f32, 2>; 2] {
    [0, 1].map(|species| Array::from_fn([n + 2, n + 2], |[i, j]| value(n, species, [i, j])))
}

/// Species `species`'s initial value at point `[i, j]` of the `(n + 2)^2` grid with its halo
/// (`[1, 1]` the first interior point).
pub fn value(n: usize, species: usize, [i, j]: [usize; 2]) -> f32 {
    let noise = |i: usize, j: usize| ((i * 7919 + j * 104_729) % 1000) as f32 / 1000.0 - 0.5;
    let (lo, hi) = (n / 2 - n / 10, n / 2 + n / 10);
    let seeded = (lo..hi).contains(&i) && (lo..hi).contains(&j);
    match (species, seeded) {
        (0, true) => 0.5 + 0.02 * noise(i, j),
        (0, false) => 1.0,
        (_, true) => 0.25 + 0.02 * noise(j, i),
        (_, false) => 0.0,
    }
}

/// `v` (0 to about 0.4) as a PNG: dark blue through teal to pale yellow.
pub fn write_png(path: &str, v: &Array<f32, 2>) -> Result<(), Box<dyn std::error::Error>> {
    super::picture::write_png(path, v, |x| {
        let t = (x / 0.4).clamp(0.0, 1.0);
        let mix = |a: f32, b: f32| (a + (b - a) * t).round() as u8;
        [mix(8.0, 250.0), mix(20.0, 240.0), mix(60.0, 160.0)]
    })
}
