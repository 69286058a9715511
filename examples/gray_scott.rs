//! Gray-Scott reaction-diffusion, a system of two fields: `u` is fed at rate `F`, `v` consumes it
//! (`u + 2v -> 3v`) and decays at rate `F + k`, both diffuse (`Du = 2 Dv`):
//!
//! ```text
//! u' = u + dt (Du lap(u) - u v^2 + F (1 - u))
//! v' = v + dt (Dv lap(v) + u v^2 - (F + k) v)
//! ```
//!
//! One `stencil!` computes both new fields in one pass over memory (a tuple of two values sharing
//! `u v^2`), and `apply_steps_with` advances a `State` of the two fields on a periodic grid:
//! fused on the CPU (many steps per pass over memory, on every core), one launch per step on a
//! CUDA GPU or a WebGPU adapter, from the same source. The picture is `v` after the last step.
//!
//! ```text
//! cargo run --release --example gray_scott                         # 256 x 256, 8000 steps, the CPU
//! cargo run --release --example gray_scott -- 128 2000 spots.png --check
//! cargo run --release --features cuda --example gray_scott -- 128 2000 --cuda --check
//! cargo run --release --features wgpu --example gray_scott -- 128 2000 --wgpu --check
//! ```
//!
//! `gray_scott [N] [STEPS] [V.png] [--cuda | --wgpu] [--check]`: `f32`. `--check` also runs on
//! the CPU and compares: CUDA bit for bit (no fused multiply-adds on either side), WebGPU over
//! its first 200 steps, run again, within 1e-4 (a driver may fuse multiply-adds, and a
//! pattern-forming system amplifies a last-bit difference over thousands of steps); on the CPU
//! alone it compares the fused threaded steps with one `apply` per step, bit for bit. Exit code 2
//! when the device cannot open.

use std::process::ExitCode;
use std::time::Instant;

use cnda::kernel::{CopyKernels, ExprStencilKernels};
use cnda::prelude::*;
use cnda::stencil::{Boundary, PadMode, State, StencilApply};

#[path = "common/device.rs"]
mod device;
#[path = "common/gray_scott.rs"]
mod gs;
#[path = "common/picture.rs"]
mod picture;

use gs::{initial, write_png, GrayScott, PARAMS};

/// Steps per call: a progress line each.
const CHUNK: usize = 500;

/// The steps `--check` compares on WebGPU (see `main`).
const WGPU_CHECK_STEPS: usize = 200;

/// `steps` steps of the state on its backend; `threaded` uses the CPU's threads (fused), and
/// `CHUNK` steps per call print progress.
fn run<B: ExprStencilKernels + CopyKernels>(
    state: &mut State<f32, 2, 2, 1, B>,
    steps: usize,
    step: impl Fn(&mut State<f32, 2, 2, 1, B>, usize) -> Result<(), Error>,
) -> Result<(), Error> {
    let start = Instant::now();
    let mut done = 0;
    while done < steps {
        let k = CHUNK.min(steps - done);
        step(state, k)?;
        done += k;
        let rate = done as f64 / start.elapsed().as_secs_f64();
        println!("  {done}/{steps} steps, {rate:.0} steps/s, {:.1} s left", (steps - done) as f64 / rate);
    }
    Ok(())
}

const PERIODIC: [Boundary<f32>; 2] = [Boundary::Periodic; 2];

/// `v` after `steps` steps on the CPU: fused on every core, or one `apply` per step.
fn on_cpu(n: usize, steps: usize, fused: bool) -> Result<[Array<f32, 2>; 2], Error> {
    let mut state = State::from_fields(initial(n));
    run(&mut state, steps, |s, k| {
        if fused {
            #[cfg(feature = "rayon")]
            return GrayScott.try_par_apply_steps_with(s, k, (), PARAMS, PERIODIC);
            #[cfg(not(feature = "rayon"))]
            return GrayScott.try_apply_steps_with(s, k, (), PARAMS, PERIODIC);
        }
        for _ in 0..k {
            // One step by hand: refill both fields' halos, one pass writing both scratch
            // arrays, rotate.
            for f in 0..2 {
                cnda::stencil::try_fill_halo(s.field_mut(f), [1, 1], [PadMode::Periodic; 2])?;
            }
            let (u, v) = (s.field(0).clone(), s.field(1).clone());
            let (mut u2, mut v2) = (s.scratch_mut(0).clone(), s.scratch_mut(1).clone());
            GrayScott.try_apply((&u, &v), (&mut u2, &mut v2), PARAMS)?;
            (*s.scratch_mut(0), *s.scratch_mut(1)) = (u2, v2);
            s.rotate();
        }
        Ok(())
    })?;
    Ok(state.into_fields())
}

/// The run of `n x n` points and `steps` steps on a device: the fields uploaded, stepped there,
/// downloaded at the end.
#[cfg_attr(not(any(feature = "cuda", feature = "wgpu")), allow(dead_code))] // run with a device feature only
struct OnGpu {
    n: usize,
    steps: usize,
}

impl device::OnDevice for OnGpu {
    type Out = [Array<f32, 2>; 2];

    fn on<D>(&self, dev: &D) -> Result<Self::Out, Error>
    where
        D: cnda::kernel::Upload + core::fmt::Debug,
        D::Target: ExprStencilKernels
            + CopyKernels
            + cnda::kernel::Download
            + cnda::solve::SolverBackend
            + cnda::kernel::StencilKernels,
    {
        println!("on {dev:?}");
        let [u, v] = initial(self.n);
        let mut state = State::from_fields([u.try_to_device(dev)?, v.try_to_device(dev)?]);
        run(&mut state, self.steps, |s, k| GrayScott.try_apply_steps_with(s, k, (), PARAMS, PERIODIC))?;
        let [u, v] = state.into_fields();
        Ok([u.try_to_host()?, v.try_to_host()?])
    }
}

fn main() -> Result<ExitCode, Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (flags, positional): (Vec<String>, Vec<String>) = args.into_iter().partition(|a| a.starts_with("--"));
    let number = |k: usize, default: usize| {
        positional.get(k).map(|s| s.parse::<usize>()).transpose().map(|v| v.unwrap_or(default))
    };
    let (n, steps) = (number(0, 256)?, number(1, 8000)?);
    let picture = positional.get(2).cloned();
    let check = flags.iter().any(|f| f == "--check");
    let devices: Vec<&String> = flags.iter().filter(|f| *f != "--check").collect();
    if n < 16 || devices.len() > 1 || devices.iter().any(|f| *f != "--cuda" && *f != "--wgpu") {
        eprintln!("usage: gray_scott [N >= 16] [STEPS] [V.png] [--cuda | --wgpu] [--check]");
        return Ok(ExitCode::from(2));
    }
    println!("Gray-Scott, {n} x {n} periodic, {steps} steps, F = {}, k = {}", PARAMS.2, PARAMS.3);
    let start = Instant::now();
    let [u, v] = match devices.first() {
        None => on_cpu(n, steps, true)?,
        Some(flag) => match device::on_device(flag, "gray_scott", "N STEPS", &OnGpu { n, steps })? {
            Some(run) => run,
            None => return Ok(ExitCode::from(2)),
        },
    };
    let seconds = start.elapsed().as_secs_f64();
    let points = (n * n * steps) as f64;
    println!(
        "{seconds:.3} s ({:.3} GPts/s of both fields, with the trips and kernel builds on a device)",
        points / seconds / 1e9
    );
    let inner = |a: &Array<f32, 2>| a.slice(s![1..n + 1, 1..n + 1]).to_owned();
    let (u, v) = (inner(&u), inner(&v));
    let (vmin, vmax) = v.iter().fold((f32::MAX, f32::MIN), |(lo, hi), &x| (lo.min(x), hi.max(x)));
    println!("v from {vmin:.4} to {vmax:.4}; u mean {:.4}", u.sum() / (n * n) as f32);
    assert!(vmax.is_finite() && vmax > vmin, "a pattern formed");
    if let Some(path) = picture {
        write_png(&path, &v)?;
    }
    if check {
        let wgpu = devices.first().is_some_and(|f| *f == "--wgpu");
        // A WebGPU driver may fuse a multiply and an add into one rounding (NVIDIA's Vulkan driver
        // does; lavapipe does not), and the growing pattern amplifies that last bit into the
        // pattern itself (0.23 apart after 4000 steps of 2048^2 on an H200): WebGPU is checked
        // over the first steps, run again.
        let (u, v, steps) = match wgpu {
            true => {
                let short = steps.min(WGPU_CHECK_STEPS);
                let [u, v] = device::on_device("--wgpu", "gray_scott", "N STEPS", &OnGpu { n, steps: short })?
                    .ok_or("the WebGPU adapter opened before")?;
                (inner(&u), inner(&v), short)
            }
            false => (u, v, steps),
        };
        // On the CPU alone the run above was fused and threaded; the reference is one step at a time.
        let [ru, rv] = on_cpu(n, steps, !devices.is_empty())?;
        let (ru, rv) = (inner(&ru), inner(&rv));
        let (what, exact) = match devices.first().map(|f| f.as_str()) {
            None => ("fused threaded steps against single steps", true),
            Some("--cuda") => ("CUDA against the CPU", true),
            _ => ("WebGPU against the CPU, the first steps", false),
        };
        let worst =
            u.iter().zip(ru.iter()).chain(v.iter().zip(rv.iter())).fold(0.0f32, |w, (a, b)| w.max((a - b).abs()));
        println!("check ({what}): largest difference {worst:.3e}");
        let same = if exact { u == ru && v == rv } else { worst <= 1e-4 };
        if !same {
            return Err(format!("{what}: the runs differ (largest difference {worst:e})").into());
        }
    }
    Ok(ExitCode::SUCCESS)
}
