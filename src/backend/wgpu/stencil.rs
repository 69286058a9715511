//! The stencil kernels for `Wgpu`: constant-coefficient stencils (taps as flat offsets and
//! weights in the parameter block, summed in tap order, `kernels/wgpu/stencil.wgsl`) and
//! `stencil!` stencils (a shader generated from the stencil's WGSL expression, built at first
//! use and cached per device).

use super::device::{device_error, WgpuDevice};
use super::dispatch::{buffer, elem, params, run, same_buffer, to_i32, try_2d, words, MAX_TAPS};
use super::shaders::{family, COMMON};
use super::Wgpu;
use crate::element::Numeric;
use crate::error::{Error, Result};
use crate::kernel::expr::{Scalar, Stencil, StencilParams};
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

/// The storage bindings of an expression stencil's fields (0 is the output; 3 and 5 are the
/// parameter block and the element scalars).
const FIELD_BINDINGS: [u32; 4] = [1, 2, 4, 6];

/// The WGSL shader that applies stencil `S` in element type `T` (entry point `expression`): what
/// the first `apply` on a device builds, for reading or for validating without an adapter.
/// `None` when WGSL has no expression for `T`.
pub fn stencil_shader<S: Stencil<T, N>, T: Scalar, const N: usize>() -> Option<String> {
    let t = match T::DTYPE {
        crate::element::DType::F32 => "f32",
        crate::element::DType::F16 => "f16",
        _ => return None,
    };
    S::wgsl().map(|expression| expression_shader::<S, T, N>(t, expression))
}

/// `powi` as the CPU computes it (`cnda::stencil::powi`), for element type `t`: `|n| - 1` products
/// from the left (the magnitude taken unsigned, so `i32::MIN` is no overflow), then one division
/// for negative `n`.
pub(super) fn cn_powi(t: &str) -> String {
    format!(
        "\nfn cn_powi(x: {t}, n: i32) -> {t} {{\n    let m = select(u32(n), 0u - u32(n), n < 0);\n    var p = select(x, {t}(1), n == 0);\n    for (var k = 1u; k < m; k = k + 1u) {{ p = p * x; }}\n    if (n < 0) {{ return {t}(1) / p; }}\n    return p;\n}}\n"
    )
}

/// Whether some tap of `S` reads field `f`.
fn read_by_a_tap<S: Stencil<T, N>, T: Scalar, const N: usize>(f: usize) -> bool {
    S::TAPS.iter().any(|tap| tap.field == f)
}

/// The WGSL shader of stencil `S` for element type `t`: one thread per output point loads every
/// tap into `t{k}`, every parameter into `p{i}`, and stores `S::wgsl()`'s expression.
fn expression_shader<S: Stencil<T, N>, T: Scalar, const N: usize>(t: &str, expression: &str) -> String {
    let fields = S::FIELDS.len();
    // f16 must be enabled before any declaration.
    let mut s = if t == "f16" { "enable f16;\n".to_string() } else { String::new() };
    s.push_str(&COMMON.replace("ELEM", t));
    s.push_str(&format!("\n@group(0) @binding(0) var<storage, read_write> out: array<{t}>;\n"));
    // Only fields some tap reads are bound (an unread binding would leave the pipeline's layout).
    for (f, binding) in FIELD_BINDINGS.iter().enumerate().take(fields).filter(|(f, _)| read_by_a_tap::<S, T, N>(*f)) {
        s.push_str(&format!("@group(0) @binding({binding}) var<storage, read> f{f}: array<{t}>;\n"));
    }
    s.push_str(&cn_powi(t));
    s.push_str("\n@compute @workgroup_size(256)\nfn expression(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {\n    let i = flat_index(gid, groups);\n    if (i >= item_count()) { return; }\n");
    for f in (0..fields).filter(|&f| read_by_a_tap::<S, T, N>(f)) {
        s.push_str(&format!("    let c{f} = offset_of({}u, i);\n", f + 1));
    }
    for (k, tap) in S::TAPS.iter().enumerate() {
        // The deltas follow the output's and four fields' descriptors (absent fields' are unused).
        s.push_str(&format!("    let t{k} = f{}[c{} + params[scalar_word(5u, {k}u)]];\n", tap.field, tap.field));
    }
    for i in 0..S::PARAMS.len() {
        s.push_str(&format!("    let p{i} = elems[{i}];\n"));
    }
    s.push_str(&format!("    out[offset_of(0u, i)] = {expression};\n}}\n"));
    s
}

// SAFETY: one thread per output point computes `S::wgsl()`, the same expression as `S::point`, from
// the taps it loads (inside their fields: the caller's contract) and writes only that point.
unsafe impl ExprStencilKernels for Wgpu {
    unsafe fn expression<S: Stencil<T, N>, T: Scalar, const N: usize>(
        dev: &WgpuDevice,
        out: Desc<Wgpu, T, N>,
        fields: &[Desc<Wgpu, T, N>],
        params: &S::Params,
    ) -> Result<()> {
        let t = elem::<T>(dev, "stencil apply")?;
        let Some(expression) = S::wgsl() else {
            return Err(Error::UnsupportedDType {
                op: "stencil apply",
                got: t.into(),
                fix: "WGSL stencils compute in f32, or f16 where the adapter has it; convert the fields, or apply on the CPU or CUDA",
            });
        };
        if fields.len() > FIELD_BINDINGS.len() {
            return Err(Error::Limit {
                op: "stencil apply",
                backend: "WebGPU",
                what: "the number of input fields",
                got: fields.len() as u64,
                max: FIELD_BINDINGS.len() as u64,
                fix: "pass fewer fields (combine some into one beforehand)",
            });
        }
        let n = out.len();
        if n == 0 {
            return Ok(());
        }
        if let Some(f) = fields.iter().position(|f| same_buffer(&out, f)) {
            return Err(device_error(format!(
                "field {f} of a stencil and its output are views of one buffer; WebGPU cannot bind it for reading and writing at once: apply it between two arrays"
            )));
        }
        let mut scalars = Vec::with_capacity(S::TAPS.len());
        for tap in S::TAPS {
            let strides = fields[tap.field].strides;
            let delta: isize = (0..N).map(|axis| tap.offset[axis] * strides[axis]).sum();
            scalars.push(to_i32("a tap offset", delta)?);
        }
        let values: Vec<T> = (0..<S::Params as StencilParams<T>>::LEN).map(|i| params.get(i)).collect();
        let mut descs = [[0i32; 18]; 5];
        descs[0] = words(&out)?;
        for (f, d) in fields.iter().enumerate() {
            descs[f + 1] = words(d)?;
        }
        let p = super::dispatch::params(n, descs, &scalars)?.with(&values);
        crate::kernel::expr::check::<S, T, N>("stencil apply")?;
        let key = format!("{:?} {N} {t}", core::any::TypeId::of::<S>());
        let pipeline = dev.generated_pipeline(key, "expression", || Ok(expression_shader::<S, T, N>(t, expression)))?;
        // SAFETY: the operands are live (the caller's contract); the output is in none of the
        // fields' buffers (checked above).
        let mut bindings = vec![(0, unsafe { buffer(&out) })];
        for (f, d) in fields.iter().enumerate().filter(|(f, _)| read_by_a_tap::<S, T, N>(*f)) {
            // SAFETY: as above.
            bindings.push((FIELD_BINDINGS[f], unsafe { buffer(d) }));
        }
        dev.dispatch("stencil apply", &pipeline, &bindings, &p, WgpuDevice::groups(n)?)
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
