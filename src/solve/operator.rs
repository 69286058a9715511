//! Linear operators the solvers apply: `y = A x` on arrays of one shape and backend. A stencil
//! with homogeneous boundaries ([`StencilOperator`]), a closure ([`FnOperator`]), or a type of
//! your own.

use crate::array::Array;
use crate::element::{Numeric, Pod};
use crate::error::{or_panic, Error, Result};
use crate::kernel::{Backend, CopyKernels, StencilKernels};
use crate::stencil::{try_fill_boundaries, Boundaries, Boundary, DynStencil, SlabPass};

/// A linear operator `A` on arrays of shape [`shape`](LinearOperator::shape) on backend `B`.
///
/// The solvers hand [`try_apply`](LinearOperator::try_apply) arrays padded by
/// [`halo`](LinearOperator::halo) points at both ends of every axis: the unknowns sit in the
/// interior, and the operator may fill the halo of `x` (its boundary conditions) before reading
/// it. It must write `y`'s interior from `x` alone, linearly, and keep both arrays' shapes.
pub trait LinearOperator<T: Pod, const N: usize, B: Backend> {
    /// The shape of the unknowns.
    fn shape(&self) -> [usize; N];

    /// The halo around the unknowns in the arrays [`try_apply`](LinearOperator::try_apply) gets
    /// (none by default).
    fn halo(&self) -> [usize; N] {
        [0; N]
    }

    /// `y = A x` on the interiors; `x`'s halo is the operator's to fill.
    ///
    /// # Errors
    ///
    /// Whatever the operator's own operations return.
    fn try_apply(&self, x: &mut Array<T, N, B>, y: &mut Array<T, N, B>) -> Result<()>;

    /// Whether the unknowns are split over MPI processes (a `DistOperator`), whose solves sum
    /// their dot products over the processes: only `solve_dist` takes such an operator.
    #[doc(hidden)]
    fn distributed(&self) -> bool {
        false
    }

    /// `y = A x` (as [`try_apply`](LinearOperator::try_apply)) a slab of the interiors at a
    /// time, `each` run on every slab's `x`, `y` and `scratch` points right after it is written,
    /// where that keeps the slab in cache (a stencil on the CPU: CG's `p · A p` at no extra
    /// memory traffic); `false` otherwise (the default), with nothing done but perhaps `x`'s halo
    /// filled.
    ///
    /// # Errors
    ///
    /// As [`try_apply`](LinearOperator::try_apply), and `each`'s.
    #[doc(hidden)]
    fn try_apply_in_slabs(
        &self,
        x: &mut Array<T, N, B>,
        y: &mut Array<T, N, B>,
        scratch: &mut Array<T, N, B>,
        each: &mut SlabPass<'_, B, T, N>,
    ) -> Result<bool> {
        let _ = (x, y, scratch, each);
        Ok(false)
    }

    /// Whether [`try_apply_in_slabs`](LinearOperator::try_apply_in_slabs) applies: where true,
    /// it never returns `Ok(false)` for vectors of the operator's padded shape (a wrapper with
    /// work of its own before the product, such as a halo exchange, relies on it to do that
    /// work once).
    #[doc(hidden)]
    fn applies_in_slabs(&self) -> bool {
        false
    }
}

/// A stencil as a linear operator on arrays of a given shape, with a boundary condition on each
/// side of each axis that keeps it linear: `Value(0)` or `Fixed` (the unknowns outside the grid
/// are zero, homogeneous Dirichlet), `Neumann` (zero gradient) or `Periodic`.
///
/// Move non-zero boundary values to the right-hand side: solve `A u = f − A g` where `g` holds the
/// boundary values and zeros inside (apply the stencil to `g` with its halo filled).
///
/// ```
/// use cnda::prelude::*;
/// use cnda::solve::{Cg, StencilOperator};
/// use cnda::stencil::{Boundary, LinearStencil};
/// // -Laplace(u) = 1 on a 31 x 31 grid of spacing h with u = 0 outside.
/// let (n, h) = (31, 1.0 / 32.0);
/// let a = StencilOperator::new(LinearStencil::laplacian_5pt(h), [n, n], [Boundary::Value(0.0); 2]);
/// let b = Array::<f64, 2>::full([n, n], -1.0);
/// let mut u = Array::zeros([n, n]);
/// let report = Cg::new().rtol(1e-10).solve(&a, &b, &mut u);
/// assert!(report.iterations < 100);
/// assert!((u[[15, 15]] - 0.0737).abs() < 1e-3); // the centre of the unit square's solution
/// ```
#[derive(Clone, Debug)]
pub struct StencilOperator<T, const N: usize> {
    stencil: DynStencil<T, N>,
    shape: [usize; N],
    boundaries: Boundaries<T, N>,
}

impl<T: Numeric, const N: usize> StencilOperator<T, N> {
    /// The operator `stencil` (a [`LinearStencil`](crate::stencil::LinearStencil) or
    /// [`DynStencil`]) on unknowns of `shape` with `boundaries`.
    ///
    /// # Panics
    ///
    /// As [`StencilOperator::try_new`] errs.
    #[track_caller]
    pub fn new(
        stencil: impl Into<DynStencil<T, N>>,
        shape: [usize; N],
        boundaries: impl Into<Boundaries<T, N>>,
    ) -> Self {
        or_panic(Self::try_new(stencil, shape, boundaries))
    }

    /// [`StencilOperator::new`], returning errors.
    ///
    /// # Errors
    ///
    /// `Error::Parameter` for a boundary that is not linear (a non-zero `Value`), an empty axis,
    /// or an axis shorter than the stencil's reach under a `Neumann` or `Periodic` condition;
    /// `Error::Layout` for an axis periodic on one side only.
    pub fn try_new(
        stencil: impl Into<DynStencil<T, N>>,
        shape: [usize; N],
        boundaries: impl Into<Boundaries<T, N>>,
    ) -> Result<Self> {
        let (stencil, boundaries) = (stencil.into(), boundaries.into());
        check_linear("StencilOperator::new", shape, stencil.radius(), &boundaries)?;
        Ok(StencilOperator { stencil, shape, boundaries })
    }

    /// The stencil.
    pub fn stencil(&self) -> &DynStencil<T, N> {
        &self.stencil
    }

    /// The boundary conditions.
    pub fn boundaries(&self) -> &Boundaries<T, N> {
        &self.boundaries
    }
}

/// Checks that an operator on unknowns of `shape`, reaching `radius`, is linear under
/// `boundaries` and that its halos can be filled.
///
/// # Errors
///
/// As [`StencilOperator::try_new`].
pub(super) fn check_linear<T: Numeric, const N: usize>(
    op: &'static str,
    shape: [usize; N],
    radius: [usize; N],
    boundaries: &Boundaries<T, N>,
) -> Result<()> {
    for k in 0..N {
        if shape[k] == 0 {
            return Err(Error::Parameter {
                op,
                reason: format!("axis {k} of the shape {shape:?} is empty"),
                fix: "give every axis at least one unknown",
            });
        }
        for side in [crate::stencil::Side::Low, crate::stencil::Side::High] {
            match boundaries.at(k, side) {
                Boundary::Value(v) if v != T::ZERO => {
                    return Err(Error::Parameter {
                        op,
                        reason: format!(
                            "axis {k} has the boundary value {v:?}, which makes the operator affine, not linear"
                        ),
                        fix: "use Boundary::Value(0) and move the boundary values to the right-hand side \
                                  (subtract A applied to an array holding them, zero inside)",
                    });
                }
                Boundary::Neumann | Boundary::Periodic if shape[k] < radius[k] => {
                    return Err(Error::Parameter {
                        op,
                        reason: format!(
                            "axis {k} has {} unknowns, fewer than the stencil's radius {} that its \
                                 Neumann or periodic halo mirrors",
                            shape[k], radius[k]
                        ),
                        fix: "use a larger grid or a narrower stencil",
                    });
                }
                _ => {}
            }
        }
    }
    boundaries.check(op)?;
    Ok(())
}

impl<T: Numeric, const N: usize, B: StencilKernels + CopyKernels> LinearOperator<T, N, B> for StencilOperator<T, N> {
    fn shape(&self) -> [usize; N] {
        self.shape
    }

    fn halo(&self) -> [usize; N] {
        self.stencil.radius()
    }

    fn try_apply(&self, x: &mut Array<T, N, B>, y: &mut Array<T, N, B>) -> Result<()> {
        try_fill_boundaries(&mut *x, self.stencil.radius(), self.boundaries)?;
        self.stencil.try_apply(&*x, &mut *y)
    }

    fn try_apply_in_slabs(
        &self,
        x: &mut Array<T, N, B>,
        y: &mut Array<T, N, B>,
        scratch: &mut Array<T, N, B>,
        each: &mut SlabPass<'_, B, T, N>,
    ) -> Result<bool> {
        if !<Self as LinearOperator<T, N, B>>::applies_in_slabs(self) {
            return Ok(false);
        }
        try_fill_boundaries(&mut *x, self.stencil.radius(), self.boundaries)?;
        // SAFETY: three live arrays; `y` and `scratch` are borrowed uniquely, so they overlap
        // neither each other nor `x` (shared here).
        unsafe { self.stencil.try_apply_in_slabs(self.shape, [x.desc(), y.desc_mut(), scratch.desc_mut()], each) }
    }

    fn applies_in_slabs(&self) -> bool {
        B::OUTPUT_IN_CACHE && N > 0
    }
}

/// A closure `|x, y| ...` that writes `y = A x` (arrays of the operator's shape, no halo) as a
/// linear operator.
///
/// ```
/// use cnda::prelude::*;
/// use cnda::solve::{Cg, FnOperator};
/// // A diagonal operator: y = d * x.
/// let d = Array::from_fn([8], |[i]| 1.0 + i as f64);
/// let a = FnOperator::new([8], |x: &Array<f64, 1>, y: &mut Array<f64, 1>| y.assign(&(x * &d)));
/// let b = Array::<f64, 1>::ones([8]);
/// let mut x = Array::zeros([8]);
/// Cg::new().solve(&a, &b, &mut x);
/// assert!((x[[3]] - 0.25).abs() < 1e-12);
/// ```
pub struct FnOperator<F, const N: usize> {
    shape: [usize; N],
    apply: F,
}

impl<F, const N: usize> FnOperator<F, N> {
    /// The operator of `shape` that `apply(x, y)` computes.
    pub fn new(shape: [usize; N], apply: F) -> Self {
        FnOperator { shape, apply }
    }
}

impl<F, const N: usize> core::fmt::Debug for FnOperator<F, N> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("FnOperator").field("shape", &self.shape).finish_non_exhaustive()
    }
}

impl<T: Pod, const N: usize, B: Backend, F: Fn(&Array<T, N, B>, &mut Array<T, N, B>)> LinearOperator<T, N, B>
    for FnOperator<F, N>
{
    fn shape(&self) -> [usize; N] {
        self.shape
    }

    fn try_apply(&self, x: &mut Array<T, N, B>, y: &mut Array<T, N, B>) -> Result<()> {
        (self.apply)(x, y);
        Ok(())
    }
}
