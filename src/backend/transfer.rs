//! Transfers between backends, written once: `to_device(&alloc)` on any host array or view (made
//! contiguous on the host first when it is not), `to_host()` on any array or view (made
//! contiguous on its device first when it is not), and `to_backend(&alloc)` from any backend to
//! any other (through host memory). A backend supplies two bulk copies: [`WriteFromHost`] into
//! one of its buffers, [`Download`] out of a contiguous operand; an allocator that can be a
//! target names its backend through [`Upload`].

use crate::array::Array;
use crate::backend::cpu::CpuAlloc;
use crate::backend::{Allocator, Backend, Cpu, DeviceAlloc, HostAccessible, PooledDevice};
use crate::check::BoundsCheck;
use crate::element::Pod;
use crate::error::{or_panic, Error, Result};
use crate::layout::Layout;
use crate::ops::desc::Desc;
use crate::ops::fill_copy::CopyKernels;
use crate::pool::Pool;
use crate::view::{Access, ArrayView, View};

/// A backend whose buffers host data can be copied into.
///
/// # Safety
///
/// On success, `try_write_from_host` has written `data` into the buffer's elements (or queued the
/// copy on the buffer's device, ordered before any later work there, with `data` no longer
/// needed when it returns), so the buffer is initialized.
pub unsafe trait WriteFromHost: Backend {
    /// Copies `data` into `buf`.
    ///
    /// # Safety
    ///
    /// `buf` holds exactly `data.len()` elements.
    ///
    /// # Errors
    ///
    /// `Error::Device` when the copy fails.
    unsafe fn try_write_from_host<T: Pod>(buf: &mut Self::Buffer<T>, data: &[T]) -> Result<()>;
}

/// An allocator arrays can be copied into from another backend: a device (`&CudaDevice`,
/// `&WgpuDevice`), a pool of a device's memory, or a host allocator (`&Cpu`, a CPU `Pool`).
pub trait Upload: Allocator<Self::Target> {
    /// The backend the allocator's buffers are on.
    type Target: WriteFromHost;

    /// A new row-major array of `shape` on this allocator holding `data` (its row-major
    /// elements), queued on the device; `data` may be reused when this returns.
    ///
    /// # Errors
    ///
    /// `Error::LengthMismatch` when `data` does not hold exactly the shape's element count;
    /// `Error::Alloc` when the memory is refused; `Error::Device` when the copy fails.
    fn try_upload<T: Pod, const N: usize>(&self, data: &[T], shape: [usize; N]) -> Result<Array<T, N, Self::Target>> {
        let len = crate::shape::checked_len("to_device", &shape, core::mem::size_of::<T>())?;
        if len != data.len() {
            return Err(Error::LengthMismatch {
                op: "to_device",
                shape: shape.to_vec(),
                expected: len,
                got: data.len(),
            });
        }
        // SAFETY: the write below fills every element before anything can read one.
        let mut buffer = unsafe { self.try_alloc_for_overwrite::<T>("to_device", data.len()) }?;
        // SAFETY: the buffer holds exactly `data.len()` elements.
        unsafe { Self::Target::try_write_from_host(&mut buffer, data) }?;
        Ok(Array::from_buffer_in(buffer, shape))
    }
}

/// A backend whose data can be copied to the host.
pub trait Download: Backend {
    /// The elements of `desc`, a contiguous row-major operand, in a new host array; waits for
    /// the device's queued work.
    ///
    /// # Errors
    ///
    /// `Error::Device` with the error the copy or any queued work raised.
    ///
    /// # Safety
    ///
    /// `desc` describes live, row-major contiguous elements on its device.
    unsafe fn try_download<T: Pod, const N: usize>(desc: Desc<Self, T, N>) -> Result<Array<T, N>>;

    /// `f` applied to the elements of `desc` as one host slice: downloaded first on a device,
    /// read in place on the host.
    ///
    /// # Errors
    ///
    /// As for [`Download::try_download`], and `f`'s own.
    ///
    /// # Safety
    ///
    /// As for [`Download::try_download`].
    unsafe fn try_with_host<T: Pod, const N: usize, R>(
        desc: Desc<Self, T, N>,
        f: impl FnOnce(&[T]) -> Result<R>,
    ) -> Result<R> {
        // SAFETY: forwarded contract.
        let host = unsafe { Self::try_download(desc) }?;
        f(host.as_slice())
    }
}

// SAFETY: the copy writes all of `data` into the buffer, which holds as many elements.
unsafe impl WriteFromHost for Cpu {
    unsafe fn try_write_from_host<T: Pod>(buf: &mut Self::Buffer<T>, data: &[T]) -> Result<()> {
        // SAFETY: the buffer is `data.len()` elements of its own memory (caller's contract),
        // which `data`, a shared borrow, cannot overlap.
        unsafe { core::ptr::copy_nonoverlapping(data.as_ptr(), Cpu::host_ptr_mut(buf), data.len()) };
        Ok(())
    }
}

impl Download for Cpu {
    unsafe fn try_download<T: Pod, const N: usize>(desc: Desc<Cpu, T, N>) -> Result<Array<T, N>> {
        // SAFETY: forwarded contract.
        unsafe { Self::try_with_host(desc, |data| Cpu.try_upload(data, desc.shape)) }
    }

    unsafe fn try_with_host<T: Pod, const N: usize, R>(
        desc: Desc<Cpu, T, N>,
        f: impl FnOnce(&[T]) -> Result<R>,
    ) -> Result<R> {
        let len = desc.shape.iter().product();
        // SAFETY: `desc` is `len` live, contiguous elements from its handle (caller's contract),
        // borrowed for the call.
        f(unsafe { core::slice::from_raw_parts(Cpu::handle_ptr(desc.handle), len) })
    }
}

impl Upload for Cpu {
    type Target = Cpu;
}

impl Upload for Pool {
    type Target = Cpu;
}

impl Upload for CpuAlloc {
    type Target = Cpu;
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

impl<T: Pod, const N: usize, L: Layout, C: BoundsCheck> ArrayView<'_, T, N, L, C> {
    /// A row-major copy of this view on device `dev` (`&CudaDevice`, `&WgpuDevice`): one bulk
    /// copy, queued on the device; the host memory may be reused when this returns.
    ///
    /// # Errors
    ///
    /// `Error::Alloc` when the device memory is refused; `Error::Device` when the copy fails.
    pub fn try_to_device<D: Upload>(&self, dev: &D) -> Result<Array<T, N, D::Target>> {
        let dense = self.contiguous();
        dev.try_upload(dense.as_slice(), self.shape())
    }

    /// As [`ArrayView::try_to_device`], panicking on failure.
    #[track_caller]
    pub fn to_device<D: Upload>(&self, dev: &D) -> Array<T, N, D::Target> {
        or_panic(self.try_to_device(dev))
    }
}

impl<T: Pod, const N: usize, L: Layout, C: BoundsCheck> Array<T, N, Cpu, L, C> {
    /// A row-major copy of this array on device `dev`; see [`ArrayView::try_to_device`].
    ///
    /// # Errors
    ///
    /// As [`ArrayView::try_to_device`].
    pub fn try_to_device<D: Upload>(&self, dev: &D) -> Result<Array<T, N, D::Target>> {
        self.view().try_to_device(dev)
    }

    /// As [`Array::try_to_device`], panicking on failure.
    #[track_caller]
    pub fn to_device<D: Upload>(&self, dev: &D) -> Array<T, N, D::Target> {
        or_panic(self.try_to_device(dev))
    }
}

impl<T: Pod, const N: usize, A: Access, B: Download + CopyKernels, L: Layout, C: BoundsCheck>
    View<'_, T, N, A, B, L, C>
{
    /// `f` applied to a contiguous row-major descriptor of the elements: the view's own, or a
    /// copy made on its backend when the view is not contiguous.
    fn try_contiguous<R>(&self, f: impl FnOnce(Desc<B, T, N>) -> Result<R>) -> Result<R> {
        let desc = self.desc();
        if desc.is_contiguous() {
            return f(desc);
        }
        let dense = self.try_to_owned()?;
        f(dense.desc())
    }

    /// The elements, copied to a new row-major host array (a non-contiguous view is made
    /// contiguous on the device first); waits for the device's queued work.
    ///
    /// # Errors
    ///
    /// `Error::Alloc` for host or device memory refused; `Error::Device` with the error any
    /// queued work raised.
    pub fn try_to_host(&self) -> Result<Array<T, N>> {
        // SAFETY: a live view's elements, or a live copy, contiguous either way.
        self.try_contiguous(|desc| unsafe { B::try_download(desc) })
    }

    /// As [`View::try_to_host`], panicking on failure.
    #[track_caller]
    pub fn to_host(&self) -> Array<T, N> {
        or_panic(self.try_to_host())
    }

    /// A row-major copy of the elements from allocator `alloc` of any backend: a device
    /// (`&CudaDevice`, `&WgpuDevice`), a pool of one, or a host allocator (`&Cpu`, a `Pool`).
    /// The copy goes through host memory (a download, then an upload), also between two devices
    /// of one backend; for a copy on the same device, [`to_owned_in`](Self::to_owned_in)
    /// stays there.
    ///
    /// ```
    /// use cnda::prelude::*;
    /// use cnda::pool::Pool;
    ///
    /// let a = Array::from_fn([3, 4], |[i, j]| (i * 4 + j) as f32);
    /// let pool = Pool::new();
    /// let pooled = a.t().to_backend(&pool); // a host copy from the pool
    /// assert_eq!(pooled, a.t().to_owned());
    /// assert_eq!(pool.stats().allocations, 1);
    /// ```
    ///
    /// # Errors
    ///
    /// `Error::Alloc` when memory is refused on either side; `Error::Device` with the error a
    /// copy or any queued work raised.
    pub fn try_to_backend<D: Upload>(&self, alloc: &D) -> Result<Array<T, N, D::Target>> {
        let shape = self.shape();
        // SAFETY: a live view's elements, or a live copy, contiguous either way.
        self.try_contiguous(|desc| unsafe { B::try_with_host(desc, |data| alloc.try_upload(data, shape)) })
    }

    /// As [`View::try_to_backend`], panicking on failure.
    #[track_caller]
    pub fn to_backend<D: Upload>(&self, alloc: &D) -> Array<T, N, D::Target> {
        or_panic(self.try_to_backend(alloc))
    }
}

impl<T: Pod, const N: usize, B: Download + CopyKernels, L: Layout, C: BoundsCheck> Array<T, N, B, L, C> {
    /// The elements, copied to a new row-major host array; waits for the device's queued work.
    ///
    /// # Errors
    ///
    /// As [`View::try_to_host`].
    pub fn try_to_host(&self) -> Result<Array<T, N>> {
        self.view().try_to_host()
    }

    /// As [`Array::try_to_host`], panicking on failure.
    #[track_caller]
    pub fn to_host(&self) -> Array<T, N> {
        or_panic(self.try_to_host())
    }

    /// A row-major copy of the elements from allocator `alloc` of any backend; see
    /// [`View::try_to_backend`].
    ///
    /// # Errors
    ///
    /// As [`View::try_to_backend`].
    pub fn try_to_backend<D: Upload>(&self, alloc: &D) -> Result<Array<T, N, D::Target>> {
        self.view().try_to_backend(alloc)
    }

    /// As [`Array::try_to_backend`], panicking on failure.
    #[track_caller]
    pub fn to_backend<D: Upload>(&self, alloc: &D) -> Array<T, N, D::Target> {
        or_panic(self.try_to_backend(alloc))
    }
}
