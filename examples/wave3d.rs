//! 3D wave equation `u_tt = c^2 (u_xx + u_yy + u_zz)` on a 128^3 box with fixed (zero) walls,
//! leapfrog in time and the 7-point Laplacian in space, through the stencil API on all cores.
//!
//! A Gaussian pulse starts at rest in the centre and spreads as a spherical shell. The run prints
//! the wavefront radius (where |u| peaks along one axis) against `c t` (they agree until the shell
//! reaches the walls at r = 0.5 and reflects), the peak amplitude (falling as 1/r for a spherical
//! wave) and the field's squared L2 norm.
//!
//! `cargo run --release --example wave3d [-- N STEPS]`

use std::time::Instant;

use cnda::prelude::*;
use cnda::stencil::{self, DoubleBuffer, Window3};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(128).max(8);
    let steps: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(160);
    let h = 1.0 / (n - 1) as f64;
    let c = 1.0;
    let dt = 0.5 * h / c; // CFL number 0.5 < 1/sqrt(3)
    let k = (c * dt / h).powi(2);
    let centre = (n / 2) as f64;
    let width = 0.03 / h; // pulse width in grid points

    let pulse = Array::<f64, 3>::try_from_fn([n, n, n], |[i, j, l]| {
        let r2 = (i as f64 - centre).powi(2) + (j as f64 - centre).powi(2) + (l as f64 - centre).powi(2);
        let on_wall = [i, j, l].iter().any(|&x| x == 0 || x == n - 1);
        if on_wall {
            0.0
        } else {
            (-r2 / (2.0 * width * width)).exp()
        }
    })?;
    // Starting at rest: u(-dt) = u(0), so the scratch buffer (holding the previous step) is a copy.
    let mut field = DoubleBuffer::new(pulse);

    // u_next = 2 u - u_prev + k * lap(u); the output buffer holds u_prev when the sweep starts.
    let leapfrog = move |out: &mut f64, w: Window3<'_, f64, 1>| {
        let u = *w.centre();
        let lap = w[(-1, 0, 0)] + w[(1, 0, 0)] + w[(0, -1, 0)] + w[(0, 1, 0)] + w[(0, 0, -1)] + w[(0, 0, 1)] - 6.0 * u;
        *out = 2.0 * u - *out + k * lap;
    };

    println!("wave3d: {n}^3 grid, {steps} leapfrog steps, CFL {:.2}", c * dt / h);
    let start = Instant::now();
    for step in 1..=steps {
        let (u, next) = field.split();
        #[cfg(feature = "rayon")]
        stencil::try_par_sweep3::<1, _, _, _, _, _>(u, next, leapfrog)?;
        #[cfg(not(feature = "rayon"))]
        stencil::try_sweep3::<1, _, _, _, _, _>(u, next, leapfrog)?;
        field.swap();
        if step % 40 == 0 || step == steps {
            let u = field.current();
            // Wavefront: the largest |u| along the +x axis from the centre.
            let axis = u.slice(s![n / 2, n / 2, n / 2..]);
            let front = axis.map(f64::abs).argmax().map_or(0, |[r]| r);
            let energy = u.map(|x| x * x).sum() * h.powi(3);
            println!(
                "  t = {:.3}: wavefront at r = {:.3} (c t = {:.3}), peak |u| {:.4}, sum u^2 dV {:.3e}",
                step as f64 * dt,
                front as f64 * h,
                c * step as f64 * dt,
                axis.map(f64::abs).max().unwrap_or(0.0),
                energy
            );
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    let points = (steps * (n - 2).pow(3)) as f64;
    println!("{seconds:.2} s, {:.2} ns per point update", seconds * 1e9 / points);
    Ok(())
}
