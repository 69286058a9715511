//! Device memory on every device backend, written once: pools of device memory (statistics,
//! reuse, zeroing, caps, outputs of ops allocated from their inputs' pool, pools dropped before
//! their arrays) and transfers between backends (`to_device` into a pool, `to_backend`,
//! `to_owned_in`), checked against host arrays. WebGPU runs on this machine's adapter (lavapipe
//! in CI); CUDA prints SKIP without a GPU.
#![cfg(any(feature = "cuda", feature = "wgpu"))]

use cnda::backend::DeviceAlloc;
use cnda::pool::{Pool, PoolStats};
use cnda::prelude::*;

fn host(shape: [usize; 2]) -> Array<f32, 2> {
    Array::from_fn(shape, |[i, j]| (i * shape[1] + j) as f32 * 0.5 - 3.0)
}

fn counts(stats: &PoolStats) -> (u64, u64, u64) {
    (stats.allocations, stats.hits, stats.misses)
}

/// The cases, once per device backend: `$B` its backend, `$Dev` its device, `$open` the device
/// or `None` (SKIP).
macro_rules! device_memory {
    ($($backend:ident: $B:ty, $Dev:ty, $open:expr;)*) => {$(
        mod $backend {
            use super::*;

            type B = $B;
            type Dev = $Dev;

            /// A pool hands out one block, takes it back when the array drops, and serves the next request
            /// from it, zeroed again when zeros are asked for.
            fn reuses_blocks_and_zeroes_them(dev: Dev) {
                let pool = Pool::for_device(&dev);
                for round in 0..3 {
                    let mut a = Array::<f32, 2, B>::zeros_in(&pool, [48, 40]);
                    assert_eq!(a.to_host(), Array::<f32, 2>::zeros([48, 40]), "round {round}: a reused block is zeroed");
                    a.fill(7.0);
                    assert_eq!(a.sum(), 7.0 * 48.0 * 40.0);
                }
                let stats = pool.stats();
                assert_eq!(counts(&stats), (3, 2, 1), "one fresh block, reused twice: {stats:?}");
                assert_eq!((stats.bytes_in_use, stats.bytes_cached), (0, 8192), "{stats:?}");
                assert_eq!(pool.trim(), 8192);
                assert_eq!(pool.stats().bytes_cached, 0);
            }

            /// Ops on pooled arrays take their outputs from the same pool, so a time loop's temporaries
            /// stop costing fresh device memory after the first steps.
            fn outputs_come_from_the_inputs_pool(dev: Dev) {
                let pool = Pool::for_device(&dev);
                let h = host([33, 17]);
                let mut u = h.to_device(&pool);
                assert!(matches!(u.allocator(), DeviceAlloc::Pool(_)), "to_device(&pool) gives a pooled array");
                let mut want = h.clone();
                for _ in 0..10 {
                    u = &(&u * 0.5f32) + 1.0f32;
                    want = &(&want * 0.5f32) + 1.0f32;
                }
                assert!(matches!(u.allocator(), DeviceAlloc::Pool(_)));
                assert_eq!(u.to_host(), want);
                let stats = pool.stats();
                assert_eq!(stats.allocations, 21, "the upload and two temporaries per step: {stats:?}");
                assert!(stats.misses <= 3, "after the first step every temporary is a reused block: {stats:?}");
                // Arrays from the device itself stay unpooled, and so do their outputs.
                let direct = h.to_device(&dev);
                assert!(matches!((&direct + 1.0f32).allocator(), DeviceAlloc::Device(_)));
                assert_eq!(pool.stats().allocations, 21);
            }

            /// An array outlives its pool: the block is freed (not returned) when the array drops.
            fn arrays_outlive_their_pool(dev: Dev) {
                let pool = Pool::for_device(&dev);
                let a = host([5, 9]).to_device(&pool);
                drop(pool);
                assert!(matches!(a.allocator(), DeviceAlloc::Device(_)), "the pool is gone");
                let b = &a + &a;
                assert!(matches!(b.allocator(), DeviceAlloc::Device(_)));
                assert_eq!(b.to_host(), &host([5, 9]) + &host([5, 9]));
            }

            /// A byte cap releases cached blocks first, then refuses with `Error::Alloc`.
            fn caps_are_enforced(dev: Dev) {
                let pool = Pool::for_device_with_byte_cap(&dev, 1 << 15);
                let small = Array::<f32, 1, B>::zeros_in(&pool, [4096]);
                let Err(e) = Array::<f32, 1, B>::try_zeros_in(&pool, [8192]) else { panic!("beyond the cap") };
                assert!(matches!(e, Error::Alloc { .. }), "{e}");
                assert!(e.to_string().contains("byte cap is 32768 bytes"), "{e}");
                drop(small);
                let again = Array::<f32, 1, B>::zeros_in(&pool, [8192]);
                assert_eq!(again.len(), 8192);
                assert_eq!(pool.stats().bytes_cached, 0, "the cached 16 KiB block was released to fit 32 KiB");
            }

            /// `to_backend` and `to_owned_in` between the host, the device, and pools of either, for
            /// contiguous and strided sources, against the host array.
            fn moves_between_backends_and_pools(dev: Dev) {
                let h = host([21, 34]);
                let d = h.to_backend(&dev);
                assert_eq!(d.to_host(), h);
                assert_eq!(d.to_backend(&Cpu), h);
                assert_eq!(d.t().to_backend(&Cpu), h.t().to_owned());
                let host_pool = Pool::new();
                let back = d.slice(s![..;-2, 3..]).to_backend(&host_pool);
                assert_eq!(back, h.slice(s![..;-2, 3..]).to_owned());
                assert_eq!(host_pool.stats().allocations, 1, "the host copy came from the host pool");
                let pool = Pool::for_device(&dev);
                let moved = d.t().to_backend(&pool);
                assert_eq!(moved.to_host(), h.t().to_owned());
                assert!(matches!(moved.allocator(), DeviceAlloc::Pool(_)));
                let local = d.t().to_owned_in(&pool);
                assert_eq!(local.to_host(), h.t().to_owned());
                assert_eq!(pool.stats().allocations, 2);
                let empty = Array::<f32, 2>::zeros([0, 3]).to_backend(&pool);
                assert_eq!(empty.to_host().shape(), [0, 3]);
            }

            #[test]
            fn pools_reuse_blocks_and_zero_them() {
                let Some(dev) = $open else { return };
                reuses_blocks_and_zeroes_them(dev);
            }

            #[test]
            fn ops_take_outputs_from_the_inputs_pool() {
                let Some(dev) = $open else { return };
                outputs_come_from_the_inputs_pool(dev);
            }

            #[test]
            fn pooled_arrays_outlive_their_pool() {
                let Some(dev) = $open else { return };
                arrays_outlive_their_pool(dev);
            }

            #[test]
            fn pool_caps_are_enforced() {
                let Some(dev) = $open else { return };
                caps_are_enforced(dev);
            }

            #[test]
            fn transfers_between_backends_and_pools() {
                let Some(dev) = $open else { return };
                moves_between_backends_and_pools(dev);
            }
        }
    )*};
}

/// The device, or SKIP (a failure where `CNDA_REQUIRE_<NAME>` is set).
fn open<D>(name: &str, opened: Result<D, Error>) -> Option<D> {
    match opened {
        Ok(dev) => Some(dev),
        Err(e) => {
            let required = format!("CNDA_REQUIRE_{}", name.to_uppercase());
            assert!(std::env::var_os(&required).is_none(), "{required} is set but: {e}");
            eprintln!("SKIP: no {name} device: {e}");
            None
        }
    }
}

#[cfg(feature = "wgpu")]
device_memory! {
    wgpu: Wgpu, WgpuDevice, open("wgpu", WgpuDevice::new());
}

#[cfg(feature = "cuda")]
device_memory! {
    cuda: Cuda, CudaDevice, open("cuda", CudaDevice::new(0));
}

/// Transfers between the two device backends, through the host.
#[cfg(all(feature = "cuda", feature = "wgpu"))]
#[test]
fn cuda_and_wgpu_exchange_arrays() {
    let (Some(gpu), Some(web)) = (open("cuda", CudaDevice::new(0)), open("wgpu", WgpuDevice::new())) else { return };
    let h = host([19, 23]);
    let c = h.to_device(&gpu);
    let w = c.t().to_backend(&web);
    assert_eq!(w.to_host(), h.t().to_owned());
    assert_eq!(w.to_backend(&Pool::for_device(&gpu)).to_host(), h.t().to_owned());
}
