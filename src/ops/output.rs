//! The steps every generic op algorithm shares: the same-device check and a fresh output from an
//! allocator.

use crate::array::Array;
use crate::check::BoundsCheck;
use crate::element::Pod;
use crate::error::{Error, Result};
use crate::kernel::Desc;
use crate::kernel::{Allocator, Backend};
use crate::layout::RowMajor;

/// `Error::DeviceMismatch` unless every device in `others` is `dev`.
pub(crate) fn same_device<B: Backend>(op: &'static str, dev: &B::Device, others: &[B::Device]) -> Result<()> {
    match others.iter().find(|d| *d != dev) {
        None => Ok(()),
        Some(other) => {
            Err(Error::DeviceMismatch { op, backend: B::NAME, expected: format!("{dev:?}"), got: format!("{other:?}") })
        }
    }
}

/// A fresh row-major array of `shape` from `alloc`, whose elements `write` must all write.
///
/// # Safety
///
/// `write` writes every element of the descriptor it gets before anything reads one (if it fails,
/// the array is dropped unread).
///
/// # Errors
///
/// `Error::Overflow` when the shape's bytes do not fit; the allocator's and `write`'s errors.
pub(crate) unsafe fn fresh<B: Backend, T: Pod, const N: usize, C: BoundsCheck>(
    alloc: &impl Allocator<B>,
    op: &'static str,
    shape: [usize; N],
    write: impl FnOnce(Desc<B, T, N>) -> Result<()>,
) -> Result<Array<T, N, B, RowMajor, C>> {
    let len = crate::shape::checked_len(op, &shape, core::mem::size_of::<T>())?;
    // SAFETY: `write` writes every element before any read (caller's contract).
    let buf = unsafe { alloc.try_alloc_for_overwrite::<T>(op, len) }?;
    let mut out = Array::from_buffer_in(buf, shape);
    write(out.desc_mut())?;
    Ok(out)
}
