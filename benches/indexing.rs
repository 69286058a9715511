//! Indexing fast paths: 2D 5-point and 3D 7-point Jacobi sweeps written with `a[[i, j]]` under each
//! bounds policy and with `get_unchecked`, against a raw unchecked slice loop and ndarray's
//! `[[i, j]]` / `uget`, in the same run.
//!
//! `cargo bench --bench indexing`

use cnda::prelude::*;
use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};

const N2: usize = 2048;
const N2_CACHED: usize = 256;
const N3: usize = 192;
const N3_CACHED: usize = 48;

fn field2(n: usize) -> Vec<f64> {
    (0..n * n).map(|k| ((k * 7919) % 1000) as f64 * 1e-3).collect()
}

// ---- 2D 5-point -------------------------------------------------------------------------------

#[inline(never)]
fn raw_2d(n: usize, u: &[f64], v: &mut [f64]) {
    assert!(u.len() == n * n && v.len() == n * n);
    for i in 1..n - 1 {
        for j in 1..n - 1 {
            // SAFETY: 1 <= i, j <= n - 2, so every offset is below n * n, checked above.
            unsafe {
                *v.get_unchecked_mut(i * n + j) = 0.25
                    * (u.get_unchecked((i - 1) * n + j)
                        + u.get_unchecked((i + 1) * n + j)
                        + u.get_unchecked(i * n + j - 1)
                        + u.get_unchecked(i * n + j + 1));
            }
        }
    }
}

#[inline(never)]
fn cnda_2d<C: BoundsCheck>(u: &Array<f64, 2, Cpu, RowMajor, C>, v: &mut Array<f64, 2, Cpu, RowMajor, C>) {
    let [n, m] = u.shape();
    for i in 1..n - 1 {
        for j in 1..m - 1 {
            v[[i, j]] = 0.25 * (u[[i - 1, j]] + u[[i + 1, j]] + u[[i, j - 1]] + u[[i, j + 1]]);
        }
    }
}

#[inline(never)]
fn cnda_2d_get_unchecked(u: &Array<f64, 2>, v: &mut Array<f64, 2>) {
    let [n, m] = u.shape();
    assert_eq!(v.shape(), [n, m]);
    for i in 1..n - 1 {
        for j in 1..m - 1 {
            // SAFETY: 1 <= i <= n - 2 and 1 <= j <= m - 2; both arrays are n x m.
            unsafe {
                *v.get_unchecked_mut([i, j]) = 0.25
                    * (u.get_unchecked([i - 1, j])
                        + u.get_unchecked([i + 1, j])
                        + u.get_unchecked([i, j - 1])
                        + u.get_unchecked([i, j + 1]));
            }
        }
    }
}

#[inline(never)]
fn ndarray_2d(u: &ndarray::Array2<f64>, v: &mut ndarray::Array2<f64>) {
    let (n, m) = u.dim();
    for i in 1..n - 1 {
        for j in 1..m - 1 {
            v[[i, j]] = 0.25 * (u[[i - 1, j]] + u[[i + 1, j]] + u[[i, j - 1]] + u[[i, j + 1]]);
        }
    }
}

#[inline(never)]
fn ndarray_2d_uget(u: &ndarray::Array2<f64>, v: &mut ndarray::Array2<f64>) {
    let (n, m) = u.dim();
    assert_eq!(v.dim(), (n, m));
    for i in 1..n - 1 {
        for j in 1..m - 1 {
            // SAFETY: in bounds as in `cnda_2d_get_unchecked`.
            unsafe {
                *v.uget_mut([i, j]) =
                    0.25 * (u.uget([i - 1, j]) + u.uget([i + 1, j]) + u.uget([i, j - 1]) + u.uget([i, j + 1]));
            }
        }
    }
}

fn jacobi_2d(c: &mut Criterion) {
    jacobi_2d_size(c, N2);
    // Cache-resident: memory bandwidth no longer hides the cost of the checks.
    jacobi_2d_size(c, N2_CACHED);
}

fn jacobi_2d_size(c: &mut Criterion, n: usize) {
    let data = field2(n);
    let mut group = c.benchmark_group(format!("jacobi2d_{n}"));
    group.throughput(Throughput::Elements(((n - 2) * (n - 2)) as u64));
    group.sample_size(30);

    let u_raw = data.clone();
    let mut v_raw = vec![0.0; n * n];
    group.bench_function("raw_slice_unchecked", |b| b.iter(|| raw_2d(n, black_box(&u_raw), &mut v_raw)));

    let u = Array::from_shape_vec([n, n], data.clone()).unwrap();
    let mut v = Array::<f64, 2>::zeros([n, n]);
    group.bench_function("cnda_index_default", |b| b.iter(|| cnda_2d(black_box(&u), &mut v)));
    assert_eq!(v.as_slice(), v_raw.as_slice(), "cnda and raw loops must compute the same field");

    let (uc, mut vc) = (u.clone().with_check::<Checked>(), v.clone().with_check::<Checked>());
    group.bench_function("cnda_index_checked", |b| b.iter(|| cnda_2d(black_box(&uc), &mut vc)));
    let (uu, mut vu) = (u.clone().with_check::<Unchecked>(), v.clone().with_check::<Unchecked>());
    group.bench_function("cnda_index_unchecked", |b| b.iter(|| cnda_2d(black_box(&uu), &mut vu)));
    group.bench_function("cnda_get_unchecked", |b| b.iter(|| cnda_2d_get_unchecked(black_box(&u), &mut v)));

    let un = ndarray::Array2::from_shape_vec((n, n), data).unwrap();
    let mut vn = ndarray::Array2::<f64>::zeros((n, n));
    group.bench_function("ndarray_index", |b| b.iter(|| ndarray_2d(black_box(&un), &mut vn)));
    group.bench_function("ndarray_uget", |b| b.iter(|| ndarray_2d_uget(black_box(&un), &mut vn)));
    group.finish();
}

// ---- 3D 7-point -------------------------------------------------------------------------------

#[inline(never)]
fn raw_3d(n: usize, u: &[f64], v: &mut [f64]) {
    assert!(u.len() == n * n * n && v.len() == n * n * n);
    let (sy, sx) = (n, n * n);
    for i in 1..n - 1 {
        for j in 1..n - 1 {
            for k in 1..n - 1 {
                let c = i * sx + j * sy + k;
                // SAFETY: every neighbour of an interior point is inside the n^3 block checked above.
                unsafe {
                    *v.get_unchecked_mut(c) = (1.0 / 6.0)
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

#[inline(never)]
fn cnda_3d<C: BoundsCheck>(u: &Array<f64, 3, Cpu, RowMajor, C>, v: &mut Array<f64, 3, Cpu, RowMajor, C>) {
    let [n0, n1, n2] = u.shape();
    for i in 1..n0 - 1 {
        for j in 1..n1 - 1 {
            for k in 1..n2 - 1 {
                v[[i, j, k]] = (1.0 / 6.0)
                    * (u[[i - 1, j, k]]
                        + u[[i + 1, j, k]]
                        + u[[i, j - 1, k]]
                        + u[[i, j + 1, k]]
                        + u[[i, j, k - 1]]
                        + u[[i, j, k + 1]]);
            }
        }
    }
}

#[inline(never)]
fn cnda_3d_get_unchecked(u: &Array<f64, 3>, v: &mut Array<f64, 3>) {
    let [n0, n1, n2] = u.shape();
    assert_eq!(v.shape(), u.shape());
    for i in 1..n0 - 1 {
        for j in 1..n1 - 1 {
            for k in 1..n2 - 1 {
                // SAFETY: interior points; both arrays have the same shape.
                unsafe {
                    *v.get_unchecked_mut([i, j, k]) = (1.0 / 6.0)
                        * (u.get_unchecked([i - 1, j, k])
                            + u.get_unchecked([i + 1, j, k])
                            + u.get_unchecked([i, j - 1, k])
                            + u.get_unchecked([i, j + 1, k])
                            + u.get_unchecked([i, j, k - 1])
                            + u.get_unchecked([i, j, k + 1]));
                }
            }
        }
    }
}

#[inline(never)]
fn ndarray_3d(u: &ndarray::Array3<f64>, v: &mut ndarray::Array3<f64>) {
    let (n0, n1, n2) = u.dim();
    for i in 1..n0 - 1 {
        for j in 1..n1 - 1 {
            for k in 1..n2 - 1 {
                v[[i, j, k]] = (1.0 / 6.0)
                    * (u[[i - 1, j, k]]
                        + u[[i + 1, j, k]]
                        + u[[i, j - 1, k]]
                        + u[[i, j + 1, k]]
                        + u[[i, j, k - 1]]
                        + u[[i, j, k + 1]]);
            }
        }
    }
}

#[inline(never)]
fn ndarray_3d_uget(u: &ndarray::Array3<f64>, v: &mut ndarray::Array3<f64>) {
    let (n0, n1, n2) = u.dim();
    assert_eq!(v.dim(), u.dim());
    for i in 1..n0 - 1 {
        for j in 1..n1 - 1 {
            for k in 1..n2 - 1 {
                // SAFETY: interior points; both arrays have the same shape.
                unsafe {
                    *v.uget_mut([i, j, k]) = (1.0 / 6.0)
                        * (u.uget([i - 1, j, k])
                            + u.uget([i + 1, j, k])
                            + u.uget([i, j - 1, k])
                            + u.uget([i, j + 1, k])
                            + u.uget([i, j, k - 1])
                            + u.uget([i, j, k + 1]));
                }
            }
        }
    }
}

fn jacobi_3d(c: &mut Criterion) {
    jacobi_3d_size(c, N3);
    // Cache-resident (1.8 MiB for both grids).
    jacobi_3d_size(c, N3_CACHED);
}

fn jacobi_3d_size(c: &mut Criterion, n: usize) {
    let data: Vec<f64> = (0..n * n * n).map(|k| ((k * 7919) % 1000) as f64 * 1e-3).collect();
    let mut group = c.benchmark_group(format!("jacobi3d_{n}"));
    group.throughput(Throughput::Elements(((n - 2) * (n - 2) * (n - 2)) as u64));
    group.sample_size(20);

    let u_raw = data.clone();
    let mut v_raw = vec![0.0; n * n * n];
    group.bench_function("raw_slice_unchecked", |b| b.iter(|| raw_3d(n, black_box(&u_raw), &mut v_raw)));

    let u = Array::from_shape_vec([n, n, n], data.clone()).unwrap();
    let mut v = Array::<f64, 3>::zeros([n, n, n]);
    group.bench_function("cnda_index_default", |b| b.iter(|| cnda_3d(black_box(&u), &mut v)));
    assert_eq!(v.as_slice(), v_raw.as_slice(), "cnda and raw loops must compute the same field");

    let (uc, mut vc) = (u.clone().with_check::<Checked>(), v.clone().with_check::<Checked>());
    group.bench_function("cnda_index_checked", |b| b.iter(|| cnda_3d(black_box(&uc), &mut vc)));
    let (uu, mut vu) = (u.clone().with_check::<Unchecked>(), v.clone().with_check::<Unchecked>());
    group.bench_function("cnda_index_unchecked", |b| b.iter(|| cnda_3d(black_box(&uu), &mut vu)));
    group.bench_function("cnda_get_unchecked", |b| b.iter(|| cnda_3d_get_unchecked(black_box(&u), &mut v)));

    let un = ndarray::Array3::from_shape_vec((n, n, n), data).unwrap();
    let mut vn = ndarray::Array3::<f64>::zeros((n, n, n));
    group.bench_function("ndarray_index", |b| b.iter(|| ndarray_3d(black_box(&un), &mut vn)));
    group.bench_function("ndarray_uget", |b| b.iter(|| ndarray_3d_uget(black_box(&un), &mut vn)));
    group.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(std::time::Duration::from_secs(1))
        .measurement_time(std::time::Duration::from_secs(4))
}

criterion_group! { name = benches; config = config(); targets = jacobi_2d, jacobi_3d }
criterion_main!(benches);
