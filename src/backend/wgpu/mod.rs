//! The WebGPU backend (feature `wgpu`): wgpu over Vulkan, which also runs on software adapters
//! such as Mesa's lavapipe, so CI executes it for real.
//!
//! - [`WgpuDevice`] (`device.rs`): the adapter's device and queue, pipelines built at first use,
//!   validation errors caught in error scopes; it is also the allocator of device arrays.
//! - [`WgpuBuffer`] / [`WgpuPtr`] (`buffer.rs`): storage buffers (refused beyond the adapter's
//!   binding limit) and the data handle views carry.
//! - `dispatch.rs` (what every launch shares) and one file per op family with its kernel trait
//!   (`elementwise.rs`, `copy.rs`, `reduce.rs`, `matmul.rs`, `stencil.rs`), dispatching
//!   `kernels/wgpu/*.wgsl`.
//! - `transfer.rs`: the bulk copies behind `to_device` and `to_host`.
//! - [`shaders`]: the WGSL sources, assembled per element type and validated by naga in tests.
//! - `stencil.rs` also runs `stencil!` stencils: a shader generated from the stencil's checked
//!   expression data by `codegen.rs` (never from text a stencil supplies), built at first use and
//!   cached ([`stencil_shader`]); `tiled.rs` advances several sweeps per dispatch.
//!
//! Only kernels are new here: views, shapes, broadcasting and every op's algorithm are the
//! generic code every backend shares.

mod buffer;
mod codegen;
mod copy;
mod device;
mod dispatch;
mod elementwise;
mod matmul;
mod reduce;
pub mod shaders;
mod sparse;
mod stencil;
#[cfg(feature = "fft")]
pub(crate) mod stockham;
mod tiled;
mod transfer;

pub use buffer::{WgpuBuffer, WgpuPtr};
pub use codegen::stencil_shader;
pub use device::WgpuDevice;

use device::device_error;

use super::{Allocator, Backend, DeviceAlloc, PooledDevice};
use crate::element::Pod;
use crate::error::Result;
use crate::pool::{BlockSource, Lease};

/// The WebGPU backend: arrays in storage buffers, ops as compute shaders on the device's queue.
#[derive(Clone, Copy, Debug, Default)]
pub struct Wgpu;

impl Backend for Wgpu {
    const NAME: &'static str = "Wgpu";
    type Device = WgpuDevice;
    type Buffer<T: Pod> = WgpuBuffer<T>;
    type Handle<T: Pod> = WgpuPtr<T>;
    type Alloc = DeviceAlloc<WgpuDevice>;

    fn handle<T: Pod>(buf: &WgpuBuffer<T>, offset: isize) -> WgpuPtr<T> {
        buf.handle(offset)
    }

    fn handle_mut<T: Pod>(buf: &mut WgpuBuffer<T>, offset: isize) -> WgpuPtr<T> {
        buf.handle(offset)
    }

    fn moved<T: Pod>(handle: WgpuPtr<T>, offset: isize) -> WgpuPtr<T> {
        handle.moved(offset)
    }

    fn part_handle<T: Pod, F: Pod>(handle: WgpuPtr<T>) -> WgpuPtr<F> {
        handle.as_parts()
    }

    fn handle_device<T: Pod>(handle: WgpuPtr<T>) -> WgpuDevice {
        handle.device
    }

    fn allocator_of<T: Pod>(buf: &WgpuBuffer<T>) -> DeviceAlloc<WgpuDevice> {
        buf.allocator()
    }

    fn allocator_of_handle<T: Pod>(handle: WgpuPtr<T>) -> DeviceAlloc<WgpuDevice> {
        DeviceAlloc::Device(handle.device)
    }
}

// SAFETY: `WgpuBuffer::allocate` returns a buffer of exactly `len` elements (zero-initialized by
// WebGPU) on this device, owned by the one buffer.
unsafe impl Allocator<Wgpu> for WgpuDevice {
    fn device(&self) -> WgpuDevice {
        *self
    }

    fn try_alloc_zeroed<T: Pod>(&self, op: &'static str, len: usize) -> Result<WgpuBuffer<T>> {
        WgpuBuffer::allocate(*self, op, len)
    }

    unsafe fn try_alloc_for_overwrite<T: Pod>(&self, op: &'static str, len: usize) -> Result<WgpuBuffer<T>> {
        WgpuBuffer::allocate(*self, op, len)
    }
}

/// Pools of device memory (`Pool::for_device(&dev)`): blocks are storage buffers. Reusing one
/// needs no synchronization: all of cnda's work on the device is submitted to its one queue in
/// order, so whatever read a block before runs before its next use.
// SAFETY: `alloc_block` creates a new storage buffer of exactly `bytes` bytes, owned by the
// returned box alone; freeing drops that box.
unsafe impl BlockSource for WgpuDevice {
    type Backend = Wgpu;
    type Block = Box<wgpu::Buffer>;

    fn alloc_block(&self, op: &'static str, bytes: usize) -> Result<Box<wgpu::Buffer>> {
        if bytes as u64 > self.max_binding_bytes() {
            return Err(device_error(format!(
                "{op}: a pool serves this array from a block of {bytes} bytes (its power-of-two size class), beyond the largest buffer the adapter ({}) can bind, {} bytes; allocate the array from the device itself (`zeros_in(&dev, ..)`)",
                self.adapter(),
                self.max_binding_bytes()
            )));
        }
        buffer::storage_buffer(*self, op, bytes)
    }

    unsafe fn free_block(&self, block: Box<wgpu::Buffer>, _bytes: usize) {
        drop(block);
    }

    unsafe fn free_orphan(block: Box<wgpu::Buffer>, _bytes: usize) {
        drop(block);
    }
}

// SAFETY: `WgpuBuffer::leased` makes exactly `len` elements over the lease's block, cleared on
// the queue when asked, and holds the lease until it drops.
unsafe impl PooledDevice for WgpuDevice {
    fn leased_buffer<T: Pod>(
        &self,
        op: &'static str,
        lease: Lease<WgpuDevice>,
        len: usize,
        zeroed: bool,
    ) -> Result<WgpuBuffer<T>> {
        WgpuBuffer::leased(*self, op, lease, len, zeroed)
    }
}
