//! Building a hierarchy: the checks every operator passes (boundaries, reach, a grid that
//! coarsens), then the levels: Galerkin coarse operators of a constant stencil from its taps, or
//! of a variable-coefficient operator point by point on the host, uploaded to its backend.

use std::sync::Mutex;

use super::level::Level;
use super::operator::{constant_taps, HostTaps, LevelOperator};
use super::{galerkin, Multigrid, MultigridOptions};
use crate::array::Array;
use crate::error::{or_panic, Error, Result};
use crate::kernel::{Allocator, Download, StencilKernels, Upload};
use crate::solve::operator::{LinearOperator, StencilOperator};
use crate::solve::variable_operator::VariableOperator;
use crate::solve::vectors::{SolverBackend, SolverScalar};
use crate::stencil::{Boundaries, Boundary, DynStencil, Side, VariableStencil};

const OP: &str = "Multigrid::new";

/// Whether every axis can halve: odd with at least 3 points between walls (`n → (n − 1) / 2`),
/// even with at least 4 on a periodic axis (`n → n / 2`).
pub(super) fn halvable<const N: usize>(shape: [usize; N], periodic: [bool; N]) -> bool {
    shape.iter().zip(periodic).all(|(&n, p)| if p { n >= 4 && n % 2 == 0 } else { n >= 3 && n % 2 == 1 })
}

/// The next coarser grid.
pub(super) fn coarser<const N: usize>(shape: [usize; N], periodic: [bool; N]) -> [usize; N] {
    core::array::from_fn(|k| if periodic[k] { shape[k] / 2 } else { (shape[k] - 1) / 2 })
}

/// The checks of an operator on `shape` reaching `radius` with `boundaries`: which axes are
/// periodic, and the boundaries every level takes (a wall is `Value(0)`: `Fixed` halos of the
/// levels' vectors are zero too).
///
/// # Errors
///
/// As [`Multigrid::try_new_in`].
pub(super) fn check<T: SolverScalar, const N: usize>(
    shape: [usize; N],
    radius: [usize; N],
    boundaries: &Boundaries<T, N>,
) -> Result<([bool; N], Boundaries<T, N>)> {
    let refuse = |reason: String, fix: &'static str| Err(Error::Parameter { op: OP, reason, fix });
    let mut periodic = [false; N];
    for (axis, wraps) in periodic.iter_mut().enumerate() {
        for side in [Side::Low, Side::High] {
            match boundaries.at(axis, side) {
                Boundary::Value(_) | Boundary::Fixed => {}
                Boundary::Periodic => *wraps = true,
                other => {
                    return refuse(
                        format!("axis {axis} has a {other:?} boundary"),
                        "multigrid takes zero walls (Value(0), Fixed) and periodic axes today; use CG or \
                         GMRES without it for Neumann sides",
                    );
                }
            }
        }
    }
    if radius.contains(&0) {
        return refuse(
            format!("the stencil's radius is {radius:?}"),
            "multigrid coarsens every axis: use a stencil that reaches along each",
        );
    }
    if !halvable(shape, periodic) {
        return refuse(
            format!(
                "the grid {shape:?} cannot coarsen: an axis between walls needs an odd number of points \
                 (at least 3), a periodic one an even number (at least 4)"
            ),
            "use 2^k - 1 points between walls (127, 255, ...) and 2^k on periodic axes (128, 256, ...), \
             which coarsen all the way",
        );
    }
    let sides: [Boundary<T>; N] =
        core::array::from_fn(|k| if periodic[k] { Boundary::Periodic } else { Boundary::Value(T::ZERO) });
    Ok((periodic, Boundaries::from(sides)))
}

impl<T: SolverScalar, const N: usize, B: SolverBackend + StencilKernels> Multigrid<T, N, B> {
    /// [`Multigrid::new_in`], returning errors.
    ///
    /// # Errors
    ///
    /// `Error::Parameter` for a `Neumann` side (not built yet; `Value(0)`, `Fixed` and `Periodic`
    /// are), a stencil that does not reach along every axis or has no centre weight, or a grid
    /// that cannot coarsen once (an even axis between walls, an odd periodic one, or too few
    /// points). With every axis periodic the operator is singular: give a right-hand side of
    /// zero sum (the solution is then defined up to a constant).
    /// `Error::Layout` when a coarse operator has more taps than `DynStencil` takes (64: a 3D
    /// stencil of radius 2 or more); `Error::Alloc`.
    pub fn try_new_in(
        alloc: &impl Allocator<B>,
        op: &StencilOperator<T, N>,
        options: MultigridOptions,
    ) -> Result<Self> {
        let shape = LinearOperator::<T, N, B>::shape(op);
        let (periodic, sides) = check(shape, op.stencil().radius(), op.boundaries())?;
        // The allocator as the backend's own type, which the levels keep (an empty array's).
        let alloc = Array::<T, N, B>::try_zeros_in(alloc, [0; N])?.allocator();
        let finest = StencilOperator::try_new(op.stencil().clone(), shape, sides)?;
        let taps = constant_taps(&finest);
        let mut levels = vec![Level::new(LevelOperator::Constant(finest), &taps, &alloc, options.smoother, None)?];
        let HostTaps::Constant(mut taps) = taps else { unreachable!("a stencil's taps are constant") };
        let mut shape = shape;
        while halvable(shape, periodic) && shape.iter().product::<usize>() > options.coarsest {
            shape = coarser(shape, periodic);
            taps = galerkin::coarse_operator(&taps);
            let stencil = DynStencil::try_new(taps.iter().map(|&(o, w)| (o, T::from_f64(w))))?;
            let op = LevelOperator::Constant(StencilOperator::try_new(stencil, shape, sides)?);
            levels.push(Level::new(op, &HostTaps::Constant(taps.clone()), &alloc, options.smoother, None)?);
        }
        Self::from_levels(levels, options)
    }

    /// The hierarchy of `levels`, with the grid transfers.
    pub(super) fn from_levels(levels: Vec<Level<T, N, B>>, options: MultigridOptions) -> Result<Self> {
        let to_t =
            |taps: Vec<([isize; N], f64)>| DynStencil::try_new(taps.into_iter().map(|(o, w)| (o, T::from_f64(w))));
        Ok(Multigrid {
            levels: Mutex::new(levels),
            options,
            restriction: to_t(galerkin::restriction())?,
            prolongation: to_t(galerkin::prolongation())?,
            gathered: None,
        })
    }
}

impl<T: SolverScalar, const N: usize, B: SolverBackend + StencilKernels + Download> Multigrid<T, N, B>
where
    B::Alloc: Upload<Target = B>,
{
    /// The hierarchy of a variable-coefficient operator (a conductivity that varies: `−∇·(k∇u)`
    /// in conservative form), on the backend its fields live on: each coarse operator the
    /// Galerkin product `R A P` computed point by point on the host (3^N taps, a field each) and
    /// uploaded; smoothing with the inverse diagonal as a field (Chebyshev's `λ_max` from
    /// Gershgorin's bound).
    ///
    /// ```
    /// use cnda::prelude::*;
    /// use cnda::solve::{Cg, Multigrid, MultigridOptions, VariableOperator};
    /// use cnda::stencil::{Boundary, VariableStencil};
    /// // -∇·(k ∇u) = 1 on 63 x 63 points, k = 1 left of the middle and 100 right of it.
    /// let n = 63;
    /// let k = |j: usize| if j <= 32 { 1.0 } else { 100.0 }; // at padded column j
    /// let inside = |i: usize, j: usize| (1..=n).contains(&i) && (1..=n).contains(&j);
    /// let field = |f: &dyn Fn(usize, usize) -> f64| Array::from_fn([n + 2, n + 2], |[i, j]| if inside(i, j) { f(i, j) } else { 0.0 });
    /// let offsets = [[-1, 0], [1, 0], [0, -1], [0, 1], [0, 0]];
    /// let fields = vec![
    ///     field(&|_, j| -k(j)), field(&|_, j| -k(j)),
    ///     field(&|_, j| -(k(j) + k(j - 1)) / 2.0), field(&|_, j| -(k(j) + k(j + 1)) / 2.0),
    ///     field(&|_, j| 2.0 * k(j) + (k(j - 1) + 2.0 * k(j) + k(j + 1)) / 2.0),
    /// ];
    /// let a = VariableOperator::new(VariableStencil::new(offsets), fields, [Boundary::Value(0.0); 2]);
    /// let mg = Multigrid::for_variable(&a, MultigridOptions::default());
    /// let b = Array::<f64, 2>::ones([n, n]);
    /// let mut u = Array::zeros([n, n]);
    /// let report = Cg::new().rtol(1e-10).preconditioner(mg).solve(&a, &b, &mut u);
    /// assert!(report.iterations <= 12, "{report:?}");
    /// ```
    ///
    /// # Panics
    ///
    /// As [`Multigrid::try_for_variable`] errs.
    #[track_caller]
    pub fn for_variable(op: &VariableOperator<T, N, B>, options: MultigridOptions) -> Self {
        or_panic(Self::try_for_variable(op, options))
    }

    /// [`Multigrid::for_variable`], returning errors.
    ///
    /// # Errors
    ///
    /// As [`Multigrid::try_new_in`]; `Error::Parameter` for a zero diagonal at some point;
    /// `Error::Device` from the fields' transfers.
    pub fn try_for_variable(op: &VariableOperator<T, N, B>, options: MultigridOptions) -> Result<Self> {
        let shape = op.shape();
        let radius = op.stencil().radius();
        let (periodic, sides) = check(shape, radius, op.boundaries())?;
        let alloc = op.coefficients()[0].allocator();
        let fields = op.coefficients().iter().map(|f| f.try_to_owned()).collect::<Result<Vec<_>>>()?;
        let finest = LevelOperator::Variable(VariableOperator::try_new(op.stencil().clone(), fields, sides)?);
        let mut taps = finest.host_taps()?;
        let mut levels = vec![Level::new(finest, &taps, &alloc, options.smoother, None)?];
        let (mut shape, mut halo) = (shape, radius);
        while halvable(shape, periodic) && shape.iter().product::<usize>() > options.coarsest {
            let coarse_shape = coarser(shape, periodic);
            let HostTaps::Variable { offsets, fields } = &taps else { unreachable!("variable taps stay variable") };
            let (offsets, fields) = galerkin::coarse_fields(offsets, fields, halo, shape, coarse_shape, periodic);
            let on_backend =
                fields.iter().map(|f| f.map(|v| T::from_f64(v)).try_to_backend(&alloc)).collect::<Result<Vec<_>>>()?;
            let stencil = VariableStencil::try_new(offsets.iter().copied())?;
            halo = stencil.radius();
            let op = LevelOperator::Variable(VariableOperator::try_new(stencil, on_backend, sides)?);
            taps = HostTaps::Variable { offsets, fields };
            shape = coarse_shape;
            levels.push(Level::new(op, &taps, &alloc, options.smoother, None)?);
        }
        Self::from_levels(levels, options)
    }
}
