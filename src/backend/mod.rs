//! Backends: one folder each, implementing the kernel contract of [`crate::kernel`] for one place
//! where elements live: [`cpu`] (host memory, the lane engine, SIMD dispatch, rayon), `cuda`
//! (cudarc, NVRTC-compiled kernels, cuBLAS) and `wgpu` (WGSL compute shaders). Every backend
//! folder has the same files for the same op families (`elementwise.rs`, `copy.rs`, `reduce.rs`,
//! `matmul.rs`, `stencil.rs` beside `device.rs`/`buffer.rs`/`transfer.rs`); a backend imports the
//! contract and the memory pools, never the generic algorithms (`ops`, `stencil`) or the
//! containers (`array`, `view`).

#[cfg(all(test, any(feature = "cuda", feature = "wgpu")))]
mod complex_refusals;
pub mod cpu;
#[cfg(feature = "cuda")]
pub mod cuda;
mod device_alloc;
#[cfg(any(feature = "cuda", feature = "wgpu"))]
pub(crate) mod tiling;
#[cfg(feature = "wgpu")]
pub mod wgpu;

pub use crate::kernel::{Allocator, Backend, Cpu, HostAccessible};
pub use device_alloc::{DeviceAlloc, PooledDevice};
