//! An owned, zero-initialized, 64-byte aligned host allocation.

use core::ptr::NonNull;
use std::alloc::{self, Layout as AllocLayout};

use super::block::{advise_huge_pages, block_layout, block_start};
use super::placement::{self, HUGE_PAGE};
use super::CpuAlloc;
use crate::element::Pod;
use crate::error::Error;
use crate::kernel::Cpu;
use crate::pool::{Lease, Pool};

/// Alignment of every non-empty CPU buffer, in bytes: one cache line, and a full AVX-512 vector.
pub const CPU_ALIGN: usize = 64;

/// Buffers of at least this many bytes are aligned to a 2 MiB huge page and, on Linux, asked to be
/// backed by transparent huge pages (as NumPy does): a fresh 128 MiB buffer then takes 64 page
/// faults instead of 32,768, and large strided walks (transposes) stop missing the TLB. Their
/// start is staggered inside the huge page (see `placement.rs`), so two large arrays never share
/// cache sets element for element.
pub const HUGE_PAGE_THRESHOLD: usize = 4 << 20;

/// An owned host allocation of `len` elements, aligned to [`CPU_ALIGN`] (or `T`'s alignment if
/// larger). Always initialized: new buffers are zeroed, which is a valid `Pod` value.
pub struct CpuBuffer<T: Pod> {
    ptr: NonNull<T>,
    len: usize,
    origin: Origin,
}

/// Where a buffer's memory came from, so that dropping it gives the memory back the right way.
enum Origin {
    /// No allocation (zero bytes).
    Empty,
    /// The system allocator, with this layout; a large block starts `placement` bytes in.
    System { layout: AllocLayout, placement: usize },
    /// A block on loan from a pool (given back, or freed if the pool is gone, when it drops).
    Pool(Lease<Cpu>),
}

// SAFETY: the buffer owns its allocation exclusively, like a `Box<[T]>`.
unsafe impl<T: Pod + Send> Send for CpuBuffer<T> {}
// SAFETY: shared access only hands out `&T`, like a `Box<[T]>`.
unsafe impl<T: Pod + Sync> Sync for CpuBuffer<T> {}

impl<T: Pod> CpuBuffer<T> {
    /// The layout to allocate for `len` elements, and whether the start is staggered (large
    /// buffers of elements aligned to at most a cache line, which every offset respects).
    fn alloc_layout(len: usize) -> Option<(AllocLayout, bool)> {
        let bytes = len.checked_mul(core::mem::size_of::<T>())?;
        if bytes > isize::MAX as usize {
            return None;
        }
        if core::mem::align_of::<T>() <= CPU_ALIGN {
            return Some((block_layout(bytes)?, bytes >= HUGE_PAGE_THRESHOLD));
        }
        let align = if bytes >= HUGE_PAGE_THRESHOLD { HUGE_PAGE } else { CPU_ALIGN };
        Some((AllocLayout::from_size_align(bytes, align.max(core::mem::align_of::<T>())).ok()?, false))
    }

    /// A zeroed buffer of `len` elements. Fails with `Error::Alloc` (never aborts) when the system
    /// refuses the memory, and with `Error::Overflow` when the byte count does not fit.
    pub fn try_zeroed(op: &'static str, len: usize) -> Result<Self, Error> {
        // SAFETY: zero bytes are a valid `Pod` value for every element.
        unsafe { Self::try_init_with(op, len, |ptr| core::ptr::write_bytes(ptr, 0, len)) }
    }

    /// A buffer holding a copy of `data`.
    pub fn try_from_slice(op: &'static str, data: &[T]) -> Result<Self, Error> {
        // SAFETY: the copy writes all `data.len()` elements from a live slice that cannot overlap
        // a fresh allocation.
        unsafe {
            Self::try_init_with(op, data.len(), |ptr| core::ptr::copy_nonoverlapping(data.as_ptr(), ptr, data.len()))
        }
    }

    /// A buffer of `len` elements written by `init`, with no zeroing pass first: copies into a
    /// fresh buffer touch its memory once.
    ///
    /// # Safety
    ///
    /// `init` must write all `len` elements through the pointer it gets (and read none before
    /// writing it). If it panics, the buffer is freed without being read.
    pub(crate) unsafe fn try_init_with(op: &'static str, len: usize, init: impl FnOnce(*mut T)) -> Result<Self, Error> {
        let (layout, staggered) = Self::alloc_layout(len).ok_or(Error::Overflow {
            op,
            shape: vec![len],
            elem_size: core::mem::size_of::<T>(),
        })?;
        if layout.size() == 0 {
            return Ok(Self { ptr: NonNull::dangling(), len, origin: Origin::Empty });
        }
        // SAFETY: the layout has a non-zero size.
        let raw = unsafe { alloc::alloc(layout) };
        if raw.is_null() {
            return Err(Error::Alloc {
                op,
                bytes: layout.size(),
                reason: "the system allocator refused the request".into(),
            });
        }
        // Before the first touch, so the kernel can fault the memory in as huge pages.
        advise_huge_pages(raw, layout.size());
        trace_alloc(op, layout.size(), false);
        let (start, placement) = if staggered { block_start(raw, layout.size() - placement::SPAN) } else { (raw, 0) };
        // SAFETY: `start` lies `placement <= SPAN` bytes into a live allocation of `len * size + SPAN`
        // bytes (or is `raw` itself), so it is non-null and the buffer fits after it.
        let ptr = unsafe { NonNull::new_unchecked(start.cast::<T>()) };
        let buf = Self { ptr, len, origin: Origin::System { layout, placement } };
        init(buf.ptr.as_ptr());
        Ok(buf)
    }

    /// As [`CpuBuffer::try_init_with`], with the memory taken from `pool` (falling back to the
    /// system allocator for element types aligned beyond a cache line).
    ///
    /// # Safety
    ///
    /// As for [`CpuBuffer::try_init_with`].
    pub(crate) unsafe fn try_init_in_pool(
        pool: &Pool,
        op: &'static str,
        len: usize,
        init: impl FnOnce(*mut T),
    ) -> Result<Self, Error> {
        let size = core::mem::size_of::<T>();
        let bytes = len.checked_mul(size).ok_or(Error::Overflow { op, shape: vec![len], elem_size: size })?;
        if bytes == 0 || core::mem::align_of::<T>() > CPU_ALIGN {
            // SAFETY: forwarded contract.
            return unsafe { Self::try_init_with(op, len, init) };
        }
        let lease = pool.take(op, bytes)?;
        trace_alloc(op, bytes, true);
        let buf = Self { ptr: lease.block().0.cast(), len, origin: Origin::Pool(lease) };
        init(buf.ptr.as_ptr());
        Ok(buf)
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the buffer holds no element.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Pointer to the first element.
    #[inline(always)]
    pub fn as_ptr(&self) -> *const T {
        self.ptr.as_ptr()
    }

    /// Mutable pointer to the first element.
    #[inline(always)]
    pub fn as_mut_ptr(&mut self) -> *mut T {
        self.ptr.as_ptr()
    }

    /// The elements as a slice.
    pub fn as_slice(&self) -> &[T] {
        // SAFETY: `ptr` is valid for `len` initialized elements (or dangling and aligned for 0).
        unsafe { core::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }

    /// The elements as a mutable slice.
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        // SAFETY: as in `as_slice`, and `&mut self` makes the access exclusive.
        unsafe { core::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

/// One `tracing` event per array allocation, naming the operation that asked (feature `tracing`).
#[allow(unused_variables)]
fn trace_alloc(op: &'static str, bytes: usize, pooled: bool) {
    #[cfg(feature = "tracing")]
    tracing::trace!(target: "cnda::alloc", op, bytes, pooled);
}

impl<T: Pod> CpuBuffer<T> {
    /// A copy, from the same pool when the original came from a pool that still exists.
    ///
    /// # Errors
    ///
    /// `Error::Alloc` when the pool's byte cap or the system refuses the memory.
    pub fn try_clone(&self) -> Result<Self, Error> {
        let data = self.as_slice();
        let copy = |dst: *mut T| {
            // SAFETY: a fresh buffer of `data.len()` elements cannot overlap `data`.
            unsafe { core::ptr::copy_nonoverlapping(data.as_ptr(), dst, data.len()) }
        };
        // SAFETY: `copy` writes every element.
        unsafe { crate::kernel::init_buffer::<super::Cpu, T>(&self.allocator(), "clone", data.len(), copy) }
    }

    /// The allocator this buffer came from: its pool while that pool lives, else the system.
    pub fn allocator(&self) -> CpuAlloc {
        match &self.origin {
            Origin::Pool(lease) => lease.pool().map_or(CpuAlloc::System, CpuAlloc::Pool),
            _ => CpuAlloc::System,
        }
    }
}

impl<T: Pod> Clone for CpuBuffer<T> {
    /// A copy, from the same pool when the original came from a pool that still exists.
    ///
    /// # Panics
    ///
    /// When the memory is refused (a capped pool, say); [`CpuBuffer::try_clone`] returns the
    /// error instead.
    #[track_caller]
    fn clone(&self) -> Self {
        crate::error::or_panic(self.try_clone())
    }
}

impl<T: Pod> Drop for CpuBuffer<T> {
    fn drop(&mut self) {
        let ptr = self.ptr.cast::<u8>();
        match &self.origin {
            Origin::Empty => {}
            // SAFETY: `ptr - placement` came from `alloc` with this same layout and is freed only
            // here.
            Origin::System { layout, placement } => unsafe {
                alloc::dealloc(ptr.as_ptr().wrapping_sub(*placement), *layout)
            },
            // The lease gives the block back when the origin drops.
            Origin::Pool(_) => {}
        }
    }
}

impl<T: Pod + core::fmt::Debug> core::fmt::Debug for CpuBuffer<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("CpuBuffer").field("len", &self.len).finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_buffers_start_staggered_inside_a_huge_page() {
        let bufs: Vec<_> =
            (0..3).map(|_| CpuBuffer::<f64>::try_zeroed("test", HUGE_PAGE_THRESHOLD / 8).unwrap()).collect();
        let offsets: Vec<usize> = bufs.iter().map(|b| b.as_ptr() as usize % HUGE_PAGE).collect();
        for (buf, &offset) in bufs.iter().zip(&offsets) {
            assert_eq!(offset % CPU_ALIGN, 0);
            assert!(offset <= placement::SPAN);
            assert!(buf.as_slice().iter().all(|&x| x == 0.0));
        }
        // Consecutive large buffers do not share their position inside the huge page (other
        // tests allocating in parallel may advance the cycle, but not by whole turns twice).
        assert!(offsets[0] != offsets[1] || offsets[1] != offsets[2], "{offsets:?}");
    }

    #[test]
    fn buffers_are_zeroed_and_cache_line_aligned() {
        for len in [1usize, 3, 1000, 1 << 20] {
            let buf = CpuBuffer::<f32>::try_zeroed("test", len).unwrap();
            assert_eq!(buf.as_ptr() as usize % CPU_ALIGN, 0);
            assert!(buf.as_slice().iter().all(|&x| x == 0.0));
        }
    }

    #[test]
    fn huge_requests_are_errors_not_aborts() {
        let err = CpuBuffer::<f64>::try_zeroed("test", usize::MAX / 4).unwrap_err();
        assert!(matches!(err, Error::Overflow { .. }), "{err}");
        // Fits isize but not any machine's memory: the allocator must refuse, not abort.
        let err = CpuBuffer::<u8>::try_zeroed("test", 1 << 62).unwrap_err();
        assert!(matches!(err, Error::Alloc { .. }), "{err}");
    }

    #[test]
    fn clones_are_deep() {
        let mut a = CpuBuffer::try_from_slice("test", &[1u8, 2, 3]).unwrap();
        let b = a.clone();
        a.as_mut_slice()[0] = 9;
        assert_eq!(b.as_slice(), &[1, 2, 3]);
    }
}
