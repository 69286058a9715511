//! Allocating, filling and dropping a 64 MiB f64 array: from a pool against the system allocator
//! (cnda's default path, huge-page advised) and a plain `vec!` (no advice), in the same run.
//! One iteration is one allocate-fill-drop cycle; the "100 times" is 100 x the median.
//!
//! `cargo bench --bench pool`

use cnda::pool::Pool;
use cnda::prelude::*;
use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};

const LEN: usize = 8 << 20; // 8 Mi f64 = 64 MiB

fn cycle(c: &mut Criterion) {
    let mut group = c.benchmark_group("alloc_fill_drop_64MiB");
    group.throughput(Throughput::Bytes((LEN * 8) as u64));
    group.sample_size(20);
    group.bench_function("vec_macro_no_huge_pages", |b| b.iter(|| drop(black_box(vec![1.0f64; LEN]))));
    group.bench_function("cnda_system_allocator", |b| {
        b.iter(|| drop(black_box(Array::<f64, 1>::try_full_in(&Cpu, [LEN], 1.0).unwrap())))
    });
    let pool = Pool::new();
    group.bench_function("cnda_pool", |b| {
        b.iter(|| drop(black_box(Array::<f64, 1>::try_full_in(&pool, [LEN], 1.0).unwrap())))
    });
    let stats = pool.stats();
    assert_eq!(stats.misses, 1, "one fresh block, every other cycle reuses it: {stats:?}");
    group.bench_function("cnda_pool_zeros", |b| {
        b.iter(|| drop(black_box(Array::<f64, 1>::try_zeros_in(&pool, [LEN]).unwrap())))
    });
    group.bench_function("cnda_system_zeros", |b| {
        b.iter(|| drop(black_box(Array::<f64, 1>::try_zeros_in(&Cpu, [LEN]).unwrap())))
    });
    group.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(std::time::Duration::from_secs(1))
        .measurement_time(std::time::Duration::from_secs(4))
}

criterion_group! { name = benches; config = config(); targets = cycle }
criterion_main!(benches);
