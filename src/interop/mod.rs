//! Conversions to and from other crates' arrays and other libraries' memory, each behind the
//! feature named after what it talks to: `ndarray` (zero-copy views both ways), `npy` (NumPy's
//! `.npy` files), `hdf5` (HDF5 files; distributed checkpoints through MPI-IO) and `cuda` (device
//! memory shared with other CUDA code: CuPy, PyTorch, DLPack).

#[cfg(feature = "cuda")]
mod cuda;
#[cfg(feature = "hdf5")]
pub mod hdf5;
#[cfg(feature = "ndarray")]
mod ndarray;
#[cfg(feature = "npy")]
pub mod npy;
