//! The fill and copy kernel family.

use crate::element::Pod;
use crate::error::Result;
use crate::kernel::{Backend, Desc};

/// The fill and copy kernels a backend provides.
///
/// # Safety
///
/// Implementations write every element of `dst` for every index of its shape (the source's
/// element at the same index for `copy`, `value` for `fill`) and touch no other memory.
pub unsafe trait CopyKernels: Backend {
    /// `dst[i] = src[i]`; `src` may repeat elements (stride 0).
    ///
    /// # Safety
    ///
    /// Both address live memory on `dev` for every index of `dst.shape` (their common shape);
    /// `dst`'s indices address distinct writable elements (possibly uninitialized) that overlap
    /// no element of `src`.
    ///
    /// # Errors
    ///
    /// `Error::Device` when a device fails.
    unsafe fn copy<T: Pod, const N: usize>(
        dev: &Self::Device,
        dst: Desc<Self, T, N>,
        src: Desc<Self, T, N>,
    ) -> Result<()>;

    /// `dst[i] = value`.
    ///
    /// # Safety
    ///
    /// `dst` addresses live memory on `dev`, distinct writable elements (possibly uninitialized).
    ///
    /// # Errors
    ///
    /// `Error::Device` when a device fails.
    unsafe fn fill<T: Pod, const N: usize>(dev: &Self::Device, dst: Desc<Self, T, N>, value: T) -> Result<()>;
}
