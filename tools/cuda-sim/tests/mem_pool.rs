//! The default memory pool as cnda uses it: its handle, and its attributes set (the release
//! threshold) or refused with the driver's errors.

use std::ffi::c_void;
use std::ptr::null_mut;

use cuda_sim::driver::device as dev;

/// `CU_MEMPOOL_ATTR_RELEASE_THRESHOLD`.
const RELEASE_THRESHOLD: u32 = 4;

#[test]
fn the_default_pool_takes_a_release_threshold() {
    assert_eq!(dev::cuInit(0), 0);
    let mut pool: *mut c_void = null_mut();
    // SAFETY: a valid out-pointer.
    assert_eq!(unsafe { dev::cuDeviceGetDefaultMemPool(&mut pool, 0) }, 0);
    assert!(!pool.is_null());
    let mut bytes = u64::MAX;
    let value = (&mut bytes as *mut u64).cast();
    assert_eq!(dev::cuMemPoolSetAttribute(pool, RELEASE_THRESHOLD, value), 0);
    // Another device, another handle, an unknown attribute and a null value are refused.
    let mut other: *mut c_void = null_mut();
    // SAFETY: a valid out-pointer.
    assert_ne!(unsafe { dev::cuDeviceGetDefaultMemPool(&mut other, 1) }, 0);
    assert_ne!(dev::cuMemPoolSetAttribute(value, RELEASE_THRESHOLD, value), 0);
    assert_ne!(dev::cuMemPoolSetAttribute(pool, 99, value), 0);
    assert_ne!(dev::cuMemPoolSetAttribute(pool, RELEASE_THRESHOLD, null_mut()), 0);
}
