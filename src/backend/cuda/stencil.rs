//! The stencil kernels for `Cuda`: constant-coefficient stencils (taps as flat offsets and
//! weights in a `#[repr(C)]` block, summed in tap order, `kernels/cuda/stencil.cu`) and
//! `stencil!` stencils (a kernel generated from the stencil's checked expression data by
//! `codegen.rs`, one tap load per tap, compiled by NVRTC at first use and cached per device).

use cudarc::driver::{LaunchConfig, PushKernelArg};

use super::codegen::expression_source;
use super::device::CudaDevice;
use super::dispatch::{kernel_desc, launch, launch_error, suffix, KernelTaps, MAX_TAPS, STENCIL};
use super::kernels::FAMILIES;
use super::planes;
use super::Cuda;
use crate::element::{DType, Numeric};
use crate::error::{Error, Result};
use crate::kernel::expr::{check, CheckedExpr, ExprData, Scalar, Stencil, StencilParams};
use crate::kernel::{Desc, ExprStencilKernels, StencilKernels};

// SAFETY: writes every output point once with the taps summed in order.
unsafe impl StencilKernels for Cuda {
    const MAX_TAPS: usize = MAX_TAPS;

    unsafe fn taps<T: Numeric, const N: usize>(
        dev: &CudaDevice,
        out: Desc<Cuda, T, N>,
        input: Desc<Cuda, T, N>,
        taps: &[([isize; N], T)],
    ) -> Result<()> {
        let k = taps.len();
        let t = suffix::<T>("stencil")?;
        if k > MAX_TAPS {
            return Err(Error::taps_limit("CUDA", k, MAX_TAPS));
        }
        let n = out.len();
        if n == 0 {
            return Ok(());
        }
        let mut kernel_taps = KernelTaps { delta: [0; MAX_TAPS], weight: [T::ZERO; MAX_TAPS], count: k as i32 };
        for (k, (offset, weight)) in taps.iter().enumerate() {
            kernel_taps.delta[k] = (0..N).map(|axis| offset[axis] as i64 * input.strides[axis] as i64).sum();
            kernel_taps.weight[k] = *weight;
        }
        let ((po, o), (pu, du)) = (kernel_desc(&out)?, kernel_desc(&input)?);
        let count = n as i64;
        launch!(dev, STENCIL, t, format!("cnda_stencil_{t}"), n, [&po, &o, &pu, &du, &kernel_taps, &count]);
        Ok(())
    }
}

/// The parameters as kernel arguments of their concrete type (`T` is one of four, which cudarc
/// passes as `f32`, `f64`, or the 16-bit floats' bits).
pub(super) struct ParamArgs {
    f32s: Vec<f32>,
    f64s: Vec<f64>,
    bits: Vec<u16>,
}

impl ParamArgs {
    pub(super) fn new<T: Scalar>(values: &[T]) -> Self {
        let mut args = ParamArgs { f32s: Vec::new(), f64s: Vec::new(), bits: Vec::new() };
        match T::DTYPE {
            DType::F32 => args.f32s = bytemuck::cast_slice(values).to_vec(),
            DType::F64 => args.f64s = bytemuck::cast_slice(values).to_vec(),
            _ => args.bits = bytemuck::cast_slice(values).to_vec(),
        }
        args
    }

    /// Pushes every parameter, in order, onto `builder`.
    pub(super) fn push<'a>(&'a self, builder: &mut cudarc::driver::LaunchArgs<'a>) {
        for v in &self.f32s {
            builder.arg(v);
        }
        for v in &self.f64s {
            builder.arg(v);
        }
        for v in &self.bits {
            builder.arg(v);
        }
    }
}

/// The launch of `cnda_expression` over `shape` (see `codegen::point_loops`) on a device of
/// `multiprocessors`: blocks of up to 32 points along the last axis by 8 along the one before (up
/// to 256 along the only axis of rank 1), narrower where the axes are (no idle threads on thin
/// arrays); the other axes' rows on z, as many as keep the grid near 32 blocks per
/// multiprocessor, each thread striding over the rest. On an H200 the 3D acoustic SO-8 step ran
/// at 15-17 GPts/s with one z row per block and 20-25 with the grid so capped (each thread's
/// set-up spread over several points); the flat-index kernel before ran at 26 there, but 2D
/// stencils ran 1.7x faster in this shape (docs/BENCHMARKS.md).
fn point_grid<const N: usize>(shape: &[usize; N], multiprocessors: usize) -> LaunchConfig {
    let fit = |n: usize, most: usize| n.next_power_of_two().min(most);
    let x = shape.last().copied().unwrap_or(1);
    let y = if N >= 2 { shape[N - 2] } else { 1 };
    let bx = fit(x, if N >= 2 { 32 } else { 256 });
    let by = fit(y, 256 / bx);
    let (gx, gy) = (x.div_ceil(bx), y.div_ceil(by));
    let rows: usize = shape.iter().take(N.saturating_sub(2)).product();
    let z = rows.min((32 * multiprocessors / gx.saturating_mul(gy).max(1)).max(1));
    let cap = |n: usize, limit: u32| n.clamp(1, limit as usize) as u32;
    LaunchConfig {
        grid_dim: (cap(gx, i32::MAX as u32), cap(gy, 65_535), cap(z, 65_535)),
        block_dim: (bx as u32, by as u32, 1),
        shared_mem_bytes: 0,
    }
}

// SAFETY: each output point is computed once (by its thread of the point kernel, or by the thread
// of its column in the planes kernel) with the stencil's checked expression (the operations
// `CheckedExpr::eval` defines, in its order, separately rounded, in the stencil's compute type:
// taps widened, values narrowed as `Widen` does) from the taps `check` accepted,
// read inside their fields (the caller's contract), and written to that point of each output alone.
unsafe impl ExprStencilKernels for Cuda {
    unsafe fn expression<S: Stencil<T, N>, T: Scalar, const N: usize>(
        dev: &CudaDevice,
        outputs: &[Desc<Cuda, T, N>],
        fields: &[Desc<Cuda, T, N>],
        params: &S::Params,
    ) -> Result<()> {
        let expr = check::<S, T, N>("stencil apply")?;
        let values: Vec<S::Compute> = (0..expr.params()).map(|i| params.get(i)).collect();
        // The key names the type, whose consts (the checked data) cannot change.
        let key = format!("stencil! {:?} {N} {}", core::any::TypeId::of::<S>(), T::DTYPE);
        // SAFETY: the trait's contract is the launch's.
        unsafe { launch_expression::<T, S::Compute, N>(dev, &expr, key, outputs, fields, &values) }
    }

    unsafe fn expression_data<T: Scalar, const N: usize>(
        dev: &CudaDevice,
        data: &ExprData<N>,
        outputs: &[Desc<Cuda, T, N>],
        fields: &[Desc<Cuda, T, N>],
        params: &[T],
    ) -> Result<()> {
        let key = format!("{} {}", data.key(), T::DTYPE);
        // SAFETY: the trait's contract is the launch's.
        unsafe { launch_expression::<T, T, N>(dev, data.expr(), key, outputs, fields, params) }
    }

    unsafe fn expression_steps<S: Stencil<T, N>, T: Scalar, const N: usize>(
        dev: &CudaDevice,
        fields: [Desc<Cuda, T, N>; 2],
        coefficients: &[Desc<Cuda, T, N>],
        params: &S::Params,
        steps: usize,
    ) -> Result<bool> {
        // SAFETY: the trait's contract is the tiled kernel's.
        unsafe { super::tiled::expression_steps::<S, T, N>(dev, fields, coefficients, params, steps) }
    }
}

/// Launches the kernel generated from `expr` (cached under `key`) over the outputs and the fields,
/// computing in `C` with parameters `values`.
///
/// # Safety
///
/// As for `ExprStencilKernels::expression`, for the expression `expr`.
unsafe fn launch_expression<T: Scalar, C: Scalar, const N: usize>(
    dev: &CudaDevice,
    expr: &CheckedExpr<N>,
    key: String,
    outputs: &[Desc<Cuda, T, N>],
    fields: &[Desc<Cuda, T, N>],
    values: &[C],
) -> Result<()> {
    expr.check_operands("stencil apply", fields.len(), outputs.len())?;
    if values.len() != expr.params() {
        return Err(Error::Layout {
            op: "stencil apply",
            reason: format!("the stencil has {} parameters; {} values were passed", expr.params(), values.len()),
            fix: "pass one value per parameter the stencil names, in its order",
        });
    }
    let n = outputs[0].len();
    if n == 0 {
        return Ok(());
    }
    let shape = outputs[0].shape;
    let planes = planes::plan(expr, &shape, core::mem::size_of::<T>())?;
    let function = match planes {
        Some(p) => dev.generated_function(format!("{key} planes {}", p.rows), "cnda_expression_planes", || {
            Ok(planes::source::<T, C, N>(expr, p.rows))
        })?,
        None => dev.generated_function(key, "cnda_expression", || Ok(expression_source::<T, C, N>(expr)))?,
    };
    let mut operands = Vec::with_capacity(outputs.len() + fields.len());
    for d in outputs.iter().chain(fields) {
        operands.push(kernel_desc(d)?);
    }
    let deltas: Vec<i64> = expr
        .taps()
        .iter()
        .map(|tap| (0..N).map(|axis| tap.offset[axis] as i64 * fields[tap.field].strides[axis] as i64).sum())
        .collect();
    let args = ParamArgs::new(values);
    let mut builder = dev.stream().launch_builder(&function);
    for (p, d) in &operands {
        builder.arg(p).arg(d);
    }
    for delta in &deltas {
        builder.arg(delta);
    }
    args.push(&mut builder);
    let (config, name) = match &planes {
        Some(p) => {
            builder.arg(&p.planes);
            (p.launch(), "cnda_expression_planes")
        }
        None => (point_grid(&shape, dev.multiprocessors()), "cnda_expression"),
    };
    // SAFETY: the arguments match the kernel's parameters as generated for the expression (its outputs,
    // then its fields, the taps' deltas, the parameters, and the planes kernel's planes per
    // block); every tap of every point lies inside its field and the outputs overlap no field
    // and one another (the caller's contract). The planes kernel loads, besides the taps,
    // only points of the box that a field's plane taps span around the output's points (its
    // tiles) and of the column between its column taps: the boxes around a rectangle of
    // points form one box, which a field (a rectangular view holding every tap) holds too.
    // No field is written during the launch, so the values it keeps in registers and tiles
    // from one plane to the next stay the fields' values.
    unsafe { builder.launch(config) }.map_err(launch_error(name))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::point_grid;

    /// Blocks of 32 x 8 over the last two axes, narrower on thin axes, z capped near 32 blocks per
    /// multiprocessor, every dimension within the launch limits (the kernel's grid-stride loops
    /// cover what a capped dimension leaves).
    #[test]
    fn launch_shapes_fit_the_axes_and_the_limits() {
        let shape = |g: cudarc::driver::LaunchConfig| (g.block_dim, g.grid_dim);
        assert_eq!(shape(point_grid(&[208, 200, 200], 132)), ((32, 8, 1), (7, 25, 24)));
        assert_eq!(shape(point_grid(&[8192, 8192], 132)), ((32, 8, 1), (256, 1024, 1)));
        assert_eq!(shape(point_grid(&[1000], 132)), ((256, 1, 1), (4, 1, 1)));
        assert_eq!(shape(point_grid(&[300, 219, 1, 1], 132)), ((1, 1, 1), (1, 1, 4224)));
        assert_eq!(shape(point_grid(&[5, 3], 132)), ((4, 8, 1), (1, 1, 1)));
        assert_eq!(shape(point_grid(&[530_000, 32], 132)), ((32, 8, 1), (1, 65_535, 1)));
        assert_eq!(shape(point_grid(&[100_000, 1, 1], 1)), ((1, 1, 1), (1, 1, 32)));
        assert_eq!(shape(point_grid::<0>(&[], 132)), ((1, 1, 1), (1, 1, 1)));
    }
}
