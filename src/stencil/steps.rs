//! Time steps of `stencil!` stencils: the first field evolves in a [`DoubleBuffer`], the others
//! are coefficient fields that stay as they are; each sweep is the backend's expression kernel,
//! run by the one time stepper of `fused/` (the fused wavefront on the CPU, one call per sweep on
//! devices).

use core::marker::PhantomData;

use smallvec::SmallVec;

use super::boundary::Boundaries;
use super::buffer::DoubleBuffer;
use super::fused::{run_steps, Sweep};
use crate::array::Array;
use crate::check::BoundsCheck;
use crate::element::Pod;
use crate::error::{Error, Result};
use crate::kernel::expr::{Arity, Scalar, Stencil};
use crate::kernel::{Backend, CopyKernels, Desc, ExprStencilKernels};
use crate::layout::Layout;
use crate::ops::operand::AsOperand;
use crate::view::{Access, View};

mod sealed {
    pub trait Sealed {}
}

/// The coefficient fields of a time-stepped stencil of arity `K`: every field after the first
/// (which evolves), read by every step and never written: `()` for a one-field stencil, one
/// operand (`&array` or a view) for two fields, a tuple for more.
#[diagnostic::on_unimplemented(
    message = "a stencil of `{K}` fields cannot take `{Self}` as its coefficient fields",
    label = "not one operand per field after the first",
    note = "the first field evolves in the DoubleBuffer; pass the others (`()` when there are none, `&k`, or `(&k, &c)`) in the stencil's order"
)]
pub trait Coefficients<T: Pod, const N: usize, B: Backend, K>: sealed::Sealed {
    /// Each coefficient field's kernel descriptor, valid while `self` is borrowed.
    #[doc(hidden)]
    fn coefficient_descs(&self) -> SmallVec<[Desc<B, T, N>; 3]>;
}

impl sealed::Sealed for () {}
impl<T: Pod, const N: usize, B: Backend> Coefficients<T, N, B, Arity<1>> for () {
    fn coefficient_descs(&self) -> SmallVec<[Desc<B, T, N>; 3]> {
        SmallVec::new()
    }
}

/// One coefficient field given alone.
macro_rules! single_coefficient {
    ($([$($generics:tt)*] $ty:ty;)*) => {$(
        impl<$($generics)*> sealed::Sealed for $ty {}
        impl<$($generics)*> Coefficients<T, N, B, Arity<2>> for $ty {
            fn coefficient_descs(&self) -> SmallVec<[Desc<B, T, N>; 3]> {
                smallvec::smallvec![self.operand_desc()]
            }
        }
    )*};
}

single_coefficient! {
    ['a, T: Pod, const N: usize, B: Backend, L: Layout, C: BoundsCheck] &'a Array<T, N, B, L, C>;
    ['a, T: Pod, const N: usize, A: Access, B: Backend, L: Layout, C: BoundsCheck] View<'a, T, N, A, B, L, C>;
}

macro_rules! coefficient_tuple {
    ($arity:expr; $($name:ident $i:tt),+) => {
        impl<$($name),+> sealed::Sealed for ($($name,)+) {}
        impl<T: Pod, const N: usize, B: Backend, $($name: AsOperand<T, N, B>),+> Coefficients<T, N, B, Arity<$arity>>
            for ($($name,)+)
        {
            fn coefficient_descs(&self) -> SmallVec<[Desc<B, T, N>; 3]> {
                smallvec::smallvec![$(self.$i.operand_desc()),+]
            }
        }
    };
}

coefficient_tuple!(2; A 0);
coefficient_tuple!(3; A 0, C 1);
coefficient_tuple!(4; A 0, C 1, D 2);

/// A `stencil!` stencil's sweep over a region: the evolving field, and the coefficient fields
/// narrowed to the same region.
pub(super) struct ExprSweep<'p, S: Stencil<T, N>, B: Backend, T: Scalar, const N: usize> {
    coefficients: SmallVec<[Desc<B, T, N>; 3]>,
    params: &'p S::Params,
    stencil: PhantomData<S>,
}

impl<'p, S: Stencil<T, N>, B: Backend, T: Scalar, const N: usize> ExprSweep<'p, S, B, T, N> {
    /// The sweep after checking the coefficient fields against the evolving field's shape and
    /// device.
    ///
    /// # Errors
    ///
    /// `Error::ShapeMismatch`, `Error::DeviceMismatch`.
    pub(super) fn new(
        op: &'static str,
        field: &DoubleBuffer<T, N, B>,
        coefficients: SmallVec<[Desc<B, T, N>; 3]>,
        params: &'p S::Params,
    ) -> Result<Self> {
        let current = field.current();
        for c in &coefficients {
            if c.shape != current.shape() {
                return Err(Error::ShapeMismatch { op, expected: current.shape().to_vec(), got: c.shape.to_vec() });
            }
        }
        let devices: SmallVec<[B::Device; 3]> = coefficients.iter().map(|c| B::handle_device(c.handle)).collect();
        crate::ops::output::same_device::<B>(op, &B::handle_device(current.desc().handle), &devices)?;
        crate::kernel::expr::check::<S, T, N>(op)?;
        if S::VALUES.len() != 1 {
            return Err(Error::Layout {
                op,
                reason: format!("the stencil computes {} values, and this time stepper evolves one field", S::VALUES.len()),
                fix: "apply a stencil of several values with `apply((fields..), (&mut outputs..), params)` and swap the arrays between steps",
            });
        }
        if coefficients.len() + 1 != S::FIELDS.len() {
            return Err(Error::Layout {
                op,
                reason: format!(
                    "{} coefficient fields for a stencil of {} fields",
                    coefficients.len(),
                    S::FIELDS.len()
                ),
                fix: "give the stencil an `Arity` of its field count (as `stencil!` does)",
            });
        }
        Ok(ExprSweep { coefficients, params, stencil: PhantomData })
    }
}

impl<S: Stencil<T, N>, B: ExprStencilKernels, T: Scalar, const N: usize> Sweep<B, T, N> for ExprSweep<'_, S, B, T, N> {
    fn radius(&self) -> [usize; N] {
        crate::kernel::expr::radius::<S, T, N>()
    }

    fn wavefront(&self) -> bool {
        <B as ExprStencilKernels>::WAVEFRONT
    }

    fn coefficient_fields(&self) -> usize {
        self.coefficients.len()
    }

    unsafe fn region(
        &self,
        dev: &B::Device,
        out: Desc<B, T, N>,
        input: Desc<B, T, N>,
        start: [usize; N],
        shape: [usize; N],
    ) -> Result<()> {
        let region = |d: Desc<B, T, N>| (0..N).fold(d, |d, k| d.narrowed(k, start[k], shape[k]));
        let mut fields: SmallVec<[Desc<B, T, N>; 4]> = SmallVec::new();
        fields.push(input);
        fields.extend(self.coefficients.iter().map(|&c| region(c)));
        // SAFETY: the region is interior for the stencil's radius in every field (all of one
        // shape), one field per name (checked in `new`); the coefficient fields are shared
        // borrows and `out` a field of the uniquely borrowed buffer, so they do not overlap.
        unsafe { B::expression::<S, T, N>(dev, &[out], &fields, self.params) }
    }

    unsafe fn all_steps(&self, dev: &B::Device, fields: [Desc<B, T, N>; 2], steps: usize) -> Result<bool> {
        // SAFETY: the caller's contract; the coefficient fields are shared borrows of the
        // evolving field's shape (checked in `new`), distinct from the buffer's two fields.
        unsafe { B::expression_steps::<S, T, N>(dev, fields, &self.coefficients, self.params, steps) }
    }
}

/// `steps` sweeps of `S` over `field` with `boundaries`, `coefficients` read by every sweep.
///
/// # Errors
///
/// As `StencilApply::try_apply_steps_with`.
pub(super) fn apply_steps<S, B, T, const N: usize, C>(
    field: &mut DoubleBuffer<T, N, B>,
    steps: usize,
    coefficients: C,
    params: &S::Params,
    boundaries: Boundaries<T, N>,
) -> Result<()>
where
    S: Stencil<T, N>,
    B: ExprStencilKernels + CopyKernels,
    T: Scalar,
    C: Coefficients<T, N, B, S::Arity>,
{
    const OP: &str = "stencil apply_steps";
    let sweep = ExprSweep::<S, B, T, N>::new(OP, field, coefficients.coefficient_descs(), params)?;
    // SAFETY: `run_steps` hands over the plan of two distinct fields, borrowed uniquely.
    run_steps(OP, &sweep, field, steps, boundaries, |plan| unsafe { plan.run_sequential() })
}

/// [`apply_steps`] on rayon's threads (slabs of the grid, or a pipeline of sweep groups).
///
/// # Errors
///
/// As [`apply_steps`].
#[cfg(feature = "rayon")]
pub(super) fn par_apply_steps<S, T, const N: usize, C>(
    field: &mut DoubleBuffer<T, N>,
    steps: usize,
    coefficients: C,
    params: &S::Params,
    boundaries: Boundaries<T, N>,
) -> Result<()>
where
    S: Stencil<T, N>,
    T: Scalar,
    C: Coefficients<T, N, crate::kernel::Cpu, S::Arity>,
{
    const OP: &str = "stencil par_apply_steps";
    let sweep = ExprSweep::<S, crate::kernel::Cpu, T, N>::new(OP, field, coefficients.coefficient_descs(), params)?;
    // SAFETY: as in `apply_steps`.
    run_steps(OP, &sweep, field, steps, boundaries, |plan| unsafe { super::fused::run_parallel(plan) })
}
