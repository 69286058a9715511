//! Linear solvers for stencil operators: matrix-free Krylov methods on any backend.
//!
//! Implicit time steps (backward Euler, Crank-Nicolson), pressure Poisson equations and steady
//! problems solve `A x = b` where `A` is a stencil with its boundary conditions. The methods here
//! apply the operator and never form its matrix, on the arrays' own backend (`Cpu`, `Cuda`,
//! `Wgpu`), through the same elementwise, reduction and stencil kernels as the rest of cnda.
//!
//! | operator | method |
//! |---|---|
//! | symmetric and definite (a Laplacian, diffusion with variable coefficients) | [`Cg`] |
//! | symmetric and indefinite (Helmholtz `Δ + k²`, saddle points), fixed memory | [`Minres`] |
//! | nonsymmetric (convection-diffusion, upwind), fixed memory | [`Bicgstab`] |
//! | nonsymmetric, robust (never breaks down), `restart + 1` vectors | [`Gmres`] |
//! | a stencil (constant, or a conductivity: [`Multigrid::for_variable`]) between zero walls (`2^k − 1` points), `Neumann` sides (`2^k + 1`), or periodic (`2^k`) | [`Multigrid`] alone, or as [`Cg`]'s preconditioner (a handful of iterations at any size); [`Multigrid::full_multigrid`] to the discretization error in one pass |
//!
//! An operator is a [`StencilOperator`] (a `LinearStencil` or `DynStencil` on a shape, with
//! homogeneous boundaries per side and axis), a [`VariableOperator`] (a `VariableStencil` with
//! its coefficient fields: a conductivity that varies), a `stencil!` stencil that is linear in its
//! first field ([`ExprOperator`]: checked on the expression, the other fields its coefficients,
//! applied by the stencil's own kernel, and probed into a `VariableOperator` for multigrid), a
//! closure ([`FnOperator`]), or any type that implements [`LinearOperator`]. The vectors a method keeps are padded by the operator's halo,
//! so a stencil fills its boundaries and sweeps in place. A [`Preconditioner`] goes in the
//! method's slot: [`Jacobi`], or one [`Multigrid`] cycle.
//!
//! Over MPI (feature `mpi`), `DistOperator` puts a stencil (with the grid's boundary conditions),
//! a conductivity (`DistOperator::diffusion`),
//! a `stencil!` operator (`DistOperator::expr`), a CSR matrix (`DistOperator::csr`, its rows
//! renumbered onto each block and a halo as wide as it reaches) or any operator on each
//! process's block of a `DistArray`'s grid, and every Krylov method's
//! `solve_dist` solves on `DistArray`s with the same iterations: one halo exchange per operator
//! application, dot products summed over the processes (in rank order, so every process stops
//! at the same iteration), on host or device blocks; the preconditioner acts on each block
//! (`Jacobi` from the block's diagonal), or over the processes: `Multigrid::for_dist` (a stencil)
//! and `Multigrid::for_dist_variable` (coefficient fields) split every level as the grid is
//! split, each process computing its block's coarse operators, and solve the coarsest level,
//! gathered, on one process; zero walls, `Neumann` sides and periodic axes; their cycles also
//! solve alone (`Multigrid::solve_dist`).
//!
//! Every method stops when its residual `‖r‖₂ ≤ max(rtol ‖b‖₂, atol)` ([`SolveOptions`]; `r` is
//! `b − A x` up to rounding, GMRES's estimate within a cycle), returns a
//! [`SolveReport`] with the residual history and the work (operator applications, the
//! preconditioner's counted in), and fails with a typed error:
//! [`Error::NotConverged`](crate::Error::NotConverged) after `max_iters` iterations,
//! [`Error::Breakdown`](crate::Error::Breakdown) when a recurrence divides by zero or meets NaN,
//! leaving the last iterate in `x` either way. `solve` panics with the error's message;
//! `try_solve` returns it.
//!
//! ```
//! use cnda::prelude::*;
//! use cnda::solve::{Cg, StencilOperator};
//! use cnda::stencil::{Boundary, LinearStencil};
//! // A backward-Euler step of the heat equation: (I - dt Laplace) u1 = u0, u = 0 outside.
//! let (n, h, dt) = (48, 1.0 / 49.0, 1e-3);
//! let lap = LinearStencil::laplacian_5pt(h);
//! let taps = lap.taps().map(|(o, w)| (o, if o == [0, 0] { 1.0 - dt * w } else { -dt * w }));
//! let a = StencilOperator::new(cnda::stencil::DynStencil::new(taps), [n, n], [Boundary::Value(0.0); 2]);
//! let u0 = Array::from_fn([n, n], |[i, j]| if (i, j) == (24, 24) { 1.0 } else { 0.0 });
//! let mut u1 = u0.clone();
//! let report = Cg::new().rtol(1e-10).solve(&a, &u0, &mut u1);
//! assert!(report.iterations < 60);
//! assert!((u1.sum() - 1.0).abs() < 0.01); // heat spreads, little reaches the walls yet
//! ```

mod bicgstab;
mod cg;
mod diffusion;
#[cfg(feature = "mpi")]
mod dist;
#[cfg(feature = "mpi")]
mod dist_diffusion;
#[cfg(feature = "mpi")]
mod dist_expr;
mod expr_operator;
mod gmres;
mod krylov;
mod minres;
mod multigrid;
mod operator;
mod options;
mod precond;
mod processes;
mod variable_operator;
mod vectors;

pub use bicgstab::Bicgstab;
pub use cg::Cg;
#[cfg(feature = "mpi")]
pub use dist::DistOperator;
#[cfg(feature = "mpi")]
pub use dist_expr::DistFields;
pub use expr_operator::{ExprOperator, OperatorFields, OperatorFieldsOn};
pub use gmres::Gmres;
pub use minres::Minres;
pub use multigrid::{CoarseOperators, CycleKind, Multigrid, MultigridOptions, Smoother, Start};
pub use operator::{FnOperator, LinearOperator, StencilOperator};
pub use options::{SolveOptions, SolveReport};
pub use precond::{Identity, Jacobi, Preconditioner};
pub use variable_operator::VariableOperator;
pub use vectors::{SolverBackend, SolverScalar};
