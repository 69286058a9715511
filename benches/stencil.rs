//! Stencil sweeps: the `stencil` API against a raw unchecked loop and ndarray's idioms, on 1 and 2
//! threads, in the same run. All variants run on the same (huge-page backed) buffers: raw loops
//! and ndarray views borrow the memory of cnda arrays, so allocation differences cannot leak in.
//!
//! `cargo bench --bench stencil`

// ndarray's `s!` takes `1..-1` style ranges, which clippy reads as empty `Range`s.
#![allow(clippy::reversed_empty_ranges)]

use cnda::prelude::*;
use cnda::stencil::{self, LinearStencil, Window2, Window3};
use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use ndarray::{s as nd_s, ArrayView2, ArrayView3, ArrayViewMut2, ArrayViewMut3, Zip as NdZip};
use rayon::prelude::*;

fn field<const N: usize>(shape: [usize; N]) -> Array<f64, N> {
    let mut k = 0u64;
    Array::from_fn(shape, |_| {
        k = k.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (k >> 40) as f64 * 1e-6
    })
}

#[inline(never)]
fn raw_2d_rows(n: usize, u: &[f64], v: &mut [f64], rows: core::ops::Range<usize>, row0: usize) {
    for i in rows {
        for j in 1..n - 1 {
            // SAFETY: interior point; `v` holds rows from `row0`, `u` the whole grid (checked by callers).
            unsafe {
                *v.get_unchecked_mut((i - row0) * n + j) = 0.25
                    * (u.get_unchecked((i - 1) * n + j)
                        + u.get_unchecked((i + 1) * n + j)
                        + u.get_unchecked(i * n + j - 1)
                        + u.get_unchecked(i * n + j + 1));
            }
        }
    }
}

fn raw_2d(n: usize, u: &[f64], v: &mut [f64]) {
    assert!(u.len() == n * n && v.len() == n * n);
    raw_2d_rows(n, u, v, 1..n - 1, 0);
}

fn raw_2d_par(n: usize, u: &[f64], v: &mut [f64]) {
    assert!(u.len() == n * n && v.len() == n * n);
    let band = (n / (rayon::current_num_threads() * 2)).max(1);
    v.par_chunks_mut(band * n).enumerate().for_each(|(b, chunk)| {
        let first = b * band;
        let rows = first.max(1)..(first + chunk.len() / n).min(n - 1);
        raw_2d_rows(n, u, chunk, rows, first);
    });
}

#[inline(always)]
fn jacobi(out: &mut f64, w: Window2<'_, f64, 1>) {
    *out = 0.25 * (w[(-1, 0)] + w[(1, 0)] + w[(0, -1)] + w[(0, 1)]);
}

fn nd_shifted(u: ArrayView2<f64>, mut v: ArrayViewMut2<f64>) {
    NdZip::from(v.slice_mut(nd_s![1..-1, 1..-1]))
        .and(u.slice(nd_s![..-2, 1..-1]))
        .and(u.slice(nd_s![2.., 1..-1]))
        .and(u.slice(nd_s![1..-1, ..-2]))
        .and(u.slice(nd_s![1..-1, 2..]))
        .for_each(|o, &a, &b, &c, &d| *o = 0.25 * (a + b + c + d));
}

fn nd_windows(u: ArrayView2<f64>, mut v: ArrayViewMut2<f64>) {
    NdZip::from(v.slice_mut(nd_s![1..-1, 1..-1]))
        .and(u.windows((3, 3)))
        .for_each(|o, w| *o = 0.25 * (w[[0, 1]] + w[[2, 1]] + w[[1, 0]] + w[[1, 2]]));
}

fn nd_shifted_par(u: ArrayView2<f64>, mut v: ArrayViewMut2<f64>) {
    NdZip::from(v.slice_mut(nd_s![1..-1, 1..-1]))
        .and(u.slice(nd_s![..-2, 1..-1]))
        .and(u.slice(nd_s![2.., 1..-1]))
        .and(u.slice(nd_s![1..-1, ..-2]))
        .and(u.slice(nd_s![1..-1, 2..]))
        .par_for_each(|o, &a, &b, &c, &d| *o = 0.25 * (a + b + c + d));
}

fn jacobi_2d(c: &mut Criterion, n: usize) {
    let u = field([n, n]);
    let mut v = Array::<f64, 2>::zeros([n, n]);
    let mut group = c.benchmark_group(format!("stencil2d_{n}"));
    group.throughput(Throughput::Elements(((n - 2) * (n - 2)) as u64));
    group.sample_size(if n > 1024 { 10 } else { 50 });
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();

    // The reference, computed before (and independently of) any filtered-out benchmark.
    let mut reference = Array::<f64, 2>::zeros([n, n]);
    raw_2d(n, u.as_slice(), reference.as_mut_slice());
    // Every variant computes the same field (checked once, outside the timed loops).
    let mut check = |name: &str, run: &mut dyn FnMut(&mut Array<f64, 2>)| {
        v.fill(0.0);
        run(&mut v);
        assert_eq!(v, reference, "{name}");
    };
    check("sweep2", &mut |v| stencil::sweep2(u.view(), v.view_mut(), jacobi));
    check("par_sweep2", &mut |v| stencil::par_sweep2(u.view(), v.view_mut(), jacobi));
    check("raw_2d_par", &mut |v| raw_2d_par(n, u.as_slice(), v.as_mut_slice()));
    check("nd_shifted", &mut |v| {
        nd_shifted(
            ArrayView2::from_shape((n, n), u.as_slice()).unwrap(),
            ArrayViewMut2::from_shape((n, n), v.as_mut_slice()).unwrap(),
        )
    });
    check("nd_windows", &mut |v| {
        nd_windows(
            ArrayView2::from_shape((n, n), u.as_slice()).unwrap(),
            ArrayViewMut2::from_shape((n, n), v.as_mut_slice()).unwrap(),
        )
    });
    check("nd_shifted_par", &mut |v| {
        nd_shifted_par(
            ArrayView2::from_shape((n, n), u.as_slice()).unwrap(),
            ArrayViewMut2::from_shape((n, n), v.as_mut_slice()).unwrap(),
        )
    });

    group.bench_function("t1/raw_loop", |b| b.iter(|| raw_2d(n, black_box(u.as_slice()), v.as_mut_slice())));
    // The same raw loop over two `Vec`s (the system allocator's placement, not cnda's): the
    // baseline of the allocation-placement check (docs/ARCHITECTURE.md, "Allocation placement").
    let (u_vec, mut v_vec) = (u.as_slice().to_vec(), vec![0.0; n * n]);
    group.bench_function("t1/raw_loop_vecs", |b| b.iter(|| raw_2d(n, black_box(&u_vec), &mut v_vec)));
    group.bench_function("t1/cnda_sweep2", |b| {
        b.iter(|| stencil::sweep2::<1, _, _, _, _, _>(black_box(u.view()), v.view_mut(), jacobi))
    });
    // The same Jacobi step described by data (taps), as device backends will take it; its tap
    // order rounds differently from `jacobi`'s `0.25 * (sum)`, so it is checked to a relative 1e-14.
    let linear = LinearStencil::jacobi_5pt();
    linear.apply(u.view(), v.view_mut());
    assert!(v.allclose(&reference, 1e-14, 0.0), "LinearStencil::jacobi_5pt");
    group.bench_function("t1/cnda_linear_stencil", |b| b.iter(|| linear.apply(black_box(u.view()), v.view_mut())));
    group.bench_function("t1/cnda_par_sweep2_in_1_thread_pool", |b| {
        b.iter(|| one.install(|| stencil::par_sweep2::<1, _, _, _, _, _>(black_box(u.view()), v.view_mut(), jacobi)))
    });
    group.bench_function("t1/ndarray_zip_shifted", |b| {
        b.iter(|| {
            let uv = ArrayView2::from_shape((n, n), u.as_slice()).unwrap();
            let vv = ArrayViewMut2::from_shape((n, n), v.as_mut_slice()).unwrap();
            nd_shifted(black_box(uv), vv)
        })
    });
    group.bench_function("t1/ndarray_windows", |b| {
        b.iter(|| {
            let uv = ArrayView2::from_shape((n, n), u.as_slice()).unwrap();
            let vv = ArrayViewMut2::from_shape((n, n), v.as_mut_slice()).unwrap();
            nd_windows(black_box(uv), vv)
        })
    });
    // The baseline once more, after the others: shows how much the run order moves the figures.
    group.bench_function("t1/raw_loop_again", |b| b.iter(|| raw_2d(n, black_box(u.as_slice()), v.as_mut_slice())));

    group.bench_function("t2/raw_loop_rayon", |b| b.iter(|| raw_2d_par(n, black_box(u.as_slice()), v.as_mut_slice())));
    group.bench_function("t2/cnda_par_sweep2", |b| {
        b.iter(|| stencil::par_sweep2::<1, _, _, _, _, _>(black_box(u.view()), v.view_mut(), jacobi))
    });
    group.bench_function("t2/ndarray_par_zip_shifted", |b| {
        b.iter(|| {
            let uv = ArrayView2::from_shape((n, n), u.as_slice()).unwrap();
            let vv = ArrayViewMut2::from_shape((n, n), v.as_mut_slice()).unwrap();
            nd_shifted_par(black_box(uv), vv)
        })
    });
    group.finish();
}

/// `out = u + k * (5-point Laplacian of u)`, the variable-coefficient twin of `raw_2d` (the
/// `stencil!` body below, in the same operation order).
#[inline(never)]
fn raw_2d_2_fields(n: usize, u: &[f64], k: &[f64], v: &mut [f64]) {
    assert!(u.len() == n * n && k.len() == n * n && v.len() == n * n);
    for i in 1..n - 1 {
        for j in 1..n - 1 {
            let c = i * n + j;
            // SAFETY: interior point of an n x n grid; all three slices hold n * n (checked above).
            unsafe {
                *v.get_unchecked_mut(c) = u.get_unchecked(c)
                    + k.get_unchecked(c)
                        * (u.get_unchecked(c - n)
                            + u.get_unchecked(c + n)
                            + u.get_unchecked(c - 1)
                            + u.get_unchecked(c + 1)
                            - 4.0 * u.get_unchecked(c));
            }
        }
    }
}

/// The 5-point Jacobi update written three ways (the raw loop, `LinearStencil`, `stencil!`), a
/// two-field `stencil!` (variable coefficient) against its raw loop, and 8 time steps: fused
/// `apply_steps` against 8 separate `stencil!` sweeps and 8 raw-loop sweeps. One thread (the
/// calling one: `apply` and `apply_steps` run there); every variant is checked against the raw
/// loops first, bit for bit except `LinearStencil` (its tap order, to a relative 1e-14).
fn stencil_macro_2d(c: &mut Criterion) {
    let n = 4096;
    let steps = 8;
    let u = field([n, n]);
    let k = field([n, n]).map(|x| 0.05 + 0.01 * x);
    let mut v = Array::<f64, 2>::zeros([n, n]);
    let mut group = c.benchmark_group(format!("stencil_macro_2d_{n}"));
    group.sample_size(10);
    let jacobi_macro = stencil!(|u| 0.25 * (u[-1, 0] + u[1, 0] + u[0, -1] + u[0, 1]));
    // The same without the default flush of subnormal results: what that flush costs.
    let jacobi_macro_keep = stencil!(#[subnormals(keep)] |u| 0.25 * (u[-1, 0] + u[1, 0] + u[0, -1] + u[0, 1]));
    let diffuse = stencil!(|u, k| u[0, 0] + k[0, 0] * (u[-1, 0] + u[1, 0] + u[0, -1] + u[0, 1] - 4.0 * u[0, 0]));
    let linear = LinearStencil::jacobi_5pt();

    // The references and every check, before (and independently of) any benchmark filter.
    let mut reference = Array::<f64, 2>::zeros([n, n]);
    raw_2d(n, u.as_slice(), reference.as_mut_slice());
    jacobi_macro.apply(&u, &mut v, ());
    assert_eq!(v, reference, "stencil! Jacobi");
    v.fill(0.0);
    jacobi_macro_keep.apply(&u, &mut v, ());
    assert_eq!(v, reference, "stencil! Jacobi keeping subnormals");
    v.fill(0.0);
    linear.apply(&u, &mut v);
    assert!(v.allclose(&reference, 1e-14, 0.0), "LinearStencil::jacobi_5pt");
    raw_2d_2_fields(n, u.as_slice(), k.as_slice(), reference.as_mut_slice());
    v.fill(0.0);
    diffuse.apply((&u, &k), &mut v, ());
    assert_eq!(v, reference, "stencil! with two fields");
    let mut fused = stencil::DoubleBuffer::new(u.clone());
    jacobi_macro.apply_steps(&mut fused, steps, (), ());
    let mut separate = stencil::DoubleBuffer::new(u.clone());
    for _ in 0..steps {
        let (current, next) = separate.split();
        jacobi_macro.apply(current, next, ());
        separate.swap();
    }
    assert_eq!(fused.current(), separate.current(), "stencil! apply_steps against separate sweeps");
    // The raw loop's two fields are cnda arrays too (the same allocator's placement).
    let (mut raw_a, mut raw_b) = (u.clone(), u.clone());
    for _ in 0..steps {
        raw_2d(n, raw_a.as_slice(), raw_b.as_mut_slice());
        core::mem::swap(&mut raw_a, &mut raw_b);
    }
    assert_eq!(&raw_a, separate.current(), "raw loop sweeps against stencil! sweeps");

    group.throughput(Throughput::Elements(((n - 2) * (n - 2)) as u64));
    group.bench_function("t1/raw_loop", |b| b.iter(|| raw_2d(n, black_box(u.as_slice()), v.as_mut_slice())));
    group.bench_function("t1/cnda_linear_stencil", |b| b.iter(|| linear.apply(black_box(&u), &mut v)));
    group.bench_function("t1/cnda_stencil_macro", |b| b.iter(|| jacobi_macro.apply(black_box(&u), &mut v, ())));
    group.bench_function("t1/cnda_stencil_macro_keep_subnormals", |b| {
        b.iter(|| jacobi_macro_keep.apply(black_box(&u), &mut v, ()))
    });
    group.bench_function("t1/raw_loop_2_fields", |b| {
        b.iter(|| raw_2d_2_fields(n, black_box(u.as_slice()), black_box(k.as_slice()), v.as_mut_slice()))
    });
    group.bench_function("t1/cnda_stencil_macro_2_fields", |b| {
        b.iter(|| diffuse.apply((black_box(&u), black_box(&k)), &mut v, ()))
    });

    group.throughput(Throughput::Elements(((n - 2) * (n - 2) * steps) as u64));
    group.bench_function(format!("k{steps}/raw_loop_{steps}_sweeps"), |bench| {
        bench.iter(|| {
            for _ in 0..steps {
                raw_2d(n, black_box(raw_a.as_slice()), raw_b.as_mut_slice());
                core::mem::swap(&mut raw_a, &mut raw_b);
            }
        })
    });
    group.bench_function(format!("k{steps}/cnda_stencil_macro_{steps}_sweeps"), |bench| {
        bench.iter(|| {
            for _ in 0..steps {
                let (current, next) = separate.split();
                jacobi_macro.apply(black_box(current), next, ());
                separate.swap();
            }
        })
    });
    group.bench_function(format!("k{steps}/cnda_stencil_macro_apply_steps"), |bench| {
        bench.iter(|| jacobi_macro.apply_steps(black_box(&mut fused), steps, (), ()))
    });
    group.finish();
}

fn stencil_2d(c: &mut Criterion) {
    jacobi_2d(c, 4096);
    jacobi_2d(c, 256);
    padded_2d(c);
}

/// A 4095 x 4095 grid, whose rows (32,760 bytes) start at every possible 8-byte offset within a
/// cache line when unpadded, against the same grid with rows padded to 4096 elements.
fn padded_2d(c: &mut Criterion) {
    let n = 4095;
    let mut group = c.benchmark_group("stencil2d_4095_padding");
    group.throughput(Throughput::Elements(((n - 2) * (n - 2)) as u64));
    group.sample_size(10);
    let u = field([n, n]);
    let mut v = Array::<f64, 2>::zeros([n, n]);
    let up = Array::<f64, 2, Cpu, Padded>::try_from_fn_padded_in(&Cpu, [n, n], |ix| u[ix]).unwrap();
    let mut vp = Array::<f64, 2, Cpu, Padded>::try_zeros_padded_in(&Cpu, [n, n]).unwrap();
    stencil::sweep2(u.view(), v.view_mut(), jacobi);
    stencil::sweep2(up.view(), vp.view_mut(), jacobi);
    assert_eq!(vp, v);
    group.bench_function("t1/unpadded", |b| {
        b.iter(|| stencil::sweep2::<1, _, _, _, _, _>(black_box(u.view()), v.view_mut(), jacobi))
    });
    group.bench_function("t1/padded", |b| {
        b.iter(|| stencil::sweep2::<1, _, _, _, _, _>(black_box(up.view()), vp.view_mut(), jacobi))
    });
    group.bench_function("t2/unpadded", |b| {
        b.iter(|| stencil::par_sweep2::<1, _, _, _, _, _>(black_box(u.view()), v.view_mut(), jacobi))
    });
    group.bench_function("t2/padded", |b| {
        b.iter(|| stencil::par_sweep2::<1, _, _, _, _, _>(black_box(up.view()), vp.view_mut(), jacobi))
    });
    group.finish();
}

#[inline(never)]
fn raw_3d_planes(n: usize, u: &[f64], v: &mut [f64], planes: core::ops::Range<usize>, plane0: usize) {
    let (sy, sx) = (n, n * n);
    for i in planes {
        for j in 1..n - 1 {
            for k in 1..n - 1 {
                let c = i * sx + j * sy + k;
                // SAFETY: interior point of an n^3 grid; `v` holds planes from `plane0`.
                unsafe {
                    *v.get_unchecked_mut(c - plane0 * sx) = (1.0 / 6.0)
                        * (u.get_unchecked(c - sx)
                            + u.get_unchecked(c + sx)
                            + u.get_unchecked(c - sy)
                            + u.get_unchecked(c + sy)
                            + u.get_unchecked(c - 1)
                            + u.get_unchecked(c + 1));
                }
            }
        }
    }
}

#[inline(always)]
fn seven_point(out: &mut f64, w: Window3<'_, f64, 1>) {
    *out = (1.0 / 6.0) * (w[(-1, 0, 0)] + w[(1, 0, 0)] + w[(0, -1, 0)] + w[(0, 1, 0)] + w[(0, 0, -1)] + w[(0, 0, 1)]);
}

fn stencil_3d(c: &mut Criterion) {
    let n = 256;
    let u = field([n, n, n]);
    let mut v = Array::<f64, 3>::zeros([n, n, n]);
    let mut group = c.benchmark_group("stencil3d_256");
    group.throughput(Throughput::Elements(((n - 2) * (n - 2) * (n - 2)) as u64));
    group.sample_size(10);

    // The reference and a check of both cnda sweeps, independent of benchmark filters.
    let mut reference = Array::<f64, 3>::zeros([n, n, n]);
    raw_3d_planes(n, u.as_slice(), reference.as_mut_slice(), 1..n - 1, 0);
    stencil::sweep3::<1, _, _, _, _, _>(u.view(), v.view_mut(), seven_point);
    assert_eq!(v, reference, "sweep3");
    v.fill(0.0);
    stencil::par_sweep3::<1, _, _, _, _, _>(u.view(), v.view_mut(), seven_point);
    assert_eq!(v, reference, "par_sweep3");

    group.bench_function("t1/raw_loop", |b| {
        b.iter(|| raw_3d_planes(n, black_box(u.as_slice()), v.as_mut_slice(), 1..n - 1, 0))
    });
    let linear = LinearStencil::jacobi_7pt();
    v.fill(0.0);
    linear.apply(u.view(), v.view_mut());
    assert!(v.allclose(&reference, 1e-14, 0.0), "LinearStencil::jacobi_7pt");
    group.bench_function("t1/cnda_linear_stencil", |b| b.iter(|| linear.apply(black_box(u.view()), v.view_mut())));
    let (u_vec, mut v_vec) = (u.as_slice().to_vec(), vec![0.0; n * n * n]);
    group.bench_function("t1/raw_loop_vecs", |b| {
        b.iter(|| raw_3d_planes(n, black_box(&u_vec), &mut v_vec, 1..n - 1, 0))
    });
    group.bench_function("t1/cnda_sweep3", |b| {
        b.iter(|| stencil::sweep3::<1, _, _, _, _, _>(black_box(u.view()), v.view_mut(), seven_point))
    });
    group.bench_function("t1/ndarray_windows", |b| {
        b.iter(|| {
            let uv = ArrayView3::from_shape((n, n, n), u.as_slice()).unwrap();
            let mut vv = ArrayViewMut3::from_shape((n, n, n), v.as_mut_slice()).unwrap();
            NdZip::from(vv.slice_mut(nd_s![1..-1, 1..-1, 1..-1])).and(black_box(uv).windows((3, 3, 3))).for_each(
                |o, w| {
                    *o = (1.0 / 6.0)
                        * (w[[0, 1, 1]] + w[[2, 1, 1]] + w[[1, 0, 1]] + w[[1, 2, 1]] + w[[1, 1, 0]] + w[[1, 1, 2]])
                },
            )
        })
    });
    group.bench_function("t2/raw_loop_rayon", |b| {
        b.iter(|| {
            let (us, vs) = (black_box(u.as_slice()), v.as_mut_slice());
            let band = (n / (rayon::current_num_threads() * 2)).max(1);
            vs.par_chunks_mut(band * n * n).enumerate().for_each(|(bi, chunk)| {
                let first = bi * band;
                let planes = first.max(1)..(first + chunk.len() / (n * n)).min(n - 1);
                raw_3d_planes(n, us, chunk, planes, first);
            })
        })
    });
    group.bench_function("t2/cnda_par_sweep3", |b| {
        b.iter(|| stencil::par_sweep3::<1, _, _, _, _, _>(black_box(u.view()), v.view_mut(), seven_point))
    });
    group.finish();
}

/// `k` Jacobi sweeps between two fields: `k` raw-loop sweeps, `k` cnda `LinearStencil` sweeps,
/// and the fused (temporally blocked) `apply_steps`, which is checked bit for bit against the
/// cnda sweeps before it is timed.
fn fused_sweeps<const N: usize, const K: usize>(
    c: &mut Criterion,
    name: &str,
    n: usize,
    steps: usize,
    stencil: LinearStencil<f64, N, 1, K>,
    raw: fn(usize, &[f64], &mut [f64]),
    raw_par: fn(usize, &[f64], &mut [f64]),
) {
    let shape = [n; N];
    let initial = field(shape);
    let mut group = c.benchmark_group(format!("{name}_{n}_k{steps}"));
    let interior: usize = (0..N).map(|_| n - 2).product();
    group.throughput(Throughput::Elements((interior * steps) as u64));
    group.sample_size(10);
    let mut fused = stencil::DoubleBuffer::new(initial.clone());
    stencil.apply_steps(&mut fused, steps);
    let mut separate = stencil::DoubleBuffer::new(initial.clone());
    for _ in 0..steps {
        let (u, v) = separate.split();
        stencil.apply(u, v);
        separate.swap();
    }
    assert_eq!(fused.current(), separate.current(), "fused sweeps differ from separate ones");
    let (mut a, mut b) = (initial.as_slice().to_vec(), initial.as_slice().to_vec());
    group.bench_function("t1/raw_loop_k_sweeps", |bench| {
        bench.iter(|| {
            for _ in 0..steps {
                raw(n, black_box(&a), &mut b);
                core::mem::swap(&mut a, &mut b);
            }
        })
    });
    group.bench_function("t1/cnda_linear_k_sweeps", |bench| {
        bench.iter(|| {
            for _ in 0..steps {
                let (u, v) = separate.split();
                stencil.apply(black_box(u), v);
                separate.swap();
            }
        })
    });
    group.bench_function("t1/cnda_apply_steps", |bench| {
        bench.iter(|| stencil.apply_steps(black_box(&mut fused), steps))
    });
    // Two threads: the raw loop split in bands of rows (planes), cnda's banded `par_apply`, and
    // the fused sweeps on threads (one slab each; checked bit for bit too).
    let two = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let mut threaded = stencil::DoubleBuffer::new(initial.clone());
    two.install(|| stencil.par_apply_steps(&mut threaded, steps));
    let mut reference = stencil::DoubleBuffer::new(initial.clone());
    stencil.apply_steps(&mut reference, steps);
    assert_eq!(threaded.current(), reference.current(), "parallel fused sweeps differ");
    group.bench_function("t2/raw_loop_rayon_k_sweeps", |bench| {
        bench.iter(|| {
            two.install(|| {
                for _ in 0..steps {
                    raw_par(n, black_box(&a), &mut b);
                    core::mem::swap(&mut a, &mut b);
                }
            })
        })
    });
    group.bench_function("t2/cnda_par_apply_k_sweeps", |bench| {
        bench.iter(|| {
            two.install(|| {
                for _ in 0..steps {
                    let (u, v) = separate.split();
                    stencil.par_apply(black_box(u), v);
                    separate.swap();
                }
            })
        })
    });
    group.bench_function("t2/cnda_par_apply_steps", |bench| {
        bench.iter(|| two.install(|| stencil.par_apply_steps(black_box(&mut threaded), steps)))
    });
    group.finish();
}

fn raw_3d(n: usize, u: &[f64], v: &mut [f64]) {
    assert!(u.len() == n * n * n && v.len() == n * n * n);
    raw_3d_planes(n, u, v, 1..n - 1, 0);
}

fn raw_3d_par(n: usize, u: &[f64], v: &mut [f64]) {
    assert!(u.len() == n * n * n && v.len() == n * n * n);
    let band = (n / (rayon::current_num_threads() * 2)).max(1);
    v.par_chunks_mut(band * n * n).enumerate().for_each(|(b, chunk)| {
        let first = b * band;
        let planes = first.max(1)..(first + chunk.len() / (n * n)).min(n - 1);
        raw_3d_planes(n, u, chunk, planes, first);
    });
}

/// The periodic halo (width 1) of an `n x n` row-major field refreshed by hand: rows, then
/// columns, as `fill_halo` orders them.
fn raw_wrap_2d(n: usize, u: &mut [f64]) {
    u.copy_within((n - 2) * n..(n - 1) * n, 0);
    u.copy_within(n..2 * n, (n - 1) * n);
    for row in u.chunks_exact_mut(n) {
        (row[0], row[n - 1]) = (row[n - 2], row[1]);
    }
}

/// `k` Jacobi sweeps on a periodic `n x n` field (a torus with a halo of 1): the raw loop with the
/// halo refreshed by hand before every sweep, cnda's `fill_halo` then `apply`, and the fused
/// `apply_steps_with` (checked bit for bit against the second).
fn fused_periodic(c: &mut Criterion, n: usize, steps: usize) {
    let jacobi = LinearStencil::jacobi_5pt();
    let initial = field([n, n]);
    let periodic = [stencil::Boundary::Periodic; 2];
    let mut group = c.benchmark_group(format!("fused_periodic_jacobi2d_{n}_k{steps}"));
    group.throughput(Throughput::Elements(((n - 2) * (n - 2) * steps) as u64));
    group.sample_size(10);
    let one_by_one = |field: &mut stencil::DoubleBuffer<f64, 2>| {
        for _ in 0..steps {
            stencil::fill_halo(field.current_mut().view_mut(), [1, 1], [stencil::PadMode::Periodic; 2]);
            let (u, v) = field.split();
            jacobi.apply(u, v);
            field.swap();
        }
        stencil::fill_halo(field.current_mut().view_mut(), [1, 1], [stencil::PadMode::Periodic; 2]);
    };
    let mut separate = stencil::DoubleBuffer::new(initial.clone());
    one_by_one(&mut separate);
    let mut fused = stencil::DoubleBuffer::new(initial.clone());
    jacobi.apply_steps_with(&mut fused, steps, periodic);
    assert_eq!(fused.current(), separate.current(), "periodic fused sweeps differ from separate ones");
    let (mut a, mut b) = (initial.as_slice().to_vec(), initial.as_slice().to_vec());
    group.bench_function("t1/raw_loop_wrap_k_sweeps", |bench| {
        bench.iter(|| {
            for _ in 0..steps {
                raw_wrap_2d(n, &mut a);
                raw_2d(n, black_box(&a), &mut b);
                core::mem::swap(&mut a, &mut b);
            }
        })
    });
    group.bench_function("t1/cnda_fill_halo_apply_k_sweeps", |bench| {
        bench.iter(|| one_by_one(black_box(&mut separate)))
    });
    group.bench_function("t1/cnda_apply_steps_with", |bench| {
        bench.iter(|| jacobi.apply_steps_with(black_box(&mut fused), steps, periodic))
    });
    let two = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    group.bench_function("t2/cnda_par_apply_steps_with", |bench| {
        bench.iter(|| two.install(|| jacobi.par_apply_steps_with(black_box(&mut fused), steps, periodic)))
    });
    group.finish();
}

fn fused(c: &mut Criterion) {
    fused_sweeps(c, "fused_jacobi2d", 4096, 8, LinearStencil::jacobi_5pt(), raw_2d, raw_2d_par);
    fused_sweeps(c, "fused_jacobi3d", 256, 4, LinearStencil::jacobi_7pt(), raw_3d, raw_3d_par);
    fused_periodic(c, 4096, 8);
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(std::time::Duration::from_secs(1))
        .measurement_time(std::time::Duration::from_secs(3))
}

criterion_group! { name = benches; config = config(); targets = stencil_2d, stencil_3d, fused, stencil_macro_2d }
criterion_main!(benches);
