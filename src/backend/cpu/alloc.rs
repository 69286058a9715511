//! Where a CPU array's memory comes from: the system (`Cpu`) or a [`Pool`]. Constructors take
//! `&impl HostAlloc`, so choosing the allocator is an explicit argument.

use super::buffer::CpuBuffer;
use super::Cpu;
use crate::element::Pod;
use crate::error::Error;
use crate::pool::Pool;

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::Cpu {}
    impl Sealed for super::Pool {}
}

/// An allocator for CPU arrays: `Cpu` (the system allocator) or a `Pool`.
pub trait HostAlloc: sealed::Sealed {
    /// A buffer of `len` elements, every one written by `init` before it is returned.
    ///
    /// # Safety
    ///
    /// `init` must write all `len` elements and read none before writing it.
    #[doc(hidden)]
    unsafe fn init_buffer<T: Pod>(
        &self,
        op: &'static str,
        len: usize,
        init: impl FnOnce(*mut T),
    ) -> Result<CpuBuffer<T>, Error>;
}

impl HostAlloc for Cpu {
    unsafe fn init_buffer<T: Pod>(
        &self,
        op: &'static str,
        len: usize,
        init: impl FnOnce(*mut T),
    ) -> Result<CpuBuffer<T>, Error> {
        // SAFETY: forwarded contract.
        unsafe { CpuBuffer::try_init_with(op, len, init) }
    }
}

impl HostAlloc for Pool {
    unsafe fn init_buffer<T: Pod>(
        &self,
        op: &'static str,
        len: usize,
        init: impl FnOnce(*mut T),
    ) -> Result<CpuBuffer<T>, Error> {
        // SAFETY: forwarded contract.
        unsafe { CpuBuffer::try_init_in_pool(self, op, len, init) }
    }
}
