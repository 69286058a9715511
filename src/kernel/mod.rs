//! The kernel contract: everything a backend implements and everything a generic algorithm
//! calls, and nothing else. [`Backend`] and [`Allocator`] say where elements live and how memory
//! is obtained; [`Desc`] is what a kernel receives for one operand; [`tokens`] name the ops; one
//! kernel trait per op family ([`ElementwiseKernels`], [`CopyKernels`], [`ReduceKernels`],
//! [`MatmulKernels`], [`StencilKernels`], [`VectorKernels`], [`SparseKernels`]) and the transfer traits ([`WriteFromHost`],
//! [`Download`], [`Upload`]) state what a backend must do, with their safety contracts; the
//! host engine (`host`) names the loops host-side closures run on.
//!
//! This module imports only the foundation (elements, errors, shapes, geometry). Generic
//! algorithms (`ops`, `stencil`) import it and never a backend; backends (`backend/*`) import it
//! and never the algorithms.

mod alloc;
mod backend;
mod copy;
mod desc;
mod elementwise;
pub mod expr;
pub(crate) mod host;
mod matmul;
mod reduce;
mod sparse;
mod stencil;
pub mod tokens;
mod transfer;
mod vector;

pub(crate) use alloc::init_buffer;
pub use alloc::Allocator;
pub use backend::{Backend, Cpu, HostAccessible};
pub use copy::CopyKernels;
#[cfg(feature = "rayon")]
pub(crate) use desc::SharedDesc;
pub use desc::{complex_parts, Desc};
pub(crate) use desc::{merged2, merged3};
pub use elementwise::ElementwiseKernels;
pub use matmul::{GemmElement, MatmulKernels, Par};
pub use reduce::ReduceKernels;
pub use sparse::SparseKernels;
pub use stencil::{ExprStencilKernels, StencilKernels};
pub(crate) use transfer::try_zeroed_vec;
pub use transfer::{Download, HostStaging, Upload, WriteFromHost};
pub use vector::VectorKernels;
