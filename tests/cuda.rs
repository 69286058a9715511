//! The CUDA backend where there may be no GPU: opening a device is an `Err` with a what/why/how
//! message, never a panic, and the kernels of the conformance suite (tests/conformance) run
//! only where a device opens. With a device (the GPU machine), round trips and a first op.
#![cfg(feature = "cuda")]

use cnda::prelude::*;
use cnda::stencil::{stencil, Arity, Boundary, LinearStencil, State, Stencil};

/// Device 0, or `None` after printing SKIP; a failure instead where `CNDA_REQUIRE_CUDA` is set
/// (scripts/test sets it where the CPU-hosted device of tools/cuda-sim stands in for a GPU).
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
fn opening_a_device_fails_cleanly_without_one() {
    let count = CudaDevice::count();
    match CudaDevice::new(0) {
        Ok(dev) => assert!(count > 0 && dev.ordinal() == 0),
        Err(e) => {
            assert_eq!(count, 0, "a device exists but did not open: {e}");
            assert!(matches!(e, Error::Device { backend: "cuda", .. }), "{e}");
            let message = e.to_string();
            assert!(message.contains("no CUDA driver") || message.contains("there is no CUDA device"), "{message}");
        }
    }
    let e = CudaDevice::new(usize::MAX).unwrap_err();
    assert!(matches!(e, Error::Device { .. }), "{e}");
}

/// Large transfers go through pinned staging blocks in 16 MiB chunks: several chunks and a
/// partial last one, both ways, back to back (the second upload reuses blocks whose copies may
/// still be in flight), and a download starting inside an allocation.
#[test]
fn large_transfers_are_staged_and_exact() {
    let Some(dev) = device() else { return };
    let (rows, cols) = (2 * 4096 + 3, 1283); // 41.6 MB of f32: three chunks, the last partial
    let a = Array::from_fn([rows, cols], |[i, j]| (i * cols + j) as f32);
    let b = Array::from_fn([rows, cols], |[i, j]| -((i + j) as f32));
    let (da, db) = (a.to_device(&dev), b.to_device(&dev));
    assert_eq!(da.to_host(), a);
    assert_eq!(db.to_host(), b);
    assert_eq!(da.slice(s![7.., ..]).to_host(), a.slice(s![7.., ..]).to_owned());
    assert_eq!((&da + &db).to_host(), &a + &b);
    let small = Array::from_fn([1000], |[i]| i as f64); // below the staging threshold
    assert_eq!(small.to_device(&dev).to_host(), small);
}

#[test]
fn round_trips_and_a_first_op_on_a_device() {
    let Some(dev) = device() else { return };
    let a = Array::from_fn([37, 53], |[i, j]| (i * 53 + j) as f32);
    let d = a.to_device(&dev);
    assert_eq!(d.to_host(), a);
    assert_eq!(d.t().to_host(), a.t().to_owned()); // a transposed device view, made contiguous there
    let e = &d + 1.0f32;
    assert_eq!(e.to_host(), &a + 1.0f32);
    let z = Array::<f64, 3, Cuda>::zeros_in(&dev, [2, 0, 4]);
    assert_eq!(z.to_host().shape(), [2, 0, 4]);
    dev.synchronize().unwrap();
}

#[test]
fn stencil_macro_stencils_match_the_cpu_bit_for_bit() {
    let Some(dev) = device() else { return };
    let step = stencil!(|u, k; dt: T| u[0, 0]
        + dt * (1.0 + u[0, 0] * u[0, 0]) * k[0, 1] * (u[-1, 0] + u[1, 0] + u[0, -1] + u[0, 1] - 4.0 * u[0, 0])
        + select(u[0, 0] > 0.5, powi(u[1, 1], 3), -sqrt(abs(u[-1, -1]))) / powi(k[0, 0], -2));
    fn check<T: cnda::stencil::Scalar, S: Stencil<T, 2, Params = (T,), Arity = Arity<2>, Values = T>>(
        dev: &CudaDevice,
        step: S,
        from: fn(f64) -> T,
    ) {
        let u = Array::from_fn([33, 47], |[i, j]| from(((i * 7 + j * 3) % 11) as f64 * 0.1));
        let k = Array::from_fn([33, 47], |[i, j]| from(0.5 + ((i + j) % 3) as f64 * 0.25));
        let mut want = Array::<T, 2>::full([33, 47], from(-1.0));
        let mut o = want.to_device(dev);
        // A transposed field on the device, so the kernel reads through strides.
        let kt = k.t().to_owned().to_device(dev);
        step.apply((&u.to_device(dev), kt.t()), &mut o, (from(0.1),));
        step.apply((&u, &k), &mut want, (from(0.1),));
        assert_eq!(o.to_host(), want, "separately rounded operations in the same order as the CPU");
    }
    check::<f64, _>(&dev, step, |x| x);
    check::<f32, _>(&dev, step, |x| x as f32);
}

/// f16 and bf16 arrays compute in f32 and round after every operation, as the `half` crate does
/// on the host, so the device matches the host bit for bit.
#[test]
fn half_precision_matches_the_host_exactly() {
    let Some(dev) = device() else { return };
    fn check<T: Numeric + core::ops::Neg<Output = T> + core::fmt::Debug>(dev: &CudaDevice, from: fn(f32) -> T) {
        let host = Array::from_fn([19, 37], |[i, j]| from((i as f32 - 9.0) * 0.37 + j as f32 * 0.011));
        let row = Array::from_fn([37], |[j]| from(1.0 + j as f32 * 0.25));
        let (a, r) = (host.to_device(dev), row.to_device(dev));
        assert_eq!((&a + &r).to_host(), &host + &row);
        assert_eq!((&a * a.t().t()).to_host(), &host * &host);
        assert_eq!((&a / from(3.0)).to_host(), &host / from(3.0));
        assert_eq!((-&a).to_host(), -&host);
        assert_eq!(a.t().to_host(), host.t().to_owned());
        assert_eq!(a.max(), host.max());
        assert_eq!(a.argmin(), host.argmin());
        let stencil = LinearStencil::<T, 2, 1, 4>::new([
            ([-1, 0], from(0.25)),
            ([1, 0], from(0.25)),
            ([0, -1], from(0.25)),
            ([0, 1], from(0.25)),
        ]);
        let (mut out, mut want) = (Array::<T, 2, Cuda>::zeros_in(dev, [19, 37]), Array::<T, 2>::zeros([19, 37]));
        stencil.apply(&a, &mut out);
        stencil.apply(&host, &mut want);
        assert_eq!(out.to_host(), want);
    }
    check(&dev, half::f16::from_f32);
    check(&dev, half::bf16::from_f32);
}

/// Arrays over memory another library owns: the address of a device array wrapped again without a
/// copy (the owner kept alive by the wrapper, dropped exactly once after cnda's work on it),
/// writes through the wrapper seen by the owner, and bad addresses and sizes refused.
#[test]
fn arrays_over_foreign_device_memory_share_it_and_keep_the_owner() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    let Some(dev) = device() else { return };
    struct Owner(#[allow(dead_code)] Array<f32, 1, Cuda>, Arc<AtomicUsize>);
    impl Drop for Owner {
        fn drop(&mut self) {
            self.1.fetch_add(1, Ordering::SeqCst);
        }
    }
    let host = Array::from_fn([6 * 7], |[i]| i as f32);
    let owner = host.to_device(&dev);
    let addr = owner.device_ptr();
    assert_eq!(owner.device(), dev);
    let drops = Arc::new(AtomicUsize::new(0));
    // SAFETY: `addr` addresses the owner's 42 elements, which the wrapper keeps alive (it owns
    // the owner) and nothing else touches.
    let mut shared =
        unsafe { Array::<f32, 2, Cuda>::try_from_device_memory(&dev, addr, [6, 7], Owner(owner, drops.clone())) }
            .unwrap();
    assert_eq!(shared.device_ptr(), addr);
    assert_eq!(shared.to_host(), host.reshape([6, 7]).to_owned());
    shared += 1.0f32;
    let expected = Array::from_fn([6, 7], |[i, j]| (i * 7 + j) as f32 + 1.0);
    assert_eq!(shared.to_host(), expected);
    assert_eq!(shared.t().device_ptr(), addr);
    assert_eq!(shared.slice(s![1.., 2..]).device_ptr(), addr + 4 * 9);
    assert_eq!(drops.load(Ordering::SeqCst), 0);
    drop(shared);
    assert_eq!(drops.load(Ordering::SeqCst), 1);

    // SAFETY (all three): refused before any memory is touched.
    let misaligned = unsafe { Array::<f64, 1, Cuda>::try_from_device_memory(&dev, addr + 4, [3], ()) };
    assert!(matches!(misaligned, Err(Error::Layout { .. })), "{:?}", misaligned.err());
    let null = unsafe { Array::<f32, 1, Cuda>::try_from_device_memory(&dev, 0, [3], ()) };
    assert!(matches!(null, Err(Error::Layout { .. })), "{:?}", null.err());
    let huge = unsafe { Array::<f32, 2, Cuda>::try_from_device_memory(&dev, addr, [usize::MAX / 2, 3], ()) };
    assert!(matches!(huge, Err(Error::Overflow { .. })), "{:?}", huge.err());
    // Stream ordering with other CUDA code, through the default-stream handles every context has.
    for handle in [0usize, 1, 2] {
        // SAFETY: 0, 1 and 2 are CUDA's default-stream handles.
        unsafe { dev.make_stream_wait(handle as *mut _) }.unwrap();
        // SAFETY: as above.
        unsafe { dev.wait_for_stream(handle as *mut _) }.unwrap();
    }
    assert!(!dev.raw_stream().is_null());
    // An empty wrapper of a null address is fine: nothing is ever read.
    let empty = unsafe { Array::<f32, 2, Cuda>::try_from_device_memory(&dev, 0, [0, 5], ()) }.unwrap();
    assert_eq!(empty.to_host().shape(), [0, 5]);
}

/// Every float math function of the elementwise family, f32 and f64, on a device against the
/// CPU: the libdevice code behind them (argument reduction with local memory and `.func` calls
/// for large sines, `powf`'s exact logarithm) within a few ulps, the roundings exactly.
#[test]
fn every_float_math_function_matches_the_cpu() {
    let Some(dev) = device() else { return };
    fn check<T: Float + core::fmt::Debug>(dev: &CudaDevice, eps: f64, to: fn(T) -> f64) {
        let mut xs: Vec<f64> = (0..97).map(|k| -12.0 + 0.25 * k as f64 + 0.013).collect();
        xs.extend([0.0, -0.0, 0.5, -0.5, 2.5, -2.5, 1.0e5 + 0.3, -3.0e7, 1.0e22, 123_456.789]);
        let a = Array::from_fn([xs.len()], |[i]| T::from_f64(xs[i]));
        let pos = Array::from_fn([xs.len()], |[i]| T::from_f64(xs[i].abs() + 0.1));
        let (da, dp) = (a.to_device(dev), pos.to_device(dev));
        let close = |what: &str, got: Array<T, 1>, want: Array<T, 1>, ulps: f64| {
            for (k, (g, w)) in got.iter().zip(want.iter()).enumerate() {
                let (g, w) = (to(*g), to(*w));
                let ok = g == w || (g.is_nan() && w.is_nan()) || (g - w).abs() <= ulps * eps * w.abs().max(1.0);
                assert!(ok, "{what}({}) = {g:e} on CUDA, {w:e} on the CPU", xs[k]);
            }
        };
        close("sin", da.sin().to_host(), a.sin(), 4.0);
        close("cos", da.cos().to_host(), a.cos(), 4.0);
        close("tan", da.tan().to_host(), a.tan(), 8.0);
        close("tanh", da.tanh().to_host(), a.tanh(), 4.0);
        close("exp", da.exp().to_host(), a.exp(), 4.0);
        close("ln", dp.ln().to_host(), pos.ln(), 4.0);
        close("log10", dp.log10().to_host(), pos.log10(), 4.0);
        close("sqrt", dp.sqrt().to_host(), pos.sqrt(), 0.0);
        close("powf", dp.powf(T::from_f64(1.7)).to_host(), pos.powf(T::from_f64(1.7)), 8.0);
        close("powi", da.powi(3).to_host(), a.powi(3), 4.0);
        close("floor", da.floor().to_host(), a.floor(), 0.0);
        close("ceil", da.ceil().to_host(), a.ceil(), 0.0);
        close("round", da.round().to_host(), a.round(), 0.0);
        close("abs", da.abs().to_host(), a.abs(), 0.0);
        let (lo, hi) = (T::from_f64(-1.5), T::from_f64(2.25));
        close("clamp", da.clamp(lo, hi).to_host(), a.clamp(lo, hi), 0.0);
    }
    check::<f32>(&dev, f32::EPSILON as f64, |x| x as f64);
    check::<f64>(&dev, f64::EPSILON, |x| x);
}

#[test]
fn a_stencil_with_more_taps_than_the_kernels_take_is_a_typed_limit() {
    let Some(dev) = device() else { return };
    let taps: [([isize; 1], f32); 65] = core::array::from_fn(|k| ([k as isize - 32], 1.0));
    let wide = cnda::stencil::LinearStencil::<f32, 1, 32, 65>::new(taps);
    let u = Array::<f32, 1>::zeros([70]).to_device(&dev);
    let mut v = Array::<f32, 1>::zeros([70]).to_device(&dev);
    let e = wide.try_apply(&u, &mut v).unwrap_err();
    assert!(matches!(e, Error::Limit { got: 65, max: 64, .. }), "{e}");
    assert!(e.to_string().contains("the number of stencil taps is 65"), "{e}");
}

/// Time steps with constant halos take the time-tiled kernel (several sweeps per launch, tiles
/// in shared memory): bit-identical to the CPU's fused steps, for radii 1 and 2, coefficient
/// fields, grids that are not multiples of the tile, and step counts that need several launches.
#[test]
fn time_tiled_steps_match_the_cpu_bit_for_bit() {
    use cnda::stencil::{Boundary, DoubleBuffer};
    let Some(dev) = device() else { return };
    let wide = stencil!(|u, k; a: T| u[0, 0]
        + a * k[0, 0] * (u[-2, 0] + u[2, 0] + u[0, -1] + u[0, 1] - 4.0 * u[0, 0]) + 0.01 * u[1, -1]);
    let narrow = stencil!(|u| 0.2 * (u[-1, 0] + u[1, 0] + u[0, -1] + u[0, 1] + u[0, 0]));
    let b = [[Boundary::Value(1.5), Boundary::Fixed], [Boundary::Fixed, Boundary::Value(-0.5)]];
    for (shape, steps) in [([37, 45], 2), ([19, 70], 7), ([40, 33], 9), ([6, 5], 3)] {
        let u0 = Array::from_fn(shape, |[i, j]| ((i * 13 + j * 7) % 17) as f64 * 0.1 - 0.4);
        let u1 = Array::from_fn(shape, |[i, j]| ((i + 2 * j) % 5) as f64);
        let k = Array::from_fn(shape, |[i, j]| 0.1 + ((i * j) % 3) as f64 * 0.05);
        let mut cpu = DoubleBuffer::from_pair(u0.clone(), u1.clone());
        wide.apply_steps_with(&mut cpu, steps, &k, (0.2,), b);
        let mut gpu = DoubleBuffer::from_pair(u0.to_device(&dev), u1.to_device(&dev));
        wide.apply_steps_with(&mut gpu, steps, &k.to_device(&dev), (0.2,), b);
        assert_eq!(gpu.current().to_host(), *cpu.current(), "{shape:?} {steps} steps");
        gpu.swap();
        cpu.swap();
        assert_eq!(gpu.current().to_host(), *cpu.current(), "{shape:?} {steps} steps, the other field");

        let mut cpu = DoubleBuffer::from_pair(u0.map(|x| x as f32), u1.map(|x| x as f32));
        narrow.apply_steps_with(&mut cpu, steps, (), (), [Boundary::Fixed; 2]);
        let mut gpu =
            DoubleBuffer::from_pair(u0.map(|x| x as f32).to_device(&dev), u1.map(|x| x as f32).to_device(&dev));
        narrow.apply_steps_with(&mut gpu, steps, (), (), [Boundary::Fixed; 2]);
        assert_eq!(gpu.current().to_host(), *cpu.current(), "f32 {shape:?} {steps} steps");
    }
}

/// `assign` between device views: a halo refresh by hand, broadcasting a row, on the device.
#[test]
fn assign_between_device_views_broadcasts_on_the_device() {
    let Some(dev) = device() else { return };
    let host = Array::from_fn([6, 7], |[i, j]| (i * 7 + j) as f32);
    let mut d = host.to_device(&dev);
    let row = d.slice(s![2..3, ..]).to_owned();
    d.slice_mut(s![4.., ..]).assign(&row); // rows 4 and 5 become row 2
    let mut want = host.clone();
    let copy = host.slice(s![2..3, ..]).to_owned();
    want.slice_mut(s![4.., ..]).assign(&copy);
    assert_eq!(d.to_host(), want);
    let line = Array::from_fn([7], |[j]| -(j as f32)).to_device(&dev);
    d.assign(&line);
    assert_eq!(d.to_host(), Array::from_fn([6, 7], |[_, j]| -(j as f32)));
}

/// The time-tiled kernel in 3D (two sweeps per launch): bit-identical to the CPU, radius 1 in f64
/// with a coefficient field and radius 2 in f32, odd sizes, several launches.
#[test]
fn time_tiled_steps_in_3d_match_the_cpu_bit_for_bit() {
    use cnda::stencil::{Boundary, DoubleBuffer};
    let Some(dev) = device() else { return };
    let diffuse = stencil!(|u, k; a: T| u[0, 0, 0]
        + a * k[0, 0, 0] * (u[-1, 0, 0] + u[1, 0, 0] + u[0, -1, 0] + u[0, 1, 0] + u[0, 0, -1] + u[0, 0, 1] - 6.0 * u[0, 0, 0]));
    let wide = stencil!(|u| 0.125 * (u[-2, 0, 0] + u[2, 0, 0] + u[0, -1, 1] + u[0, 1, -1]) + 0.5 * u[0, 0, 2]);
    let b = [[Boundary::Value(2.0), Boundary::Fixed], [Boundary::Fixed; 2], [Boundary::Fixed, Boundary::Value(-1.0)]];
    for (shape, steps) in [([7, 9, 37], 3), ([5, 11, 40], 6)] {
        let u0 = Array::from_fn(shape, |[i, j, l]| ((i * 13 + j * 7 + l * 3) % 17) as f64 * 0.1 - 0.4);
        let k = Array::from_fn(shape, |[i, j, l]| 0.05 + ((i + j * l) % 3) as f64 * 0.02);
        let mut cpu = DoubleBuffer::new(u0.clone());
        diffuse.apply_steps_with(&mut cpu, steps, &k, (0.1,), b);
        let mut gpu = DoubleBuffer::new(u0.to_device(&dev));
        diffuse.apply_steps_with(&mut gpu, steps, &k.to_device(&dev), (0.1,), b);
        assert_eq!(gpu.current().to_host(), *cpu.current(), "{shape:?} {steps} steps");
        gpu.swap();
        cpu.swap();
        assert_eq!(gpu.current().to_host(), *cpu.current(), "{shape:?} {steps} steps, the other field");

        let u32 = u0.map(|x| x as f32);
        let mut cpu = DoubleBuffer::new(u32.clone());
        wide.apply_steps_with(&mut cpu, steps, (), (), [Boundary::Fixed; 3]);
        let mut gpu = DoubleBuffer::new(u32.to_device(&dev));
        wide.apply_steps_with(&mut gpu, steps, (), (), [Boundary::Fixed; 3]);
        assert_eq!(gpu.current().to_host(), *cpu.current(), "f32 radius 2 {shape:?} {steps} steps");
    }
}

/// `stencil!` stencils in the 16-bit floats: every operation in f32 rounded back, on the device
/// as on the host, so apply and the (time-tiled) steps match the CPU bit for bit.
#[test]
fn half_precision_stencils_match_the_cpu_bit_for_bit() {
    use cnda::stencil::{Boundary, DoubleBuffer};
    let Some(dev) = device() else { return };
    let s = stencil!(|u, k; a: T| u[0, 0] + a * k[0, 0] * (u[-1, 0] + u[1, 0] + u[0, -1] + u[0, 1] - 4.0 * u[0, 0])
        + 0.1 * sqrt(abs(u[1, 1])) - powi(u[0, -1], 2) * 0.05 + select(u[0, 0] > k[0, 0], 0.25, -0.25));
    fn check<T: cnda::stencil::Scalar, S>(dev: &CudaDevice, s: S)
    where
        S: Stencil<T, 2, Params = (T,), Arity = Arity<2>, Values = T>
            + cnda::stencil::Evolves<1, 1, Coefficients = Arity<2>>,
    {
        let shape = [19, 37];
        let u = Array::from_fn(shape, |[i, j]| T::from_f64(((i * 7 + j * 3) % 11) as f64 * 0.1 - 0.5));
        let k = Array::from_fn(shape, |[i, j]| T::from_f64(0.1 + ((i + j) % 3) as f64 * 0.05));
        let a = T::from_f64(0.2);
        let mut v = Array::<T, 2>::zeros(shape);
        let mut dv = v.to_device(dev);
        s.apply((&u.to_device(dev), &k.to_device(dev)), &mut dv, (a,));
        s.apply((&u, &k), &mut v, (a,));
        assert_eq!(dv.to_host(), v, "{}", T::DTYPE);
        let b = [[Boundary::Fixed; 2]; 2];
        let mut cpu = DoubleBuffer::new(u.clone());
        s.apply_steps_with(&mut cpu, 6, &k, (a,), b);
        let mut gpu = DoubleBuffer::new(u.to_device(dev));
        s.apply_steps_with(&mut gpu, 6, &k.to_device(dev), (a,), b);
        assert_eq!(gpu.current().to_host(), *cpu.current(), "{} steps", T::DTYPE);
    }
    check::<half::f16, _>(&dev, s);
    check::<half::bf16, _>(&dev, s);
}

/// `stencil!` kernels at every rank's launch shape, bit for bit with the CPU: rank 1, rank 3
/// reading a flipped field into a strided output, rank 4 with more rows folded onto the launch's
/// z than one launch holds (65,535).
#[test]
fn stencil_macro_stencils_of_every_rank_match_the_cpu() {
    let Some(dev) = device() else { return };
    let value = |i: usize| ((i * 7919) % 23) as f32 * 0.1 - 1.0;

    let line = stencil!(|u; a: f32| u[0] + a * (u[-1] - 2.0 * u[0] + u[1]));
    let u = Array::from_fn([1001], |[i]| value(i));
    let mut want = Array::<f32, 1>::full([1001], -7.0);
    let mut got = want.to_device(&dev);
    line.apply((&u.to_device(&dev),), &mut got, (0.25,));
    line.apply((&u,), &mut want, (0.25,));
    assert_eq!(got.to_host(), want, "rank 1");

    let cube =
        stencil!(|u, m| m[0, 0, 0] * (u[-1, 0, 0] + u[1, 0, 0] + u[0, -2, 0] + u[0, 2, 0] + u[0, 0, -1] + u[0, 0, 1]));
    let u = Array::from_fn([9, 12, 17], |[i, j, k]| value(i * 400 + j * 20 + k));
    let m = Array::from_fn([9, 12, 17], |[i, j, k]| value(i + j * 3 + k * 5 + 1));
    let mut want = Array::<f32, 3>::full([9, 24, 17], -7.0);
    let mut got = want.to_device(&dev);
    cube.apply((&u.flip(1).to_owned(), &m), &mut want.slice_mut(s![.., ..;2, ..]), ());
    let du = u.to_device(&dev);
    cube.apply((du.flip(1), &m.to_device(&dev)), &mut got.slice_mut(s![.., ..;2, ..]), ());
    assert_eq!(got.to_host(), want, "rank 3, flipped field, every other row of the output");

    let rows = stencil!(|u| 0.5 * (u[0, 0, -1, 0] + u[0, 0, 1, 0]) - u[0, 0, 0, 0]);
    let u = Array::from_fn([300, 219, 3, 1], |[i, j, k, _]| value(i * 700 + j * 3 + k));
    let mut want = Array::<f32, 4>::full([300, 219, 3, 1], -7.0);
    let mut got = want.to_device(&dev);
    rows.apply((&u.to_device(&dev),), &mut got, ());
    rows.apply((&u,), &mut want, ());
    assert_eq!(got.to_host(), want, "rank 4, 65,700 rows on z");
}

/// A `stencil!` kernel over more rows than a launch's y holds (65,535 blocks of 8 rows of 32),
/// bit for bit with the CPU. 17 million threads take too long on the CPU-hosted device, so it
/// runs where a GPU is (`scripts/gpu-kit` runs the ignored tests too).
#[test]
#[ignore = "minutes on the CPU-hosted device; scripts/gpu-kit runs it on a GPU"]
fn stencil_macro_stencils_past_the_launch_rows_match_the_cpu() {
    let Some(dev) = device() else { return };
    let value = |i: usize| ((i * 7919) % 23) as f32 * 0.1 - 1.0;
    let tall = stencil!(|u| u[-1, 0] - u[1, 0]);
    let u = Array::from_fn([530_000, 32], |[i, j]| value(i + j));
    let mut want = Array::<f32, 2>::full([530_000, 32], -7.0);
    let mut got = want.to_device(&dev);
    tall.apply((&u.to_device(&dev),), &mut got, ());
    tall.apply((&u,), &mut want, ());
    assert_eq!(got.to_host(), want, "rank 2, 530,000 rows of 32 on y");
}

/// The plane-marching kernel of rank-3 `stencil!` stencils (`src/backend/cuda/planes.rs`), bit
/// for bit with the CPU: column taps from registers, plane taps from shared tiles (asymmetric
/// reach, a flipped field), diagonal taps from global memory, two outputs (one strided), a field
/// read at its centre alone, each block walking several planes (the z axis split into runs), in
/// f32, f64 and f16.
#[test]
fn stencil_macro_stencils_marching_planes_match_the_cpu() {
    let Some(dev) = device() else { return };
    stencil! {
        struct Marching = |u, v, m; a: T| {
            let lap = u[-2, 0, 0] + u[1, 0, 0] + u[0, -1, 0] + u[0, 2, 0] + u[0, 0, -2] + u[0, 0, 1] - 6.0 * u[0, 0, 0];
            (
                v[0, 0, 0] + a * m[0, 0, 0] * lap + u[1, 1, 0] - u[-1, 0, -1],
                u[0, 1, -1] * v[0, 0, 0] - a * v[1, 0, 0],
            )
        };
    }
    fn check<T: cnda::stencil::Scalar + core::fmt::Debug>(dev: &CudaDevice, from: fn(f32) -> T) {
        let value = |i: usize| from(((i * 7919) % 23) as f32 * 0.1 - 1.0);
        let u = Array::from_fn([43, 22, 37], |[i, j, k]| value(i * 900 + j * 40 + k));
        let v = Array::from_fn([43, 22, 37], |[i, j, k]| value(i * 31 + j * 7 + k * 3 + 5));
        let m = Array::from_fn([40, 19, 34], |[i, j, k]| value(i + j + k + 2));
        let mut want = (Array::<T, 3>::full([40, 19, 34], from(-7.0)), Array::full([40, 38, 34], from(-7.0)));
        let mut got = (want.0.to_device(dev), want.1.to_device(dev));
        let a = (from(0.25),);
        let (hu, hv) = (u.flip(1).to_owned(), v.view());
        let (du, dv, dm) = (u.to_device(dev), v.to_device(dev), m.to_device(dev));
        let inner = s![2..42, 1..20, 2..36];
        let fields = (hu.slice(inner), hv.slice(inner), &m);
        Marching.apply(fields, (&mut want.0, &mut want.1.slice_mut(s![.., ..;2, ..])), a);
        let fields = (du.flip(1).slice(inner), dv.slice(inner), &dm);
        Marching.apply(fields, (&mut got.0, &mut got.1.slice_mut(s![.., ..;2, ..])), a);
        assert_eq!(got.0.to_host(), want.0, "{}: first output", T::DTYPE);
        assert_eq!(got.1.to_host(), want.1, "{}: second output, every other row", T::DTYPE);
    }
    check::<f32>(&dev, |x| x);
    check::<f64>(&dev, f64::from);
    check::<half::f16>(&dev, half::f16::from_f32);
}

/// Mixed precision on the device: 16-bit fields computed in f32 (the point kernel in 2D, the
/// plane-marching kernel in 3D) and f32 fields accumulated in f64 over time steps, bit for bit
/// with the CPU.
#[test]
fn mixed_precision_stencils_match_the_cpu_bit_for_bit() {
    let Some(dev) = device() else { return };
    stencil! {
        #[compute(f32)]
        struct Heat16 = |u, k; dt: f32| u[0, 0] + dt * k[0, 0] * (u[-1, 0] + u[1, 0] + u[0, -1] + u[0, 1] - 4.0 * u[0, 0]);
    }
    stencil! {
        #[compute(f32)]
        struct Cube16 = |u; c: f32| u[0, 0, 0] + c * (u[-1, 0, 0] + u[1, 0, 0] + u[0, -1, 0] + u[0, 1, 0] + u[0, 0, -1] + u[0, 0, 1] - 6.0 * u[0, 0, 0]);
    }
    stencil! {
        #[compute(f64)]
        #[levels(2)]
        struct Wave64 = |u, um; c: f64| 1.9 * u[0, 0] - 0.9 * um[0, 0] + c * (u[-1, 0] + u[1, 0] + u[0, -1] + u[0, 1] - 4.0 * u[0, 0]);
    }
    fn check<T: cnda::stencil::Scalar + core::fmt::Debug>(dev: &CudaDevice, from: fn(f32) -> T)
    where
        f32: cnda::stencil::Widen<T>,
    {
        let value = |i: usize| from(((i * 7919) % 23) as f32 * 0.1 - 1.0);
        let u = Array::from_fn([19, 23], |[i, j]| value(i * 40 + j));
        let k = Array::from_fn([19, 23], |[i, j]| value(i + j * 3).abs());
        let mut want = Array::<T, 2>::full([19, 23], from(-7.0));
        let mut got = want.to_device(dev);
        Heat16.apply((&u, &k), &mut want, (0.3,));
        Heat16.apply((&u.to_device(dev), &k.to_device(dev)), &mut got, (0.3,));
        assert_eq!(got.to_host(), want, "{}: 2D, computed in f32", T::DTYPE);
        // Time steps with constant halos: the time-tiled kernel, its tiles in the fields' type.
        let walls = [[Boundary::Value(from(0.5)), Boundary::Fixed]; 2];
        let mut cpu = cnda::stencil::DoubleBuffer::new(u.clone());
        Heat16.apply_steps_with(&mut cpu, 9, &k, (0.2,), walls);
        let mut gpu = cnda::stencil::DoubleBuffer::new(u.to_device(dev));
        Heat16.apply_steps_with(&mut gpu, 9, &k.to_device(dev), (0.2,), walls);
        assert_eq!(gpu.current().to_host(), *cpu.current(), "{}: 9 tiled steps, computed in f32", T::DTYPE);
        let u = Array::from_fn([14, 11, 37], |[i, j, l]| value(i * 900 + j * 40 + l));
        let mut want = Array::<T, 3>::full([14, 11, 37], from(-7.0));
        let mut got = want.to_device(dev);
        Cube16.apply((&u,), &mut want, (0.15,));
        Cube16.apply((&u.to_device(dev),), &mut got, (0.15,));
        assert_eq!(got.to_host(), want, "{}: 3D planes, computed in f32", T::DTYPE);
    }
    check::<half::f16>(&dev, half::f16::from_f32);
    check::<half::bf16>(&dev, half::bf16::from_f32);
    check::<f32>(&dev, |x| x);
    let pulse =
        Array::from_fn([17, 21], |[i, j]| (-(((i as f32 - 8.0).powi(2) + (j as f32 - 10.0).powi(2)) / 6.0)).exp());
    let b = [Boundary::Value(0.125), Boundary::Periodic];
    let mut cpu = State::from_interior_levels([[pulse.clone(), pulse.clone()]], Wave64::RADIUS);
    Wave64.apply_steps_with(&mut cpu, 7, (), (0.2,), b);
    let mut gpu = State::from_interior_levels([[pulse.to_device(&dev), pulse.to_device(&dev)]], Wave64::RADIUS);
    Wave64.apply_steps_with(&mut gpu, 7, (), (0.2,), b);
    assert_eq!(gpu.interior(0).to_host(), cpu.interior(0).to_owned(), "f32 fields in f64, 7 steps");
    // f64 values below f32's smallest normal: flushed again once narrowed, as on the CPU.
    stencil! {
        #[compute(f64)]
        struct Scale = |u; c: f64| c * u[0];
    }
    let u = Array::from_shape_vec([4], vec![1e-30f32, -1e-30, 1.0, 3e-28]).unwrap();
    let mut want = Array::<f32, 1>::full([4], 7.0);
    let mut got = want.to_device(&dev);
    Scale.apply((&u,), &mut want, (1e-10,));
    Scale.apply((&u.to_device(&dev),), &mut got, (1e-10,));
    assert_eq!(want.as_slice()[..2], [0.0, -0.0]);
    assert_eq!(
        got.to_host().as_slice().iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
        want.as_slice().iter().map(|x| x.to_bits()).collect::<Vec<_>>()
    );
}

#[cfg(feature = "text")]
#[path = "common/text_wave.rs"]
mod text_wave;

/// A stencil read from text runs the kernel generated from its data, bit for bit with the CPU's
/// (compiled rows), in single sweeps of two values through strided views and in fused-or-not
/// time steps of two levels with boundaries; the kernel is cached by the expression.
#[cfg(feature = "text")]
#[test]
fn text_stencils_match_the_cpu_bit_for_bit() {
    use cnda::stencil::TextStencil;
    let Some(dev) = device() else { return };
    let system = TextStencil::<2>::parse(
        "|u, k; dt| { let uv = u[0, 0] * k[0, 0]; (u[0, 0] + dt * (u[-1, 0] + u[1, 0] + u[0, -1] + u[0, 1] - 4.0 * u[0, 0]) - uv, \
         select(u[0, 1] > k[1, 0], min(uv, dt).exp(), max(u[0, 0].sqrt(), -1.5) / (1.0 + k[0, 0].powi(2)))) }",
    );
    let u = Array::from_fn([33, 47], |[i, j]| ((i * 7 + j * 3) % 11) as f64 * 0.1);
    let k = Array::from_fn([47, 33], |[i, j]| 0.5 + ((i + j) % 3) as f64 * 0.25);
    let (mut w0, mut w1) = (Array::<f64, 2>::full([33, 47], -1.0), Array::<f64, 2>::full([33, 47], -2.0));
    let (mut o0, mut o1) = (w0.to_device(&dev), w1.to_device(&dev));
    let (ud, kd) = (u.to_device(&dev), k.to_device(&dev));
    system.apply(&[ud.view().into_strided(), kd.t().into_strided()], &mut [o0.view_mut(), o1.view_mut()], &[0.1]);
    system.apply(&[u.view().into_strided(), k.t().into_strided()], &mut [w0.view_mut(), w1.view_mut()], &[0.1]);
    assert_eq!((o0.to_host(), o1.to_host()), (w0, w1));
    let (host, device) = text_wave::host_and_device(|a| a.to_device(&dev), |a| a.to_host());
    assert_eq!(device, host);
}
