//! The stencil kernels for `Wgpu`: constant-coefficient stencils (taps as flat offsets and
//! weights in the parameter block, summed in tap order, `kernels/wgpu/stencil.wgsl`) and
//! `stencil!` stencils (a shader generated from the stencil's checked expression data by
//! `codegen.rs`, built at first use and cached per device).

use super::codegen::{expression_shader, operand_binding, too_many_buffers, unsupported, unsupported_compute, Wgsl};
use super::device::{device_error, WgpuDevice};
use super::dispatch::{buffer, elem, params, run, same_buffer, to_i32, try_2d, words, MAX_TAPS};
use super::shaders::family;
use super::Wgpu;
use crate::element::Numeric;
use crate::error::{Error, Result};
use crate::kernel::expr::{check, CheckedExpr, ExprData, Scalar, Stencil, StencilParams};
use crate::kernel::{Desc, ExprStencilKernels, StencilKernels};

// SAFETY: writes every output point once with the taps summed in order.
unsafe impl StencilKernels for Wgpu {
    const MAX_TAPS: usize = MAX_TAPS;

    unsafe fn taps<T: Numeric, const N: usize>(
        dev: &WgpuDevice,
        out: Desc<Wgpu, T, N>,
        input: Desc<Wgpu, T, N>,
        taps: &[([isize; N], T)],
    ) -> Result<()> {
        let k = taps.len();
        let t = elem::<T>(dev, "stencil")?;
        if k > MAX_TAPS {
            return Err(Error::taps_limit("WebGPU", k, MAX_TAPS));
        }
        let n = out.len();
        if n == 0 {
            return Ok(());
        }
        let mut scalars = vec![0i32; 1 + MAX_TAPS];
        scalars[0] = k as i32;
        // At least one element: the shader's weights binding must exist even without taps.
        let mut weights = vec![T::ZERO; k.max(1)];
        for (k, (offset, weight)) in taps.iter().enumerate() {
            let delta: isize = (0..N).map(|axis| offset[axis] * input.strides[axis]).sum();
            scalars[1 + k] = to_i32("a tap offset", delta)?;
            weights[k] = *weight;
        }
        if same_buffer(&out, &input) {
            // The taps reach past the input region, so no staged copy of it would do.
            return Err(device_error(
                "a stencil's input and output are views of one buffer; WebGPU cannot bind it for reading and writing at once: apply it between two arrays".into(),
            ));
        }
        // SAFETY: the operands are live and in different buffers.
        let (bo, bi) = unsafe { (buffer(&out), buffer(&input)) };
        if try_2d(dev, family("stencil"), t, "stencil_2d", [&out, &input], (&scalars, &weights), &[(0, bo), (1, bi)])? {
            return Ok(());
        }
        let p = params(n, [words(&out)?, words(&input)?], &scalars)?.with(&weights);
        run(dev, family("stencil"), t, "stencil", n, &[(0, bo), (1, bi)], &p)
    }
}

// SAFETY: one thread per output point computes the stencil's checked expression (the operations
// `CheckedExpr::eval` defines, in its order, in the stencil's compute type) from the taps `check` accepted, which it
// loads inside their fields (the caller's contract), and writes only that point of each output.
unsafe impl ExprStencilKernels for Wgpu {
    unsafe fn expression<S: Stencil<T, N>, T: Scalar, const N: usize>(
        dev: &WgpuDevice,
        outputs: &[Desc<Wgpu, T, N>],
        fields: &[Desc<Wgpu, T, N>],
        params: &S::Params,
    ) -> Result<()> {
        let expr = check::<S, T, N>("stencil apply")?;
        let values: Vec<S::Compute> = (0..expr.params()).map(|i| params.get(i)).collect();
        // The key names the type, whose consts (the checked data) cannot change.
        let key = format!("{:?} {N}", core::any::TypeId::of::<S>());
        // SAFETY: the trait's contract is the dispatch's.
        unsafe { dispatch_expression::<T, S::Compute, N>(dev, &expr, key, outputs, fields, &values) }
    }

    unsafe fn expression_data<T: Scalar, const N: usize>(
        dev: &WgpuDevice,
        data: &ExprData<N>,
        outputs: &[Desc<Wgpu, T, N>],
        fields: &[Desc<Wgpu, T, N>],
        params: &[T],
    ) -> Result<()> {
        // SAFETY: the trait's contract is the dispatch's.
        unsafe { dispatch_expression::<T, T, N>(dev, data.expr(), data.key().to_string(), outputs, fields, params) }
    }

    unsafe fn expression_steps<S: Stencil<T, N>, T: Scalar, const N: usize>(
        dev: &WgpuDevice,
        fields: [Desc<Wgpu, T, N>; 2],
        coefficients: &[Desc<Wgpu, T, N>],
        params: &S::Params,
        steps: usize,
    ) -> Result<bool> {
        // SAFETY: the trait's contract is the tiled shader's.
        unsafe { super::tiled::expression_steps::<S, T, N>(dev, fields, coefficients, params, steps) }
    }
}

/// Dispatches the shader generated from `expr` (cached under `key` and the fields' type) over the
/// outputs and the fields, computing in `C` with parameters `values`.
///
/// # Safety
///
/// As for `ExprStencilKernels::expression`, for the expression `expr`.
unsafe fn dispatch_expression<T: Scalar, C: Scalar, const N: usize>(
    dev: &WgpuDevice,
    expr: &CheckedExpr<N>,
    key: String,
    outputs: &[Desc<Wgpu, T, N>],
    fields: &[Desc<Wgpu, T, N>],
    values: &[C],
) -> Result<()> {
    const OP: &str = "stencil apply";
    // The fields' type and the one the stencil computes in (the same unless it widens).
    let t = elem::<T>(dev, OP)?;
    let Some(_) = Wgsl::of::<T>() else { return Err(unsupported::<T>(OP)) };
    let Some((c, dialect)) = Wgsl::of::<C>() else { return Err(unsupported_compute::<C>(OP)) };
    elem::<C>(dev, OP)?;
    expr.check_operands(OP, fields.len(), outputs.len())?;
    if values.len() != expr.params() {
        return Err(Error::Layout {
            op: OP,
            reason: format!("the stencil has {} parameters; {} values were passed", expr.params(), values.len()),
            fix: "pass one value per parameter the stencil names, in its order",
        });
    }
    let read: Vec<usize> = (0..fields.len()).filter(|&f| expr.reads_field(f)).collect();
    too_many_buffers(OP, outputs.len() + read.len() + 2, dev.max_storage_buffers())?;
    let n = outputs[0].len();
    if n == 0 {
        return Ok(());
    }
    for (m, out) in outputs.iter().enumerate() {
        if let Some(f) = fields.iter().position(|f| same_buffer(out, f)) {
            return Err(device_error(format!(
                "field {f} of a stencil and its output {m} are views of one buffer; WebGPU cannot bind it for reading and writing at once: apply it between two arrays"
            )));
        }
        if outputs[..m].iter().any(|o| same_buffer(out, o)) {
            return Err(device_error(format!(
                "output {m} of a stencil shares a buffer with an earlier output; WebGPU binds each output once: write into separate arrays"
            )));
        }
    }
    let mut scalars = Vec::with_capacity(expr.taps().len());
    for tap in expr.taps() {
        let strides = fields[tap.field].strides;
        let delta: isize = (0..N).map(|axis| tap.offset[axis] * strides[axis]).sum();
        scalars.push(to_i32("a tap offset", delta)?);
    }
    let descs = outputs.iter().chain(fields).map(words).collect::<Result<Vec<_>>>()?;
    let p = super::dispatch::params(n, descs, &scalars)?.with(values);
    let key = format!("{key} {t}");
    let pipeline = dev.generated_pipeline(key, "expression", || Ok(expression_shader(expr, t, c, &dialect)))?;
    // SAFETY: the operands are live (the caller's contract); no output shares a buffer with
    // a field or another output (checked above).
    let mut bindings: Vec<(u32, &wgpu::Buffer)> =
        outputs.iter().enumerate().map(|(m, d)| (operand_binding(m), unsafe { buffer(d) })).collect();
    for &f in &read {
        // SAFETY: as above.
        bindings.push((operand_binding(outputs.len() + f), unsafe { buffer(&fields[f]) }));
    }
    dev.dispatch(OP, &pipeline, &bindings, &p, WgpuDevice::groups(n)?)
}
