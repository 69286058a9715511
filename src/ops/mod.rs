//! Compute, written once for every backend: each op family is a generic algorithm (validation,
//! broadcasting, same-device check, output allocation, axis merging) over a kernel trait that a
//! backend implements ([`elementwise::ElementwiseKernels`]); ops are named by [`tokens`], and
//! kernels receive [`desc::Desc`]s. The CPU's kernels drive the lane engine (`lanes`); closure
//! APIs (`map`, `Zip`, reductions with `fold_axis`) are host-only conveniences on top.

pub mod arith;
pub mod desc;
pub(crate) mod dot;
pub mod elementwise;
pub mod fill_copy;
pub(crate) mod lanes;
pub(crate) mod map;
pub(crate) mod math;
pub mod matmul;
pub(crate) mod output;
#[cfg(feature = "rayon")]
pub(crate) mod par;
pub mod reduce;
pub mod tokens;
pub mod zip;
