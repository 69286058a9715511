//! The heat equation stepped implicitly (backward Euler), so a step may be far longer than an
//! explicit scheme's stability limit (`h^2 / 4`): each step solves
//!
//! ```text
//! (I - dt Laplace) u(n+1) = u(n)        u = 0 outside the unit square
//! ```
//!
//! by CG preconditioned with one multigrid V-cycle (`cnda::solve`), the hierarchy built once, each
//! solve started from the last step's field. The same code runs on the CPU, a CUDA GPU or a WebGPU
//! adapter; the picture is the field after the last step.
//!
//! ```text
//! cargo run --release --example implicit_heat                        # 255 x 255, 20 steps of 1e-3
//! cargo run --release --example implicit_heat -- 127 10 heat.png --check
//! cargo run --release --features cuda --example implicit_heat -- 127 10 --cuda --check
//! cargo run --release --features wgpu --example implicit_heat -- 127 10 --wgpu --check
//! ```
//!
//! `implicit_heat [N = 2^k - 1] [STEPS] [U.png] [--cuda | --wgpu] [--check]`: `f32`, `dt = 1e-3`
//! (260 explicit steps' worth at `N = 255`), each solve to a relative residual of 1e-6.
//! `--check` also steps on the CPU and compares the fields (within 1e-4 of the peak: the solves
//! stop at a tolerance, and a device sums in another order), and on the CPU alone checks the last
//! step's residual. Exit code 2 when the device cannot open or the arguments are wrong.

use std::process::ExitCode;
use std::time::Instant;

use cnda::kernel::{CopyKernels, ExprStencilKernels, StencilKernels};
use cnda::prelude::*;
use cnda::solve::{Cg, Multigrid, MultigridOptions, SolverBackend, StencilOperator};
use cnda::stencil::{Boundary, DynStencil, LinearStencil};

#[path = "common/device.rs"]
mod device;
#[path = "common/picture.rs"]
mod picture;

const DT: f32 = 1e-3;
const RTOL: f64 = 1e-6;

/// `I - dt Laplace` on `n x n` points of spacing `1 / (n + 1)`, zero outside.
fn operator(n: usize) -> StencilOperator<f32, 2> {
    let lap = LinearStencil::laplacian_5pt(1.0 / (n + 1) as f32);
    let taps = lap.taps().map(|(o, w)| (o, if o == [0, 0] { 1.0 - DT * w } else { -DT * w }));
    StencilOperator::new(DynStencil::new(taps), [n, n], [Boundary::Value(0.0); 2])
}

/// A hot disc off centre and a warm bar.
fn initial(n: usize) -> Array<f32, 2> {
    Array::from_fn([n, n], |[i, j]| {
        let (y, x) = ((i + 1) as f32 / (n + 1) as f32, (j + 1) as f32 / (n + 1) as f32);
        let disc = if (x - 0.35).powi(2) + (y - 0.4).powi(2) < 0.02 { 1.0 } else { 0.0 };
        let bar = if (0.6..0.9).contains(&x) && (0.7..0.75).contains(&y) { 0.5 } else { 0.0 };
        disc + bar
    })
}

/// `steps` implicit steps of `u` on its backend (the hierarchy's levels from `alloc`), printing
/// each solve's iterations.
fn run<B: SolverBackend + StencilKernels>(
    alloc: &impl cnda::kernel::Allocator<B>,
    u: &mut Array<f32, 2, B>,
    steps: usize,
) -> Result<(), Error> {
    let n = u.shape()[0];
    let a = operator(n);
    let multigrid = Multigrid::try_new_in(alloc, &a, MultigridOptions::default())?;
    println!("  multigrid levels {:?}", multigrid.level_shapes());
    let cg = Cg::new().rtol(RTOL).preconditioner(multigrid);
    let mut next = Array::try_zeros_in(alloc, [n, n])?;
    next.try_assign(&*u)?; // each solve starts from the last step's field
    for step in 1..=steps {
        let report = cg.try_solve(&a, u, &mut next)?;
        core::mem::swap(u, &mut next);
        println!("  step {step}: {} CG iterations, residual {:.2e}", report.iterations, report.residual_norm());
    }
    Ok(())
}

/// The run on a device: the field uploaded, stepped there, downloaded.
#[cfg_attr(not(any(feature = "cuda", feature = "wgpu")), allow(dead_code))] // run with a device feature only
struct OnGpu {
    n: usize,
    steps: usize,
}

impl device::OnDevice for OnGpu {
    type Out = Array<f32, 2>;

    fn on<D>(&self, dev: &D) -> Result<Self::Out, Error>
    where
        D: cnda::kernel::Upload + core::fmt::Debug,
        D::Target: ExprStencilKernels + CopyKernels + cnda::kernel::Download + SolverBackend + StencilKernels,
    {
        println!("on {dev:?}");
        let mut u = initial(self.n).try_to_device(dev)?;
        let alloc = u.allocator();
        run(&alloc, &mut u, self.steps)?;
        u.try_to_host()
    }
}

fn main() -> Result<ExitCode, Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (flags, positional): (Vec<String>, Vec<String>) = args.into_iter().partition(|a| a.starts_with("--"));
    let number = |k: usize, default: usize| {
        positional.get(k).map(|s| s.parse::<usize>()).transpose().map(|v| v.unwrap_or(default))
    };
    let (n, steps) = (number(0, 255)?, number(1, 20)?);
    let picture = positional.get(2).cloned();
    let check = flags.iter().any(|f| f == "--check");
    let devices: Vec<&String> = flags.iter().filter(|f| *f != "--check").collect();
    let coarsens = n >= 7 && (n + 1).is_power_of_two();
    if !coarsens || devices.len() > 1 || devices.iter().any(|f| *f != "--cuda" && *f != "--wgpu") {
        eprintln!("usage: implicit_heat [N = 2^k - 1 >= 7] [STEPS] [U.png] [--cuda | --wgpu] [--check]");
        return Ok(ExitCode::from(2));
    }
    println!("implicit heat, {n} x {n}, {steps} backward-Euler steps of dt = {DT}");
    let start = Instant::now();
    let u = match devices.first() {
        None => {
            let mut u = initial(n);
            run(&Cpu, &mut u, steps)?;
            u
        }
        Some(flag) => match device::on_device(flag, "implicit_heat", &format!("{n} {steps}"), &OnGpu { n, steps })? {
            Some(u) => u,
            None => return Ok(ExitCode::from(2)),
        },
    };
    println!("{steps} steps in {:.2} s; peak {:.4}", start.elapsed().as_secs_f64(), u.max().unwrap_or(0.0));
    if check {
        if devices.is_empty() {
            // The last step's residual, recomputed from its definition with plain indexing.
            let mut previous = initial(n);
            run(&Cpu, &mut previous, steps - 1)?;
            let (h2, dt) = (((n + 1) * (n + 1)) as f64, f64::from(DT));
            let inside = |i: isize, j: isize| (0..n as isize).contains(&i) && (0..n as isize).contains(&j);
            let at = |i: isize, j: isize| if inside(i, j) { f64::from(u[[i as usize, j as usize]]) } else { 0.0 };
            let residual = (0..n as isize)
                .flat_map(|i| (0..n as isize).map(move |j| (i, j)))
                .map(|(i, j)| {
                    let lap = (at(i - 1, j) + at(i + 1, j) + at(i, j - 1) + at(i, j + 1) - 4.0 * at(i, j)) * h2;
                    (at(i, j) - dt * lap - f64::from(previous[[i as usize, j as usize]])).powi(2)
                })
                .sum::<f64>()
                .sqrt();
            let norm = previous.iter().map(|&v| (v as f64).powi(2)).sum::<f64>().sqrt();
            if residual > 10.0 * RTOL * norm {
                eprintln!("check failed: the last step's relative residual is {:.2e}", residual / norm);
                return Ok(ExitCode::FAILURE);
            }
            println!("check: the last step's relative residual is {:.2e}", residual / norm);
        } else {
            let mut cpu = initial(n);
            run(&Cpu, &mut cpu, steps)?;
            let diff = u.iter().zip(cpu.iter()).fold(0f32, |m, (a, b)| m.max((a - b).abs()));
            let peak = cpu.max().unwrap_or(1.0);
            if diff > 1e-4 * peak {
                eprintln!("check failed: the device's field differs from the CPU's by {diff:.2e} (peak {peak})");
                return Ok(ExitCode::FAILURE);
            }
            println!("check: the device's field is the CPU's within {diff:.2e} (peak {peak:.4})");
        }
    }
    if let Some(path) = picture {
        let peak = u.max().unwrap_or(1.0).max(f32::MIN_POSITIVE);
        picture::write_png(&path, &u, |v| {
            let t = (v / peak).clamp(0.0, 1.0);
            [(255.0 * t.sqrt()) as u8, (255.0 * t * t) as u8, (255.0 * (1.0 - t) * 0.3) as u8]
        })?;
        println!("wrote {path}");
    }
    Ok(ExitCode::SUCCESS)
}
