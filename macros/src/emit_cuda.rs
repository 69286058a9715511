//! The CUDA C++ expression of a stencil, for `float`, `double`, or the 16-bit floats (`f16`,
//! `bf16`: storage types whose operators compute in `float` and round, as the `half` crate does).

use crate::device::{self, Dialect};
use crate::ir::{Func, Lit, Stencil};
use crate::literal;

/// The CUDA element type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CudaType {
    /// `float`, for `f32`.
    Float,
    /// `double`, for `f64`.
    Double,
    /// `T` a 16-bit float: literals and math results converted to it (`T(..)`), so every
    /// operation rounds to it as on the host.
    Half,
}

impl Dialect for CudaType {
    fn literal(&self, lit: Lit) -> String {
        match self {
            CudaType::Float => literal::cuda_float(lit.f32),
            CudaType::Double => literal::cuda_double(lit.f64),
            CudaType::Half => format!("T({})", literal::cuda_float(lit.f32)),
        }
    }

    fn function(&self, func: Func) -> &'static str {
        let (float, double) = match func {
            Func::Sqrt => ("sqrtf", "sqrt"),
            Func::Exp => ("expf", "exp"),
            Func::Ln => ("logf", "log"),
            Func::Sin => ("sinf", "sin"),
            Func::Cos => ("cosf", "cos"),
            Func::Tanh => ("tanhf", "tanh"),
            Func::Abs => ("fabsf", "fabs"),
            Func::Floor => ("floorf", "floor"),
            Func::Min => ("fminf", "fmin"),
            Func::Max => ("fmaxf", "fmax"),
        };
        match self {
            CudaType::Float | CudaType::Half => float,
            CudaType::Double => double,
        }
    }

    // `-2147483648` would negate a `long` literal, so `INT_MIN` is spelled as a difference.
    fn exponent(&self, n: i32) -> String {
        if n == i32::MIN {
            "(-2147483647 - 1)".to_owned()
        } else {
            n.to_string()
        }
    }

    fn select(&self, condition: &str, if_true: &str, if_false: &str) -> String {
        format!("({condition} ? {if_true} : {if_false})")
    }

    fn call_wrap(&self) -> (&'static str, &'static str) {
        match self {
            CudaType::Half => ("T(", ")"),
            _ => ("", ""),
        }
    }
}

/// The stencil's body as one CUDA C++ expression over the locals `t{k}` (taps) and `p{i}` (parameters).
pub(crate) fn expression(stencil: &Stencil, ty: CudaType) -> String {
    device::print(&stencil.body, &ty)
}
