//! Distributed arrays: a global grid split into blocks, one per process of a Cartesian process
//! grid. [`Decomposition`] is the arithmetic of the split (process grid, each rank's block,
//! owners, neighbours), independent of any transport, so it is tested without MPI and shared by
//! every rank, which computes the same answer on its own. With feature `mpi`, `DistArray` holds
//! one block per MPI process with halos, exchanges them, and reduces, gathers and scatters over
//! MPI (the `mpi` crate, rsmpi).

#[cfg(feature = "mpi")]
mod agree;
#[cfg(feature = "mpi")]
mod array;
mod decomposition;
#[cfg(feature = "mpi")]
mod exchange;
#[cfg(feature = "mpi")]
mod gather;
#[cfg(feature = "mpi")]
mod stencil;
#[cfg(feature = "mpi")]
mod steps;

#[cfg(feature = "mpi")]
pub use array::DistArray;
pub use decomposition::{dims_create, Decomposition};
#[cfg(feature = "mpi")]
pub use stencil::{sweep_dist, try_sweep_dist, DistDoubleBuffer};

/// The MPI crate (rsmpi) cnda is built against, and what a program needs from it to start:
/// `cnda::dist::initialize()` gives the `Universe` whose `world()` the distributed arrays take,
/// and `Communicator` its `rank()` and `size()`. No separate `mpi` dependency to keep in step.
#[cfg(feature = "mpi")]
pub use ::mpi;
#[cfg(feature = "mpi")]
pub use ::mpi::environment::Universe;
#[cfg(feature = "mpi")]
pub use ::mpi::topology::SimpleCommunicator;
#[cfg(feature = "mpi")]
pub use ::mpi::traits::Communicator;
#[cfg(feature = "mpi")]
pub use ::mpi::{initialize, initialize_with_threading, Threading};
