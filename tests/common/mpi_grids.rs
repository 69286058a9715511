//! Process grids, coarsened and staggered grids under `mpirun` (tests/mpi.rs): `dims_create`
//! against the MPI library's own `MPI_Dims_create`, halo exchanges on multigrid's coarsened
//! splits, and face-centred arrays beside cell-centred ones.

use cnda::dist::{Decomposition, DistArray};
use cnda::prelude::*;
use mpi::traits::Communicator;

use super::{expected, for_each_index, value};

/// `dims_create` against the MPI library's own `MPI_Dims_create` for 1 to 64 processes in 1 to 3
/// dimensions.
pub fn check_dims_create() {
    fn mpi_dims<const N: usize>(ranks: usize) -> [usize; N] {
        let mut dims = [0 as core::ffi::c_int; N];
        // SAFETY: MPI is initialized; `dims` has `N` entries, all 0 (free to choose).
        unsafe { mpi::ffi::MPI_Dims_create(ranks as core::ffi::c_int, N as core::ffi::c_int, dims.as_mut_ptr()) };
        dims.map(|d| d as usize)
    }
    for ranks in 1..=64 {
        assert_eq!(cnda::dist::dims_create::<1>(ranks), mpi_dims::<1>(ranks), "{ranks} in 1D");
        assert_eq!(cnda::dist::dims_create::<2>(ranks), mpi_dims::<2>(ranks), "{ranks} in 2D");
        assert_eq!(cnda::dist::dims_create::<3>(ranks), mpi_dims::<3>(ranks), "{ranks} in 3D");
    }
}

/// Halos after an exchange on every coarsened split of two grids (multigrid's levels: blocks
/// from the finest split), down to where a process would own nothing; the checks run.
pub fn check_coarsened(world: &impl Communicator) -> usize {
    let mut checks = 0;
    for (global, periodic) in [([63, 31], [false, false]), ([64, 31], [true, false])] {
        let mut d = Decomposition::new(global, world.size() as usize, periodic);
        while let Ok(coarse) = d.try_coarsened() {
            super::check_halos_of(DistArray::try_with_decomposition(world, coarse, [1, 1]).expect("a coarse block"));
            checks += 1;
            d = coarse;
        }
    }
    checks
}

/// A face-centred array on a cell array's decomposition: every process's faces line up with its
/// cells, the gathered array is the global one, and an exchange fills every halo point inside the
/// global grid with its value (the sentinel outside).
pub fn check_staggered(comm: &impl Communicator, cells: [usize; 2], axis: usize, halo: [usize; 2]) {
    let cell_array = DistArray::<f64, 2>::new(comm, cells, halo, [false; 2]);
    let mut faces = DistArray::<f64, 2>::staggered(&cell_array, axis, halo);
    let mut global = cells;
    global[axis] += 1;
    assert_eq!(faces.decomposition().global_shape(), global);
    let (fr, cr) = (faces.owned_range(), cell_array.owned_range());
    assert_eq!(fr[axis].start, cr[axis].start, "faces start at their cells' low sides");
    faces.local_mut().fill(-1.0);
    faces.fill_owned_with(value);
    if let Some(g) = faces.gather(0) {
        assert_eq!(g, Array::from_fn(global, value), "gathered faces {cells:?} axis {axis}");
    }
    faces.exchange_halos();
    for_each_index(faces.local().shape(), |i| {
        let want = expected(faces.global_index(i), global, [false; 2], -1.0);
        assert_eq!(faces.local()[i], want, "rank {} local {i:?}", faces.rank());
    });
}
