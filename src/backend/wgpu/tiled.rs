//! Time tiling for `stencil!` stencils on WebGPU, as on CUDA (`backend/cuda/tiled.rs`): one
//! dispatch advances the grid several sweeps, each workgroup loading a tile widened by that many
//! radii (and the coefficient fields) into workgroup memory and computing the sweeps there, so
//! global memory is read and written once per several sweeps; tiles overlap and recompute the
//! overlap, so workgroups never wait for one another. f32 (WGSL's one float for stencils), rank
//! 2, radius at most 2, constant halos, and workgroup memory within WebGPU's default 16 KiB;
//! otherwise the caller makes one dispatch per sweep.
//!
//! WebGPU binds a buffer either for writing or for reading in one dispatch, so the halo values of
//! each sweep parity are read through whichever binding holds that field: the output (whose
//! halo no workgroup writes), the input, or a third, read-only binding.

use super::device::WgpuDevice;
use super::dispatch::{buffer, params, to_i32, words};
use super::shaders::COMMON;
use super::{Wgpu, WgpuBuffer};
use crate::error::Result;
use crate::kernel::expr::{Scalar, Stencil, StencilParams};
use crate::kernel::{Backend, Desc};
use crate::shape::interior_range;

/// The output tile of one workgroup (one invocation per point).
const TX: usize = 32;
const TY: usize = 8;

/// Sweeps per dispatch.
const STEPS_PER_DISPATCH: usize = 4;

/// WebGPU's default limit on a workgroup's memory.
const WORKGROUP_BYTES: usize = 16 * 1024;

/// Bindings of the coefficient fields (0-2 are the output, input and halo fields, 3 and 5 the
/// parameter block and the element scalars).
const COEFFICIENT_BINDINGS: [u32; 3] = [4, 6, 7];

/// The WGSL source of the tiled shader of `S` (entry point `tiled`). Descriptors: 0 the output, 1
/// the input, 2 the even sweeps' field, 3 the odd sweeps' field, 4.. the coefficient fields;
/// scalars: the interior bounds, the sweep count, the input's parity, and the binding (0 output,
/// 1 input, 2 halo field) that holds each parity's field.
fn source<S: Stencil<T, N>, T: Scalar, const N: usize>(expression: &str, ry: usize, rx: usize) -> String {
    let coefficients = S::FIELDS.len() - 1;
    let (w, h) = (TX + 2 * STEPS_PER_DISPATCH * rx, TY + 2 * STEPS_PER_DISPATCH * ry);
    let mut s = COMMON.replace("ELEM", "f32");
    s.push_str(&format!(
        "\nconst RY: i32 = {ry};\nconst RX: i32 = {rx};\nconst W: i32 = {w};\nconst H: i32 = {h};\nconst TX: i32 = {TX};\nconst TY: i32 = {TY};\n"
    ));
    s.push_str("@group(0) @binding(0) var<storage, read_write> out: array<f32>;\n@group(0) @binding(1) var<storage, read> cur: array<f32>;\n@group(0) @binding(2) var<storage, read> aux: array<f32>;\n");
    for (f, binding) in COEFFICIENT_BINDINGS.iter().enumerate().take(coefficients) {
        s.push_str(&format!("@group(0) @binding({binding}) var<storage, read> c{f}: array<f32>;\n"));
    }
    s.push_str(&format!("var<workgroup> sh: array<f32, {}>;\n", 2 * w * h));
    if coefficients > 0 {
        s.push_str(&format!("var<workgroup> sc: array<f32, {}>;\n", coefficients * w * h));
    }
    s.push_str(&super::stencil::cn_powi("f32"));
    s.push_str("\nfn at(d: u32, y: i32, x: i32) -> i32 {\n    let base = desc(d);\n    return params[base] + y * params[base + 10u] + x * params[base + 11u];\n}\n");
    let descs = 4 + coefficients;
    s.push_str(&format!("\nfn scalar(k: u32) -> i32 {{ return params[scalar_word({descs}u, k)]; }}\n"));
    // The halo value of parity `p` at (y, x): from the binding that holds that field.
    s.push_str("\nfn halo(p: i32, y: i32, x: i32) -> f32 {\n    let slot = scalar(8u + u32(p));\n    let at_field = at(2u + u32(p), y, x);\n    if (slot == 0) { return out[at_field]; }\n    if (slot == 1) { return cur[at_field]; }\n    return aux[at_field];\n}\n");
    s.push_str("\n@compute @workgroup_size(256)\nfn tiled(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {\n");
    s.push_str("    let n0 = scalar(0u); let n1 = scalar(1u); let lo0 = scalar(2u); let hi0 = scalar(3u); let lo1 = scalar(4u); let hi1 = scalar(5u);\n    let steps = scalar(6u); let parity = scalar(7u);\n");
    s.push_str("    let oy = lo0 + i32(wg.y) * TY; let ox = lo1 + i32(wg.x) * TX;\n    let y0 = oy - steps * RY; let x0 = ox - steps * RX;\n    let hh = TY + 2 * steps * RY; let ww = TX + 2 * steps * RX;\n");
    s.push_str("    for (var idx = i32(lid); idx < hh * ww; idx = idx + 256) {\n        let ly = idx / ww; let lx = idx % ww; let gy = y0 + ly; let gx = x0 + lx;\n        if (gy < 0 || gy >= n0 || gx < 0 || gx >= n1) { continue; }\n        let cell = ly * W + lx;\n        if (gy >= lo0 && gy < hi0 && gx >= lo1 && gx < hi1) {\n            sh[cell] = cur[at(1u, gy, gx)];\n        } else {\n            sh[cell] = halo(parity, gy, gx);\n            sh[W * H + cell] = halo(1 - parity, gy, gx);\n        }\n");
    for f in 0..coefficients {
        s.push_str(&format!("        sc[{} + cell] = c{f}[at({}u, gy, gx)];\n", f * w * h, 4 + f));
    }
    s.push_str("    }\n    workgroupBarrier();\n    for (var t = 1; t <= steps; t = t + 1) {\n        let src = ((t - 1) & 1) * W * H; let dst = (t & 1) * W * H;\n");
    s.push_str("        for (var idx = i32(lid); idx < hh * ww; idx = idx + 256) {\n            let ly = idx / ww; let lx = idx % ww; let gy = y0 + ly; let gx = x0 + lx;\n            if (ly < t * RY || ly >= hh - t * RY || lx < t * RX || lx >= ww - t * RX) { continue; }\n            if (gy < lo0 || gy >= hi0 || gx < lo1 || gx >= hi1) { continue; }\n");
    for (k, tap) in S::TAPS.iter().enumerate() {
        let (dy, dx) = (tap.offset[0], tap.offset[1]);
        let cell = format!("(ly + ({dy})) * W + lx + ({dx})");
        let from = if tap.field == 0 {
            format!("sh[src + {cell}]")
        } else {
            format!("sc[{} + {cell}]", (tap.field - 1) * w * h)
        };
        s.push_str(&format!("            let t{k} = {from};\n"));
    }
    for i in 0..S::PARAMS.len() {
        s.push_str(&format!("            let p{i} = elems[{i}];\n"));
    }
    s.push_str(&format!(
        "            sh[dst + ly * W + lx] = {expression};\n        }}\n        workgroupBarrier();\n    }}\n"
    ));
    s.push_str("    let last = (steps & 1) * W * H;\n    for (var idx = i32(lid); idx < TY * TX; idx = idx + 256) {\n        let ly = steps * RY + idx / TX; let lx = steps * RX + idx % TX;\n        let gy = y0 + ly; let gx = x0 + lx;\n        if (gy < hi0 && gx < hi1) { out[at(0u, gy, gx)] = sh[last + ly * W + lx]; }\n    }\n}\n");
    s
}

/// `steps` sweeps of `S` in dispatches of up to `STEPS_PER_DISPATCH` sweeps, or `Ok(false)` when
/// the stencil does not take the tiled shader; see `ExprStencilKernels::expression_steps`, whose
/// contract this has.
///
/// # Safety
///
/// As for `ExprStencilKernels::expression_steps`.
///
/// # Errors
///
/// `Error::Device` from a dispatch or an allocation.
pub(super) unsafe fn expression_steps<S: Stencil<T, N>, T: Scalar, const N: usize>(
    dev: &WgpuDevice,
    fields: [Desc<Wgpu, T, N>; 2],
    coefficients: &[Desc<Wgpu, T, N>],
    params_of: &S::Params,
    steps: usize,
) -> Result<bool> {
    let radius = crate::kernel::expr::radius::<S, T, N>();
    let Some(expression) = S::wgsl() else { return Ok(false) };
    if N != 2 || radius.iter().any(|&r| r > 2) || steps < 2 || T::DTYPE != crate::element::DType::F32 {
        return Ok(false);
    }
    let (ry, rx) = (radius[0], radius[1]);
    let cells = (TX + 2 * STEPS_PER_DISPATCH * rx) * (TY + 2 * STEPS_PER_DISPATCH * ry);
    if (2 + coefficients.len()) * cells * 4 > WORKGROUP_BYTES {
        return Ok(false);
    }
    let shape = [fields[0].shape[0], fields[0].shape[1]];
    let rows = [interior_range(shape[0], ry), interior_range(shape[1], rx)];
    if rows.iter().any(|r| r.is_empty()) {
        return Ok(false);
    }
    // `T` is f32 here (checked above): the shader and the scalars are written for it.
    let key = format!("stencil! tiled {:?} {N}", core::any::TypeId::of::<S>());
    let pipeline = dev.generated_pipeline(key, "tiled", || Ok(source::<S, T, N>(expression, ry, rx)))?;
    // A scratch field: a dispatch never writes the field it reads (other workgroups load it).
    let len = shape[0] * shape[1];
    let mut scratch_buffer = WgpuBuffer::<T>::allocate(*dev, "stencil apply_steps", len)?;
    let scratch = Desc::<Wgpu, T, N> {
        handle: Wgpu::handle_mut(&mut scratch_buffer, 0),
        shape: fields[0].shape,
        strides: crate::shape::row_major_strides(&fields[0].shape),
    };
    let values: Vec<T> = (0..<S::Params as StencilParams<T>>::LEN).map(|i| params_of.get(i)).collect();
    let interior =
        |d: Desc<Wgpu, T, N>| d.narrowed(0, rows[0].start, rows[0].len()).narrowed(1, rows[1].start, rows[1].len());
    let same = |a: &Desc<Wgpu, T, N>, b: &Desc<Wgpu, T, N>| core::ptr::eq(a.handle.buffer, b.handle.buffer);
    // One workgroup per tile; a grid past the dispatch limits takes one dispatch per sweep.
    let (Ok(gx), Ok(gy)) = (to_u32(rows[1].len().div_ceil(TX)), to_u32(rows[0].len().div_ceil(TY))) else {
        return Ok(false);
    };
    if gx > 65_535 || gy > 65_535 {
        return Ok(false);
    }
    let groups = (gx, gy);
    // Sweep `steps - 1` must end in `fields[(steps - 1) % 2]` (`last`), read from elsewhere; the
    // last sweep is then one ordinary dispatch from it into the other field.
    let last = fields[(steps - 1) % 2];
    let mut cur = fields[0];
    let mut done = 0;
    while done < steps - 1 {
        let chunk = STEPS_PER_DISPATCH.min(steps - 1 - done);
        let finishing = done + chunk == steps - 1;
        let dst = if finishing {
            last
        } else if same(&cur, &scratch) {
            fields[steps % 2]
        } else {
            scratch
        };
        if finishing && same(&cur, &last) {
            // SAFETY: two live, distinct whole fields of one shape.
            unsafe { <Wgpu as crate::kernel::CopyKernels>::copy(dev, interior(scratch), interior(cur)) }?;
            cur = scratch;
        }
        // The halo field neither read as the input nor written: whichever of the two remains.
        let aux = fields.into_iter().find(|f| !same(f, &dst) && !same(f, &cur)).unwrap_or(cur);
        let slot = |f: &Desc<Wgpu, T, N>| {
            if same(f, &dst) {
                0
            } else if same(f, &cur) {
                1
            } else {
                2
            }
        };
        let mut descs = vec![words(&dst)?, words(&cur)?, words(&fields[0])?, words(&fields[1])?];
        for c in coefficients {
            descs.push(words(c)?);
        }
        let scalars = [
            to_i32("a grid size", shape[0])?,
            to_i32("a grid size", shape[1])?,
            to_i32("an interior bound", rows[0].start)?,
            to_i32("an interior bound", rows[0].end)?,
            to_i32("an interior bound", rows[1].start)?,
            to_i32("an interior bound", rows[1].end)?,
            chunk as i32,
            (done % 2) as i32,
            slot(&fields[0]),
            slot(&fields[1]),
        ];
        let p = params_n(len, &descs, &scalars)?.with(&values);
        // SAFETY: the operands are live (the caller's contract and the scratch owned here); the
        // written buffer is bound once, for writing, and read by no other binding.
        let mut bindings = unsafe { vec![(0, buffer(&dst)), (1, buffer(&cur)), (2, buffer(&aux))] };
        for (f, c) in coefficients.iter().enumerate() {
            // SAFETY: as above.
            bindings.push((COEFFICIENT_BINDINGS[f], unsafe { buffer(c) }));
        }
        dev.dispatch("stencil apply_steps (tiled)", &pipeline, &bindings, &p, groups)?;
        cur = dst;
        done += chunk;
    }
    let mut all: Vec<Desc<Wgpu, T, N>> = vec![interior(last)];
    all.extend(coefficients.iter().map(|&c| interior(c)));
    // SAFETY: the caller's contract; the interior of the other field is written from `last`.
    unsafe {
        <Wgpu as crate::kernel::ExprStencilKernels>::expression::<S, T, N>(
            dev,
            interior(fields[steps % 2]),
            &all,
            params_of,
        )
    }?;
    drop(scratch_buffer); // wgpu keeps it alive until the queued work is done
    Ok(true)
}

fn to_u32(n: usize) -> Result<u32> {
    u32::try_from(n).map_err(|_| super::device::device_error("a grid too large for one dispatch".into()))
}

/// The parameter block of a dispatch with a run-time number of descriptors.
fn params_n(n: usize, descs: &[[i32; 18]], scalars: &[i32]) -> Result<super::dispatch::Params> {
    match descs.len() {
        4 => params(n, [descs[0], descs[1], descs[2], descs[3]], scalars),
        5 => params(n, [descs[0], descs[1], descs[2], descs[3], descs[4]], scalars),
        6 => params(n, [descs[0], descs[1], descs[2], descs[3], descs[4], descs[5]], scalars),
        _ => params(n, [descs[0], descs[1], descs[2], descs[3], descs[4], descs[5], descs[6]], scalars),
    }
}
