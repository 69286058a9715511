//! A stencil with a coefficient field per tap as a linear operator: diffusion with a conductivity
//! that varies in space, on any backend.

use super::diffusion::Conductivity;
use super::operator::{check_linear, LinearOperator};
use crate::array::Array;
use crate::element::Numeric;
use crate::error::{or_panic, Error, Result};
use crate::kernel::{Backend, CopyKernels, ElementwiseKernels, StencilKernels};
use crate::stencil::{try_fill_boundaries, Boundaries, SlabPass, VariableStencil};

/// `y[x] = Σ_k c_k[x] · x[x + o_k]`: a [`VariableStencil`] with its coefficient fields (one per
/// tap, each of the unknowns' shape padded by the stencil's radius, as the vectors are) and
/// linear boundaries, as a [`LinearOperator`] on their backend.
///
/// ```
/// use cnda::prelude::*;
/// use cnda::solve::{Cg, Jacobi, VariableOperator};
/// use cnda::stencil::{Boundary, VariableStencil};
/// // -(k u')' + u on 64 points, k jumping by 100 halfway, in conservative form.
/// let (n, h) = (64, 1.0 / 65.0);
/// let k = |i: usize| if i < 33 { 1.0 } else { 100.0 }; // k at the face left of padded point i
/// let left = Array::from_fn([n + 2], |[i]| if (1..=n).contains(&i) { -k(i) / (h * h) } else { 0.0 });
/// let right = Array::from_fn([n + 2], |[i]| if (1..=n).contains(&i) { -k(i + 1) / (h * h) } else { 0.0 });
/// let centre = Array::from_fn([n + 2], |[i]| if (1..=n).contains(&i) { (k(i) + k(i + 1)) / (h * h) + 1.0 } else { 1.0 });
/// let stencil = VariableStencil::new([[-1], [0], [1]]);
/// let a = VariableOperator::new(stencil, vec![left, centre, right], [Boundary::Value(0.0)]);
/// let b = Array::<f64, 1>::ones([n]);
/// let mut u = Array::zeros([n]);
/// let jacobi = Jacobi::new(&a.diagonal());
/// let report = Cg::new().rtol(1e-10).preconditioner(jacobi).solve(&a, &b, &mut u);
/// assert!(report.iterations <= n);
/// ```
pub struct VariableOperator<T: Numeric, const N: usize, B: Backend> {
    stencil: VariableStencil<N>,
    coefficients: Vec<Array<T, N, B>>,
    shape: [usize; N],
    boundaries: Boundaries<T, N>,
    /// The conductivity a diffusion operator was built from (`None` from coefficient fields).
    pub(super) conductivity: Option<Conductivity<T, N>>,
}

impl<T: Numeric, const N: usize, B: Backend> core::fmt::Debug for VariableOperator<T, N, B> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("VariableOperator")
            .field("offsets", &self.stencil.offsets())
            .field("shape", &self.shape)
            .field("backend", &B::NAME)
            .finish_non_exhaustive()
    }
}

impl<T: Numeric, const N: usize, B: Backend> VariableOperator<T, N, B> {
    /// The conductivity, spacing and shift a diffusion operator was built from.
    pub(crate) fn conductivity(&self) -> Option<&Conductivity<T, N>> {
        self.conductivity.as_ref()
    }
}

impl<T: Numeric, const N: usize, B: StencilKernels + ElementwiseKernels + CopyKernels> VariableOperator<T, N, B> {
    /// The operator `stencil` with `coefficients` (one field per tap, in the stencil's order)
    /// and `boundaries`; the unknowns' shape is the fields' less the stencil's halo.
    ///
    /// # Panics
    ///
    /// As [`VariableOperator::try_new`] errs.
    #[track_caller]
    pub fn new(
        stencil: VariableStencil<N>,
        coefficients: Vec<Array<T, N, B>>,
        boundaries: impl Into<Boundaries<T, N>>,
    ) -> Self {
        or_panic(Self::try_new(stencil, coefficients, boundaries))
    }

    /// [`VariableOperator::new`], returning errors.
    ///
    /// # Errors
    ///
    /// `Error::Layout` when the fields are not one per tap; `Error::ShapeMismatch` when they
    /// differ in shape; `Error::Parameter` when a field is too small to hold the halo, or as
    /// [`StencilOperator::try_new`](super::StencilOperator::try_new).
    pub fn try_new(
        stencil: VariableStencil<N>,
        coefficients: Vec<Array<T, N, B>>,
        boundaries: impl Into<Boundaries<T, N>>,
    ) -> Result<Self> {
        const OP: &str = "VariableOperator::new";
        let boundaries = boundaries.into();
        if coefficients.len() != stencil.offsets().len() {
            return Err(Error::Layout {
                op: OP,
                reason: format!("{} coefficient fields for {} taps", coefficients.len(), stencil.offsets().len()),
                fix: "give one field per tap, in the stencil's order",
            });
        }
        let (padded, radius) = (coefficients[0].shape(), stencil.radius());
        if let Some(other) = coefficients.iter().find(|c| c.shape() != padded) {
            return Err(Error::ShapeMismatch { op: OP, expected: padded.to_vec(), got: other.shape().to_vec() });
        }
        if (0..N).any(|k| padded[k] <= 2 * radius[k]) {
            return Err(Error::Parameter {
                op: OP,
                reason: format!("the fields' shape {padded:?} leaves no unknown inside a halo of {radius:?}"),
                fix: "give fields of the unknowns' shape plus the stencil's radius at both ends of every axis",
            });
        }
        let shape = core::array::from_fn(|k| padded[k] - 2 * radius[k]);
        check_linear(OP, shape, radius, &boundaries)?;
        Ok(VariableOperator { stencil, coefficients, shape, boundaries, conductivity: None })
    }

    /// The stencil's offsets.
    pub fn stencil(&self) -> &VariableStencil<N> {
        &self.stencil
    }

    /// The coefficient fields, one per tap (the unknowns' shape padded by the stencil's radius).
    pub fn coefficients(&self) -> &[Array<T, N, B>] {
        &self.coefficients
    }

    /// The boundary conditions.
    pub fn boundaries(&self) -> &Boundaries<T, N> {
        &self.boundaries
    }

    /// The diagonal: the interior of the centre tap's field (for [`Jacobi`](super::Jacobi)).
    ///
    /// # Panics
    ///
    /// As [`VariableOperator::try_diagonal`] errs.
    #[track_caller]
    pub fn diagonal(&self) -> Array<T, N, B> {
        or_panic(self.try_diagonal())
    }

    /// [`VariableOperator::diagonal`], returning errors.
    ///
    /// # Errors
    ///
    /// `Error::Parameter` when the stencil has no centre tap; `Error::Alloc`.
    pub fn try_diagonal(&self) -> Result<Array<T, N, B>> {
        let Some(centre) = self.stencil.offsets().iter().position(|o| *o == [0; N]) else {
            return Err(Error::Parameter {
                op: "VariableOperator::diagonal",
                reason: "the stencil has no tap at offset 0".into(),
                fix: "a diagonal needs a centre tap; precondition otherwise",
            });
        };
        let radius = self.stencil.radius();
        let field = &self.coefficients[centre];
        let inner = (0..N).fold(field.view().into_strided(), |v, k| v.narrow(k, radius[k], self.shape[k]));
        inner.try_to_owned()
    }
}

impl<T: Numeric, const N: usize, B: StencilKernels + ElementwiseKernels + CopyKernels> LinearOperator<T, N, B>
    for VariableOperator<T, N, B>
{
    fn shape(&self) -> [usize; N] {
        self.shape
    }

    fn halo(&self) -> [usize; N] {
        self.stencil.radius()
    }

    fn try_apply(&self, x: &mut Array<T, N, B>, y: &mut Array<T, N, B>) -> Result<()> {
        try_fill_boundaries(&mut *x, self.stencil.radius(), self.boundaries)?;
        self.stencil.try_apply(&*x, &self.coefficients, &mut *y)
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
        let descs = [x.desc(), y.desc_mut(), scratch.desc_mut()];
        // SAFETY: three live arrays; `y` and `scratch` are borrowed uniquely, so they overlap
        // neither each other, `x` (shared here) nor the operator's own fields.
        unsafe { self.stencil.try_apply_in_slabs(self.shape, &self.coefficients, descs, each) }
    }

    fn applies_in_slabs(&self) -> bool {
        B::OUTPUT_IN_CACHE && N > 0
    }
}
