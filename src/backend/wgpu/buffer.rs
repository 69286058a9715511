//! [`WgpuBuffer`]: a storage buffer for `len` elements, and [`WgpuPtr`], the data handle views
//! and kernel descriptors carry (the buffer, an element offset, the device).

use core::marker::PhantomData;

use super::device::{device_error, WgpuDevice};
use crate::element::Pod;
use crate::error::{Error, Result};

/// A device storage buffer holding `len` elements of `T` (its byte size rounded up to 4, as
/// WebGPU copies require), zero-initialized by WebGPU.
pub struct WgpuBuffer<T> {
    /// Boxed so the handles' pointers to it stay valid when the buffer value moves.
    buffer: Box<wgpu::Buffer>,
    len: usize,
    device: WgpuDevice,
    element: PhantomData<T>,
}

impl<T> core::fmt::Debug for WgpuBuffer<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("WgpuBuffer").field("len", &self.len).field("device", &self.device).finish()
    }
}

/// The data handle of a device element: the buffer, the element's offset in it, and the device.
/// Only kernel launches follow the buffer pointer, under the kernel traits' contract that the
/// operands are live.
pub struct WgpuPtr<T> {
    pub(crate) buffer: *const wgpu::Buffer,
    /// Element offset of the handle in the buffer (wrapping arithmetic; checked at launch).
    pub offset: isize,
    /// The device the buffer belongs to.
    pub device: WgpuDevice,
    element: PhantomData<fn() -> T>,
}

impl<T> Clone for WgpuPtr<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for WgpuPtr<T> {}

impl<T: Pod> WgpuPtr<T> {
    /// The handle `offset` elements away.
    pub(crate) fn moved(self, offset: isize) -> Self {
        WgpuPtr { offset: self.offset.wrapping_add(offset), ..self }
    }
}

impl<T: Pod> WgpuBuffer<T> {
    /// `len` zeroed elements on `device`.
    pub(crate) fn allocate(device: WgpuDevice, op: &'static str, len: usize) -> Result<Self> {
        let size = core::mem::size_of::<T>();
        let bytes = len.checked_mul(size).filter(|&b| b <= isize::MAX as usize).ok_or(Error::Overflow {
            op,
            shape: vec![len],
            elem_size: size,
        })?;
        let padded = (bytes.max(4) as u64).next_multiple_of(4);
        if padded > device.max_binding_bytes() {
            return Err(device_error(format!(
                "{op}: an array of {bytes} bytes exceeds the largest buffer the adapter ({}) can bind, {} bytes; split the array or use the Cpu backend",
                device.adapter(),
                device.max_binding_bytes()
            )));
        }
        let buffer = device.checked(op, || {
            device.device().create_buffer(&wgpu::BufferDescriptor {
                label: None,
                size: padded,
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            })
        });
        let buffer = buffer.map_err(|e| Error::Alloc { op, bytes, reason: e.to_string() })?;
        Ok(WgpuBuffer { buffer: Box::new(buffer), len, device, element: PhantomData })
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the buffer holds no element.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The device the buffer is on.
    pub fn device(&self) -> WgpuDevice {
        self.device
    }

    pub(crate) fn raw(&self) -> &wgpu::Buffer {
        &self.buffer
    }

    /// The handle of element `offset`.
    pub(crate) fn handle(&self, offset: isize) -> WgpuPtr<T> {
        WgpuPtr { buffer: &*self.buffer, offset, device: self.device, element: PhantomData }
    }
}
