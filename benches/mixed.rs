//! Mixed precision on the CPU: 8 fused time steps of a diffusion `stencil!` (2048^2, zero
//! walls) over f32 fields computed in f32 (the baseline), over f32 fields accumulated in f64
//! (`#[compute(f64)]`), over f64 fields, over f16 fields computed in f32 (`#[compute(f32)]`), and
//! over f16 fields rounding every operation to f16; each against the raw loop of the same
//! arithmetic (the f32 one for the f32 baseline, the f64-accumulating one for `#[compute(f64)]`),
//! checked bit for bit first. One thread, and rayon's threads.
//!
//! `cargo bench --bench mixed`

use cnda::prelude::*;
use cnda::stencil::{self, DoubleBuffer, Scalar};
use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use half::f16;

const N: usize = 2048;
const STEPS: usize = 8;

stencil! {
    /// The diffusion step in the fields' own type.
    struct Own = |u; a: T| u[0, 0] + a * (u[-1, 0] + u[1, 0] + u[0, -1] + u[0, 1] - 4.0 * u[0, 0]);
}

stencil! {
    /// The same step over f16, bf16 or f32 fields, computed in f32.
    #[compute(f32)]
    struct In32 = |u; a: f32| u[0, 0] + a * (u[-1, 0] + u[1, 0] + u[0, -1] + u[0, 1] - 4.0 * u[0, 0]);
}

stencil! {
    /// The same step over f32 or f64 fields, computed in f64.
    #[compute(f64)]
    struct In64 = |u; a: f64| u[0, 0] + a * (u[-1, 0] + u[1, 0] + u[0, -1] + u[0, 1] - 4.0 * u[0, 0]);
}

/// A field of mixed magnitudes (no subnormals), zero on the walls.
fn field<T: Scalar>(from: fn(f64) -> T) -> Array<T, 2> {
    Array::from_fn([N, N], |[i, j]| {
        let wall = i == 0 || j == 0 || i == N - 1 || j == N - 1;
        from(if wall { 0.0 } else { 0.25 + ((i * 31 + j * 17) % 101) as f64 / 101.0 })
    })
}

fn steps<S: stencil::StencilApply<T, 2> + stencil::Evolves<1, 1, Coefficients = stencil::Arity<1>>, T: Scalar>(
    s: S,
    u: &Array<T, 2>,
    a: S::Params,
    parallel: bool,
) -> Array<T, 2> {
    let mut f = DoubleBuffer::new(u.clone());
    let walls = [[stencil::Boundary::Value(T::zeroed()); 2]; 2];
    if parallel {
        s.par_apply_steps_with(&mut f, STEPS, (), a, walls);
    } else {
        s.apply_steps_with(&mut f, STEPS, (), a, walls);
    }
    f.into_current()
}

fn mixed(c: &mut Criterion) {
    let (u32s, u64s, u16s) = (field(|x| x as f32), field(|x| x), field(f16::from_f64));
    // Checked first: the f32 and f64-accumulating stencils against loops of the same arithmetic.
    let own32 = steps(Own, &u32s, (0.2f32,), false);
    let want32 = reference(&u32s, false);
    assert_eq!(own32, want32, "f32 stencil against the f32 raw loop");
    let in64 = steps(In64, &u32s, (0.2f64,), false);
    assert_eq!(in64, reference(&u32s, true), "#[compute(f64)] against the f64 raw loop");
    assert_eq!(steps(In32, &u16s, (0.2f32,), true), steps(In32, &u16s, (0.2f32,), false), "threaded f16");

    let mut group = c.benchmark_group(format!("mixed_{N}_k{STEPS}"));
    group.sample_size(10);
    group.throughput(Throughput::Elements(((N - 2) * (N - 2) * STEPS) as u64));
    group.bench_function("raw_f32", |b| b.iter(|| reference(black_box(&u32s), false)));
    group.bench_function("raw_f32_in_f64", |b| b.iter(|| reference(black_box(&u32s), true)));
    for parallel in [false, true] {
        let p = if parallel { "par_" } else { "" };
        group.bench_function(format!("{p}f32"), |b| b.iter(|| steps(Own, black_box(&u32s), (0.2f32,), parallel)));
        group.bench_function(format!("{p}f32_in_f64"), |b| {
            b.iter(|| steps(In64, black_box(&u32s), (0.2f64,), parallel))
        });
        group.bench_function(format!("{p}f64"), |b| b.iter(|| steps(Own, black_box(&u64s), (0.2f64,), parallel)));
        group.bench_function(format!("{p}f16_in_f32"), |b| {
            b.iter(|| steps(In32, black_box(&u16s), (0.2f32,), parallel))
        });
        let a16 = (f16::from_f32(0.2),);
        group.bench_function(format!("{p}f16_each_op"), |b| b.iter(|| steps(Own, black_box(&u16s), a16, parallel)));
    }
    group.finish();
}

/// `STEPS` raw sweeps over f32 fields: every operation in f64 (`wide`) or in f32, in the
/// stencil's order (`((((n0 + n1) + n2) + n3) - 4 c)` times `a`, plus `c`), rounded once per
/// value when wide.
fn reference(u: &Array<f32, 2>, wide: bool) -> Array<f32, 2> {
    let (mut x, mut y) = (u.clone(), u.clone());
    for _ in 0..STEPS {
        let (src, dst) = (x.as_slice(), y.as_mut_slice());
        for i in 1..N - 1 {
            for j in 1..N - 1 {
                let at = i * N + j;
                let (c, n) = (src[at], [src[at - N], src[at + N], src[at - 1], src[at + 1]]);
                dst[at] = if wide {
                    let (c, n) = (f64::from(c), n.map(f64::from));
                    (c + 0.2 * ((((n[0] + n[1]) + n[2]) + n[3]) - 4.0 * c)) as f32
                } else {
                    c + 0.2f32 * ((((n[0] + n[1]) + n[2]) + n[3]) - 4.0 * c)
                };
            }
        }
        core::mem::swap(&mut x, &mut y);
    }
    x
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(std::time::Duration::from_secs(1))
        .measurement_time(std::time::Duration::from_secs(3))
}

criterion_group! { name = benches; config = config(); targets = mixed }
criterion_main!(benches);
