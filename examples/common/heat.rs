//! What the heat2d examples share: the plate, the refinement between levels of the nested
//! iteration, and the heat-map PNG.

use cnda::prelude::*;
use cnda::stencil::Window2;

pub const HOT: f64 = 100.0;
/// The coarsest level of the nested iteration.
pub const COARSEST: usize = 64;
/// Sweeps between convergence checks (a check costs about one sweep).
pub const CHECK_EVERY: usize = 100;
pub const MAX_SWEEPS: usize = 200_000;

/// One Jacobi update: the mean of the four neighbours.
pub fn jacobi(out: &mut f64, w: Window2<'_, f64, 1>) {
    *out = 0.25 * (w[(-1, 0)] + w[(1, 0)] + w[(0, -1)] + w[(0, 1)]);
}

/// A plate of `n x n` points: hot top row, everything else 0.
pub fn plate(n: usize) -> Result<Array<f64, 2>, Error> {
    Array::try_from_fn([n, n], |[i, _]| if i == 0 { HOT } else { 0.0 })
}

/// Bilinear interpolation of the interior of `coarse` onto a plate of `n x n` points.
pub fn refine(coarse: &Array<f64, 2>, n: usize) -> Result<Array<f64, 2>, Error> {
    let c = coarse.shape()[0];
    let scale = (c - 1) as f64 / (n - 1) as f64;
    let hot = plate(n)?;
    Array::try_from_fn([n, n], |[i, j]| {
        if i == 0 || j == 0 || i == n - 1 || j == n - 1 {
            return hot[[i, j]];
        }
        let (y, x) = (i as f64 * scale, j as f64 * scale);
        let (i0, j0) = ((y as usize).min(c - 2), (x as usize).min(c - 2));
        let (fy, fx) = (y - i0 as f64, x - j0 as f64);
        (1.0 - fy) * ((1.0 - fx) * coarse[[i0, j0]] + fx * coarse[[i0, j0 + 1]])
            + fy * ((1.0 - fx) * coarse[[i0 + 1, j0]] + fx * coarse[[i0 + 1, j0 + 1]])
    })
}

/// Temperature (0..=100) to an RGB colour: black, purple, red, orange, pale yellow ("inferno"-like).
pub fn colour(t: f64) -> [u8; 3] {
    const STOPS: [[f64; 3]; 5] =
        [[0.0, 0.0, 4.0], [87.0, 16.0, 110.0], [188.0, 55.0, 84.0], [249.0, 142.0, 9.0], [252.0, 255.0, 164.0]];
    let x = (t / HOT).clamp(0.0, 1.0) * (STOPS.len() - 1) as f64;
    let k = (x as usize).min(STOPS.len() - 2);
    let f = x - k as f64;
    core::array::from_fn(|c| (STOPS[k][c] * (1.0 - f) + STOPS[k + 1][c] * f).round() as u8)
}

pub fn write_png(path: &str, u: &Array<f64, 2>) -> Result<(), Box<dyn std::error::Error>> {
    super::picture::write_png(path, u, colour)
}
