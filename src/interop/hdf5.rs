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

/// Where a checkpoint was taken: the step count and simulated time the program saved with it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Checkpoint {
    /// The step the field is at.
    pub step: u64,
    /// The simulated time the field is at.
    pub time: f64,
}

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

/// The dataset of field `f` at time level `l` in a checkpoint of a state: `field{f}` for the
/// newest level, `field{f}_level{l}` for the older ones.
pub(crate) fn level_dataset(f: usize, l: usize) -> String {
    if l == 0 {
        format!("field{f}")
    } else {
        format!("field{f}_level{l}")
    }
}

/// Every dataset of a state of `m` fields at `l` levels, field by field, newest level first.
pub(crate) fn level_datasets(m: usize, l: usize) -> Vec<String> {
    (0..m).flat_map(|f| (0..l).map(move |k| level_dataset(f, k))).collect()
}

/// Marks `dataset` as part of a checkpoint: attributes `step` and `time`, and `halo` (the halo
/// the field was stepped with, per axis).
pub(crate) fn mark(dataset: &::hdf5::Dataset, checkpoint: Checkpoint, halo: &[usize]) -> ::hdf5::Result<()> {
    dataset.new_attr::<u64>().create("step")?.write_scalar(&checkpoint.step)?;
    dataset.new_attr::<f64>().create("time")?.write_scalar(&checkpoint.time)?;
    let halo: Vec<u64> = halo.iter().map(|&h| h as u64).collect();
    dataset.new_attr::<u64>().shape(halo.len()).create("halo")?.write_raw(&halo)
}

/// Attribute `attr` of dataset `name`, or an `Error::Io` asking whether the file is a checkpoint.
pub(crate) fn attribute(
    op: &'static str,
    path: &Path,
    dataset: &::hdf5::Dataset,
    name: &str,
    attr: &str,
) -> Result<::hdf5::Attribute> {
    dataset.attr(attr).map_err(|e| Error::Io {
        op,
        reason: format!("{}: `{name}` has no `{attr}` attribute ({e}); is it a cnda checkpoint?", path.display()),
    })
}

/// The datasets `names` of a checkpoint in `file`, each checked for `T`, rank `N` and one shared
/// shape, with that shape and the step and time saved with the first.
///
/// # Errors
///
/// As [`try_load`]; `Error::Io` also for a dataset without the checkpoint's attributes, or of
/// another shape than the first.
pub(crate) fn open_checkpoint<T: H5Type, const N: usize>(
    op: &'static str,
    path: &Path,
    file: &::hdf5::File,
    names: &[String],
) -> Result<(Vec<::hdf5::Dataset>, [usize; N], Checkpoint)> {
    let datasets = names.iter().map(|name| open_dataset::<T, N>(op, path, file, name)).collect::<Result<Vec<_>>>()?;
    let first = &datasets[0];
    let step = attribute(op, path, first, &names[0], "step")?.read_scalar::<u64>().map_err(|e| io(op, path, e))?;
    let time = attribute(op, path, first, &names[0], "time")?.read_scalar::<f64>().map_err(|e| io(op, path, e))?;
    let shape = first.shape();
    for (name, other) in names.iter().zip(&datasets).skip(1) {
        if other.shape() != shape {
            return Err(Error::Io {
                op,
                reason: format!(
                    "{}: `{name}` has the shape {:?}, `{}` {shape:?}: not one state's",
                    path.display(),
                    other.shape(),
                    names[0]
                ),
            });
        }
    }
    Ok((datasets, core::array::from_fn(|k| shape[k]), Checkpoint { step, time }))
}
