//! Distributed arrays: a global grid split into blocks, one per process of a Cartesian process
//! grid. [`Decomposition`] is the arithmetic of the split (process grid, each rank's block,
//! owners, neighbours), independent of any transport, so it is tested without MPI and shared by
//! every rank, which computes the same answer on its own. With feature `mpi`, `DistArray` holds
//! one block per MPI process with halos, exchanges them, and reduces, gathers and scatters over
//! MPI (the `mpi` crate, rsmpi, re-exported here with what a program needs to start:
//! `initialize`, `Universe`, `Communicator`).
//!
//! # Blocks on devices
//!
//! `DistArray<T, N, B>` keeps its block where backend `B` keeps arrays: host memory (`Cpu`, the
//! default) or a device's (`Cuda`, `Wgpu`; [`DistArray::new_in`] takes the device). On the host
//! the halo messages go to MPI in place (contiguous faces) or packed; a device block's regions
//! are packed by the device's copy kernel, come down to host staging memory (page-locked on
//! CUDA) in one transfer,
//! travel, and go back up, while the interior sweep runs on the device. Sweeps, deep halos,
//! reductions, gather, scatter and checkpoints are the same calls on every backend, with the
//! same results bit for bit (the device kernels round as the CPU's do), but for sums, whose
//! order of additions is the backend's.
//!
//! Errors are returned on every process alike: the processes agree on what they can check
//! alone before communicating (a bad split, a halo too narrow, memory refused for a block, a
//! stencil past the kernel's tap limit), and where the work itself can fail on some processes
//! only (a device's error in an exchange, a sweep or a reduction; an expression kernel's
//! limits, met only by the processes that sweep) they agree on its outcome before returning, so
//! no process waits in a collective for one that returned an error. Only MPI's own errors
//! (under an error handler that returns them; the default aborts the job) stay with the
//! processes MPI reports them to.
//!
//! # Threads per process
//!
//! Each process runs cnda's `par_*` kernels on rayon's global pool, which starts one thread per
//! CPU the process may run on. Several processes on one node, each free to use every core,
//! oversubscribe it: a memory-bound sweep then runs no faster and the exchanges wait behind
//! descheduled threads. Give each process its share, before its first parallel call:
//!
//! - bind the processes to disjoint cores and let rayon count them: Open MPI's
//!   `mpirun --map-by ppr:4:node:pe=8 --bind-to core` gives each of 4 processes per node 8
//!   cores, and `std::thread::available_parallelism` (rayon's default) honours the binding;
//! - or size the pool yourself: `RAYON_NUM_THREADS=8 mpirun ...`, or at start-up
//!   `rayon::ThreadPoolBuilder::new().num_threads(cores / per_node).build_global()`, where
//!   `per_node` is `world.split_shared(0).size()` (the processes sharing this node's memory).
//!
//! One process per node with all its cores, or one per socket (NUMA domain) with that socket's
//! cores, are the usual choices for memory-bound stencils: fewer, larger blocks exchange fewer
//! halo bytes than one process per core.

#[cfg(feature = "mpi")]
pub(crate) mod agree;
#[cfg(feature = "mpi")]
mod array;
#[cfg(feature = "mpi")]
mod block;
#[cfg(feature = "mpi")]
pub(crate) mod bound;
#[cfg(feature = "mpi")]
mod boundaries;
#[cfg(feature = "hdf5")]
mod checkpoint;
mod coarsen;
#[cfg(feature = "mpi")]
mod collectives;
mod decomposition;
#[cfg(feature = "mpi")]
mod exchange;
#[cfg(feature = "mpi")]
mod expr;
#[cfg(feature = "mpi")]
mod gather;
#[cfg(feature = "mpi")]
mod halos;
#[cfg(feature = "mpi")]
mod points;
#[cfg(feature = "mpi")]
mod staged;
#[cfg(feature = "mpi")]
mod stages;
#[cfg(feature = "mpi")]
mod state;
#[cfg(feature = "hdf5")]
mod state_checkpoint;
#[cfg(feature = "mpi")]
mod stencil;
#[cfg(feature = "mpi")]
mod steps;
#[cfg(feature = "mpi")]
mod systems;
#[cfg(feature = "mpi")]
mod together;
#[cfg(feature = "mpi")]
pub(crate) mod transpose;

#[cfg(feature = "mpi")]
pub use array::DistArray;
#[cfg(feature = "mpi")]
pub use block::DistBackend;
#[cfg(feature = "hdf5")]
pub use checkpoint::Checkpoint;
pub use decomposition::{dims_create, Decomposition};
#[cfg(feature = "mpi")]
pub use expr::StencilApplyDist;
#[cfg(feature = "mpi")]
pub use state::DistState;
#[cfg(feature = "mpi")]
pub use stencil::{sweep_dist, try_sweep_dist, DistDoubleBuffer};
#[cfg(feature = "mpi")]
pub use systems::DistCoefficients;

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
