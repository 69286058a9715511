//! The memory behind a Python array: a cnda buffer it owns, or a NumPy array it borrows (kept
//! alive by a reference), viewed as a contiguous row-major block of a run-time shape.

use core::sync::atomic::{AtomicUsize, Ordering};

use cnda::view::{DynView, DynViewMut};
use cnda::{Array, Pod};
use pyo3::prelude::*;

use crate::errors::to_pyerr;

/// Owned cnda buffers alive now (for tests that check each is freed exactly once).
static LIVE: AtomicUsize = AtomicUsize::new(0);

/// The number of cnda buffers owned by Python arrays and not yet freed.
#[pyfunction]
#[pyo3(name = "_live_buffers")]
pub fn live_buffers() -> usize {
    LIVE.load(Ordering::SeqCst)
}

/// Where the elements live.
pub enum Memory<T: Pod> {
    /// A cnda buffer (cache-line aligned, or a padded array's interior on a line), one dimension of all the elements.
    Owned(Array<T, 1>),
    /// Another library's memory (a NumPy array, a DLPack tensor), C-contiguous, aligned and of
    /// type `T` (checked by `from_numpy` / `from_dlpack`), kept alive by `keep`; written only when
    /// `writable` (the producer's flag, checked).
    Borrowed { keep: Keep, ptr: *mut T, len: usize, writable: bool },
}

/// What keeps borrowed memory alive.
pub enum Keep {
    /// A reference to the NumPy array.
    Python(#[allow(dead_code)] Py<PyAny>),
    /// The imported DLPack tensor, whose deleter runs when this is dropped.
    Dlpack(#[allow(dead_code)] dlpark::AllocationDeleter),
}

// SAFETY: the only non-thread-safe part is the raw pointer of `Borrowed`, to memory that `keep`
// (a `Py` reference or a DLPack deleter, both Send + Sync) keeps alive wherever the store goes. The
// store's elements are read and written by `ContiguousND`/`StructuredND` methods, which hold the
// interpreter lock and a PyO3 borrow of the object (the module is built for the stable ABI, which
// only GIL-enabled interpreters load, so the lock orders them), and by cnda's kernels through
// NumPy views with the lock released: those hold a lease on the memory (`overlap.rs`), which every
// method checks (`check_read`/`check_write`) right before its access, with no Python code between.
unsafe impl<T: Pod> Send for Memory<T> {}
// SAFETY: as for `Send`: shared access happens under the interpreter lock.
unsafe impl<T: Pod> Sync for Memory<T> {}

/// A contiguous row-major block of `shape`.
pub struct Store<T: Pod> {
    pub memory: Memory<T>,
    pub shape: Vec<usize>,
}

impl<T: Pod> Store<T> {
    /// Zeros of `shape`.
    pub fn zeros(shape: Vec<usize>) -> PyResult<Self> {
        let len = element_count::<T>("ContiguousND", &shape)?;
        let array = Array::try_zeros([len]).map_err(to_pyerr)?;
        Ok(Self::owning(array, shape))
    }

    /// A store owning `array` (whose length is the product of `shape`).
    pub fn owning(array: Array<T, 1>, shape: Vec<usize>) -> Self {
        LIVE.fetch_add(1, Ordering::SeqCst);
        Store { memory: Memory::Owned(array), shape }
    }

    /// The first element.
    pub fn ptr(&self) -> *mut T {
        match &self.memory {
            Memory::Owned(a) => a.as_slice().as_ptr().cast_mut(),
            Memory::Borrowed { ptr, .. } => *ptr,
        }
    }

    /// The elements, in row-major order.
    pub fn as_slice(&self) -> &[T] {
        match &self.memory {
            Memory::Owned(a) => a.as_slice(),
            // SAFETY: `from_numpy` / `from_dlpack` checked that `ptr` addresses `len` aligned,
            // initialized elements of type `T`, which `keep` keeps alive.
            Memory::Borrowed { ptr, len, .. } => unsafe { core::slice::from_raw_parts(*ptr, *len) },
        }
    }

    /// Whether the elements may be written.
    pub fn writable(&self) -> bool {
        !matches!(self.memory, Memory::Borrowed { writable: false, .. })
    }

    /// The elements, mutably.
    ///
    /// # Errors
    ///
    /// `RuntimeError` (`cnda::Error::Ownership`) for a read-only view of NumPy memory.
    pub fn as_mut_slice(&mut self, op: &'static str) -> PyResult<&mut [T]> {
        match &mut self.memory {
            Memory::Owned(a) => Ok(a.as_mut_slice()),
            Memory::Borrowed { ptr, len, writable: true, .. } => {
                // SAFETY: as in `as_slice`; the NumPy array is writable (checked); callers check the
                // leases of running kernels first (`overlap::check_write`).
                Ok(unsafe { core::slice::from_raw_parts_mut(*ptr, *len) })
            }
            Memory::Borrowed { writable: false, .. } => Err(to_pyerr(cnda::Error::Ownership {
                op,
                reason: "this array is a read-only view of a NumPy array's memory".into(),
                fix: "write to a copy (arr.copy()), or share a writable NumPy array with from_numpy(x)",
            })),
        }
    }

    /// The elements as a view of the store's shape.
    pub fn view(&self) -> PyResult<DynView<'_, T>> {
        DynView::from_slice(&self.shape, self.as_slice()).map_err(to_pyerr)
    }

    /// The elements as a mutable view of the store's shape.
    ///
    /// # Errors
    ///
    /// As [`Store::as_mut_slice`].
    pub fn view_mut(&mut self, op: &'static str) -> PyResult<DynViewMut<'_, T>> {
        let shape = self.shape.clone();
        DynViewMut::from_slice(&shape, self.as_mut_slice(op)?).map_err(to_pyerr)
    }
}

/// A Python index (one entry per axis; negative entries count from the end) as cnda's.
///
/// # Errors
///
/// `IndexError` for the wrong number of entries or a negative entry past the start; an entry
/// past the end is left for the view's check, which names axis, index and size.
pub fn python_index(index: &[isize], shape: &[usize]) -> PyResult<Vec<usize>> {
    if index.len() != shape.len() {
        return Err(pyo3::exceptions::PyIndexError::new_err(format!(
            "{} indices for an array of {} dimensions; give one index per axis",
            index.len(),
            shape.len()
        )));
    }
    index
        .iter()
        .zip(shape)
        .enumerate()
        .map(|(axis, (&i, &n))| match i {
            0.. => Ok(i as usize),
            _ => i.checked_add(n as isize).filter(|&a| a >= 0).map(|a| a as usize).ok_or_else(|| {
                pyo3::exceptions::PyIndexError::new_err(format!(
                    "index {i} is out of bounds for axis {axis} with size {n}; valid indices on this axis are -{n}..{n}"
                ))
            }),
        })
        .collect()
}

impl<T: Pod> Drop for Store<T> {
    fn drop(&mut self) {
        if matches!(self.memory, Memory::Owned(_)) {
            LIVE.fetch_sub(1, Ordering::SeqCst);
        }
    }
}

/// The number of elements of `shape`, under cnda's one size rule (NumPy's: the non-zero axes
/// times the element size fit `isize`, even when another axis is 0), or `ValueError`.
pub fn element_count<T>(op: &'static str, shape: &[usize]) -> PyResult<usize> {
    cnda::shape::checked_len(op, shape, core::mem::size_of::<T>()).map_err(to_pyerr)
}
