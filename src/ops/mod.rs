//! Compute, written once for every backend: each op family is a generic algorithm (validation,
//! broadcasting, same-device check, output allocation, axis merging) over a kernel trait that a
//! backend implements ([`ElementwiseKernels`](crate::kernel::ElementwiseKernels)); ops are named
//! by [`tokens`](crate::kernel::tokens), and kernels receive [`Desc`](crate::kernel::Desc)s, all
//! from the contract layer [`crate::kernel`]. Closure APIs (`map`, `Zip`, reductions with
//! `fold_axis`) are host-only conveniences on top, run by the host engine
//! ([`HostEngine`](crate::kernel) on `Cpu`).

pub mod arith;
pub(crate) mod complex;
mod copies;
pub(crate) mod dot;
pub mod elementwise;
pub mod fill_copy;
pub(crate) mod map;
pub(crate) mod math;
pub mod matmul;
pub mod operand;
pub(crate) mod output;
#[cfg(feature = "rayon")]
pub(crate) mod par;
pub mod reduce;
pub mod transfer;
pub mod zip;
