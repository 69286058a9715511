//! Pools on devices, written once for every device backend: a [`Pool`] over a device's blocks is
//! an allocator of that device's arrays, and [`DeviceAlloc`] is the allocator a device buffer
//! remembers (its device, or the pool it came from), as `CpuAlloc` is on the host. A backend adds
//! only [`PooledDevice`]: its device as a [`BlockSource`], and a buffer made over a leased block.

use core::fmt::Debug;

use crate::element::Pod;
use crate::error::{Error, Result};
use crate::kernel::{Allocator, Backend, Upload, WriteFromHost};
use crate::pool::{BlockSource, Lease, Pool};

/// The buffer type of backend `B` for elements `T`.
type BufferOf<B, T> = <B as Backend>::Buffer<T>;

/// A device handle that serves pools: the source of their blocks, and the maker of buffers over
/// blocks leased from them.
///
/// # Safety
///
/// `leased_buffer` returns a buffer of exactly `len` elements on `self` over the lease's block
/// (which the caller guarantees holds at least `len * size_of::<T>()` bytes), zeroed when
/// `zeroed` is set; the buffer owns the lease, so the block returns to its pool only when the
/// buffer drops, and device work queued on the block before is ordered before any later use.
pub unsafe trait PooledDevice: BlockSource + Allocator<Self::Backend> + Copy + Debug {
    /// A buffer of `len` elements over `lease`'s block.
    ///
    /// # Errors
    ///
    /// `Error::Device` when zeroing the block fails.
    fn leased_buffer<T: Pod>(
        &self,
        op: &'static str,
        lease: Lease<Self>,
        len: usize,
        zeroed: bool,
    ) -> Result<BufferOf<Self::Backend, T>>;
}

impl<D: PooledDevice> Pool<D> {
    /// An empty pool of `dev`'s memory without a byte cap. Arrays allocated from it
    /// (`Array::zeros_in(&pool, shape)`, or ops on such arrays) return their blocks to it when
    /// they drop; blocks are reused in stream order, so no synchronization is needed.
    pub fn for_device(dev: &D) -> Self {
        Self::with_source(*dev, None)
    }

    /// An empty pool of `dev`'s memory that never holds more than `cap` bytes (in use plus
    /// cached); see [`Pool::with_byte_cap`].
    pub fn for_device_with_byte_cap(dev: &D, cap: usize) -> Self {
        Self::with_source(*dev, Some(cap))
    }

    /// A buffer of `len` elements on a block from this pool.
    fn leased<T: Pod>(&self, op: &'static str, len: usize, zeroed: bool) -> Result<BufferOf<D::Backend, T>> {
        let size = core::mem::size_of::<T>();
        let bytes = len.checked_mul(size).ok_or(Error::Overflow { op, shape: vec![len], elem_size: size })?;
        let lease = self.take(op, bytes)?;
        self.source().leased_buffer(op, lease, len, zeroed)
    }
}

// SAFETY: `take` hands out a block of at least `len * size_of::<T>()` bytes to one lease at a
// time, and `leased_buffer` (trusted through `PooledDevice`'s contract) makes exactly `len`
// elements of it, zeroed when asked.
unsafe impl<D: PooledDevice> Allocator<D::Backend> for Pool<D> {
    fn device(&self) -> <D::Backend as Backend>::Device {
        self.source().device()
    }

    fn try_alloc_zeroed<T: Pod>(&self, op: &'static str, len: usize) -> Result<BufferOf<D::Backend, T>> {
        self.leased(op, len, true)
    }

    unsafe fn try_alloc_for_overwrite<T: Pod>(&self, op: &'static str, len: usize) -> Result<BufferOf<D::Backend, T>> {
        self.leased(op, len, false)
    }
}

/// The allocator a device buffer came from: its device directly, or a pool of the device's
/// memory. `Array::allocator` returns it, and ops on a device array allocate their outputs from
/// it, so a time loop over pooled device arrays keeps taking its temporaries from the pool.
#[derive(Clone, Debug)]
pub enum DeviceAlloc<D: PooledDevice> {
    /// The device's own allocator.
    Device(D),
    /// A pool of the device's memory (still alive; a buffer whose pool was dropped reports
    /// `Device`).
    Pool(Pool<D>),
}

impl<D: PooledDevice> DeviceAlloc<D> {
    /// The allocator of a buffer over `lease` on `dev`: its pool while the pool lives.
    #[cfg(any(feature = "cuda", feature = "wgpu"))]
    pub(crate) fn of_lease(dev: D, lease: Option<&Lease<D>>) -> Self {
        match lease.and_then(Lease::pool) {
            Some(pool) => DeviceAlloc::Pool(pool),
            None => DeviceAlloc::Device(dev),
        }
    }
}

// SAFETY: forwards to the two allocators above.
unsafe impl<D: PooledDevice> Allocator<D::Backend> for DeviceAlloc<D> {
    fn device(&self) -> <D::Backend as Backend>::Device {
        match self {
            DeviceAlloc::Device(dev) => dev.device(),
            DeviceAlloc::Pool(pool) => pool.device(),
        }
    }

    fn try_alloc_zeroed<T: Pod>(&self, op: &'static str, len: usize) -> Result<BufferOf<D::Backend, T>> {
        match self {
            DeviceAlloc::Device(dev) => dev.try_alloc_zeroed(op, len),
            DeviceAlloc::Pool(pool) => pool.try_alloc_zeroed(op, len),
        }
    }

    unsafe fn try_alloc_for_overwrite<T: Pod>(&self, op: &'static str, len: usize) -> Result<BufferOf<D::Backend, T>> {
        // SAFETY: forwarded contract.
        unsafe {
            match self {
                DeviceAlloc::Device(dev) => dev.try_alloc_for_overwrite(op, len),
                DeviceAlloc::Pool(pool) => pool.try_alloc_for_overwrite(op, len),
            }
        }
    }
}

impl<D: PooledDevice> Upload for D
where
    D::Backend: WriteFromHost,
{
    type Target = D::Backend;
}

impl<D: PooledDevice> Upload for Pool<D>
where
    D::Backend: WriteFromHost,
{
    type Target = D::Backend;
}

impl<D: PooledDevice> Upload for DeviceAlloc<D>
where
    D::Backend: WriteFromHost,
{
    type Target = D::Backend;
}
