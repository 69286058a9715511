//! Transfers between the host and a device, written once: `to_device(&dev)` on any host array or
//! view (made contiguous on the host first when it is not), `to_host()` on any device array or
//! view (made contiguous on the device first when it is not). A backend supplies the two bulk
//! copies: [`Upload`] on its device, [`Download`] on its backend type.

use crate::array::Array;
use crate::backend::{Allocator, Backend, Cpu};
use crate::check::BoundsCheck;
use crate::element::Pod;
use crate::error::{or_panic, Result};
use crate::layout::Layout;
use crate::ops::desc::Desc;
use crate::ops::fill_copy::CopyKernels;
use crate::view::{Access, ArrayView, View};

/// A device host data can be copied to.
pub trait Upload: Allocator<Self::Target> {
    /// The device's backend.
    type Target: Backend;

    /// A new row-major device array of `shape` holding `data` (its row-major elements), queued
    /// on the device.
    ///
    /// # Errors
    ///
    /// `Error::Alloc` when the device memory is refused; `Error::Device` when the copy fails.
    fn try_upload<T: Pod, const N: usize>(&self, data: &[T], shape: [usize; N]) -> Result<Array<T, N, Self::Target>>;
}

/// A backend whose data can be copied back to the host.
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
    /// The elements, copied to a new row-major host array (a non-contiguous view is made
    /// contiguous on the device first); waits for the device's queued work.
    ///
    /// # Errors
    ///
    /// `Error::Alloc` for host or device memory refused; `Error::Device` with the error any
    /// queued work raised.
    pub fn try_to_host(&self) -> Result<Array<T, N>> {
        let desc = self.desc();
        if desc.is_contiguous() {
            // SAFETY: a live view's elements, contiguous (checked).
            return unsafe { B::try_download(desc) };
        }
        let dense = self.try_to_owned()?;
        // SAFETY: a live row-major array.
        unsafe { B::try_download(dense.desc()) }
    }

    /// As [`View::try_to_host`], panicking on failure.
    #[track_caller]
    pub fn to_host(&self) -> Array<T, N> {
        or_panic(self.try_to_host())
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
}
