//! Device backends against their own copy bandwidth, in one run: a device-to-device copy into a
//! new array (the baseline; `to_owned`, which allocates), a copy into an existing one (`assign`:
//! the kernel without the allocation), elementwise add (same shape, and with a broadcast row), `contiguous()` of a
//! transposed matrix, `sum`, one 2D 5-point and one 3D 7-point Jacobi sweep, in f32 and f64, on
//! an n x n grid (the 3D cube has about as many points): bytes read + written per second, and each
//! op as a fraction of the copy's bandwidth. Then `matmul` of m x m matrices (TFLOP/s), the
//! host-device transfers of the grid (on CUDA against a raw copy from pinned memory), and the
//! start-up: opening the device and its first op, and Devito's benchmark problem (the 3D acoustic
//! SO-8 step, one launch a step, in grid points updated per second). Runs on every device that opens: CUDA device 0
//! (feature `cuda`), the first WebGPU adapter (feature `wgpu`; f64 where it has `SHADER_F64`),
//! and the CPU for reference. `benches/cupy_devices.py` prints CuPy's figures for the same cases.
//!
//! `cargo bench --features cuda,wgpu,fft,text --bench devices -- [N] [REPEATS] [M]` (N = 4096 and M = 1024
//! by default: lavapipe binds at most 128 MiB; use 8192 and 4096 on a GPU). `ACOUSTIC="200 400"`
//! sets the acoustic cases' sizes (200 by default), `CNDA_BENCH_HOST=0` leaves out the CPU run,
//! `CNDA_BENCH_ONLY=acoustic` every case but the acoustic one (to compare settings such as
//! `CNDA_CUDA_PLANES`, whose value the acoustic line prints), `CNDA_BENCH_ONLY=solve` every case
//! but the linear solvers' (`devices/solve.rs`: CG, multigrid, CSR products). With feature `fft`,
//! the transforms of `devices/fft.rs` against raw cuFFT (`CNDA_BENCH_ONLY=fft` those alone; `FFT2`,
//! `FFT3` set their sizes); with
//! feature `text`, the heat step read from text (`TextStencil`) beside the same `stencil!`
//! (`CNDA_BENCH_ONLY=steps`: the time-step cases alone).

use std::time::Instant;

use cnda::kernel::CopyKernels;
use cnda::kernel::Download;
use cnda::kernel::ElementwiseKernels;
use cnda::kernel::ExprStencilKernels;
use cnda::kernel::MatmulKernels;
use cnda::kernel::ReduceKernels;
use cnda::kernel::StencilKernels;
use cnda::prelude::*;
use cnda::stencil::{Boundary, DoubleBuffer, LinearStencil, StencilApply};
use cnda::{Element, GemmElement};

#[cfg(feature = "fft")]
#[path = "devices/fft.rs"]
mod fft;
#[path = "devices/solve.rs"]
mod solve;

stencil! {
    /// Devito's benchmark problem (as `benches/acoustic.rs`): one leapfrog step of the 3D
    /// acoustic wave equation with the 25-point `laplace(u, 8)`.
    struct Acoustic = |u, um, m; c: f32| 2.0 * u[0, 0, 0] - um[0, 0, 0] + c / m[0, 0, 0] * laplace(u, 8);
}

/// A device the bench runs on.
trait Bench {
    type B: ElementwiseKernels
        + Download
        + CopyKernels
        + ReduceKernels
        + StencilKernels
        + ExprStencilKernels
        + MatmulKernels;
    fn name(&self) -> String;
    fn upload<T: Float, const N: usize>(&self, a: &Array<T, N>) -> Array<T, N, Self::B>;
    fn sync(&self);
    /// Whether the device computes in `T`.
    fn supports<T: Element>(&self) -> bool {
        true
    }
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
    fn upload<T: Float, const N: usize>(&self, a: &Array<T, N>) -> Array<T, N> {
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
    fn upload<T: Float, const N: usize>(&self, a: &Array<T, N>) -> Array<T, N, Cuda> {
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
    fn upload<T: Float, const N: usize>(&self, a: &Array<T, N>) -> Array<T, N, Wgpu> {
        a.to_device(self)
    }
    fn sync(&self) {
        self.synchronize().expect("the device works");
    }
    fn supports<T: Element>(&self) -> bool {
        WgpuDevice::supports::<T>(self)
    }
    fn transfers(&self, a: &Array<f32, 2>, repeats: usize) -> Option<[(&'static str, f64, Option<f64>); 2]> {
        let d = a.to_device(self);
        let up = median(self, repeats, || drop(a.to_device(self)));
        let down = median(self, repeats, || drop(d.to_host()));
        Some([("to_device (host to device)", up, None), ("to_host (device to host)", down, None)])
    }
}

/// The sizes a variable lists (`default` where it is unset).
fn sizes(var: &str, default: &str) -> Vec<usize> {
    std::env::var(var).unwrap_or_else(|_| default.into()).split_whitespace().filter_map(|s| s.parse().ok()).collect()
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

/// The bandwidth cases in element type `T` on an n x n grid.
fn bandwidth<T: Float>(dev: &impl Bench, n: usize, repeats: usize) {
    if !dev.supports::<T>() {
        println!("{}: no {} shaders on this device", dev.name(), core::any::type_name::<T>());
        return;
    }
    let size = core::mem::size_of::<T>() as f64;
    let host = Array::from_fn([n, n], |[i, j]| T::from_f64(((i * 31 + j * 17) % 101) as f64 * 0.01));
    let a = dev.upload(&host);
    let row = dev.upload(&Array::from_fn([n], |[j]| T::from_f64(j as f64)));
    let mut v = dev.upload(&host);
    let jacobi = LinearStencil::<T, 2, 1, 4>::jacobi_5pt();
    // A cube with about as many points as the grid.
    let m = ((n * n) as f64).cbrt().round() as usize;
    let cube = dev.upload(&Array::from_fn([m, m, m], |[i, j, k]| T::from_f64(((i + 3 * j + 7 * k) % 13) as f64)));
    let mut cube_out = dev.upload(&Array::<T, 3>::zeros([m, m, m]));
    let jacobi_3d = LinearStencil::<T, 3, 1, 6>::jacobi_7pt();
    let bytes = (n * n) as f64 * size;
    let copy = median(dev, repeats, || drop(a.to_owned()));
    let cases: [(&str, f64, f64); 8] = [
        ("copy into an existing array", 2.0 * bytes, median(dev, repeats, || v.assign(&a))),
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
        ("2D 5-point Jacobi sweep", 2.0 * bytes, median(dev, repeats, || jacobi.apply(&a, &mut v))),
        (
            "3D 7-point Jacobi sweep",
            2.0 * (m * m * m) as f64 * size,
            median(dev, repeats, || jacobi_3d.apply(&cube, &mut cube_out)),
        ),
        ("scalar multiply", 2.0 * bytes, median(dev, repeats, || drop(&a * T::from_f64(0.5)))),
    ];
    let copy_rate = 2.0 * bytes / copy;
    let t = core::any::type_name::<T>();
    println!("{}: {n} x {n} {t} (cube {m}^3), median of {repeats}", dev.name());
    println!("  {:<32} {:>9.3} ms  {:>8.1} GB/s  (baseline)", "copy (device to device)", copy * 1e3, copy_rate / 1e9);
    for (what, moved, t) in cases {
        let rate = moved / t;
        println!("  {what:<32} {:>9.3} ms  {:>8.1} GB/s  {:>5.2} of copy", t * 1e3, rate / 1e9, rate / copy_rate);
    }
}

/// `matmul` of m x m matrices in `T`, plain and with a transposed left operand.
fn products<T: Float + GemmElement>(dev: &impl Bench, m: usize, repeats: usize) {
    if !dev.supports::<T>() {
        return;
    }
    let a = dev.upload(&Array::from_fn([m, m], |[i, j]| T::from_f64(((i * 7 + j * 3) % 11) as f64 * 0.1)));
    let b = dev.upload(&Array::from_fn([m, m], |[i, j]| T::from_f64(((i * 5 + j) % 13) as f64 * 0.1)));
    let flops = 2.0 * (m as f64).powi(3);
    let plain = median(dev, repeats, || drop(a.matmul(&b)));
    let transposed = median(dev, repeats, || drop(a.t().matmul(&b)));
    let t = core::any::type_name::<T>();
    for (what, s) in [("matmul", plain), ("matmul, transposed left", transposed)] {
        println!("  {:<32} {:>9.3} ms  {:>8.2} TFLOP/s  ({m}^2 {t})", what, s * 1e3, flops / s / 1e12);
    }
}

/// A `stencil!` 5-point heat step with a coefficient field (three arrays read per point): `k`
/// sweeps one launch at a time (apply and swap) against `apply_steps_with` (time-tiled where the
/// backend tiles), in sweeps' bytes (the field read and written, the coefficients read) per second.
fn time_steps<T: Float + cnda::stencil::Scalar>(dev: &impl Bench, n: usize, repeats: usize, k: usize) {
    if !dev.supports::<T>() {
        return;
    }
    let heat = stencil!(|u, c; a: T| u[0, 0] + a * c[0, 0] * (u[-1, 0] + u[1, 0] + u[0, -1] + u[0, 1] - 4.0 * u[0, 0]));
    let host = Array::from_fn([n, n], |[i, j]| T::from_f64(((i * 31 + j * 17) % 101) as f64 * 0.01));
    let c = dev.upload(&Array::from_fn([n, n], |[i, j]| T::from_f64(0.5 + ((i + j) % 3) as f64 * 0.1)));
    let mut field = DoubleBuffer::from_pair(dev.upload(&host), dev.upload(&host));
    let a = T::from_f64(0.2);
    {
        let (u, v) = field.split();
        if let Err(e) = heat.try_apply((u, &c), v, (a,)) {
            println!("  stencil! heat step: {e}");
            return;
        }
    }
    let one_by_one = median(dev, repeats, || {
        for _ in 0..k {
            let (u, v) = field.split();
            heat.apply((u, &c), v, (a,));
            field.swap();
        }
    });
    let fused = median(dev, repeats, || {
        heat.apply_steps_with(&mut field, k, &c, (a,), [Boundary::Fixed; 2]);
    });
    #[cfg_attr(not(feature = "text"), allow(unused_mut))]
    let mut cases = vec![("stencil! sweeps, one by one", one_by_one), ("stencil! apply_steps_with", fused)];
    // The same step read from text (`TextStencil`): the kernel generated from its data.
    #[cfg(feature = "text")]
    {
        let text = cnda::stencil::TextStencil::<2>::parse(
            "|u, c; a| u[0, 0] + a * c[0, 0] * (u[-1, 0] + u[1, 0] + u[0, -1] + u[0, 1] - 4.0 * u[0, 0])",
        );
        let one_by_one = median(dev, repeats, || {
            for _ in 0..k {
                let (u, v) = field.split();
                text.apply(&[u, c.view()], &mut [v], &[a]);
                field.swap();
            }
        });
        let mut state = cnda::stencil::State::from_fields([dev.upload(&host)]);
        let fused = median(dev, repeats, || text.apply_steps_with(&mut state, k, &[&c], &[a], [Boundary::Fixed; 2]));
        cases.extend([("TextStencil sweeps, one by one", one_by_one), ("TextStencil apply_steps_with", fused)]);
    }
    let bytes = 3.0 * (n * n * k) as f64 * core::mem::size_of::<T>() as f64;
    let t = core::any::type_name::<T>();
    for (what, s) in cases {
        println!(
            "  {:<32} {:>9.3} ms  {:>8.1} GB/s  ({k} steps, {n}^2 {t}, {:.2} ns/point)",
            what,
            s * 1e3,
            bytes / s / 1e9,
            s / (n * n * k) as f64 * 1e9
        );
    }
}

/// The 3D acoustic SO-8 problem on `side^3` updated points (arrays of `(side + 8)^3`, a Gaussian
/// pulse at the centre), `steps` steps of one launch each with the three levels rotated, in grid
/// points updated per second; checked first against the CPU, bit for bit, over 4 steps.
fn acoustic<D: Bench>(dev: &D, side: usize, repeats: usize, steps: usize) {
    let n = side + 8;
    let centre = (n / 2) as f32;
    let pulse = Array::from_fn([n, n, n], |[i, j, k]| {
        let inside = [i, j, k].iter().all(|&x| (4..n - 4).contains(&x));
        let r2 = [i, j, k].iter().map(|&x| (x as f32 - centre).powi(2)).sum::<f32>();
        if inside {
            (-r2 / 32.0).exp()
        } else {
            0.0
        }
    });
    let m = Array::full([n, n, n], 1.0 / (1.5f32 * 1.5));
    let c = (0.4f32 * 5.0 / 1.5).powi(2) / 25.0;
    fn run<B: ExprStencilKernels>(
        levels: &mut [Array<f32, 3, B>; 3],
        m: &Array<f32, 3, B>,
        c: f32,
        steps: usize,
    ) -> Result<(), Error> {
        for _ in 0..steps {
            let [u, um, up] = &mut *levels;
            Acoustic.try_apply((&*u, &*um, m), up, (c,))?;
            levels.rotate_right(1);
        }
        Ok(())
    }
    let mut host = [pulse.clone(), pulse.clone(), Array::zeros([n, n, n])];
    let dm = dev.upload(&m);
    let mut levels = [dev.upload(&pulse), dev.upload(&pulse), dev.upload(&Array::<f32, 3>::zeros([n, n, n]))];
    if let Err(e) = run(&mut levels, &dm, c, 4) {
        println!("  acoustic SO-8 {side}^3: {e}");
        return;
    }
    run(&mut host, &m, c, 4).expect("the CPU runs the acoustic step");
    let same = levels[0].to_host() == host[0];
    let t = median(dev, repeats, || run(&mut levels, &dm, c, steps).expect("the step ran before"));
    let points = (side * side * side * steps) as f64;
    println!(
        "  {:<32} {:>9.3} ms  {:>8.1} GPts/s  ({steps} steps, {side}^3 f32, bit-identical to the CPU: {same})",
        match std::any::type_name::<D::B>().ends_with("Cuda") {
            true =>
                format!("acoustic SO-8, PLANES={}", std::env::var("CNDA_CUDA_PLANES").as_deref().unwrap_or("default")),
            false => "acoustic SO-8, one launch a step".to_string(),
        },
        t * 1e3,
        points / t / 1e9
    );
}

/// Every case on `dev` (`target` moves host matrices there).
fn run<D: Bench>(dev: &D, target: &impl cnda::kernel::Upload<Target = D::B>, n: usize, repeats: usize, m: usize)
where
    D::B: cnda::solve::SolverBackend + cnda::kernel::SparseKernels,
{
    let only = std::env::var("CNDA_BENCH_ONLY").unwrap_or_default();
    if only == "steps" {
        time_steps::<f32>(dev, n, repeats, 8);
        time_steps::<f64>(dev, n, repeats, 8);
        return;
    }
    if only != "solve" && only != "fft" {
        let sides = std::env::var("ACOUSTIC").unwrap_or_else(|_| "200".into());
        for side in sides.split_whitespace().filter_map(|s| s.parse().ok()) {
            acoustic(dev, side, repeats, 10);
        }
    }
    if only == "acoustic" || only == "fft" {
        return;
    }
    solve::solvers::<D, f32>(dev, target, repeats, 1e-5);
    solve::solvers::<D, f64>(dev, target, repeats, 1e-8);
    if only == "solve" {
        return;
    }
    bandwidth::<f32>(dev, n, repeats);
    bandwidth::<f64>(dev, n, repeats);
    time_steps::<f32>(dev, n, repeats, 8);
    time_steps::<f64>(dev, n, repeats, 8);
    products::<f32>(dev, m, repeats);
    products::<f64>(dev, m, repeats);
    let host = Array::from_fn([n, n], |[i, j]| ((i * 31 + j * 17) % 101) as f32 * 0.01);
    let bytes = (n * n * 4) as f64;
    for (what, t, pinned) in dev.transfers(&host, repeats).into_iter().flatten() {
        print!("  {what:<32} {:>9.3} ms  {:>8.1} GB/s", t * 1e3, bytes / t / 1e9);
        match pinned {
            Some(p) => println!("  {:>5.2} of pinned memcpy ({:.1} GB/s)", p / t, bytes / p / 1e9),
            None => println!(),
        }
    }
}

/// Opening a device and its first op (an add, which loads or compiles the elementwise kernels),
/// timed from a fresh process: what an application waits for at start.
#[cfg(any(feature = "cuda", feature = "wgpu"))]
fn start_up<D: Bench>(name: &str, open: impl FnOnce() -> Result<D, Error>) -> Option<D> {
    let t = Instant::now();
    let dev = match open() {
        Ok(dev) => dev,
        Err(e) => {
            println!("{name}: SKIP ({e})");
            return None;
        }
    };
    let opened = t.elapsed().as_secs_f64();
    let x = dev.upload(&Array::<f32, 1>::zeros([1 << 16]));
    drop(&x + &x);
    dev.sync();
    println!("{}: opened in {:.3} s, first op done {:.3} s after start", dev.name(), opened, t.elapsed().as_secs_f64());
    Some(dev)
}

fn main() {
    let args: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let n = args.first().copied().unwrap_or(4096);
    let repeats = args.get(1).copied().unwrap_or(11);
    let m = args.get(2).copied().unwrap_or(1024);
    // The transforms too, unless `CNDA_BENCH_ONLY` names other cases.
    #[cfg(feature = "fft")]
    let transforms = std::env::var("CNDA_BENCH_ONLY").map_or(true, |o| o.is_empty() || o == "fft");
    #[cfg(feature = "cuda")]
    let cuda = start_up("CUDA", || CudaDevice::new(0));
    #[cfg(feature = "cuda")]
    if let Some(dev) = &cuda {
        run(dev, dev, n, repeats, m);
        #[cfg(feature = "fft")]
        if transforms {
            fft::transforms(dev, dev, repeats, &|s, d, r| fft::raw_cufft(dev, s, d, r, repeats));
        }
    }
    #[cfg(feature = "wgpu")]
    if let Some(dev) = start_up("WebGPU", WgpuDevice::new) {
        run(&dev, &dev, n, repeats, m);
        #[cfg(feature = "fft")]
        if transforms {
            fft::transforms(&dev, &dev, repeats, &|_, _, _| None);
        }
    }
    // The CPU for reference, unless `CNDA_BENCH_HOST=0` (a short call on a lent GPU).
    if std::env::var("CNDA_BENCH_HOST").map_or(true, |v| v != "0") {
        run(&Host, &Cpu, n, repeats, m);
        #[cfg(feature = "fft")]
        if transforms {
            fft::transforms(&Host, &Cpu, repeats, &|_, _, _| None);
        }
    }
}
