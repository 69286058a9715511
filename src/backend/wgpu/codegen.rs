//! WGSL from a stencil's checked expression data: the dialect (`f32`, or `f16` with literals
//! converted from their `f32` value, as the host rounds them: WGSL has no `f64` or `bf16` for
//! stencils), `powi` as the CPU computes it, and the per-point shader. Nothing here takes text
//! from a stencil: every token comes from a checked node, a fixed spelling below, or a number.

use super::shaders::COMMON;
use crate::element::DType;
use crate::error::{Error, Result};
use crate::kernel::expr::emit::{self, float_literal, Dialect};
use crate::kernel::expr::{check, Binary, CheckedExpr, Lit, Scalar, Stencil, Unary};

/// The WGSL dialect: `f32`, or `f16` when `half`.
pub(super) struct Wgsl {
    half: bool,
}

impl Wgsl {
    /// The WGSL type name of `T` and its dialect, or `None` where WGSL stencils have none.
    pub(super) fn of<T: Scalar>() -> Option<(&'static str, Wgsl)> {
        match T::DTYPE {
            DType::F32 => Some(("f32", Wgsl { half: false })),
            DType::F16 => Some(("f16", Wgsl { half: true })),
            _ => None,
        }
    }
}

impl Dialect for Wgsl {
    fn literal(&self, lit: Lit) -> String {
        let f32 = if lit.f32.is_infinite() {
            format!("bitcast<f32>({:#010x}u)", lit.f32.to_bits())
        } else {
            float_literal(format!("{:?}", lit.f32), "f")
        };
        if self.half {
            format!("f16({f32})")
        } else {
            f32
        }
    }

    fn function(&self, op: Unary) -> &'static str {
        match op {
            Unary::Sqrt => "sqrt",
            Unary::Exp => "exp",
            Unary::Ln => "log",
            Unary::Sin => "sin",
            Unary::Cos => "cos",
            Unary::Tanh => "tanh",
            Unary::Abs => "abs",
            Unary::Floor => "floor",
            Unary::Flush => "cn_flush",
            Unary::Neg | Unary::Not => unreachable!("operators, printed by emit"),
        }
    }

    fn function2(&self, op: Binary) -> &'static str {
        match op {
            Binary::Min => "min",
            Binary::Max => "max",
            _ => unreachable!("operators, printed by emit"),
        }
    }

    // The backend's `cn_powi` takes an `i32`; an unsuffixed WGSL integer would be abstract.
    // `2147483648i` is out of range, so `i32::MIN` is spelled as a difference.
    fn exponent(&self, n: i32) -> String {
        if n == i32::MIN {
            "(-2147483647i - 1i)".to_owned()
        } else {
            format!("{n}i")
        }
    }

    // WGSL's `select` takes the false value first and the condition last.
    fn select(&self, condition: &str, if_true: &str, if_false: &str) -> String {
        format!("select({if_false}, {if_true}, {condition})")
    }

    fn declare(&self, name: &str, _condition: bool, value: &str) -> String {
        format!("let {name} = {value};")
    }
}

/// The helper functions a generated shader calls, for element type `t` (`f32` or `f16`):
/// `cn_powi`, as the CPU computes `powi` (`cnda::stencil::powi`: `|n| - 1` products from the
/// left, the magnitude taken unsigned so `i32::MIN` is no overflow, then one division for
/// negative `n`), and `cn_flush`, as `Scalar::flush`: on the bits for `f32` (so the adapter's own
/// subnormal mode cannot change it), the identity for `f16` (no `f16` lies below `2^-126`).
pub(super) fn helpers(t: &str) -> String {
    let powi = format!(
        "\nfn cn_powi(x: {t}, n: i32) -> {t} {{\n    let m = select(u32(n), 0u - u32(n), n < 0);\n    var p = select(x, {t}(1), n == 0);\n    for (var k = 1u; k < m; k = k + 1u) {{ p = p * x; }}\n    if (n < 0) {{ return {t}(1) / p; }}\n    return p;\n}}\n"
    );
    let flush = if t == "f16" {
        "\nfn cn_flush(x: f16) -> f16 { return x; }\n".to_owned()
    } else {
        "\nfn cn_flush(x: f32) -> f32 {\n    let b = bitcast<u32>(x);\n    return select(x, bitcast<f32>(b & 0x80000000u), (b & 0x7f800000u) == 0u);\n}\n".to_owned()
    };
    powi + &flush
}

/// The storage binding of operand `slot` of an expression stencil: its outputs first, then its
/// fields (bindings 3 and 5 are the parameter block and the element scalars, `common.wgsl`'s).
pub(super) fn operand_binding(slot: usize) -> u32 {
    match slot {
        0..=2 => slot as u32,
        3 => 4,
        _ => slot as u32 + 2,
    }
}

/// The WGSL shader of `expr` over fields of element type `t`, computing in `c` with `dialect`
/// (entry point `expression`): one thread per output point loads every tap into `t{k}` (as `c`:
/// `f32(x)` of an `f16` field is exact), every parameter into `p{i}` (the element scalars are of
/// `c`), and stores each output's value (converted to `t`). Output `m` is operand `m` (binding
/// and descriptor), field `f` operand `outputs + f`; the taps' deltas follow the descriptors.
pub(super) fn expression_shader<const N: usize>(expr: &CheckedExpr<N>, t: &str, c: &str, dialect: &Wgsl) -> String {
    let outputs = expr.outputs();
    // f16 must be enabled before any declaration.
    let mut s = if t == "f16" || c == "f16" { "enable f16;\n".to_string() } else { String::new() };
    s.push_str(&COMMON.replace("ELEM", c));
    s.push('\n');
    for m in 0..outputs {
        let binding = operand_binding(m);
        s.push_str(&format!("@group(0) @binding({binding}) var<storage, read_write> out{m}: array<{t}>;\n"));
    }
    // Only fields some tap reads are bound (an unread binding would leave the pipeline's layout).
    let read = |f: &usize| expr.reads_field(*f);
    for f in (0..expr.fields()).filter(read) {
        let binding = operand_binding(outputs + f);
        s.push_str(&format!("@group(0) @binding({binding}) var<storage, read> f{f}: array<{t}>;\n"));
    }
    s.push_str(&helpers(c));
    s.push_str("\n@compute @workgroup_size(256)\nfn expression(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {\n    let i = flat_index(gid, groups);\n    if (i >= item_count()) { return; }\n");
    for f in (0..expr.fields()).filter(read) {
        s.push_str(&format!("    let c{f} = offset_of({}u, i);\n", outputs + f));
    }
    let descs = outputs + expr.fields();
    for (k, tap) in expr.taps().iter().enumerate() {
        s.push_str(&format!(
            "    let t{k} = {c}(f{}[c{} + params[scalar_word({descs}u, {k}u)]]);\n",
            tap.field, tap.field
        ));
    }
    for i in 0..expr.params() {
        s.push_str(&format!("    let p{i} = elems[{i}];\n"));
    }
    let (body, values) = emit::statements(expr, dialect, "    ");
    s.push_str(&body);
    for (m, value) in values.iter().enumerate() {
        s.push_str(&format!("    out{m}[offset_of({m}u, i)] = {t}({value});\n"));
    }
    s.push_str("}\n");
    s
}

/// The WGSL shader that applies stencil `S` in element type `T` (entry point `expression`),
/// generated from its checked data: what the first `apply` on a device builds, for reading or
/// for validating without an adapter.
///
/// # Errors
///
/// `Error::UnsupportedDType` when WGSL stencils have no `T` or no `S::Compute` (f64, bf16);
/// `Error::Layout` when `S`'s data does not pass [`check`](fn@check).
pub fn stencil_shader<S: Stencil<T, N>, T: Scalar, const N: usize>() -> Result<String> {
    let Some((t, _)) = Wgsl::of::<T>() else { return Err(unsupported::<T>("stencil_shader")) };
    let Some((c, dialect)) = Wgsl::of::<S::Compute>() else {
        return Err(unsupported_compute::<S::Compute>("stencil_shader"));
    };
    let expr = check::<S, T, N>("stencil_shader")?;
    Ok(expression_shader(&expr, t, c, &dialect))
}

/// The refusal of a stencil that binds more storage buffers (`buffers`: its outputs, the fields
/// it reads and the two parameter buffers) than the adapter allows one shader (`max`).
pub(super) fn too_many_buffers(op: &'static str, buffers: usize, max: u32) -> Result<()> {
    if buffers <= max as usize {
        return Ok(());
    }
    Err(Error::Limit {
        op,
        backend: "WebGPU",
        what: "the storage buffers of one shader (the stencil's outputs, the fields it reads, and 2)",
        got: buffers as u64,
        max: u64::from(max),
        fix: "split the stencil into stages with fewer fields, or combine coefficient fields into one beforehand",
    })
}

/// The refusal of an element type WGSL stencils do not compute in.
pub(super) fn unsupported<T: Scalar>(op: &'static str) -> Error {
    Error::UnsupportedDType {
        op,
        got: T::DTYPE.to_string(),
        fix: "WGSL stencils compute in f32, or f16 where the adapter has it; convert the fields, or apply on the CPU or CUDA",
    }
}

/// The refusal of a stencil over fields WGSL has that computes in a type it has not
/// (`#[compute(f64)]`).
pub(super) fn unsupported_compute<C: Scalar>(op: &'static str) -> Error {
    Error::UnsupportedDType {
        op,
        got: format!("{} as the type a stencil computes in (`#[compute(..)]`)", C::DTYPE),
        fix: "WGSL has no f64: drop `#[compute(f64)]` (or compute in f32) for WebGPU, or apply on the CPU or CUDA",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::expr::{Node, Tap};

    fn printed(half: bool, nodes: &'static [Node]) -> (String, String) {
        let taps: &'static [Tap<1>] = &[Tap { field: 0, offset: [0] }, Tap { field: 0, offset: [1] }];
        let (body, values) =
            emit::statements(&CheckedExpr::from_parts("test", 1, 1, taps, nodes).unwrap(), &Wgsl { half }, "");
        (body, values[0].clone())
    }

    #[test]
    fn select_takes_the_false_value_first() {
        const NODES: &[Node] = &[
            Node::Tap(0),
            Node::Tap(1),
            Node::Binary(Binary::Ne, 0, 1),
            Node::Lit(Lit { f64: 1.0, f32: 1.0 }),
            Node::Powi(1, -2),
            Node::Select(2, 3, 4),
            Node::Binary(Binary::Min, 5, 0),
        ];
        let (body, value) = printed(false, NODES);
        assert_eq!(
            body,
            "let v2 = (t0 != t1);\nlet v4 = cn_powi(t1, -2i);\nlet v5 = select(v4, 1.0f, v2);\nlet v6 = min(v5, t0);\n"
        );
        assert_eq!(value, "v6");
        assert!(printed(true, NODES).0.contains("select(v4, f16(1.0f), v2)"));
    }

    #[test]
    fn literals() {
        let w = Wgsl { half: false };
        assert_eq!(w.literal(Lit::new(1e-30)), "1e-30f");
        assert_eq!(w.literal(Lit::new(f32::MAX as f64)), "3.4028235e38f");
        assert_eq!(w.literal(Lit::new(-3.0)), "(-3.0f)");
        assert_eq!(w.literal(Lit { f64: 1e39, f32: f32::INFINITY }), "bitcast<f32>(0x7f800000u)");
        assert_eq!(w.exponent(i32::MIN), "(-2147483647i - 1i)");
    }
}
