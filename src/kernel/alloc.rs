//! [`Allocator`]: where a new array's memory comes from. Constructors take one as their first
//! argument (`Array::zeros_in(&pool, shape)`), and every buffer remembers its own
//! ([`Backend::allocator_of`]), so ops on an array allocate their outputs from it.

use crate::element::Pod;
use crate::error::Result;
use crate::kernel::{Backend, HostAccessible};

/// An allocator of buffers on backend `B`: for `Cpu`, `&Cpu` (the system allocator), a
/// [`Pool`](crate::pool::Pool) or a [`CpuAlloc`](crate::backend::cpu::CpuAlloc); for a device, its device
/// handle.
///
/// # Safety
///
/// Unsafe code trusts the buffers to be what was asked: exactly `len` elements of `T`, on
/// `self.device()`, zeroed by `try_alloc_zeroed`, and owned by nobody else.
pub unsafe trait Allocator<B: Backend> {
    /// The device the buffers live on.
    fn device(&self) -> B::Device;

    /// A buffer of `len` zeroed elements.
    ///
    /// # Errors
    ///
    /// `Error::Overflow` when the byte count does not fit; `Error::Alloc` (or `Error::Device`)
    /// when the memory is refused.
    fn try_alloc_zeroed<T: Pod>(&self, op: &'static str, len: usize) -> Result<B::Buffer<T>>;

    /// A buffer of `len` elements whose contents are unspecified (possibly uninitialized), for
    /// outputs that a kernel writes in full: no zeroing pass.
    ///
    /// # Safety
    ///
    /// The caller writes every element before anything reads one (dropping the buffer reads
    /// nothing).
    ///
    /// # Errors
    ///
    /// As for [`Allocator::try_alloc_zeroed`].
    unsafe fn try_alloc_for_overwrite<T: Pod>(&self, op: &'static str, len: usize) -> Result<B::Buffer<T>>;

    /// [`Allocator::try_alloc_for_overwrite`] with the buffer placed so that its element `at`
    /// starts a cache line, where the backend places host memory (the CPU: a padded array's
    /// interior then starts on a line, as Devito places its domains, and vector loads and stores
    /// along its rows do not split lines); elsewhere the same as it.
    ///
    /// # Safety
    ///
    /// As for [`Allocator::try_alloc_for_overwrite`].
    ///
    /// # Errors
    ///
    /// As for [`Allocator::try_alloc_zeroed`].
    unsafe fn try_alloc_for_overwrite_at_line<T: Pod>(
        &self,
        op: &'static str,
        len: usize,
        at: usize,
    ) -> Result<B::Buffer<T>> {
        let _ = at;
        // SAFETY: forwarded contract.
        unsafe { self.try_alloc_for_overwrite(op, len) }
    }

    /// The elements to allocate per row of `len` elements of `T` so that, with
    /// [`Allocator::try_alloc_for_overwrite_at_line`], every row starts a chosen column on a
    /// cache line: `len` rounded up to whole lines where the backend places host memory (the
    /// CPU), `len` elsewhere, and `len` when it is 0 or rounding overflows.
    fn line_pitch<T: Pod>(&self, len: usize) -> usize {
        len
    }
}

/// A buffer of `len` elements from `alloc`, every one written by `init` through a host pointer
/// before it is returned: the host constructors' path into any allocator of a host backend.
///
/// # Safety
///
/// `init` must write all `len` elements and read none before writing it.
pub(crate) unsafe fn init_buffer<B: HostAccessible, T: Pod>(
    alloc: &impl Allocator<B>,
    op: &'static str,
    len: usize,
    init: impl FnOnce(*mut T),
) -> Result<B::Buffer<T>> {
    // SAFETY: `init` writes every element before anything reads the buffer.
    let mut buf = unsafe { alloc.try_alloc_for_overwrite::<T>(op, len) }?;
    init(B::host_ptr_mut(&mut buf));
    Ok(buf)
}
