//! Backends: where an array's elements live (the `B` parameter of [`Array`](crate::Array)).
//!
//! A backend names its buffer type; host-side operations (indexing, iteration, views) are bounded
//! by [`HostAccessible`], so asking for them on a device array is a compile error with a readable
//! message. Device backends (`Cuda`, `Wgpu`) will live in their own folders behind their features,
//! implement [`Backend`] with a device buffer, and add kernels; they do not re-implement view logic.

pub mod cpu;

use core::fmt::Debug;

use crate::element::Pod;

pub use cpu::Cpu;

/// A place where array elements live.
pub trait Backend: Copy + Default + Debug + Send + Sync + 'static {
    /// The backend's name, for `Debug` output and error messages.
    const NAME: &'static str;

    /// An owned allocation of elements of type `T` on this backend.
    type Buffer<T: Pod>;
}

/// A backend whose buffers are ordinary host memory, so elements can be read and written from the
/// CPU through pointers.
///
/// # Safety
///
/// `host_ptr`/`host_ptr_mut` must return a pointer to a live, initialized, suitably aligned
/// allocation of at least the buffer's element count, valid for as long as the buffer lives, not
/// moving when the buffer value moves, and not shared with any other buffer.
#[diagnostic::on_unimplemented(
    message = "`{Self}` arrays live in device memory, so the CPU cannot index, iterate or view them",
    label = "needs a host-accessible backend such as `Cpu`",
    note = "copy the array to a `Cpu` array first, or run the operation as a kernel on `{Self}`"
)]
pub unsafe trait HostAccessible: Backend {
    /// Pointer to the first element of `buf`.
    fn host_ptr<T: Pod>(buf: &Self::Buffer<T>) -> *const T;

    /// Mutable pointer to the first element of `buf`.
    fn host_ptr_mut<T: Pod>(buf: &mut Self::Buffer<T>) -> *mut T;
}
