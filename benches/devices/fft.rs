//! `cnda::fft` on each device (feature `fft`): complex transforms over every axis (`fftn`) of 2D
//! and 3D grids whose lengths are powers of 2, powers of 3 and products of small primes, in
//! `Complex<f32>` and (where the device computes in `f64`) `Complex<f64>`, and the real transform
//! (`rfftn`) of the f32 power-of-2 grids. On CUDA each case runs beside raw cuFFT in the same
//! process: one plan of the transform's own rank, made once, executed out of place into an
//! existing buffer with no scaling: the floor that cnda's per-axis plans and fresh outputs are
//! held against (issue 40: within 1.1x; WebGPU's Stockham kernel within 3x of it).

use cnda::fft::{try_fftn, try_rfftn, FftFloat, FftKernels, Norm};
use cnda::kernel::Upload;
use cnda::prelude::*;
use cnda::Complex;

use super::{median, sizes, Bench};

/// The seconds raw cuFFT takes for a shape, in f64 or not, real-to-complex or not (`None` off CUDA).
pub type Raw<'a> = &'a dyn Fn(&[usize], bool, bool) -> Option<f64>;

/// Every transform case on `dev` (`target` moves host arrays there; `raw` times cuFFT itself).
pub fn transforms<D: Bench>(dev: &D, target: &impl Upload<Target = D::B>, repeats: usize, raw: Raw)
where
    D::B: FftKernels,
{
    println!("{}: fftn over every axis, forward (median of {repeats})", dev.name());
    // The grids: 2^n, 3^n and 2^2 3 5^2 7 lengths in 2D, and the same kinds in 3D; f64 and the
    // real transform on the first of each.
    let (planes, cubes) = (sizes("FFT2", "4096 2187 2100"), sizes("FFT3", "256 243 210"));
    let fftn = |x: &Array<_, 2, D::B>| try_fftn(x, &[0, 1], Norm::Backward);
    let fftn3 = |x: &Array<_, 3, D::B>| try_fftn(x, &[0, 1, 2], Norm::Backward);
    for &n in &planes {
        let grid = Grid { label: "fftn c64", shape: [n, n], element: complex::<f32> };
        measure(dev, target, grid, repeats, fftn, || raw(&[n, n], false, false));
    }
    for &n in &cubes {
        let grid = Grid { label: "fftn c64", shape: [n, n, n], element: complex::<f32> };
        measure(dev, target, grid, repeats, fftn3, || raw(&[n, n, n], false, false));
    }
    let (Some(&n), Some(&m)) = (planes.first(), cubes.first()) else { return };
    if dev.supports::<f64>() {
        let grid = Grid { label: "fftn c128", shape: [n, n], element: complex::<f64> };
        measure(dev, target, grid, repeats, |x| try_fftn(x, &[0, 1], Norm::Backward), || raw(&[n, n], true, false));
        let grid = Grid { label: "fftn c128", shape: [m, m, m], element: complex::<f64> };
        let transform = |x: &Array<_, 3, D::B>| try_fftn(x, &[0, 1, 2], Norm::Backward);
        measure(dev, target, grid, repeats, transform, || raw(&[m, m, m], true, false));
    }
    let grid = Grid { label: "rfftn f32", shape: [n, n], element: |k, _| signal(k) as f32 };
    measure(dev, target, grid, repeats, |x| try_rfftn(x, &[0, 1], Norm::Backward), || raw(&[n, n], false, true));
    let grid = Grid { label: "rfftn f32", shape: [m, m, m], element: |k, _| signal(k) as f32 };
    let transform = |x: &Array<f32, 3, D::B>| try_rfftn(x, &[0, 1, 2], Norm::Backward);
    measure(dev, target, grid, repeats, transform, || raw(&[m, m, m], false, true));
}

/// A signal without structure the transform could exploit.
fn signal(k: usize) -> f64 {
    ((k * 7919 + 13) % 1009) as f64 / 1009.0 - 0.5
}

/// Point `k` of a complex signal of `len` points (the imaginary parts another stretch of it).
fn complex<T: FftFloat>(k: usize, len: usize) -> Complex<T> {
    Complex::new(<T as Float>::from_f64(signal(k)), <T as Float>::from_f64(signal(k + len)))
}

/// A case's input: its label, shape, and point `k` of `len` points.
struct Grid<E, const N: usize> {
    label: &'static str,
    shape: [usize; N],
    element: fn(usize, usize) -> E,
}

/// One case: the grid moved to the device, `transform` run once (its error printed instead of a
/// time), then its median time, and raw cuFFT's where `raw` gives one.
fn measure<D: Bench, E: Pod, R, const N: usize>(
    dev: &D,
    target: &impl Upload<Target = D::B>,
    grid: Grid<E, N>,
    repeats: usize,
    transform: impl Fn(&Array<E, N, D::B>) -> cnda::Result<R>,
    raw: impl FnOnce() -> Option<f64>,
) {
    let len: usize = grid.shape.iter().product();
    let host = (0..len).map(|k| (grid.element)(k, len)).collect();
    let x = Array::from_shape_vec(grid.shape, host).expect("the shape's length").to_device(target);
    let what = format!("{} {}", grid.label, dims(&grid.shape));
    if let Err(e) = transform(&x) {
        println!("  {what}: {e}");
        return;
    }
    let t = median(dev, repeats, || drop(transform(&x)));
    print!("  {what:<32} {:>9.3} ms  {:>8.2} GPts/s", t * 1e3, len as f64 / t / 1e9);
    match raw() {
        Some(r) => println!("  raw cuFFT {:>8.3} ms, cnda / raw {:.2}", r * 1e3, t / r),
        None => println!(),
    }
}

fn dims(shape: &[usize]) -> String {
    shape.iter().map(usize::to_string).collect::<Vec<_>>().join("x")
}

/// Raw cuFFT through cudarc on `dev`'s device: a plan of the shape's rank, out of place, forward.
#[cfg(feature = "cuda")]
pub fn raw_cufft(dev: &CudaDevice, shape: &[usize], double: bool, real: bool, repeats: usize) -> Option<f64> {
    use cudarc::cufft::sys::cufftType::*;
    use cudarc::cufft::sys::{double2, float2};
    use cudarc::cufft::{CudaFft, FftDirection};
    let ctx = cudarc::driver::CudaContext::new(dev.ordinal()).ok()?;
    let stream = ctx.default_stream();
    let dims: Vec<i32> = shape.iter().map(|&n| n as i32).collect();
    let len: usize = shape.iter().product();
    let half = len / shape[shape.len() - 1] * (shape[shape.len() - 1] / 2 + 1);
    let kind = match (double, real) {
        (false, false) => CUFFT_C2C,
        (true, false) => CUFFT_Z2Z,
        (false, true) => CUFFT_R2C,
        (true, true) => CUFFT_D2Z,
    };
    let plan = match CudaFft::plan_many(&dims, None, 1, 0, None, 1, 0, kind, 1, stream.clone()) {
        Ok(plan) => plan,
        Err(e) => {
            println!("  raw cuFFT plan of {shape:?}: {e:?}");
            return None;
        }
    };
    let sync = || stream.synchronize().expect("the stream runs");
    let time = |f: &mut dyn FnMut()| {
        let mut f = || {
            f();
            sync();
        };
        median(dev, repeats, &mut f)
    };
    Some(match (double, real) {
        (false, false) => {
            let host: Vec<float2> =
                (0..len).map(|k| float2 { x: signal(k) as f32, y: signal(k + len) as f32 }).collect();
            let mut input = stream.clone_htod(&host).ok()?;
            let mut output = stream.alloc_zeros::<float2>(len).ok()?;
            time(&mut || plan.exec_c2c(&mut input, &mut output, FftDirection::Forward).expect("cuFFT runs"))
        }
        (true, false) => {
            let host: Vec<double2> = (0..len).map(|k| double2 { x: signal(k), y: signal(k + len) }).collect();
            let mut input = stream.clone_htod(&host).ok()?;
            let mut output = stream.alloc_zeros::<double2>(len).ok()?;
            time(&mut || plan.exec_z2z(&mut input, &mut output, FftDirection::Forward).expect("cuFFT runs"))
        }
        (false, true) => {
            let host: Vec<f32> = (0..len).map(|k| signal(k) as f32).collect();
            let input = stream.clone_htod(&host).ok()?;
            let mut output = stream.alloc_zeros::<float2>(half).ok()?;
            time(&mut || plan.exec_r2c(&input, &mut output).expect("cuFFT runs"))
        }
        (true, true) => {
            let host: Vec<f64> = (0..len).map(signal).collect();
            let input = stream.clone_htod(&host).ok()?;
            let mut output = stream.alloc_zeros::<double2>(half).ok()?;
            time(&mut || plan.exec_d2z(&input, &mut output).expect("cuFFT runs"))
        }
    })
}
