//! A device backend as a downstream crate (or cnda's `cuda` feature) would define it, shared by
//! the compile-fail cases about backends (included with `#[path]`; not a case itself).
#![allow(dead_code)]

use cnda::prelude::*;

/// A device backend as a downstream crate (or cnda's `cuda` feature) would define it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Gpu;

pub struct GpuBuffer;

/// A device address.
#[derive(Clone, Copy)]
pub struct GpuPtr(u64);

#[derive(Clone, Debug)]
pub struct GpuAlloc;

unsafe impl Allocator<Gpu> for GpuAlloc {
    fn device(&self) -> Gpu {
        Gpu
    }
    fn try_alloc_zeroed<T: Pod>(&self, _: &'static str, _: usize) -> Result<GpuBuffer, Error> {
        Ok(GpuBuffer)
    }
    unsafe fn try_alloc_for_overwrite<T: Pod>(&self, _: &'static str, _: usize) -> Result<GpuBuffer, Error> {
        Ok(GpuBuffer)
    }
}

impl Backend for Gpu {
    const NAME: &'static str = "Gpu";
    type Device = Gpu;
    type Buffer<T: Pod> = GpuBuffer;
    type Handle<T: Pod> = GpuPtr;
    type Alloc = GpuAlloc;
    fn handle<T: Pod>(_: &GpuBuffer, offset: isize) -> GpuPtr {
        GpuPtr(offset as u64)
    }
    fn handle_mut<T: Pod>(_: &mut GpuBuffer, offset: isize) -> GpuPtr {
        GpuPtr(offset as u64)
    }
    fn moved<T: Pod>(h: GpuPtr, offset: isize) -> GpuPtr {
        GpuPtr(h.0.wrapping_add(offset as u64))
    }
    fn part_handle<T: Pod, F: Pod>(h: GpuPtr) -> GpuPtr {
        h
    }
    fn handle_device<T: Pod>(_: GpuPtr) -> Gpu {
        Gpu
    }
    fn allocator_of<T: Pod>(_: &GpuBuffer) -> GpuAlloc {
        GpuAlloc
    }
    fn allocator_of_handle<T: Pod>(_: GpuPtr) -> GpuAlloc {
        GpuAlloc
    }
}
