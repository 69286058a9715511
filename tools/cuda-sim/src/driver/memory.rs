//! Allocation, copies and memsets, and pinned host memory. Device addresses are checked against
//! the memory map: a copy or memset that leaves a live allocation fails with
//! `CUDA_ERROR_INVALID_VALUE` (as the driver does) and a message naming the address.

#![allow(non_snake_case, clippy::missing_safety_doc)]

use std::ffi::{c_uint, c_void};

use super::device::TOTAL_MEMORY;
use super::{device, guard, out, Device};
use crate::error::{CuResult, SimError, INVALID_VALUE, OUT_OF_MEMORY};
use crate::memory::{Kind, POISON};

fn alloc(bytes: usize, kind: Kind, fill: u8) -> Result<u64, SimError> {
    let mut d = device();
    d.require_init()?;
    if bytes > TOTAL_MEMORY {
        return Err(SimError::new(OUT_OF_MEMORY, format!("allocation of {bytes} bytes")));
    }
    d.mem.alloc(bytes, kind, fill).ok_or_else(|| SimError::new(OUT_OF_MEMORY, format!("allocation of {bytes} bytes")))
}

fn free(ptr: u64, kind: Kind, what: &str) -> Result<(), SimError> {
    device().mem.free(ptr, kind).map_err(|why| SimError::new(INVALID_VALUE, format!("{what}: {why}")))
}

#[no_mangle]
pub unsafe extern "C" fn cuMemAlloc_v2(p: *mut u64, bytes: usize) -> CuResult {
    guard(|| {
        let a = alloc(bytes, Kind::Device, POISON)?;
        // SAFETY: the caller passes a valid out-pointer.
        unsafe { out(p, a) }
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuMemAllocAsync(p: *mut u64, bytes: usize, s: *mut c_void) -> CuResult {
    guard(|| {
        device().stream(s)?;
        let a = alloc(bytes, Kind::Device, POISON)?;
        // SAFETY: the caller passes a valid out-pointer.
        unsafe { out(p, a) }
    })
}

#[no_mangle]
pub extern "C" fn cuMemFree_v2(p: u64) -> CuResult {
    guard(|| free(p, Kind::Device, "cuMemFree"))
}

#[no_mangle]
pub extern "C" fn cuMemFreeAsync(p: u64, s: *mut c_void) -> CuResult {
    guard(|| {
        device().stream(s)?;
        free(p, Kind::Device, "cuMemFreeAsync")
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuMemGetInfo_v2(free: *mut usize, total: *mut usize) -> CuResult {
    guard(|| {
        let live = device().mem.live_bytes();
        // SAFETY: the caller passes valid out-pointers.
        unsafe {
            out(free, TOTAL_MEMORY.saturating_sub(live))?;
            out(total, TOTAL_MEMORY)
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuMemHostAlloc(p: *mut *mut c_void, bytes: usize, _flags: c_uint) -> CuResult {
    guard(|| {
        let a = alloc(bytes, Kind::PinnedHost, 0)?;
        // SAFETY: the caller passes a valid out-pointer.
        unsafe { out(p, a as *mut c_void) }
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuMemAllocHost_v2(p: *mut *mut c_void, bytes: usize) -> CuResult {
    // SAFETY: as for `cuMemHostAlloc`.
    unsafe { cuMemHostAlloc(p, bytes, 0) }
}

#[no_mangle]
pub extern "C" fn cuMemFreeHost(p: *mut c_void) -> CuResult {
    guard(|| free(p as u64, Kind::PinnedHost, "cuMemFreeHost"))
}

fn check(d: &Device, addr: u64, bytes: usize, what: &str) -> Result<(), SimError> {
    if bytes == 0 {
        return Ok(());
    }
    d.mem.check(addr, bytes).map_err(|why| {
        SimError::new(INVALID_VALUE, format!("{what} of {bytes} bytes at device address 0x{addr:x}: {why}"))
    })
}

/// Copies `bytes` from `src` to `dst` after checking the device sides.
///
/// # Safety
///
/// Host sides are valid for `bytes` bytes (the caller's contract with CUDA).
unsafe fn copy(
    dst: u64,
    src: u64,
    bytes: usize,
    dst_device: bool,
    src_device: bool,
    what: &str,
) -> Result<(), SimError> {
    // The lock is held through the copy, so no free can race with it.
    let d = device();
    if dst_device {
        check(&d, dst, bytes, what)?;
    }
    if src_device {
        check(&d, src, bytes, what)?;
    }
    if bytes > 0 {
        if dst == 0 || src == 0 {
            return Err(SimError::new(INVALID_VALUE, format!("{what}: a null pointer")));
        }
        // SAFETY: device sides lie in live allocations (checked); host sides by the contract.
        // `copy` allows overlap, as a device-to-device copy within one buffer may.
        unsafe { std::ptr::copy(src as *const u8, dst as *mut u8, bytes) };
    }
    Ok(())
}

#[no_mangle]
pub unsafe extern "C" fn cuMemcpyHtoD_v2(dst: u64, src: *const c_void, bytes: usize) -> CuResult {
    // SAFETY: `src` holds `bytes` bytes by the caller's contract.
    guard(|| unsafe { copy(dst, src as u64, bytes, true, false, "cuMemcpyHtoD") })
}

#[no_mangle]
pub unsafe extern "C" fn cuMemcpyHtoDAsync_v2(dst: u64, src: *const c_void, bytes: usize, s: *mut c_void) -> CuResult {
    guard(|| {
        device().stream(s)?;
        // SAFETY: `src` holds `bytes` bytes by the caller's contract.
        unsafe { copy(dst, src as u64, bytes, true, false, "cuMemcpyHtoDAsync") }
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuMemcpyDtoH_v2(dst: *mut c_void, src: u64, bytes: usize) -> CuResult {
    // SAFETY: `dst` holds `bytes` bytes by the caller's contract.
    guard(|| unsafe { copy(dst as u64, src, bytes, false, true, "cuMemcpyDtoH") })
}

#[no_mangle]
pub unsafe extern "C" fn cuMemcpyDtoHAsync_v2(dst: *mut c_void, src: u64, bytes: usize, s: *mut c_void) -> CuResult {
    guard(|| {
        device().stream(s)?;
        // SAFETY: `dst` holds `bytes` bytes by the caller's contract.
        unsafe { copy(dst as u64, src, bytes, false, true, "cuMemcpyDtoHAsync") }
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuMemcpyDtoD_v2(dst: u64, src: u64, bytes: usize) -> CuResult {
    // SAFETY: both sides are device memory, checked.
    guard(|| unsafe { copy(dst, src, bytes, true, true, "cuMemcpyDtoD") })
}

#[no_mangle]
pub unsafe extern "C" fn cuMemcpyDtoDAsync_v2(dst: u64, src: u64, bytes: usize, s: *mut c_void) -> CuResult {
    guard(|| {
        device().stream(s)?;
        // SAFETY: both sides are device memory, checked.
        unsafe { copy(dst, src, bytes, true, true, "cuMemcpyDtoDAsync") }
    })
}

fn memset(dst: u64, value: u8, bytes: usize, what: &str) -> Result<(), SimError> {
    let d = device();
    check(&d, dst, bytes, what)?;
    if bytes > 0 {
        // SAFETY: `[dst, dst + bytes)` lies in a live allocation (checked above).
        unsafe { std::ptr::write_bytes(dst as *mut u8, value, bytes) };
    }
    Ok(())
}

#[no_mangle]
pub extern "C" fn cuMemsetD8_v2(dst: u64, value: u8, bytes: usize) -> CuResult {
    guard(|| memset(dst, value, bytes, "cuMemsetD8"))
}

#[no_mangle]
pub extern "C" fn cuMemsetD8Async(dst: u64, value: u8, bytes: usize, s: *mut c_void) -> CuResult {
    guard(|| {
        device().stream(s)?;
        memset(dst, value, bytes, "cuMemsetD8Async")
    })
}
