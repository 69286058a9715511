//! Checkpoints of a whole [`DistState`] (features `mpi` and `hdf5`): every field at every time
//! level in one HDF5 file, written collectively as [`DistArray::save`] writes one field: dataset
//! `field{f}` holds field `f`'s newest level and `field{f}_level{l}` its level `l` (for `l >=
//! 1`), each in global index order with the same attributes. So a leapfrog scheme resumes with
//! both of its levels, on any number of processes. The scratch fields are not saved (a resumed
//! state's start as copies of the newest levels): with `Fixed` sides, keep the boundary values
//! alike at every level, as a state whose levels start from one field does.

use std::path::Path;

use mpi::datatype::Equivalence;
use mpi::traits::Communicator;

use super::checkpoint::{load_fields, save_fields};
use super::{Checkpoint, DistArray, DistBackend, DistState};
use crate::element::Pod;
use crate::error::{or_panic, Result};
use crate::interop::hdf5::{level_dataset, level_datasets, H5Type};
use crate::kernel::{Allocator, Cpu};

impl<T: Pod + Equivalence + H5Type, const N: usize, const M: usize, const L: usize, B: DistBackend>
    DistState<T, N, M, L, B>
{
    /// Writes every field at every level to a new HDF5 file at `path` (replacing one), with
    /// `checkpoint`'s step and time (see the module documentation for the datasets). Collective.
    ///
    /// # Panics
    ///
    /// As [`DistState::try_save`] errs.
    #[track_caller]
    pub fn save(&self, path: impl AsRef<Path>, checkpoint: Checkpoint) {
        or_panic(self.try_save(path, checkpoint))
    }

    /// [`DistState::save`], returning errors.
    ///
    /// # Errors
    ///
    /// As [`DistArray::try_save`].
    pub fn try_save(&self, path: impl AsRef<Path>, checkpoint: Checkpoint) -> Result<()> {
        let fields: Vec<(String, &DistArray<T, N, B>)> =
            (0..M).flat_map(|f| (0..L).map(move |l| (level_dataset(f, l), self.level(f, l)))).collect();
        save_fields("DistState::save", path.as_ref(), &fields, checkpoint)
    }

    /// Reads a checkpoint written by [`DistState::save`] (on any number of processes) onto the
    /// processes of `comm`, split as [`DistArray::new`] splits, with halos `halo` and the saved
    /// periodicity, each block allocated from `alloc`; the step and time saved with it.
    /// Collective.
    ///
    /// # Panics
    ///
    /// As [`DistState::try_load_in`] errs.
    #[track_caller]
    pub fn load_in(
        alloc: &impl Allocator<B>,
        comm: &impl Communicator,
        path: impl AsRef<Path>,
        halo: [usize; N],
    ) -> (Self, Checkpoint) {
        or_panic(Self::try_load_in(alloc, comm, path, halo))
    }

    /// [`DistState::load_in`], returning errors.
    ///
    /// # Errors
    ///
    /// As [`DistArray::try_load_in`]; `Error::Io` also when the file lacks a field or a level of
    /// the state, or they differ in shape.
    pub fn try_load_in(
        alloc: &impl Allocator<B>,
        comm: &impl Communicator,
        path: impl AsRef<Path>,
        halo: [usize; N],
    ) -> Result<(Self, Checkpoint)> {
        const OP: &str = "DistState::load";
        let (arrays, checkpoint) = load_fields(OP, alloc, comm, path.as_ref(), &level_datasets(M, L), halo)?;
        let mut arrays = arrays.into_iter();
        let levels: [[DistArray<T, N, B>; L]; M] =
            core::array::from_fn(|_| core::array::from_fn(|_| arrays.next().expect("one array per dataset")));
        Ok((Self::try_from_levels(levels)?, checkpoint))
    }
}

impl<T: Pod + Equivalence + H5Type, const N: usize, const M: usize, const L: usize> DistState<T, N, M, L, Cpu> {
    /// [`DistState::load_in`] in host memory.
    ///
    /// # Panics
    ///
    /// As [`DistState::try_load`] errs.
    #[track_caller]
    pub fn load(comm: &impl Communicator, path: impl AsRef<Path>, halo: [usize; N]) -> (Self, Checkpoint) {
        or_panic(Self::try_load(comm, path, halo))
    }

    /// [`DistState::load`], returning errors.
    ///
    /// # Errors
    ///
    /// As [`DistState::try_load_in`].
    pub fn try_load(comm: &impl Communicator, path: impl AsRef<Path>, halo: [usize; N]) -> Result<(Self, Checkpoint)> {
        Self::try_load_in(&Cpu, comm, path, halo)
    }
}
