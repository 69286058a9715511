//! The CUDA backend (feature `cuda`, through cudarc with the CUDA libraries loaded at run time,
//! so the crate builds and its tests run where no CUDA is installed).
//!
//! This first part holds the kernel sources (`kernels/*.cu`, one file per op family) and their
//! compilation by NVRTC to PTX or CUBIN for a given architecture; CI compiles every kernel for
//! sm_80 and sm_90 with NVRTC from PyPI, so a broken kernel fails the test suite on a machine
//! without a GPU. The `Cuda` backend type (device handle, buffers, transfers, and the kernel-trait
//! implementations that launch these kernels) builds on it.

pub mod kernels;
