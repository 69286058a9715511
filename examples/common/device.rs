//! The examples' `--cuda` and `--wgpu` flags: open the device a flag names and run the example's
//! job there, or say why not (no device, or a build without the feature).

// Without a device feature no job runs: the trait's method and the jobs' fields go unused.
#![cfg_attr(not(any(feature = "cuda", feature = "wgpu")), allow(dead_code))]

use cnda::kernel::{CopyKernels, Download, ExprStencilKernels, Upload};
use cnda::prelude::*;

/// An example's run on a device it is handed: arrays uploaded with `try_to_device(dev)`, stepped
/// there, downloaded.
pub trait OnDevice {
    /// What the run gives back, on the host.
    type Out;

    /// The run on `dev`.
    ///
    /// # Errors
    ///
    /// The device's and the steppers' errors.
    fn on<D>(&self, dev: &D) -> Result<Self::Out, Error>
    where
        D: Upload + core::fmt::Debug,
        D::Target:
            ExprStencilKernels + CopyKernels + Download + cnda::solve::SolverBackend + cnda::kernel::StencilKernels,
        <D::Target as cnda::kernel::Backend>::Alloc: Upload<Target = D::Target>;
}

/// `job` on the device `flag` names (`--cuda`: CUDA device 0, `--wgpu`: the WebGPU adapter);
/// `None`, after saying why, when it cannot open or the example was built without its feature
/// (`example` and `args` complete the command that says how to build it).
///
/// # Errors
///
/// The job's.
pub fn on_device<J: OnDevice>(flag: &str, example: &str, args: &str, job: &J) -> Result<Option<J::Out>, Error> {
    let _ = job; // unused without the device features
    match flag {
        #[cfg(feature = "cuda")]
        "--cuda" => match cnda::backend::cuda::CudaDevice::new(0) {
            Ok(dev) => job.on(&dev).map(Some),
            Err(e) => {
                eprintln!("no CUDA device: {e}");
                Ok(None)
            }
        },
        #[cfg(feature = "wgpu")]
        "--wgpu" => match cnda::backend::wgpu::WgpuDevice::new() {
            Ok(dev) => job.on(&dev).map(Some),
            Err(e) => {
                eprintln!("no WebGPU adapter: {e}");
                Ok(None)
            }
        },
        _ => {
            let feature = flag.trim_start_matches("--");
            eprintln!("built without feature `{feature}`: cargo run --release --features {feature} --example {example} -- {args} {flag}");
            Ok(None)
        }
    }
}
