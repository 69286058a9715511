//! Checkpoints of a [`State`] (feature `hdf5`): every field at every time level in one HDF5 file,
//! the datasets and attributes of [`DistState::save`](crate::dist::DistState::save)'s: dataset
//! `field{f}` holds field `f`'s newest level and `field{f}_level{l}` its level `l` (for `l >=
//! 1`), each the level's interior ([`State::interior_level`]: without the halo the state owns;
//! the whole array when it owns none), with attributes `step`, `time` and `halo` (the halo the
//! state owns, zeros for none). So a leapfrog scheme resumes with both of its levels, and a
//! distributed run's checkpoint resumes on one process. The scratch arrays are not saved (a
//! loaded state's start as copies of the newest levels).

use std::path::Path;

use super::State;
use crate::array::Array;
use crate::element::Pod;
use crate::error::{or_panic, Result};
use crate::interop::hdf5::{io, level_dataset, level_datasets, mark, open_checkpoint, Checkpoint, H5Type};
use crate::kernel::{CopyKernels, Cpu, Download, Upload};

impl<T: Pod + H5Type, const N: usize, const M: usize, const L: usize, B: Download + CopyKernels> State<T, N, M, L, B> {
    /// Writes every field at every level to a new HDF5 file at `path` (replacing one), with
    /// `checkpoint`'s step and time: dataset `field{f}` holds field `f`'s newest level and
    /// `field{f}_level{l}` its level `l`, each without the halo the state owns, with attributes
    /// `step`, `time` and `halo`; the scratch arrays are not saved. [`State::load`] resumes it.
    ///
    /// ```no_run
    /// use cnda::interop::hdf5::Checkpoint;
    /// use cnda::prelude::*;
    /// use cnda::stencil::{Boundary, State};
    ///
    /// stencil! {
    ///     #[levels(2)]
    ///     struct Wave = |u, um; c: f64| 2.0 * u[0, 0] - um[0, 0] + c * laplace(u, 2);
    /// }
    /// let pulse = Array::from_fn([64, 64], |[i, j]| if (i, j) == (32, 32) { 1.0 } else { 0.0 });
    /// let mut state = State::from_interior_levels([[pulse.clone(), pulse]], Wave::RADIUS);
    /// Wave.apply_steps_with(&mut state, 100, (), (0.1,), [Boundary::Fixed; 2]);
    /// state.save("wave.h5", Checkpoint { step: 100, time: 0.1 });
    /// let (mut resumed, at) = State::<f64, 2, 1, 2>::load("wave.h5", Wave::RADIUS);
    /// assert_eq!(at.step, 100);
    /// Wave.apply_steps_with(&mut resumed, 100, (), (0.1,), [Boundary::Fixed; 2]);
    /// ```
    ///
    /// # Panics
    ///
    /// As [`State::try_save`] errs.
    #[track_caller]
    pub fn save(&self, path: impl AsRef<Path>, checkpoint: Checkpoint) {
        or_panic(self.try_save(path, checkpoint))
    }

    /// [`State::save`], returning errors.
    ///
    /// # Errors
    ///
    /// `Error::Io` when the file cannot be created or written; `Error::Alloc` or
    /// `Error::Device` when a device level's copy down fails.
    pub fn try_save(&self, path: impl AsRef<Path>, checkpoint: Checkpoint) -> Result<()> {
        const OP: &str = "State::save";
        let path = path.as_ref();
        let halo = self.halo().unwrap_or([0; N]);
        let file = ::hdf5::File::create(path).map_err(|e| io(OP, path, e))?;
        for f in 0..M {
            for l in 0..L {
                let data = self.interior_level(f, l).try_to_host()?;
                let write = || -> ::hdf5::Result<()> {
                    let dataset =
                        file.new_dataset::<T>().shape(data.shape().to_vec()).create(level_dataset(f, l).as_str())?;
                    mark(&dataset, checkpoint, &halo)?;
                    dataset.write_raw(data.as_slice())
                };
                write().map_err(|e| io(OP, path, e))?;
            }
        }
        Ok(())
    }
}

impl<T: Pod + H5Type, const N: usize, const M: usize, const L: usize, B: CopyKernels> State<T, N, M, L, B> {
    /// Reads a checkpoint written by [`State::save`] or by
    /// [`DistState::save`](crate::dist::DistState::save) into a state whose arrays come from
    /// `alloc` (`&Cpu`, a device, or a pool), the saved interiors padded by `halo` (the stencil's
    /// radius, as [`State::from_interior_levels`] pads; all zeros for a checkpoint of a state
    /// whose arrays carried their own halos: then the arrays are the saved ones, as
    /// [`State::from_levels`] takes them); the step and time saved with it.
    ///
    /// # Panics
    ///
    /// As [`State::try_load_in`] errs.
    #[track_caller]
    pub fn load_in<D: Upload<Target = B>>(alloc: &D, path: impl AsRef<Path>, halo: [usize; N]) -> (Self, Checkpoint) {
        or_panic(Self::try_load_in(alloc, path, halo))
    }

    /// [`State::load_in`], returning errors.
    ///
    /// # Errors
    ///
    /// `Error::Io` for a missing, unreadable or truncated file, one without a field or a level
    /// of the state or their attributes, or levels of different shapes; `Error::UnsupportedDType`
    /// when the elements are not `T`; `Error::RankMismatch` when they have not `N` axes; as
    /// [`State::try_from_interior_levels`] for the padding and a device's memory.
    pub fn try_load_in<D: Upload<Target = B>>(
        alloc: &D,
        path: impl AsRef<Path>,
        halo: [usize; N],
    ) -> Result<(Self, Checkpoint)> {
        const OP: &str = "State::load";
        let path = path.as_ref();
        let file = ::hdf5::File::open(path).map_err(|e| io(OP, path, e))?;
        let (datasets, shape, checkpoint) = open_checkpoint::<T, N>(OP, path, &file, &level_datasets(M, L))?;
        let mut arrays = Vec::with_capacity(M * L);
        for dataset in &datasets {
            let data: Vec<T> = dataset.read_raw().map_err(|e| io(OP, path, e))?;
            arrays.push(Array::from_shape_vec(shape, data)?.try_to_device(alloc)?);
        }
        let mut arrays = arrays.into_iter();
        let levels: [[Array<T, N, B>; L]; M] =
            core::array::from_fn(|_| core::array::from_fn(|_| arrays.next().expect("one array per dataset")));
        let state = match halo == [0; N] {
            true => Self::try_from_levels(levels)?,
            false => Self::try_from_interior_levels(levels, halo)?,
        };
        Ok((state, checkpoint))
    }
}

impl<T: Pod + H5Type, const N: usize, const M: usize, const L: usize> State<T, N, M, L, Cpu> {
    /// [`State::load_in`] in host memory.
    ///
    /// # Panics
    ///
    /// As [`State::try_load`] errs.
    #[track_caller]
    pub fn load(path: impl AsRef<Path>, halo: [usize; N]) -> (Self, Checkpoint) {
        or_panic(Self::try_load(path, halo))
    }

    /// [`State::load`], returning errors.
    ///
    /// # Errors
    ///
    /// As [`State::try_load_in`].
    pub fn try_load(path: impl AsRef<Path>, halo: [usize; N]) -> Result<(Self, Checkpoint)> {
        Self::try_load_in(&Cpu, path, halo)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stencil::{Boundary, StencilApply};

    crate::stencil! {
        #[levels(2)]
        struct Wave = |u, um, m; c: f64| 1.9 * u[0, 0] - 0.9 * um[0, 0] + c * m[0, 0] * laplace(u, 4);
    }

    fn scratch(name: &str) -> std::path::PathBuf {
        std::env::temp_dir().join(format!("cnda-state-{}-{name}.h5", std::process::id()))
    }

    /// 30 steps straight equal 12 steps, a checkpoint, a load and 18 more, bit for bit: with the
    /// halo the state owns (Value sides, whose halos a load must refill) and with arrays that
    /// carry their own halos (Fixed sides, whose halo values the checkpoint keeps).
    #[test]
    fn a_resumed_state_steps_as_one_that_never_stopped() {
        let _files = crate::files_and_forks_one_at_a_time();
        let pulse =
            Array::from_fn([21, 26], |[i, j]| (-(((i as f64 - 10.0).powi(2) + (j as f64 - 13.0).powi(2)) / 8.0)).exp());
        let m = Array::from_fn([21, 26], |[i, j]| 1.0 + 0.01 * ((i * 7 + j) % 5) as f64);
        let b = [[Boundary::Value(0.25), Boundary::Neumann], [Boundary::Periodic, Boundary::Periodic]];
        let owned = || State::from_interior_levels([[pulse.clone(), pulse.map(|x| 0.9 * x)]], Wave::RADIUS);
        let mut straight = owned();
        Wave.apply_steps_with(&mut straight, 30, &m, (0.05,), b);
        let mut first = owned();
        Wave.apply_steps_with(&mut first, 12, &m, (0.05,), b);
        let path = scratch("owned");
        first.save(&path, Checkpoint { step: 12, time: 0.6 });
        let (mut resumed, at) = State::<f64, 2, 1, 2>::load(&path, Wave::RADIUS);
        assert_eq!(at, Checkpoint { step: 12, time: 0.6 });
        assert_eq!(resumed.halo(), Some(Wave::RADIUS));
        Wave.apply_steps_with(&mut resumed, 18, &m, (0.05,), b);
        for l in 0..2 {
            assert_eq!(resumed.interior_level(0, l).to_owned(), straight.interior_level(0, l).to_owned(), "level {l}");
        }

        // Arrays with their own halos (a constant 0.5 ring that `Fixed` keeps).
        let padded = |a: &Array<f64, 2>| {
            Array::from_fn([25, 30], |[i, j]| match (i, j) {
                (2..23, 2..28) => a[[i - 2, j - 2]],
                _ => 0.5,
            })
        };
        let mp = padded(&m);
        let whole = || State::from_levels([[padded(&pulse), padded(&pulse.map(|x| 0.9 * x))]]);
        let mut straight = whole();
        Wave.apply_steps_with(&mut straight, 30, &mp, (0.05,), [Boundary::Fixed; 2]);
        let mut first = whole();
        Wave.apply_steps_with(&mut first, 12, &mp, (0.05,), [Boundary::Fixed; 2]);
        let path = scratch("whole");
        first.save(&path, Checkpoint { step: 12, time: 0.6 });
        let (mut resumed, _) = State::<f64, 2, 1, 2>::load(&path, [0, 0]);
        assert_eq!(resumed.halo(), None);
        Wave.apply_steps_with(&mut resumed, 18, &mp, (0.05,), [Boundary::Fixed; 2]);
        assert_eq!(resumed.level(0, 0), straight.level(0, 0));
        assert_eq!(resumed.level(0, 1), straight.level(0, 1));
        let _ = std::fs::remove_file(scratch("owned"));
        let _ = std::fs::remove_file(path);
    }

    /// A checkpoint of another state's fields or levels, or of another element type, is a typed
    /// error naming what is missing.
    #[test]
    fn a_checkpoint_of_another_state_is_refused() {
        let _files = crate::files_and_forks_one_at_a_time();
        let u = Array::<f64, 2>::full([6, 7], 1.0);
        let path = scratch("refused");
        State::from_fields([u.clone()]).save(&path, Checkpoint { step: 1, time: 0.0 });
        let e = State::<f64, 2, 1, 2>::try_load(&path, [0, 0]).err().expect("one level saved, two asked").to_string();
        assert!(e.contains("field0_level1"), "{e}");
        let e = State::<f64, 2, 2, 1>::try_load(&path, [0, 0]).err().expect("one field saved, two asked").to_string();
        assert!(e.contains("field1"), "{e}");
        let e = State::<f32, 2, 1, 1>::try_load(&path, [0, 0]).err().expect("f64 saved, f32 asked").to_string();
        assert!(e.contains("convert"), "{e}");
        let (back, _) = State::<f64, 2, 1, 1>::load(&path, [1, 1]);
        assert_eq!(back.field(0).shape(), [8, 16], "the padded [8, 9] in rows of whole lines");
        assert_eq!(back.interior(0).to_owned(), u);
        let _ = std::fs::remove_file(path);
    }
}
