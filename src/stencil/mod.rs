//! Stencils: "write the centre, read the neighbours" over grids of any rank.
//!
//! Which API to reach for:
//!
//! | your update | reach for | runs on |
//! |---|---|---|
//! | an expression of fields at fixed offsets, parameters, math functions, finite differences (`laplace(u, 8)`, `diff(u, axis, n, order)`) | [`stencil!`] with [`StencilApply::apply`] / `par_apply`; time steps with [`StencilApply::apply_steps_with`] on a [`DoubleBuffer`] | CPU (SIMD, fused steps, threads), CUDA, WebGPU, `DistArray` |
//! | several coupled fields (a system: Gray-Scott, shallow water) | one [`stencil!`] whose body ends in a tuple of the new values, `(u_new, v_new)`, sharing its `let`s: one pass for all fields; `apply` into a tuple of outputs, or time steps on a [`State`] of the fields | CPU (fused steps, threads), CUDA, WebGPU; over MPI `apply_steps_dist` on a `dist::DistState` (deep halos, one message per neighbour for every field) |
//! | a step in stages, each updating some fields from the others' new values (Yee's FDTD, elastic velocity-stress, Runge-Kutta) | [`Stages`] of `stencil!`s, each with `#[writes(fields..)]`, stepping a [`State`] (`apply_steps_dist`: a `dist::DistState`) | as above |
//! | a scheme of several time levels (a wave: `u` now and one step before) | [`stencil!`] with `#[levels(2)]`, reading `\|u, u_prev, m; c\|`, time steps on a [`State`] of the levels (rotated without copies; [`State::from_interiors`] pads them, so no array is padded by hand) | as above |
//! | point sources and receivers, on or off the grid | [`Points`] (multilinear weights); inside time steps [`PointIo`] as the steppers' boundaries (`PointIo::new(b).inject(&src, field, wavelet).record(&rec, field, record)`), fused with the sweeps; alone `inject` an amplitude per point, `sample` into a record row | every backend, and over MPI (`apply_steps_dist`) |
//! | fields stored narrow, computed wide (f16/bf16 fields in f32, f32 fields accumulated in f64) | [`stencil!`] with `#[compute(f32)]` / `#[compute(f64)]`: each tap widened, each value rounded once when stored ([`Widen`]) | CPU, CUDA; WebGPU f16 in f32 (adapters with f16) |
//! | constant weights | [`LinearStencil`] (`apply_steps` fused) | every backend |
//! | weights or taps known only at run time (Python, a config file) | [`DynStencil`], [`VariableStencil`] (coefficient fields) | every backend |
//! | any Rust code per point (branches, the point's index) | [`sweep`] / [`sweep_fields`] and their `par_` forms, at a raw loop's speed | the CPU |
//!
//! Subnormal results of a [`stencil!`] are stored as zeros unless it says `#[subnormals(keep)]`
//! (a decaying field stays fast); fused time steps run in passes whose depth is measured at run
//! time (`CNDA_FUSED_DEPTH` sets it, `CNDA_FUSED_TUNE=off` keeps the one that fits the level-2
//! cache).
//!
//! The closure sweeps: one [`Window`] type and one [`sweep`]; `sweep2`/`sweep3` and
//! [`Window2`]/[`Window3`] name ranks 2 and 3.
//!
//! ```
//! use cnda::prelude::*;
//! use cnda::stencil::{self, Window2};
//!
//! let u = Array::from_fn([6, 8], |[i, j]| (i * j) as f64);
//! let mut v = Array::<f64, 2>::zeros([6, 8]);
//! // One Jacobi sweep over the interior. The radius, 1, comes from the window's type: no
//! // turbofish. The region is checked once for the whole sweep.
//! stencil::sweep2(u.view(), v.view_mut(), |out, w: Window2<f64, 1>| {
//!     *out = 0.25 * (w[(-1, 0)] + w[(1, 0)] + w[(0, -1)] + w[(0, 1)]);
//! });
//! assert_eq!(v[[2, 3]], 6.0); // the mean of 3, 9, 4 and 8
//! ```
//!
//! The radius `R` is a compile-time constant, inferred from the window type the closure names
//! (`w: Window2<f64, 1>`, or a named kernel `fn(&mut f64, Window2<'_, f64, 2>)`); an unannotated
//! closure needs it spelled out (`sweep2::<1, _, _, _, _, _>`). Every function panics on shape
//! mismatch (at the caller's line) and has a `try_` twin returning `Result`. A sweep checks once that input and output have one
//! shape; it then visits exactly the points at least `R` away from every edge, so every
//! neighbour a [`Window2`]/[`Window3`] can name lies inside the input, and the inner loop reads
//! through raw offsets with no per-access check. Offsets are asserted to be within `R`; with
//! literal offsets the assertion folds away at compile time. The output is a separate, uniquely
//! borrowed view, so it can never alias the input. `boundary2`/`boundary3` visit the remaining
//! points with a checked view of the input; `par_sweep2`/`par_sweep3` split the interior rows
//! over rayon. [`pad`] builds halo-padded copies (constant, edge, reflect, periodic, as NumPy's
//! `np.pad`), [`DoubleBuffer`] swaps input and output between sweeps.

mod apply;
mod boundary;
mod buffer;
mod dynamic;
mod fields;
mod fused;
mod halo;
mod linear;
mod pad;
pub(crate) mod point_io;
mod points;
mod region;
pub(crate) mod ring;
mod slabs;
mod stages;
mod state;
#[cfg(feature = "hdf5")]
mod state_checkpoint;
mod steps;
mod sweep;
#[cfg(feature = "text")]
mod text;
mod variable;
mod window;

pub use crate::kernel::expr::{
    check, powi, radius, Arity, Binary, CheckedExpr, Evolves, ExprData, Lit, Node, Scalar, Stage, Stencil,
    StencilParams, Tap, TapReader, Unary, Values, Widen, MAX_OUTPUTS,
};
pub use apply::{Fields, Outputs, StencilApply};
#[cfg(feature = "mpi")]
pub(crate) use boundary::Which;
pub use boundary::{fill_boundaries, try_fill_boundaries, Boundaries, Boundary, FieldBoundaries, StepBoundaries};
pub use buffer::{DoubleBuffer, FieldView};
/// One stencil definition for every backend; see the crate `cnda_macros` and [`Stencil`].
pub use cnda_macros::stencil;
pub use dynamic::{DynStencil, MAX_RADIUS, MAX_TAPS};
#[cfg(feature = "rayon")]
pub use fields::{par_sweep_fields, try_par_sweep_fields};
pub use fields::{sweep_fields, try_sweep_fields};
pub use halo::{
    fill_halo, fill_halo_side, pad, pad_axes, try_fill_halo, try_fill_halo_side, try_pad, try_pad_axes, Side,
};
pub use linear::LinearStencil;
pub use pad::{interior, try_interior, PadMode};
pub use point_io::PointIo;
pub use points::Points;
#[doc(hidden)]
pub use slabs::{Slab, SlabPass};
pub use stages::Stages;
pub use state::State;
#[cfg(all(feature = "mpi", feature = "rayon"))]
pub(crate) use steps::par_step_rings;
pub use steps::Coefficients;
#[cfg(feature = "mpi")]
pub(crate) use steps::{step_rings, RingBatch};
pub use sweep::{
    boundary, boundary2, boundary3, sweep, sweep2, sweep3, try_boundary, try_boundary2, try_boundary3, try_sweep,
    try_sweep2, try_sweep3,
};
#[cfg(feature = "rayon")]
pub use sweep::{par_sweep, par_sweep2, par_sweep3, try_par_sweep, try_par_sweep2, try_par_sweep3};
#[cfg(feature = "text")]
pub use text::TextStencil;
pub use variable::VariableStencil;
pub use window::{Window, Window1, Window2, Window3};
