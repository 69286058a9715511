//! A `stencil!` operator on a distributed grid ([`DistOperator::expr`]): each process's block
//! an [`ExprOperator`] with the grid's conditions at its global edges, its coefficient fields
//! the blocks (halos included) of distributed arrays split as the unknowns are.

use mpi::datatype::Equivalence;

use super::dist::{check_global, local_boundaries, DistOperator};
use super::expr_operator::{ExprOperator, OperatorFields, OperatorFieldsOn};
use crate::array::Array;
use crate::dist::{DistArray, DistBackend};
use crate::element::Numeric;
use crate::error::{or_panic, Error, Result};
use crate::kernel::expr::{radius, Arity, Scalar, Stencil};
use crate::kernel::{CopyKernels, ExprStencilKernels};
use crate::stencil::Boundaries;

mod sealed {
    pub trait Sealed {}
}

/// The coefficient fields of a [`DistOperator::expr`]: `()` for none, one `&DistArray`, or a
/// tuple of them, in the stencil's order after the unknown, indexed by the stencil's `Arity` as
/// [`OperatorFields`] is. Each is split as the unknowns are, with halos of the stencil's radius
/// that hold what the stencil reads there (exchange them first; at the grid's edges, fill them
/// as the stencil should read them).
#[diagnostic::on_unimplemented(
    message = "a stencil taking `{K}` (its unknown and its coefficient fields) cannot take `{Self}` as its distributed coefficient fields",
    label = "not one `&DistArray` per field after the unknown",
    note = "the stencil's first field is the unknown; pass its other fields as `()` (none), one `&DistArray`, or a tuple of them, in the stencil's order"
)]
pub trait DistFields<T: Scalar + Equivalence, const N: usize, B: DistBackend + ExprStencilKernels, K>:
    sealed::Sealed
{
    /// The blocks, owned: what the local [`ExprOperator`] keeps.
    #[doc(hidden)]
    type Local: OperatorFields<T, N, K> + OperatorFieldsOn<T, N, B, K>;

    /// Copies of this process's blocks, halos included, after checking each is split as
    /// `like` with halos of `halo`.
    #[doc(hidden)]
    fn local(&self, op: &'static str, like: &DistArray<T, N, B>, halo: [usize; N]) -> Result<Self::Local>;
}

impl sealed::Sealed for () {}

impl<T: Scalar + Equivalence, const N: usize, B: DistBackend + ExprStencilKernels> DistFields<T, N, B, Arity<1>>
    for ()
{
    type Local = ();

    fn local(&self, _: &'static str, _: &DistArray<T, N, B>, _: [usize; N]) -> Result<()> {
        Ok(())
    }
}

/// This process's block of `field`, halo included, after checking its split.
fn block<T: Scalar + Equivalence, const N: usize, B: DistBackend + CopyKernels>(
    op: &'static str,
    field: &DistArray<T, N, B>,
    like: &DistArray<T, N, B>,
    halo: [usize; N],
) -> Result<Array<T, N, B>> {
    if field.decomposition() != like.decomposition() || field.halo() != halo {
        return Err(Error::Decomposition {
            op,
            reason: format!(
                "a coefficient field is split {:?} with halos {:?}, the unknowns {:?} and the stencil's radius {halo:?}",
                field.decomposition().dims(),
                field.halo(),
                like.decomposition().dims()
            ),
            fix: "make every field on the same grid and process grid, with halos of the stencil's radius",
        });
    }
    field.local().view().try_to_owned()
}

impl<T: Scalar + Equivalence, const N: usize, B: DistBackend> sealed::Sealed for &DistArray<T, N, B> {}

impl<T: Scalar + Equivalence, const N: usize, B: DistBackend + ExprStencilKernels + CopyKernels>
    DistFields<T, N, B, Arity<2>> for &DistArray<T, N, B>
{
    type Local = Array<T, N, B>;

    fn local(&self, op: &'static str, like: &DistArray<T, N, B>, halo: [usize; N]) -> Result<Self::Local> {
        block(op, self, like, halo)
    }
}

macro_rules! dist_fields_tuple {
    ($arity:expr; $($i:tt),+) => {
        impl<T: Scalar + Equivalence, const N: usize, B: DistBackend> sealed::Sealed
            for ($(dist_fields_tuple!(@dist $i),)+) {}

        impl<T: Scalar + Equivalence, const N: usize, B: DistBackend + ExprStencilKernels + CopyKernels>
            DistFields<T, N, B, Arity<$arity>> for ($(dist_fields_tuple!(@dist $i),)+)
        {
            type Local = ($(dist_fields_tuple!(@array $i),)+);

            fn local(&self, op: &'static str, like: &DistArray<T, N, B>, halo: [usize; N]) -> Result<Self::Local> {
                Ok(($(block(op, self.$i, like, halo)?,)+))
            }
        }
    };
    (@dist $i:tt) => { &DistArray<T, N, B> };
    (@array $i:tt) => { Array<T, N, B> };
}

dist_fields_tuple!(2; 0);
dist_fields_tuple!(3; 0, 1);
dist_fields_tuple!(4; 0, 1, 2);
dist_fields_tuple!(5; 0, 1, 2, 3);

impl<S, T, const N: usize, B, L> DistOperator<T, N, ExprOperator<S, T, N, L>, B>
where
    S: Stencil<T, N, Values = T>,
    T: Scalar + Numeric + Equivalence,
    B: DistBackend + ExprStencilKernels + CopyKernels,
    L: OperatorFields<T, N, S::Arity> + OperatorFieldsOn<T, N, B, S::Arity>,
{
    /// A [`stencil!`](crate::stencil!) stencil linear in its first field (checked as
    /// [`ExprOperator::new`] checks it) with `boundaries` on the whole grid of `like`, its other
    /// fields `fields` (distributed arrays split as `like`, with halos of the stencil's radius
    /// holding what it reads there: exchange them first) and its parameters `params`; each
    /// process applies it to its block. Collective.
    ///
    /// ```no_run
    /// use cnda::dist::DistArray;
    /// use cnda::prelude::*;
    /// use cnda::solve::{Cg, DistOperator};
    /// use cnda::stencil::Boundary;
    /// let universe = mpi::initialize().unwrap();
    /// let world = universe.world();
    /// let flux = stencil!(|u, k| {
    ///     let e = 0.5 * (k[0, 0] + k[0, 1]);
    ///     let w = 0.5 * (k[0, 0] + k[0, -1]);
    ///     let s = 0.5 * (k[0, 0] + k[1, 0]);
    ///     let n = 0.5 * (k[0, 0] + k[-1, 0]);
    ///     e * (u[0, 0] - u[0, 1]) + w * (u[0, 0] - u[0, -1]) + s * (u[0, 0] - u[1, 0]) + n * (u[0, 0] - u[-1, 0])
    /// });
    /// let mut k = DistArray::<f64, 2>::new(&world, [255, 255], [1, 1], [false, false]);
    /// k.fill_owned_with(|[i, _]| if i < 128 { 1.0 } else { 10.0 });
    /// k.exchange_halos();
    /// let mut b = DistArray::<f64, 2>::new(&world, [255, 255], [1, 1], [false, false]);
    /// b.fill_owned_with(|_| 1.0);
    /// let a = DistOperator::expr(flux, [Boundary::Value(0.0); 2], &k, (), &b);
    /// let mut u = DistArray::new(&world, [255, 255], [1, 1], [false, false]);
    /// let report = Cg::new().rtol(1e-8).solve_dist(&a, &b, &mut u);
    /// ```
    ///
    /// # Panics
    ///
    /// As [`DistOperator::try_expr`] errs.
    #[track_caller]
    pub fn expr<F: DistFields<T, N, B, S::Arity, Local = L>>(
        stencil: S,
        boundaries: impl Into<Boundaries<T, N>>,
        fields: F,
        params: S::Params,
        like: &DistArray<T, N, B>,
    ) -> Self {
        or_panic(Self::try_expr(stencil, boundaries, fields, params, like))
    }

    /// [`DistOperator::expr`], returning errors.
    ///
    /// # Errors
    ///
    /// As [`ExprOperator::try_new`] on the block (the stencil's linearity) and as
    /// [`DistOperator::try_stencil`] on the whole grid; `Error::Decomposition` for a field
    /// split otherwise than `like` or with other halos than the stencil's radius. The same
    /// error on every process.
    pub fn try_expr<F: DistFields<T, N, B, S::Arity, Local = L>>(
        stencil: S,
        boundaries: impl Into<Boundaries<T, N>>,
        fields: F,
        params: S::Params,
        like: &DistArray<T, N, B>,
    ) -> Result<Self> {
        const OP: &str = "DistOperator::expr";
        let (boundaries, halo) = (boundaries.into(), radius::<S, T, N>());
        let faces_only = S::TAPS.iter().all(|t| t.offset.iter().filter(|&&o| o != 0).count() <= 1);
        let local = check_global(OP, like, halo, &boundaries).and_then(|()| {
            let (d, rank) = (like.decomposition(), like.rank());
            let blocks = fields.local(OP, like, halo)?;
            ExprOperator::try_new(stencil, d.block_shape(rank), local_boundaries(d, rank, &boundaries), blocks, params)
        });
        Self::with_exchange(OP, local, like, faces_only, Some(boundaries))
    }
}
