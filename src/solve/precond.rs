//! Preconditioners: `z = M⁻¹ r`, an approximation of the operator's inverse that the Krylov
//! methods apply each iteration. [`Identity`] (none) and [`Jacobi`] (the inverse diagonal).

use super::vectors::{SolverBackend, SolverScalar};
use crate::array::Array;
use crate::element::Pod;
use crate::error::{Error, Result};
use crate::kernel::tokens::{Abs, Div, Max, Min, Mul, ScalarLeft};
use crate::kernel::{merged3, Backend};
use crate::ops::elementwise::unary;
use crate::ops::reduce::reduce;

/// A preconditioner `M⁻¹` for operators on arrays of `N` axes on backend `B`: `z = M⁻¹ r` on the
/// interiors of arrays padded by `halo` (the operator's, see
/// [`LinearOperator`](super::LinearOperator)). CG needs it symmetric and of the operator's
/// definiteness; BiCGSTAB and GMRES apply it on the right.
pub trait Preconditioner<T: Pod, const N: usize, B: Backend> {
    /// `z = M⁻¹ r` on the interiors (`r` and `z` of the operator's shape plus `2 halo`).
    ///
    /// # Errors
    ///
    /// Whatever the preconditioner's operations return.
    fn try_apply(&self, r: &Array<T, N, B>, z: &mut Array<T, N, B>, halo: [usize; N]) -> Result<()>;

    /// The work of this preconditioner's applications so far, in operator applications on the
    /// finest grid (a stencil pass over a coarser grid counts its share of the points); a solve
    /// reports the difference in [`SolveReport::work`](super::SolveReport::work). Zero by
    /// default: a diagonal scaling costs less than one application.
    fn work(&self) -> f64 {
        0.0
    }

    /// Whether this is [`Identity`], which the solvers skip.
    #[doc(hidden)]
    fn is_identity(&self) -> bool {
        false
    }
}

/// No preconditioning: `M = I`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Identity;

impl<T: Pod, const N: usize, B: Backend> Preconditioner<T, N, B> for Identity {
    fn try_apply(&self, _: &Array<T, N, B>, _: &mut Array<T, N, B>, _: [usize; N]) -> Result<()> {
        Err(Error::Parameter {
            op: "Identity::try_apply",
            reason: "the identity preconditioner is skipped by the solvers, never applied".into(),
            fix: "apply no preconditioner: the residual is its own preconditioned residual",
        })
    }

    fn is_identity(&self) -> bool {
        true
    }
}

/// Jacobi (diagonal) preconditioning: `z = r / diag(A)`, elementwise. Pays off where the
/// diagonal varies (variable coefficients); a constant diagonal only rescales, which changes no
/// Krylov iterate.
///
/// ```
/// use cnda::prelude::*;
/// use cnda::solve::{Cg, FnOperator, Jacobi};
/// let d = Array::from_fn([100], |[i]| 1.0 + (i * i) as f64);
/// let a = FnOperator::new([100], |x: &Array<f64, 1>, y: &mut Array<f64, 1>| y.assign(&(x * &d)));
/// let b = Array::<f64, 1>::ones([100]);
/// let mut x = Array::zeros([100]);
/// let report = Cg::new().preconditioner(Jacobi::new(&d)).solve(&a, &b, &mut x);
/// assert_eq!(report.iterations, 1); // exact for a diagonal operator
/// ```
pub struct Jacobi<T: Pod, const N: usize, B: Backend> {
    inverse: Array<T, N, B>,
}

impl<T: Pod, const N: usize, B: Backend> core::fmt::Debug for Jacobi<T, N, B> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Jacobi").field("shape", &self.inverse.shape()).field("backend", &B::NAME).finish()
    }
}

impl<T: SolverScalar, const N: usize, B: SolverBackend> Jacobi<T, N, B> {
    /// The Jacobi preconditioner of an operator with this diagonal (of the operator's shape, on
    /// its device).
    ///
    /// # Panics
    ///
    /// As [`Jacobi::try_new`] errs.
    #[track_caller]
    pub fn new(diagonal: &Array<T, N, B>) -> Self {
        crate::error::or_panic(Self::try_new(diagonal))
    }

    /// [`Jacobi::new`], returning errors.
    ///
    /// # Errors
    ///
    /// `Error::Parameter` when the diagonal holds a zero or a non-finite value; `Error::Alloc`.
    pub fn try_new(diagonal: &Array<T, N, B>) -> Result<Self> {
        // SAFETY: the array's own elements, live and borrowed shared for the call.
        let inverse: Array<T, N, B> =
            unsafe { unary(&diagonal.allocator(), ScalarLeft(T::ONE, Div), diagonal.desc()) }?;
        // Every |1/d| in (0, inf): no d is zero (inf), infinite (0) or NaN (min and max
        // propagate NaN).
        // SAFETY: `inverse`'s own elements, live, borrowed shared for the calls.
        let magnitude: Array<T, N, B> = unsafe { unary(&diagonal.allocator(), Abs, inverse.desc()) }?;
        // SAFETY: as above.
        let (lo, hi) = unsafe { (reduce(Min, magnitude.desc())?, reduce(Max, magnitude.desc())?) };
        let finite = match (lo, hi) {
            (Some(lo), Some(hi)) => lo.into() > 0.0 && hi.into().is_finite(),
            _ => true,
        };
        if !finite {
            return Err(Error::Parameter {
                op: "Jacobi::new",
                reason: "the diagonal holds a zero, an infinity or a NaN".into(),
                fix: "Jacobi needs a non-zero, finite diagonal; use no preconditioner or another one",
            });
        }
        Ok(Jacobi { inverse })
    }
}

impl<T: SolverScalar, const N: usize, B: SolverBackend> Preconditioner<T, N, B> for Jacobi<T, N, B> {
    fn try_apply(&self, r: &Array<T, N, B>, z: &mut Array<T, N, B>, halo: [usize; N]) -> Result<()> {
        let shape = self.inverse.shape();
        let padded = super::vectors::padded_shape::<T, N>("Jacobi", shape, halo)?;
        for (got, what) in [(r.shape(), "r"), (z.shape(), "z")] {
            if got != padded {
                return Err(Error::ShapeMismatch { op: what_op(what), expected: padded.to_vec(), got: got.to_vec() });
            }
        }
        let inner = |d: crate::kernel::Desc<B, T, N>| (0..N).fold(d, |d, k| d.narrowed(k, halo[k], shape[k]));
        let (zd, rd, inv) = (inner(z.desc_mut()), inner(r.desc()), self.inverse.desc());
        crate::ops::output::same_device::<B>(
            "Jacobi",
            &B::handle_device(zd.handle),
            &[B::handle_device(rd.handle), B::handle_device(inv.handle)],
        )?;
        let [zd, rd, inv] = merged3(zd, rd, inv);
        // SAFETY: `z` is uniquely borrowed, so distinct from `r` and from the preconditioner's
        // own array; all three are live, of the checked shapes, on one device.
        unsafe { B::binary(&B::handle_device(zd.handle), Mul, zd, rd, inv) }
    }
}

/// The operation name of a Jacobi application's shape error.
fn what_op(what: &str) -> &'static str {
    if what == "r" {
        "Jacobi (the residual)"
    } else {
        "Jacobi (the output)"
    }
}
