//! Building a hierarchy: the checks every operator passes (reach, a grid that coarsens), then
//! the levels: Galerkin coarse operators of a constant stencil from its taps, or point by point
//! on the host (a variable-coefficient operator, or `Neumann` sides folded into the rows),
//! uploaded to the backend.

use std::sync::Mutex;

use super::grid::{transfer_sides, Coarsening};
use super::level::Level;
use super::operator::{constant_taps, HostTaps, LevelOperator};
use super::rows::{ConstantRows, FieldRows, FineRows, Folded};
use super::{galerkin, CoarseOperators, Multigrid, MultigridOptions};
use crate::array::Array;
use crate::error::{or_panic, Error, Result};
use crate::kernel::{Allocator, Download, StencilKernels, Upload};
use crate::ops::transfer::upload;
use crate::solve::diffusion::Conductivity;
use crate::solve::operator::{LinearOperator, StencilOperator};
use crate::solve::variable_operator::VariableOperator;
use crate::solve::vectors::{SolverBackend, SolverScalar};
use crate::stencil::{Boundaries, Boundary, DynStencil, Side, VariableStencil};

const OP: &str = "Multigrid::new";

/// The checks of an operator on `shape` reaching `radius` with `boundaries`: how its grid
/// coarsens, and the boundaries of its finest level (a wall is `Value(0)`: `Fixed` halos of the
/// levels' vectors are zero too; `Neumann` and periodic sides stay).
///
/// # Errors
///
/// As [`Multigrid::try_new_in`].
pub(super) fn check<T: SolverScalar, const N: usize>(
    shape: [usize; N],
    radius: [usize; N],
    boundaries: &Boundaries<T, N>,
) -> Result<(Coarsening<N>, Boundaries<T, N>)> {
    let refuse = |reason: String, fix: &'static str| Err(Error::Parameter { op: OP, reason, fix });
    if radius.contains(&0) {
        return refuse(
            format!("the stencil's radius is {radius:?}"),
            "multigrid coarsens every axis: use a stencil that reaches along each",
        );
    }
    let coarsening = Coarsening::of(boundaries);
    if !coarsening.halvable(shape) {
        return refuse(
            format!(
                "the grid {shape:?} cannot coarsen: an axis needs an odd number of points between two walls or \
                 two Neumann sides, an even number between a wall and a Neumann side, and an even number (at \
                 least 4) when periodic"
            ),
            "use 2^k - 1 points between walls (127, 255, ...), 2^k + 1 between Neumann sides (129, 257, ...) \
             and 2^k otherwise (128, 256, ...), which coarsen all the way",
        );
    }
    let sides: [[Boundary<T>; 2]; N] = core::array::from_fn(|k| {
        [Side::Low, Side::High].map(|side| match boundaries.at(k, side) {
            Boundary::Fixed => Boundary::Value(T::ZERO),
            other => other,
        })
    });
    Ok((coarsening, Boundaries::from(sides)))
}

/// Whether a row's weights (of element type `T`) sum to zero, to `T`'s rounding: it annihilates
/// constants.
pub(super) fn sums_to_zero<T: SolverScalar>(weights: impl IntoIterator<Item = f64>) -> bool {
    let (sum, size, count) =
        weights.into_iter().fold((0.0f64, 0.0f64, 0.0f64), |(s, a, n), w| (s + w, a + w.abs(), n + 1.0));
    let epsilon = if core::mem::size_of::<T>() == 4 { f64::from(f32::EPSILON) } else { f64::EPSILON };
    sum.abs() <= 4.0 * count * epsilon * size
}

impl<T: SolverScalar, const N: usize, B: SolverBackend + StencilKernels> Multigrid<T, N, B> {
    /// The hierarchy of `op` with `options`, its vectors from `alloc` (a device's allocator puts
    /// every level on that device).
    ///
    /// # Panics
    ///
    /// As [`Multigrid::try_new_in`] errs.
    #[track_caller]
    pub fn new_in(alloc: &impl Allocator<B>, op: &StencilOperator<T, N>, options: MultigridOptions) -> Self {
        or_panic(Self::try_new_in(alloc, op, options))
    }

    /// [`Multigrid::new_in`], returning errors.
    ///
    /// # Errors
    ///
    /// `Error::Parameter` for a stencil that does not reach along every axis or has no centre
    /// weight, or a grid that cannot coarsen once (see [`Multigrid`]'s shapes). With no zero
    /// wall (every side periodic or `Neumann`) an operator whose weights sum to zero is
    /// singular: give a right-hand side of zero sum (the solution is then defined up to a
    /// constant). `Error::Layout` when a coarse operator has more taps than `DynStencil` takes
    /// (64: a 3D stencil of radius 2 or more); `Error::Alloc`.
    pub fn try_new_in(
        alloc: &impl Allocator<B>,
        op: &StencilOperator<T, N>,
        options: MultigridOptions,
    ) -> Result<Self> {
        let shape = LinearOperator::<T, N, B>::shape(op);
        let (coarsening, sides) = check(shape, op.stencil().radius(), op.boundaries())?;
        // The allocator as the backend's own type, which the levels keep (an empty array's).
        let alloc = Array::<T, N, B>::try_zeros_in(alloc, [0; N])?.allocator();
        let finest = StencilOperator::try_new(op.stencil().clone(), shape, sides)?;
        let taps = constant_taps(&finest);
        let first = coarsening.first();
        let levels = vec![Level::new(LevelOperator::Constant(finest), &taps, &alloc, options.smoother, None, first)?];
        let HostTaps::Constant(mut taps) = taps else { unreachable!("a stencil's taps are constant") };
        let singular = !coarsening.has_wall() && sums_to_zero::<T>(taps.iter().map(|&(_, w)| w));
        if coarsening.has_neumann() {
            // The rows next to a Neumann side differ: coarse operators point by point.
            let (offsets, weights) = taps.into_iter().unzip();
            let rows = Folded::new(ConstantRows { offsets, weights }, shape, &sides);
            return Self::galerkin_levels(levels, &rows, coarsening, &alloc, options, singular);
        }
        let (mut levels, mut shape, coarse_sides) = (levels, shape, transfer_sides(&sides));
        while coarsening.halvable(shape) && shape.iter().product::<usize>() > options.coarsest {
            shape = coarsening.coarser(shape);
            taps = galerkin::coarse_operator(&taps);
            let stencil = DynStencil::try_new(taps.iter().map(|&(o, w)| (o, T::from_f64(w))))?;
            let op = LevelOperator::Constant(StencilOperator::try_new(stencil, shape, coarse_sides)?);
            levels.push(Level::new(op, &HostTaps::Constant(taps.clone()), &alloc, options.smoother, None, first)?);
        }
        Self::from_levels(levels, options, singular)
    }

    /// The coarser levels below `levels` (the finest, with rows `fine`), each the Galerkin
    /// product `R A P` of the one above computed point by point on the host and uploaded: a
    /// coefficient field per tap, with zero walls where the finest level has walls or `Neumann`
    /// sides (folded into `fine`'s rows).
    ///
    /// # Errors
    ///
    /// `Error::Alloc`; `Error::Device` from the uploads; as [`Level::new`].
    pub(super) fn galerkin_levels(
        mut levels: Vec<Level<T, N, B>>,
        fine: &impl FineRows<N>,
        coarsening: Coarsening<N>,
        alloc: &B::Alloc,
        options: MultigridOptions,
        singular: bool,
    ) -> Result<Self> {
        let sides = transfer_sides(levels[0].op.boundaries());
        let mut shape = levels[0].space.shape();
        // The level above's taps on the host and halo (none: `fine`).
        let mut above: Option<(HostTaps<N>, [usize; N])> = None;
        while coarsening.halvable(shape) && shape.iter().product::<usize>() > options.coarsest {
            let coarse_shape = coarsening.coarser(shape);
            let (first, periodic) = (coarsening.first(), coarsening.periodic());
            let block = coarse_shape.map(|n| 0..n);
            let (offsets, fields) = match &above {
                None => galerkin::coarse_fields(fine, shape, &block, first, periodic),
                Some((HostTaps::Variable { offsets, fields }, halo)) => {
                    let rows = FieldRows { offsets, fields, halo: *halo };
                    galerkin::coarse_fields(&rows, shape, &block, first, periodic)
                }
                Some((HostTaps::Constant(_), _)) => unreachable!("coarse levels here are variable"),
            };
            let on_backend = fields
                .iter()
                .map(|f| upload(alloc, f.map(|v| T::from_f64(v)).as_slice(), f.shape()))
                .collect::<Result<Vec<_>>>()?;
            let stencil = VariableStencil::try_new(offsets.iter().copied())?;
            let halo = stencil.radius();
            let op = LevelOperator::Variable(VariableOperator::try_new(stencil, on_backend, sides)?);
            let host = HostTaps::Variable { offsets, fields };
            levels.push(Level::new(op, &host, alloc, options.smoother, None, first)?);
            above = Some((host, halo));
            shape = coarse_shape;
        }
        Self::from_levels(levels, options, singular)
    }

    /// The hierarchy of `levels`, with the grid transfers; `singular` when constants are the
    /// operator's null space.
    pub(super) fn from_levels(levels: Vec<Level<T, N, B>>, options: MultigridOptions, singular: bool) -> Result<Self> {
        let to_t =
            |taps: Vec<([isize; N], f64)>| DynStencil::try_new(taps.into_iter().map(|(o, w)| (o, T::from_f64(w))));
        Ok(Multigrid {
            levels: Mutex::new(levels),
            options,
            restriction: to_t(galerkin::restriction())?,
            prolongation: to_t(galerkin::prolongation())?,
            gathered: None,
            singular,
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
    /// Gershgorin's bound). Its sides and shapes as [`Multigrid`]'s (`Neumann` sides folded into
    /// the rows the Galerkin products read). With [`CoarseOperators::Rediscretized`] in
    /// `options` (an operator built by [`VariableOperator::diffusion_in`]) each coarse operator
    /// is instead the diffusion operator of the conductivity restricted by full weighting, at
    /// twice the spacing: `2N + 1` taps.
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
    /// As [`Multigrid::try_new_in`]; `Error::Parameter` for a zero diagonal at some point, or
    /// for [`CoarseOperators::Rediscretized`] on an operator not built by
    /// [`VariableOperator::diffusion_in`]; `Error::Device` from the fields' transfers.
    pub fn try_for_variable(op: &VariableOperator<T, N, B>, options: MultigridOptions) -> Result<Self> {
        let shape = op.shape();
        let radius = op.stencil().radius();
        let (coarsening, sides) = check(shape, radius, op.boundaries())?;
        let alloc = op.coefficients()[0].allocator();
        let fields = op.coefficients().iter().map(|f| f.try_to_owned()).collect::<Result<Vec<_>>>()?;
        let finest = LevelOperator::Variable(VariableOperator::try_new(op.stencil().clone(), fields, sides)?);
        let taps = finest.host_taps()?;
        let levels = vec![Level::new(finest, &taps, &alloc, options.smoother, None, coarsening.first())?];
        let HostTaps::Variable { offsets, fields } = &taps else { unreachable!("variable taps") };
        let rows = FieldRows { offsets, fields, halo: radius };
        let singular = !coarsening.has_wall() && rows_annihilate_constants::<T, N>(&rows, [0; N], shape);
        if options.coarse == CoarseOperators::Rediscretized {
            let conductivity = conductivity_of(op)?;
            return Self::rediscretized_levels(levels, conductivity, coarsening, &alloc, options, singular);
        }
        match coarsening.has_neumann() {
            true => {
                Self::galerkin_levels(levels, &Folded::new(rows, shape, &sides), coarsening, &alloc, options, singular)
            }
            false => Self::galerkin_levels(levels, &rows, coarsening, &alloc, options, singular),
        }
    }
}

/// The conductivity `op` was built from, for rediscretized coarse levels.
///
/// # Errors
///
/// `Error::Parameter` for an operator built from coefficient fields.
pub(super) fn conductivity_of<T: SolverScalar, const N: usize, B: SolverBackend>(
    op: &VariableOperator<T, N, B>,
) -> Result<&Conductivity<T, N>> {
    op.conductivity().ok_or_else(|| Error::Parameter {
        op: OP,
        reason: "rediscretized coarse operators need the operator's conductivity, and this operator was built from \
                 coefficient fields"
            .into(),
        fix: "build the operator with VariableOperator::diffusion_in, or use CoarseOperators::Galerkin (from any \
              coefficient fields)",
    })
}

/// Whether every row of `rows` at the points of `shape` from `origin` sums to zero (to rounding).
pub(super) fn rows_annihilate_constants<T: SolverScalar, const N: usize>(
    rows: &impl FineRows<N>,
    origin: [usize; N],
    shape: [usize; N],
) -> bool {
    let mut weights = vec![0.0; rows.offsets().len()];
    (0..shape.iter().product::<usize>()).all(|flat| {
        let l = crate::shape::row_major_index(flat, shape);
        rows.row(core::array::from_fn(|k| origin[k] + l[k]), &mut weights);
        sums_to_zero::<T>(weights.iter().copied())
    })
}
