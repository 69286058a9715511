//! CPU compute: the lane engine, elementwise maps and operators, lockstep iteration, reductions,
//! matrix products and parallel variants. Each op is written once over views; arrays forward.

pub mod arith;
pub(crate) mod dot;
pub(crate) mod lanes;
pub(crate) mod map;
pub(crate) mod math;
pub mod matmul;
#[cfg(feature = "rayon")]
pub(crate) mod par;
pub(crate) mod reduce;
pub mod zip;
