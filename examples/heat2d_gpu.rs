//! heat2d on a GPU: the same plate, nested iteration and picture as `heat2d`, with the sweeps as
//! the constant-coefficient Jacobi stencil (`LinearStencil::jacobi_5pt`) and the convergence
//! check as array ops, written once over the backend and run on CUDA device 0 (feature `cuda`,
//! f64) or the first WebGPU adapter (feature `wgpu`, f64 where the adapter has `SHADER_F64`,
//! f32 elsewhere), falling back to the CPU with a message where none opens.
//!
//! `cargo run --release --features cuda,wgpu --example heat2d_gpu [-- N TOLERANCE OUTPUT.png]
//! [--cuda | --wgpu] [--check]`: `--check` solves on the CPU too and compares the fields (within
//! the element type's precision).

use std::time::Instant;

use cnda::kernel::CopyKernels;
use cnda::kernel::ElementwiseKernels;
use cnda::kernel::{ReduceKernels, StencilKernels};
use cnda::prelude::*;
use cnda::stencil::LinearStencil;

#[path = "common/heat.rs"]
#[allow(dead_code)] // the closure kernel `jacobi` of the CPU examples is not used here
mod heat;
#[path = "common/picture.rs"]
mod picture;
use heat::{plate, refine, write_png, CHECK_EVERY, COARSEST, HOT, MAX_SWEEPS};

/// Where the solver runs: the backend and element type, and the trips to and from the host.
trait Place {
    type T: Float;
    type B: StencilKernels + ElementwiseKernels + ReduceKernels + CopyKernels;
    fn upload(&self, a: &Array<f64, 2>) -> Result<Array<Self::T, 2, Self::B>, Error>;
    fn download(&self, a: &Array<Self::T, 2, Self::B>) -> Result<Array<f64, 2>, Error>;
    fn tolerance(&self, requested: f64) -> f64 {
        requested
    }
}

struct Host;

impl Place for Host {
    type T = f64;
    type B = Cpu;
    fn upload(&self, a: &Array<f64, 2>) -> Result<Array<f64, 2>, Error> {
        a.try_clone()
    }
    fn download(&self, a: &Array<f64, 2>) -> Result<Array<f64, 2>, Error> {
        a.try_clone()
    }
}

#[cfg(feature = "cuda")]
struct CudaPlace(CudaDevice);

#[cfg(feature = "cuda")]
impl Place for CudaPlace {
    type T = f64;
    type B = Cuda;
    fn upload(&self, a: &Array<f64, 2>) -> Result<Array<f64, 2, Cuda>, Error> {
        a.try_to_device(&self.0)
    }
    fn download(&self, a: &Array<f64, 2, Cuda>) -> Result<Array<f64, 2>, Error> {
        a.try_to_host()
    }
}

/// A WebGPU adapter, computing in `T`: f64 where the adapter has `SHADER_F64` (lavapipe and
/// NVIDIA's Vulkan driver do), f32 elsewhere.
#[cfg(feature = "wgpu")]
struct WgpuPlace<T>(WgpuDevice, core::marker::PhantomData<T>);

#[cfg(feature = "wgpu")]
impl Place for WgpuPlace<f64> {
    type T = f64;
    type B = Wgpu;
    fn upload(&self, a: &Array<f64, 2>) -> Result<Array<f64, 2, Wgpu>, Error> {
        a.try_to_device(&self.0)
    }
    fn download(&self, a: &Array<f64, 2, Wgpu>) -> Result<Array<f64, 2>, Error> {
        a.try_to_host()
    }
}

#[cfg(feature = "wgpu")]
impl Place for WgpuPlace<f32> {
    type T = f32;
    type B = Wgpu;
    fn upload(&self, a: &Array<f64, 2>) -> Result<Array<f32, 2, Wgpu>, Error> {
        a.map(|x| x as f32).try_to_device(&self.0)
    }
    fn download(&self, a: &Array<f32, 2, Wgpu>) -> Result<Array<f64, 2>, Error> {
        Ok(a.try_to_host()?.map(|x| x as f64))
    }
    /// A sweep's change below f32's resolution of the field is not measurable.
    fn tolerance(&self, requested: f64) -> f64 {
        requested.max(HOT * f32::EPSILON as f64 * 4.0)
    }
}

/// Jacobi sweeps from `initial` until one changes no point by more than `tolerance`; returns the
/// field on the host and the sweep count.
fn solve<P: Place>(place: &P, initial: &Array<f64, 2>, tolerance: f64) -> Result<(Array<f64, 2>, usize), Error> {
    let jacobi = LinearStencil::<P::T, 2, 1, 4>::jacobi_5pt();
    let tolerance = P::T::from_f64(place.tolerance(tolerance));
    let mut u = place.upload(initial)?;
    let mut v = place.upload(initial)?; // the boundary lives in both buffers
    let mut sweeps = 0;
    while sweeps < MAX_SWEEPS {
        for _ in 0..CHECK_EVERY {
            jacobi.try_apply(&u, &mut v)?;
            core::mem::swap(&mut u, &mut v);
        }
        sweeps += CHECK_EVERY;
        // `v` holds the sweep before `u`'s: their largest difference is the last sweep's change.
        let change = u.try_sub(&v)?.abs().max();
        if change.is_some_and(|c| c <= tolerance) || change.is_none() {
            break;
        }
    }
    Ok((place.download(&u)?, sweeps))
}

/// The nested iteration of heat2d on one place.
fn run<P: Place>(place: &P, n: usize, tolerance: f64) -> Result<Array<f64, 2>, Error> {
    let mut size = COARSEST.min(n);
    let mut field = plate(size)?;
    loop {
        let start = Instant::now();
        let (solved, sweeps) = solve(place, &field, tolerance)?;
        println!("  {size:>5} x {size:<5} {sweeps:>6} sweeps  {:.3} s", start.elapsed().as_secs_f64());
        if size == n {
            return Ok(solved);
        }
        size = (size * 2).min(n);
        field = refine(&solved, size)?;
    }
}

/// The device the flags ask for (or the first that opens), solved on; `None` when none opens.
fn on_a_device(n: usize, tolerance: f64, want: &[String]) -> Result<Option<(Array<f64, 2>, f64)>, Error> {
    let any = !want.iter().any(|f| f == "--cuda" || f == "--wgpu");
    #[cfg(feature = "cuda")]
    if any || want.iter().any(|f| f == "--cuda") {
        match CudaDevice::new(0) {
            Ok(dev) => {
                println!("heat2d on {dev:?} (f64), {n} x {n}, tolerance {tolerance:e}:");
                // f64 with the CPU's tap order and rounding: the same sweeps, up to summation
                // order in the convergence check.
                return Ok(Some((run(&CudaPlace(dev), n, tolerance)?, 1e-9)));
            }
            // Where a device is required (CI's CPU-hosted CUDA device), its absence fails.
            Err(e) if std::env::var_os("CNDA_REQUIRE_CUDA").is_some() => return Err(e),
            Err(e) => println!("no CUDA device ({e})"),
        }
    }
    #[cfg(feature = "wgpu")]
    if any || want.iter().any(|f| f == "--wgpu") {
        match WgpuDevice::new() {
            Ok(dev) if dev.supports::<f64>() => {
                println!("heat2d on {dev:?} (f64), {n} x {n}, tolerance {tolerance:e}:");
                // f64, the CPU's tap order; the driver may fuse a multiply and an add, so the
                // sweeps agree to rounding, and the convergence test may stop one sweep apart:
                // a few tolerances.
                return Ok(Some((run(&WgpuPlace::<f64>(dev, Default::default()), n, tolerance)?, 10.0 * tolerance)));
            }
            Ok(dev) => {
                println!("heat2d on {dev:?} (f32), {n} x {n}, tolerance {tolerance:e}:");
                // f32, and a convergence test at f32's resolution: a tenth of a degree (of 100).
                return Ok(Some((run(&WgpuPlace::<f32>(dev, Default::default()), n, tolerance)?, 0.1)));
            }
            Err(e) => println!("no WebGPU adapter ({e})"),
        }
    }
    let _ = (n, tolerance, any);
    Ok(None)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (flags, positional): (Vec<String>, Vec<String>) = args.into_iter().partition(|a| a.starts_with("--"));
    let n: usize = positional.first().map(|s| s.parse()).transpose()?.unwrap_or(512);
    let tolerance: f64 = positional.get(1).map(|s| s.parse()).transpose()?.unwrap_or(1e-6);
    let output = positional.get(2).cloned().unwrap_or_else(|| "heat2d_gpu.png".into());
    let start = Instant::now();
    let (field, agreement) = match on_a_device(n, tolerance, &flags)? {
        Some(solved) => solved,
        None => {
            println!("no GPU; running on the CPU instead, {n} x {n}, tolerance {tolerance:e}:");
            (run(&Host, n, tolerance)?, 0.0)
        }
    };
    let centre = field[[n / 2, n / 2]];
    println!("{:.2} s in all; centre {centre:.4} (exact steady state {:.1})", start.elapsed().as_secs_f64(), HOT / 4.0);
    write_png(&output, &field)?;
    println!("wrote {output}");
    if flags.iter().any(|f| f == "--check") {
        let reference = run(&Host, n, tolerance)?;
        let worst = field.try_zip_with(&reference, |a, b| (a - b).abs())?.max().unwrap_or(0.0);
        println!("largest difference from the CPU run: {worst:.3e} degrees (allowed {agreement:.0e})");
        if worst > agreement {
            return Err(format!("the device field differs from the CPU's by {worst:e}").into());
        }
    }
    Ok(())
}
