//! Device backends against their own copy bandwidth, in one run: a device-to-device copy (the
//! baseline), elementwise add with a broadcast row, `contiguous()` of a transposed matrix, `sum`,
//! and one 2D 5-point Jacobi sweep, on an n x n f32 grid (bytes read + written per second, and
//! each op as a fraction of the copy's bandwidth). Runs on every device that opens: CUDA device 0
//! (feature `cuda`), the first WebGPU adapter (feature `wgpu`), and the CPU for reference. On
//! CUDA also `to_device` and `to_host` of the grid, against a raw copy from pinned memory.
//!
//! `cargo bench --features cuda,wgpu --bench devices -- [N] [REPEATS]` (N = 4096 by default:
//! lavapipe binds at most 128 MiB; use 8192 on a GPU).

use std::time::Instant;

use cnda::ops::elementwise::ElementwiseKernels;
use cnda::ops::fill_copy::CopyKernels;
use cnda::ops::reduce::ReduceKernels;
use cnda::prelude::*;
use cnda::stencil::{LinearStencil, StencilKernels};

/// A device the bench runs on.
trait Bench {
    type B: ElementwiseKernels + CopyKernels + ReduceKernels + StencilKernels;
    fn name(&self) -> String;
    fn upload(&self, a: &Array<f32, 2>) -> Array<f32, 2, Self::B>;
    fn upload_row(&self, a: &Array<f32, 1>) -> Array<f32, 1, Self::B>;
    fn sync(&self);
    /// The host-device transfers: `to_device` and `to_host` of `a`, each against the raw
    /// bandwidth of pinned memory where the backend has such a baseline (median seconds:
    /// upload, download, and the baseline's).
    fn transfers(&self, _a: &Array<f32, 2>, _repeats: usize) -> Option<[(&'static str, f64, Option<f64>); 2]> {
        None
    }
}

struct Host;

impl Bench for Host {
    type B = Cpu;
    fn name(&self) -> String {
        "Cpu".into()
    }
    fn upload(&self, a: &Array<f32, 2>) -> Array<f32, 2> {
        a.clone()
    }
    fn upload_row(&self, a: &Array<f32, 1>) -> Array<f32, 1> {
        a.clone()
    }
    fn sync(&self) {}
}

#[cfg(feature = "cuda")]
impl Bench for CudaDevice {
    type B = Cuda;
    fn name(&self) -> String {
        format!("{self:?}")
    }
    fn upload(&self, a: &Array<f32, 2>) -> Array<f32, 2, Cuda> {
        a.to_device(self)
    }
    fn upload_row(&self, a: &Array<f32, 1>) -> Array<f32, 1, Cuda> {
        a.to_device(self)
    }
    fn sync(&self) {
        self.synchronize().expect("the device works");
    }
    fn transfers(&self, a: &Array<f32, 2>, repeats: usize) -> Option<[(&'static str, f64, Option<f64>); 2]> {
        let d = a.to_device(self);
        let up = median(self, repeats, || drop(a.to_device(self)));
        let down = median(self, repeats, || drop(d.to_host()));
        // The baseline: the same bytes between cudarc's own pinned host memory and the device.
        let ctx = cudarc::driver::CudaContext::new(self.ordinal()).expect("the device opened");
        let stream = ctx.default_stream();
        // SAFETY: pinned bytes, written below before any read.
        let mut pinned = unsafe { ctx.alloc_pinned_with_flags::<u8>(a.len() * 4, 0) }.expect("pinned memory");
        let mut dev = stream.alloc_zeros::<u8>(a.len() * 4).expect("device memory");
        let pinned_up = median(self, repeats, || {
            stream.memcpy_htod(&pinned, &mut dev).unwrap();
            stream.synchronize().unwrap();
        });
        let pinned_down = median(self, repeats, || {
            stream.memcpy_dtoh(&dev, &mut pinned).unwrap();
            stream.synchronize().unwrap();
        });
        Some([
            ("to_device (host to device)", up, Some(pinned_up)),
            ("to_host (device to host)", down, Some(pinned_down)),
        ])
    }
}

#[cfg(feature = "wgpu")]
impl Bench for WgpuDevice {
    type B = Wgpu;
    fn name(&self) -> String {
        format!("{self:?}")
    }
    fn upload(&self, a: &Array<f32, 2>) -> Array<f32, 2, Wgpu> {
        a.to_device(self)
    }
    fn upload_row(&self, a: &Array<f32, 1>) -> Array<f32, 1, Wgpu> {
        a.to_device(self)
    }
    fn sync(&self) {
        self.synchronize().expect("the device works");
    }
    fn transfers(&self, a: &Array<f32, 2>, repeats: usize) -> Option<[(&'static str, f64, Option<f64>); 2]> {
        let d = a.to_device(self);
        let up = median(self, repeats, || drop(a.to_device(self)));
        let down = median(self, repeats, || drop(d.to_host()));
        Some([("to_device (host to device)", up, None), ("to_host (device to host)", down, None)])
    }
}

/// The median seconds of `repeats` runs of `f` (each followed by a device synchronization),
/// after one warm-up run (which also builds the kernels).
fn median(dev: &impl Bench, repeats: usize, mut f: impl FnMut()) -> f64 {
    f();
    dev.sync();
    let mut times: Vec<f64> = (0..repeats)
        .map(|_| {
            let t = Instant::now();
            f();
            dev.sync();
            t.elapsed().as_secs_f64()
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

fn run(dev: &impl Bench, n: usize, repeats: usize) {
    let host = Array::from_fn([n, n], |[i, j]| ((i * 31 + j * 17) % 101) as f32 * 0.01);
    let a = dev.upload(&host);
    let row = dev.upload_row(&Array::from_fn([n], |[j]| j as f32));
    let mut v = dev.upload(&host);
    let jacobi = LinearStencil::<f32, 2, 1, 4>::jacobi_5pt();
    let bytes = (n * n * 4) as f64;
    let copy = median(dev, repeats, || drop(a.to_owned()));
    let cases: [(&str, f64, f64); 5] = [
        ("add, same shape (contiguous)", 3.0 * bytes, median(dev, repeats, || drop(&a + &v))),
        ("add, broadcast row", 2.0 * bytes, median(dev, repeats, || drop(&a + &row))),
        ("contiguous() of the transpose", 2.0 * bytes, median(dev, repeats, || drop(a.t().to_owned()))),
        (
            "sum",
            bytes,
            median(dev, repeats, || {
                std::hint::black_box(a.sum());
            }),
        ),
        ("5-point Jacobi sweep", 2.0 * bytes, median(dev, repeats, || jacobi.apply(&a, &mut v))),
    ];
    let copy_rate = 2.0 * bytes / copy;
    println!("{}: {n} x {n} f32, median of {repeats}", dev.name());
    println!("  {:<32} {:>9.3} ms  {:>8.1} GB/s  (baseline)", "copy (device to device)", copy * 1e3, copy_rate / 1e9);
    for (what, moved, t) in cases {
        let rate = moved / t;
        println!("  {what:<32} {:>9.3} ms  {:>8.1} GB/s  {:>5.2} of copy", t * 1e3, rate / 1e9, rate / copy_rate);
    }
    for (what, t, pinned) in dev.transfers(&host, repeats).into_iter().flatten() {
        let rate = bytes / t;
        print!("  {what:<32} {:>9.3} ms  {:>8.1} GB/s", t * 1e3, rate / 1e9);
        match pinned {
            Some(p) => println!("  {:>5.2} of pinned memcpy ({:.1} GB/s)", p / t, bytes / p / 1e9),
            None => println!(),
        }
    }
}

fn main() {
    let args: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let n = args.first().copied().unwrap_or(4096);
    let repeats = args.get(1).copied().unwrap_or(11);
    #[cfg(feature = "cuda")]
    match CudaDevice::new(0) {
        Ok(dev) => run(&dev, n, repeats),
        Err(e) => println!("CUDA: SKIP ({e})"),
    }
    #[cfg(feature = "wgpu")]
    match WgpuDevice::new() {
        Ok(dev) => run(&dev, n, repeats),
        Err(e) => println!("WebGPU: SKIP ({e})"),
    }
    run(&Host, n, repeats);
}
