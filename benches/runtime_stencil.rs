//! Run-time stencils against the compile-time `LinearStencil` and a raw loop, in the same run,
//! on 4096^2 f64 and f32: the 5-point Laplacian and the 9-point Laplacian (one sweep, one
//! thread and all threads), a variable-coefficient 5-point stencil (five coefficient fields:
//! seven arrays streamed per sweep, against a raw loop doing the same), and 8 fused steps.
//! Every variant is checked against the raw loop before any timing.
//!
//! `cargo bench --bench runtime_stencil`

use cnda::prelude::*;
use cnda::stencil::{DoubleBuffer, DynStencil, LinearStencil, VariableStencil};
use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};

fn field<T: Float, const N: usize>(shape: [usize; N], seed: u64) -> Array<T, N> {
    let mut k = seed;
    Array::from_fn(shape, |_| {
        k = k.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        T::from_f64((k >> 40) as f64 * 1e-6)
    })
}

/// The raw 5-point Laplacian (`h = 1`) in `LinearStencil::laplacian_5pt`'s tap order.
#[inline(never)]
fn raw_laplacian<T: Float>(n: usize, u: &[T], v: &mut [T]) {
    assert!(u.len() == n * n && v.len() == n * n);
    let four = T::from_f64(-4.0);
    for i in 1..n - 1 {
        for j in 1..n - 1 {
            // SAFETY: interior point of an n x n grid (checked above).
            unsafe {
                let at = |di: usize, dj: usize| *u.get_unchecked((i + di - 1) * n + j + dj - 1);
                *v.get_unchecked_mut(i * n + j) =
                    T::ONE * at(0, 1) + T::ONE * at(2, 1) + T::ONE * at(1, 0) + T::ONE * at(1, 2) + four * at(1, 1);
            }
        }
    }
}

/// `steps` raw 5-point Jacobi sweeps (`0.25` times each neighbour, in `jacobi_5pt`'s tap order)
/// between `u` and `v` on rayon's threads, in one contiguous band of rows per thread: the
/// baseline a user would write without temporal blocking (as a Numba `prange` loop does). The
/// last sweep ends in `u` for an even count.
#[inline(never)]
fn raw_jacobi_sweeps(n: usize, u: &mut [f64], v: &mut [f64], steps: usize) {
    use rayon::prelude::*;
    assert!(n >= 3 && u.len() == n * n && v.len() == n * n);
    let band = n.div_ceil(rayon::current_num_threads()) * n;
    let q = 0.25;
    for s in 0..steps {
        let (src, dst): (&[f64], &mut [f64]) = if s % 2 == 0 { (&*u, &mut *v) } else { (&*v, &mut *u) };
        dst.par_chunks_mut(band).enumerate().for_each(|(b, rows)| {
            let first = b * band / n;
            for (r, row) in rows.chunks_mut(n).enumerate() {
                let i = first + r;
                if i == 0 || i == n - 1 {
                    continue;
                }
                for (j, out) in row.iter_mut().enumerate().take(n - 1).skip(1) {
                    // SAFETY: interior point of an n x n grid (checked above): its neighbours
                    // are in `src`.
                    let at = |r: usize, c: usize| unsafe { *src.get_unchecked(r * n + c) };
                    *out = q * at(i - 1, j) + q * at(i + 1, j) + q * at(i, j - 1) + q * at(i, j + 1);
                }
            }
        });
    }
}

/// The raw variable-coefficient 5-point stencil: `sum_k c_k[x] * u[x + d_k]` in tap order.
#[inline(never)]
fn raw_variable(n: usize, u: &[f64], c: &[&[f64]; 5], v: &mut [f64]) {
    assert!(u.len() == n * n && v.len() == n * n && c.iter().all(|c| c.len() == n * n));
    for i in 1..n - 1 {
        for j in 1..n - 1 {
            let x = i * n + j;
            // SAFETY: interior point of an n x n grid (checked above).
            unsafe {
                let cu = |k: usize, y: usize| *c[k].get_unchecked(x) * *u.get_unchecked(y);
                *v.get_unchecked_mut(x) = cu(0, x - n) + cu(1, x + n) + cu(2, x - 1) + cu(3, x + 1) + cu(4, x);
            }
        }
    }
}

fn one_sweep<T: Float + Send + Sync>(c: &mut Criterion, name: &str) {
    let n = 4096;
    let u = field::<T, 2>([n, n], 1);
    let mut v = Array::<T, 2>::zeros([n, n]);
    let lap5 = LinearStencil::<T, 2, 1, 5>::laplacian_5pt(T::ONE);
    let lap9 = LinearStencil::<T, 2, 1, 9>::laplacian_9pt(T::ONE);
    let (dyn5, dyn9) = (DynStencil::from(lap5), DynStencil::from(lap9));

    let mut reference = Array::<T, 2>::zeros([n, n]);
    raw_laplacian(n, u.as_slice(), reference.as_mut_slice());
    lap5.apply(&u, &mut v);
    assert_eq!(v, reference, "LinearStencil 5-point");
    v.fill(T::ZERO);
    dyn5.apply(&u, &mut v);
    assert_eq!(v, reference, "DynStencil 5-point");
    v.fill(T::ZERO);
    dyn5.par_apply(&u, &mut v);
    assert_eq!(v, reference, "DynStencil 5-point, threads");
    let mut nine = Array::<T, 2>::zeros([n, n]);
    lap9.apply(&u, &mut nine);
    v.fill(T::ZERO);
    dyn9.apply(&u, &mut v);
    assert_eq!(v, nine, "DynStencil 9-point");

    let mut group = c.benchmark_group(format!("runtime_stencil_2d_{n}_{name}"));
    group.sample_size(10);
    group.throughput(Throughput::Elements(((n - 2) * (n - 2)) as u64));
    group.bench_function("t1/raw_loop_5pt", |b| b.iter(|| raw_laplacian(n, black_box(u.as_slice()), v.as_mut_slice())));
    group.bench_function("t1/linear_stencil_5pt", |b| b.iter(|| lap5.apply(black_box(&u), &mut v)));
    group.bench_function("t1/dyn_stencil_5pt", |b| b.iter(|| dyn5.apply(black_box(&u), &mut v)));
    group.bench_function("t1/linear_stencil_9pt", |b| b.iter(|| lap9.apply(black_box(&u), &mut v)));
    group.bench_function("t1/dyn_stencil_9pt", |b| b.iter(|| dyn9.apply(black_box(&u), &mut v)));
    group.bench_function("tN/linear_stencil_5pt", |b| b.iter(|| lap5.par_apply(black_box(&u), &mut v)));
    group.bench_function("tN/dyn_stencil_5pt", |b| b.iter(|| dyn5.par_apply(black_box(&u), &mut v)));
    group.finish();
}

fn variable_and_steps(c: &mut Criterion) {
    let n = 4096;
    let steps = 8;
    let u = field::<f64, 2>([n, n], 2);
    let fields: Vec<Array<f64, 2>> = (0..5).map(|k| field::<f64, 2>([n, n], 10 + k)).collect();
    let coefficients: Vec<&Array<f64, 2>> = fields.iter().collect();
    let slices: [&[f64]; 5] = core::array::from_fn(|k| fields[k].as_slice());
    let varying = VariableStencil::new([[-1, 0], [1, 0], [0, -1], [0, 1], [0, 0]]);
    let mut v = Array::<f64, 2>::zeros([n, n]);
    let mut reference = Array::<f64, 2>::zeros([n, n]);
    raw_variable(n, u.as_slice(), &slices, reference.as_mut_slice());
    varying.apply(&u, &coefficients, &mut v);
    assert_eq!(v, reference, "VariableStencil");

    let jacobi = LinearStencil::<f64, 2, 1, 4>::jacobi_5pt();
    let dyn_jacobi = DynStencil::from(jacobi);
    let (mut fixed, mut run_time) = (DoubleBuffer::new(u.clone()), DoubleBuffer::new(u.clone()));
    jacobi.apply_steps(&mut fixed, steps);
    dyn_jacobi.apply_steps_with(&mut run_time, steps, [cnda::stencil::Boundary::Fixed; 2]);
    assert_eq!(fixed.current(), run_time.current(), "DynStencil steps against LinearStencil steps");

    let mut group = c.benchmark_group(format!("runtime_stencil_2d_{n}_f64"));
    group.sample_size(10);
    group.throughput(Throughput::Elements(((n - 2) * (n - 2)) as u64));
    group.bench_function("t1/raw_loop_variable_5pt", |b| {
        b.iter(|| raw_variable(n, black_box(u.as_slice()), &slices, v.as_mut_slice()))
    });
    group.bench_function("t1/variable_stencil_5pt", |b| b.iter(|| varying.apply(black_box(&u), &coefficients, &mut v)));
    group.throughput(Throughput::Elements(((n - 2) * (n - 2) * steps) as u64));
    group.bench_function(format!("k{steps}/linear_stencil_apply_steps"), |b| {
        b.iter(|| jacobi.apply_steps(black_box(&mut fixed), steps))
    });
    group.bench_function(format!("k{steps}/dyn_stencil_apply_steps"), |b| {
        b.iter(|| dyn_jacobi.apply_steps_with(black_box(&mut run_time), steps, [cnda::stencil::Boundary::Fixed; 2]))
    });
    // On rayon's threads: the raw loop's separate sweeps against the fused sweeps from `u` into a
    // pair of fields (what `cnda.stencil(u, out, steps=8)` runs: slabs, one per thread).
    let (mut raw_u, mut raw_v) = (u.as_slice().to_vec(), u.as_slice().to_vec());
    raw_jacobi_sweeps(n, &mut raw_u, &mut raw_v, steps);
    let (mut first, mut second) = (u.clone(), u.clone());
    dyn_jacobi.par_apply_steps_from(&u, &mut first, &mut second, steps);
    assert_eq!(first.as_slice(), &raw_u[..], "fused sweeps from u against the raw loop");
    group.bench_function(format!("k{steps}/tN/raw_loop_sweeps"), |b| {
        b.iter(|| raw_jacobi_sweeps(n, black_box(&mut raw_u), &mut raw_v, steps))
    });
    group.bench_function(format!("k{steps}/tN/dyn_stencil_par_apply_separate_sweeps"), |b| {
        b.iter(|| {
            for s in 0..steps {
                let (src, dst) = if s % 2 == 0 { (&first, &mut second) } else { (&second, &mut first) };
                dyn_jacobi.par_apply(black_box(src), dst);
            }
        })
    });
    group.bench_function(format!("k{steps}/tN/dyn_stencil_par_apply_steps_from"), |b| {
        b.iter(|| dyn_jacobi.par_apply_steps_from(black_box(&u), &mut first, &mut second, steps))
    });
    group.finish();
}

fn runtime(c: &mut Criterion) {
    one_sweep::<f64>(c, "f64");
    one_sweep::<f32>(c, "f32");
    variable_and_steps(c);
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(std::time::Duration::from_secs(1))
        .measurement_time(std::time::Duration::from_secs(3))
}

criterion_group! { name = benches; config = config(); targets = runtime }
criterion_main!(benches);
