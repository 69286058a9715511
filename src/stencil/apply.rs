//! Applying a [`Stencil`] (what `stencil!` emits) on any backend, written once: the input fields
//! and the outputs (one per value of the stencil) share one shape and one device, the interior
//! (the points at least the stencil's radius from every edge, per axis) is computed here, and
//! the backend's [`ExprStencilKernels`] computes every interior point of every output.

use smallvec::SmallVec;

use super::boundary::{Boundaries, Boundary, StepBoundaries};
use super::state::State;
use super::steps::Coefficients;
use crate::array::Array;
use crate::check::BoundsCheck;
use crate::element::Pod;
use crate::error::{or_panic, Error, Result};
use crate::kernel::expr::{Arity, Evolves, Scalar, Stencil, Tap};
#[cfg(feature = "rayon")]
use crate::kernel::Cpu;
use crate::kernel::{Backend, CopyKernels, Desc, ExprStencilKernels};
use crate::layout::Layout;
use crate::ops::operand::{AsOperand, AsOperandMut};
use crate::ops::output::same_device;
use crate::shape::interior_range;
use crate::view::Unique;
use crate::view::{Access, View};

mod sealed {
    pub trait Sealed {}
}

/// The input fields of a stencil of arity `K` ([`Arity`]): one operand (`&array` or a view on
/// backend `B`) or a tuple of up to eight operands, in the order the stencil names its fields.
#[diagnostic::on_unimplemented(
    message = "a stencil of `{K}` fields cannot read `{Self}`",
    label = "not one operand per field of the stencil",
    note = "pass one operand per field the stencil names, as a tuple in its order (`(&u, &k)`), all of one shape on one backend"
)]
pub trait Fields<T: Pod, const N: usize, B: Backend, K>: sealed::Sealed {
    /// Each field's kernel descriptor, valid while `self` is borrowed.
    #[doc(hidden)]
    fn field_descs(&self) -> SmallVec<[Desc<B, T, N>; 4]>;
}

/// One field given alone (an array reference or a view), as well as in a 1-tuple.
macro_rules! single_field {
    ($([$($generics:tt)*] $ty:ty;)*) => {$(
        impl<$($generics)*> sealed::Sealed for $ty {}
        impl<$($generics)*> Fields<T, N, B, Arity<1>> for $ty {
            fn field_descs(&self) -> SmallVec<[Desc<B, T, N>; 4]> {
                smallvec::smallvec![self.operand_desc()]
            }
        }
    )*};
}

single_field! {
    ['a, T: Pod, const N: usize, B: Backend, L: Layout, C: BoundsCheck] &'a Array<T, N, B, L, C>;
    ['a, T: Pod, const N: usize, A: Access, B: Backend, L: Layout, C: BoundsCheck] View<'a, T, N, A, B, L, C>;
    ['a, 'b, T: Pod, const N: usize, A: Access, B: Backend, L: Layout, C: BoundsCheck] &'b View<'a, T, N, A, B, L, C>;
}

impl<A> sealed::Sealed for (A,) {}
impl<A: AsOperand<T, N, B>, T: Pod, const N: usize, B: Backend> Fields<T, N, B, Arity<1>> for (A,) {
    fn field_descs(&self) -> SmallVec<[Desc<B, T, N>; 4]> {
        smallvec::smallvec![self.0.operand_desc()]
    }
}

macro_rules! fields_tuple {
    ($count:expr; $($name:ident $i:tt),+) => {
        impl<$($name),+> sealed::Sealed for ($($name,)+) {}
        impl<T: Pod, const N: usize, B: Backend, $($name: AsOperand<T, N, B>),+> Fields<T, N, B, Arity<$count>> for ($($name,)+) {
            fn field_descs(&self) -> SmallVec<[Desc<B, T, N>; 4]> {
                smallvec::smallvec![$(self.$i.operand_desc()),+]
            }
        }
    };
}

fields_tuple!(2; A 0, C 1);
fields_tuple!(3; A 0, C 1, D 2);
fields_tuple!(4; A 0, C 1, D 2, E 3);
fields_tuple!(5; A 0, C 1, D 2, E 3, F 4);
fields_tuple!(6; A 0, C 1, D 2, E 3, F 4, G 5);
fields_tuple!(7; A 0, C 1, D 2, E 3, F 4, G 5, H 6);
fields_tuple!(8; A 0, C 1, D 2, E 3, F 4, G 5, H 6, I 7);

/// The outputs of a stencil whose points compute `V` ([`Stencil::Values`]): one mutable operand
/// (`&mut array` or a mutable view on backend `B`) for a stencil of one output (`V` is `T`), a
/// tuple of `M` for one of `M` outputs (`V` is `[T; M]`), in the order of its values. Being
/// mutable borrows, they never alias one another or the fields.
#[diagnostic::on_unimplemented(
    message = "a stencil computing `{V}` at each point cannot write into `{Self}`",
    label = "not one mutable operand per output of the stencil",
    note = "pass `&mut out` (or a mutable view) for a stencil of one value, a tuple `(&mut u2, &mut v2)` for one of several, in the order of its values"
)]
pub trait Outputs<T: Pod, const N: usize, B: Backend, V>: sealed::Sealed {
    /// Each output's kernel descriptor for writing, valid while `self` is borrowed.
    #[doc(hidden)]
    fn output_descs(&mut self) -> SmallVec<[Desc<B, T, N>; 4]>;
}

// `View` is sealed for every access as a field.
impl<T: Pod, const N: usize, B: Backend, L: Layout, C: BoundsCheck> sealed::Sealed for &mut Array<T, N, B, L, C> {}
impl<T: Pod, const N: usize, B: Backend, L: Layout, C: BoundsCheck> sealed::Sealed
    for &mut View<'_, T, N, Unique, B, L, C>
{
}

/// One output given alone, for a stencil of one value.
macro_rules! single_output {
    ($([$($generics:tt)*] $ty:ty;)*) => {$(
        impl<$($generics)*> Outputs<T, N, B, T> for $ty {
            fn output_descs(&mut self) -> SmallVec<[Desc<B, T, N>; 4]> {
                smallvec::smallvec![self.operand_desc_mut()]
            }
        }
    )*};
}

single_output! {
    ['a, T: Pod, const N: usize, B: Backend, L: Layout, C: BoundsCheck] &'a mut Array<T, N, B, L, C>;
    ['a, T: Pod, const N: usize, B: Backend, L: Layout, C: BoundsCheck] View<'a, T, N, Unique, B, L, C>;
    ['a, 'b, T: Pod, const N: usize, B: Backend, L: Layout, C: BoundsCheck] &'b mut View<'a, T, N, Unique, B, L, C>;
}

macro_rules! outputs_tuple {
    ($count:expr; $($name:ident $i:tt),+) => {
        impl<T: Pod, const N: usize, B: Backend, $($name: AsOperandMut<T, N, B>),+> Outputs<T, N, B, [T; $count]> for ($($name,)+) {
            fn output_descs(&mut self) -> SmallVec<[Desc<B, T, N>; 4]> {
                smallvec::smallvec![$(self.$i.operand_desc_mut()),+]
            }
        }
    };
}

outputs_tuple!(1; A 0);
outputs_tuple!(2; A 0, C 1);
outputs_tuple!(3; A 0, C 1, D 2);
outputs_tuple!(4; A 0, C 1, D 2, E 3);
outputs_tuple!(5; A 0, C 1, D 2, E 3, F 4);
outputs_tuple!(6; A 0, C 1, D 2, E 3, F 4, G 5);
outputs_tuple!(7; A 0, C 1, D 2, E 3, F 4, G 5, H 6);
outputs_tuple!(8; A 0, C 1, D 2, E 3, F 4, G 5, H 6, I 7);

/// Applying a stencil: implemented for every [`Stencil`], so `use cnda::stencil::StencilApply`
/// (or the prelude) gives `s.apply(fields, out, params)` to any `stencil!` value.
///
/// ```
/// use cnda::prelude::*;
/// use cnda::stencil;
///
/// let heat = stencil!(|u, k; dt: T| u[0, 0] + dt * k[0, 0] * (u[-1, 0] + u[1, 0] + u[0, -1] + u[0, 1] - 4.0 * u[0, 0]));
/// let u = Array::from_fn([5, 6], |[i, j]| (i * j) as f64);
/// let k = Array::<f64, 2>::full([5, 6], 0.5);
/// let mut v = Array::<f64, 2>::zeros([5, 6]);
/// heat.apply((&u, &k), &mut v, (0.1,));
/// // u is bilinear, so its 5-point Laplacian vanishes: v = u inside, 0 on the edges.
/// assert_eq!(v[[2, 3]], 6.0);
/// assert_eq!(v[[0, 3]], 0.0);
/// ```
///
/// A stencil whose body ends in a tuple computes several outputs in one pass (a system's
/// updated fields), sharing its `let` bindings; it writes a tuple of outputs:
///
/// ```
/// use cnda::prelude::*;
///
/// // Gray-Scott reaction-diffusion: both species in one pass over memory.
/// let gray_scott = stencil!(|u, v; du: T, dv: T, f: T, k: T| {
///     let uvv = u[0, 0] * v[0, 0] * v[0, 0];
///     (
///         u[0, 0] + du * laplace(u, 2) - uvv + f * (1.0 - u[0, 0]),
///         v[0, 0] + dv * laplace(v, 2) + uvv - (f + k) * v[0, 0],
///     )
/// });
/// let u = Array::<f64, 2>::full([8, 8], 1.0);
/// let v = Array::from_fn([8, 8], |[i, j]| if (i, j) == (4, 4) { 0.5 } else { 0.0 });
/// let (mut u2, mut v2) = (u.clone(), v.clone());
/// gray_scott.apply((&u, &v), (&mut u2, &mut v2), (0.2, 0.1, 0.04, 0.06));
/// // At the seed: u loses u v^2 = 0.25; v gains it, diffuses 0.2 away and decays by 0.05.
/// assert_eq!(u2[[4, 4]], 0.75);
/// assert!((v2[[4, 4]] - 0.5).abs() < 1e-15);
/// ```
pub trait StencilApply<T: Scalar, const N: usize>: Stencil<T, N> {
    /// `output[x] = self(fields at x, params)` for every interior point `x` (at least the
    /// stencil's radius from every edge, per axis); the other points are left alone. Fields and
    /// output are arrays or views of any layout on one backend; `fields` is one operand or a
    /// tuple, in the order the stencil names them; `output` one mutable operand, or a tuple of
    /// one per output for a stencil of several ([`Outputs`]), all of the fields' shape.
    ///
    /// # Panics
    ///
    /// When the shapes differ or the operands are on different devices;
    /// [`StencilApply::try_apply`] returns the error instead.
    #[track_caller]
    fn apply<B: ExprStencilKernels, I: Fields<T, N, B, Self::Arity>>(
        &self,
        fields: I,
        output: impl Outputs<T, N, B, Self::Values>,
        params: Self::Params,
    ) {
        or_panic(self.try_apply(fields, output, params))
    }

    /// The interior sweep of [`StencilApply::apply`].
    ///
    /// # Errors
    ///
    /// `Error::ShapeMismatch` when a field's shape differs from the output's;
    /// `Error::DeviceMismatch`; `Error::Layout` for a hand-written `Stencil` that disagrees with
    /// itself; `Error::Device` from a device kernel; `Error::Limit` past a kernel's limits (more
    /// than 8 fields or 64 taps on the CPU; on WebGPU more storage buffers than the adapter
    /// binds, counting the outputs, the fields read and 2).
    fn try_apply<B: ExprStencilKernels, I: Fields<T, N, B, Self::Arity>>(
        &self,
        fields: I,
        mut output: impl Outputs<T, N, B, Self::Values>,
        params: Self::Params,
    ) -> Result<()> {
        let outputs = output.output_descs();
        let fields = fields.field_descs();
        apply::<Self, B, T, N>(&outputs, &fields, &params)
    }

    /// [`StencilApply::apply`] on the CPU with rayon's threads: bands of the first axis, one per
    /// task; the same result, bit for bit.
    ///
    /// # Panics
    ///
    /// As [`StencilApply::try_par_apply`] errs.
    #[cfg(feature = "rayon")]
    #[track_caller]
    fn par_apply<I: Fields<T, N, Cpu, Self::Arity>>(
        &self,
        fields: I,
        output: impl Outputs<T, N, Cpu, Self::Values>,
        params: Self::Params,
    ) {
        or_panic(self.try_par_apply(fields, output, params))
    }

    /// [`StencilApply::par_apply`], returning errors.
    ///
    /// # Errors
    ///
    /// As [`StencilApply::try_apply`].
    #[cfg(feature = "rayon")]
    fn try_par_apply<I: Fields<T, N, Cpu, Self::Arity>>(
        &self,
        fields: I,
        mut output: impl Outputs<T, N, Cpu, Self::Values>,
        params: Self::Params,
    ) -> Result<()> {
        let outputs = output.output_descs();
        let fields = fields.field_descs();
        par_apply::<Self, T, N>(&outputs, &fields, &params)
    }

    /// `steps` sweeps over `field`, a [`DoubleBuffer`](super::DoubleBuffer) (the stencil's first
    /// field) or a [`State`] of the fields and levels the stencil [`Evolves`], each reading the
    /// current levels and writing the next one, then rotating them, with `coefficients` (the
    /// stencil's other fields, `()` for none) read by every sweep: bit for bit the same as `steps`
    /// times `self.apply((current, coefficients..), next, params); field.swap()`, on any backend (fused
    /// on the CPU, in passes over memory whose depth is measured at run time, once per kind of
    /// call, between what fits a core's level-2 cache and what fits the last-level cache; the
    /// environment variable `CNDA_FUSED_DEPTH` sets the sweeps per pass, `CNDA_FUSED_TUNE=off`
    /// keeps the level-2 cache's). The boundary (points within the radius of an edge)
    /// is never written; [`StencilApply::apply_steps_with`] refills it between sweeps.
    ///
    /// ```
    /// use cnda::prelude::*;
    /// use cnda::stencil::DoubleBuffer;
    ///
    /// let diffuse = stencil!(|u, k; dt: T| u[0, 0] + dt * k[0, 0] * (u[-1, 0] + u[1, 0] + u[0, -1] + u[0, 1] - 4.0 * u[0, 0]));
    /// let k = Array::from_fn([32, 32], |[i, _]| if i < 16 { 1.0 } else { 0.5 });
    /// let mut u = DoubleBuffer::new(Array::from_fn([32, 32], |[i, j]| if (i, j) == (16, 16) { 1.0 } else { 0.0 }));
    /// diffuse.apply_steps(&mut u, 10, &k, (0.1,));
    /// assert!(u.current()[[16, 16]] < 1.0 && u.current()[[15, 16]] > 0.0);
    /// ```
    ///
    /// # Panics
    ///
    /// As [`StencilApply::try_apply_steps`] errs.
    #[track_caller]
    fn apply_steps<B: ExprStencilKernels + CopyKernels, const M: usize, const L: usize, C>(
        &self,
        field: &mut State<T, N, M, L, B>,
        steps: usize,
        coefficients: C,
        params: Self::Params,
    ) where
        Self: Evolves<M, L>,
        C: Coefficients<T, N, B, <Self as Evolves<M, L>>::Coefficients>,
    {
        or_panic(self.try_apply_steps(field, steps, coefficients, params))
    }

    /// [`StencilApply::apply_steps`], returning errors.
    ///
    /// # Errors
    ///
    /// `Error::ShapeMismatch` when a field's shape differs; `Error::DeviceMismatch`;
    /// `Error::Decomposition` for a step count whose wavefront overflows; a kernel's errors.
    fn try_apply_steps<B: ExprStencilKernels + CopyKernels, const M: usize, const L: usize, C>(
        &self,
        field: &mut State<T, N, M, L, B>,
        steps: usize,
        coefficients: C,
        params: Self::Params,
    ) -> Result<()>
    where
        Self: Evolves<M, L>,
        C: Coefficients<T, N, B, <Self as Evolves<M, L>>::Coefficients>,
    {
        self.try_apply_steps_with(field, steps, coefficients, params, Boundaries::all(Boundary::Fixed))
    }

    /// `steps` sweeps over `field` with a [`Boundary`] at each side of each axis (one per axis,
    /// or [`Boundaries`] per side, for every field alike; or a
    /// [`FieldBoundaries`](super::FieldBoundaries), one per field of a system, periodic on the
    /// same axes; the halo is the stencil's radius wide): bit for bit the same as, `steps` times,
    /// refilling the current levels' halos as the boundaries say (axis by axis, as
    /// [`fill_halo`](super::fill_halo)), `apply`, rotating, and a last refill.
    ///
    /// ```
    /// use cnda::prelude::*;
    /// use cnda::stencil::{Boundary, DoubleBuffer};
    ///
    /// // Zero-gradient walls keep the total heat of a diffusing field.
    /// let heat = stencil!(|u; a: T| u[0, 0] + a * (u[-1, 0] + u[1, 0] + u[0, -1] + u[0, 1] - 4.0 * u[0, 0]));
    /// let mut u = DoubleBuffer::new(Array::from_fn([18, 18], |[i, j]| if (i, j) == (3, 5) { 64.0 } else { 0.0 }));
    /// heat.apply_steps_with(&mut u, 50, (), (0.2,), [Boundary::Neumann; 2]);
    /// let total = u.current().slice(s![1..17, 1..17]).sum();
    /// assert!((total - 64.0).abs() < 1e-9);
    /// ```
    ///
    /// # Panics
    ///
    /// As [`StencilApply::try_apply_steps_with`] errs.
    #[track_caller]
    fn apply_steps_with<B: ExprStencilKernels + CopyKernels, const M: usize, const L: usize, C>(
        &self,
        field: &mut State<T, N, M, L, B>,
        steps: usize,
        coefficients: C,
        params: Self::Params,
        boundaries: impl StepBoundaries<T, N, M>,
    ) where
        Self: Evolves<M, L>,
        C: Coefficients<T, N, B, <Self as Evolves<M, L>>::Coefficients>,
    {
        or_panic(self.try_apply_steps_with(field, steps, coefficients, params, boundaries))
    }

    /// [`StencilApply::apply_steps_with`], returning errors.
    ///
    /// # Errors
    ///
    /// As [`StencilApply::try_apply_steps`]; `Error::Layout` for an axis periodic on one side.
    fn try_apply_steps_with<B: ExprStencilKernels + CopyKernels, const M: usize, const L: usize, C>(
        &self,
        field: &mut State<T, N, M, L, B>,
        steps: usize,
        coefficients: C,
        params: Self::Params,
        boundaries: impl StepBoundaries<T, N, M>,
    ) -> Result<()>
    where
        Self: Evolves<M, L>,
        C: Coefficients<T, N, B, <Self as Evolves<M, L>>::Coefficients>,
    {
        super::steps::apply_steps::<Self, B, T, N, M, L, C>(field, steps, coefficients, &params, boundaries)
    }

    /// [`StencilApply::apply_steps_with`] on rayon's threads (bands of each hyperplane on one
    /// wavefront for large 3D grids, slabs of the grid, or a pipeline of sweep groups on one
    /// wavefront, as
    /// [`LinearStencil::par_apply_steps`](crate::stencil::LinearStencil::par_apply_steps)); the
    /// same result, bit for bit. As many threads run as the current rayon pool has (call it inside
    /// `pool.install(..)` to choose them): scoped threads of their own, since the wavefront's
    /// threads wait on each other, which a pool's tasks must not. The steps are cut into passes
    /// of a measured depth, as in [`StencilApply::apply_steps`].
    ///
    /// # Panics
    ///
    /// As [`StencilApply::try_par_apply_steps_with`] errs.
    #[cfg(feature = "rayon")]
    #[track_caller]
    fn par_apply_steps_with<const M: usize, const L: usize, C>(
        &self,
        field: &mut State<T, N, M, L>,
        steps: usize,
        coefficients: C,
        params: Self::Params,
        boundaries: impl StepBoundaries<T, N, M>,
    ) where
        Self: Evolves<M, L>,
        C: Coefficients<T, N, Cpu, <Self as Evolves<M, L>>::Coefficients>,
    {
        or_panic(self.try_par_apply_steps_with(field, steps, coefficients, params, boundaries))
    }

    /// [`StencilApply::par_apply_steps_with`], returning errors.
    ///
    /// # Errors
    ///
    /// As [`StencilApply::try_apply_steps_with`].
    #[cfg(feature = "rayon")]
    fn try_par_apply_steps_with<const M: usize, const L: usize, C>(
        &self,
        field: &mut State<T, N, M, L>,
        steps: usize,
        coefficients: C,
        params: Self::Params,
        boundaries: impl StepBoundaries<T, N, M>,
    ) -> Result<()>
    where
        Self: Evolves<M, L>,
        C: Coefficients<T, N, Cpu, <Self as Evolves<M, L>>::Coefficients>,
    {
        super::steps::par_apply_steps::<Self, T, N, M, L, C>(field, steps, coefficients, &params, boundaries)
    }
}

impl<S: Stencil<T, N>, T: Scalar, const N: usize> StencilApply<T, N> for S {}

/// The descriptors of one kind of operand of a call (its outputs, or its fields).
type Operands<B, T, const N: usize> = SmallVec<[Desc<B, T, N>; 4]>;

/// The interior regions of the outputs and of the fields.
type Regions<B, T, const N: usize> = (Operands<B, T, N>, Operands<B, T, N>);

/// What a call of a stencil expects: its counts of fields and values, its radius (from its taps,
/// so that the interior keeps every tap inside the fields), and what to advise when the counts
/// disagree with the operands.
pub(super) struct Expects<const N: usize> {
    fields: usize,
    values: usize,
    radius: [usize; N],
    fix: &'static str,
    /// The stencil's own check, run once the counts agree with the operands.
    check: fn(&'static str) -> Result<()>,
}

impl<const N: usize> Expects<N> {
    /// A stencil of `fields` fields and `values` values reading `taps`, checked already.
    pub(super) fn new(fields: usize, values: usize, taps: &[Tap<N>], fix: &'static str) -> Self {
        Expects { fields, values, radius: crate::kernel::expr::radius_of(taps), fix, check: |_| Ok(()) }
    }

    /// What `S` expects; [`check`](crate::kernel::expr::check) runs on it after its counts.
    fn stencil<S: Stencil<T, N>, T: Scalar>() -> Self {
        // `Fields` of the stencil's `Arity` gives one operand per field for every `stencil!`,
        // and `Outputs` of its `Values` one per output; a hand-written `Stencil` could disagree
        // with itself, and kernels trust these counts.
        let fix = "give the stencil an `Arity` of its field count and `Values` of its value count (as `stencil!` does)";
        let check = |op| crate::kernel::expr::check::<S, T, N>(op).map(drop);
        Expects { check, ..Expects::new(S::FIELDS.len(), S::VALUES.len(), S::TAPS, fix) }
    }
}

/// The generic algorithm's checks and the interior: the outputs' and every field's interior
/// region (the points at least the radius from every edge), or `None` when it is empty.
///
/// # Errors
///
/// `Error::Layout` for counts other than `expects`'; `Error::ShapeMismatch`;
/// `Error::DeviceMismatch`.
fn interior<B: Backend, T: Scalar, const N: usize>(
    outputs: &[Desc<B, T, N>],
    fields: &[Desc<B, T, N>],
    expects: &Expects<N>,
) -> Result<Option<Regions<B, T, N>>> {
    const OP: &str = "stencil apply";
    if fields.len() != expects.fields || outputs.len() != expects.values || outputs.is_empty() {
        return Err(Error::Layout {
            op: OP,
            reason: format!(
                "{} fields and {} outputs given to a stencil that names {} fields and {} values",
                fields.len(),
                outputs.len(),
                expects.fields,
                expects.values
            ),
            fix: expects.fix,
        });
    }
    (expects.check)(OP)?;
    let shape = outputs[0].shape;
    for operand in outputs.iter().chain(fields) {
        if operand.shape != shape {
            return Err(Error::ShapeMismatch { op: OP, expected: shape.to_vec(), got: operand.shape.to_vec() });
        }
    }
    let devices: SmallVec<[B::Device; 4]> = outputs.iter().chain(fields).map(|f| B::handle_device(f.handle)).collect();
    same_device::<B>(OP, &B::handle_device(outputs[0].handle), &devices)?;
    let radius = expects.radius;
    let ranges: [core::ops::Range<usize>; N] = core::array::from_fn(|k| interior_range(shape[k], radius[k]));
    if ranges.iter().any(|r| r.is_empty()) {
        return Ok(None);
    }
    let region = |d: &Desc<B, T, N>| (0..N).fold(*d, |d, k| d.narrowed(k, ranges[k].start, ranges[k].len()));
    Ok(Some((outputs.iter().map(region).collect(), fields.iter().map(region).collect())))
}

/// The generic algorithm: checks, the interior, and the backend's kernel.
fn apply<S: Stencil<T, N>, B: ExprStencilKernels, T: Scalar, const N: usize>(
    outputs: &[Desc<B, T, N>],
    fields: &[Desc<B, T, N>],
    params: &S::Params,
) -> Result<()> {
    let expects = Expects::stencil::<S, T>();
    // SAFETY: `interior`'s regions (the kernel's contract holds for `S`, whose counts they have).
    apply_interior(outputs, fields, &expects, |dev, outputs, fields| unsafe {
        B::expression::<S, T, N>(dev, outputs, fields, params)
    })
}

/// The interior of the outputs computed by `kernel` (a stencil's expression kernel): the generic
/// algorithm of every expression stencil.
///
/// # Safety of `kernel`'s use
///
/// `kernel` is handed outputs and fields that satisfy `ExprStencilKernels::expression`'s
/// contract for a stencil of `expects`' counts and radius: one field per name and one output
/// per value, all of one shape; every descriptor a borrowed operand's, live for the call; every
/// point at least the radius from every edge, so each tap lies inside its field; the outputs
/// uniquely borrowed, so they overlap no field and one another.
pub(super) fn apply_interior<B: Backend, T: Scalar, const N: usize>(
    outputs: &[Desc<B, T, N>],
    fields: &[Desc<B, T, N>],
    expects: &Expects<N>,
    kernel: impl FnOnce(&B::Device, &[Desc<B, T, N>], &[Desc<B, T, N>]) -> Result<()>,
) -> Result<()> {
    let Some((outputs, inner)) = interior(outputs, fields, expects)? else { return Ok(()) };
    kernel(&B::handle_device(outputs[0].handle), &outputs, &inner)
}

/// [`apply`] on rayon's threads: bands of the interior's first axis, one kernel call each.
#[cfg(feature = "rayon")]
fn par_apply<S: Stencil<T, N>, T: Scalar, const N: usize>(
    outputs: &[Desc<Cpu, T, N>],
    fields: &[Desc<Cpu, T, N>],
    params: &S::Params,
) -> Result<()> {
    let expects = Expects::stencil::<S, T>();
    // SAFETY: as in `apply`, for each band.
    par_apply_interior(outputs, fields, &expects, |outputs, fields| unsafe {
        Cpu::expression::<S, T, N>(&Cpu, outputs, fields, params)
    })
}

/// [`apply_interior`] on rayon's threads: bands of the interior's first axis, one `kernel` call
/// each (bands are disjoint, so no output element is written by two calls).
#[cfg(feature = "rayon")]
pub(super) fn par_apply_interior<T: Scalar, const N: usize>(
    outputs: &[Desc<Cpu, T, N>],
    fields: &[Desc<Cpu, T, N>],
    expects: &Expects<N>,
    kernel: impl Fn(&[Desc<Cpu, T, N>], &[Desc<Cpu, T, N>]) -> Result<()> + Sync,
) -> Result<()> {
    use crate::kernel::host::HostEngine;
    let Some((outputs, inner)) = interior(outputs, fields, expects)? else { return Ok(()) };
    if N == 0 {
        return kernel(&outputs, &inner);
    }
    /// The operands handed to the bands' tasks.
    struct Shared<T: Scalar, const N: usize>(Operands<Cpu, T, N>, Operands<Cpu, T, N>);
    // SAFETY: the tasks write disjoint bands of the outputs (distinct positions of axis 0) and
    // only read the fields, which nothing writes during the call.
    unsafe impl<T: Scalar, const N: usize> Sync for Shared<T, N> {}
    let rows = outputs[0].shape[0];
    let shared = Shared(outputs, inner);
    let failed = std::sync::Mutex::new(None);
    Cpu::for_each_subrange(0..rows, 2, |rows| {
        let shared = &shared; // the whole wrapper (a closure would capture only its fields)
        let band = |d: &Desc<Cpu, T, N>| d.narrowed(0, rows.start, rows.len());
        let outputs: Operands<Cpu, T, N> = shared.0.iter().map(band).collect();
        let fields: Operands<Cpu, T, N> = shared.1.iter().map(band).collect();
        if let Err(e) = kernel(&outputs, &fields) {
            failed.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert(e);
        }
    });
    failed.into_inner().unwrap_or_else(|e| e.into_inner()).map_or(Ok(()), Err)
}
