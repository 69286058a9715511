//! Transfers between backends, written once: `to_device(&alloc)` on any host array or view (made
//! contiguous on the host first when it is not), `to_host()` on any array or view (made
//! contiguous on its device first when it is not), and `to_backend(&alloc)` from any backend to
//! any other (through host memory). A backend supplies two bulk copies (the contract's
//! [`WriteFromHost`] into one of its buffers, [`Download`] out of a contiguous operand); an
//! allocator that can be a target names its backend through [`Upload`].

use crate::array::Array;
use crate::check::BoundsCheck;
use crate::element::Pod;
use crate::error::{or_panic, Error, Result};
use crate::kernel::{Allocator, CopyKernels, Cpu, Desc, Download, HostAccessible, Upload, WriteFromHost};
use crate::layout::Layout;
use crate::view::{Access, ArrayView, View};

/// A new row-major array of `shape` from `alloc` holding `data` (its row-major elements), queued on
/// the allocator's device; `data` may be reused when this returns.
///
/// # Errors
///
/// `Error::LengthMismatch` when `data` does not hold exactly the shape's element count;
/// `Error::Alloc` when the memory is refused; `Error::Device` when the copy fails.
pub(crate) fn upload<B: WriteFromHost, T: Pod, const N: usize>(
    alloc: &(impl Allocator<B> + ?Sized),
    data: &[T],
    shape: [usize; N],
) -> Result<Array<T, N, B>> {
    let len = crate::shape::checked_len("to_device", &shape, core::mem::size_of::<T>())?;
    if len != data.len() {
        return Err(Error::LengthMismatch { op: "to_device", shape: shape.to_vec(), expected: len, got: data.len() });
    }
    // SAFETY: the write below fills every element before anything can read one.
    let mut buffer = unsafe { alloc.try_alloc_for_overwrite::<T>("to_device", data.len()) }?;
    // SAFETY: the buffer holds exactly `data.len()` elements.
    unsafe { B::try_write_from_host(&mut buffer, data) }?;
    Ok(Array::from_buffer_in(buffer, shape))
}

/// The elements of `desc`, a contiguous row-major operand, in a new host array; waits for the
/// device's queued work.
///
/// # Safety
///
/// `desc` describes live, row-major contiguous elements on its device.
unsafe fn download<B: Download, T: Pod, const N: usize>(desc: Desc<B, T, N>) -> Result<Array<T, N>> {
    let len = crate::shape::checked_len("to_host", &desc.shape, core::mem::size_of::<T>())?;
    // SAFETY: the download below writes every element before anything reads one (on failure the
    // buffer is dropped unread).
    let mut buffer = unsafe { Cpu.try_alloc_for_overwrite::<T>("to_host", len) }?;
    // SAFETY: the buffer holds `len` writable elements of its own memory; `desc`'s contract is the
    // caller's.
    unsafe { B::try_download_into(desc, Cpu::host_ptr_mut(&mut buffer)) }?;
    Ok(Array::from_buffer_in(buffer, desc.shape))
}

impl<T: Pod, const N: usize, B: WriteFromHost> Array<T, N, B> {
    /// A row-major array of `shape` from allocator `alloc` of any backend (a device, a pool of
    /// one, or a host allocator) holding a copy of `data`, its row-major elements: one bulk copy,
    /// queued on the device; `data` may be reused when this returns.
    ///
    /// ```
    /// use cnda::prelude::*;
    ///
    /// let pool = Pool::new();
    /// let a = Array::from_slice_in(&pool, [2, 2], &[1, 2, 3, 4]).unwrap();
    /// assert_eq!(a, Array::from_fn([2, 2], |[i, j]| (i * 2 + j + 1) as i32));
    /// assert!(Array::from_slice_in(&pool, [3, 3], &[1, 2]).is_err()); // 2 elements for 9
    /// ```
    ///
    /// # Errors
    ///
    /// `Error::Overflow` when the shape's byte size overflows; `Error::LengthMismatch` when `data`
    /// does not hold exactly the shape's element count; `Error::Alloc` when the memory is
    /// refused; `Error::Device` when the copy fails.
    pub fn from_slice_in<D: Upload<Target = B>>(alloc: &D, shape: [usize; N], data: &[T]) -> Result<Self> {
        upload(alloc, data, shape)
    }
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
        upload(dev, dense.as_slice(), self.shape())
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
        self.try_contiguous(|desc| unsafe { download(desc) })
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
        self.try_contiguous(|desc| unsafe { B::try_with_host(desc, |data| upload(alloc, data, shape)) })
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
