//! The WGSL expression of a stencil, for `f32` or `f16` (WGSL has no `f64` or `bf16`).

use crate::device::{self, Dialect};
use crate::ir::{Func, Lit, Stencil};
use crate::literal;

/// The WGSL dialect: `f32`, or `f16` with literals converted from their `f32` value (as the host
/// rounds them: `f16::from_f32`).
struct Wgsl {
    half: bool,
}

impl Dialect for Wgsl {
    fn literal(&self, lit: Lit) -> String {
        if self.half {
            format!("f16({})", literal::wgsl_f32(lit.f32))
        } else {
            literal::wgsl_f32(lit.f32)
        }
    }

    fn function(&self, func: Func) -> &'static str {
        match func {
            Func::Sqrt => "sqrt",
            Func::Exp => "exp",
            Func::Ln => "log",
            Func::Sin => "sin",
            Func::Cos => "cos",
            Func::Tanh => "tanh",
            Func::Abs => "abs",
            Func::Floor => "floor",
            Func::Min => "min",
            Func::Max => "max",
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
}

/// The stencil's body as one WGSL `f32` expression over the locals `t{k}` (taps) and `p{i}` (parameters).
pub(crate) fn expression(stencil: &Stencil) -> String {
    device::print(&stencil.body, &Wgsl { half: false })
}

/// The same as an `f16` expression.
pub(crate) fn expression_f16(stencil: &Stencil) -> String {
    device::print(&stencil.body, &Wgsl { half: true })
}
