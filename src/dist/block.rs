//! [`DistBackend`]: what a distributed array asks of the backend its block lives on.

use crate::array::Array;
use crate::element::Pod;
use crate::error::Result;
use crate::kernel::{CopyKernels, Download, HostStaging, Upload};

/// A backend a [`DistArray`](super::DistArray)'s block can live on: the CPU, CUDA or WebGPU.
/// It copies regions (packing halo messages), moves them to and from staging host memory, and
/// says whether its memory is host memory (then MPI reads and writes the block in place).
/// Implemented for every backend with those kernels; not implementable elsewhere.
pub trait DistBackend: HostStaging + CopyKernels + Download {
    /// A copy of host array `host` on the allocator's device.
    ///
    /// # Errors
    ///
    /// `Error::Alloc` when the memory is refused; `Error::Device` when the copy fails.
    #[doc(hidden)]
    fn upload<T: Pod, const N: usize>(alloc: &Self::Alloc, host: &Array<T, N>) -> Result<Array<T, N, Self>>;
}

impl<B: HostStaging + CopyKernels + Download> DistBackend for B
where
    B::Alloc: Upload<Target = B>,
{
    fn upload<T: Pod, const N: usize>(alloc: &B::Alloc, host: &Array<T, N>) -> Result<Array<T, N, B>> {
        Array::from_slice_in(alloc, host.shape(), host.as_slice())
    }
}
