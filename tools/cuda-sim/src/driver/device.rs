//! Init, device queries, the primary context, streams, events and error strings. The sim is one
//! device, compute capability 8.0 (cnda's kernels are compiled to PTX for `compute_80`), with
//! unified addressing and memory pools. Streams and events are handles only: work runs when
//! enqueued, so every stream is always idle and every event complete.

#![allow(non_snake_case, clippy::missing_safety_doc)]

use std::cell::Cell;
use std::ffi::{c_char, c_int, c_uint, c_void};

use super::{device, guard, out};
use crate::error::{
    describe, name, CuResult, SimError, INVALID_CONTEXT, INVALID_DEVICE, INVALID_HANDLE, INVALID_VALUE,
};

/// The compute capability the sim reports.
pub const COMPUTE_CAPABILITY: (c_int, c_int) = (8, 0);
/// The multiprocessor count the sim reports (small grids: cnda sizes grids by it).
pub const MULTIPROCESSORS: c_int = 2;
/// The memory size the sim reports.
pub const TOTAL_MEMORY: usize = 16 << 30;
/// The primary context's handle.
const CONTEXT: usize = 0x5C7C_0000;
/// The default memory pool's handle: one device, one pool (allocations are not cached here, so
/// its attributes change nothing the sim models).
const DEFAULT_POOL: usize = 0x5C7C_9000;
/// `CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES` (1) to `CU_MEMPOOL_ATTR_USED_MEM_HIGH` (8).
const POOL_ATTRIBUTES: core::ops::RangeInclusive<c_uint> = 1..=8;

thread_local! {
    static CURRENT: Cell<usize> = const { Cell::new(0) };
}

fn check_device(dev: c_int) -> Result<(), SimError> {
    if dev == 0 {
        Ok(())
    } else {
        Err(SimError::new(INVALID_DEVICE, format!("device {dev}: the sim has one device, 0")))
    }
}

#[no_mangle]
pub extern "C" fn cuInit(_flags: c_uint) -> CuResult {
    guard(|| {
        device().initialized = true;
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuDriverGetVersion(v: *mut c_int) -> CuResult {
    // SAFETY: the caller passes a valid out-pointer.
    guard(|| unsafe { out(v, 13000) })
}

#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetCount(n: *mut c_int) -> CuResult {
    guard(|| {
        device().require_init()?;
        // SAFETY: the caller passes a valid out-pointer.
        unsafe { out(n, 1) }
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuDeviceGet(d: *mut c_int, ordinal: c_int) -> CuResult {
    guard(|| {
        device().require_init()?;
        check_device(ordinal)?;
        // SAFETY: the caller passes a valid out-pointer.
        unsafe { out(d, 0) }
    })
}

/// The value of device attribute `attr` (CUdevice_attribute numbering).
pub fn attribute(attr: c_uint) -> c_int {
    match attr {
        1 => 1024,                  // MAX_THREADS_PER_BLOCK
        2 | 3 => 1024,              // MAX_BLOCK_DIM_X, _Y
        4 => 64,                    // MAX_BLOCK_DIM_Z
        5 => i32::MAX,              // MAX_GRID_DIM_X
        6 | 7 => 65535,             // MAX_GRID_DIM_Y, _Z
        8 => 48 << 10,              // MAX_SHARED_MEMORY_PER_BLOCK
        10 => 32,                   // WARP_SIZE
        12 => 65536,                // MAX_REGISTERS_PER_BLOCK
        13 => 1_000_000,            // CLOCK_RATE (kHz)
        16 => MULTIPROCESSORS,      // MULTIPROCESSOR_COUNT
        39 => 2048,                 // MAX_THREADS_PER_MULTIPROCESSOR
        41 => 1,                    // UNIFIED_ADDRESSING
        75 => COMPUTE_CAPABILITY.0, // COMPUTE_CAPABILITY_MAJOR
        76 => COMPUTE_CAPABILITY.1, // COMPUTE_CAPABILITY_MINOR
        81 => 164 << 10,            // MAX_SHARED_MEMORY_PER_MULTIPROCESSOR
        97 => 163 << 10,            // MAX_SHARED_MEMORY_PER_BLOCK_OPTIN
        115 => 1,                   // MEMORY_POOLS_SUPPORTED
        _ => 0,
    }
}

#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetAttribute(v: *mut c_int, attr: c_uint, dev: c_int) -> CuResult {
    guard(|| {
        check_device(dev)?;
        // SAFETY: the caller passes a valid out-pointer.
        unsafe { out(v, attribute(attr)) }
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetDefaultMemPool(pool: *mut *mut c_void, dev: c_int) -> CuResult {
    guard(|| {
        device().require_init()?;
        check_device(dev)?;
        // SAFETY: the caller passes a valid out-pointer.
        unsafe { out(pool, DEFAULT_POOL as *mut c_void) }
    })
}

#[no_mangle]
pub extern "C" fn cuMemPoolSetAttribute(pool: *mut c_void, attr: c_uint, value: *mut c_void) -> CuResult {
    guard(|| {
        if pool as usize != DEFAULT_POOL {
            return Err(SimError::new(INVALID_HANDLE, format!("cuMemPoolSetAttribute: {pool:?} is not a memory pool")));
        }
        if !POOL_ATTRIBUTES.contains(&attr) || value.is_null() {
            return Err(SimError::new(
                INVALID_VALUE,
                format!("cuMemPoolSetAttribute: attribute {attr}, value {value:?}"),
            ));
        }
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetName(buf: *mut c_char, len: c_int, dev: c_int) -> CuResult {
    guard(|| {
        check_device(dev)?;
        let name = b"cuda-sim (CPU-hosted CUDA device)\0";
        if buf.is_null() || len <= 0 {
            return Err(SimError::new(INVALID_VALUE, "cuDeviceGetName: no buffer"));
        }
        let n = name.len().min(len as usize);
        // SAFETY: `buf` holds `len >= n` bytes by the caller's contract.
        unsafe {
            std::ptr::copy_nonoverlapping(name.as_ptr().cast(), buf, n);
            buf.add(n - 1).write(0);
        }
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuDeviceTotalMem_v2(bytes: *mut usize, dev: c_int) -> CuResult {
    guard(|| {
        check_device(dev)?;
        // SAFETY: the caller passes a valid out-pointer.
        unsafe { out(bytes, TOTAL_MEMORY) }
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetUuid(uuid: *mut [u8; 16], dev: c_int) -> CuResult {
    guard(|| {
        check_device(dev)?;
        // SAFETY: the caller passes a valid out-pointer.
        unsafe { out(uuid, *b"cnda-cuda-sim-00") }
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetUuid_v2(uuid: *mut [u8; 16], dev: c_int) -> CuResult {
    // SAFETY: as for `cuDeviceGetUuid`.
    unsafe { cuDeviceGetUuid(uuid, dev) }
}

#[no_mangle]
pub unsafe extern "C" fn cuDevicePrimaryCtxRetain(ctx: *mut *mut c_void, dev: c_int) -> CuResult {
    guard(|| {
        device().require_init()?;
        check_device(dev)?;
        // SAFETY: the caller passes a valid out-pointer.
        unsafe { out(ctx, CONTEXT as *mut c_void) }
    })
}

#[no_mangle]
pub extern "C" fn cuDevicePrimaryCtxRelease_v2(dev: c_int) -> CuResult {
    guard(|| check_device(dev))
}

#[no_mangle]
pub extern "C" fn cuCtxSetCurrent(ctx: *mut c_void) -> CuResult {
    guard(|| {
        let c = ctx as usize;
        if c != 0 && c != CONTEXT {
            return Err(SimError::new(INVALID_CONTEXT, format!("context 0x{c:x} is not the sim's")));
        }
        CURRENT.with(|cur| cur.set(c));
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuCtxGetCurrent(ctx: *mut *mut c_void) -> CuResult {
    // SAFETY: the caller passes a valid out-pointer.
    guard(|| unsafe { out(ctx, CURRENT.with(Cell::get) as *mut c_void) })
}

#[no_mangle]
pub unsafe extern "C" fn cuCtxGetDevice(d: *mut c_int) -> CuResult {
    // SAFETY: the caller passes a valid out-pointer.
    guard(|| unsafe { out(d, 0) })
}

#[no_mangle]
pub extern "C" fn cuCtxSynchronize() -> CuResult {
    guard(|| Ok(()))
}

#[no_mangle]
pub unsafe extern "C" fn cuCtxGetStreamPriorityRange(least: *mut c_int, greatest: *mut c_int) -> CuResult {
    guard(|| {
        // SAFETY: the caller passes valid out-pointers (either may be null).
        unsafe {
            if !least.is_null() {
                out(least, 0)?;
            }
            if !greatest.is_null() {
                out(greatest, 0)?;
            }
        }
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuStreamCreate(s: *mut *mut c_void, _flags: c_uint) -> CuResult {
    guard(|| {
        let mut d = device();
        let h = d.handle();
        d.streams.insert(h);
        // SAFETY: the caller passes a valid out-pointer.
        unsafe { out(s, h as *mut c_void) }
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuStreamCreateWithPriority(s: *mut *mut c_void, flags: c_uint, _priority: c_int) -> CuResult {
    // SAFETY: as for `cuStreamCreate`.
    unsafe { cuStreamCreate(s, flags) }
}

#[no_mangle]
pub extern "C" fn cuStreamDestroy_v2(s: *mut c_void) -> CuResult {
    guard(|| {
        if device().streams.remove(&(s as usize)) {
            Ok(())
        } else {
            Err(SimError::new(INVALID_HANDLE, format!("cuStreamDestroy: 0x{:x} is not a live stream", s as usize)))
        }
    })
}

#[no_mangle]
pub extern "C" fn cuStreamSynchronize(s: *mut c_void) -> CuResult {
    guard(|| device().stream(s))
}

#[no_mangle]
pub extern "C" fn cuStreamQuery(s: *mut c_void) -> CuResult {
    guard(|| device().stream(s))
}

#[no_mangle]
pub extern "C" fn cuStreamWaitEvent(s: *mut c_void, e: *mut c_void, _flags: c_uint) -> CuResult {
    guard(|| {
        let d = device();
        d.stream(s)?;
        if !d.events.contains(&(e as usize)) {
            return Err(SimError::new(
                INVALID_HANDLE,
                format!("cuStreamWaitEvent: 0x{:x} is not a live event", e as usize),
            ));
        }
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuStreamIsCapturing(s: *mut c_void, status: *mut c_uint) -> CuResult {
    guard(|| {
        device().stream(s)?;
        // SAFETY: the caller passes a valid out-pointer.
        unsafe { out(status, 0) }
    })
}

/// `cuLaunchHostFunc`: the function runs now (the stream's earlier work has already run).
#[no_mangle]
pub unsafe extern "C" fn cuLaunchHostFunc(
    s: *mut c_void,
    f: Option<unsafe extern "C" fn(*mut c_void)>,
    data: *mut c_void,
) -> CuResult {
    let checked = guard(|| device().stream(s));
    if checked != 0 {
        return checked;
    }
    if let Some(f) = f {
        // SAFETY: the caller's function with the caller's data, as CUDA would call it; the device
        // lock is not held, so it may call the driver.
        unsafe { f(data) };
    }
    0
}

#[no_mangle]
pub unsafe extern "C" fn cuEventCreate(e: *mut *mut c_void, _flags: c_uint) -> CuResult {
    guard(|| {
        let mut d = device();
        let h = d.handle();
        d.events.insert(h);
        // SAFETY: the caller passes a valid out-pointer.
        unsafe { out(e, h as *mut c_void) }
    })
}

fn live_event(e: *mut c_void) -> Result<(), SimError> {
    if device().events.contains(&(e as usize)) {
        Ok(())
    } else {
        Err(SimError::new(INVALID_HANDLE, format!("0x{:x} is not a live event", e as usize)))
    }
}

#[no_mangle]
pub extern "C" fn cuEventRecord(e: *mut c_void, s: *mut c_void) -> CuResult {
    guard(|| {
        live_event(e)?;
        device().stream(s)
    })
}

#[no_mangle]
pub extern "C" fn cuEventRecordWithFlags(e: *mut c_void, s: *mut c_void, _flags: c_uint) -> CuResult {
    cuEventRecord(e, s)
}

#[no_mangle]
pub extern "C" fn cuEventSynchronize(e: *mut c_void) -> CuResult {
    guard(|| live_event(e))
}

#[no_mangle]
pub extern "C" fn cuEventQuery(e: *mut c_void) -> CuResult {
    guard(|| live_event(e))
}

#[no_mangle]
pub extern "C" fn cuEventDestroy_v2(e: *mut c_void) -> CuResult {
    guard(|| {
        live_event(e)?;
        device().events.remove(&(e as usize));
        Ok(())
    })
}

/// Elapsed time between two events: always 0 ms (the sim has no device clock).
#[no_mangle]
pub unsafe extern "C" fn cuEventElapsedTime(ms: *mut f32, a: *mut c_void, b: *mut c_void) -> CuResult {
    guard(|| {
        live_event(a)?;
        live_event(b)?;
        // SAFETY: the caller passes a valid out-pointer.
        unsafe { out(ms, 0.0) }
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuEventElapsedTime_v2(ms: *mut f32, a: *mut c_void, b: *mut c_void) -> CuResult {
    // SAFETY: as for `cuEventElapsedTime`.
    unsafe { cuEventElapsedTime(ms, a, b) }
}

/// Static NUL-terminated strings for the error codes.
fn c_str(s: &'static str) -> *const c_char {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    static STRINGS: OnceLock<Mutex<HashMap<&'static str, &'static [u8]>>> = OnceLock::new();
    let mut m = STRINGS.get_or_init(Default::default).lock().unwrap_or_else(|p| p.into_inner());
    let bytes = m.entry(s).or_insert_with(|| Box::leak(format!("{s}\0").into_bytes().into_boxed_slice()));
    bytes.as_ptr().cast()
}

#[no_mangle]
pub unsafe extern "C" fn cuGetErrorString(code: CuResult, s: *mut *const c_char) -> CuResult {
    // SAFETY: the caller passes a valid out-pointer.
    guard(|| unsafe { out(s, c_str(describe(code))) })
}

#[no_mangle]
pub unsafe extern "C" fn cuGetErrorName(code: CuResult, s: *mut *const c_char) -> CuResult {
    // SAFETY: the caller passes a valid out-pointer.
    guard(|| unsafe { out(s, c_str(name(code))) })
}

/// NVIDIA's private export tables, which NVRTC asks the driver for when one is loaded: the sim
/// has none, and says so (NVRTC then compiles as it does without a driver).
#[no_mangle]
pub unsafe extern "C" fn cuGetExportTable(table: *mut *const c_void, _id: *const c_void) -> CuResult {
    if !table.is_null() {
        // SAFETY: a valid out-pointer by the caller's contract.
        unsafe { table.write(std::ptr::null()) };
    }
    crate::error::NOT_SUPPORTED
}
