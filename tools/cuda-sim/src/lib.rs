//! A CPU-hosted CUDA device: a shared library that exports the CUDA driver API entry points
//! cudarc 0.19 calls for cnda (and the cuBLAS GEMMs and cuFFT transforms cnda makes), so that cnda's CUDA backend
//! runs, kernel by kernel, on a machine without a GPU.
//!
//! - `driver/`: the `extern "C"` entry points (`cu*`, `cublas*`), one file per API area; none
//!   unwinds across the FFI boundary (`guard` turns a panic into an error code).
//! - `memory.rs`: the memory map: device memory is host memory handed out here, and every device
//!   address a copy or kernel touches must lie inside a live allocation.
//! - `ptx/`: the PTX text of a module parsed once into a compact form (resolved registers,
//!   labels and symbol addresses).
//! - `interp/`: the interpreter: grids of blocks of threads, one file per instruction family,
//!   and the checkers (shared-memory races and barriers, `race.rs`).
//! - `cublas.rs`: the GEMM stand-in.
//! - `cufft.rs`: the cuFFT stand-in: batched plans of the advanced layout, computed as direct
//!   sums (real transforms, not fakes).
//!
//! Work on a stream executes when it is enqueued, on the calling thread, under one device lock:
//! stream order holds trivially and every `cu*Synchronize` returns at once.
#![warn(clippy::undocumented_unsafe_blocks)]

pub mod cublas;
pub mod cufft;
pub mod driver;
pub mod error;
pub mod interp;
pub mod memory;
pub mod ptx;
