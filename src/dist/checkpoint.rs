//! Checkpoints of distributed arrays (features `mpi` and `hdf5`): one HDF5 file written
//! collectively through MPI-IO, the global array as one dataset (`field`) in global index order,
//! whatever the process count and decomposition, with attributes `step`, `time`, `halo` and
//! `periodic` (the element type is the dataset's own). So a run saved on 4 processes resumes on 3
//! (or 1024), and h5py or any HDF5 tool reads the field as a plain array.

use std::path::Path;

use ::hdf5::{Dataset, Dataspace, Datatype, File, FileBuilder, Hyperslab, Selection, SliceOrIndex};
use mpi::datatype::Equivalence;
use mpi::raw::AsRaw;
use mpi::traits::Communicator;

use super::agree::agree;
use super::{DistArray, DistBackend};
use crate::array::Array;
use crate::element::Pod;
use crate::error::{or_panic, Error, Result};
pub use crate::interop::hdf5::Checkpoint;
use crate::interop::hdf5::{attribute, io, mark, open_checkpoint, H5Type};
use crate::kernel::{Allocator, Cpu};

/// The dataset a checkpoint holds its field in.
const FIELD: &str = "field";

/// `rank`'s block of `range` as an HDF5 hyperslab.
fn slab<const N: usize>(block: &[core::ops::Range<usize>; N]) -> Selection {
    let axes: Vec<SliceOrIndex> =
        block.iter().map(|r| SliceOrIndex::SliceCount { start: r.start, step: 1, count: r.len(), block: 1 }).collect();
    Selection::new(Hyperslab::from(axes))
}

// A process's block crosses into HDF5 as a flat slice in row-major order, through HDF5's own C
// calls (`hdf5-metno-sys`, the bindings hdf5-metno links): hdf5-metno's slicing methods take and
// return `ndarray` arrays of whichever `ndarray` (0.15 to 0.17) a user's build resolves for it,
// so naming their types here broke builds that resolved another one than cnda's (issue 36).

/// The dataspaces and memory type of one block transfer: `block` of `dataset`'s global array
/// on the file side, a flat run of as many elements of `T` on the memory side.
fn spaces<T: H5Type, const N: usize>(
    dataset: &Dataset,
    block: &[core::ops::Range<usize>; N],
) -> ::hdf5::Result<(Dataspace, Dataspace, Datatype, usize)> {
    let len = block.iter().map(|r| r.len()).product::<usize>();
    let file = dataset.space()?.select(slab(block))?;
    if file.selection_size() != len {
        return Err(format!("the block {block:?} selects {} points, not {len}", file.selection_size()).into());
    }
    Ok((file, Dataspace::try_new([len])?, Datatype::from_type::<T>()?, len))
}

/// Writes `data`, the row-major points of `block`, into `block` of `dataset` (independent I/O:
/// each process its own block).
fn write_block<T: H5Type, const N: usize>(
    dataset: &Dataset,
    block: &[core::ops::Range<usize>; N],
    data: &[T],
) -> ::hdf5::Result<()> {
    let (file, memory, dtype, len) = spaces::<T, N>(dataset, block)?;
    if data.len() != len {
        return Err(format!("{} points for a block of {len}", data.len()).into());
    }
    // HDF5 is not thread-safe: every call goes through the lock hdf5-metno takes for its own.
    let _lock = hdf5_sys::LOCK.lock();
    // SAFETY: the identifiers are live objects of this function (the dataset's is borrowed); the
    // memory space selects `len` elements, which `data` holds, of the memory type `T` describes;
    // HDF5 only reads them.
    let code = unsafe {
        hdf5_sys::h5d::H5Dwrite(
            dataset.id(),
            dtype.id(),
            memory.id(),
            file.id(),
            hdf5_sys::h5p::H5P_DEFAULT,
            data.as_ptr().cast(),
        )
    };
    status(code, "H5Dwrite")
}

/// An HDF5 call's status as a result (negative is failure), without hdf5-metno's hidden helpers.
fn status(code: hdf5_sys::h5::herr_t, call: &str) -> ::hdf5::Result<()> {
    if code < 0 {
        Err(format!("HDF5's {call} failed (status {code}) for this process's block of the dataset").into())
    } else {
        Ok(())
    }
}

/// The row-major points of `block` of `dataset`.
fn read_block<T: H5Type + Pod, const N: usize>(
    dataset: &Dataset,
    block: &[core::ops::Range<usize>; N],
) -> ::hdf5::Result<Vec<T>> {
    let (file, memory, dtype, len) = spaces::<T, N>(dataset, block)?;
    let mut data = vec![T::zeroed(); len];
    let _lock = hdf5_sys::LOCK.lock();
    // SAFETY: as in `write_block`, with `data` holding `len` writable elements of `T`, any bit
    // pattern of which is a value (`Pod`): HDF5 writes every one of them.
    let code = unsafe {
        hdf5_sys::h5d::H5Dread(
            dataset.id(),
            dtype.id(),
            memory.id(),
            file.id(),
            hdf5_sys::h5p::H5P_DEFAULT,
            data.as_mut_ptr().cast(),
        )
    };
    status(code, "H5Dread").map(|()| data)
}

impl<T: Pod + Equivalence + H5Type, const N: usize> DistArray<T, N> {
    /// Reads a checkpoint written by [`DistArray::save`] (on any number of processes) onto the
    /// processes of `comm`, in host memory; see [`DistArray::load_in`]. Collective.
    ///
    /// # Panics
    ///
    /// As [`DistArray::try_load`] errs.
    #[track_caller]
    pub fn load(comm: &impl Communicator, path: impl AsRef<Path>, halo: [usize; N]) -> (Self, Checkpoint) {
        or_panic(Self::try_load(comm, path, halo))
    }

    /// [`DistArray::load`], returning errors.
    ///
    /// # Errors
    ///
    /// As [`DistArray::try_load_in`].
    pub fn try_load(comm: &impl Communicator, path: impl AsRef<Path>, halo: [usize; N]) -> Result<(Self, Checkpoint)> {
        Self::try_load_in(&Cpu, comm, path, halo)
    }
}

impl<T: Pod + Equivalence + H5Type, const N: usize, B: DistBackend> DistArray<T, N, B> {
    /// Writes the global array to a new HDF5 file at `path` (replacing one), each process its own
    /// block, with `checkpoint`'s step and time. Collective: every process calls it with the same
    /// path.
    ///
    /// # Panics
    ///
    /// As [`DistArray::try_save`] errs.
    #[track_caller]
    pub fn save(&self, path: impl AsRef<Path>, checkpoint: Checkpoint) {
        or_panic(self.try_save(path, checkpoint))
    }

    /// [`DistArray::save`], returning errors.
    ///
    /// # Errors
    ///
    /// `Error::Io` when the file cannot be created or written; `Error::Device` when a device
    /// block's copy down fails (on every process alike: the processes agree on the outcome).
    pub fn try_save(&self, path: impl AsRef<Path>, checkpoint: Checkpoint) -> Result<()> {
        save_fields("DistArray::save", path.as_ref(), &[(FIELD.into(), self)], checkpoint)
    }

    /// Reads a checkpoint written by [`DistArray::save`] (on any number of processes) onto the
    /// processes of `comm`, split as [`DistArray::new`] splits, with halos `halo` (filled by the
    /// next exchange) and the saved periodicity, each block allocated from `alloc` (`&Cpu`, or a
    /// device: the block goes up after reading); the step and time saved with it. Collective.
    ///
    /// # Panics
    ///
    /// As [`DistArray::try_load_in`] errs.
    #[track_caller]
    pub fn load_in(
        alloc: &impl Allocator<B>,
        comm: &impl Communicator,
        path: impl AsRef<Path>,
        halo: [usize; N],
    ) -> (Self, Checkpoint) {
        or_panic(Self::try_load_in(alloc, comm, path, halo))
    }

    /// [`DistArray::load_in`], returning errors.
    ///
    /// # Errors
    ///
    /// `Error::Io` for a missing, unreadable or truncated file, or one without the field or its
    /// attributes; `Error::UnsupportedDType` when the field's elements are not `T`;
    /// `Error::RankMismatch` when it has not `N` axes; as [`DistArray::try_new_in`] for the
    /// split and a device's memory. Every process returns the same error.
    pub fn try_load_in(
        alloc: &impl Allocator<B>,
        comm: &impl Communicator,
        path: impl AsRef<Path>,
        halo: [usize; N],
    ) -> Result<(Self, Checkpoint)> {
        let (arrays, checkpoint) = load_fields("DistArray::load", alloc, comm, path.as_ref(), &[FIELD.into()], halo)?;
        let array = arrays.into_iter().next().expect("one array per name");
        Ok((array, checkpoint))
    }

    /// The global index ranges of this process's block.
    pub(super) fn owned_range_global(&self) -> [core::ops::Range<usize>; N] {
        self.decomposition().block(self.rank())
    }
}

/// Writes `fields` (each a dataset name and an array; all split alike) to a new HDF5 file at
/// `path` (replacing one), each process its own blocks, every dataset with `checkpoint`'s step
/// and time and the split's halo and periodicity. Collective.
///
/// # Errors
///
/// As [`DistArray::try_save`], on every process alike.
pub(super) fn save_fields<T: Pod + Equivalence + H5Type, const N: usize, B: DistBackend>(
    op: &'static str,
    path: &Path,
    fields: &[(String, &DistArray<T, N, B>)],
    checkpoint: Checkpoint,
) -> Result<()> {
    let first = fields.first().expect("at least one field").1;
    let write = |owned: Vec<Array<T, N>>| -> ::hdf5::Result<()> {
        let file = FileBuilder::new().with_fapl(|p| p.mpio(first.comm.as_raw(), None)).create(path)?;
        let global = first.decomposition().global_shape();
        for ((name, array), owned) in fields.iter().zip(&owned) {
            let dataset = file.new_dataset::<T>().shape(global.to_vec()).create(name.as_str())?;
            mark(&dataset, checkpoint, &array.halo())?;
            let periodic: Vec<u8> = array.decomposition().periodic().iter().map(|&p| u8::from(p)).collect();
            dataset.new_attr::<u8>().shape(N).create("periodic")?.write_raw(&periodic)?;
            write_block(&dataset, &array.owned_range_global(), owned.as_slice())?;
        }
        Ok(())
    };
    // Agreed first: opening the file is collective, so every process must reach it.
    let owned = fields.iter().map(|(_, a)| a.owned().try_to_host()).collect::<Result<Vec<_>>>();
    let owned = agree(&*first.comm, op, owned)?;
    let local = write(owned).map_err(|e| io(op, path, e));
    agree(&*first.comm, op, local)
}

/// Reads the datasets `names` of a checkpoint (written on any number of processes) onto the
/// processes of `comm`, split as [`DistArray::new`] splits with halos `halo` and the saved
/// periodicity (of the first dataset; every dataset of its shape), each block allocated from
/// `alloc`; the step and time saved with the first. Collective.
///
/// # Errors
///
/// As [`DistArray::try_load_in`], on every process alike.
pub(super) fn load_fields<T: Pod + Equivalence + H5Type, const N: usize, B: DistBackend>(
    op: &'static str,
    alloc: &impl Allocator<B>,
    comm: &impl Communicator,
    path: &Path,
    names: &[String],
    halo: [usize; N],
) -> Result<(Vec<DistArray<T, N, B>>, Checkpoint)> {
    let header = (|| -> Result<(File, [usize; N], [bool; N], Checkpoint)> {
        let file =
            FileBuilder::new().with_fapl(|p| p.mpio(comm.as_raw(), None)).open(path).map_err(|e| io(op, path, e))?;
        let (datasets, shape, checkpoint) = open_checkpoint::<T, N>(op, path, &file, names)?;
        let periodic: Vec<u8> =
            attribute(op, path, &datasets[0], &names[0], "periodic")?.read_raw().map_err(|e| io(op, path, e))?;
        if periodic.len() != N {
            return Err(Error::Io {
                op,
                reason: format!("{}: `periodic` has {} entries", path.display(), periodic.len()),
            });
        }
        Ok((file, shape, core::array::from_fn(|k| periodic[k] != 0), checkpoint))
    })();
    let (file, global, periodic, checkpoint) = agree(comm, op, header)?;
    let mut arrays = Vec::with_capacity(names.len());
    for name in names {
        let mut array = DistArray::try_new_in(alloc, comm, global, halo, periodic)?;
        let block = array.owned_range_global();
        let local =
            file.dataset(name).and_then(|d| read_block::<T, N>(&d, &block)).map_err(|e| io(op, path, e)).and_then(
                |data| {
                    let shape: [usize; N] = core::array::from_fn(|k| block[k].len());
                    let block = Array::from_shape_vec(shape, data)?;
                    array.try_set_owned(&block)
                },
            );
        agree(comm, op, local)?;
        arrays.push(array);
    }
    Ok((arrays, checkpoint))
}
