//! Elementwise broadcasting, reductions and matrix products against raw loops and ndarray, in the
//! same run. Raw loops and ndarray views use the memory of cnda arrays where an input is shared,
//! so allocation (huge pages) does not differ between variants that reuse buffers.
//!
//! `cargo bench --bench compute`

use cnda::prelude::*;
use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use ndarray::{Array1 as NdArray1, Array2 as NdArray2, ArrayView2, Axis};

fn field<const N: usize>(shape: [usize; N]) -> Array<f64, N> {
    let mut k = 0u64;
    Array::from_fn(shape, |_| {
        k = k.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (k >> 40) as f64 * 1e-6
    })
}

fn broadcast_add(c: &mut Criterion) {
    let n = 4096;
    let a = field([n, n]).map(|x| x as f32);
    let row = field([n]).map(|x| x as f32);
    let mut group = c.benchmark_group("broadcast_add_f32_4096");
    group.throughput(Throughput::Bytes((2 * n * n * 4) as u64));
    group.sample_size(15);

    let raw = |x: &[f32], r: &[f32], o: &mut [f32]| {
        for (orow, xrow) in o.chunks_exact_mut(n).zip(x.chunks_exact(n)) {
            for ((o, &x), &r) in orow.iter_mut().zip(xrow).zip(r) {
                *o = x + r;
            }
        }
    };
    // The reference, computed before (and independently of) any filtered-out benchmark.
    let mut expected = Array::<f32, 2>::zeros([n, n]);
    raw(a.as_slice(), row.as_slice(), expected.as_mut_slice());
    let mut out = Array::<f32, 2>::zeros([n, n]);
    group.bench_function("reused/raw_loop", |b| {
        b.iter(|| raw(black_box(a.as_slice()), row.as_slice(), out.as_mut_slice()))
    });
    let row2 = row.broadcast_to([n, n]);
    group.bench_function("reused/cnda_zip", |b| {
        b.iter(|| Zip::from(out.view_mut()).and(black_box(&a).view()).and(row2).for_each(|o, &x, &r| *o = x + r))
    });
    group.bench_function("reused/cnda_assign_then_add_assign", |b| {
        b.iter(|| {
            out.assign(&black_box(&a));
            out += &row;
        })
    });
    group.bench_function("reused/ndarray_zip", |b| {
        let av = ArrayView2::from_shape((n, n), a.as_slice()).unwrap();
        let rv = ndarray::ArrayView1::from_shape(n, row.as_slice()).unwrap();
        b.iter(|| {
            let ov = ndarray::ArrayViewMut2::from_shape((n, n), out.as_mut_slice()).unwrap();
            ndarray::Zip::from(ov).and(black_box(&av)).and_broadcast(&rv).for_each(|o, &x, &r| *o = x + r)
        })
    });

    group.bench_function("fresh/raw_loop_into_vec", |b| {
        b.iter(|| {
            let (x, r) = (black_box(a.as_slice()), row.as_slice());
            let mut v = vec![0.0f32; n * n];
            for (orow, xrow) in v.chunks_exact_mut(n).zip(x.chunks_exact(n)) {
                for ((o, &x), &r) in orow.iter_mut().zip(xrow).zip(r) {
                    *o = x + r;
                }
            }
            black_box(v)
        })
    });
    Zip::from(out.view_mut()).and(a.view()).and(row2).for_each(|o, &x, &r| *o = x + r);
    assert_eq!(out, expected);
    group.bench_function("fresh/cnda_operator", |b| b.iter(|| black_box(black_box(&a) + &row)));
    assert_eq!(&a + &row, expected);
    let an = NdArray2::from_shape_vec((n, n), a.as_slice().to_vec()).unwrap();
    let rn = NdArray1::from_vec(row.as_slice().to_vec());
    group.bench_function("fresh/ndarray_operator", |b| b.iter(|| black_box(black_box(&an) + &rn)));
    group.finish();
}

/// A cache-resident lockstep loop, `o = a * b + c` over 2^14 f64: compute-bound, so it shows
/// whether `Zip`'s inner loop vectorizes like a slice loop.
fn zip_small(c: &mut Criterion) {
    let n = 1 << 14;
    let (a, b, d) = (field([n]), field([n]).map(|x| x + 1.0), field([n]).map(|x| x * 2.0));
    let mut out = Array::<f64, 1>::zeros([n]);
    let mut group = c.benchmark_group("zip_fma_f64_2^14");
    group.throughput(Throughput::Elements(n as u64));
    group.bench_function("raw_slices", |bch| {
        bch.iter(|| {
            for (((o, &x), &y), &z) in
                out.as_mut_slice().iter_mut().zip(black_box(a.as_slice())).zip(b.as_slice()).zip(d.as_slice())
            {
                *o = x * y + z;
            }
        })
    });
    group.bench_function("cnda_zip", |bch| {
        bch.iter(|| {
            Zip::from(out.view_mut())
                .and(black_box(&a).view())
                .and(b.view())
                .and(d.view())
                .for_each(|o, &x, &y, &z| *o = x * y + z)
        })
    });
    let (an, bn, dn) = (
        ndarray::ArrayView1::from_shape(n, a.as_slice()).unwrap(),
        ndarray::ArrayView1::from_shape(n, b.as_slice()).unwrap(),
        ndarray::ArrayView1::from_shape(n, d.as_slice()).unwrap(),
    );
    group.bench_function("ndarray_zip", |bch| {
        bch.iter(|| {
            let on = ndarray::ArrayViewMut1::from_shape(n, out.as_mut_slice()).unwrap();
            ndarray::Zip::from(on).and(black_box(&an)).and(&bn).and(&dn).for_each(|o, &x, &y, &z| *o = x * y + z)
        })
    });
    group.finish();
}

/// Cache-resident kernels, where the instruction set (not memory) bounds the speed: what runtime
/// SIMD dispatch is measured on (against a `-C target-cpu=native` build of the same bench).
fn cache_resident(c: &mut Criterion) {
    let mut group = c.benchmark_group("cache_resident");
    let x = field([1 << 16]);
    group.bench_function("sum_f64_2^16/raw_8_accumulators", |b| b.iter(|| sum_8_accumulators(black_box(x.as_slice()))));
    group.bench_function("sum_f64_2^16/cnda_sum", |b| b.iter(|| black_box(&x).sum()));
    let (a, mut acc) = (field([1 << 14]), field([1 << 14]));
    group.bench_function("add_assign_f64_2^14/raw_slices", |b| {
        b.iter(|| {
            for (o, &v) in acc.as_mut_slice().iter_mut().zip(black_box(a.as_slice())) {
                *o += v;
            }
        })
    });
    group.bench_function("add_assign_f64_2^14/cnda", |b| b.iter(|| acc += black_box(&a)));
    group.bench_function("sqrt_f64_2^14/cnda", |b| b.iter(|| black_box(&a).sqrt()));
    let m = field([256, 256]);
    let mut t = Array::<f64, 2>::zeros([256, 256]);
    group.bench_function("transpose_copy_f64_256^2/cnda_assign", |b| b.iter(|| t.assign(&black_box(&m).t())));
    group.finish();
}

fn sum_8_accumulators(x: &[f64]) -> f64 {
    let mut acc = [0.0; 8];
    let chunks = x.chunks_exact(8);
    let tail: f64 = chunks.remainder().iter().sum();
    for c in chunks {
        for k in 0..8 {
            acc[k] += c[k];
        }
    }
    acc.iter().sum::<f64>() + tail
}

fn sums(c: &mut Criterion) {
    let a = field([1 << 25]);
    let mut group = c.benchmark_group("sum_f64_2^25");
    group.throughput(Throughput::Bytes(((1 << 25) * 8) as u64));
    group.sample_size(20);
    group.bench_function("raw_8_accumulators", |b| b.iter(|| sum_8_accumulators(black_box(a.as_slice()))));
    group.bench_function("raw_iter_sum", |b| b.iter(|| black_box(a.as_slice()).iter().sum::<f64>()));
    group.bench_function("cnda_sum", |b| b.iter(|| black_box(&a).sum()));
    group.bench_function("cnda_par_sum", |b| b.iter(|| black_box(&a).par_sum()));
    let an = ndarray::ArrayView1::from_shape(1 << 25, a.as_slice()).unwrap();
    group.bench_function("ndarray_sum", |b| b.iter(|| black_box(&an).sum()));
    group.finish();

    let n = 4096;
    let m = field([n, n]);
    let mut group = c.benchmark_group("sum_axis_f64_4096");
    group.throughput(Throughput::Bytes((n * n * 8) as u64));
    group.sample_size(15);
    let mv = ArrayView2::from_shape((n, n), m.as_slice()).unwrap();
    for axis in [0usize, 1] {
        group.bench_function(BenchmarkId::new("raw_loop", axis), |b| {
            b.iter(|| {
                let x = black_box(m.as_slice());
                if axis == 0 {
                    let mut out = vec![0.0; n];
                    for row in x.chunks_exact(n) {
                        for (o, &v) in out.iter_mut().zip(row) {
                            *o += v;
                        }
                    }
                    out
                } else {
                    x.chunks_exact(n).map(sum_8_accumulators).collect::<Vec<f64>>()
                }
            })
        });
        group.bench_function(BenchmarkId::new("cnda_sum_axis", axis), |b| b.iter(|| black_box(&m).sum_axis(axis)));
        group.bench_function(BenchmarkId::new("ndarray_sum_axis", axis), |b| {
            b.iter(|| black_box(&mv).sum_axis(Axis(axis)))
        });
    }
    group.finish();
}

fn matmul(c: &mut Criterion) {
    for n in [1024usize, 2048] {
        let a = field([n, n]);
        let b2 = field([n, n]);
        let mut group = c.benchmark_group(format!("matmul_f64_{n}"));
        group.throughput(Throughput::Elements((2 * n * n * n) as u64));
        group.sample_size(10);
        group.bench_function("t1/cnda_matmul", |bch| bch.iter(|| a.matmul_with(&black_box(&b2), Par::Seq)));
        group.bench_function("t2/cnda_matmul", |bch| bch.iter(|| a.matmul_with(&black_box(&b2), Par::Rayon(2))));
        group.bench_function("t1/cnda_matmul_transposed_rhs_view", |bch| {
            bch.iter(|| a.matmul_with(&black_box(&b2).t(), Par::Seq))
        });
        let (an, bn) = (
            ArrayView2::from_shape((n, n), a.as_slice()).unwrap(),
            ArrayView2::from_shape((n, n), b2.as_slice()).unwrap(),
        );
        group.bench_function("t1/ndarray_dot", |bch| bch.iter(|| black_box(&an).dot(&bn)));
        group.finish();
    }
}

cnda::structured! {
    /// A 16-byte particle.
    pub struct Particle (ParticleSoa) {
        pub x: f32,
        pub y: f32,
        pub vx: f32,
        pub mass: f32,
    }
}

fn field_sum(c: &mut Criterion) {
    let n = 1 << 22;
    let aos = Array::from_fn([n], |[i]| Particle { x: (i % 1000) as f32 * 1e-3, y: 1.0, vx: 2.0, mass: 3.0 });
    let soa = ParticleSoa::aos_to_soa(aos.view());
    let mut group = c.benchmark_group("sum_x_field_2^22_particles");
    group.throughput(Throughput::Elements(n as u64));
    group.sample_size(20);
    group.bench_function("raw_loop_over_structs", |b| {
        b.iter(|| {
            let mut acc = [0.0f32; 8];
            let chunks = black_box(aos.as_slice()).chunks_exact(8);
            for c in chunks {
                for k in 0..8 {
                    acc[k] += c[k].x;
                }
            }
            acc.iter().sum::<f32>()
        })
    });
    group.bench_function("cnda_field_view_sum", |b| b.iter(|| black_box(&aos).field(Particle::x).sum()));
    group.bench_function("cnda_soa_array_sum", |b| b.iter(|| black_box(&soa).x.sum()));
    group.bench_function("raw_loop_over_soa_slice", |b| b.iter(|| black_box(soa.x.as_slice()).iter().sum::<f32>()));
    group.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(std::time::Duration::from_secs(1))
        .measurement_time(std::time::Duration::from_secs(3))
}

criterion_group! { name = benches; config = config(); targets = broadcast_add, zip_small, cache_resident, sums, matmul, field_sum }
criterion_main!(benches);
