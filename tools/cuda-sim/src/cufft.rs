//! The cuFFT stand-in: plans of cuFFT's advanced data layout (`cufftPlanMany`: rank 1 to 3,
//! `inembed`/`istride`/`idist` and their output twins, `batch`) and their executions, computed
//! as direct sums, `O(n²)` per lane and per dimension, each twiddle factor `e^(±2πi jk/n)` taken
//! at `jk mod n` so that it stays exact for long lanes. Unnormalized, as cuFFT is. The real
//! transforms keep cuFFT's half-spectrum shapes: R2C writes `n/2 + 1` values along the last
//! dimension; C2R reads them, its result the real part of the Hermitian-extended inverse. Where
//! cuFFT leaves things unspecified or destroys them, the stand-in is strict so that cnda cannot
//! come to rely on more: real-transform data must be aligned as its complex type, a 1D C2R
//! whose zero (or Nyquist) frequency is not real gives NaNs, and an out-of-place C2R overwrites
//! its input with NaNs. Every element a plan reads or writes must lie inside a live allocation
//! of the memory map; the device lock is held for the whole execution.

#![allow(non_snake_case, clippy::missing_safety_doc, clippy::too_many_arguments)]

use std::collections::HashMap;
use std::ffi::{c_int, c_void};
use std::sync::{Mutex, OnceLock};

use crate::driver::{device, out};
use crate::error::{report, SimError};

/// A `cufftResult` value.
pub type Status = u32;
pub const SUCCESS: Status = 0;
pub const INVALID_PLAN: Status = 1;
pub const INVALID_TYPE: Status = 3;
pub const INVALID_VALUE: Status = 4;
pub const INTERNAL_ERROR: Status = 5;
pub const EXEC_FAILED: Status = 6;
pub const INVALID_SIZE: Status = 8;

/// cuFFT's transform types (`cufftType`).
pub const R2C: c_int = 0x2a;
pub const C2R: c_int = 0x2c;
pub const C2C: c_int = 0x29;
pub const D2Z: c_int = 0x6a;
pub const Z2D: c_int = 0x6c;
pub const Z2Z: c_int = 0x69;

/// One plan: the logical sizes and the advanced layout of its input and output.
#[derive(Clone, Debug)]
pub struct Plan {
    pub n: Vec<usize>,
    pub inembed: Vec<usize>,
    pub istride: usize,
    pub idist: usize,
    pub onembed: Vec<usize>,
    pub ostride: usize,
    pub odist: usize,
    pub kind: c_int,
    pub batch: usize,
}

fn plans() -> &'static Mutex<(c_int, HashMap<c_int, Plan>)> {
    static PLANS: OnceLock<Mutex<(c_int, HashMap<c_int, Plan>)>> = OnceLock::new();
    PLANS.get_or_init(|| Mutex::new((0, HashMap::new())))
}

/// Runs a call's body: its error as a cuFFT status (recorded and printed like the driver's), a
/// panic as `CUFFT_INTERNAL_ERROR`, never unwinding into the caller.
fn status(f: impl FnOnce() -> Result<(), (Status, String)>) -> Status {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(Ok(())) => SUCCESS,
        Ok(Err((s, msg))) => {
            report(SimError::new(crate::error::INVALID_VALUE, format!("cuFFT: {msg}")));
            s
        }
        Err(_) => INTERNAL_ERROR,
    }
}

/// Whether a plan's input and output are complex, and its element width (4 or 8 bytes a part).
fn kind_of(kind: c_int) -> Option<(bool, bool, usize)> {
    match kind {
        C2C => Some((true, true, 4)),
        R2C => Some((false, true, 4)),
        C2R => Some((true, false, 4)),
        Z2Z => Some((true, true, 8)),
        D2Z => Some((false, true, 8)),
        Z2D => Some((true, false, 8)),
        _ => None,
    }
}

/// The logical extents of the input and the output of a plan of `kind` (the real transforms'
/// complex side has `n/2 + 1` values along the last dimension).
fn extents(n: &[usize], kind: c_int) -> (Vec<usize>, Vec<usize>) {
    let mut half = n.to_vec();
    if let Some(last) = half.last_mut() {
        *last = *last / 2 + 1;
    }
    match kind {
        R2C | D2Z => (n.to_vec(), half),
        C2R | Z2D => (half, n.to_vec()),
        _ => (n.to_vec(), n.to_vec()),
    }
}

/// Validates and records a plan (cuFFT's `cufftPlanMany`).
///
/// # Safety
///
/// `n` points to `rank` ints; `inembed` and `onembed` are null or point to `rank` ints.
pub unsafe fn plan_many(
    rank: c_int,
    n: *const c_int,
    inembed: *const c_int,
    istride: c_int,
    idist: c_int,
    onembed: *const c_int,
    ostride: c_int,
    odist: c_int,
    kind: c_int,
    batch: c_int,
) -> Result<Plan, (Status, String)> {
    if !(1..=3).contains(&rank) || n.is_null() {
        return Err((INVALID_VALUE, format!("plan of rank {rank}; cuFFT plans ranks 1 to 3")));
    }
    if kind_of(kind).is_none() {
        return Err((INVALID_TYPE, format!("transform type {kind}")));
    }
    let read = |p: *const c_int| -> Option<Vec<c_int>> {
        // SAFETY: the caller passes `rank` ints at each non-null pointer.
        (!p.is_null()).then(|| unsafe { std::slice::from_raw_parts(p, rank as usize) }.to_vec())
    };
    let sizes = read(n).expect("checked non-null");
    if sizes.iter().any(|&s| s < 1) || batch < 1 {
        return Err((INVALID_SIZE, format!("sizes {sizes:?}, batch {batch}")));
    }
    let n: Vec<usize> = sizes.iter().map(|&s| s as usize).collect();
    let (ie, oe) = extents(&n, kind);
    // cuFFT takes the basic layout for both sides (ignoring strides and distances) when either
    // embedding is null.
    let (inembed, onembed) = match (read(inembed), read(onembed)) {
        (Some(i), Some(o)) => (Some(i), Some(o)),
        _ => (None, None),
    };
    let layout = |embed: Option<Vec<c_int>>, logical: &[usize], stride: c_int, dist: c_int| match embed {
        None => Ok((logical.to_vec(), 1, logical.iter().product::<usize>())),
        Some(e) if e.iter().zip(logical).skip(1).all(|(&e, &l)| e as usize >= l) && stride >= 1 && dist >= 0 => {
            Ok((e.iter().map(|&x| x.max(0) as usize).collect(), stride as usize, dist as usize))
        }
        Some(e) => {
            Err((INVALID_VALUE, format!("embedding {e:?} (stride {stride}, distance {dist}) for extents {logical:?}")))
        }
    };
    let (inembed, istride, idist) = layout(inembed, &ie, istride, idist)?;
    let (onembed, ostride, odist) = layout(onembed, &oe, ostride, odist)?;
    Ok(Plan { n, inembed, istride, idist, onembed, ostride, odist, kind, batch: batch as usize })
}

/// The element offset of logical index `idx` in an embedding (row-major over `embed`, `stride`
/// apart).
fn offset(idx: &[usize], embed: &[usize], stride: usize) -> usize {
    let linear = idx.iter().zip(embed).fold(0usize, |acc, (&i, &e)| acc * e + i);
    linear * stride
}

/// Every index of `extents` in row-major order.
fn indices(extents: &[usize]) -> Vec<Vec<usize>> {
    let total: usize = extents.iter().product();
    let mut all = Vec::with_capacity(total);
    let mut idx = vec![0; extents.len()];
    for _ in 0..total {
        all.push(idx.clone());
        for d in (0..extents.len()).rev() {
            idx[d] += 1;
            if idx[d] < extents[d] {
                break;
            }
            idx[d] = 0;
        }
    }
    all
}

/// The direct transform of `x` along dimension `dim` of the row-major `extents`, sign `sign`.
fn along(x: &[(f64, f64)], extents: &[usize], dim: usize, sign: f64) -> Vec<(f64, f64)> {
    let n = extents[dim];
    let inner: usize = extents[dim + 1..].iter().product();
    let outer: usize = extents[..dim].iter().product();
    let mut y = vec![(0.0, 0.0); x.len()];
    let twiddle: Vec<(f64, f64)> = (0..n)
        .map(|m| {
            let angle = sign * 2.0 * std::f64::consts::PI * m as f64 / n as f64;
            (angle.cos(), angle.sin())
        })
        .collect();
    for o in 0..outer {
        for i in 0..inner {
            for k in 0..n {
                let (mut re, mut im) = (0.0, 0.0);
                for j in 0..n {
                    let (a, b) = x[(o * n + j) * inner + i];
                    let (c, s) = twiddle[(j * k) % n];
                    re += a * c - b * s;
                    im += a * s + b * c;
                }
                y[(o * n + k) * inner + i] = (re, im);
            }
        }
    }
    y
}

/// Reads element `at` (an element offset) of a real or complex array of `width`-byte parts.
///
/// # Safety
///
/// The element lies in checked memory.
unsafe fn load(base: u64, at: usize, complex: bool, width: usize) -> (f64, f64) {
    let parts = if complex { 2 } else { 1 };
    let p = base as usize + at * parts * width;
    // SAFETY: the caller's contract.
    unsafe {
        let part = |k: usize| match width {
            4 => *((p + k * 4) as *const f32) as f64,
            _ => *((p + k * 8) as *const f64),
        };
        (part(0), if complex { part(1) } else { 0.0 })
    }
}

/// Writes element `at` (its real part only for a real array).
///
/// # Safety
///
/// The element lies in checked memory.
unsafe fn store(base: u64, at: usize, complex: bool, width: usize, v: (f64, f64)) {
    let parts = if complex { 2 } else { 1 };
    let p = base as usize + at * parts * width;
    // SAFETY: the caller's contract.
    unsafe {
        let put = |k: usize, x: f64| match width {
            4 => *((p + k * 4) as *mut f32) = x as f32,
            _ => *((p + k * 8) as *mut f64) = x,
        };
        put(0, v.0);
        if complex {
            put(1, v.1);
        }
    }
}

/// Executes `plan` from `idata` to `odata` (`direction` -1 forward, +1 inverse; the real
/// transforms' is implied).
///
/// # Safety
///
/// The addresses are device addresses (checked here against the memory map).
pub unsafe fn execute(
    plan: &Plan,
    kind: c_int,
    idata: u64,
    odata: u64,
    direction: c_int,
) -> Result<(), (Status, String)> {
    if kind != plan.kind {
        return Err((INVALID_VALUE, format!("a plan of type {:#x} executed as type {kind:#x}", plan.kind)));
    }
    let (cin, cout, width) = kind_of(kind).expect("planned types are valid");
    let sign = match kind {
        R2C | D2Z => -1.0,
        C2R | Z2D => 1.0,
        _ if direction == -1 || direction == 1 => direction as f64,
        _ => return Err((INVALID_VALUE, format!("direction {direction}"))),
    };
    // The real transforms take data aligned as their complex type (both sides): stricter than
    // some cuFFT versions may be, so that cnda never relies on less.
    if (!cin || !cout) && [idata, odata].iter().any(|&a| a % (2 * width as u64) != 0) {
        return Err((
            INVALID_VALUE,
            format!("real-transform data at 0x{idata:x} / 0x{odata:x} not aligned as its complex type"),
        ));
    }
    let (ie, oe) = extents(&plan.n, kind);
    let (ilogical, ological) = (indices(&ie), indices(&oe));
    // The device lock, held to the end: no other thread frees or writes the checked memory.
    let device_lock = device();
    let span = |base: u64, embed: &[usize], stride: usize, dist: usize, logical: &[Vec<usize>], complex: bool| {
        let far = logical.iter().map(|i| offset(i, embed, stride)).max().unwrap_or(0);
        let bytes = (plan.batch - 1)
            .checked_mul(dist)
            .and_then(|b| b.checked_add(far + 1))
            .and_then(|e| e.checked_mul(width * if complex { 2 } else { 1 }))
            .ok_or((EXEC_FAILED, format!("data at 0x{base:x}: a layout past the address space")))?;
        device_lock
            .mem
            .check(base, bytes)
            .map_err(|why| (EXEC_FAILED, format!("data at 0x{base:x} ({bytes} bytes): {why}")))
    };
    span(idata, &plan.inembed, plan.istride, plan.idist, &ilogical, cin)?;
    span(odata, &plan.onembed, plan.ostride, plan.odist, &ological, cout)?;
    let n = &plan.n;
    let rank = n.len();
    for b in 0..plan.batch {
        // SAFETY: every element read or written lies in the spans checked above.
        let input: Vec<(f64, f64)> = ilogical
            .iter()
            .map(|i| unsafe { load(idata, b * plan.idist + offset(i, &plan.inembed, plan.istride), cin, width) })
            .collect();
        let result = match kind {
            C2R | Z2D => {
                // The Hermitian extension of the half spectrum along the last dimension, then
                // the full inverse; its real part is the signal.
                let full = indices(n);
                let h = ie[rank - 1];
                let row = |idx: &[usize]| idx.iter().zip(&ie).fold(0usize, |acc, (&i, &e)| acc * e + i);
                let mut x: Vec<(f64, f64)> = full
                    .iter()
                    .map(|idx| {
                        if idx[rank - 1] < h {
                            input[row(idx)]
                        } else {
                            // X[k] = conj(X[-k]), every index negated modulo its size.
                            let mirrored: Vec<usize> = idx.iter().zip(n).map(|(&i, &m)| (m - i) % m).collect();
                            let (re, im) = input[row(&mirrored)];
                            (re, -im)
                        }
                    })
                    .collect();
                for d in 0..rank {
                    x = along(&x, n, d, sign);
                }
                // A half spectrum whose zero (or, for an even length, Nyquist) frequency is not
                // real is no real signal's: cuFFT leaves the result unspecified, so the stand-in
                // poisons it, and a caller that relies on it fails.
                let last = n[rank - 1];
                let unreal = |k: usize| rank == 1 && k < h && input[k].1 != 0.0;
                if unreal(0) || (last % 2 == 0 && unreal(last / 2)) {
                    x.iter_mut().for_each(|v| *v = (f64::NAN, f64::NAN));
                }
                x
            }
            _ => {
                let mut x = input;
                for d in 0..rank {
                    x = along(&x, n, d, sign);
                }
                if matches!(kind, R2C | D2Z) {
                    // The first n/2 + 1 values along the last dimension.
                    let full = indices(n);
                    full.iter().zip(x).filter(|(idx, _)| idx[rank - 1] < oe[rank - 1]).map(|(_, v)| v).collect()
                } else {
                    x
                }
            }
        };
        for (o, v) in ological.iter().zip(result) {
            // SAFETY: inside the checked output span.
            unsafe { store(odata, b * plan.odist + offset(o, &plan.onembed, plan.ostride), cout, width, v) };
        }
    }
    if matches!(kind, C2R | Z2D) && idata != odata {
        // cuFFT's complex-to-real transforms overwrite their input: so does the stand-in.
        for b in 0..plan.batch {
            for i in &ilogical {
                let at = b * plan.idist + offset(i, &plan.inembed, plan.istride);
                // SAFETY: inside the checked input span.
                unsafe { store(idata, at, cin, width, (f64::NAN, f64::NAN)) };
            }
        }
    }
    drop(device_lock);
    Ok(())
}

#[no_mangle]
pub unsafe extern "C" fn cufftPlanMany(
    handle: *mut c_int,
    rank: c_int,
    n: *mut c_int,
    inembed: *mut c_int,
    istride: c_int,
    idist: c_int,
    onembed: *mut c_int,
    ostride: c_int,
    odist: c_int,
    kind: c_int,
    batch: c_int,
) -> Status {
    status(|| {
        // SAFETY: cuFFT's contract on the size arrays.
        let plan = unsafe { plan_many(rank, n, inembed, istride, idist, onembed, ostride, odist, kind, batch) }?;
        let mut table = plans().lock().unwrap_or_else(|e| e.into_inner());
        table.0 += 1;
        let id = table.0;
        table.1.insert(id, plan);
        // SAFETY: the caller passes a valid out-pointer.
        unsafe { out(handle, id) }.map_err(|e| (INVALID_VALUE, e.message))
    })
}

#[no_mangle]
pub extern "C" fn cufftDestroy(handle: c_int) -> Status {
    let mut table = plans().lock().unwrap_or_else(|e| e.into_inner());
    match table.1.remove(&handle) {
        Some(_) => SUCCESS,
        None => INVALID_PLAN,
    }
}

#[no_mangle]
pub extern "C" fn cufftSetStream(handle: c_int, s: *mut c_void) -> Status {
    status(|| {
        if !plans().lock().unwrap_or_else(|e| e.into_inner()).1.contains_key(&handle) {
            return Err((INVALID_PLAN, format!("no plan {handle}")));
        }
        device().stream(s).map_err(|e| (INVALID_VALUE, e.message))
    })
}

/// Runs plan `handle` as `kind`.
fn exec(handle: c_int, kind: c_int, idata: *mut c_void, odata: *mut c_void, direction: c_int) -> Status {
    status(|| {
        let plan = plans().lock().unwrap_or_else(|e| e.into_inner()).1.get(&handle).cloned();
        let plan = plan.ok_or((INVALID_PLAN, format!("no plan {handle}")))?;
        // SAFETY: device addresses, checked against the memory map inside.
        unsafe { execute(&plan, kind, idata as u64, odata as u64, direction) }
    })
}

#[no_mangle]
pub extern "C" fn cufftExecC2C(handle: c_int, idata: *mut c_void, odata: *mut c_void, direction: c_int) -> Status {
    exec(handle, C2C, idata, odata, direction)
}

#[no_mangle]
pub extern "C" fn cufftExecZ2Z(handle: c_int, idata: *mut c_void, odata: *mut c_void, direction: c_int) -> Status {
    exec(handle, Z2Z, idata, odata, direction)
}

#[no_mangle]
pub extern "C" fn cufftExecR2C(handle: c_int, idata: *mut c_void, odata: *mut c_void) -> Status {
    exec(handle, R2C, idata, odata, -1)
}

#[no_mangle]
pub extern "C" fn cufftExecD2Z(handle: c_int, idata: *mut c_void, odata: *mut c_void) -> Status {
    exec(handle, D2Z, idata, odata, -1)
}

#[no_mangle]
pub extern "C" fn cufftExecC2R(handle: c_int, idata: *mut c_void, odata: *mut c_void) -> Status {
    exec(handle, C2R, idata, odata, 1)
}

#[no_mangle]
pub extern "C" fn cufftExecZ2D(handle: c_int, idata: *mut c_void, odata: *mut c_void) -> Status {
    exec(handle, Z2D, idata, odata, 1)
}
