//! Time tiling for `stencil!` stencils on CUDA: one launch advances the grid several sweeps. Each
//! block loads a tile of the field widened by `K` radii on every side (and the coefficient
//! fields) into shared memory, computes `K` sweeps there, each on a region one radius narrower
//! (the outer ring of sweep `t` is garbage but never read), and writes the tile back: one read
//! and one write of global memory per `K` sweeps, where separate sweeps make `K` of each. The
//! tiles overlap by their widening (the redundant halo computation of overlapped tiling, as in
//! AN5D's 2D case), so blocks never wait for one another. Same expression, same operation
//! order, no fused multiply-adds: bit-identical to `K` separate launches.
//!
//! Taken for rank 2, radius at most 2 along each axis, halos that do not change between sweeps
//! (the time steppers call it only then), and shared memory that fits; otherwise the caller
//! makes one launch per sweep.

use cudarc::driver::{LaunchConfig, PushKernelArg};

use super::buffer::CudaBuffer;
use super::device::CudaDevice;
use super::dispatch::{kernel_desc, launch_error};
use super::Cuda;
use crate::element::DType;
use crate::error::Result;
use crate::kernel::expr::{Scalar, Stencil, StencilParams};
use crate::kernel::{Backend, Desc};
use crate::shape::interior_range;

/// The output tile of one block: `TX` columns by `TY` rows, one thread per point.
const TX: usize = 32;
const TY: usize = 8;

/// Sweeps per launch.
const STEPS_PER_LAUNCH: usize = 4;

/// The shared memory a block may take (the default limit without opting in).
const SHARED_BYTES: usize = 48 * 1024;

/// The shape of a tiled kernel: radii, the loaded tile's width and height, and its shared bytes.
struct Tile {
    ry: usize,
    rx: usize,
    w: usize,
    h: usize,
}

impl Tile {
    fn new(radius: [usize; 2]) -> Self {
        let [ry, rx] = radius;
        Tile { ry, rx, w: TX + 2 * STEPS_PER_LAUNCH * rx, h: TY + 2 * STEPS_PER_LAUNCH * ry }
    }

    /// Two buffers of the evolving field and one per coefficient field, in elements of `size`.
    fn bytes(&self, coefficients: usize, size: usize) -> usize {
        (2 + coefficients) * self.w * self.h * size
    }
}

/// The CUDA source of the time-tiled kernel of `S` for C type `c`.
fn source<S: Stencil<T, N>, T: Scalar, const N: usize>(c: &str, expression: &str, tile: &Tile) -> String {
    let coefficients = S::FIELDS.len() - 1;
    let Tile { ry, rx, w, h } = *tile;
    let mut s = format!(
        "typedef {c} T;\n#define RY {ry}\n#define RX {rx}\n#define W {w}\n#define H {h}\n#define TX {TX}\n#define TY {TY}\n\n"
    );
    s.push_str(super::stencil::CN_POWI);
    s.push_str("__device__ __forceinline__ i64 cnda_at2(const Desc &d, i64 y, i64 x) { return y * d.strides[0] + x * d.strides[1]; }\n\n");
    // cur: the field holding sweep t0 (its interior); b0/b1: the fields holding even/odd sweeps,
    // read only on the halo; dst: where sweep t0 + steps goes.
    s.push_str("extern \"C\" __global__ void cnda_expression_tiled(const T *cur, Desc dcur, T *dst, Desc ddst, const T *b0, Desc db0, const T *b1, Desc db1");
    for f in 1..=coefficients {
        s.push_str(&format!(", const T *f{f}, Desc d{f}"));
    }
    s.push_str(", i64 n0, i64 n1, i64 lo0, i64 hi0, i64 lo1, i64 hi1, int steps, int parity");
    for i in 0..S::PARAMS.len() {
        s.push_str(&format!(", T p{i}"));
    }
    s.push_str(") {\n    __shared__ T s[2][H][W];\n");
    if coefficients > 0 {
        s.push_str(&format!("    __shared__ T sc[{coefficients}][H][W];\n"));
    }
    s.push_str(
        "    const i64 oy = lo0 + (i64)blockIdx.y * TY, ox = lo1 + (i64)blockIdx.x * TX;\n    const i64 y0 = oy - steps * RY, x0 = ox - steps * RX;\n    const int hh = TY + 2 * steps * RY, ww = TX + 2 * steps * RX;\n",
    );
    s.push_str("    for (int idx = threadIdx.x; idx < hh * ww; idx += blockDim.x) {\n        const int ly = idx / ww, lx = idx % ww;\n        const i64 gy = y0 + ly, gx = x0 + lx;\n        if (gy < 0 || gy >= n0 || gx < 0 || gx >= n1) continue;\n        const bool inner = gy >= lo0 && gy < hi0 && gx >= lo1 && gx < hi1;\n");
    // The halos of both parities come from the fields that hold them (never written); the
    // interior only from `cur` (the fields' interiors may be another block's output).
    s.push_str("        if (inner) {\n            s[0][ly][lx] = cur[cnda_at2(dcur, gy, gx)];\n        } else {\n            const T even = b0[cnda_at2(db0, gy, gx)], odd = b1[cnda_at2(db1, gy, gx)];\n            s[0][ly][lx] = parity ? odd : even;\n            s[1][ly][lx] = parity ? even : odd;\n        }\n");
    for f in 1..=coefficients {
        s.push_str(&format!("        sc[{}][ly][lx] = f{f}[cnda_at2(d{f}, gy, gx)];\n", f - 1));
    }
    s.push_str("    }\n    __syncthreads();\n    for (int t = 1; t <= steps; ++t) {\n        T (*src)[W] = s[(t - 1) & 1];\n        T (*out)[W] = s[t & 1];\n");
    s.push_str("        for (int idx = threadIdx.x; idx < hh * ww; idx += blockDim.x) {\n            const int ly = idx / ww, lx = idx % ww;\n            const i64 gy = y0 + ly, gx = x0 + lx;\n            if (ly < t * RY || ly >= hh - t * RY || lx < t * RX || lx >= ww - t * RX) continue;\n            if (gy < lo0 || gy >= hi0 || gx < lo1 || gx >= hi1) continue;\n");
    for (k, tap) in S::TAPS.iter().enumerate() {
        let (dy, dx) = (tap.offset[0], tap.offset[1]);
        let from = if tap.field == 0 { "src".to_string() } else { format!("sc[{}]", tap.field - 1) };
        s.push_str(&format!("            const T t{k} = {from}[ly + ({dy})][lx + ({dx})];\n"));
    }
    s.push_str(&format!("            out[ly][lx] = {expression};\n        }}\n        __syncthreads();\n    }}\n"));
    s.push_str("    for (int idx = threadIdx.x; idx < TY * TX; idx += blockDim.x) {\n        const int ly = steps * RY + idx / TX, lx = steps * RX + idx % TX;\n        const i64 gy = y0 + ly, gx = x0 + lx;\n        if (gy < hi0 && gx < hi1) dst[cnda_at2(ddst, gy, gx)] = s[steps & 1][ly][lx];\n    }\n}\n");
    s
}

/// The C type of a stencil element type.
fn c_type<T: Scalar>() -> &'static str {
    match T::DTYPE {
        DType::F32 => "float",
        _ => "double",
    }
}

/// `steps` sweeps of `S` over `fields` in launches of up to `STEPS_PER_LAUNCH` sweeps, or
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
    let radius = crate::kernel::expr::radius::<S, T, N>();
    let Some(expression) = S::cuda() else { return Ok(false) };
    if N != 2 || radius.iter().any(|&r| r > 2) || steps < 2 {
        return Ok(false);
    }
    let tile = Tile::new([radius[0], radius[1]]);
    if tile.bytes(coefficients.len(), core::mem::size_of::<T>()) > SHARED_BYTES {
        return Ok(false);
    }
    let shape = [fields[0].shape[0], fields[0].shape[1]];
    let rows = [interior_range(shape[0], radius[0]), interior_range(shape[1], radius[1])];
    if rows.iter().any(|r| r.is_empty()) {
        return Ok(false);
    }
    let key = format!("stencil! tiled {:?} {N} {}", core::any::TypeId::of::<S>(), T::DTYPE);
    let function = dev
        .generated_function(key, "cnda_expression_tiled", || Ok(source::<S, T, N>(c_type::<T>(), expression, &tile)))?;
    // A scratch field: a launch never writes the field it reads (other blocks still load it).
    let len = shape[0] * shape[1];
    let mut scratch_buffer = CudaBuffer::<T>::allocate(*dev, "stencil apply_steps", len, false)?;
    let scratch = Desc::<Cuda, T, N> {
        handle: Cuda::handle_mut(&mut scratch_buffer, 0),
        shape: fields[0].shape,
        strides: crate::shape::row_major_strides(&fields[0].shape),
    };
    // Sweep `steps - 1` must end in `fields[(steps - 1) % 2]` (`last`), read from elsewhere; the
    // last sweep is then one ordinary launch from it into the other field.
    let last = fields[(steps - 1) % 2];
    let mut cur = fields[0];
    let mut done = 0;
    let descs: Vec<_> = coefficients.iter().map(kernel_desc).collect::<Result<_>>()?;
    let [(b0, db0), (b1, db1)] = [kernel_desc(&fields[0])?, kernel_desc(&fields[1])?];
    let values: Vec<T> = (0..<S::Params as StencilParams<T>>::LEN).map(|i| params.get(i)).collect();
    let (as_f32, as_f64): (Vec<f32>, Vec<f64>) = match T::DTYPE {
        DType::F32 => (bytemuck::cast_slice(&values).to_vec(), Vec::new()),
        _ => (Vec::new(), bytemuck::cast_slice(&values).to_vec()),
    };
    // One block per tile; a grid past the launch limits takes one launch per sweep instead.
    let (Ok(gx), Ok(gy)) = (u32::try_from(rows[1].len().div_ceil(TX)), u32::try_from(rows[0].len().div_ceil(TY)))
    else {
        return Ok(false);
    };
    if gy > 65_535 || gx > i32::MAX as u32 {
        return Ok(false);
    }
    let config = LaunchConfig { grid_dim: (gx, gy, 1), block_dim: ((TX * TY) as u32, 1, 1), shared_mem_bytes: 0 };
    let bounds = [
        shape[0] as i64,
        shape[1] as i64,
        rows[0].start as i64,
        rows[0].end as i64,
        rows[1].start as i64,
        rows[1].end as i64,
    ];
    while done < steps - 1 {
        let chunk = STEPS_PER_LAUNCH.min(steps - 1 - done);
        let finishing = done + chunk == steps - 1;
        // The target: `last` at the end; else whichever of the scratch and the non-final field
        // this launch does not read.
        let dst = if finishing {
            last
        } else if same(&cur, &scratch) {
            fields[steps % 2]
        } else {
            scratch
        };
        if finishing && same(&cur, &last) {
            // Only when the chain is one launch from the initial field: move it aside first.
            // SAFETY: both are live, distinct whole fields of one shape.
            unsafe { <Cuda as crate::kernel::CopyKernels>::copy(dev, interior(scratch, &rows), interior(cur, &rows)) }?;
            cur = scratch;
        }
        let (pc, dc) = kernel_desc(&cur)?;
        let (pd, dd) = kernel_desc(&dst)?;
        let (count, parity) = (chunk as i32, (done % 2) as i32);
        let mut builder = dev.stream().launch_builder(&function);
        builder.arg(&pc).arg(&dc).arg(&pd).arg(&dd).arg(&b0).arg(&db0).arg(&b1).arg(&db1);
        for (p, d) in &descs {
            builder.arg(p).arg(d);
        }
        for b in &bounds {
            builder.arg(b);
        }
        builder.arg(&count).arg(&parity);
        for v in &as_f32 {
            builder.arg(v);
        }
        for v in &as_f64 {
            builder.arg(v);
        }
        // SAFETY: the arguments match the generated kernel's parameters; every block reads
        // `cur` (and the halos of both fields, never written) and writes interior points of
        // `dst`, a different field; the tiles' loads and computations stay inside the fields.
        unsafe { builder.launch(config) }.map_err(launch_error("cnda_expression_tiled"))?;
        cur = dst;
        done += chunk;
    }
    // The last sweep, from `last` into the other field.
    let mut all: Vec<Desc<Cuda, T, N>> = vec![interior(last, &rows)];
    all.extend(coefficients.iter().map(|&c| interior(c, &rows)));
    // SAFETY: the caller's contract; the interior of the other field is written from `last`.
    unsafe {
        <Cuda as crate::kernel::ExprStencilKernels>::expression::<S, T, N>(
            dev,
            interior(fields[steps % 2], &rows),
            &all,
            params,
        )
    }?;
    // Freed in stream order (after the launches that use it), as every device buffer is.
    drop(scratch_buffer);
    Ok(true)
}

/// Whether two descriptors start at one address (the same field).
fn same<T: Scalar, const N: usize>(a: &Desc<Cuda, T, N>, b: &Desc<Cuda, T, N>) -> bool {
    a.handle.addr == b.handle.addr
}

/// The interior region `rows` (axes 0 and 1) of a rank-2 field.
fn interior<T: Scalar, const N: usize>(d: Desc<Cuda, T, N>, rows: &[core::ops::Range<usize>; 2]) -> Desc<Cuda, T, N> {
    d.narrowed(0, rows[0].start, rows[0].len()).narrowed(1, rows[1].start, rows[1].len())
}
