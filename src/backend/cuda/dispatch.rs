//! What every CUDA kernel launch shares: the `#[repr(C)]` descriptors the kernels take (and their
//! `MAX_RANK`/`MAX_TAPS`, defined once here), the element type's kernel suffix, the op families'
//! indices into `kernels::FAMILIES`, and the `launch!` of a grid-stride kernel on the device's
//! stream. The op families' kernel traits (`elementwise.rs`, `copy.rs`, `reduce.rs`,
//! `stencil.rs`, `sparse.rs`, `vector.rs`; `matmul.rs` for matmul) build on it.

use cudarc::driver::DeviceRepr;

use super::device::device_error;
use super::Cuda;
use crate::element::Pod;
use crate::error::{Error, Result};
use crate::kernel::Desc;

/// The most axes a kernel descriptor holds (`CNDA_MAX_RANK` in `kernels/cuda/common.cuh`).
pub(super) const MAX_RANK: usize = 8;
/// The most taps of a device stencil (`CNDA_MAX_TAPS` in `kernels/cuda/stencil.cu`).
pub(super) const MAX_TAPS: usize = 64;

/// Threads per block of every launch (`CNDA_BLOCK` in `kernels/cuda/common.cuh`: the block folds'
/// shared-memory trees are that long).
pub(super) const BLOCK: u32 = 256;

pub(super) const ELEMENTWISE: usize = 0;
pub(super) const COPY: usize = 1;
pub(super) const REDUCE: usize = 2;
pub(super) const STENCIL: usize = 3;
pub(super) const SPARSE: usize = 4;
pub(super) const VECTOR: usize = 5;

/// The kernels' `Desc`: `#[repr(C)]` as in `kernels/cuda/common.cuh` (8 + 64 + 64 + 4 bytes, padded
/// to 144).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub(super) struct KernelDesc {
    offset: i64,
    shape: [i64; MAX_RANK],
    strides: [i64; MAX_RANK],
    rank: i32,
    padding: i32,
}

// SAFETY: a plain `#[repr(C)]` struct of integers with the layout of the kernels' `Desc`.
unsafe impl DeviceRepr for KernelDesc {}

// The sizes the C structs have (`Desc`: 8 + 64 + 64 + 4 bytes padded to 8; `Taps<T>`: 64 deltas,
// 64 weights and a count, padded to 8), checked at compile time.
const _: () = assert!(core::mem::size_of::<KernelDesc>() == 144);
const _: () = assert!(core::mem::size_of::<KernelTaps<f64>>() == 1032);
const _: () = assert!(core::mem::size_of::<KernelTaps<f32>>() == 776);
const _: () = assert!(core::mem::size_of::<KernelTaps<half::f16>>() == 648);

/// The kernels' `Taps<T>` (`kernels/cuda/stencil.cu`).
#[repr(C)]
#[derive(Clone, Copy)]
pub(super) struct KernelTaps<T> {
    pub(super) delta: [i64; MAX_TAPS],
    pub(super) weight: [T; MAX_TAPS],
    pub(super) count: i32,
}

// SAFETY: `#[repr(C)]` with the layout of `Taps<T>` for the f32, f64, f16 and bf16 it is built
// for (the 16-bit types are one `unsigned short` in the kernels, as in `half`).
unsafe impl<T: Pod> DeviceRepr for KernelTaps<T> {}

/// The address and kernel descriptor of an operand (its address is element `[0; N]`'s, so the
/// descriptor's offset is 0).
pub(super) fn kernel_desc<T: Pod, const N: usize>(d: &Desc<Cuda, T, N>) -> Result<(u64, KernelDesc)> {
    if N > MAX_RANK {
        return Err(Error::rank_limit("CUDA", N, MAX_RANK));
    }
    let mut k = KernelDesc { offset: 0, shape: [1; MAX_RANK], strides: [0; MAX_RANK], rank: N as i32, padding: 0 };
    for axis in 0..N {
        k.shape[axis] = d.shape[axis] as i64;
        k.strides[axis] = d.strides[axis] as i64;
    }
    Ok((d.handle.addr, k))
}

/// The address and kernel descriptor of an operand's rows (every axis but the last), for kernels
/// that walk each row's elements directly (`_rows` forms: the caller checks that the last axis has
/// unit stride). With rank 0 the descriptor addresses the one row at its start.
pub(super) fn kernel_rows<T: Pod, const N: usize>(d: &Desc<Cuda, T, N>) -> Result<(u64, KernelDesc)> {
    let (addr, mut k) = kernel_desc(d)?;
    // The kernels read only the first `rank` axes.
    k.rank = N.saturating_sub(1) as i32;
    Ok((addr, k))
}

/// The kernel-name suffix of element type `T` (its `DTYPE`'s name in the kernel files), or
/// `Error::UnsupportedDType`: the CUDA backend's one element-type map.
pub(super) fn suffix<T: Pod>(op: &'static str) -> Result<&'static str> {
    use crate::element::DType;
    match crate::element::dtype_of::<T>() {
        Some(DType::F32) => Ok("f32"),
        Some(DType::F64) => Ok("f64"),
        Some(DType::I32) => Ok("i32"),
        Some(DType::I64) => Ok("i64"),
        Some(DType::F16) => Ok("f16"),
        Some(DType::BF16) => Ok("bf16"),
        Some(DType::C64) => Ok("c64"),
        Some(DType::C128) => Ok("c128"),
        _ => Err(Error::UnsupportedDType {
            op,
            got: core::any::type_name::<T>().into(),
            fix: "CUDA kernels exist for f32, f64, i32, i64, Complex<f32>, Complex<f64>, and (without float math or matmul) f16 and bf16; convert on the host first",
        }),
    }
}

pub(super) fn launch_error(name: &str) -> impl Fn(cudarc::driver::DriverError) -> Error + '_ {
    move |e| device_error(format!("launching {name}: {e:?}"))
}

/// Whether every descriptor is one dense row-major block of the same shape.
pub(super) fn all_contiguous<T: Pod, const N: usize>(ds: &[&Desc<Cuda, T, N>]) -> bool {
    ds.iter().all(|d| d.is_contiguous() && d.shape == ds[0].shape)
}

/// Launches `$name` of family `$family` (element type `$t`) over `$n` grid-stride items with the
/// given arguments.
macro_rules! launch {
    ($dev:expr, $family:expr, $t:expr, $name:expr, $n:expr, [$($arg:expr),* $(,)?]) => {{
        let dev: &CudaDevice = $dev;
        let name: &str = &$name;
        let function = dev.function(&FAMILIES[$family], $t, name)?;
        #[cfg(feature = "tracing")]
        tracing::trace!(target: "cnda::cuda", kernel = name, items = $n, device = dev.ordinal(), "launch");
        let mut builder = dev.stream().launch_builder(&function);
        $(builder.arg($arg);)*
        // SAFETY: the arguments match the kernel's parameters in order and type (the kernel is
        // chosen by the name built from the same element type), and every address the
        // descriptors reach is live device memory on this stream (the kernel traits' contracts).
        unsafe { builder.launch(dev.grid($n)) }.map_err(launch_error(name))?;
    }};
}
pub(super) use launch;

/// A scalar kernel argument of element type `T`.
#[repr(transparent)]
#[derive(Clone, Copy)]
pub(super) struct Scalar<T>(pub(super) T);

// SAFETY: one `T` of the f32/f64/i32/i64/f16/bf16/c64/c128 the kernels take by value (`suffix`
// chose the kernel by the same type; the 16-bit types are one `unsigned short` on both sides, the
// complex ones `{ re, im }` of two floats on both sides).
unsafe impl<T: Pod> DeviceRepr for Scalar<T> {}
