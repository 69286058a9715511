//! An owned, zero-initialized host allocation starting on a cache line, or placed so that a given
//! element starts one (a padded array's interior).

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
/// A padded array's buffer instead starts its interior's first element on such a boundary.
pub const CPU_ALIGN: usize = 64;

/// Buffers of at least this many bytes are aligned to a 2 MiB huge page and, on Linux, asked to be
/// backed by transparent huge pages (as NumPy does): a fresh 128 MiB buffer then takes 64 page
/// faults instead of 32,768, and large strided walks (transposes) stop missing the TLB. Their
/// start is staggered inside the huge page (see `placement.rs`), so two large arrays never share
/// cache sets element for element.
pub const HUGE_PAGE_THRESHOLD: usize = 4 << 20;

/// An owned host allocation of `len` elements, aligned to [`CPU_ALIGN`] (or `T`'s alignment if
/// larger), or with a chosen element on a [`CPU_ALIGN`] boundary instead (`pad`'s arrays). Always
/// initialized: new buffers are zeroed, which is a valid `Pod` value.
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
    /// The layout to allocate for `len` elements placed `lead` bytes before a cache line, and
    /// whether the start is staggered (large buffers of elements aligned to at most a cache line,
    /// which every offset respects).
    fn alloc_layout(len: usize, lead: usize) -> Option<(AllocLayout, bool)> {
        let bytes = len.checked_mul(core::mem::size_of::<T>())?;
        if bytes > isize::MAX as usize {
            return None;
        }
        if core::mem::align_of::<T>() <= CPU_ALIGN {
            let usable = bytes.checked_add(lead)?;
            return Some((block_layout(usable)?, usable >= HUGE_PAGE_THRESHOLD));
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
        // SAFETY: forwarded contract.
        unsafe { Self::try_init_placed(op, len, 0, init) }
    }

    /// As [`CpuBuffer::try_init_with`], the buffer starting `lead` bytes past a cache line:
    /// [`lead_bytes`] of an element to start one, or another buffer's offset into its line.
    ///
    /// # Safety
    ///
    /// As for [`CpuBuffer::try_init_with`].
    ///
    /// # Panics
    ///
    /// When `lead` is not a multiple of `T`'s alignment below [`CPU_ALIGN`] (0 for types aligned
    /// beyond a line).
    pub(crate) unsafe fn try_init_placed(
        op: &'static str,
        len: usize,
        lead: usize,
        init: impl FnOnce(*mut T),
    ) -> Result<Self, Error> {
        check_lead::<T>(lead);
        let (layout, staggered) = Self::alloc_layout(len, lead).ok_or(Error::Overflow {
            op,
            shape: vec![len],
            elem_size: core::mem::size_of::<T>(),
        })?;
        if layout.size() == 0 || len == 0 {
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
        let (line, offset) = if staggered { block_start(raw, layout.size() - placement::SPAN) } else { (raw, 0) };
        let placement = offset + lead;
        // SAFETY: `line` lies `offset <= SPAN` bytes into a live allocation of `len * size + lead`
        // bytes (plus `SPAN` when staggered), so `line + lead` is non-null and the buffer fits
        // after it; `lead` is a multiple of `T`'s alignment (`check_lead`), so the start is
        // aligned for `T`.
        let ptr = unsafe { NonNull::new_unchecked(line.add(lead).cast::<T>()) };
        let buf = Self { ptr, len, origin: Origin::System { layout, placement } };
        init(buf.ptr.as_ptr());
        Ok(buf)
    }

    /// As [`CpuBuffer::try_init_placed`], with the memory taken from `pool` (falling back to the
    /// system allocator for element types aligned beyond a cache line).
    ///
    /// # Safety
    ///
    /// As for [`CpuBuffer::try_init_with`].
    ///
    /// # Panics
    ///
    /// As [`CpuBuffer::try_init_placed`].
    pub(crate) unsafe fn try_init_in_pool(
        pool: &Pool,
        op: &'static str,
        len: usize,
        lead: usize,
        init: impl FnOnce(*mut T),
    ) -> Result<Self, Error> {
        check_lead::<T>(lead);
        let size = core::mem::size_of::<T>();
        let overflow = Error::Overflow { op, shape: vec![len], elem_size: size };
        let bytes = len.checked_mul(size).ok_or_else(|| overflow.clone())?;
        if bytes == 0 || core::mem::align_of::<T>() > CPU_ALIGN {
            // SAFETY: forwarded contract.
            return unsafe { Self::try_init_placed(op, len, lead, init) };
        }
        let lease = pool.take(op, bytes.checked_add(lead).ok_or(overflow)?)?;
        trace_alloc(op, bytes, true);
        // SAFETY: the block holds at least `bytes + lead` bytes and starts on a cache line, so
        // `block + lead` is non-null, aligned for `T` (`check_lead`) and has room for the buffer.
        let ptr = unsafe { NonNull::new_unchecked(lease.block().0.as_ptr().add(lead).cast::<T>()) };
        let buf = Self { ptr, len, origin: Origin::Pool(lease) };
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

/// The bytes past a cache line a buffer starts at so that its element `at` starts one: a
/// multiple of `T`'s alignment below [`CPU_ALIGN`] (0 for types aligned beyond a line, whose
/// buffers start on their own alignment).
pub(crate) fn lead_bytes<T>(at: usize) -> usize {
    let size = core::mem::size_of::<T>();
    if core::mem::align_of::<T>() > CPU_ALIGN {
        return 0;
    }
    // `at * size` modulo the line, without the product overflowing.
    let into_line = (at % CPU_ALIGN) * (size % CPU_ALIGN) % CPU_ALIGN;
    (CPU_ALIGN - into_line) % CPU_ALIGN
}

/// Asserts that a buffer of `T` may start `lead` bytes past a cache line.
fn check_lead<T>(lead: usize) {
    let align = core::mem::align_of::<T>();
    let fits = if align > CPU_ALIGN { lead == 0 } else { lead < CPU_ALIGN && lead % align == 0 };
    assert!(fits, "a buffer of {align}-byte aligned elements cannot start {lead} bytes past a cache line");
}

/// One `tracing` event per array allocation, naming the operation that asked (feature `tracing`).
#[allow(unused_variables)]
fn trace_alloc(op: &'static str, bytes: usize, pooled: bool) {
    #[cfg(feature = "tracing")]
    tracing::trace!(target: "cnda::alloc", op, bytes, pooled);
}

impl<T: Pod> CpuBuffer<T> {
    /// A copy, from the same pool when the original came from a pool that still exists, placed
    /// as the original is in its cache line (a padded array's copy keeps its interior on a line).
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
        // A multiple of `T`'s alignment (the pointer is aligned for `T`), 0 beyond a line.
        let lead = self.ptr.as_ptr() as usize % CPU_ALIGN;
        let lead = if data.is_empty() { 0 } else { lead };
        // SAFETY: `copy` writes every element.
        unsafe {
            match self.allocator() {
                CpuAlloc::Pool(pool) => Self::try_init_in_pool(&pool, "clone", data.len(), lead, copy),
                CpuAlloc::System => Self::try_init_placed("clone", data.len(), lead, copy),
            }
        }
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

    /// The address of element `at` of `buf`, modulo a cache line.
    fn line_offset<T: Pod>(buf: &CpuBuffer<T>, at: usize) -> usize {
        (buf.as_ptr() as usize + at * core::mem::size_of::<T>()) % CPU_ALIGN
    }

    #[test]
    fn placed_buffers_start_the_asked_element_on_a_cache_line() {
        let pool = Pool::new();
        // Small, and large enough to be staggered inside a huge page.
        for len in [1usize, 3, 1000, HUGE_PAGE_THRESHOLD / 4 + 5] {
            for at in [0, 1, 3, 15, 16, 17, 999, len - 1] {
                let at = at.min(len - 1);
                // SAFETY: `p` is a fresh buffer of `len` elements, all written here.
                let fill = |p: *mut f32| unsafe { core::ptr::write_bytes(p, 0, len) };
                let lead = lead_bytes::<f32>(at);
                // SAFETY: `fill` writes every element.
                let placed = unsafe { CpuBuffer::<f32>::try_init_placed("test", len, lead, fill) }.unwrap();
                // SAFETY: as above.
                let pooled = unsafe { CpuBuffer::<f32>::try_init_in_pool(&pool, "test", len, lead, fill) }.unwrap();
                for buf in [placed, pooled] {
                    assert_eq!(line_offset(&buf, at), 0, "len {len}, at {at}");
                    assert_eq!(buf.len(), len);
                    assert!(buf.as_slice().iter().all(|&x| x == 0.0));
                    let copy = buf.try_clone().unwrap();
                    assert_eq!(line_offset(&copy, at), 0, "a copy keeps the placement");
                    assert_eq!(copy.as_slice(), buf.as_slice());
                }
            }
        }
        // Bytes: the start may be any byte; element 0 and empty buffers as ever.
        // SAFETY: the closure writes every element.
        let b = unsafe { CpuBuffer::<u8>::try_init_placed("test", 1 << 10, 63, |p| p.write_bytes(7, 1 << 10)) };
        assert_eq!(line_offset(&b.unwrap(), 1), 0);
        // SAFETY: nothing to write.
        assert!(unsafe { CpuBuffer::<f64>::try_init_placed("test", 0, 40, |_| {}) }.unwrap().is_empty());
        // Where the lead alone takes a buffer past the huge-page threshold: staggered, and whole.
        let len = HUGE_PAGE_THRESHOLD / 4 - 1;
        // SAFETY: the closure writes every element.
        let b = unsafe { CpuBuffer::<f32>::try_init_placed("test", len, 60, |p| p.write_bytes(0, len)) }.unwrap();
        assert_eq!((line_offset(&b, 1), b.as_slice()[len - 1]), (0, 0.0));
        let Origin::System { layout, placement } = &b.origin else { panic!("a system allocation") };
        assert!(layout.size() >= len * 4 + 60 + placement::SPAN && *placement % CPU_ALIGN == 60);
    }

    #[test]
    fn leads_are_below_a_line_and_keep_the_element_aligned() {
        assert_eq!(lead_bytes::<f32>(0), 0);
        assert_eq!(lead_bytes::<f32>(4), 48); // a halo of 4 before an interior
        assert_eq!(lead_bytes::<f64>(1), 56);
        assert_eq!(lead_bytes::<[f32; 3]>(5), 4); // 60 bytes in: 4 before the line
                                                  // No overflow at the extremes: `at * 8 + lead` is a whole number of lines, wrapping.
        for at in [usize::MAX, usize::MAX - 1, usize::MAX / 3] {
            let lead = lead_bytes::<f64>(at);
            assert!(lead < CPU_ALIGN && lead % 8 == 0);
            assert_eq!(at.wrapping_mul(8).wrapping_add(lead) % CPU_ALIGN, 0);
        }
        #[repr(align(128))]
        struct Wide;
        assert_eq!(lead_bytes::<Wide>(3), 0, "types aligned beyond a line keep their own alignment");
    }

    #[test]
    #[should_panic(expected = "8-byte aligned elements cannot start 4 bytes past a cache line")]
    fn leads_that_would_misalign_the_elements_panic() {
        // SAFETY: refused before anything is written.
        let _ = unsafe { CpuBuffer::<f64>::try_init_placed("test", 4, 4, |p| p.write_bytes(0, 4)) };
    }

    #[test]
    fn huge_requests_are_errors_not_aborts() {
        let err = CpuBuffer::<f64>::try_zeroed("test", usize::MAX / 4).unwrap_err();
        assert!(matches!(err, Error::Overflow { .. }), "{err}");
        // Fits isize but not any machine's memory: the allocator must refuse, not abort.
        let err = CpuBuffer::<u8>::try_zeroed("test", 1 << 62).unwrap_err();
        assert!(matches!(err, Error::Alloc { .. }), "{err}");
        // The lead never pushes a fitting size past the limits unnoticed.
        // SAFETY: refused before anything is written.
        let err = unsafe { CpuBuffer::<u8>::try_init_placed("test", isize::MAX as usize, 63, |_| {}) }.unwrap_err();
        assert!(matches!(err, Error::Overflow { .. } | Error::Alloc { .. }), "{err}");
        // SAFETY: as above.
        let err = unsafe { CpuBuffer::<u8>::try_init_in_pool(&Pool::new(), "test", usize::MAX, 63, |_| {}) };
        assert!(matches!(err.unwrap_err(), Error::Overflow { .. }));
    }

    #[test]
    fn clones_are_deep() {
        let mut a = CpuBuffer::try_from_slice("test", &[1u8, 2, 3]).unwrap();
        let b = a.clone();
        a.as_mut_slice()[0] = 9;
        assert_eq!(b.as_slice(), &[1, 2, 3]);
    }
}
