//! The transforms on the device backends against the CPU's (rustfft, itself tested against
//! NumPy): CUDA through cuFFT (on the CPU-hosted device, tools/cuda-sim's stand-in computing
//! them as direct sums) and WebGPU through cnda's Stockham and Bluestein shaders (on lavapipe).
//! Every function, both precisions (f64 on WebGPU where the adapter has it), every norm, each
//! axis and sets of axes of 1-3D arrays with prime, odd and even lengths, strided device views
//! as inputs, crops and pads of the real inverses with imaginary parts at the zero and Nyquist
//! frequencies; the cosine and sine transforms of every type; `solve_box` and `BoxPreconditioner`
//! (CG on the device); complex arrays copied and filled on the device; the refusals.
#![cfg(all(feature = "fft", any(feature = "cuda", feature = "wgpu")))]

use cnda::fft::{self, FftFloat, FftKernels, Norm};
use cnda::kernel::{CopyKernels, Download, Upload};
use cnda::prelude::*;
use cnda::Complex;

const NORMS: [Norm; 3] = [Norm::Backward, Norm::Ortho, Norm::Forward];

fn signal<T: FftFloat, const N: usize>(shape: [usize; N], seed: usize) -> Array<Complex<T>, N> {
    Array::from_fn(shape, |idx| {
        let k = idx.iter().fold(seed, |acc, &i| acc.wrapping_mul(31).wrapping_add(i * 7 + 3));
        let re = ((k * 2_654_435_761) % 1000) as f64 / 500.0 - 1.0;
        let im = ((k * 40_503) % 1000) as f64 / 500.0 - 1.0;
        Complex::new(<T as cnda::Float>::from_f64(re), <T as cnda::Float>::from_f64(im))
    })
}

/// `got` within `tol` of `want` relative to `want`'s largest magnitude.
fn close<T: FftFloat + Into<f64>, const N: usize>(
    got: &Array<Complex<T>, N>,
    want: &Array<Complex<T>, N>,
    tol: f64,
    what: &str,
) {
    assert_eq!(got.shape(), want.shape(), "{what}");
    let pair = |v: &Complex<T>| -> (f64, f64) { (v.re.into(), v.im.into()) };
    assert!(
        want.as_slice().iter().map(pair).all(|(a, b)| a.is_finite() && b.is_finite()),
        "{what}: a non-finite reference"
    );
    // Relative to the largest value, with an absolute floor of `tol` for results near zero.
    let scale = want.as_slice().iter().map(pair).fold(1.0f64, |m, (a, b)| m.max(a.hypot(b)));
    let worst = got.as_slice().iter().map(pair).zip(want.as_slice().iter().map(pair));
    // A NaN difference counts as infinite (`f64::max` would skip it).
    let worst = worst.fold(0.0f64, |m, ((a, b), (c, d))| {
        let e = (a - c).hypot(b - d);
        if e.is_nan() {
            f64::INFINITY
        } else {
            m.max(e)
        }
    });
    assert!(worst <= tol * scale, "{what}: {worst:e} > {tol:e} x {scale}");
}

fn close_real<T: FftFloat + Into<f64>, const N: usize>(got: &Array<T, N>, want: &Array<T, N>, tol: f64, what: &str) {
    close(&got.map(|x| Complex::new(x, T::ZERO)), &want.map(|x| Complex::new(x, T::ZERO)), tol, what);
}

fn complex_cases<T: FftFloat + Into<f64>, D: Upload>(dev: &D, tol: f64)
where
    D::Target: FftKernels + Download,
{
    let shapes3 = [[3usize, 5, 4], [7, 1, 6], [2, 13, 3]];
    for (s, shape) in shapes3.into_iter().enumerate() {
        let x = signal::<T, 3>(shape, s);
        let d = x.to_device(dev);
        for (k, norm) in NORMS.into_iter().enumerate() {
            for axis in 0..3 {
                let what = format!("fft {shape:?} axis {axis} {norm:?}");
                close(&fft::fft(&d, axis, norm).to_host(), &fft::fft(&x, axis, norm), tol, &what);
                close(&fft::ifft(&d, axis, norm).to_host(), &fft::ifft(&x, axis, norm), tol, &what);
            }
            let axes: &[usize] = [&[0usize, 1, 2][..], &[2, 0], &[1]][k];
            let what = format!("fftn {shape:?} axes {axes:?} {norm:?}");
            close(&fft::fftn(&d, axes, norm).to_host(), &fft::fftn(&x, axes, norm), tol, &what);
            close(&fft::ifftn(&d, axes, norm).to_host(), &fft::ifftn(&x, axes, norm), tol, &what);
        }
        // A strided device view: every other point of axis 1 reversed, and the axes permuted.
        let view = d.slice(s![.., ..;-1, ..]).permute([2, 0, 1]);
        let host = x.slice(s![.., ..;-1, ..]).permute([2, 0, 1]).to_owned();
        close(&fft::fftn(view, &[0, 2], Norm::Ortho).to_host(), &fft::fftn(&host, &[0, 2], Norm::Ortho), tol, "view");
    }
    // 1D, a prime and a long power of two.
    for n in [1usize, 17, 256] {
        let x = signal::<T, 1>([n], n);
        close(&fft::fft(x.to_device(dev), 0, Norm::Backward).to_host(), &fft::fft(&x, 0, Norm::Backward), tol, "1D");
    }
}

fn real_cases<T: FftFloat + Into<f64>, D: Upload>(dev: &D, tol: f64)
where
    D::Target: FftKernels + Download,
{
    for (s, shape) in [[4usize, 6], [5, 7], [1, 9], [6, 1]].into_iter().enumerate() {
        let x = signal::<T, 2>(shape, 10 + s).map(|v| v.re);
        let d = x.to_device(dev);
        for norm in NORMS {
            for axis in 0..2 {
                let what = format!("rfft {shape:?} axis {axis} {norm:?}");
                let half = fft::rfft(&d, axis, norm);
                close(&half.to_host(), &fft::rfft(&x, axis, norm), tol, &what);
                // Back to the length it came from, and crops and pads of the spectrum.
                let n = shape[axis];
                for m in [n, n + 3, (n / 2).max(1), 2 * n] {
                    let want = fft::irfft(fft::rfft(&x, axis, norm), m, axis, norm);
                    close_real(&fft::irfft(&half, m, axis, norm).to_host(), &want, tol, &format!("{what} irfft {m}"));
                }
            }
            let what = format!("rfftn {shape:?} {norm:?}");
            let half = fft::rfftn(&d, &[0, 1], norm);
            close(&half.to_host(), &fft::rfftn(&x, &[0, 1], norm), tol, &what);
            close_real(&fft::irfftn(&half, &[0, 1], shape[1], norm).to_host(), &x, tol, &what);
            let reversed = fft::rfftn(&d, &[1, 0], norm);
            close(&reversed.to_host(), &fft::rfftn(&x, &[1, 0], norm), tol, &format!("{what} [1, 0]"));
        }
    }
    // The imaginary parts of the zero and Nyquist frequencies are ignored, as NumPy ignores them.
    let spectrum = signal::<T, 2>([3, 5], 42);
    for n in [8usize, 9, 3] {
        let want = fft::irfft(&spectrum, n, 1, Norm::Backward);
        close_real(&fft::irfft(spectrum.to_device(dev), n, 1, Norm::Backward).to_host(), &want, tol, "imaginary DC");
    }
    // 3D, the middle axis: blocks of the outer axis whose real data starts at odd offsets (cuFFT's
    // real transforms want it aligned as the complex type: those go another way).
    for (s, shape) in [[2usize, 3, 3], [3, 5, 4], [2, 7, 1]].into_iter().enumerate() {
        let x = signal::<T, 3>(shape, 30 + s).map(|v| v.re);
        let d = x.to_device(dev);
        for axis in 0..3 {
            let what = format!("3D {shape:?} axis {axis}");
            let half = fft::rfft(&d, axis, Norm::Backward);
            close(&half.to_host(), &fft::rfft(&x, axis, Norm::Backward), tol, &what);
            for m in [shape[axis], shape[axis] + 1] {
                let want = fft::irfft(fft::rfft(&x, axis, Norm::Backward), m, axis, Norm::Ortho);
                close_real(
                    &fft::irfft(&half, m, axis, Norm::Ortho).to_host(),
                    &want,
                    tol,
                    &format!("{what} irfft {m}"),
                );
            }
        }
    }
    // A contiguous view at an odd offset, read where it lies.
    let line = signal::<T, 1>([10], 8).map(|v| v.re);
    let on_device = line.to_device(dev);
    let want = fft::rfft(line.slice(s![1..]), 0, Norm::Backward);
    close(&fft::rfft(on_device.slice(s![1..]), 0, Norm::Backward).to_host(), &want, tol, "odd offset");
    // A strided real view (a column of a larger array) as the input.
    let big = signal::<T, 2>([9, 8], 7).map(|v| v.im);
    let column = big.to_device(dev);
    let view = column.slice(s![1..;2, 3..4]);
    let want = fft::rfft(big.slice(s![1..;2, 3..4]), 0, Norm::Backward);
    close(&fft::rfft(view, 0, Norm::Backward).to_host(), &want, tol, "strided real view");
}

/// `solve_periodic` on the device against the CPU's: Poisson (the mean dropped) and Helmholtz,
/// both Laplacians, lengths that are powers of two and lengths that are not; a resonance refused.
fn periodic_solves<T: FftFloat + Into<f64>, D: Upload>(dev: &D, tol: f64)
where
    D::Target: FftKernels + Download,
{
    use cnda::fft::{solve_periodic, try_solve_periodic, Laplacian};
    let f2 = signal::<T, 2>([16, 12], 5).map(|v| v.re);
    let f3 = signal::<T, 3>([6, 5, 8], 6).map(|v| v.im);
    let h = |x: f64| <T as cnda::Float>::from_f64(x);
    for laplacian in [Laplacian::SecondOrder, Laplacian::Spectral] {
        for shift in [0.0, 2.5] {
            let what = format!("{laplacian:?} shift {shift}");
            let want = solve_periodic(&f2, [h(0.1), h(0.2)], h(shift), laplacian);
            let got = solve_periodic(f2.to_device(dev), [h(0.1), h(0.2)], h(shift), laplacian).to_host();
            close_real(&got, &want, tol, &format!("2D {what}"));
            let spacing = [h(0.5), h(0.25), h(0.125)];
            let want = solve_periodic(&f3, spacing, h(shift), laplacian);
            let got = solve_periodic(f3.to_device(dev).permute([0, 1, 2]), spacing, h(shift), laplacian).to_host();
            close_real(&got, &want, tol, &format!("3D {what}"));
        }
    }
    // Mode (1, 0) of a 16 x 12 grid of unit spacing resonates at -4 sin²(π / 16).
    let resonance = -4.0 * (core::f64::consts::PI / 16.0).sin().powi(2);
    let Err(e) = try_solve_periodic(f2.to_device(dev), [h(1.0), h(1.0)], h(resonance), Laplacian::SecondOrder) else {
        panic!("a resonant shift was solved")
    };
    assert!(e.to_string().contains("singular"), "{e}");
}

/// The cosine and sine transforms of every type (through the Fourier transforms on devices) and
/// `solve_box` with walls, mirrors and periodic axes mixed, against the CPU's (rustdct).
fn trig_and_box_solves<T: FftFloat + Into<f64>, D: Upload>(dev: &D, tol: f64)
where
    D::Target: FftKernels + Download,
{
    use cnda::fft::{dct, dctn, dst, idct, idst, idstn, solve_box, DctType, Laplacian};
    use cnda::stencil::Boundary;
    let x = signal::<T, 3>([5, 4, 6], 12).map(|v| v.re);
    let d = x.to_device(dev);
    for norm in NORMS {
        for axis in 0..3 {
            let what = format!("axis {axis} {norm:?}");
            close_real(
                &dst(&d, DctType::I, axis, norm).to_host(),
                &dst(&x, DctType::I, axis, norm),
                tol,
                &format!("dst1 {what}"),
            );
            for ty in [DctType::I, DctType::II, DctType::III, DctType::IV] {
                let want = idct(&x, ty, axis, norm);
                close_real(&idct(&d, ty, axis, norm).to_host(), &want, tol, &format!("idct {ty:?} {what}"));
                close_real(
                    &dct(&d, ty, axis, norm).to_host(),
                    &dct(&x, ty, axis, norm),
                    tol,
                    &format!("dct {ty:?} {what}"),
                );
                close_real(
                    &dst(&d, ty, axis, norm).to_host(),
                    &dst(&x, ty, axis, norm),
                    tol,
                    &format!("dst {ty:?} {what}"),
                );
                close_real(
                    &idst(&d, ty, axis, norm).to_host(),
                    &idst(&x, ty, axis, norm),
                    tol,
                    &format!("idst {ty:?} {what}"),
                );
            }
        }
        close_real(&dctn(&d, DctType::II, &[0, 2], norm).to_host(), &dctn(&x, DctType::II, &[0, 2], norm), tol, "dctn");
        close_real(
            &idstn(&d, DctType::I, &[1, 2], norm).to_host(),
            &idstn(&x, DctType::I, &[1, 2], norm),
            tol,
            "idstn",
        );
    }
    // Lanes of one and two points, and an array with an empty other axis.
    for n in [1usize, 2] {
        let short = signal::<T, 2>([3, n], 13).map(|v| v.im);
        let ds = short.to_device(dev);
        for ty in [DctType::II, DctType::III, DctType::IV] {
            close_real(
                &idct(&ds, ty, 1, Norm::Ortho).to_host(),
                &idct(&short, ty, 1, Norm::Ortho),
                tol,
                &format!("idct {n}"),
            );
            close_real(
                &dst(&ds, ty, 1, Norm::Ortho).to_host(),
                &dst(&short, ty, 1, Norm::Ortho),
                tol,
                &format!("dst {n}"),
            );
        }
        if n == 2 {
            let (got, want) = (dct(&ds, DctType::I, 1, Norm::Ortho).to_host(), dct(&short, DctType::I, 1, Norm::Ortho));
            close_real(&got, &want, tol, "dct1 2");
        }
        close_real(
            &dst(&ds, DctType::I, 1, Norm::Backward).to_host(),
            &dst(&short, DctType::I, 1, Norm::Backward),
            tol,
            "dst 1-2",
        );
    }
    let hollow = Array::<T, 2>::from_fn([0, 4], |_| T::ZERO);
    assert_eq!(dst(hollow.to_device(dev), DctType::I, 1, Norm::Backward).to_host().shape(), [0, 4]);
    let h = |v: f64| <T as cnda::Float>::from_f64(v);
    let sides = [[Boundary::Value(h(0.5)), Boundary::Value(h(-1.0))], [Boundary::Neumann; 2], [Boundary::Periodic; 2]];
    let spacing = [h(0.2), h(0.1), h(0.3)];
    for shift in [0.0, 1.5] {
        let want = solve_box(&x, spacing, h(shift), sides, Laplacian::SecondOrder);
        let got = solve_box(&d, spacing, h(shift), sides, Laplacian::SecondOrder).to_host();
        close_real(&got, &want, tol, &format!("solve_box shift {shift}"));
    }
    let mirrors = solve_box(&d, spacing, h(0.0), [Boundary::Neumann; 3], Laplacian::Spectral).to_host();
    close_real(&mirrors, &solve_box(&x, spacing, h(0.0), [Boundary::Neumann; 3], Laplacian::Spectral), tol, "mirrors");
}

/// `BoxPreconditioner` on the device: CG on the operator it inverts (the 5-point `-Δ_h`, walls
/// along one axis and periodic along the other) converges in two iterations, to the CPU's
/// direct solve.
fn preconditioned_solve<T: FftFloat + cnda::solve::SolverScalar + Into<f64>, D: Upload>(dev: &D, tol: f64)
where
    D::Target: FftKernels + Download + cnda::solve::SolverBackend + cnda::kernel::StencilKernels,
{
    use cnda::fft::{solve_box, BoxPreconditioner, Laplacian};
    use cnda::solve::{Cg, StencilOperator};
    use cnda::stencil::{Boundary, DynStencil};
    let h = |v: f64| <T as cnda::Float>::from_f64(v);
    let (n, m, spacing) = (15, 12, 1.0 / 16.0);
    let sides = [Boundary::Value(T::ZERO), Boundary::Periodic];
    let (c, e) = (h(4.0 / (spacing * spacing)), h(-1.0 / (spacing * spacing)));
    let minus_laplacian = DynStencil::new([([0, 0], c), ([-1, 0], e), ([1, 0], e), ([0, -1], e), ([0, 1], e)]);
    let operator = StencilOperator::new(minus_laplacian, [n, m], sides);
    let f = signal::<T, 2>([n, m], 14).map(|v| v.re);
    let mut u = Array::<T, 2>::zeros([n, m]).to_device(dev);
    let preconditioner = BoxPreconditioner::new([n, m], [h(spacing); 2], T::ZERO, sides);
    let report = Cg::new().rtol(tol).preconditioner(preconditioner).solve(&operator, &f.to_device(dev), &mut u);
    assert!(report.iterations <= 2, "{report:?}");
    let want = solve_box(&f, [h(spacing); 2], T::ZERO, sides, Laplacian::SecondOrder);
    close_real(&u.to_host(), &want, 100.0 * tol, "the preconditioned solve");
}

/// Complex elements on the device: copies of strided views, part by part.
fn complex_copies<D: Upload>(dev: &D)
where
    D::Target: Download + CopyKernels,
{
    let x = signal::<f32, 2>([5, 6], 3);
    let d = x.to_device(dev);
    assert_eq!(d.to_host(), x);
    assert_eq!(d.t().to_host(), x.t().to_owned());
    assert_eq!(d.slice(s![1..;2, ..;-3]).to_host(), x.slice(s![1..;2, ..;-3]).to_owned());
    let single = signal::<f32, 1>([9], 4);
    assert_eq!(single.to_device(dev).slice(s![..;2]).to_host(), single.slice(s![..;2]).to_owned());
    // Fills, part by part in the right order: the whole array, and a strided view of it.
    let mut filled = x.to_device(dev);
    filled.fill(Complex::new(1.5, -2.5));
    assert!(filled.to_host().as_slice().iter().all(|&v| v == Complex::new(1.5, -2.5)));
    filled.slice_mut(s![.., 1..;2]).fill(Complex::new(-0.25, 4.0));
    let want =
        Array::from_fn([5, 6], |[_, j]| if j % 2 == 1 { Complex::new(-0.25, 4.0) } else { Complex::new(1.5, -2.5) });
    assert_eq!(filled.to_host(), want);
}

fn refusals<D: Upload>(dev: &D)
where
    D::Target: FftKernels + Download,
{
    let d = signal::<f32, 2>([4, 3], 1).to_device(dev);
    assert!(matches!(fft::try_fft(&d, 2, Norm::Backward), Err(Error::AxisOutOfRange { op: "fft", axis: 2, rank: 2 })));
    assert!(matches!(fft::try_fftn(&d, &[1, 1], Norm::Backward), Err(Error::Parameter { op: "fftn", .. })));
    assert!(matches!(fft::try_irfft(&d, 0, 0, Norm::Backward), Err(Error::Parameter { op: "irfft", .. })));
    let empty = Array::<Complex<f32>, 2>::from_fn([0, 3], |_| Complex::new(0.0, 0.0)).to_device(dev);
    assert!(matches!(fft::try_fft(&empty, 0, Norm::Backward), Err(Error::Parameter { op: "fft", .. })));
}

#[cfg(feature = "cuda")]
mod cuda {
    use super::*;

    /// Device 0, or `None` after printing SKIP; a failure where `CNDA_REQUIRE_CUDA` is set.
    fn device() -> Option<CudaDevice> {
        match CudaDevice::new(0) {
            Ok(dev) => Some(dev),
            Err(e) => {
                assert!(std::env::var_os("CNDA_REQUIRE_CUDA").is_none(), "CNDA_REQUIRE_CUDA is set but: {e}");
                eprintln!("SKIP: no CUDA device: {e}");
                None
            }
        }
    }

    #[test]
    fn complex_transforms_match_the_cpu() {
        let Some(dev) = device() else { return };
        complex_cases::<f32, _>(&dev, 2e-5);
        complex_cases::<f64, _>(&dev, 1e-12);
    }

    #[test]
    fn real_transforms_match_the_cpu() {
        let Some(dev) = device() else { return };
        real_cases::<f32, _>(&dev, 2e-5);
        real_cases::<f64, _>(&dev, 1e-12);
    }

    #[test]
    fn periodic_solves_match_the_cpu() {
        let Some(dev) = device() else { return };
        periodic_solves::<f32, _>(&dev, 1e-5);
        periodic_solves::<f64, _>(&dev, 1e-12);
    }

    #[test]
    fn trig_transforms_and_box_solves_match_the_cpu() {
        let Some(dev) = device() else { return };
        trig_and_box_solves::<f32, _>(&dev, 1e-5);
        trig_and_box_solves::<f64, _>(&dev, 1e-12);
        preconditioned_solve::<f32, _>(&dev, 1e-5);
        preconditioned_solve::<f64, _>(&dev, 1e-11);
    }

    #[test]
    fn complex_arrays_copy_on_the_device() {
        let Some(dev) = device() else { return };
        complex_copies(&dev);
        let x = signal::<f64, 2>([5, 6], 3).to_device(&dev);
        assert_eq!(x.slice(s![.., 1..;2]).to_host(), signal::<f64, 2>([5, 6], 3).slice(s![.., 1..;2]).to_owned());
    }

    #[test]
    fn refusals_match_the_cpus() {
        let Some(dev) = device() else { return };
        refusals(&dev);
    }
}

#[cfg(feature = "wgpu")]
mod wgpu {
    use super::*;

    /// Whether the adapter has f64 shaders (else the f64 cases are skipped, saying so).
    fn f64_or_skip(dev: &WgpuDevice) -> bool {
        let has = dev.supports::<f64>();
        if !has {
            eprintln!("SKIP: the f64 cases: adapter {} lacks SHADER_F64", dev.adapter());
        }
        has
    }

    /// The adapter, or `None` after printing SKIP; a failure where `CNDA_REQUIRE_WGPU` is set.
    fn device() -> Option<WgpuDevice> {
        match WgpuDevice::new() {
            Ok(dev) => Some(dev),
            Err(e) => {
                assert!(std::env::var_os("CNDA_REQUIRE_WGPU").is_none(), "CNDA_REQUIRE_WGPU is set but: {e}");
                eprintln!("SKIP: {e}");
                None
            }
        }
    }

    #[test]
    fn complex_transforms_match_the_cpu() {
        let Some(dev) = device() else { return };
        complex_cases::<f32, _>(&dev, 2e-5);
        if f64_or_skip(&dev) {
            complex_cases::<f64, _>(&dev, 1e-12);
        }
    }

    #[test]
    fn real_transforms_match_the_cpu() {
        let Some(dev) = device() else { return };
        real_cases::<f32, _>(&dev, 2e-5);
        if f64_or_skip(&dev) {
            real_cases::<f64, _>(&dev, 1e-12);
        }
    }

    /// Long lanes through Bluestein (a large prime) and a long power of two, and many lanes.
    #[test]
    fn long_and_many_lanes_match_the_cpu() {
        let Some(dev) = device() else { return };
        for shape in [[1usize, 4099], [3, 2048], [300, 7]] {
            let x = signal::<f32, 2>(shape, 9);
            let want = fft::fft(&x, 1, Norm::Backward);
            close(&fft::fft(x.to_device(&dev), 1, Norm::Backward).to_host(), &want, 2e-5, &format!("{shape:?}"));
            let want = fft::ifft(&x, 1, Norm::Ortho);
            close(&fft::ifft(x.to_device(&dev), 1, Norm::Ortho).to_host(), &want, 2e-5, &format!("ifft {shape:?}"));
            let n = shape[1];
            let want = fft::irfft(&x, 2 * n - 1, 1, Norm::Backward);
            let got = fft::irfft(x.to_device(&dev), 2 * n - 1, 1, Norm::Backward).to_host();
            close_real(&got, &want, 2e-5, &format!("irfft {shape:?}"));
            let half = fft::rfft(x.map(|v| v.re).to_device(&dev), 1, Norm::Ortho).to_host();
            close(&half, &fft::rfft(x.map(|v| v.re), 1, Norm::Ortho), 2e-5, &format!("rfft {shape:?}"));
        }
    }

    #[test]
    fn periodic_solves_match_the_cpu() {
        let Some(dev) = device() else { return };
        periodic_solves::<f32, _>(&dev, 1e-5);
        if f64_or_skip(&dev) {
            periodic_solves::<f64, _>(&dev, 1e-12);
        }
    }

    #[test]
    fn trig_transforms_and_box_solves_match_the_cpu() {
        let Some(dev) = device() else { return };
        trig_and_box_solves::<f32, _>(&dev, 1e-5);
        preconditioned_solve::<f32, _>(&dev, 1e-5);
        if f64_or_skip(&dev) {
            trig_and_box_solves::<f64, _>(&dev, 1e-12);
        }
    }

    #[test]
    fn complex_arrays_copy_on_the_device() {
        let Some(dev) = device() else { return };
        complex_copies(&dev);
    }

    #[test]
    fn refusals_match_the_cpus() {
        let Some(dev) = device() else { return };
        refusals(&dev);
    }
}
