//! [`Backend`]: where an array's elements live (the `B` parameter of [`Array`](crate::Array)).
//!
//! A backend names four things (as C++'s `mdspan` accessor names a `data_handle_type`):
//!
//! - a **device** handle, what a kernel runs on (a context, stream or queue and kernel cache on a
//!   device; the unit `Cpu` on the host);
//! - a **buffer** type, an owned allocation of elements;
//! - a **data handle**, how a view or a kernel descriptor reaches its element `[0; N]` (a host
//!   pointer; a buffer reference plus an element offset on a device);
//! - its **allocator** type ([`Allocator`]), the one a buffer remembers, so that an op on an array
//!   allocates its output where its input came from (a pooled input gives a pooled output).
//!
//! Host-side operations (indexing, iteration, views through pointers) are bounded by
//! [`HostAccessible`], so asking for them on a device array is a compile error with a readable
//! message.

use core::fmt::Debug;

use crate::element::Pod;
use crate::kernel::Allocator;

/// The host CPU backend (the default `B` of every array), and its own device handle and system
/// allocator (`Array::zeros_in(&Cpu, shape)`). Declared here, in the contract, because every
/// layer's default type parameter names it; its buffers, allocators and kernels are the CPU
/// backend's (`backend/cpu`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Cpu;

/// A place where array elements live.
pub trait Backend: Copy + Default + Debug + Send + Sync + 'static {
    /// The backend's name, for `Debug` output and error messages.
    const NAME: &'static str;

    /// What kernels run on: a context, stream or queue and kernel cache for a device; the unit
    /// `Cpu` for the host.
    type Device: Clone + Debug + PartialEq + Send + Sync;

    /// An owned allocation of elements of type `T` on this backend.
    type Buffer<T: Pod>;

    /// How a view or kernel descriptor reaches its element `[0; N]`: a host pointer for `Cpu`; a
    /// buffer reference plus an element offset for a device.
    type Handle<T: Pod>: Copy;

    /// The allocator a buffer remembers (for `Cpu`: the system or a pool), which serves the
    /// outputs of ops on arrays of this backend.
    type Alloc: Allocator<Self> + Clone + Debug;

    /// The handle of element `offset` of `buf` (wrapping: an empty array's offset may lie past
    /// the buffer, and its handle is never dereferenced).
    fn handle<T: Pod>(buf: &Self::Buffer<T>, offset: isize) -> Self::Handle<T>;

    /// As [`Backend::handle`], for writing through.
    fn handle_mut<T: Pod>(buf: &mut Self::Buffer<T>, offset: isize) -> Self::Handle<T>;

    /// The handle `offset` elements past `handle` (wrapping, as [`Backend::handle`]).
    fn moved<T: Pod>(handle: Self::Handle<T>, offset: isize) -> Self::Handle<T>;

    /// The same position seen as elements of `F`, `T` being a whole number of them (the real
    /// part of a complex element; [`complex_parts`](crate::kernel::complex_parts) builds on it).
    /// Unsafe code trusts it as it trusts [`Backend::moved`]: the generic algorithms (complex
    /// means, the Fourier solves) hand the part descriptors it makes to this backend's kernels.
    fn part_handle<T: Pod, F: Pod>(handle: Self::Handle<T>) -> Self::Handle<F>;

    /// The device a handle's memory is on (ops check that their operands share one).
    fn handle_device<T: Pod>(handle: Self::Handle<T>) -> Self::Device;

    /// The allocator `buf` came from.
    fn allocator_of<T: Pod>(buf: &Self::Buffer<T>) -> Self::Alloc;

    /// The allocator for outputs of ops whose inputs are views (which do not know their owner's
    /// allocator on the host): the system allocator for `Cpu`, the handle's device elsewhere.
    fn allocator_of_handle<T: Pod>(handle: Self::Handle<T>) -> Self::Alloc;
}

/// A backend whose buffers are ordinary host memory, so elements can be read and written from the
/// CPU through pointers.
///
/// # Safety
///
/// `host_ptr`/`host_ptr_mut` must return a pointer to a live, initialized, suitably aligned
/// allocation of at least the buffer's element count, valid for as long as the buffer lives, not
/// moving when the buffer value moves, and not shared with any other buffer; `handle_ptr` of a
/// handle from [`Backend::handle`] must be `host_ptr` moved by the same offset.
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

    /// The host pointer a data handle stands for.
    fn handle_ptr<T: Pod>(handle: Self::Handle<T>) -> *mut T;
}
