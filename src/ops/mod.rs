//! CPU compute: the lane engine, elementwise maps and operators, lockstep iteration, reductions,
//! matrix products and parallel variants. Each op is written once over views; arrays forward.

pub mod arith;
pub(crate) mod lanes;
mod map;
mod reduce;
