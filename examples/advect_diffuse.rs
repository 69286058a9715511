//! A tracer carried along a channel and spread by a diffusivity that varies in space: the 2D
//! advection-diffusion equation `du/dt + v du/dy = div(k(x) grad u)` on the unit square, as
//! explicit finite-volume steps written once with `stencil!` and run on the CPU, a CUDA GPU or
//! a WebGPU adapter.
//!
//! Cells are `h = 1/n` wide. The diffusive flux through each face uses the face's diffusivity
//! (the mean of the two cells' `k`); the flow runs along axis 1 at a constant speed (Courant
//! number `C`, upwind flux). Axis 0 ends in zero-gradient walls (`Boundary::Neumann`: nothing
//! diffuses through them, and the flow runs parallel to them); axis 1 is periodic (what leaves
//! on one side comes back on the other). So the total tracer is conserved, up to rounding, and
//! the scheme is monotone (`4 D max k + C <= 1`): the maximum never grows. The field is the
//! `n x n` interior inside a halo as wide as the stencil's radius, which the boundaries refill
//! before every step; `k`'s halo is filled once, in the same modes.
//!
//! ```text
//! cargo run --release --example advect_diffuse -- 256 100              # the CPU, f64
//! cargo run --release --features cuda --example advect_diffuse -- 256 100 --cuda --check
//! cargo run --release --features wgpu --example advect_diffuse -- 256 100 --wgpu --check
//! ```
//!
//! `advect_diffuse [N] [STEPS] [--cuda | --wgpu] [--check]`: N x N cells (256), STEPS fused steps
//! (100). `--cuda` runs in f64 on CUDA device 0, `--wgpu` in f32 on the first WebGPU adapter
//! (WGSL has no f64); without the feature, or when no device opens, the run stops with exit code
//! 2. `--check` also runs on the CPU and compares: CUDA bit for bit, WebGPU against the CPU's f32
//! run within 1e-5 of the field's maximum. On the CPU alone, `--check` compares the fused steps
//! with one sweep at a time, halos refilled by `fill_boundaries` (bit for bit), and the threaded run.

use std::process::ExitCode;
use std::time::Instant;

use cnda::kernel::{CopyKernels, ExprStencilKernels};
use cnda::prelude::*;
use cnda::stencil::{fill_boundaries, Boundary, DoubleBuffer, Scalar};

stencil! {
    /// One step: `u += D (flux of k grad u through the four faces) - C (upwind flux along axis 1)`,
    /// with `D = dt / h^2` and `C = v dt / h`.
    pub struct AdvectDiffuse = |u, k; d: T, c: T| u[0, 0]
        + d * (0.5 * (k[0, 0] + k[1, 0]) * (u[1, 0] - u[0, 0]) - 0.5 * (k[-1, 0] + k[0, 0]) * (u[0, 0] - u[-1, 0])
            + 0.5 * (k[0, 0] + k[0, 1]) * (u[0, 1] - u[0, 0]) - 0.5 * (k[0, -1] + k[0, 0]) * (u[0, 0] - u[0, -1]))
        - (max(c, 0.0) * (u[0, 0] - u[0, -1]) + min(c, 0.0) * (u[0, 1] - u[0, 0]));
}

/// Diffusion number and Courant number: `4 D max k + |C| = 0.9 <= 1` keeps the steps monotone.
const D: f64 = 0.15;
const C: f64 = 0.3;
/// Walls across axis 0, periodic along axis 1 (in any element type: `Boundary<T>` names one)...
fn walls<T>() -> [Boundary<T>; 2] {
    [Boundary::Neumann, Boundary::Periodic]
}

/// The tracer and the diffusivity, on the host in f64, halos included.
type Problem = (Array<f64, 2>, Array<f64, 2>);

/// The halo widths: the stencil's radius per axis ([1, 1]).
fn radius() -> [usize; 2] {
    AdvectDiffuse::RADIUS
}

/// The initial tracer (a Gaussian blob; zero halo, which the first step fills) and the diffusivity
/// (0.1 to 1.0, halo filled), on `n x n` cells inside the halo.
fn setup(n: usize) -> Problem {
    let r = radius();
    let shape = [n + 2 * r[0], n + 2 * r[1]];
    let centre = |i: usize, axis: usize| (i as f64 - r[axis] as f64 + 0.5) / n as f64;
    let inside = |i: usize, axis: usize| (r[axis]..r[axis] + n).contains(&i);
    let tracer = Array::from_fn(shape, |[i, j]| {
        let (x, y) = (centre(i, 0) - 0.3, centre(j, 1) - 0.25);
        if inside(i, 0) && inside(j, 1) {
            (-(x * x + y * y) / 0.005).exp()
        } else {
            0.0
        }
    });
    let tau = 2.0 * std::f64::consts::PI;
    let mut k = Array::from_fn(shape, |[i, j]| 0.55 + 0.45 * (tau * centre(i, 0)).sin() * (tau * centre(j, 1)).cos());
    fill_boundaries(&mut k, r, walls());
    (tracer, k)
}

/// The total tracer (the interior's sum) and its largest value.
fn summary(u: &Array<f64, 2>) -> (f64, f64) {
    let ([r0, r1], [n0, n1]) = (radius(), u.shape());
    let cells = u.slice(s![r0..n0 - r0, r1..n1 - r1]);
    (cells.sum(), cells.max().unwrap_or(f64::NAN))
}

/// `steps` fused steps in `T` on backend `B` (`upload`, `download`: the trips there and back).
fn simulate<T, B>(
    (tracer, k): &Problem,
    steps: usize,
    upload: impl Fn(Array<T, 2>) -> Result<Array<T, 2, B>, Error>,
    download: impl Fn(&Array<T, 2, B>) -> Result<Array<T, 2>, Error>,
) -> Result<Array<f64, 2>, Error>
where
    T: Scalar + Into<f64>,
    B: ExprStencilKernels + CopyKernels,
{
    let u = tracer.map(T::from_f64);
    let k = upload(k.map(T::from_f64))?;
    let mut field = DoubleBuffer::try_new(upload(u)?)?;
    AdvectDiffuse.try_apply_steps_with(&mut field, steps, &k, (T::from_f64(D), T::from_f64(C)), walls())?;
    Ok(download(field.current())?.map(Into::into))
}

fn on_cpu<T: Scalar + Into<f64>>(problem: &Problem, steps: usize) -> Result<Array<f64, 2>, Error> {
    simulate::<T, Cpu>(problem, steps, Ok, Array::try_clone)
}

/// The CPU's checks: the fused steps against one sweep at a time (the hand-written loop this
/// example replaces: refill the halo, sweep, swap) and against the threaded run, bit for bit.
fn check_cpu(problem: &Problem, steps: usize, fused: &Array<f64, 2>) -> Result<(), String> {
    let (tracer, k) = problem;
    let mut field = DoubleBuffer::new(tracer.clone());
    for _ in 0..steps {
        fill_boundaries(field.current_mut(), radius(), walls());
        let (u, v) = field.split();
        AdvectDiffuse.apply((u, k), v, (D, C));
        field.swap();
    }
    fill_boundaries(field.current_mut(), radius(), walls());
    if field.current() != fused {
        return Err("the fused steps differ from one sweep at a time".into());
    }
    #[cfg(feature = "rayon")]
    {
        let mut threaded = DoubleBuffer::new(tracer.clone());
        AdvectDiffuse.par_apply_steps_with(&mut threaded, steps, k, (D, C), walls());
        if threaded.current() != fused {
            return Err("the threaded steps differ from the sequential ones".into());
        }
    }
    println!("check: fused steps = one sweep at a time = threaded steps, bit for bit");
    Ok(())
}

/// What a device computes in: f64 (CUDA), checked bit for bit against the CPU, or f32 (WebGPU),
/// checked within 1e-5 of the field's maximum (the driver may fuse a multiply and an add).
#[derive(Clone, Copy, PartialEq)]
enum Precision {
    F64,
    F32,
}

/// Runs on the device `flag` names; `None` (after saying why) when it cannot.
fn on_device(flag: &str, problem: &Problem, steps: usize) -> Result<Option<(Array<f64, 2>, Precision)>, Error> {
    let _ = (problem, steps); // unused without the device features
    match flag {
        #[cfg(feature = "cuda")]
        "--cuda" => {
            let Ok(dev) = CudaDevice::new(0).inspect_err(|e| eprintln!("no CUDA device: {e}")) else { return Ok(None) };
            println!("on {dev:?}, f64");
            let field = simulate::<f64, Cuda>(problem, steps, |a| a.try_to_device(&dev), Array::try_to_host)?;
            Ok(Some((field, Precision::F64)))
        }
        #[cfg(feature = "wgpu")]
        "--wgpu" => {
            let Ok(dev) = WgpuDevice::new().inspect_err(|e| eprintln!("no WebGPU adapter: {e}")) else {
                return Ok(None);
            };
            println!("on {dev:?}, f32 (WGSL has no f64)");
            let field = simulate::<f32, Wgpu>(problem, steps, |a| a.try_to_device(&dev), Array::try_to_host)?;
            Ok(Some((field, Precision::F32)))
        }
        _ => {
            let feature = flag.trim_start_matches("--");
            eprintln!("built without feature `{feature}`: cargo run --release --features {feature} --example advect_diffuse -- N STEPS {flag}");
            Ok(None)
        }
    }
}

fn main() -> Result<ExitCode, Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (flags, positional): (Vec<String>, Vec<String>) = args.into_iter().partition(|a| a.starts_with("--"));
    let n: usize = positional.first().map(|s| s.parse()).transpose()?.unwrap_or(256);
    let steps: usize = positional.get(1).map(|s| s.parse()).transpose()?.unwrap_or(100);
    let check = flags.iter().any(|f| f == "--check");
    let devices: Vec<&String> = flags.iter().filter(|f| *f != "--check").collect();
    if n == 0 || devices.len() > 1 || devices.iter().any(|f| *f != "--cuda" && *f != "--wgpu") {
        eprintln!("usage: advect_diffuse [N] [STEPS] [--cuda | --wgpu] [--check]");
        return Ok(ExitCode::from(2));
    }
    let problem = setup(n);
    let (mass0, max0) = summary(&problem.0);
    println!("{n} x {n} cells, {steps} steps, D = {D}, C = {C}; before: total {mass0:.12e}, max {max0:.6}");
    let start = Instant::now();
    let (field, precision) = match devices.first() {
        None => (on_cpu::<f64>(&problem, steps)?, Precision::F64),
        Some(flag) => match on_device(flag, &problem, steps)? {
            Some(run) => run,
            None => return Ok(ExitCode::from(2)),
        },
    };
    let seconds = start.elapsed().as_secs_f64(); // on a device: with the trips and kernel builds
    let (mass, max) = summary(&field);
    let drift = (mass - mass0).abs() / mass0;
    println!("after {seconds:.3} s: total {mass:.12e} (relative change {drift:.1e}), max {max:.6}");
    // f32 rounds the initial field and each step's total to about 1e-8, relative.
    let tolerance = if precision == Precision::F32 { 1e-5 } else { 1e-9 };
    assert!(drift <= tolerance, "the total tracer changed by {drift:e} (relative), more than {tolerance:e}");
    assert!(max <= max0 * (1.0 + tolerance), "the maximum grew from {max0} to {max}");
    if check && devices.is_empty() {
        check_cpu(&problem, steps, &field)?;
    } else if check {
        let (reference, allowed) = match precision {
            Precision::F64 => (on_cpu::<f64>(&problem, steps)?, 0.0),
            Precision::F32 => (on_cpu::<f32>(&problem, steps)?, 1e-5),
        };
        let worst = field.try_zip_with(&reference, |a, b| (a - b).abs())?.max().unwrap_or(f64::NAN);
        println!("check: largest difference from the CPU run {worst:.3e} (allowed {allowed:.0e} x max)");
        if precision == Precision::F64 && field != reference
            || worst.is_nan()
            || worst > allowed * summary(&reference).1
        {
            return Err(format!("the device field differs from the CPU's by {worst:e}").into());
        }
    }
    Ok(ExitCode::SUCCESS)
}
