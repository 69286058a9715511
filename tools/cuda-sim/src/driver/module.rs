//! Modules, functions and launches. A module image must be PTX text (a CUBIN or fatbin is refused
//! with `CUDA_ERROR_INVALID_IMAGE`: the sim has no machine code to run); it is parsed and decoded
//! once at load. A launch runs the whole grid before `cuLaunchKernel` returns; a fault inside it
//! (out-of-bounds or misaligned access, shared-memory race, barrier not reached by every thread)
//! is returned by that call, with the kernel, block, thread and address on stderr and through
//! `cuSimGetLastError`. Errors are not sticky: the context stays usable.

#![allow(non_snake_case, clippy::missing_safety_doc)]

use std::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::sync::Arc;

use super::{device, guard, out};
use crate::error::{
    CuResult, SimError, INVALID_HANDLE, INVALID_IMAGE, INVALID_PTX, INVALID_VALUE, NOT_FOUND, NOT_SUPPORTED,
};
use crate::interp::{launch, LaunchConfig};
use crate::memory::Kind;
use crate::ptx::parse_module;

/// Loads PTX `text` into the device: the module's handle.
pub fn load_ptx(text: &str) -> Result<usize, SimError> {
    let mut d = device();
    d.require_init()?;
    let mem = &mut d.mem;
    let mut alloc = |name: &str, size: usize, init: &[u8]| -> Result<u64, String> {
        let a = mem.alloc(size, Kind::ModuleGlobal, 0).ok_or_else(|| format!("cannot allocate .global {name}"))?;
        // SAFETY: `a` holds `size >= init.len()` bytes just allocated.
        unsafe { std::ptr::copy_nonoverlapping(init.as_ptr(), a as *mut u8, init.len().min(size)) };
        Ok(a)
    };
    let module = parse_module(text, &mut alloc).map_err(|e| SimError::new(INVALID_PTX, e))?;
    let h = d.handle();
    d.modules.insert(h, Arc::new(module));
    Ok(h)
}

/// # Safety
///
/// `image` points at a NUL-terminated PTX text, or at an ELF/fatbin image.
unsafe fn load_image(image: *const c_void) -> Result<usize, SimError> {
    if image.is_null() {
        return Err(SimError::new(INVALID_VALUE, "cuModuleLoadData: a null image"));
    }
    // SAFETY: every image starts with at least 4 bytes (an ELF or fatbin magic, or PTX text,
    // whose shortest valid form is longer).
    let head = unsafe { std::slice::from_raw_parts(image.cast::<u8>(), 4) };
    if head == b"\x7fELF" || head == [0x50, 0xed, 0x55, 0xba] || head == [0x46, 0x62, 0x43, 0x16] {
        return Err(SimError::new(
            INVALID_IMAGE,
            "the image is a CUBIN or fatbin; the CPU-hosted device runs PTX only (cnda: set CNDA_CUDA_PTX=1 or use CudaDevice::builder(..).ptx(true))",
        ));
    }
    // SAFETY: not a binary image, so NUL-terminated PTX text by the caller's contract.
    let text = unsafe { CStr::from_ptr(image.cast::<c_char>()) };
    let text = text.to_str().map_err(|_| SimError::new(INVALID_PTX, "the PTX text is not UTF-8"))?;
    load_ptx(text)
}

#[no_mangle]
pub unsafe extern "C" fn cuModuleLoadData(m: *mut *mut c_void, image: *const c_void) -> CuResult {
    guard(|| {
        // SAFETY: the caller's image, by CUDA's contract.
        let h = unsafe { load_image(image) }?;
        // SAFETY: the caller passes a valid out-pointer.
        unsafe { out(m, h as *mut c_void) }
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuModuleLoadDataEx(
    m: *mut *mut c_void,
    image: *const c_void,
    _n: c_uint,
    _options: *mut c_int,
    _values: *mut *mut c_void,
) -> CuResult {
    // SAFETY: as for `cuModuleLoadData` (JIT options are ignored).
    unsafe { cuModuleLoadData(m, image) }
}

#[no_mangle]
pub extern "C" fn cuModuleUnload(m: *mut c_void) -> CuResult {
    guard(|| {
        let mut d = device();
        let Some(module) = d.modules.remove(&(m as usize)) else {
            return Err(SimError::new(INVALID_HANDLE, format!("cuModuleUnload: 0x{:x} is not a module", m as usize)));
        };
        for g in &module.globals {
            let _ = d.mem.free(g.addr, Kind::ModuleGlobal);
        }
        d.functions.retain(|_, (mh, _)| *mh != m as usize);
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuModuleGetFunction(f: *mut *mut c_void, m: *mut c_void, name: *const c_char) -> CuResult {
    guard(|| {
        if name.is_null() {
            return Err(SimError::new(INVALID_VALUE, "cuModuleGetFunction: a null name"));
        }
        // SAFETY: a NUL-terminated name by the caller's contract.
        let name = unsafe { CStr::from_ptr(name) }.to_string_lossy();
        let mut d = device();
        let module = d
            .modules
            .get(&(m as usize))
            .ok_or_else(|| SimError::new(INVALID_HANDLE, format!("0x{:x} is not a module", m as usize)))?;
        let k =
            module.entry(&name).ok_or_else(|| SimError::new(NOT_FOUND, format!("the module has no kernel {name}")))?;
        let h = d.handle();
        d.functions.insert(h, (m as usize, k));
        // SAFETY: the caller passes a valid out-pointer.
        unsafe { out(f, h as *mut c_void) }
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuFuncGetAttribute(v: *mut c_int, attr: c_uint, f: *mut c_void) -> CuResult {
    guard(|| {
        if !device().functions.contains_key(&(f as usize)) {
            return Err(SimError::new(INVALID_HANDLE, "cuFuncGetAttribute: not a function"));
        }
        // CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK is 0.
        // SAFETY: the caller passes a valid out-pointer.
        unsafe { out(v, if attr == 0 { 1024 } else { 0 }) }
    })
}

#[no_mangle]
pub extern "C" fn cuFuncSetAttribute(_f: *mut c_void, _attr: c_uint, _v: c_int) -> CuResult {
    0
}

#[no_mangle]
pub extern "C" fn cuFuncSetCacheConfig(_f: *mut c_void, _config: c_uint) -> CuResult {
    0
}

/// The seed of the thread orders: `CUDA_SIM_SEED` (default fixed) mixed with the launch count.
fn seed(launch: u64) -> u64 {
    let base = std::env::var("CUDA_SIM_SEED").ok().and_then(|s| s.parse::<u64>().ok()).unwrap_or(0x5eed_cafe);
    base ^ launch.wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

#[no_mangle]
pub unsafe extern "C" fn cuLaunchKernel(
    f: *mut c_void,
    gx: c_uint,
    gy: c_uint,
    gz: c_uint,
    bx: c_uint,
    by: c_uint,
    bz: c_uint,
    shared: c_uint,
    s: *mut c_void,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> CuResult {
    guard(|| {
        let mut d = device();
        d.stream(s)?;
        let &(mh, k) = d
            .functions
            .get(&(f as usize))
            .ok_or_else(|| SimError::new(INVALID_HANDLE, format!("0x{:x} is not a function", f as usize)))?;
        let module = d
            .modules
            .get(&mh)
            .cloned()
            .ok_or_else(|| SimError::new(INVALID_HANDLE, "the function's module was unloaded"))?;
        let func = &module.functions[k];
        if params.is_null() {
            let what = if extra.is_null() { "no kernel parameters" } else { "parameters through `extra`" };
            if !func.params.is_empty() || !extra.is_null() {
                return Err(SimError::new(
                    NOT_SUPPORTED,
                    format!("launch of {}: {what} (the sim takes kernelParams)", func.name),
                ));
            }
        }
        let mut bytes = vec![0u8; func.param_size as usize];
        for (i, p) in func.params.iter().enumerate() {
            // SAFETY: CUDA's contract: `params` holds one pointer per kernel parameter, each to
            // the parameter's value of the size the kernel declares.
            unsafe {
                let arg = *params.add(i);
                if arg.is_null() {
                    return Err(SimError::new(
                        INVALID_VALUE,
                        format!("launch of {}: parameter {i} is null", func.name),
                    ));
                }
                std::ptr::copy_nonoverlapping(
                    arg.cast::<u8>(),
                    bytes.as_mut_ptr().add(p.off as usize),
                    p.size as usize,
                );
            }
        }
        d.launches += 1;
        let seed = seed(d.launches);
        let races = std::env::var("CUDA_SIM_RACE").map_or(true, |v| v != "0");
        let cfg = LaunchConfig { grid: [gx, gy, gz], block: [bx, by, bz], dynamic_shared: shared };
        if std::env::var_os("CUDA_SIM_TRACE").is_some() {
            eprintln!("cuda-sim: launch {} grid {:?} block {:?} shared {shared}", func.name, cfg.grid, cfg.block);
        }
        launch(&module, k, cfg, &bytes, &d.mem, seed, races)
    })
}
