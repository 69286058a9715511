//! Time tiling for `stencil!` stencils on CUDA: one launch advances the grid several sweeps. Each
//! block loads a tile of the field widened by `K` radii on every side (and the coefficient
//! fields) into shared memory, computes `K` sweeps there, each on a region one radius narrower
//! (the outer ring of sweep `t` is garbage but never read), and writes the tile back: one read
//! and one write of global memory per `K` sweeps, where separate sweeps make `K` of each. The
//! tiles overlap by their widening (the redundant halo computation of overlapped tiling, as in
//! AN5D's 2D case), so blocks never wait for one another. Same expression, same operation
//! order, no fused multiply-adds: bit-identical to `K` separate launches.
//!
//! Taken for ranks 2 (four sweeps per launch) and 3 (two), radius at most 2 along each axis,
//! halos that do not change between sweeps (the time steppers call it only then), and shared
//! memory that fits (a 3D tile widened by two radii of 2 does not in f64); otherwise the caller
//! makes one launch per sweep.

use cudarc::driver::{LaunchConfig, PushKernelArg};

use super::buffer::CudaBuffer;
use super::codegen::{prelude, statements, stored};
use super::device::CudaDevice;
use super::dispatch::{kernel_desc, launch_error};
use super::Cuda;
use crate::backend::tiling::{Chain, Tile};
use crate::error::Result;
use crate::kernel::expr::{check, CheckedExpr, Scalar, Stencil, StencilParams};
use crate::kernel::{Backend, Desc};
use crate::shape::interior_range;

/// The shared memory a block may take (the default limit without opting in).
const SHARED_BYTES: usize = 48 * 1024;

/// The bytes of shared memory a tile takes: two buffers of the evolving field and one per
/// coefficient field, in elements of `size`.
fn shared_bytes(tile: &Tile, coefficients: usize, size: usize) -> usize {
    (2 + coefficients) * tile.cells() * size
}

/// `[a][b]..` for the names `l0, l1, ..` shifted by `shift(k)` per axis.
fn cell(rank: usize, shift: impl Fn(usize) -> String) -> String {
    (0..rank).map(|k| format!("[l{k}{}]", shift(k))).collect()
}

/// Splits flat index `idx` over the extents `names` into `l0, l1, ..` (row-major).
fn split(names: &[String], indent: &str) -> String {
    let rank = names.len();
    let mut s = String::new();
    let mut rest = "idx".to_string();
    for k in 0..rank {
        let inner: Vec<&str> = names[k + 1..].iter().map(String::as_str).collect();
        if inner.is_empty() {
            s.push_str(&format!("{indent}const int l{k} = {rest};\n"));
        } else {
            let size = inner.join(" * ");
            s.push_str(&format!("{indent}const int l{k} = {rest} / ({size});\n"));
            rest = format!("({rest} % ({size}))");
        }
    }
    s
}

/// The CUDA source of the time-tiled kernel of `expr` over fields of `T`, computing in `C`: the
/// tiles hold the fields' type, so each sweep's values are rounded (and flushed) as separate
/// launches store them.
fn source<T: Scalar, C: Scalar, const N: usize>(expr: &CheckedExpr<N>, tile: &Tile) -> String {
    let coefficients = expr.fields() - 1;
    let dims: String = tile.extent.iter().map(|e| format!("[{e}]")).collect();
    let mut s = prelude::<T, C>();
    let at = (0..N).map(|k| format!("g{k} * d.strides[{k}]")).collect::<Vec<_>>().join(" + ");
    let coords = (0..N).map(|k| format!("i64 g{k}")).collect::<Vec<_>>().join(", ");
    let args = (0..N).map(|k| format!("g{k}")).collect::<Vec<_>>().join(", ");
    s.push_str(&format!("__device__ __forceinline__ i64 cnda_at(const Desc &d, {coords}) {{ return {at}; }}\n\n"));
    // cur: the field holding sweep t0 (its interior); b0/b1: the fields holding even/odd sweeps,
    // read only on the halo; dst: where sweep t0 + steps goes.
    s.push_str("extern \"C\" __global__ void cnda_expression_tiled(const S *cur, Desc dcur, S *dst, Desc ddst, const S *b0, Desc db0, const S *b1, Desc db1");
    for f in 1..=coefficients {
        s.push_str(&format!(", const S *f{f}, Desc d{f}"));
    }
    for k in 0..N {
        s.push_str(&format!(", i64 n{k}, i64 lo{k}, i64 hi{k}"));
    }
    s.push_str(", int steps, int parity");
    for i in 0..expr.params() {
        s.push_str(&format!(", T p{i}"));
    }
    s.push_str(&format!(") {{\n    __shared__ S s[2]{dims};\n"));
    if coefficients > 0 {
        s.push_str(&format!("    __shared__ S sc[{coefficients}]{dims};\n"));
    }
    // Axis k's tile origin (the last axis on blockIdx.x, the one before on .y, the first of three on .z).
    let block = ["x", "y", "z"];
    for k in 0..N {
        let (t, r) = (tile.tile[k], tile.radius[k]);
        s.push_str(&format!(
            "    const i64 y{k} = lo{k} + (i64)blockIdx.{} * {t} - steps * {r};\n    const int e{k} = {t} + 2 * steps * {r};\n",
            block[N - 1 - k]
        ));
    }
    let extents: Vec<String> = (0..N).map(|k| format!("e{k}")).collect();
    let total = extents.join(" * ");
    let global = (0..N).map(|k| format!("        const i64 g{k} = y{k} + l{k};\n")).collect::<String>();
    let inside = (0..N).map(|k| format!("g{k} >= 0 && g{k} < n{k}")).collect::<Vec<_>>().join(" && ");
    let interior = (0..N).map(|k| format!("g{k} >= lo{k} && g{k} < hi{k}")).collect::<Vec<_>>().join(" && ");
    let here = cell(N, |_| String::new());
    s.push_str(&format!("    for (int idx = threadIdx.x; idx < {total}; idx += blockDim.x) {{\n"));
    s.push_str(&split(&extents, "        "));
    s.push_str(&global);
    s.push_str(&format!("        if (!({inside})) continue;\n"));
    // The halos of both parities come from the fields that hold them (never written); the
    // interior only from `cur` (the fields' interiors may be another block's output).
    s.push_str(&format!(
        "        if ({interior}) {{\n            s[0]{here} = cur[cnda_at(dcur, {args})];\n        }} else {{\n            const S even = b0[cnda_at(db0, {args})], odd = b1[cnda_at(db1, {args})];\n            s[0]{here} = parity ? odd : even;\n            s[1]{here} = parity ? even : odd;\n        }}\n"
    ));
    for f in 1..=coefficients {
        s.push_str(&format!("        sc[{}]{here} = f{f}[cnda_at(d{f}, {args})];\n", f - 1));
    }
    s.push_str("    }\n    __syncthreads();\n    for (int t = 1; t <= steps; ++t) {\n        const int from = (t - 1) & 1, to = t & 1;\n");
    let valid = (0..N)
        .map(|k| format!("l{k} >= t * {r} && l{k} < e{k} - t * {r}", r = tile.radius[k]))
        .collect::<Vec<_>>()
        .join(" && ");
    s.push_str(&format!("        for (int idx = threadIdx.x; idx < {total}; idx += blockDim.x) {{\n"));
    s.push_str(&split(&extents, "            "));
    s.push_str(&global.replace("        const", "            const"));
    s.push_str(&format!("            if (!({valid}) || !({interior})) continue;\n"));
    for (k, tap) in expr.taps().iter().enumerate() {
        let at = cell(N, |a| format!(" + ({})", tap.offset[a]));
        let from = if tap.field == 0 { format!("s[from]{at}") } else { format!("sc[{}]{at}", tap.field - 1) };
        s.push_str(&format!("            const T t{k} = (T)({from});\n"));
    }
    let (body, values) = statements::<C, N>(expr, "            ");
    let value = stored::<T, C, N>(expr, 0, &values[0]);
    s.push_str(&body);
    s.push_str(&format!("            s[to]{here} = {value};\n        }}\n        __syncthreads();\n    }}\n"));
    // The tile back to `dst`: the points the last sweep computed.
    let tiles: Vec<String> = tile.tile.iter().map(ToString::to_string).collect();
    s.push_str(&format!("    for (int idx = threadIdx.x; idx < {}; idx += blockDim.x) {{\n", tiles.join(" * ")));
    s.push_str(&split(&tiles, "        ").replace("const int l", "const int m"));
    for k in 0..N {
        s.push_str(&format!(
            "        const int l{k} = steps * {} + m{k};\n        const i64 g{k} = y{k} + l{k};\n",
            tile.radius[k]
        ));
    }
    let below = (0..N).map(|k| format!("g{k} < hi{k}")).collect::<Vec<_>>().join(" && ");
    s.push_str(&format!("        if ({below}) dst[cnda_at(ddst, {args})] = s[steps & 1]{here};\n    }}\n}}\n"));
    s
}

/// `steps` sweeps of `S` over `fields` in launches of up to the tile's sweeps each, or
/// `Ok(false)` when the stencil does not take the tiled kernel; see
/// `ExprStencilKernels::expression_steps`, whose contract this has.
///
/// # Safety
///
/// As for `ExprStencilKernels::expression_steps`.
///
/// # Errors
///
/// `Error::Device` from a launch or an allocation.
pub(super) unsafe fn expression_steps<S: Stencil<T, N>, T: Scalar, const N: usize>(
    dev: &CudaDevice,
    fields: [Desc<Cuda, T, N>; 2],
    coefficients: &[Desc<Cuda, T, N>],
    params: &S::Params,
    steps: usize,
) -> Result<bool> {
    let expr = check::<S, T, N>("stencil apply_steps")?;
    let radius = crate::kernel::expr::radius::<S, T, N>();
    // One evolving field: a stencil of several outputs takes one launch per sweep.
    if radius.iter().any(|&r| r > 2) || steps < 2 || expr.outputs() != 1 {
        return Ok(false);
    }
    let Some(tile) = Tile::new(&radius) else { return Ok(false) };
    if shared_bytes(&tile, coefficients.len(), core::mem::size_of::<T>()) > SHARED_BYTES {
        return Ok(false);
    }
    let shape = fields[0].shape;
    let rows: [core::ops::Range<usize>; N] = core::array::from_fn(|k| interior_range(shape[k], radius[k]));
    if rows.iter().any(|r| r.is_empty()) {
        return Ok(false);
    }
    let key = format!("stencil! tiled {:?} {N} {}", core::any::TypeId::of::<S>(), T::DTYPE);
    let function =
        dev.generated_function(key, "cnda_expression_tiled", || Ok(source::<T, S::Compute, N>(&expr, &tile)))?;
    // A scratch field: a launch never writes the field it reads (other blocks still load it).
    let len = shape.iter().product();
    let mut scratch_buffer = CudaBuffer::<T>::allocate(*dev, "stencil apply_steps", len, false)?;
    let scratch = Desc::<Cuda, T, N> {
        handle: Cuda::handle_mut(&mut scratch_buffer, 0),
        shape: fields[0].shape,
        strides: crate::shape::row_major_strides(&fields[0].shape),
    };
    let descs: Vec<_> = coefficients.iter().map(kernel_desc).collect::<Result<_>>()?;
    let [(b0, db0), (b1, db1)] = [kernel_desc(&fields[0])?, kernel_desc(&fields[1])?];
    let values: Vec<S::Compute> = (0..expr.params()).map(|i| params.get(i)).collect();
    let args = super::stencil::ParamArgs::new(&values);
    // One block per tile (the last axis on x); a grid past the launch limits takes one launch per
    // sweep instead.
    let mut grid = [1u32; 3];
    for k in 0..N {
        match u32::try_from(rows[k].len().div_ceil(tile.tile[k])) {
            Ok(g) if g <= if k + 1 == N { i32::MAX as u32 } else { 65_535 } => grid[N - 1 - k] = g,
            _ => return Ok(false),
        }
    }
    let config = LaunchConfig {
        grid_dim: (grid[0], grid[1], grid[2]),
        block_dim: (tile.threads() as u32, 1, 1),
        shared_mem_bytes: 0,
    };
    let bounds: Vec<i64> = (0..N).flat_map(|k| [shape[k] as i64, rows[k].start as i64, rows[k].end as i64]).collect();
    let interior = |d: Desc<Cuda, T, N>| interior(d, &rows);
    let chain = Chain { dev, fields, scratch, coefficients, interior: &interior, same: &same };
    let launch = |cur: Desc<Cuda, T, N>, dst: Desc<Cuda, T, N>, chunk: usize, parity: usize| {
        let (pc, dc) = kernel_desc(&cur)?;
        let (pd, dd) = kernel_desc(&dst)?;
        let (count, parity) = (chunk as i32, parity as i32);
        let mut builder = dev.stream().launch_builder(&function);
        builder.arg(&pc).arg(&dc).arg(&pd).arg(&dd).arg(&b0).arg(&db0).arg(&b1).arg(&db1);
        for (p, d) in &descs {
            builder.arg(p).arg(d);
        }
        for b in &bounds {
            builder.arg(b);
        }
        builder.arg(&count).arg(&parity);
        args.push(&mut builder);
        // SAFETY: the arguments match the generated kernel's parameters; every block reads
        // `cur` (and the halos of both fields, never written) and writes interior points of
        // `dst`, a different field; the tiles' loads and computations stay inside the fields.
        unsafe { builder.launch(config) }.map_err(launch_error("cnda_expression_tiled"))?;
        Ok(())
    };
    // SAFETY: the caller's contract; each launch reads `cur` and the halos and writes `dst`.
    unsafe { chain.run::<S>(params, steps, tile.steps, launch) }?;
    // Freed in stream order (after the launches that use it), as every device buffer is.
    drop(scratch_buffer);
    Ok(true)
}

/// Whether two descriptors start at one address (the same field).
fn same<T: Scalar, const N: usize>(a: &Desc<Cuda, T, N>, b: &Desc<Cuda, T, N>) -> bool {
    a.handle.addr == b.handle.addr
}

/// The interior region `rows` of a field.
fn interior<T: Scalar, const N: usize>(d: Desc<Cuda, T, N>, rows: &[core::ops::Range<usize>; N]) -> Desc<Cuda, T, N> {
    (0..N).fold(d, |d, k| d.narrowed(k, rows[k].start, rows[k].len()))
}
