//! How many steps one fused pass should take: 64 steps of an 8th-order diffusion (`f32`, 200^3,
//! radius 4: the shape of Devito's benchmark) and of a 5-point diffusion (`f64`, 4096^2, radius
//! 1). With `CNDA_FUSED_DEPTH` set high (so `apply_steps` fuses whatever one call asks), the
//! steps run in calls of `depth` steps each, from 1 to all 64: each call one fused pass. Without
//! it, all 64 steps go to one call, which cuts them into passes of the depth measured at run time
//! (`auto`: `fused/tune.rs`; with `CNDA_FUSED_TUNE=off`, passes that fit the level-2 cache). A
//! pass holds about `(depth + 1) * radius` hyperplanes of each field in flight; past the caches,
//! a deeper pass gets slower again.
//!
//! `CNDA_FUSED_DEPTH=1000 cargo bench --bench fused_depth; cargo bench --bench fused_depth;
//! CNDA_FUSED_TUNE=off cargo bench --bench fused_depth`

use cnda::prelude::*;
use cnda::stencil::{stencil, Boundary, DoubleBuffer, StencilApply};
use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};

const STEPS: usize = 64;

stencil! {
    /// Explicit diffusion with the 25-point Laplacian.
    struct Diffuse3 = |u; c: f32| u[0, 0, 0] + c * laplace(u, 8);
}

stencil! {
    /// Explicit diffusion with the 5-point Laplacian.
    struct Diffuse2 = |u; c: f64| u[0, 0] + c * laplace(u, 2);
}

/// `STEPS` steps of `s` in calls of `depth` steps.
fn run<S, T: cnda::stencil::Scalar, const N: usize>(s: S, c: T, field: &mut DoubleBuffer<T, N>, depth: usize, par: bool)
where
    S: StencilApply<T, N>
        + cnda::stencil::Stencil<T, N, Params = (T,)>
        + cnda::stencil::Evolves<1, 1, Coefficients = cnda::stencil::Arity<1>>,
{
    let walls = [[Boundary::Fixed; 2]; N];
    let mut done = 0;
    while done < STEPS {
        let k = depth.min(STEPS - done);
        if par {
            s.par_apply_steps_with(field, k, (), (c,), walls);
        } else {
            s.apply_steps_with(field, k, (), (c,), walls);
        }
        done += k;
    }
}

fn case<S, T: cnda::stencil::Scalar, const N: usize>(c: &mut Criterion, name: &str, s: S, coef: T, initial: Array<T, N>)
where
    S: StencilApply<T, N>
        + cnda::stencil::Stencil<T, N, Params = (T,)>
        + cnda::stencil::Evolves<1, 1, Coefficients = cnda::stencil::Arity<1>>,
{
    let forced = std::env::var("CNDA_FUSED_DEPTH").is_ok();
    let mut reference = DoubleBuffer::new(initial.clone());
    run(s, coef, &mut reference, 1, false);
    let points: usize = initial.shape().iter().product();
    let mut group = c.benchmark_group(format!("fused_depth_{name}_{STEPS}_steps"));
    group.sample_size(10);
    group.throughput(Throughput::Elements((points * STEPS) as u64));
    let depths: &[usize] = if forced { &[1, 4, 8, 16, 32, STEPS] } else { &[STEPS] };
    for par in [false, true] {
        for &depth in depths {
            let mut field = DoubleBuffer::new(initial.clone());
            run(s, coef, &mut field, depth, par);
            assert!(field.current() == reference.current(), "depth {depth}: the same steps");
            let label = if forced { format!("depth_{depth}") } else { "auto".to_owned() };
            let p = if par { "par_" } else { "" };
            group.bench_function(format!("{p}{label}"), |b| b.iter(|| run(s, coef, black_box(&mut field), depth, par)));
        }
    }
    group.finish();
}

fn fused_depth(c: &mut Criterion) {
    let n = 200;
    let cube = Array::from_fn([n, n, n], |[i, j, k]| ((i * 7 + j * 13 + k * 3) % 17) as f32 / 17.0);
    case(c, "so8_f32_200^3", Diffuse3, 0.05_f32, cube);
    let n = 4096;
    let square = Array::from_fn([n, n], |[i, j]| ((i * 7 + j * 13) % 17) as f64 / 17.0);
    case(c, "5pt_f64_4096^2", Diffuse2, 0.2_f64, square);
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(std::time::Duration::from_secs(1))
        .measurement_time(std::time::Duration::from_secs(6))
}

criterion_group! { name = benches; config = config(); targets = fused_depth }
criterion_main!(benches);
