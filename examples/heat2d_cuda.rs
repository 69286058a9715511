//! heat2d on a GPU: the same plate, nested iteration and picture as `heat2d`, with the sweeps as
//! the constant-coefficient Jacobi stencil (`LinearStencil::jacobi_5pt`) and the convergence
//! check as array ops, written once over the backend and run on CUDA device 0 (falling back to
//! the CPU, with a message, where no GPU opens).
//!
//! `cargo run --release --features cuda --example heat2d_cuda [-- N TOLERANCE OUTPUT.png]`

use std::time::Instant;

use cnda::ops::elementwise::ElementwiseKernels;
use cnda::ops::fill_copy::CopyKernels;
use cnda::ops::reduce::ReduceKernels;
use cnda::prelude::*;
use cnda::stencil::{LinearStencil, StencilKernels};

#[path = "common/heat.rs"]
#[allow(dead_code)] // the closure kernel `jacobi` of the CPU examples is not used here
mod heat;
use heat::{plate, refine, write_png, CHECK_EVERY, COARSEST, HOT, MAX_SWEEPS};

/// A backend the solver runs on: where its arrays come from and how they reach the host.
trait Place {
    type B: StencilKernels + ElementwiseKernels + ReduceKernels + CopyKernels;
    fn upload(&self, a: &Array<f64, 2>) -> Result<Array<f64, 2, Self::B>, Error>;
    fn download(&self, a: &Array<f64, 2, Self::B>) -> Result<Array<f64, 2>, Error>;
}

struct Host;

impl Place for Host {
    type B = Cpu;
    fn upload(&self, a: &Array<f64, 2>) -> Result<Array<f64, 2>, Error> {
        a.try_clone()
    }
    fn download(&self, a: &Array<f64, 2>) -> Result<Array<f64, 2>, Error> {
        a.try_clone()
    }
}

struct Gpu(CudaDevice);

impl Place for Gpu {
    type B = Cuda;
    fn upload(&self, a: &Array<f64, 2>) -> Result<Array<f64, 2, Cuda>, Error> {
        a.try_to_device(&self.0)
    }
    fn download(&self, a: &Array<f64, 2, Cuda>) -> Result<Array<f64, 2>, Error> {
        a.try_to_host()
    }
}

/// Jacobi sweeps from `initial` until one changes no point by more than `tolerance`, on the
/// place's backend; returns the field on the host and the sweep count.
fn solve<P: Place>(place: &P, initial: &Array<f64, 2>, tolerance: f64) -> Result<(Array<f64, 2>, usize), Error> {
    let jacobi = LinearStencil::jacobi_5pt();
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
        let change = u.try_sub(&v)?.abs().max().unwrap_or(0.0);
        if change <= tolerance {
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

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let n: usize = args.first().map(|s| s.parse()).transpose()?.unwrap_or(512);
    let tolerance: f64 = args.get(1).map(|s| s.parse()).transpose()?.unwrap_or(1e-6);
    let output = args.get(2).cloned().unwrap_or_else(|| "heat2d_cuda.png".into());
    let start = Instant::now();
    let field = match CudaDevice::new(0) {
        Ok(dev) => {
            println!("heat2d on {dev:?}, {n} x {n}, tolerance {tolerance:e}:");
            run(&Gpu(dev), n, tolerance)?
        }
        Err(e) => {
            println!("no GPU ({e}); running on the CPU instead");
            println!("heat2d on the CPU, {n} x {n}, tolerance {tolerance:e}:");
            run(&Host, n, tolerance)?
        }
    };
    let centre = field[[n / 2, n / 2]];
    println!("{:.2} s in all; centre {centre:.4} (exact steady state {:.1})", start.elapsed().as_secs_f64(), HOT / 4.0);
    write_png(&output, &field)?;
    println!("wrote {output}");
    Ok(())
}
