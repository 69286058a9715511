//! The WebGPU backend on this machine's adapter (Mesa's lavapipe in CI, which scripts/test
//! installs): opening, round trips, and first ops against the CPU. The conformance suite
//! (tests/conformance) runs every op family on it.
#![cfg(feature = "wgpu")]

use cnda::prelude::*;

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
fn round_trips_and_first_ops() {
    let Some(dev) = device() else { return };
    eprintln!("adapter: {}", dev.adapter());
    let a = Array::from_fn([37, 53], |[i, j]| (i * 53 + j) as f32);
    let d = a.to_device(&dev);
    assert_eq!(d.to_host(), a);
    assert_eq!(d.t().to_host(), a.t().to_owned());
    assert_eq!((&d + 1.0f32).to_host(), &a + 1.0f32);
    assert_eq!((&d * &d).to_host(), &a * &a);
    assert_eq!(d.sum(), a.sum());
    let z = Array::<f32, 3, Wgpu>::zeros_in(&dev, [2, 0, 4]);
    assert_eq!(z.to_host().shape(), [2, 0, 4]);
    let ints = Array::from_fn([5, 7], |[i, j]| (i as i32 - 2) * (j as i32));
    assert_eq!((&ints.to_device(&dev) - 3).to_host(), &ints - 3);
    dev.synchronize().unwrap();
}

#[test]
fn f64_computes_where_the_adapter_has_it_and_is_a_clear_error_elsewhere() {
    let Some(dev) = device() else { return };
    let host = Array::from_fn([13, 21], |[i, j]| 1.0 / (1 + i * 21 + j) as f64);
    let a = host.to_device(&dev);
    if !dev.supports::<f64>() {
        let Err(e) = a.try_add(&a) else { panic!("f64 should be refused on {}", dev.adapter()) };
        assert!(matches!(e, Error::UnsupportedDType { .. }), "{e}");
        assert!(e.to_string().contains("SHADER_F64"), "{e}");
        return;
    }
    // Exactly the host's f64 arithmetic (the conformance suite covers every op family).
    assert_eq!((&a * a.t().t()).to_host(), &host * &host);
    assert_eq!((&a + 1e-300).to_host(), &host + 1e-300, "an f64 scalar no f32 could carry");
    assert_eq!(a.t().to_host(), host.t().to_owned());
    // Vulkan shaders have no f64 transcendentals: a clear refusal, never an f32 approximation.
    let Err(e) = a.try_exp() else { panic!("f64 exp should be refused") };
    assert!(matches!(e, Error::UnsupportedDType { .. }) && e.to_string().contains("no f64 exp"), "{e}");
    assert!(a.try_sqrt().is_ok(), "sqrt has an f64 form");
}

#[test]
fn f16_computes_where_the_adapter_has_it() {
    use half::f16;
    let Some(dev) = device() else { return };
    let host = Array::from_fn([9, 15], |[i, j]| f16::from_f32((i as f32 - 4.0) * 0.25 + j as f32 * 0.125));
    let a = host.to_device(&dev);
    if !dev.supports::<f16>() {
        assert!(matches!(a.try_add(&a), Err(Error::UnsupportedDType { .. })));
        return;
    }
    // Every value and sum here is exact in f16, so the device must match the host exactly.
    let two = f16::from_f32(2.0);
    assert_eq!((&a + &a).to_host(), &host + &host);
    assert_eq!((&a * two).to_host(), &host * two);
    assert_eq!(a.t().to_host(), host.t().to_owned(), "a strided copy of 2-byte elements");
    assert_eq!(a.slice(s![3.., 1..]).to_host(), host.slice(s![3.., 1..]).to_owned(), "odd offsets");
    assert_eq!(a.slice(s![2..3, 5..12]).to_host(), host.slice(s![2..3, 5..12]).to_owned(), "an odd read-back");
    assert_eq!(a.sum(), host.sum());
    assert_eq!(a.max(), host.max());
    let flipped = a.slice(s![..;-1, ..]).to_owned(); // the copy kernel, a negative stride
    assert_eq!(flipped.to_host(), host.slice(s![..;-1, ..]).to_owned());
    assert_eq!((-&a).to_host(), -&host);
    let mut z = Array::<f16, 2, Wgpu>::zeros_in(&dev, [3, 5]); // an odd number of f16 (15 x 2 bytes)
    z.fill(two);
    assert_eq!(z.to_host(), Array::full([3, 5], two));
}

#[test]
fn arrays_beyond_the_binding_limit_are_refused() {
    let Some(dev) = device() else { return };
    let too_many = (dev.max_binding_bytes() / 4 + 1) as usize;
    let Err(e) = Array::<f32, 1, Wgpu>::try_zeros_in(&dev, [too_many]) else { panic!("should be refused") };
    assert!(e.to_string().contains("exceeds the largest buffer the adapter"), "{e}");
}

/// Every node kind validates as WGSL in both of WGSL's stencil types; the types WGSL stencils do
/// not compute in are a typed refusal.
#[test]
fn every_node_kind_validates_in_f32_and_f16() {
    use cnda::backend::wgpu::{shaders::validate, stencil_shader};
    use cnda::stencil::{stencil, Scalar, Stencil};
    let s = stencil!(|u, k; a, b| select(
        (u[0, 0] < a && !(k[0, 1] >= b)) || u[1, 0] == u[-1, 0] || u[0, -1] != 1e39 && k[0, 0] <= 2 && u[0, 0] > 0,
        sqrt(u[0, 0]) + exp(u[1, 0]) - ln(abs(u[-1, 0])) * sin(k[0, 1]) / cos(k[0, 0]),
        -tanh(floor(u[0, -1])).min(a).max(b) + powi(u[0, 1], -2147483648) + powi(k[0, 0], 0)
    ));
    fn shader<S: Stencil<T, 2>, T: Scalar>(_: &S) -> Result<String, Error> {
        stencil_shader::<S, T, 2>()
    }
    validate("f32", &shader::<_, f32>(&s).unwrap()).unwrap();
    validate("f16", &shader::<_, half::f16>(&s).unwrap()).unwrap();
    assert!(matches!(shader::<_, f64>(&s), Err(Error::UnsupportedDType { .. })));
    assert!(matches!(shader::<_, half::bf16>(&s), Err(Error::UnsupportedDType { .. })));
}

#[test]
fn a_stencil_macro_shader_validates_and_matches_the_cpu() {
    use cnda::backend::wgpu::{shaders::validate, stencil_shader};
    use cnda::stencil::{stencil, Stencil};
    fn shader<S: Stencil<f32, 2>>(_: &S) -> Result<String, Error> {
        stencil_shader::<S, f32, 2>()
    }
    let step = stencil!(|u, k; dt: T| u[0, 0]
        + dt * (1.0 + u[0, 0] * u[0, 0]) * k[0, 1] * (u[-1, 0] + u[1, 0] + u[0, -1] + u[0, 1] - 4.0 * u[0, 0])
        + select(u[0, 0] > 0.5, powi(u[1, 1], 3), -sqrt(abs(u[-1, -1]))));
    // The shader validates with naga without an adapter.
    validate("stencil! shader", &shader(&step).unwrap()).unwrap();
    let Some(dev) = device() else { return };
    let u = Array::from_fn([33, 47], |[i, j]| ((i * 7 + j * 3) % 11) as f32 * 0.1);
    let k = Array::from_fn([33, 47], |[i, j]| 0.5 + ((i + j) % 3) as f32 * 0.25);
    let mut want = Array::<f32, 2>::full([33, 47], -1.0);
    let mut o = want.to_device(&dev);
    step.apply((&u.to_device(&dev), &k.to_device(&dev)), &mut o, (0.1,));
    step.apply((&u, &k), &mut want, (0.1,));
    let got = o.to_host();
    // lavapipe may fuse a multiply and an add (Vulkan allows it): within a few ulps of the CPU.
    assert!(got.iter().zip(want.iter()).all(|(a, b)| (a - b).abs() <= 1e-6 * b.abs().max(1.0)), "{got}\n{want}");
    assert_eq!(got[[0, 0]], -1.0, "the boundary is left alone");
    // f64 has no WGSL expression: a typed error, not a shader failure.
    let u64 = Array::<f64, 2>::zeros([4, 4]).to_device(&dev);
    let mut v64 = Array::<f64, 2>::zeros([4, 4]).to_device(&dev);
    let smooth = stencil!(|u| 0.5 * u[0, 0]);
    if dev.supports::<f64>() {
        let e = smooth.try_apply(&u64, &mut v64, ()).unwrap_err();
        assert!(matches!(e, Error::UnsupportedDType { .. }), "{e}");
    }
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

/// Time steps with constant halos take the time-tiled shader (several sweeps per dispatch, tiles
/// in workgroup memory): the CPU's result within a few ulps per sweep (Vulkan may fuse a multiply
/// and an add), for radii 1 and 2, a coefficient field, and step counts needing several
/// dispatches; the halos are left as they were.
#[test]
fn time_tiled_steps_match_the_cpu() {
    use cnda::stencil::{stencil, Boundary, DoubleBuffer};
    let Some(dev) = device() else { return };
    let wide = stencil!(|u, k; a: T| u[0, 0]
        + a * k[0, 0] * (u[-2, 0] + u[2, 0] + u[0, -1] + u[0, 1] - 4.0 * u[0, 0]) + 0.01 * u[1, -1]);
    let b = [[Boundary::Value(1.5f32), Boundary::Fixed], [Boundary::Fixed, Boundary::Value(-0.5)]];
    for (shape, steps) in [([37, 45], 2), ([19, 70], 7), ([40, 33], 9)] {
        let u0 = Array::from_fn(shape, |[i, j]| ((i * 13 + j * 7) % 17) as f32 * 0.1 - 0.4);
        let u1 = Array::from_fn(shape, |[i, j]| ((i + 2 * j) % 5) as f32);
        let k = Array::from_fn(shape, |[i, j]| 0.1 + ((i * j) % 3) as f32 * 0.05);
        let mut cpu = DoubleBuffer::from_pair(u0.clone(), u1.clone());
        wide.apply_steps_with(&mut cpu, steps, &k, (0.2,), b);
        let mut gpu = DoubleBuffer::from_pair(u0.to_device(&dev), u1.to_device(&dev));
        wide.apply_steps_with(&mut gpu, steps, &k.to_device(&dev), (0.2,), b);
        for _ in 0..2 {
            let (got, want) = (gpu.current().to_host(), cpu.current().clone());
            let close = got.iter().zip(want.iter()).all(|(g, w)| (g - w).abs() <= 1e-5 * w.abs().max(1.0));
            let first = got.indexed_iter().find(|(ix, g)| (**g - want[*ix]).abs() > 1e-5 * want[*ix].abs().max(1.0));
            assert!(
                close,
                "{shape:?} {steps} steps: first difference {first:?}, want {:?}",
                first.map(|(ix, _)| want[ix])
            );
            gpu.swap();
            cpu.swap();
        }
    }
}

/// The time-tiled shader in 3D (two sweeps per dispatch, f32): the CPU's result within a few
/// ulps per sweep, odd sizes, several dispatches.
#[test]
fn time_tiled_steps_in_3d_match_the_cpu() {
    use cnda::stencil::{stencil, Boundary, DoubleBuffer};
    let Some(dev) = device() else { return };
    let smooth = stencil!(|u; a: T| u[0, 0, 0]
        + a * (u[-1, 0, 0] + u[1, 0, 0] + u[0, -1, 0] + u[0, 1, 0] + u[0, 0, -1] + u[0, 0, 1] - 6.0 * u[0, 0, 0]));
    let b =
        [[Boundary::Value(2.0f32), Boundary::Fixed], [Boundary::Fixed; 2], [Boundary::Fixed, Boundary::Value(-1.0)]];
    for (shape, steps) in [([7, 9, 37], 1), ([7, 9, 37], 3), ([5, 11, 40], 6)] {
        let u0 = Array::from_fn(shape, |[i, j, l]| ((i * 13 + j * 7 + l * 3) % 17) as f32 * 0.1 - 0.4);
        let mut cpu = DoubleBuffer::new(u0.clone());
        smooth.apply_steps_with(&mut cpu, steps, (), (0.1,), b);
        let mut gpu = DoubleBuffer::new(u0.to_device(&dev));
        smooth.apply_steps_with(&mut gpu, steps, (), (0.1,), b);
        for _ in 0..2 {
            let (got, want) = (gpu.current().to_host(), cpu.current().clone());
            let close = got.iter().zip(want.iter()).all(|(g, w)| (g - w).abs() <= 1e-5 * w.abs().max(1.0));
            let first = got.indexed_iter().find(|(ix, g)| (**g - want[*ix]).abs() > 1e-5 * want[*ix].abs().max(1.0));
            assert!(
                close,
                "{shape:?} {steps} steps: first difference {first:?}, want {:?}",
                first.map(|(ix, _)| want[ix])
            );
            gpu.swap();
            cpu.swap();
        }
    }
}

/// `stencil!` in f16 where the adapter has shader f16: the CPU's f16 result (every operation
/// through f32, rounded back) within an ulp or so; without it, a typed refusal.
#[test]
fn half_precision_stencils_on_webgpu() {
    use cnda::stencil::stencil;
    use half::f16;
    let Some(dev) = device() else { return };
    let s = stencil!(|u, k; a: T| u[0, 0] + a * k[0, 0] * (u[-1, 0] + u[1, 0] + u[0, -1] + u[0, 1] - 4.0 * u[0, 0])
        + 0.1 * sqrt(abs(u[1, 1])));
    let shape = [17, 29];
    let u = Array::from_fn(shape, |[i, j]| f16::from_f64(((i * 7 + j * 3) % 11) as f64 * 0.1 - 0.5));
    let k = Array::from_fn(shape, |[i, j]| f16::from_f64(0.1 + ((i + j) % 3) as f64 * 0.05));
    let a = f16::from_f64(0.2);
    let mut want = Array::<f16, 2>::zeros(shape);
    s.apply((&u, &k), &mut want, (a,));
    let mut d = Array::<f16, 2>::zeros(shape).to_device(&dev);
    let result = s.try_apply((&u.to_device(&dev), &k.to_device(&dev)), &mut d, (a,));
    if !dev.supports::<f16>() {
        assert!(matches!(result, Err(Error::UnsupportedDType { .. })), "{result:?}");
        return;
    }
    result.unwrap();
    let got = d.to_host();
    let close =
        got.iter().zip(want.iter()).all(|(g, w)| (g.to_f32() - w.to_f32()).abs() <= 2e-3 * w.to_f32().abs().max(1.0));
    assert!(close, "{got}\n{want}");
}

/// The time-tiled shader computes exactly what separate sweeps on the same device compute.
#[test]
fn time_tiled_steps_equal_separate_sweeps_on_the_device() {
    use cnda::stencil::{stencil, Boundary, DoubleBuffer};
    let Some(dev) = device() else { return };
    let s = stencil!(|u, k; a: T| u[0, 0] + a * k[0, 0] * (u[-2, 0] + u[2, 0] + u[0, -1] + u[0, 1] - 4.0 * u[0, 0]) + 0.01 * u[1, -1]);
    let shape = [40, 33];
    let u0 = Array::from_fn(shape, |[i, j]| ((i * 13 + j * 7) % 17) as f32 * 0.1 - 0.4);
    let k = Array::from_fn(shape, |[i, j]| 0.1 + ((i * j) % 3) as f32 * 0.05).to_device(&dev);
    let mut tiled = DoubleBuffer::new(u0.to_device(&dev));
    s.apply_steps_with(&mut tiled, 9, &k, (0.2,), [Boundary::Fixed; 2]);
    let mut separate = DoubleBuffer::new(u0.to_device(&dev));
    for _ in 0..9 {
        let (u, v) = separate.split();
        s.apply((u, &k), v, (0.2,));
        separate.swap();
    }
    assert_eq!(tiled.current().to_host(), separate.current().to_host());
}

#[test]
fn min_and_max_propagate_nan_as_on_the_cpu() {
    let Some(dev) = device() else { return };
    for at in [0, 1, 700, 1999] {
        let mut host = Array::from_fn([2000], |[i]| i as f32 - 900.0);
        host[[at]] = f32::NAN;
        let d = host.to_device(&dev);
        assert!(d.max().unwrap().is_nan() && host.max().unwrap().is_nan(), "max, NaN at {at}");
        assert!(d.min().unwrap().is_nan(), "min, NaN at {at}");
        assert_eq!(d.argmax(), host.argmax(), "argmax, NaN at {at}");
        assert!((&d - &d).abs().max().unwrap().is_nan(), "|d - d| keeps the NaN");
    }
}

#[test]
fn ops_between_parts_of_one_buffer_run_as_on_the_cpu() {
    let Some(dev) = device() else { return };
    let host = Array::from_fn([4, 6], |[i, j]| (i * 6 + j) as f32);
    let (mut h, mut d) = (host.clone(), host.to_device(&dev));
    {
        let ((mut ht, hb), (mut dt, db)) = (h.view_mut().split_at(0, 2), d.view_mut().split_at(0, 2));
        ht.assign(&hb); // a copy from the other half of one buffer
        dt.assign(&db);
        ht += &hb; // an in-place update from it
        dt += &db;
    }
    assert_eq!(d.to_host(), h);
    {
        let ((ht, hb), (dt, db)) = (h.view_mut().split_at(1, 3), d.view_mut().split_at(1, 3));
        assert_eq!((&dt * &db).to_host(), &ht * &hb, "two halves of one buffer as operands");
    }
}

#[test]
fn a_variable_stencil_between_parts_of_one_buffer_runs_as_on_the_cpu() {
    use cnda::stencil::VariableStencil;
    let Some(dev) = device() else { return };
    let s = VariableStencil::new([[0, -1], [0, 0], [0, 1]]);
    // Input, output and one coefficient field as three bands of one array.
    let host = Array::from_fn([9, 7], |[i, j]| ((i * 7 + j) % 5) as f32 * 0.5 + 0.25);
    let (mut h, mut d) = (host.clone(), host.to_device(&dev));
    {
        let (top, rest) = h.view_mut().split_at(0, 3);
        let (mut middle, bottom) = rest.split_at(0, 3);
        let k = [bottom.view(), bottom.view(), top.view()];
        s.apply(top.view(), &k, middle.view_mut());
    }
    {
        let (top, rest) = d.view_mut().split_at(0, 3);
        let (mut middle, bottom) = rest.split_at(0, 3);
        let k = [bottom.view(), bottom.view(), top.view()];
        s.apply(top.view(), &k, middle.view_mut());
    }
    assert_eq!(d.to_host(), h);
}

/// Mixed precision in WGSL: f16 fields computed in f32 (where the adapter has f16), bit for bit
/// with the CPU on lavapipe; f32 fields computed in f64 are refused (WGSL stencils have no f64),
/// with a typed error that says what to do.
#[test]
fn mixed_precision_stencils_compute_in_f32_and_refuse_f64() {
    use cnda::stencil::stencil;
    use half::f16;
    let Some(dev) = device() else { return };
    stencil! {
        #[compute(f32)]
        struct Heat16 = |u, k; dt: f32| u[0, 0] + dt * k[0, 0] * (u[-1, 0] + u[1, 0] + u[0, -1] + u[0, 1] - 4.0 * u[0, 0]);
    }
    stencil! {
        #[compute(f64)]
        struct Heat64 = |u; dt: f64| u[0, 0] + dt * (u[-1, 0] + u[1, 0] - 2.0 * u[0, 0]);
    }
    let value = |i: usize| ((i * 7919) % 23) as f32 * 0.1 - 1.0;
    let u32s = Array::from_fn([9, 13], |[i, j]| value(i * 20 + j));
    let mut out = Array::<f32, 2, Wgpu>::zeros_in(&dev, [9, 13]);
    let e = Heat64.try_apply((&u32s.to_device(&dev),), &mut out, (0.25,)).unwrap_err();
    assert!(matches!(e, Error::UnsupportedDType { .. }) && e.to_string().contains("#[compute(f64)]"), "{e}");
    if !dev.supports::<f16>() {
        return;
    }
    let u = u32s.map(f16::from_f32);
    let k = Array::from_fn([9, 13], |[i, j]| f16::from_f32(value(i + 3 * j).abs()));
    let mut want = Array::<f16, 2>::full([9, 13], f16::from_f32(-7.0));
    let mut got = want.to_device(&dev);
    Heat16.apply((&u, &k), &mut want, (0.3,));
    Heat16.apply((&u.to_device(&dev), &k.to_device(&dev)), &mut got, (0.3,));
    // Bit for bit on lavapipe; a GPU's driver may fuse multiply-adds (a few ulps).
    let got = got.to_host();
    if format!("{dev:?}").contains("(Cpu") {
        assert_eq!(got, want, "f16 fields computed in f32");
    }
    for (g, w) in got.iter().zip(want.iter()) {
        assert!((g.to_f32() - w.to_f32()).abs() <= 4.0 * f16::EPSILON.to_f32() * w.to_f32().abs().max(1.0), "{g} {w}");
    }
}

#[cfg(feature = "text")]
#[path = "common/text_wave.rs"]
mod text_wave;

/// A stencil read from text runs the shader generated from its data on the adapter, as the CPU
/// computes it (within a few ulps: lavapipe may fuse a multiply and an add), in a sweep of two
/// values and in time steps with periodic and mirrored sides.
#[cfg(feature = "text")]
#[test]
fn text_stencils_match_the_cpu() {
    use cnda::stencil::TextStencil;
    let Some(dev) = device() else { return };
    let close = |got: &Array<f32, 2>, want: &Array<f32, 2>| {
        assert!(got.iter().zip(want.iter()).all(|(a, b)| (a - b).abs() <= 1e-5 * b.abs().max(1.0)), "{got}\n{want}");
    };
    let system = TextStencil::<2>::parse(
        "|u, k; dt| { let uv = u[0, 0] * k[0, 0]; (u[0, 0] + dt * (u[-1, 0] + u[1, 0] + u[0, -1] + u[0, 1] - 4.0 * u[0, 0]) - uv, \
         select(u[0, 1] > k[1, 0], min(uv, dt), max(u[0, 0].sqrt(), -1.5) / (1.0 + k[0, 0].powi(2)))) }",
    );
    let u = Array::from_fn([33, 47], |[i, j]| ((i * 7 + j * 3) % 11) as f32 * 0.1);
    let k = Array::from_fn([33, 47], |[i, j]| 0.5 + ((i + j) % 3) as f32 * 0.25);
    let (mut w0, mut w1) = (Array::<f32, 2>::full([33, 47], -1.0), Array::<f32, 2>::full([33, 47], -2.0));
    let (mut o0, mut o1) = (w0.to_device(&dev), w1.to_device(&dev));
    system.apply(&[&u.to_device(&dev), &k.to_device(&dev)], &mut [&mut o0, &mut o1], &[0.1]);
    system.apply(&[&u, &k], &mut [&mut w0, &mut w1], &[0.1]);
    close(&o0.to_host(), &w0);
    close(&o1.to_host(), &w1);
    let (host, device) = text_wave::host_and_device(|a| a.to_device(&dev), |a| a.to_host());
    close(&device[0], &host[0]);
    close(&device[1], &host[1]);
}
