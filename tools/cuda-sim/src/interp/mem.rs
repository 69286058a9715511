//! Loads and stores: param and local memory are byte buffers of the call frame, shared memory
//! the block's buffer (through the race checker), global memory host memory checked against the
//! memory map. Every access must be aligned to its size, as on a GPU.

use crate::error::{CuResult, ILLEGAL_ADDRESS, MISALIGNED_ADDRESS};
use crate::memory::MemoryMap;

/// A failed access: the CUDA error and what happened.
pub type Fault = (CuResult, String);

/// `size` (1, 2, 4 or 8) bytes at `off` of `buf`, little-endian.
#[inline]
pub fn read_buf(buf: &[u8], off: u64, size: usize, what: &str) -> Result<u64, Fault> {
    let o = off as usize;
    if off.checked_add(size as u64).is_none_or(|end| end > buf.len() as u64) {
        return Err((
            ILLEGAL_ADDRESS,
            format!("{what} read of {size} bytes at offset {off} outside its {} bytes", buf.len()),
        ));
    }
    let mut v = [0u8; 8];
    v[..size].copy_from_slice(&buf[o..o + size]);
    Ok(u64::from_le_bytes(v))
}

/// Writes the low `size` bytes of `v` at `off` of `buf`.
#[inline]
pub fn write_buf(buf: &mut [u8], off: u64, size: usize, v: u64, what: &str) -> Result<(), Fault> {
    let o = off as usize;
    if off.checked_add(size as u64).is_none_or(|end| end > buf.len() as u64) {
        return Err((
            ILLEGAL_ADDRESS,
            format!("{what} write of {size} bytes at offset {off} outside its {} bytes", buf.len()),
        ));
    }
    buf[o..o + size].copy_from_slice(&v.to_le_bytes()[..size]);
    Ok(())
}

/// Checks alignment of an access.
#[inline]
pub fn aligned(addr: u64, size: usize, what: &str) -> Result<(), Fault> {
    if addr % size as u64 != 0 {
        return Err((MISALIGNED_ADDRESS, format!("misaligned {what} access of {size} bytes at 0x{addr:x}")));
    }
    Ok(())
}

/// A global load of `size` bytes at device address `addr`.
#[inline]
pub fn load_global(mem: &MemoryMap, addr: u64, size: usize) -> Result<u64, Fault> {
    aligned(addr, size, "global")?;
    mem.check(addr, size)
        .map_err(|why| (ILLEGAL_ADDRESS, format!("out-of-bounds global load of {size} bytes at 0x{addr:x}: {why}")))?;
    let mut v = [0u8; 8];
    // SAFETY: `[addr, addr + size)` lies inside a live allocation of the memory map (host memory
    // the sim owns), and the device lock held by the launch keeps it alive.
    unsafe { std::ptr::copy_nonoverlapping(addr as *const u8, v.as_mut_ptr(), size) };
    Ok(u64::from_le_bytes(v))
}

/// A global store of the low `size` bytes of `v` at device address `addr`.
#[inline]
pub fn store_global(mem: &MemoryMap, addr: u64, size: usize, v: u64) -> Result<(), Fault> {
    aligned(addr, size, "global")?;
    mem.check(addr, size)
        .map_err(|why| (ILLEGAL_ADDRESS, format!("out-of-bounds global store of {size} bytes at 0x{addr:x}: {why}")))?;
    // SAFETY: as for `load_global`; device memory is written only under the device lock.
    unsafe { std::ptr::copy_nonoverlapping(v.to_le_bytes().as_ptr(), addr as *mut u8, size) };
    Ok(())
}
