//! A `stencil!` stencil that is linear in its first field as a linear operator: the unknown is
//! that field, the stencil's other fields are coefficient fields the operator owns, and the
//! linearity is checked on the expression data when the operator is made.

use smallvec::SmallVec;

use super::operator::{check_linear, LinearOperator};
use super::variable_operator::VariableOperator;
use super::vectors::padded_shape;
use crate::array::Array;
use crate::element::Numeric;
use crate::error::{or_panic, Error, Result};
use crate::kernel::expr::{check, radius, Arity, Linearity, Scalar, Stencil};
use crate::kernel::{Allocator, CopyKernels, ElementwiseKernels, ExprStencilKernels, StencilKernels};
use crate::slice::{AxisSlice, SliceSpec};
use crate::stencil::{try_fill_boundaries, Boundaries, StencilApply, VariableStencil};

mod sealed {
    pub trait Sealed {}
}

/// The coefficient fields of an [`ExprOperator`]: every field of its stencil after the first
/// (the unknown), owned, each of the unknowns' shape padded by the stencil's radius (as the
/// solvers' vectors are): `()` for none, one array for one, a tuple of arrays for more. Indexed
/// by the stencil's `Arity` (one more than the coefficient fields), so that a wrong count does
/// not compile.
#[diagnostic::on_unimplemented(
    message = "a stencil taking `{K}` (its unknown and its coefficient fields) cannot take `{Self}` as its coefficient fields",
    label = "not one owned array per field after the unknown",
    note = "the stencil's first field is the unknown; pass its other fields as `()` (none), one `Array`, or a tuple of arrays, in the stencil's order"
)]
pub trait OperatorFields<T, const N: usize, K>: sealed::Sealed {
    /// Each field's shape.
    #[doc(hidden)]
    fn shapes(&self) -> SmallVec<[[usize; N]; 3]>;
}

/// [`OperatorFields`] on backend `B`: applies a stencil to the unknown and these fields.
pub trait OperatorFieldsOn<T: Scalar, const N: usize, B: ExprStencilKernels, K>: OperatorFields<T, N, K> {
    /// `out = stencil((u, fields..), params)` on the interior.
    #[doc(hidden)]
    fn apply<S: Stencil<T, N, Arity = K, Values = T>>(
        &self,
        stencil: &S,
        u: &Array<T, N, B>,
        out: &mut Array<T, N, B>,
        params: S::Params,
    ) -> Result<()>;
}

impl sealed::Sealed for () {}

impl<T, const N: usize> OperatorFields<T, N, Arity<1>> for () {
    fn shapes(&self) -> SmallVec<[[usize; N]; 3]> {
        SmallVec::new()
    }
}

impl<T: Scalar, const N: usize, B: ExprStencilKernels> OperatorFieldsOn<T, N, B, Arity<1>> for () {
    fn apply<S: Stencil<T, N, Arity = Arity<1>, Values = T>>(
        &self,
        stencil: &S,
        u: &Array<T, N, B>,
        out: &mut Array<T, N, B>,
        params: S::Params,
    ) -> Result<()> {
        stencil.try_apply(u, out, params)
    }
}

impl<T: Scalar, const N: usize, B: ExprStencilKernels> sealed::Sealed for Array<T, N, B> {}

impl<T: Scalar, const N: usize, B: ExprStencilKernels> OperatorFields<T, N, Arity<2>> for Array<T, N, B> {
    fn shapes(&self) -> SmallVec<[[usize; N]; 3]> {
        smallvec::smallvec![self.shape()]
    }
}

impl<T: Scalar, const N: usize, B: ExprStencilKernels> OperatorFieldsOn<T, N, B, Arity<2>> for Array<T, N, B> {
    fn apply<S: Stencil<T, N, Arity = Arity<2>, Values = T>>(
        &self,
        stencil: &S,
        u: &Array<T, N, B>,
        out: &mut Array<T, N, B>,
        params: S::Params,
    ) -> Result<()> {
        stencil.try_apply((u, self), out, params)
    }
}

macro_rules! operator_fields_tuple {
    ($arity:expr; $($i:tt),+) => {
        impl<T: Scalar, const N: usize, B: ExprStencilKernels> sealed::Sealed for ($(operator_fields_tuple!(@array $i),)+) {}

        impl<T: Scalar, const N: usize, B: ExprStencilKernels> OperatorFields<T, N, Arity<$arity>>
            for ($(operator_fields_tuple!(@array $i),)+)
        {
            fn shapes(&self) -> SmallVec<[[usize; N]; 3]> {
                smallvec::smallvec![$(self.$i.shape()),+]
            }
        }

        impl<T: Scalar, const N: usize, B: ExprStencilKernels> OperatorFieldsOn<T, N, B, Arity<$arity>>
            for ($(operator_fields_tuple!(@array $i),)+)
        {
            fn apply<S: Stencil<T, N, Arity = Arity<$arity>, Values = T>>(
                &self,
                stencil: &S,
                u: &Array<T, N, B>,
                out: &mut Array<T, N, B>,
                params: S::Params,
            ) -> Result<()> {
                stencil.try_apply((u, $(&self.$i),+), out, params)
            }
        }
    };
    (@array $i:tt) => { Array<T, N, B> };
}

operator_fields_tuple!(2; 0);
operator_fields_tuple!(3; 0, 1);
operator_fields_tuple!(4; 0, 1, 2);
operator_fields_tuple!(5; 0, 1, 2, 3);
operator_fields_tuple!(6; 0, 1, 2, 3, 4);
operator_fields_tuple!(7; 0, 1, 2, 3, 4, 5);
operator_fields_tuple!(8; 0, 1, 2, 3, 4, 5, 6);

/// `y = S(x, fields..; params)`: a [`stencil!`](crate::stencil!) stencil of one value that is
/// linear in its first field, with its other fields (coefficients, owned) and parameters fixed,
/// on unknowns of a given shape with linear boundaries, as a [`LinearOperator`] on the fields'
/// backend (on any backend when it has no other field). Linearity is checked on the stencil's
/// expression when the operator is made ([`CheckedExpr::linearity`](crate::kernel::expr::CheckedExpr::linearity)):
/// products and quotients of the unknown with coefficients and parameters, sums, and selections
/// on conditions that do not read the unknown. Each application is the stencil's own kernel, so
/// an operator that a time step already uses is solved with as written.
///
/// ```
/// use cnda::prelude::*;
/// use cnda::solve::{Cg, ExprOperator, Multigrid, MultigridOptions};
/// use cnda::stencil::Boundary;
/// // -div(k grad u) = 1 on 63 x 63 cells of width h, k jumping tenfold at the middle column.
/// let (n, h) = (63, 1.0 / 64.0);
/// let flux = stencil!(|u, k; h2: T| {
///     let e = 0.5 * (k[0, 0] + k[0, 1]);
///     let w = 0.5 * (k[0, 0] + k[0, -1]);
///     let s = 0.5 * (k[0, 0] + k[1, 0]);
///     let nn = 0.5 * (k[0, 0] + k[-1, 0]);
///     (e * (u[0, 0] - u[0, 1]) + w * (u[0, 0] - u[0, -1]) + s * (u[0, 0] - u[1, 0]) + nn * (u[0, 0] - u[-1, 0])) / h2
/// });
/// let k = Array::from_fn([n + 2, n + 2], |[_, j]| if j < 32 { 1.0 } else { 10.0 });
/// let a = ExprOperator::new(flux, [n, n], [Boundary::Value(0.0); 2], k, (h * h,));
/// let mg = Multigrid::for_variable(&a.to_variable_in(&Cpu), MultigridOptions::default());
/// let b = Array::<f64, 2>::ones([n, n]);
/// let mut u = Array::zeros([n, n]);
/// let report = Cg::new().rtol(1e-10).preconditioner(mg).solve(&a, &b, &mut u);
/// assert!(report.iterations <= 12, "{report:?}");
/// ```
///
/// A stencil that is not linear in its first field is refused, naming what breaks it:
///
/// ```
/// use cnda::prelude::*;
/// use cnda::solve::ExprOperator;
/// use cnda::stencil::Boundary;
/// let burgers = stencil!(|u| u[0] * (u[1] - u[-1]));
/// let refused = ExprOperator::try_new(burgers, [16], [Boundary::Value(0.0)], (), ());
/// assert!(refused.unwrap_err().to_string().contains("multiplies two terms"));
/// ```
pub struct ExprOperator<S: Stencil<T, N>, T: Scalar, const N: usize, F = ()> {
    stencil: S,
    params: S::Params,
    fields: F,
    shape: [usize; N],
    halo: [usize; N],
    boundaries: Boundaries<T, N>,
}

impl<S: Stencil<T, N>, T: Scalar, const N: usize, F> core::fmt::Debug for ExprOperator<S, T, N, F> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ExprOperator")
            .field("stencil", &S::SOURCE)
            .field("shape", &self.shape)
            .field("halo", &self.halo)
            .finish_non_exhaustive()
    }
}

impl<S, T, const N: usize, F> ExprOperator<S, T, N, F>
where
    S: Stencil<T, N, Values = T>,
    T: Scalar + Numeric,
    F: OperatorFields<T, N, S::Arity>,
{
    /// The operator `stencil` on unknowns of `shape` with `boundaries`, its other fields
    /// `fields` (each of `shape` padded by the stencil's radius) and its parameters `params`.
    ///
    /// # Panics
    ///
    /// As [`ExprOperator::try_new`] errs.
    #[track_caller]
    pub fn new(
        stencil: S,
        shape: [usize; N],
        boundaries: impl Into<Boundaries<T, N>>,
        fields: F,
        params: S::Params,
    ) -> Self {
        or_panic(Self::try_new(stencil, shape, boundaries, fields, params))
    }

    /// [`ExprOperator::new`], returning errors.
    ///
    /// # Errors
    ///
    /// `Error::Parameter` when the stencil is not linear in its first field (affine, nonlinear,
    /// or not reading it; the message names the operation that breaks it); `Error::ShapeMismatch`
    /// for a field not of the padded shape; `Error::Layout` for a hand-written stencil that
    /// disagrees with itself; as [`StencilOperator::try_new`](super::StencilOperator::try_new)
    /// for the boundaries.
    pub fn try_new(
        stencil: S,
        shape: [usize; N],
        boundaries: impl Into<Boundaries<T, N>>,
        fields: F,
        params: S::Params,
    ) -> Result<Self> {
        const OP: &str = "ExprOperator::new";
        let (boundaries, halo) = (boundaries.into(), radius::<S, T, N>());
        let expr = check::<S, T, N>(OP)?;
        let unknown = S::FIELDS.first().copied().unwrap_or("the first field");
        let refuse = |reason: String, fix: &'static str| Err(Error::Parameter { op: OP, reason, fix });
        match expr.linearity(0, 0) {
            Linearity::Linear => {}
            Linearity::Constant => {
                return refuse(
                    format!("the stencil `{}` does not read `{unknown}`, the unknown", S::SOURCE),
                    "write the operator as a stencil whose first field is the unknown",
                )
            }
            Linearity::Affine => {
                return refuse(
                    format!("the stencil `{}` has a term without `{unknown}`: it is affine (A u + g), not linear", S::SOURCE),
                    "move the term without the unknown to the right-hand side (solve A u = f - g)",
                )
            }
            Linearity::Nonlinear { why, .. } => {
                return refuse(
                    format!("the stencil `{}` is not linear in `{unknown}`: it {why}", S::SOURCE),
                    "solve a nonlinear problem by Newton or Picard iterations, each a linear solve whose operator is linear in the unknown (the last iterate in a coefficient field)",
                )
            }
        }
        let padded = padded_shape::<T, N>(OP, shape, halo)?;
        if let Some(other) = fields.shapes().into_iter().find(|s| *s != padded) {
            return Err(Error::ShapeMismatch { op: OP, expected: padded.to_vec(), got: other.to_vec() });
        }
        check_linear(OP, shape, halo, &boundaries)?;
        Ok(ExprOperator { stencil, params, fields, shape, halo, boundaries })
    }

    /// The stencil.
    pub fn stencil(&self) -> &S {
        &self.stencil
    }

    /// The coefficient fields.
    pub fn fields(&self) -> &F {
        &self.fields
    }

    /// The parameters.
    pub fn params(&self) -> &S::Params {
        &self.params
    }

    /// The boundary conditions.
    pub fn boundaries(&self) -> &Boundaries<T, N> {
        &self.boundaries
    }

    /// The same operator as a [`VariableOperator`]: a coefficient field per tap of the unknown,
    /// `c_k[x]`, on `alloc`'s device (the fields' own for an operator that has fields), for
    /// [`Multigrid::for_variable`](super::Multigrid::for_variable) and a diagonal
    /// ([`VariableOperator::diagonal`]). Found by probing with the stencil's own kernel:
    /// `(2 r + 1)^N` applications (`r` the radius of the unknown's taps: 9 in 2D and 27 in 3D
    /// for a radius of one), each on an input of ones on one lattice of spacing `2 r + 1`,
    /// which no two taps of a point reach. The coefficients are each tap's value with the
    /// unknown one there and zero at the other taps: the operator's own, rounded as the
    /// stencil's expression rounds them.
    ///
    /// # Panics
    ///
    /// As [`ExprOperator::try_to_variable_in`] errs.
    #[track_caller]
    pub fn to_variable_in<B>(&self, alloc: &impl Allocator<B>) -> VariableOperator<T, N, B>
    where
        B: ExprStencilKernels + StencilKernels + ElementwiseKernels + CopyKernels,
        F: OperatorFieldsOn<T, N, B, S::Arity>,
    {
        or_panic(self.try_to_variable_in(alloc))
    }

    /// [`ExprOperator::to_variable_in`], returning errors.
    ///
    /// # Errors
    ///
    /// `Error::Alloc`; `Error::DeviceMismatch` when `alloc` is not the fields' device; the
    /// kernels' errors.
    pub fn try_to_variable_in<B>(&self, alloc: &impl Allocator<B>) -> Result<VariableOperator<T, N, B>>
    where
        B: ExprStencilKernels + StencilKernels + ElementwiseKernels + CopyKernels,
        F: OperatorFieldsOn<T, N, B, S::Arity>,
    {
        const OP: &str = "ExprOperator::to_variable";
        // One tap per offset (a hand-written stencil may repeat one: the probe then gives their
        // coefficients' sum, which is the operator's).
        let mut offsets: Vec<[isize; N]> = Vec::new();
        for tap in S::TAPS.iter().filter(|t| t.field == 0) {
            if !offsets.contains(&tap.offset) {
                offsets.push(tap.offset);
            }
        }
        let reach: [usize; N] =
            core::array::from_fn(|k| offsets.iter().map(|o| o[k].unsigned_abs()).max().unwrap_or(0));
        // `padded` fits, so does `2 reach + 1 <= 2 halo + shape`.
        let padded = padded_shape::<T, N>(OP, self.shape, self.halo)?;
        let spacing: [usize; N] = core::array::from_fn(|k| 2 * reach[k] + 1);
        let (mut probe, mut image) =
            (Array::<T, N, B>::try_zeros_in(alloc, padded)?, Array::<T, N, B>::try_zeros_in(alloc, padded)?);
        let mut coefficients =
            (0..offsets.len()).map(|_| Array::<T, N, B>::try_zeros_in(alloc, padded)).collect::<Result<Vec<_>>>()?;
        let mut colour = [0usize; N];
        loop {
            probe.try_fill(T::ZERO)?;
            lattice(probe.view_mut(), colour, spacing)?.try_fill(T::ONE)?;
            self.fields.apply(&self.stencil, &probe, &mut image, self.params)?;
            // Point `x` reads the probe's ones through the one tap `o` with `x + o` on the
            // lattice: its value there is that tap's coefficient.
            for (c, o) in coefficients.iter_mut().zip(&offsets) {
                let start =
                    core::array::from_fn(|k| (colour[k] as isize - o[k]).rem_euclid(spacing[k] as isize) as usize);
                lattice(c.view_mut(), start, spacing)?.try_assign(&lattice(image.view(), start, spacing)?)?;
            }
            if !next_colour(&mut colour, spacing) {
                break;
            }
        }
        // The variable operator's fields are padded by the unknown's reach only.
        let fields = coefficients
            .iter()
            .map(|c| {
                let inner = (0..N).fold(c.view().into_strided(), |v, k| {
                    v.narrow(k, self.halo[k] - reach[k], self.shape[k] + 2 * reach[k])
                });
                inner.try_to_owned()
            })
            .collect::<Result<Vec<_>>>()?;
        VariableOperator::try_new(VariableStencil::try_new(offsets)?, fields, self.boundaries)
    }
}

/// The points of `view` at `start + spacing · i`.
fn lattice<'a, T: crate::element::Pod, const N: usize, A: crate::view::Access, B: crate::kernel::Backend>(
    view: crate::view::View<'a, T, N, A, B, crate::layout::RowMajor>,
    start: [usize; N],
    spacing: [usize; N],
) -> Result<crate::view::View<'a, T, N, A, B, crate::layout::Strided>> {
    let items =
        core::array::from_fn(|k| AxisSlice::Range { start: start[k] as isize, end: None, step: spacing[k] as isize });
    view.try_slice(SliceSpec::<N, N, false, false>::new(items))
}

/// The next colour of the lattice's `spacing` in odometer order; `false` after the last.
fn next_colour<const N: usize>(colour: &mut [usize; N], spacing: [usize; N]) -> bool {
    for k in (0..N).rev() {
        colour[k] += 1;
        if colour[k] < spacing[k] {
            return true;
        }
        colour[k] = 0;
    }
    false
}

impl<S, T, const N: usize, B, F> LinearOperator<T, N, B> for ExprOperator<S, T, N, F>
where
    S: Stencil<T, N, Values = T>,
    T: Scalar + Numeric,
    B: ExprStencilKernels + CopyKernels,
    F: OperatorFieldsOn<T, N, B, S::Arity>,
{
    fn shape(&self) -> [usize; N] {
        self.shape
    }

    fn halo(&self) -> [usize; N] {
        self.halo
    }

    fn try_apply(&self, x: &mut Array<T, N, B>, y: &mut Array<T, N, B>) -> Result<()> {
        try_fill_boundaries(&mut *x, self.halo, self.boundaries)?;
        self.fields.apply(&self.stencil, x, y, self.params)
    }
}
