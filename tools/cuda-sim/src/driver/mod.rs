//! The driver API entry points, one file per area: `device.rs` (init, device queries, context,
//! streams, events, error strings), `memory.rs` (allocation, copies, memsets, pinned host
//! memory), `module.rs` (PTX modules, functions, launches). The device's state lives behind one
//! lock, and every call runs its work to completion before returning (stream order trivially).
//!
//! Every entry point goes through [`guard`]: errors become CUDA codes (recorded for
//! `cuSimGetLastError` and printed on stderr), and a panic never unwinds into the caller.

pub mod device;
pub mod memory;
pub mod module;

use std::collections::{HashMap, HashSet};
use std::ffi::c_void;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use crate::error::{report, CuResult, SimError, INVALID_HANDLE, INVALID_VALUE, NOT_INITIALIZED, SUCCESS, UNKNOWN};
use crate::memory::MemoryMap;
use crate::ptx::Module;

/// The device's state.
#[derive(Default)]
pub struct Device {
    pub mem: MemoryMap,
    pub initialized: bool,
    pub modules: HashMap<usize, Arc<Module>>,
    /// Function handles: (module handle, function index).
    pub functions: HashMap<usize, (usize, usize)>,
    pub streams: HashSet<usize>,
    pub events: HashSet<usize>,
    pub launches: u64,
    next: usize,
}

impl Device {
    /// A fresh non-null handle value.
    pub fn handle(&mut self) -> usize {
        self.next += 16;
        0x5100_0000 + self.next
    }

    /// Checks a stream handle: the null and legacy/per-thread default streams, or a live one.
    pub fn stream(&self, s: *mut c_void) -> Result<(), SimError> {
        let s = s as usize;
        if s <= 2 || self.streams.contains(&s) {
            Ok(())
        } else {
            Err(SimError::new(INVALID_HANDLE, format!("stream 0x{s:x} is not a live stream")))
        }
    }

    pub fn require_init(&self) -> Result<(), SimError> {
        if self.initialized {
            Ok(())
        } else {
            Err(SimError::new(NOT_INITIALIZED, "cuInit has not been called"))
        }
    }
}

/// The device, locked.
pub fn device() -> MutexGuard<'static, Device> {
    static DEVICE: OnceLock<Mutex<Device>> = OnceLock::new();
    DEVICE.get_or_init(Default::default).lock().unwrap_or_else(|p| p.into_inner())
}

/// Runs an entry point's body: its error as a CUDA code, a panic as `CUDA_ERROR_UNKNOWN`.
pub fn guard(f: impl FnOnce() -> Result<(), SimError>) -> CuResult {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => SUCCESS,
        Ok(Err(e)) => report(e),
        Err(p) => {
            let what = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            report(SimError::new(UNKNOWN, format!("panic inside the sim: {what}")))
        }
    }
}

/// Writes `v` through an out-pointer of the caller's.
///
/// # Safety
///
/// `p` is null or valid for a write of `T`.
pub unsafe fn out<T>(p: *mut T, v: T) -> Result<(), SimError> {
    if p.is_null() {
        return Err(SimError::new(INVALID_VALUE, "a null output pointer"));
    }
    // SAFETY: non-null, and valid for a write by the caller's contract.
    unsafe { p.write(v) };
    Ok(())
}

/// The calling thread's last error the sim reported, copied NUL-terminated into `buf` (`len` bytes); returns
/// the message's length (0 when there is none). For tests that want the kernel, thread and
/// address of a failure.
///
/// # Safety
///
/// `buf` is null or valid for `len` bytes of writes.
#[no_mangle]
pub unsafe extern "C" fn cuSimGetLastError(buf: *mut u8, len: usize) -> usize {
    let msg = crate::error::last_error().map(|e| e.to_string()).unwrap_or_default();
    if !buf.is_null() && len > 0 {
        let n = msg.len().min(len - 1);
        // SAFETY: `buf` holds `len` bytes by the caller's contract, and `n + 1 <= len`.
        unsafe {
            std::ptr::copy_nonoverlapping(msg.as_ptr(), buf, n);
            buf.add(n).write(0);
        }
    }
    msg.len()
}
