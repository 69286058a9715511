//! Time tiling for `stencil!` stencils on WebGPU, as on CUDA (`backend/cuda/tiled.rs`): one
//! dispatch advances the grid several sweeps, each workgroup loading a tile widened by that many
//! radii (and the coefficient fields) into workgroup memory and computing the sweeps there, so
//! global memory is read and written once per several sweeps; tiles overlap and recompute the
//! overlap, so workgroups never wait for one another. f32 (WGSL's one float for stencils), ranks
//! 2 (four sweeps per dispatch) and 3 (two), radius at most 2, constant halos, and workgroup
//! memory within WebGPU's default 16 KiB, and only on adapters that run shaders on the CPU
//! (lavapipe), the one kind where it measured faster; otherwise the caller makes one dispatch
//! per sweep.
//!
//! WebGPU binds a buffer either for writing or for reading in one dispatch, so the halo values of
//! each sweep parity are read through whichever binding holds that field: the output (whose
//! halo no workgroup writes), the input, or a third, read-only binding.

use super::codegen::{helpers, Wgsl};
use super::device::WgpuDevice;
use super::dispatch::{buffer, params, to_i32, words};
use super::shaders::COMMON;
use super::{Wgpu, WgpuBuffer};
use crate::backend::tiling::{Chain, Tile};
use crate::error::Result;
use crate::kernel::expr::emit;
use crate::kernel::expr::{check, CheckedExpr, Scalar, Stencil, StencilParams, Widen};
use crate::kernel::{Backend, Desc};
use crate::shape::interior_range;

/// WebGPU's default limit on a workgroup's memory.
const WORKGROUP_BYTES: usize = 16 * 1024;

/// Bindings of the coefficient fields (0-2 are the output, input and halo fields, 3 and 5 the
/// parameter block and the element scalars).
const COEFFICIENT_BINDINGS: [u32; 3] = [4, 6, 7];

/// Splits flat index `idx` over the extents `names` into `{var}0, {var}1, ..` (row-major).
fn split(names: &[String], var: &str, indent: &str) -> String {
    let mut s = String::new();
    let mut rest = "idx".to_string();
    for k in 0..names.len() {
        let inner = names[k + 1..].join(" * ");
        if inner.is_empty() {
            s.push_str(&format!("{indent}let {var}{k} = {rest};\n"));
        } else {
            s.push_str(&format!("{indent}let {var}{k} = {rest} / ({inner});\n"));
            rest = format!("({rest} % ({inner}))");
        }
    }
    s
}

/// The WGSL source of the tiled shader of `S` (entry point `tiled`). Descriptors: 0 the output, 1
/// the input, 2 the even sweeps' field, 3 the odd sweeps' field, 4.. the coefficient fields;
/// scalars: per axis its length and interior bounds, then the sweep count, the input's parity,
/// and the binding (0 output, 1 input, 2 halo field) that holds each parity's field.
fn source<const N: usize>(expr: &CheckedExpr<N>, tile: &Tile) -> String {
    let coefficients = expr.fields() - 1;
    let cells = tile.cells();
    let mut s = COMMON.replace("ELEM", "f32");
    s.push_str("\n@group(0) @binding(0) var<storage, read_write> out: array<f32>;\n@group(0) @binding(1) var<storage, read> cur: array<f32>;\n@group(0) @binding(2) var<storage, read> aux: array<f32>;\n");
    for (f, binding) in COEFFICIENT_BINDINGS.iter().enumerate().take(coefficients) {
        s.push_str(&format!("@group(0) @binding({binding}) var<storage, read> c{f}: array<f32>;\n"));
    }
    s.push_str(&format!("var<workgroup> sh: array<f32, {}>;\n", 2 * cells));
    if coefficients > 0 {
        s.push_str(&format!("var<workgroup> sc: array<f32, {}>;\n", coefficients * cells));
    }
    s.push_str(&helpers("f32"));
    let coords = (0..N).map(|k| format!("g{k}: i32")).collect::<Vec<_>>().join(", ");
    let args = (0..N).map(|k| format!("g{k}")).collect::<Vec<_>>().join(", ");
    let at = (0..N).map(|k| format!(" + g{k} * params[base + {}u]", 10 + k)).collect::<String>();
    s.push_str(&format!(
        "\nfn at(d: u32, {coords}) -> i32 {{\n    let base = desc(d);\n    return params[base]{at};\n}}\n"
    ));
    let descs = 4 + coefficients;
    s.push_str(&format!("\nfn scalar(k: u32) -> i32 {{ return params[scalar_word({descs}u, k)]; }}\n"));
    // The halo value of parity `p`: from the binding that holds that field.
    s.push_str(&format!(
        "\nfn halo(p: i32, {coords}) -> f32 {{\n    let slot = scalar({}u + u32(p));\n    let at_field = at(2u + u32(p), {args});\n    if (slot == 0) {{ return out[at_field]; }}\n    if (slot == 1) {{ return cur[at_field]; }}\n    return aux[at_field];\n}}\n",
        3 * N + 2
    ));
    s.push_str("\n@compute @workgroup_size(256)\nfn tiled(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {\n");
    s.push_str(&format!("    let steps = scalar({}u); let parity = scalar({}u);\n", 3 * N, 3 * N + 1));
    let group = ["x", "y", "z"];
    for k in 0..N {
        let (t, r) = (tile.tile[k], tile.radius[k]);
        s.push_str(&format!(
            "    let n{k} = scalar({}u); let lo{k} = scalar({}u); let hi{k} = scalar({}u);\n    let y{k} = lo{k} + i32(wg.{}) * {t} - steps * {r}; let e{k} = {t} + 2 * steps * {r};\n",
            3 * k,
            3 * k + 1,
            3 * k + 2,
            group[N - 1 - k]
        ));
    }
    let extents: Vec<String> = (0..N).map(|k| format!("e{k}")).collect();
    let total = extents.join(" * ");
    let global = |indent: &str| (0..N).map(|k| format!("{indent}let g{k} = y{k} + l{k};\n")).collect::<String>();
    let inside = (0..N).map(|k| format!("g{k} >= 0 && g{k} < n{k}")).collect::<Vec<_>>().join(" && ");
    let interior = (0..N).map(|k| format!("g{k} >= lo{k} && g{k} < hi{k}")).collect::<Vec<_>>().join(" && ");
    let cell = (0..N).map(|k| format!("l{k} * {}", tile.stride(k))).collect::<Vec<_>>().join(" + ");
    s.push_str(&format!("    for (var idx = i32(lid); idx < {total}; idx = idx + 256) {{\n"));
    s.push_str(&split(&extents, "l", "        "));
    s.push_str(&global("        "));
    s.push_str(&format!("        if (!({inside})) {{ continue; }}\n        let cell = {cell};\n"));
    s.push_str(&format!(
        "        if ({interior}) {{\n            sh[cell] = cur[at(1u, {args})];\n        }} else {{\n            sh[cell] = halo(parity, {args});\n            sh[{cells} + cell] = halo(1 - parity, {args});\n        }}\n"
    ));
    for f in 0..coefficients {
        s.push_str(&format!("        sc[{} + cell] = c{f}[at({}u, {args})];\n", f * cells, 4 + f));
    }
    s.push_str(&format!(
        "    }}\n    workgroupBarrier();\n    for (var t = 1; t <= steps; t = t + 1) {{\n        let src = ((t - 1) & 1) * {cells}; let dst = (t & 1) * {cells};\n"
    ));
    let valid = (0..N)
        .map(|k| format!("l{k} >= t * {r} && l{k} < e{k} - t * {r}", r = tile.radius[k]))
        .collect::<Vec<_>>()
        .join(" && ");
    s.push_str(&format!("        for (var idx = i32(lid); idx < {total}; idx = idx + 256) {{\n"));
    s.push_str(&split(&extents, "l", "            "));
    s.push_str(&global("            "));
    s.push_str(&format!(
        "            if (!({valid}) || !({interior})) {{ continue; }}\n            let cell = {cell};\n"
    ));
    for (k, tap) in expr.taps().iter().enumerate() {
        let shift: isize = (0..N).map(|a| tap.offset[a] * tile.stride(a) as isize).sum();
        let from = if tap.field == 0 {
            format!("sh[src + cell + ({shift})]")
        } else {
            format!("sc[{} + cell + ({shift})]", (tap.field - 1) * cells)
        };
        s.push_str(&format!("            let t{k} = {from};\n"));
    }
    for i in 0..expr.params() {
        s.push_str(&format!("            let p{i} = elems[{i}];\n"));
    }
    let (body, values) = emit::statements(expr, &Wgsl::of::<f32>().expect("WGSL has f32").1, "            ");
    let value = &values[0];
    s.push_str(&body);
    s.push_str(&format!("            sh[dst + cell] = {value};\n        }}\n        workgroupBarrier();\n    }}\n"));
    let tiles: Vec<String> = tile.tile.iter().map(ToString::to_string).collect();
    s.push_str(&format!(
        "    let last = (steps & 1) * {cells};\n    for (var idx = i32(lid); idx < {}; idx = idx + 256) {{\n",
        tiles.join(" * ")
    ));
    s.push_str(&split(&tiles, "m", "        "));
    for k in 0..N {
        s.push_str(&format!("        let l{k} = steps * {} + m{k};\n", tile.radius[k]));
    }
    s.push_str(&global("        "));
    let below = (0..N).map(|k| format!("g{k} < hi{k}")).collect::<Vec<_>>().join(" && ");
    s.push_str(&format!("        if ({below}) {{ out[at(0u, {args})] = sh[last + {cell}]; }}\n    }}\n}}\n"));
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
    // Only where workgroup memory is the CPU's cache (lavapipe): on an H200 through NVIDIA's
    // Vulkan driver the tiled shader took 2.1x the time of separate dispatches (8 steps of
    // 8192^2 f32, docs/BENCHMARKS.md), its 16 KiB tiles too small to hide the recomputed rims.
    if !dev.on_cpu() {
        return Ok(false);
    }
    let expr = check::<S, T, N>("stencil apply_steps")?;
    let radius = crate::kernel::expr::radius::<S, T, N>();
    // One evolving field: a stencil of several outputs takes one dispatch per sweep.
    use crate::element::{DType, Element};
    let f32s = [<T as Element>::DTYPE, <S::Compute as Element>::DTYPE] == [DType::F32; 2];
    if radius.iter().any(|&r| r > 2) || steps < 2 || !f32s || expr.outputs() != 1 {
        return Ok(false);
    }
    let Some(tile) = Tile::new(&radius) else { return Ok(false) };
    if (2 + coefficients.len()) * tile.cells() * 4 > WORKGROUP_BYTES {
        return Ok(false);
    }
    let shape = fields[0].shape;
    let rows: [core::ops::Range<usize>; N] = core::array::from_fn(|k| interior_range(shape[k], radius[k]));
    if rows.iter().any(|r| r.is_empty()) {
        return Ok(false);
    }
    // `T` is f32 here (checked above): the shader and the scalars are written for it.
    let key = format!("stencil! tiled {:?} {N}", core::any::TypeId::of::<S>());
    let pipeline = dev.generated_pipeline(key, "tiled", || Ok(source(&expr, &tile)))?;
    // A scratch field: a dispatch never writes the field it reads (other workgroups load it).
    let len = shape.iter().product();
    let mut scratch_buffer = WgpuBuffer::<T>::allocate(*dev, "stencil apply_steps", len)?;
    let scratch = Desc::<Wgpu, T, N> {
        handle: Wgpu::handle_mut(&mut scratch_buffer, 0),
        shape: fields[0].shape,
        strides: crate::shape::row_major_strides(&fields[0].shape),
    };
    // f32 fields computed in f32 here (above): narrowing is the identity.
    let values: Vec<T> = (0..expr.params()).map(|i| Widen::narrow(params_of.get(i))).collect();
    let interior = |d: Desc<Wgpu, T, N>| (0..N).fold(d, |d, k| d.narrowed(k, rows[k].start, rows[k].len()));
    let same = |a: &Desc<Wgpu, T, N>, b: &Desc<Wgpu, T, N>| core::ptr::eq(a.handle.buffer, b.handle.buffer);
    // One workgroup per tile (the last axis on x); a grid past the dispatch limits takes one
    // dispatch per sweep.
    let mut groups = [1u32; 3];
    for k in 0..N {
        match to_u32(rows[k].len().div_ceil(tile.tile[k])) {
            Ok(g) if g <= 65_535 => groups[N - 1 - k] = g,
            _ => return Ok(false),
        }
    }
    let chain = Chain { dev, fields, scratch, coefficients, interior: &interior, same: &same };
    let launch = |cur: Desc<Wgpu, T, N>, dst: Desc<Wgpu, T, N>, chunk: usize, parity: usize| {
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
        let mut scalars = Vec::with_capacity(3 * N + 4);
        for k in 0..N {
            scalars.push(to_i32("a grid size", shape[k])?);
            scalars.push(to_i32("an interior bound", rows[k].start)?);
            scalars.push(to_i32("an interior bound", rows[k].end)?);
        }
        scalars.extend([chunk as i32, parity as i32, slot(&fields[0]), slot(&fields[1])]);
        let p = params_n(len, &descs, &scalars)?.with(&values);
        // SAFETY: the operands are live (the caller's contract and the scratch owned here); the
        // written buffer is bound once, for writing, and read by no other binding.
        let mut bindings = unsafe { vec![(0, buffer(&dst)), (1, buffer(&cur)), (2, buffer(&aux))] };
        for (f, c) in coefficients.iter().enumerate() {
            // SAFETY: as above.
            bindings.push((COEFFICIENT_BINDINGS[f], unsafe { buffer(c) }));
        }
        dev.dispatch("stencil apply_steps (tiled)", &pipeline, &bindings, &p, groups)
    };
    // SAFETY: the caller's contract; each dispatch reads `cur` and the halos and writes `dst`.
    unsafe { chain.run::<S>(params_of, steps, tile.steps, launch) }?;
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
