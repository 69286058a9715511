//! CUDA C++ from a stencil's checked expression data: the dialect (`float`, `double`, and the
//! 16-bit floats as `common.cuh`'s storage types, whose operators compute in `float` and round as
//! the host's `half` does), `powi` as the CPU computes it, and the per-point kernel's source.
//! Nothing here takes text from a stencil: every token comes from a checked node, a fixed
//! spelling below, or a number.

use crate::element::DType;
use crate::kernel::expr::emit::{self, float_literal, Dialect};
use crate::kernel::expr::{check, Binary, CheckedExpr, Lit, Node, Scalar, Stencil, Unary};

/// The CUDA element type a stencil computes in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum CudaType {
    /// `float`, for `f32`.
    Float,
    /// `double`, for `f64`.
    Double,
    /// `T` a 16-bit float: literals and math results converted to it (`T(..)`), so every
    /// operation rounds to it as on the host.
    Half,
}

impl CudaType {
    /// The CUDA type of element type `T`.
    pub(super) fn of<T: Scalar>() -> CudaType {
        match T::DTYPE {
            DType::F32 => CudaType::Float,
            DType::F16 | DType::BF16 => CudaType::Half,
            _ => CudaType::Double,
        }
    }
}

impl Dialect for CudaType {
    fn literal(&self, lit: Lit) -> String {
        let float = || match lit.f32.is_infinite() {
            true => format!("__int_as_float({:#010x})", lit.f32.to_bits()),
            false => float_literal(format!("{:?}", lit.f32), "f"),
        };
        match self {
            CudaType::Float => float(),
            CudaType::Half => format!("T({})", float()),
            CudaType::Double if lit.f64.is_infinite() => {
                format!("__longlong_as_double({:#018x}LL)", lit.f64.to_bits())
            }
            CudaType::Double => float_literal(format!("{:?}", lit.f64), ""),
        }
    }

    fn function(&self, op: Unary) -> &'static str {
        let (float, double) = match op {
            Unary::Sqrt => ("sqrtf", "sqrt"),
            Unary::Exp => ("expf", "exp"),
            Unary::Ln => ("logf", "log"),
            Unary::Sin => ("sinf", "sin"),
            Unary::Cos => ("cosf", "cos"),
            Unary::Tanh => ("tanhf", "tanh"),
            Unary::Abs => ("fabsf", "fabs"),
            Unary::Floor => ("floorf", "floor"),
            Unary::Flush => ("cn_flush", "cn_flush"),
            Unary::Neg | Unary::Not => unreachable!("operators, printed by emit"),
        };
        if *self == CudaType::Double {
            double
        } else {
            float
        }
    }

    fn function2(&self, op: Binary) -> &'static str {
        match (op, *self == CudaType::Double) {
            (Binary::Min, false) => "fminf",
            (Binary::Min, true) => "fmin",
            (Binary::Max, false) => "fmaxf",
            (Binary::Max, true) => "fmax",
            _ => unreachable!("operators, printed by emit"),
        }
    }

    fn call_wrap(&self) -> (&'static str, &'static str) {
        match self {
            CudaType::Half => ("T(", ")"),
            _ => ("", ""),
        }
    }

    fn declare(&self, name: &str, condition: bool, value: &str) -> String {
        format!("const {} {name} = {value};", if condition { "bool" } else { "T" })
    }
}

/// The statements that compute `expr` in `T` (after `indent`), and the local holding each
/// output's value.
pub(super) fn statements<T: Scalar, const N: usize>(expr: &CheckedExpr<N>, indent: &str) -> (String, Vec<String>) {
    emit::statements(expr, &CudaType::of::<T>(), indent)
}

/// The helper functions a generated kernel calls, for element type `T`: `cn_powi`, as the CPU
/// computes `powi` (`cnda::stencil::powi`: `|n| - 1` products from the left, the magnitude taken
/// unsigned so `i32::MIN` is no overflow, then one division for negative `n`), and `cn_flush`, as
/// `Scalar::flush` (on the bits, so NVRTC's own subnormal mode cannot change it; the 16-bit
/// floats through `float`, where they compute).
pub(super) fn helpers<T: Scalar>() -> String {
    const CN_POWI: &str = "__device__ __forceinline__ T cn_powi(T x, int n) {\n    const unsigned m = n < 0 ? 0u - (unsigned)n : (unsigned)n;\n    T p = n == 0 ? (T)1 : x;\n    for (unsigned k = 1; k < m; ++k) p = cnda_mul_rn(p, x);\n    return n < 0 ? (T)1 / p : p;\n}\n\n";
    format!("{CN_POWI}{}", flush_fn::<T>("cn_flush", "T"))
}

/// `Scalar::flush` of `X` as the device function `name` over the kernel's type `ty` (`T` or `S`).
fn flush_fn<X: Scalar>(name: &str, ty: &str) -> String {
    let body = match CudaType::of::<X>() {
        CudaType::Float => {
            "const unsigned b = __float_as_uint(x);\n    return (b & 0x7f800000u) == 0u ? __uint_as_float(b & 0x80000000u) : x;".to_owned()
        }
        CudaType::Double => "const unsigned long long b = (unsigned long long)__double_as_longlong(x);\n    return (b & 0x7ff0000000000000ULL) == 0ULL ? __longlong_as_double((long long)(b & 0x8000000000000000ULL)) : x;".to_owned(),
        CudaType::Half => format!(
            "const unsigned b = __float_as_uint((float)x);\n    return (b & 0x7f800000u) == 0u ? {ty}(__uint_as_float(b & 0x80000000u)) : x;"
        ),
    };
    format!("__device__ __forceinline__ {ty} {name}({ty} x) {{\n    {body}\n}}\n\n")
}

/// How output `m`'s `value` (of the compute type) is stored: rounded to `S`, and where the
/// stencil flushes it and computes in a wider type, flushed again in `S` (an f64 below 2^-126
/// narrows to an f32 subnormal), as `stencil!`'s CPU code stores it.
pub(super) fn stored<T: Scalar, C: Scalar, const N: usize>(expr: &CheckedExpr<N>, m: usize, value: &str) -> String {
    let flushed = matches!(expr.nodes()[expr.values()[m]], Node::Unary(Unary::Flush, _));
    if T::DTYPE != C::DTYPE && flushed {
        format!("cn_store((S)({value}))")
    } else {
        format!("(S)({value})")
    }
}

/// The C type of a stencil element type (the 16-bit floats are `common.cuh`'s storage types).
pub(super) fn c_type<T: Scalar>() -> &'static str {
    match T::DTYPE {
        DType::F32 => "float",
        DType::F16 => "f16",
        DType::BF16 => "bf16",
        _ => "double",
    }
}

/// The opening of a generated kernel's source: `T` the type it computes in (`C`), `S` the type
/// its fields and outputs hold (`T` of the stencil), and the helpers in `C`. A tap's value is
/// `(T)(load)`, exact; a stored value `(S)(value)`, rounded to nearest even (`cvt.rn`, or the
/// 16-bit types' constructor).
pub(super) fn prelude<T: Scalar, C: Scalar>() -> String {
    let store = if T::DTYPE != C::DTYPE { flush_fn::<T>("cn_store", "S") } else { String::new() };
    format!("typedef {} T;\ntypedef {} S;\n\n{}{store}", c_type::<C>(), c_type::<T>(), helpers::<C>())
}

/// The CUDA source of the per-point kernel of `expr` over fields of `T`, computing in `C`: one
/// thread per output point (grid-stride loops, [`point_loops`]) loads every tap into `t{k}`
/// (field offset plus the tap's delta, one kernel argument each), every parameter arrives as
/// `p{i}`, and it stores each output's value (output `m` through `out{m}` and its descriptor
/// `o{m}`, all of one shape), compiled without fused multiply-adds (`--fmad=false`) as every
/// cnda kernel is.
pub(super) fn expression_source<T: Scalar, C: Scalar, const N: usize>(expr: &CheckedExpr<N>) -> String {
    let mut s = prelude::<T, C>();
    s.push_str(&signature(expr, "cnda_expression"));
    s.push_str(") {\n");
    // Output 0 gives the shape; the others and the fields some tap reads carry offsets.
    let mut operands: Vec<String> = (1..expr.outputs()).map(|m| format!("o{m}")).collect();
    operands.extend((0..expr.fields()).filter(|&f| expr.reads_field(f)).map(|f| format!("d{f}")));
    s.push_str(&point_loops(N, &operands));
    for (k, tap) in expr.taps().iter().enumerate() {
        s.push_str(&format!("        const T t{k} = (T)(f{}[c_d{} + delta{k}]);\n", tap.field, tap.field));
    }
    let (body, values) = statements::<C, N>(expr, "        ");
    s.push_str(&body);
    for (m, value) in values.iter().enumerate() {
        let at = if m == 0 { "at".to_string() } else { format!("c_o{m}") };
        s.push_str(&format!("        out{m}[{at}] = {};\n", stored::<T, C, N>(expr, m, value)));
    }
    s.push_str("    }}}\n}\n");
    s
}

/// The opening of a point kernel's declaration, its parameter list left open: output `m` as
/// `out{m}` with descriptor `o{m}`, field `f` as `f{f}` with `d{f}` (both of the storage type
/// `S`), tap `k`'s delta (its offset in elements of its field) as `delta{k}`, parameter `i` as
/// `p{i}` (of the compute type `T`; see [`prelude`]). The pointers are
/// `__restrict__` (the fields read through the read-only cache): the outputs overlap no field
/// and one another (`ExprStencilKernels::expression`'s contract), and fields that alias are
/// only read.
pub(super) fn signature<const N: usize>(expr: &CheckedExpr<N>, name: &str) -> String {
    let outputs: Vec<String> = (0..expr.outputs()).map(|m| format!("S *__restrict__ out{m}, Desc o{m}")).collect();
    let mut s = format!("extern \"C\" __global__ void {name}({}", outputs.join(", "));
    for f in 0..expr.fields() {
        s.push_str(&format!(", const S *__restrict__ f{f}, Desc d{f}"));
    }
    for k in 0..expr.taps().len() {
        s.push_str(&format!(", i64 delta{k}"));
    }
    for i in 0..expr.params() {
        s.push_str(&format!(", T p{i}"));
    }
    s
}

/// The loops of a rank-`rank` expression kernel over `o0.shape`, opening three blocks the caller
/// closes: the last axis on the launch's x (consecutive threads, consecutive elements), the one
/// before on y, the others folded onto z, each grid-stride so any shape fits the launch limits.
/// Inside, `at` is output 0's offset and `c_{d}` that of each descriptor `d` of `operands` (of
/// the same shape), sums of index times stride: no division per point, only per z row past
/// rank 3 (the flat-index kernel before took two 64-bit divisions per axis per operand per
/// point; 2D stencils ran 1.7x faster without them on an H200, docs/BENCHMARKS.md).
fn point_loops(rank: usize, operands: &[String]) -> String {
    let lead = rank.saturating_sub(2);
    let rows: String = (0..lead).map(|k| format!(" * o0.shape[{k}]")).collect();
    let mut s = format!("    const i64 nz = 1{rows};\n");
    s.push_str("    for (i64 z = blockIdx.z; z < nz; z += gridDim.z) {\n    i64 az = o0.offset, rest = z;\n");
    for d in operands {
        s.push_str(&format!("    i64 z_{d} = {d}.offset;\n"));
    }
    // The first axis's index is what the others leave: no division at rank 3 (one per axis
    // past it), which matters as each thread computes one point.
    for k in (0..lead).rev() {
        let index = match k {
            0 => "const i64 i = rest;".to_string(),
            _ => format!("const i64 i = rest % o0.shape[{k}]; rest /= o0.shape[{k}];"),
        };
        s.push_str(&format!("    {{ {index} az += i * o0.strides[{k}];"));
        for d in operands {
            s.push_str(&format!(" z_{d} += i * {d}.strides[{k}];"));
        }
        s.push_str(" }\n");
    }
    // The y loop, then the x loop inside it, each carrying the offsets one axis further (output
    // 0's `az` to `ay` to `at`, operand d's `z_d` to `y_d` to `c_d`); below rank 2 the y loop
    // (below rank 1 the x loop) makes one pass with index 0.
    let loops =
        [("y", ("az", "z"), ("ay", "y"), rank.checked_sub(2)), ("x", ("ay", "y"), ("at", "c"), rank.checked_sub(1))];
    for (v, from, to, axis) in loops {
        let step = |d: &str| axis.map_or(String::new(), |k| format!(" * {d}.strides[{k}]"));
        let len = axis.map_or("1".to_string(), |k| format!("o0.shape[{k}]"));
        s.push_str(&format!(
            "    for (i64 {v} = (i64)blockIdx.{v} * blockDim.{v} + threadIdx.{v}; {v} < {len}; {v} += (i64)gridDim.{v} * blockDim.{v}) {{\n"
        ));
        s.push_str(&format!("        const i64 {} = {} + {v}{};\n", to.0, from.0, step("o0")));
        for d in operands {
            s.push_str(&format!("        const i64 {}_{d} = {}_{d} + {v}{};\n", to.1, from.1, step(d)));
        }
    }
    s
}

/// The CUDA source of the kernel that applies stencil `S` in element type `T` (compiled after
/// `kernels/cuda/common.cuh`), generated from its checked data: what the first `apply` on a
/// device compiles, for reading or for compiling without a device.
///
/// # Errors
///
/// `Error::Layout` when `S`'s data does not pass [`check`](fn@check).
pub fn stencil_source<S: Stencil<T, N>, T: Scalar, const N: usize>() -> crate::error::Result<String> {
    Ok(expression_source::<T, S::Compute, N>(&check::<S, T, N>("stencil_source")?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::expr::{Node, Tap};

    fn printed(ty: CudaType, nodes: &'static [Node]) -> (String, String) {
        let taps: &'static [Tap<1>] = &[Tap { field: 0, offset: [0] }, Tap { field: 0, offset: [1] }];
        let expr = CheckedExpr::from_parts("test", 1, 1, taps, nodes).unwrap();
        let (body, values) = emit::statements(&expr, &ty, "");
        (body, values[0].clone())
    }

    #[test]
    fn literals_by_type_and_by_bits_when_infinite() {
        let lit = |x: f64| CudaType::Double.literal(Lit::new(x));
        assert_eq!(lit(0.1), "0.1");
        assert_eq!(lit(4.0), "4.0");
        assert_eq!(lit(-2.5), "(-2.5)");
        assert_eq!(lit(1e-300), "1e-300");
        assert_eq!(lit(f64::INFINITY), "__longlong_as_double(0x7ff0000000000000LL)");
        assert_eq!(lit(f64::NEG_INFINITY), "__longlong_as_double(0xfff0000000000000LL)");
        assert_eq!(CudaType::Float.literal(Lit::new(0.1)), "0.1f");
        assert_eq!(CudaType::Float.literal(Lit::new(-0.0)), "(-0.0f)");
        assert_eq!(CudaType::Float.literal(Lit::new(1e39)), "__int_as_float(0x7f800000)");
        assert_eq!(CudaType::Half.literal(Lit::new(4.0)), "T(4.0f)");
    }

    #[test]
    fn one_local_per_operation_in_node_order() {
        const HEAT: &[Node] = &[
            Node::Tap(0),
            Node::Param(0),
            Node::Tap(1),
            Node::Lit(Lit { f64: 4.0, f32: 4.0 }),
            Node::Binary(Binary::Mul, 3, 0),
            Node::Binary(Binary::Sub, 2, 4),
            Node::Binary(Binary::Mul, 1, 5),
            Node::Unary(Unary::Sqrt, 6),
            Node::Binary(Binary::Max, 0, 7),
        ];
        let (body, value) = printed(CudaType::Float, HEAT);
        assert_eq!(
            body,
            "const T v4 = (4.0f * t0);\nconst T v5 = (t1 - v4);\nconst T v6 = (p0 * v5);\nconst T v7 = sqrtf(v6);\nconst T v8 = fmaxf(t0, v7);\n"
        );
        assert_eq!(value, "v8");
        let (body, _) = printed(CudaType::Half, HEAT);
        assert!(body.contains("(T(4.0f) * t0)") && body.contains("T(sqrtf(v6))") && body.contains("T(fmaxf(t0, v7))"));
        assert!(printed(CudaType::Double, HEAT).0.contains("const T v8 = fmax(t0, v7);"));
    }

    #[test]
    fn conditions_select_and_powi() {
        const NODES: &[Node] = &[
            Node::Tap(0),
            Node::Param(0),
            Node::Binary(Binary::Gt, 0, 1),
            Node::Unary(Unary::Not, 2),
            Node::Binary(Binary::Or, 2, 3),
            Node::Powi(0, i32::MIN),
            Node::Unary(Unary::Neg, 0),
            Node::Select(4, 5, 6),
        ];
        let (body, value) = printed(CudaType::Double, NODES);
        assert_eq!(
            body,
            "const bool v2 = (t0 > p0);\nconst bool v3 = (!v2);\nconst bool v4 = (v2 || v3);\nconst T v5 = cn_powi(t0, (-2147483647 - 1));\nconst T v6 = (-t0);\nconst T v7 = (v4 ? v5 : v6);\n"
        );
        assert_eq!(value, "v7");
        // A leaf as the value is spelled in place.
        assert_eq!(printed(CudaType::Float, &[Node::Tap(1)]), (String::new(), "t1".to_owned()));
    }
}
