//! The CUDA backend (feature `cuda`), through cudarc with the CUDA libraries loaded at run time,
//! so the crate builds where no CUDA is installed; its tests run on a GPU or on the CPU-hosted
//! CUDA device (`tools/cuda-sim`), and print SKIP only where neither is there.
//!
//! - [`CudaDevice`] (`device.rs`): a GPU's context, stream and kernel cache, opened once per
//!   ordinal; it is also the allocator of device arrays (`Array::<f32, 2, Cuda>::zeros_in(&dev,
//!   shape)`).
//! - [`CudaBuffer`] / [`CudaPtr`] (`buffer.rs`): device memory and the data handle views carry.
//! - `dispatch.rs` (what every launch shares) and one file per op family with its kernel trait
//!   (`elementwise.rs`, `copy.rs`, `reduce.rs`, `stencil.rs`), launching `kernels/cuda/*.cu`;
//!   `matmul.rs`: matmul through cuBLAS, operands passed as they lie (a transposed view is not
//!   copied).
//! - `transfer.rs`: the bulk copies behind `to_device`, `to_host` and `to_backend`; large ones go
//!   through pinned staging blocks (`staging.rs`), chunked and overlapped with the host's copies.
//! - `stencil.rs` also runs `stencil!` stencils: a kernel generated from the stencil's checked
//!   expression data by `codegen.rs` (never from text a stencil supplies), compiled by NVRTC at
//!   first use and cached ([`stencil_source`]); `planes.rs` walks 3D stencils plane by plane
//!   (columns in registers, plane taps from shared tiles); `tiled.rs` advances several sweeps per
//!   launch.
//! - [`kernels`]: the kernel sources and their compilation by NVRTC.
//!
//! Views of device arrays are the same metadata-only views as on the CPU (one view algebra);
//! host-only operations (indexing, iteration) do not compile for `Cuda` arrays, and mixing
//! `Cuda` and `Cpu` operands does not either.

mod buffer;
mod codegen;
mod copy;
#[cfg(feature = "fft")]
pub(crate) mod cufft;
mod device;
mod dispatch;
mod elementwise;
pub mod kernels;
mod matmul;
mod pinned;
mod planes;
mod reduce;
mod sparse;
mod staging;
mod stencil;
mod tiled;
mod transfer;
mod vector;

pub use buffer::{CudaBuffer, CudaPtr};
pub use codegen::stencil_source;
pub use device::{CudaDevice, CudaDeviceBuilder};
pub use pinned::PinnedBuf;

use cudarc::driver::CudaSlice;

use super::{Allocator, Backend, DeviceAlloc, PooledDevice};
use crate::element::Pod;
use crate::error::{Error, Result};
use crate::pool::{BlockSource, Lease};

/// The CUDA backend: arrays in GPU memory, ops as kernels on the device's stream.
#[derive(Clone, Copy, Debug, Default)]
pub struct Cuda;

impl Backend for Cuda {
    const NAME: &'static str = "Cuda";
    type Device = CudaDevice;
    type Buffer<T: Pod> = CudaBuffer<T>;
    type Handle<T: Pod> = CudaPtr<T>;
    type Alloc = DeviceAlloc<CudaDevice>;

    fn handle<T: Pod>(buf: &CudaBuffer<T>, offset: isize) -> CudaPtr<T> {
        buf.handle(offset)
    }

    fn handle_mut<T: Pod>(buf: &mut CudaBuffer<T>, offset: isize) -> CudaPtr<T> {
        buf.handle(offset)
    }

    fn moved<T: Pod>(handle: CudaPtr<T>, offset: isize) -> CudaPtr<T> {
        handle.moved(offset)
    }

    fn part_handle<T: Pod, F: Pod>(handle: CudaPtr<T>) -> CudaPtr<F> {
        CudaPtr::new(handle.addr, handle.device)
    }

    fn handle_device<T: Pod>(handle: CudaPtr<T>) -> CudaDevice {
        handle.device
    }

    fn allocator_of<T: Pod>(buf: &CudaBuffer<T>) -> DeviceAlloc<CudaDevice> {
        buf.allocator()
    }

    fn allocator_of_handle<T: Pod>(handle: CudaPtr<T>) -> DeviceAlloc<CudaDevice> {
        DeviceAlloc::Device(handle.device)
    }
}

// SAFETY: `CudaBuffer::allocate` returns exactly `len` elements of device memory on this device,
// zeroed when asked, owned by the one buffer.
unsafe impl Allocator<Cuda> for CudaDevice {
    fn device(&self) -> CudaDevice {
        *self
    }

    fn try_alloc_zeroed<T: Pod>(&self, op: &'static str, len: usize) -> Result<CudaBuffer<T>> {
        CudaBuffer::allocate(*self, op, len, true)
    }

    unsafe fn try_alloc_for_overwrite<T: Pod>(&self, op: &'static str, len: usize) -> Result<CudaBuffer<T>> {
        CudaBuffer::allocate(*self, op, len, false)
    }
}

/// Pools of device memory (`Pool::for_device(&dev)`): blocks are device allocations, freed in
/// stream order. Reusing a block needs no synchronization: all of cnda's work on a device is
/// ordered on its one stream, so whatever read the block before is queued before its next use.
// SAFETY: `alloc_block` returns a fresh device allocation of exactly `bytes` bytes owned by the
// returned slice alone; freeing drops that slice (a stream-ordered free).
unsafe impl BlockSource for CudaDevice {
    type Backend = Cuda;
    type Block = CudaSlice<u8>;

    fn alloc_block(&self, op: &'static str, bytes: usize) -> Result<CudaSlice<u8>> {
        // SAFETY: pooled blocks are written before they are read (zeroed for `zeros_in`, written
        // in full by kernels otherwise: the `Allocator` contract).
        unsafe { self.stream().alloc::<u8>(bytes) }.map_err(|e| Error::Alloc {
            op,
            bytes,
            reason: format!("CUDA device {} (pooled block): {e:?}", self.ordinal()),
        })
    }

    unsafe fn free_block(&self, block: CudaSlice<u8>, _bytes: usize) {
        drop(block);
    }

    unsafe fn free_orphan(block: CudaSlice<u8>, _bytes: usize) {
        drop(block);
    }
}

// SAFETY: `CudaBuffer::leased` makes exactly `len` elements over the lease's block, zeroed in
// stream order when asked, and holds the lease until it drops.
unsafe impl PooledDevice for CudaDevice {
    fn leased_buffer<T: Pod>(
        &self,
        _op: &'static str,
        lease: Lease<CudaDevice>,
        len: usize,
        zeroed: bool,
    ) -> Result<CudaBuffer<T>> {
        CudaBuffer::leased(*self, lease, len, zeroed)
    }
}
