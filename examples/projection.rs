//! The pressure projection of incompressible flow (Chorin's step): a velocity `u*` that is not
//! divergence-free becomes one that is,
//!
//! ```text
//! div grad p = div u*,        u = u* - grad p
//! ```
//!
//! on a periodic `n x n` MAC grid (`u` on the x-faces, `v` on the y-faces, `p` at the centres),
//! the Poisson problem solved by CG preconditioned with one periodic multigrid V-cycle (singular:
//! constants are its null space, and `div u*` sums to zero). The divergence and the gradient are
//! two-point stencils (`StencilOperator`s with periodic sides). `u*` is a Taylor-Green vortex
//! (discretely divergence-free: differences of a stream function) plus the gradient of bumps,
//! which the projection must remove, exactly up to the solve's tolerance. The picture is the
//! vorticity after the projection. The same code runs on the CPU, a CUDA GPU or a WebGPU adapter.
//!
//! ```text
//! cargo run --release --example projection                 # 256 x 256
//! cargo run --release --example projection -- 128 vorticity.png --check
//! cargo run --release --features wgpu --example projection -- 128 --wgpu --check
//! ```
//!
//! `projection [N = 2^k >= 8] [VORTICITY.png] [--cuda | --wgpu] [--check]`, `f32`. `--check`: on
//! the CPU, the projected velocity is the vortex's within 1e-4 of the removed gradient's size and
//! the largest divergence left within ten times the solve's tolerance of `‖div u*‖₂`; on a device,
//! the velocity is the CPU's within 1e-4 of its size. Exit code 2 when the device cannot open or the arguments are wrong.

use std::f64::consts::PI;
use std::process::ExitCode;

use cnda::kernel::{Backend, CopyKernels, Download, ExprStencilKernels, StencilKernels, Upload};
use cnda::prelude::*;
use cnda::solve::{Cg, LinearOperator, Multigrid, MultigridOptions, SolverBackend, StencilOperator};
use cnda::stencil::{Boundary, DynStencil};

#[path = "common/device.rs"]
mod device;
#[path = "common/picture.rs"]
mod picture;

const RTOL: f64 = 1e-6;

/// A two-point difference along `axis` on the periodic `n x n` grid: `(f[i + ahead] - f[i +
/// ahead - 1]) / h` (`ahead` 1: forward, for the divergence at centres; 0: backward, for the
/// gradient on faces).
fn difference(n: usize, axis: usize, ahead: isize) -> StencilOperator<f32, 2> {
    let h = 1.0 / n as f32;
    let at = |d: isize| core::array::from_fn::<isize, 2, _>(|k| if k == axis { d } else { 0 });
    let taps = [(at(ahead), 1.0 / h), (at(ahead - 1), -1.0 / h)];
    StencilOperator::new(DynStencil::new(taps), [n, n], [Boundary::Periodic; 2])
}

/// `op` applied to `f` (an `n x n` field): padded by one point, the halo filled, swept, the
/// interior kept.
fn apply<B: SolverBackend + StencilKernels>(
    op: &StencilOperator<f32, 2>,
    f: &Array<f32, 2, B>,
) -> Result<Array<f32, 2, B>, Error> {
    let n = f.shape()[0];
    let alloc = f.allocator();
    let (mut padded, mut out) =
        (Array::try_zeros_in(&alloc, [n + 2, n + 2])?, Array::try_zeros_in(&alloc, [n + 2, n + 2])?);
    padded.slice_mut(s![1..=n, 1..=n]).try_assign(f)?;
    op.try_apply(&mut padded, &mut out)?;
    out.slice(s![1..=n, 1..=n]).try_to_owned()
}

/// A projected velocity, and what the projection did.
struct Projected<B: Backend> {
    u: Array<f32, 2, B>,
    v: Array<f32, 2, B>,
    /// The Poisson solve's CG iterations.
    iterations: usize,
    /// `max |div|` before and after.
    largest: [f32; 2],
    /// `‖div u*‖₂`.
    norm: f32,
}

impl<B: Backend> Projected<B> {
    fn report(&self) {
        let [before, after] = self.largest;
        println!("  {} CG iterations; max |div| {before:.3e} before, {after:.3e} after", self.iterations);
    }
}

/// The projection of `(u, v)`.
fn project<B: SolverBackend + StencilKernels + Download>(
    u: &Array<f32, 2, B>,
    v: &Array<f32, 2, B>,
) -> Result<Projected<B>, Error> {
    let n = u.shape()[0];
    let divergence = |u: &Array<f32, 2, B>, v: &Array<f32, 2, B>| -> Result<Array<f32, 2, B>, Error> {
        Ok(&apply(&difference(n, 0, 1), u)? + &apply(&difference(n, 1, 1), v)?)
    };
    let div = divergence(u, v)?;
    let h2 = (n * n) as f32;
    let laplacian = DynStencil::new([([-1, 0], h2), ([1, 0], h2), ([0, -1], h2), ([0, 1], h2), ([0, 0], -4.0 * h2)]);
    let poisson = StencilOperator::new(laplacian, [n, n], [Boundary::Periodic; 2]);
    let alloc = u.allocator();
    let multigrid = Multigrid::try_new_in(&alloc, &poisson, MultigridOptions { coarsest: 16, ..Default::default() })?;
    let mut p = Array::try_zeros_in(&alloc, [n, n])?;
    let report = Cg::new().rtol(RTOL).preconditioner(multigrid).try_solve(&poisson, &div, &mut p)?;
    let u = u - &apply(&difference(n, 0, 0), &p)?;
    let v = v - &apply(&difference(n, 1, 0), &p)?;
    let after = divergence(&u, &v)?;
    let largest =
        |d: &Array<f32, 2, B>| -> Result<f32, Error> { Ok(d.try_to_host()?.iter().fold(0f32, |m, x| m.max(x.abs()))) };
    let norm = div.try_to_host()?.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt() as f32;
    Ok(Projected { u, v, iterations: report.iterations, largest: [largest(&div)?, largest(&after)?], norm })
}

/// The Taylor-Green vortex from its stream function at the corners, and the gradient of bumps
/// at the faces: `(u_vortex, v_vortex, u_gradient, v_gradient)`.
fn fields(n: usize) -> [Array<f32, 2>; 4] {
    let h = 1.0 / n as f64;
    let psi = |i: usize, j: usize| {
        ((2.0 * PI * (i as f64 - 0.5) * h).sin() * (2.0 * PI * (j as f64 - 0.5) * h).sin()) / (2.0 * PI)
    };
    let phi = |i: usize, j: usize| {
        let (x, y) = (i as f64 * h, j as f64 * h);
        0.05 * ((6.0 * PI * x).cos() * (4.0 * PI * y).sin() + (2.0 * PI * (x + y)).sin())
    };
    let wrap = |i: usize| i % n;
    let prev = |i: usize| (i + n - 1) % n;
    [
        Array::from_fn([n, n], |[i, j]| ((psi(i, wrap(j + 1)) - psi(i, j)) / h) as f32),
        Array::from_fn([n, n], |[i, j]| (-(psi(wrap(i + 1), j) - psi(i, j)) / h) as f32),
        Array::from_fn([n, n], |[i, j]| ((phi(i, j) - phi(prev(i), j)) / h) as f32),
        Array::from_fn([n, n], |[i, j]| ((phi(i, j) - phi(i, prev(j))) / h) as f32),
    ]
}

/// The disturbed velocity `u*` on the host.
fn disturbed(n: usize) -> (Array<f32, 2>, Array<f32, 2>) {
    let [u, v, gu, gv] = fields(n);
    (&u + &gu, &v + &gv)
}

/// The projection on a device: `u*` uploaded, projected there, downloaded.
#[cfg_attr(not(any(feature = "cuda", feature = "wgpu")), allow(dead_code))] // run with a device feature only
struct OnGpu {
    n: usize,
}

impl device::OnDevice for OnGpu {
    type Out = (Array<f32, 2>, Array<f32, 2>);

    fn on<D>(&self, dev: &D) -> Result<Self::Out, Error>
    where
        D: Upload + core::fmt::Debug,
        D::Target: ExprStencilKernels + CopyKernels + Download + SolverBackend + StencilKernels,
        <D::Target as Backend>::Alloc: Upload<Target = D::Target>,
    {
        println!("on {dev:?}");
        let (u, v) = disturbed(self.n);
        let projected = project(&u.try_to_device(dev)?, &v.try_to_device(dev)?)?;
        projected.report();
        Ok((projected.u.try_to_host()?, projected.v.try_to_host()?))
    }
}

fn main() -> Result<ExitCode, Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (flags, positional): (Vec<String>, Vec<String>) = args.into_iter().partition(|a| a.starts_with("--"));
    let n = positional.first().map(|s| s.parse::<usize>()).transpose()?.unwrap_or(256);
    let picture = positional.get(1).cloned();
    let check = flags.iter().any(|f| f == "--check");
    let devices: Vec<&String> = flags.iter().filter(|f| *f != "--check").collect();
    if n < 8 || !n.is_power_of_two() || devices.len() > 1 || devices.iter().any(|f| *f != "--cuda" && *f != "--wgpu") {
        eprintln!("usage: projection [N = 2^k >= 8] [VORTICITY.png] [--cuda | --wgpu] [--check]");
        return Ok(ExitCode::from(2));
    }
    println!("pressure projection, {n} x {n} periodic MAC grid");
    let host = || -> Result<Projected<Cpu>, Error> {
        let (u, v) = disturbed(n);
        let projected = project(&u, &v)?;
        projected.report();
        Ok(projected)
    };
    let mut divergences = None;
    let (u, v) = match devices.first() {
        None => {
            let projected = host()?;
            divergences = Some((projected.norm, projected.largest[1]));
            (projected.u, projected.v)
        }
        Some(flag) => match device::on_device(flag, "projection", &format!("{n}"), &OnGpu { n })? {
            Some(uv) => uv,
            None => return Ok(ExitCode::from(2)),
        },
    };
    if check {
        let largest = |a: &Array<f32, 2>| a.iter().fold(0f32, |m, x| m.max(x.abs()));
        let (target_u, target_v, scale) = if devices.is_empty() {
            let [tu, tv, gu, gv] = fields(n);
            let removed = largest(&gu).max(largest(&gv));
            (tu, tv, removed)
        } else {
            let cpu = host()?;
            let size = largest(&cpu.u).max(largest(&cpu.v));
            (cpu.u, cpu.v, size)
        };
        // What is left of the divergence is the Poisson solve's residual, at most its tolerance
        // times ‖div u*‖₂ (plus f32's rounding).
        if let Some((norm, after)) = divergences {
            if after.is_nan() || f64::from(after) > 10.0 * RTOL * f64::from(norm) {
                eprintln!("check failed: max |div| is {after:.3e} after the projection, ‖div u*‖ {norm:.3e}");
                return Ok(ExitCode::FAILURE);
            }
        }
        let error = largest(&(&u - &target_u)).max(largest(&(&v - &target_v)));
        if error.is_nan() || error > 1e-4 * scale {
            eprintln!("check failed: the projected velocity is {error:.3e} from the expected one (scale {scale:.3e})");
            return Ok(ExitCode::FAILURE);
        }
        println!("check: the projected velocity is the expected one within {error:.3e} (scale {scale:.3e})");
    }
    if let Some(path) = picture {
        let h = 1.0 / n as f32;
        let vorticity = Array::from_fn([n, n], |[i, j]| {
            (v[[(i + 1) % n, j]] - v[[i, j]]) / h - (u[[i, (j + 1) % n]] - u[[i, j]]) / h
        });
        let peak = vorticity.iter().fold(f32::MIN_POSITIVE, |m, x| m.max(x.abs()));
        picture::write_png(&path, &vorticity, |w| {
            let t = (w / peak).clamp(-1.0, 1.0);
            if t >= 0.0 {
                [255, (255.0 * (1.0 - t)) as u8, (255.0 * (1.0 - t)) as u8]
            } else {
                [(255.0 * (1.0 + t)) as u8, (255.0 * (1.0 + t)) as u8, 255]
            }
        })?;
        println!("wrote {path}");
    }
    Ok(ExitCode::SUCCESS)
}
