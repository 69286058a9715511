//! [`WgpuBuffer`]: a storage buffer for `len` elements, and [`WgpuPtr`], the data handle views
//! and kernel descriptors carry (the buffer, an element offset, the device).

use core::marker::PhantomData;

use super::device::{device_error, WgpuDevice};
use crate::backend::DeviceAlloc;
use crate::element::Pod;
use crate::error::{Error, Result};
use crate::pool::Lease;

/// A device storage buffer holding `len` elements of `T` (its byte size rounded up to 4, as
/// WebGPU copies require), zero-initialized by WebGPU, or a block on loan from a pool.
pub struct WgpuBuffer<T> {
    memory: Memory,
    len: usize,
    device: WgpuDevice,
    element: PhantomData<T>,
}

/// Where a buffer's storage came from. Boxed either way, so the handles' pointers to the
/// `wgpu::Buffer` stay valid when the buffer value (or the lease) moves.
enum Memory {
    Owned(Box<wgpu::Buffer>),
    Leased(Lease<WgpuDevice>),
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

    /// The same position seen as elements of `U`, `T` being a whole number of them (the real
    /// part of a complex element).
    pub(crate) fn as_parts<U: Pod>(self) -> WgpuPtr<U> {
        let ratio = core::mem::size_of::<T>() / core::mem::size_of::<U>();
        assert_eq!(ratio * core::mem::size_of::<U>(), core::mem::size_of::<T>(), "a whole number of parts");
        WgpuPtr {
            buffer: self.buffer,
            offset: self.offset.wrapping_mul(ratio as isize),
            device: self.device,
            element: PhantomData,
        }
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
        let buffer = storage_buffer(device, op, bytes)?;
        Ok(WgpuBuffer { memory: Memory::Owned(buffer), len, device, element: PhantomData })
    }

    /// `len` elements over a block leased from a pool of `device` (at least `len` elements
    /// long), cleared on the queue when asked.
    pub(crate) fn leased(
        device: WgpuDevice,
        op: &'static str,
        lease: Lease<WgpuDevice>,
        len: usize,
        zeroed: bool,
    ) -> Result<Self> {
        let buffer = WgpuBuffer { memory: Memory::Leased(lease), len, device, element: PhantomData };
        if zeroed {
            let bytes = ((len * core::mem::size_of::<T>()).max(4) as u64).next_multiple_of(4);
            device.checked(op, || {
                let mut encoder = device.device().create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
                encoder.clear_buffer(buffer.raw(), 0, Some(bytes));
                device.queue().submit([encoder.finish()]);
            })?;
        }
        Ok(buffer)
    }

    /// The allocator the buffer came from: its pool while that lives, else its device.
    pub(crate) fn allocator(&self) -> DeviceAlloc<WgpuDevice> {
        let lease = match &self.memory {
            Memory::Leased(lease) => Some(lease),
            Memory::Owned(_) => None,
        };
        DeviceAlloc::of_lease(self.device, lease)
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
        match &self.memory {
            Memory::Owned(buffer) => buffer,
            Memory::Leased(lease) => lease.block(),
        }
    }

    /// The handle of element `offset`.
    pub(crate) fn handle(&self, offset: isize) -> WgpuPtr<T> {
        WgpuPtr { buffer: self.raw(), offset, device: self.device, element: PhantomData }
    }
}

/// A storage buffer of at least `bytes` bytes (rounded up to 4, and at least one `Complex<f64>`,
/// the smallest binding of an array of the largest element, even for an empty array) on
/// `device`, refused beyond the adapter's binding limit,
/// which every kernel binds whole buffers under.
pub(crate) fn storage_buffer(device: WgpuDevice, op: &'static str, bytes: usize) -> Result<Box<wgpu::Buffer>> {
    let padded = (bytes.max(16) as u64).next_multiple_of(4);
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
    Ok(Box::new(buffer.map_err(|e| Error::Alloc { op, bytes, reason: e.to_string() })?))
}
