//! HDF5 files (feature `hdf5`, the `hdf5-metno` crate over the system's HDF5 built with MPI:
//! Debian's `libhdf5-openmpi-dev`): an array as one dataset in row-major order, readable by h5py,
//! HDF5's tools and every other HDF5 reader. Reading checks the dataset's element type and rank
//! against the array's and fails with a typed error, never a guess. Distributed arrays write and
//! read one file collectively (`DistArray::save`, `DistArray::load`, feature `mpi` too).
//!
//! ```no_run
//! use cnda::interop::hdf5;
//! use cnda::prelude::*;
//!
//! let u = Array::from_fn([3, 4], |[i, j]| (i * 4 + j) as f64);
//! hdf5::save("u.h5", "u", &u);
//! let back: Array<f64, 2> = hdf5::load("u.h5", "u");
//! assert_eq!(back, u);
//! ```

use std::path::Path;

use crate::array::{Array, AsView};
use crate::element::Pod;
use crate::error::{or_panic, Error, Result};

pub use ::hdf5::H5Type;

/// Writes `a` as dataset `name` of a new file at `path` (an existing file is replaced).
///
/// # Panics
///
/// As [`try_save`] errs.
#[track_caller]
pub fn save<T: Pod + H5Type, const N: usize>(path: impl AsRef<Path>, name: &str, a: &impl AsView<T, N>) {
    or_panic(try_save(path, name, a))
}

/// [`save`], returning errors.
///
/// # Errors
///
/// `Error::Io` when the file cannot be created or written.
pub fn try_save<T: Pod + H5Type, const N: usize>(
    path: impl AsRef<Path>,
    name: &str,
    a: &impl AsView<T, N>,
) -> Result<()> {
    const OP: &str = "hdf5::save";
    let path = path.as_ref();
    let data = a.as_view().to_owned();
    let file = ::hdf5::File::create(path).map_err(|e| io(OP, path, e))?;
    let dataset = file.new_dataset::<T>().shape(data.shape().to_vec()).create(name).map_err(|e| io(OP, path, e))?;
    dataset.write_raw(data.as_slice()).map_err(|e| io(OP, path, e))
}

/// Dataset `name` of the file at `path` as an array.
///
/// # Panics
///
/// As [`try_load`] errs.
#[track_caller]
pub fn load<T: Pod + H5Type, const N: usize>(path: impl AsRef<Path>, name: &str) -> Array<T, N> {
    or_panic(try_load(path, name))
}

/// [`load`], returning errors.
///
/// # Errors
///
/// `Error::Io` for a missing, unreadable or truncated file or dataset; `Error::UnsupportedDType`
/// when the dataset's elements are not `T`; `Error::RankMismatch` when it has not `N` axes.
pub fn try_load<T: Pod + H5Type, const N: usize>(path: impl AsRef<Path>, name: &str) -> Result<Array<T, N>> {
    const OP: &str = "hdf5::load";
    let path = path.as_ref();
    let file = ::hdf5::File::open(path).map_err(|e| io(OP, path, e))?;
    let dataset = open_dataset::<T, N>(OP, path, &file, name)?;
    let shape: [usize; N] = core::array::from_fn(|k| dataset.shape()[k]);
    let data: Vec<T> = dataset.read_raw().map_err(|e| io(OP, path, e))?;
    Array::from_shape_vec(shape, data)
}

/// Dataset `name` of `file`, after checking its element type and rank.
///
/// # Errors
///
/// As [`try_load`].
pub(crate) fn open_dataset<T: H5Type, const N: usize>(
    op: &'static str,
    path: &Path,
    file: &::hdf5::File,
    name: &str,
) -> Result<::hdf5::Dataset> {
    let dataset = file
        .dataset(name)
        .map_err(|e| Error::Io { op, reason: format!("{} has no dataset `{name}` ({e})", path.display()) })?;
    let stored = dataset.dtype().and_then(|t| t.to_descriptor()).map_err(|e| io(op, path, e))?;
    let wanted = T::type_descriptor();
    if stored != wanted {
        return Err(Error::UnsupportedDType {
            op,
            got: format!("dataset `{name}` of {} holds {stored}, not {wanted}", path.display()),
            fix: "load it with the element type it was saved with, then convert",
        });
    }
    if dataset.ndim() != N {
        return Err(Error::RankMismatch { op, expected: N, got: dataset.ndim() });
    }
    Ok(dataset)
}

/// An HDF5 failure on `path` as `Error::Io`.
pub(crate) fn io(op: &'static str, path: &Path, e: ::hdf5::Error) -> Error {
    Error::Io { op, reason: format!("{}: {e}", path.display()) }
}
