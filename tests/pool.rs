//! Pools: reuse, statistics, zeroing, byte caps, and arrays outliving their pool.

use cnda::pool::Pool;
use cnda::prelude::*;

#[test]
fn blocks_are_reused_and_counted() {
    let pool = Pool::new();
    {
        let a = Array::<f64, 2>::try_zeros_in(&pool, [100, 100]).unwrap(); // 80,000 B -> 128 KiB class
        let s = pool.stats();
        assert_eq!((s.allocations, s.misses, s.hits, s.frees), (1, 1, 0, 0));
        assert_eq!(s.bytes_in_use, 128 * 1024);
        assert_eq!(s.bytes_cached, 0);
        drop(a);
    }
    let s = pool.stats();
    assert_eq!((s.frees, s.bytes_in_use, s.bytes_cached), (1, 0, 128 * 1024));
    let b = Array::<f32, 1>::try_full_in(&pool, [20_000], 1.5).unwrap(); // 80,000 B again
    let s = pool.stats();
    assert_eq!((s.hits, s.misses, s.high_water), (1, 1, 128 * 1024));
    let class = s.used_classes().next().unwrap();
    assert_eq!((class.block_bytes, class.hits, class.misses, class.in_use, class.cached), (128 * 1024, 1, 1, 1, 0));
    assert!(b.iter().all(|&x| x == 1.5));
    assert_eq!(b.as_slice().as_ptr() as usize % 64, 0);
}

#[test]
fn reused_memory_never_leaks_old_data() {
    let pool = Pool::new();
    let mut a = Array::<u64, 1>::try_zeros_in(&pool, [1000]).unwrap();
    a.fill(0xDEAD_BEEF);
    drop(a);
    let z = Array::<u64, 1>::try_zeros_in(&pool, [900]).unwrap();
    assert_eq!(pool.stats().hits, 1);
    assert!(z.iter().all(|&x| x == 0), "zeros from a reused block must be zero");
    drop(z);
    let f = Array::<u64, 2>::try_from_fn_in(&pool, [30, 30], |[i, j]| (i * 30 + j) as u64).unwrap();
    assert!(f.indexed_iter().all(|([i, j], &x)| x == (i * 30 + j) as u64));
}

#[test]
fn arrays_outlive_their_pool() {
    let pool = Pool::new();
    let a = Array::<f64, 1>::try_full_in(&pool, [1 << 16], 2.0).unwrap();
    let b = a.clone(); // clones come from the same pool
    assert_eq!(pool.stats().allocations, 2);
    drop(pool);
    // The pool is gone: dropping the arrays frees their blocks directly.
    assert_eq!(a.sum(), 2.0 * (1 << 16) as f64);
    drop(a);
    drop(b);
}

#[test]
fn byte_cap_releases_cache_then_fails_with_the_numbers() {
    let pool = Pool::with_byte_cap(1 << 20);
    let a = Array::<u8, 1>::try_zeros_in(&pool, [600_000]).unwrap(); // 1 MiB class: the whole cap
    let err = Array::<u8, 1>::try_zeros_in(&pool, [100]).unwrap_err();
    match &err {
        Error::Alloc { bytes, reason, .. } => {
            assert_eq!(*bytes, 128);
            assert!(reason.contains("cap is 1048576 bytes") && reason.contains("1048576 are in use"), "{reason}");
        }
        other => panic!("expected Error::Alloc, got {other:?}"),
    }
    drop(a);
    // The cached 1 MiB block is released to make room for a block of another class.
    let small = Array::<u8, 1>::try_zeros_in(&pool, [100]).unwrap();
    let s = pool.stats();
    assert_eq!((s.bytes_cached, s.bytes_in_use), (0, 128));
    drop(small);
    assert_eq!(pool.trim(), 128);
    assert_eq!(pool.stats().bytes_cached, 0);
}

#[test]
fn pools_are_shared_across_threads() {
    let pool = Pool::new();
    std::thread::scope(|s| {
        for t in 0..4 {
            let pool = pool.clone();
            s.spawn(move || {
                for k in 0..50 {
                    let a = Array::<i32, 1>::try_full_in(&pool, [1000 + k], t).unwrap();
                    assert!(a.iter().all(|&x| x == t));
                }
            });
        }
    });
    let s = pool.stats();
    assert_eq!(s.allocations, 200);
    assert_eq!(s.frees, 200);
    assert_eq!(s.bytes_in_use, 0);
    // Requests span two classes (4 KiB and 8 KiB): at most one miss per class and thread.
    assert!(s.misses <= 8 && s.hits >= 192, "hits {} misses {}", s.hits, s.misses);
}

#[test]
fn huge_requests_are_errors() {
    let pool = Pool::new();
    assert!(Array::<u8, 1>::try_zeros_in(&pool, [1 << 62]).is_err());
    assert!(matches!(Array::<u64, 1>::try_zeros_in(&pool, [usize::MAX / 4]), Err(Error::Overflow { .. })));
}

#[test]
fn ops_on_pooled_arrays_allocate_their_outputs_from_the_pool() {
    let pool = Pool::new();
    let a = Array::<f64, 2>::try_from_fn_in(&pool, [64, 64], |[i, j]| (i * 64 + j) as f64).unwrap();
    let b = Array::<f64, 1>::try_from_fn_in(&pool, [64], |[j]| j as f64).unwrap();
    let misses = pool.stats().misses;
    // One time step: every temporary goes back to the pool and the next step reuses it.
    for step in 0..3 {
        let c = &(&a + &b) * 0.5;
        let d = -&c;
        let e = d.abs().sqrt();
        let f = 1.0 - &e;
        assert!(matches!(f.allocator(), CpuAlloc::Pool(_)));
        assert_eq!(f[[1, 2]], 1.0 - (0.5 * (66.0 + 2.0)).sqrt(), "step {step}");
    }
    let stats = pool.stats();
    // The first step took at most four fresh blocks; later steps only reused them.
    assert!(stats.misses - misses <= 4, "{stats:?}");
    assert!(stats.hits >= 8, "{stats:?}");
    // A view does not know its owner's pool: its outputs come from the system.
    assert!(matches!((a.view() + 1.0).allocator(), CpuAlloc::System));
    // Once the pool is gone, a pooled array's outputs come from the system.
    drop(pool);
    assert!(matches!((&a + 1.0).allocator(), CpuAlloc::System));
}

#[test]
fn host_copies_into_a_pool_and_between_host_allocators() {
    let pool = Pool::new();
    let a = Array::from_fn([6, 5], |[i, j]| (i * 5 + j) as i32);
    // Any view to a pool, through `to_backend` (the host is a backend like the others).
    let t = a.t().to_backend(&pool);
    assert_eq!(t, a.t().to_owned());
    assert!(matches!(t.allocator(), CpuAlloc::Pool(_)));
    let stepped = a.slice(s![..;-2, 1..]).to_device(&pool);
    assert_eq!(stepped, a.slice(s![..;-2, 1..]).to_owned());
    // `to_owned_in` copies into a chosen allocator of the same backend.
    let copy = a.t().to_owned_in(&pool);
    assert_eq!(copy, t);
    assert_eq!(pool.stats().allocations, 3);
    // `to_host` of a host array is a plain copy; `to_backend(&Cpu)` one from the system.
    assert_eq!(t.to_host(), t);
    assert!(matches!(t.to_backend(&Cpu).allocator(), CpuAlloc::System));
    assert_eq!(pool.stats().allocations, 3);
}

#[test]
fn an_upload_whose_data_does_not_fill_its_shape_is_an_error() {
    let pool = Pool::new();
    let Err(e) = Array::from_slice_in(&pool, [100, 100], &[1.0f32, 2.0]) else {
        panic!("2 elements cannot fill 100 x 100")
    };
    assert!(matches!(e, Error::LengthMismatch { expected: 10_000, got: 2, .. }), "{e}");
    assert!(Array::from_slice_in(&Cpu, [usize::MAX, 2], &[1u8; 3]).is_err(), "an overflowing shape");
    assert_eq!(
        Array::from_slice_in(&Cpu, [2, 2], &[1i32, 2, 3, 4]).unwrap(),
        Array::from_fn([2, 2], |[i, j]| (i * 2 + j + 1) as i32)
    );
}
