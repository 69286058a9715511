//! The WebGPU backend (feature `wgpu`): wgpu over Vulkan, which also runs on software adapters
//! such as Mesa's lavapipe, so CI executes it for real.
//!
//! - [`WgpuDevice`] (`device.rs`): the adapter's device and queue, pipelines built at first use,
//!   validation errors caught in error scopes; it is also the allocator of device arrays.
//! - [`WgpuBuffer`] / [`WgpuPtr`] (`buffer.rs`): storage buffers (refused beyond the adapter's
//!   binding limit) and the data handle views carry.
//! - `launch.rs`: the kernel traits of every op family, dispatching `kernels/*.wgsl`.
//! - `transfer.rs`: the bulk copies behind `to_device` and `to_host`.
//! - [`shaders`]: the WGSL sources, assembled per element type and validated by naga in tests.
//! - [`WgpuStencil2`] (`user.rs`): user stencils as WGSL expressions of the neighbours, checked
//!   to be pure arithmetic within the radius.
//!
//! Only kernels are new here: views, shapes, broadcasting and every op's algorithm are the
//! generic code every backend shares.

mod buffer;
mod device;
mod launch;
pub mod shaders;
mod transfer;
mod user;

pub use buffer::{WgpuBuffer, WgpuPtr};
pub use device::WgpuDevice;
pub use user::WgpuStencil2;

use super::{Allocator, Backend};
use crate::element::Pod;
use crate::error::Result;

/// The WebGPU backend: arrays in storage buffers, ops as compute shaders on the device's queue.
#[derive(Clone, Copy, Debug, Default)]
pub struct Wgpu;

impl Backend for Wgpu {
    const NAME: &'static str = "Wgpu";
    type Device = WgpuDevice;
    type Buffer<T: Pod> = WgpuBuffer<T>;
    type Handle<T: Pod> = WgpuPtr<T>;
    type Alloc = WgpuDevice;

    fn handle<T: Pod>(buf: &WgpuBuffer<T>, offset: isize) -> WgpuPtr<T> {
        buf.handle(offset)
    }

    fn handle_mut<T: Pod>(buf: &mut WgpuBuffer<T>, offset: isize) -> WgpuPtr<T> {
        buf.handle(offset)
    }

    fn moved<T: Pod>(handle: WgpuPtr<T>, offset: isize) -> WgpuPtr<T> {
        handle.moved(offset)
    }

    fn handle_device<T: Pod>(handle: WgpuPtr<T>) -> WgpuDevice {
        handle.device
    }

    fn allocator_of<T: Pod>(buf: &WgpuBuffer<T>) -> WgpuDevice {
        buf.device()
    }

    fn allocator_of_handle<T: Pod>(handle: WgpuPtr<T>) -> WgpuDevice {
        handle.device
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
