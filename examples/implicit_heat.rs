//! The heat equation with a conductivity that varies, stepped implicitly (backward Euler), so a
//! step may be far longer than an explicit scheme's stability limit (`h^2 / 4 k_max`): each step
//! solves
//!
//! ```text
//! (I - dt div(k grad)) u(n+1) = u(n)        u = 0 outside the unit square
//! ```
//!
//! (as `(1/dt - div(k grad)) u(n+1) = u(n) / dt`, `VariableOperator::diffusion_in`) by CG
//! preconditioned with one V-cycle of a multigrid hierarchy built for the varying conductivity
//! (`Multigrid::for_variable`), once; each solve starts from the last step's field. The
//! conductivity: 1, a diagonal band conducting 50 times better, and an insulating ring (0.01).
//! The same code runs on the CPU, a CUDA GPU or a WebGPU adapter; the picture is the field after
//! the last step.
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
//! `--check` also steps on the CPU and compares the fields (in the 2-norm, within what two solves
//! to the tolerance may differ by: a device sums in another order, so its solves stop at other
//! iterates), and on the CPU alone checks the last step's residual, recomputed from the
//! conductivity with plain indexing (to the tolerance plus what f32 allows: its rounding of the
//! field times the operator's largest row sum). Exit code 2 when the device cannot open or the
//! arguments are wrong.

use std::process::ExitCode;
use std::time::Instant;

use cnda::kernel::{Backend, CopyKernels, Download, ExprStencilKernels, StencilKernels, Upload};
use cnda::prelude::*;
use cnda::solve::{Cg, Multigrid, MultigridOptions, SolverBackend, VariableOperator};
use cnda::stencil::Boundary;

#[path = "common/device.rs"]
mod device;
#[path = "common/picture.rs"]
mod picture;

const DT: f32 = 1e-3;
const RTOL: f64 = 1e-6;

/// The conductivity at point `(i, j)` of `n x n`: a conducting band along the diagonal, an
/// insulating ring around the disc's centre, 1 elsewhere.
fn conductivity(n: usize, i: usize, j: usize) -> f32 {
    let (y, x) = ((i + 1) as f32 / (n + 1) as f32, (j + 1) as f32 / (n + 1) as f32);
    let ring = ((x - 0.35).powi(2) + (y - 0.4).powi(2)).sqrt();
    if (0.2..0.23).contains(&ring) && x > 0.3 {
        0.01
    } else if (x - y).abs() < 0.05 {
        50.0
    } else {
        1.0
    }
}

/// `1/dt - div(k grad)` on `n x n` points of spacing `1 / (n + 1)`, zero outside, its fields
/// moved by `alloc`.
fn operator<D: Upload>(alloc: &D, n: usize) -> Result<VariableOperator<f32, 2, D::Target>, Error>
where
    D::Target: StencilKernels + SolverBackend,
{
    let k = Array::from_fn([n, n], |[i, j]| conductivity(n, i, j));
    let h = 1.0 / (n + 1) as f64;
    VariableOperator::try_diffusion_in(alloc, &k, [h; 2], 1.0 / f64::from(DT), [Boundary::Value(0.0); 2])
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

/// `steps` implicit steps of `u` on its backend (the operator's fields moved by `alloc`),
/// printing each solve's iterations.
fn run<D: Upload>(alloc: &D, u: &mut Array<f32, 2, D::Target>, steps: usize) -> Result<(), Error>
where
    D::Target: SolverBackend + StencilKernels + Download,
    <D::Target as Backend>::Alloc: Upload<Target = D::Target>,
{
    let n = u.shape()[0];
    let a = operator(alloc, n)?;
    let multigrid = Multigrid::try_for_variable(&a, MultigridOptions::default())?;
    println!("  multigrid levels {:?}", multigrid.level_shapes());
    let cg = Cg::new().rtol(RTOL).preconditioner(multigrid);
    let mut next = u.try_to_owned()?; // each solve starts from the last step's field
    for step in 1..=steps {
        let b = &*u * (1.0 / DT);
        let report = cg.try_solve(&a, &b, &mut next)?;
        u.try_assign(&next)?;
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
        D: Upload + core::fmt::Debug,
        D::Target: ExprStencilKernels + CopyKernels + Download + SolverBackend + StencilKernels,
        <D::Target as Backend>::Alloc: Upload<Target = D::Target>,
    {
        println!("on {dev:?}");
        let mut u = initial(self.n).try_to_device(dev)?;
        run(dev, &mut u, self.steps)?;
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
            let k = |i: isize, j: isize| f64::from(conductivity(n, i as usize, j as usize));
            // The flux's conductivity between a point and its neighbour: their harmonic mean, the
            // point's own towards the wall.
            let face = |i: isize, j: isize, p: isize, q: isize| {
                if inside(p, q) {
                    2.0 * k(i, j) * k(p, q) / (k(i, j) + k(p, q))
                } else {
                    k(i, j)
                }
            };
            let residual = (0..n as isize)
                .flat_map(|i| (0..n as isize).map(move |j| (i, j)))
                .map(|(i, j)| {
                    let div = [(i - 1, j), (i + 1, j), (i, j - 1), (i, j + 1)]
                        .iter()
                        .map(|&(p, q)| face(i, j, p, q) * (at(p, q) - at(i, j)))
                        .sum::<f64>()
                        * h2;
                    (at(i, j) - dt * div - f64::from(previous[[i as usize, j as usize]])).powi(2)
                })
                .sum::<f64>()
                .sqrt();
            let norm = previous.iter().map(|&v| (v as f64).powi(2)).sum::<f64>().sqrt();
            // What f32 allows: the field's rounding times the operator's largest row sum
            // (1 + dt 8 k_max / h^2 with the conducting band: thousands).
            let k_max = (0..n).flat_map(|i| (0..n).map(move |j| conductivity(n, i, j))).fold(0f32, f32::max);
            let row_sum = 1.0 + dt * 8.0 * f64::from(k_max) * h2;
            let field = u.iter().map(|&v| (v as f64).powi(2)).sum::<f64>().sqrt();
            let floor = f64::from(f32::EPSILON) * row_sum * field;
            if residual > 10.0 * RTOL * norm + floor {
                eprintln!(
                    "check failed: the last step's relative residual is {:.2e} (f32 allows {:.2e})",
                    residual / norm,
                    (10.0 * RTOL * norm + floor) / norm
                );
                return Ok(ExitCode::FAILURE);
            }
            println!(
                "check: the last step's relative residual is {:.2e} (f32 allows {:.2e})",
                residual / norm,
                (10.0 * RTOL * norm + floor) / norm
            );
        } else {
            let mut cpu = initial(n);
            run(&Cpu, &mut cpu, steps)?;
            // Each step's solve leaves an error of at most RTOL ‖u‖ in the 2-norm (its operator
            // I - dt div(k grad) has no eigenvalue below one, and ‖u‖ never grows), and the steps
            // after it do not amplify it: two runs whose solves stop at different iterates differ
            // by at most 2 RTOL ‖u0‖ a step; ten times that for the gap between the solver's
            // recurred residual and the true one in f32, as in the CPU's check.
            let norm = |v: &mut dyn Iterator<Item = f32>| v.map(|x| f64::from(x).powi(2)).sum::<f64>().sqrt();
            let diff = norm(&mut u.iter().zip(cpu.iter()).map(|(a, b)| a - b));
            let bound = 20.0 * steps as f64 * RTOL * norm(&mut initial(n).iter().copied());
            if diff > bound {
                eprintln!("check failed: the device's field differs from the CPU's by {diff:.2e} in the 2-norm (bound {bound:.2e})");
                return Ok(ExitCode::FAILURE);
            }
            println!("check: the device's field is the CPU's within {diff:.2e} in the 2-norm (bound {bound:.2e})");
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
