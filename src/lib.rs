//! # cnda: N-dimensional arrays whose rank, layout, backend and bounds policy are types
//!
//! ```
//! use cnda::prelude::*;
//!
//! // A 2D row-major f64 array on the CPU, checked per axis in every build (`DefaultCheck`).
//! let mut u = Array::<f64, 2>::zeros([4, 5]);
//! u[[1, 2]] = 1.0;
//! let v = u.view();
//! assert_eq!(v.shape(), [4, 5]);
//! assert_eq!(v.strides(), [5, 1]);
//! assert_eq!(u.at([4, 0]).unwrap_err().to_string(),
//!            "index 4 is out of bounds for axis 0 with size 4; valid indices on this axis are 0..4");
//! ```
//!
//! `Array<T, N, B, L, C>`: `T` a [`Pod`] element, `N` the rank, `B` the
//! [`backend`], `L` the [`layout`], `C` the [bounds-check policy](check). Wrong
//! index arity, a non-`Pod` element, indexing device memory from the CPU or writing through a
//! shared view are compile errors.
//!
//! Where to start:
//! - [`Array`] for construction (`zeros`, `from_fn`, `linspace`, `arange`, `eye`), access,
//!   compute (`+ - * /`, `map`, `sum`, `dot`, `sqrt`, ...) and views;
//! - the [`view`] module for writing functions that take any layout (`ArrayView<f64, 2, L>`,
//!   `impl AsView<f64, 2>`, or the default `ArrayView<f64, 2>` through `.into()`);
//! - [`check`] for what each bounds policy tests, and [`stencil`](mod@stencil) for sweeps and [`stencil!`](macro@stencil) for one stencil on every backend;
//! - one rule for fallible operations: the plain name panics at the caller's line with the
//!   error's message, the `try_` name returns `Result<_, Error>` (`reshape`/`try_reshape`,
//!   `zeros`/`try_zeros` ...). Where failure is an ordinary answer the caller cannot rule out
//!   beforehand, the plain name itself returns `Result`, as std's `File::open` does: lookups by a
//!   run-time index or name (`at`, `at_mut`, `field_by_name`), constructors from external data
//!   (`from_shape_vec`, `from_slice`, `from_ndarray` ...: every `from_*`), files and streams
//!   (`npy::read`, `load`, `save` ...), devices (`CudaDevice::new`, `WgpuDevice::new`,
//!   `synchronize` ...), text and data checked or compiled at run time (`check`, `check_*`, kernel
//!   sources: `stencil_source`, `stencil_shader`), and
//!   `shape::checked_len` (the size rule on run-time shapes).
//!   `tests/api_rules.rs` holds every public function to this rule.
//!
//! The repository's `docs/ARCHITECTURE.md` is the module map and traces the design decisions;
//! `docs/BENCHMARKS.md` holds every measured figure.

#![deny(missing_docs, unsafe_op_in_unsafe_fn, unreachable_pub)]
#![warn(clippy::undocumented_unsafe_blocks)]

// `stencil!` expands to paths under `::cnda`, which then resolve inside the crate too.
extern crate self as cnda;

pub mod array;
pub mod backend;
mod caches;
pub mod check;
pub mod dist;
pub mod element;
pub mod error;
#[cfg(feature = "fft")]
pub mod fft;
mod fmt;
mod geometry;
mod index;
pub mod interop;
pub mod iter;
pub mod kernel;
pub mod layout;
pub mod ops;
pub mod pool;
pub mod rank;
mod raw;
pub mod shape;
pub mod slice;
pub mod solve;
pub mod sparse;
pub mod stencil;
pub mod structured;
pub mod view;

/// Serializes the unit tests that hold HDF5 files open with the one that starts MPI: the system's
/// HDF5 (built for MPI) is not thread-safe, and Open MPI's singleton start forks a daemon that
/// inherits every open descriptor, with it HDF5's lock on a file being written, and keeps it
/// (CI once: "unable to lock file" on a checkpoint saved while MPI started).
#[cfg(all(test, feature = "mpi"))]
pub(crate) fn files_and_forks_one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The `bytemuck` crate, whose `Pod` derive and trait make a type an array element.
pub use bytemuck;

/// One stencil definition for every backend: `stencil!(|u, k; dt: T| ...)` (see [`stencil::Stencil`]).
pub use cnda_macros::stencil;

pub use array::Array;
pub use array::{AsView, AsViewMut, CowArray};
pub use backend::cpu::CpuAlloc;
pub use check::{BoundsCheck, Checked, DefaultCheck, Unchecked};
pub use element::{Arithmetic, ComplexPart, DType, Element, Float, Magnitude, Numeric, Pod, Zeroable};
pub use error::{Error, Result};
pub use kernel::{Allocator, Backend, Cpu, GemmElement, HostAccessible, Par};
pub use layout::{ColMajor, Dense, Layout, Padded, RowLayout, RowMajor, Strided};
/// Complex numbers (num-complex): array elements with arithmetic, sums, products, `conj`, `abs`,
/// `arg`, `norm_sqr`, `dot`, `matmul` and zero-copy `re()`/`im()` views (see [`Array::re`]) on
/// every backend, and the spectra of `cnda::fft` (feature `fft`).
pub use num_complex::{Complex, Complex32, Complex64};
pub use ops::arith::{AssignOperand, Operand};
pub use ops::dot::MatrixOperand;
pub use ops::zip::{IndexedZip, NdProducer, Zip};
pub use rank::{BroadcastInto, Dec, Inc, IsMatrix, MaxRank, Rank};
pub use slice::{AxisSlice, SliceSpec};
pub use view::{ArrayView, ArrayViewMut, Shared, Unique, View};

/// The README's code blocks, compiled and run as doc tests so the README stays true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// Everything a typical user needs: `use cnda::prelude::*;`.
pub mod prelude {
    pub use crate::array::Array;
    pub use crate::array::{AsView, AsViewMut, CowArray};
    pub use crate::backend::cpu::CpuAlloc;
    #[cfg(feature = "cuda")]
    pub use crate::backend::cuda::{Cuda, CudaDevice};
    #[cfg(feature = "wgpu")]
    pub use crate::backend::wgpu::{Wgpu, WgpuDevice};
    pub use crate::check::{BoundsCheck, Checked, DefaultCheck, Unchecked};
    pub use crate::element::{Arithmetic, ComplexPart, DType, Element, Float, Magnitude, Numeric, Pod, Zeroable};
    pub use crate::error::Error;
    pub use crate::kernel::Par;
    pub use crate::kernel::{Allocator, Backend, Cpu, HostAccessible};
    pub use crate::layout::{ColMajor, Dense, Layout, Padded, RowLayout, RowMajor, Strided};
    pub use crate::ops::zip::{IndexedZip, NdProducer, Zip};
    pub use crate::pool::Pool;
    pub use crate::rank::{BroadcastInto, Dec, Inc, IsMatrix, MaxRank, Rank};
    pub use crate::s;
    pub use crate::stencil::StencilApply;
    pub use crate::view::{ArrayView, ArrayViewMut, View};
    pub use cnda_macros::stencil;
}
