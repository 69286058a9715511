//! Time steps of `stencil!` stencils: the fields a stencil [`Evolves`] advance in a [`State`]
//! (each at its time levels; a [`DoubleBuffer`](super::DoubleBuffer) is one field at one level),
//! the fields after their levels are coefficient fields that stay as they are; each sweep is the
//! backend's expression kernel writing every evolving field, run by the one time stepper of
//! `fused/` (the fused wavefront on the CPU, one call per sweep on devices).

use smallvec::SmallVec;

use super::boundary::StepBoundaries;
use super::fused::{point_plan, run_steps, Plan, PointHook, Sweep};
use super::state::State;
use crate::array::Array;
use crate::check::BoundsCheck;
use crate::element::Pod;
use crate::error::{Error, Result};
use crate::kernel::expr::{Arity, Evolves, Scalar, Stencil, Tap};
use crate::kernel::{Backend, CopyKernels, Desc, ExprStencilKernels};
use crate::layout::Layout;
use crate::ops::operand::AsOperand;
use crate::view::{Access, View};

mod sealed {
    pub trait Sealed {}
}

/// The coefficient fields of a time-stepped stencil, indexed by `Arity<C + 1>` for `C` of them
/// ([`Evolves::Coefficients`]): every field after the evolving fields' levels, read by every step
/// and never written: `()` for none, one operand (`&array` or a view) for one, a tuple for more.
#[diagnostic::on_unimplemented(
    message = "a stencil taking `{K}` (one more than its coefficient fields) cannot take `{Self}` as its coefficient fields",
    label = "not one operand per field after the evolving fields' levels",
    note = "the evolving fields are in the State (a DoubleBuffer for one); pass the others (`()` when there are none, `&k`, or `(&k, &c)`) in the stencil's order"
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
coefficient_tuple!(5; A 0, C 1, D 2, E 3);
coefficient_tuple!(6; A 0, C 1, D 2, E 3, F 4);
coefficient_tuple!(7; A 0, C 1, D 2, E 3, F 4, G 5);
coefficient_tuple!(8; A 0, C 1, D 2, E 3, F 4, G 5, H 6);

/// A coefficient field and where the state's index 0 lies in it.
type Shifted<B, T, const N: usize> = (Desc<B, T, N>, [usize; N]);

/// What an expression sweep runs: a stencil's kernel, with its parameters. A `stencil!` type
/// ([`Typed`]) or an expression that is data (`TextStencil`).
pub(crate) trait ExprKernel<B: Backend, T: Scalar, const N: usize> {
    /// The taps the expression reads (checked).
    fn taps(&self) -> &[Tap<N>];
    /// The name of field `f`.
    fn field_name(&self, f: usize) -> &str;
    /// The counts of fields and values.
    fn counts(&self) -> (usize, usize);
    /// The backend's kernel over one region.
    ///
    /// # Safety
    ///
    /// As for `ExprStencilKernels::expression`, for this expression.
    unsafe fn run(&self, dev: &B::Device, outputs: &[Desc<B, T, N>], fields: &[Desc<B, T, N>]) -> Result<()>;
    /// The backend's time-tiled kernel, where it has one for this expression.
    ///
    /// # Safety
    ///
    /// As for `ExprStencilKernels::expression_steps`.
    unsafe fn all_steps(
        &self,
        dev: &B::Device,
        fields: [Desc<B, T, N>; 2],
        coefficients: &[Desc<B, T, N>],
        steps: usize,
    ) -> Result<bool>;
}

/// A `stencil!` stencil `S` with its parameters.
pub(crate) struct Typed<'p, S: Stencil<T, N>, T: Scalar, const N: usize>(&'p S::Params);

impl<S: Stencil<T, N>, B: ExprStencilKernels, T: Scalar, const N: usize> ExprKernel<B, T, N> for Typed<'_, S, T, N> {
    fn taps(&self) -> &[Tap<N>] {
        S::TAPS
    }

    fn field_name(&self, f: usize) -> &str {
        S::FIELDS.get(f).copied().unwrap_or("?")
    }

    fn counts(&self) -> (usize, usize) {
        (S::FIELDS.len(), S::VALUES.len())
    }

    unsafe fn run(&self, dev: &B::Device, outputs: &[Desc<B, T, N>], fields: &[Desc<B, T, N>]) -> Result<()> {
        // SAFETY: the caller's contract.
        unsafe { B::expression::<S, T, N>(dev, outputs, fields, self.0) }
    }

    unsafe fn all_steps(
        &self,
        dev: &B::Device,
        fields: [Desc<B, T, N>; 2],
        coefficients: &[Desc<B, T, N>],
        steps: usize,
    ) -> Result<bool> {
        // SAFETY: the caller's contract.
        unsafe { B::expression_steps::<S, T, N>(dev, fields, coefficients, self.0, steps) }
    }
}

/// A `stencil!` stencil's sweep over a region.
pub(crate) type ExprSweep<'p, S, B, T, const N: usize> = KernelSweep<Typed<'p, S, T, N>, B, T, N>;

/// An expression stencil's sweep over a region: the evolving fields' levels and outputs (from
/// the plan), and the coefficient fields narrowed to the same region.
pub(crate) struct KernelSweep<K, B: Backend, T: Scalar, const N: usize> {
    /// Each coefficient field, and where the state's index 0 lies in it: 0 for one of the
    /// state's shape, the state's halo for one of its interior's (`State::from_interiors`).
    coefficients: SmallVec<[Shifted<B, T, N>; 3]>,
    kernel: K,
    radius: [usize; N],
}

impl<'p, S: Stencil<T, N>, B: ExprStencilKernels, T: Scalar, const N: usize> KernelSweep<Typed<'p, S, T, N>, B, T, N> {
    /// The sweep after checking the coefficient fields against the evolving fields' shape and
    /// device, and the stencil's counts against the state's (`M` fields at `L` levels, of which
    /// it writes `writes`: all of them, or a stage's).
    ///
    /// # Errors
    ///
    /// `Error::ShapeMismatch`, `Error::DeviceMismatch`; `Error::Layout` for a stencil that
    /// disagrees with itself or the state.
    pub(super) fn new<const M: usize, const L: usize>(
        op: &'static str,
        state: &State<T, N, M, L, B>,
        coefficients: SmallVec<[Desc<B, T, N>; 3]>,
        params: &'p S::Params,
        writes: usize,
    ) -> Result<Self> {
        Self::over::<M, L>(op, state.first_desc(), state.halo(), coefficients, params, writes)
    }

    /// [`ExprSweep::new`] for a state whose first array is `first` (its shape and device) and
    /// whose halo is `halo` when it owns one.
    ///
    /// # Errors
    ///
    /// As [`ExprSweep::new`].
    pub(crate) fn over<const M: usize, const L: usize>(
        op: &'static str,
        first: Desc<B, T, N>,
        halo: Option<[usize; N]>,
        coefficients: SmallVec<[Desc<B, T, N>; 3]>,
        params: &'p S::Params,
        writes: usize,
    ) -> Result<Self> {
        crate::kernel::expr::check::<S, T, N>(op)?;
        // `Evolves<M, L>` (or `Stage<M, L>`) and `Coefficients` agree for every `stencil!`; a
        // hand-written stencil could disagree with itself, and the kernels trust these counts.
        let fix = "implement `Evolves<M, L>` only for a stencil of M values whose first M * L fields are the levels, and `Stage<M, L>` for one value per written field (as `stencil!` does)";
        KernelSweep::with_kernel::<M, L>(op, first, halo, coefficients, Typed(params), writes, fix)
    }
}

impl<K: ExprKernel<B, T, N>, B: Backend, T: Scalar, const N: usize> KernelSweep<K, B, T, N> {
    /// The sweep of `kernel` (its radius from its taps) after checking the coefficient fields
    /// against the evolving fields' shape and device, and the kernel's counts against the
    /// state's (`M` fields at `L` levels, of which it writes `writes`), `fix` the advice when
    /// the counts disagree.
    ///
    /// # Errors
    ///
    /// `Error::ShapeMismatch`, `Error::DeviceMismatch`; `Error::Layout` when the counts disagree.
    pub(crate) fn with_kernel<const M: usize, const L: usize>(
        op: &'static str,
        first: Desc<B, T, N>,
        halo: Option<[usize; N]>,
        coefficients: SmallVec<[Desc<B, T, N>; 3]>,
        kernel: K,
        writes: usize,
        fix: &'static str,
    ) -> Result<Self> {
        let (fields, values) = kernel.counts();
        if values != writes || coefficients.len() + M * L != fields {
            return Err(Error::Layout {
                op,
                reason: format!(
                    "a stencil of {values} values and {fields} fields writing {writes} of {M} fields at {L} levels with {} coefficient fields",
                    coefficients.len()
                ),
                fix,
            });
        }
        let mut shifted = SmallVec::new();
        for (j, c) in coefficients.iter().enumerate() {
            shifted.push((*c, coefficient_shift(op, &kernel, first.shape, halo, M * L + j, c.shape)?));
        }
        let devices: SmallVec<[B::Device; 3]> = coefficients.iter().map(|c| B::handle_device(c.handle)).collect();
        crate::ops::output::same_device::<B>(op, &B::handle_device(first.handle), &devices)?;
        let radius = crate::kernel::expr::radius_of(kernel.taps());
        Ok(KernelSweep { coefficients: shifted, kernel, radius })
    }
}

impl<K: ExprKernel<B, T, N>, B: ExprStencilKernels, T: Scalar, const N: usize> Sweep<B, T, N>
    for KernelSweep<K, B, T, N>
{
    fn radius(&self) -> [usize; N] {
        self.radius
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
        _stage: usize,
        outputs: &[Desc<B, T, N>],
        inputs: &[Desc<B, T, N>],
        start: [usize; N],
        shape: [usize; N],
    ) -> Result<()> {
        let mut fields: SmallVec<[Desc<B, T, N>; 8]> = inputs.iter().copied().collect();
        for &(c, shift) in &self.coefficients {
            // An interior-shaped coefficient holds the region `shift` earlier; the region must
            // lie in it (it does when the state's halo is the stencil's radius, `run_steps`).
            if (0..N).any(|k| start[k] < shift[k] || start[k] - shift[k] + shape[k] > c.shape[k]) {
                return Err(Error::ShapeMismatch {
                    op: "stencil apply_steps",
                    expected: shape.to_vec(),
                    got: c.shape.to_vec(),
                });
            }
            fields.push((0..N).fold(c, |d, k| d.narrowed(k, start[k] - shift[k], shape[k])));
        }
        // SAFETY: the region is interior for the stencil's radius in every field of the state's
        // shape, and an interior-shaped coefficient field (read only at the point, checked in
        // `with_kernel`) is narrowed to the same points, inside it (checked above); one field per
        // name and one output per value (the levels are the state's `M` fields at `L` levels,
        // the outputs the fields the sweep writes, all `M` or a stage's `WRITES`: checked in
        // `with_kernel` and `stages.rs`); the coefficient fields are shared borrows, and the
        // outputs the ring positions the sweep writes, distinct from the positions of the levels
        // it reads (`fused/rings.rs`), so none overlap.
        unsafe { self.kernel.run(dev, outputs, &fields) }
    }

    unsafe fn all_steps(&self, dev: &B::Device, fields: [Desc<B, T, N>; 2], steps: usize) -> Result<bool> {
        if self.coefficients.iter().any(|(_, shift)| *shift != [0; N]) {
            return Ok(false); // the time-tiled kernels take fields of one shape
        }
        let coefficients: SmallVec<[Desc<B, T, N>; 3]> = self.coefficients.iter().map(|&(c, _)| c).collect();
        // SAFETY: the caller's contract; the coefficient fields are shared borrows of the
        // evolving field's shape (checked in `with_kernel`, none shifted), distinct from the
        // buffer's two fields.
        unsafe { self.kernel.all_steps(dev, fields, &coefficients, steps) }
    }
}

/// Where the state's index 0 lies in the stencil's field `field`, a coefficient field of `shape`:
/// at 0 for one of the state's shape; at the state's halo for one of its interior's shape (a
/// state that owns its halo, `State::from_interiors`) that the stencil reads only at the point.
///
/// # Errors
///
/// `Error::ShapeMismatch` otherwise; `Error::Layout` for an interior-shaped field read off the
/// point.
fn coefficient_shift<B: Backend, T: Scalar, const N: usize>(
    op: &'static str,
    kernel: &impl ExprKernel<B, T, N>,
    state: [usize; N],
    halo: Option<[usize; N]>,
    field: usize,
    shape: [usize; N],
) -> Result<[usize; N]> {
    if shape == state {
        return Ok([0; N]);
    }
    if let Some(halo) = halo {
        let interior = (0..N).all(|k| halo[k].checked_mul(2).and_then(|h| state[k].checked_sub(h)) == Some(shape[k]));
        let off = kernel.taps().iter().find(|t| t.field == field && t.offset.iter().any(|&o| o != 0));
        match (interior, off) {
            (true, None) => return Ok(halo),
            (true, Some(tap)) => {
                return Err(Error::Layout {
                    op,
                    reason: format!(
                        "coefficient field `{}` has the interior's shape {shape:?}, but the stencil reads it at \
                         offset {:?}, in the halo it does not have",
                        kernel.field_name(field),
                        tap.offset
                    ),
                    fix: "pass it padded to the state's shape (`stencil::pad`), or read it only at the point",
                });
            }
            (false, _) => {}
        }
    }
    Err(Error::ShapeMismatch { op, expected: state.to_vec(), got: shape.to_vec() })
}

/// `steps` sweeps of `S` over `state` with `boundaries`, `coefficients` read by every sweep.
///
/// # Errors
///
/// As `StencilApply::try_apply_steps_with`.
pub(super) fn apply_steps<S, B, T, const N: usize, const M: usize, const L: usize, C>(
    state: &mut State<T, N, M, L, B>,
    steps: usize,
    coefficients: C,
    params: &S::Params,
    boundaries: impl StepBoundaries<T, N, M>,
) -> Result<()>
where
    S: Stencil<T, N> + Evolves<M, L>,
    B: ExprStencilKernels + CopyKernels,
    T: Scalar,
    C: Coefficients<T, N, B, <S as Evolves<M, L>>::Coefficients>,
{
    const OP: &str = "stencil apply_steps";
    let sweep = ExprSweep::<S, B, T, N>::new(OP, state, coefficients.coefficient_descs(), params, M)?;
    // SAFETY: `run_steps` hands over the plan of the state's distinct arrays, borrowed uniquely.
    step_state(OP, &sweep, state, steps, boundaries, |plan| unsafe { plan.run_sequential() })
}

/// `steps` sweeps of `sweep` over `state`, the boundaries' points (a `PointIo`) planned and
/// stepped with them, each pass run by `fused`: what every `stencil!` stepper ends with.
///
/// # Errors
///
/// As `run_steps`, and `PointPlan::new`'s.
pub(in crate::stencil) fn step_state<B, T, const N: usize, const M: usize, const L: usize, S>(
    op: &'static str,
    sweep: &S,
    state: &mut State<T, N, M, L, B>,
    steps: usize,
    boundaries: impl StepBoundaries<T, N, M>,
    fused: impl Fn(&Plan<'_, B, T, N, S>) -> Result<()>,
) -> Result<()>
where
    B: ExprStencilKernels,
    T: Scalar,
    S: Sweep<B, T, N>,
{
    let (boundaries, points) = boundaries.into_parts();
    let mut points = point_plan(op, points, steps, state, sweep.radius())?;
    let points = points.as_mut().map(|p| p as &mut dyn PointHook<B, T, N>);
    run_steps(op, sweep, state, steps, &boundaries, points, fused)
}

/// [`apply_steps`] on rayon's threads (bands of each hyperplane, slabs of the grid, or a pipeline
/// of sweep groups).
///
/// # Errors
///
/// As [`apply_steps`].
#[cfg(feature = "rayon")]
pub(super) fn par_apply_steps<S, T, const N: usize, const M: usize, const L: usize, C>(
    state: &mut State<T, N, M, L>,
    steps: usize,
    coefficients: C,
    params: &S::Params,
    boundaries: impl StepBoundaries<T, N, M>,
) -> Result<()>
where
    S: Stencil<T, N> + Evolves<M, L>,
    T: Scalar,
    C: Coefficients<T, N, crate::kernel::Cpu, <S as Evolves<M, L>>::Coefficients>,
{
    const OP: &str = "stencil par_apply_steps";
    let sweep = ExprSweep::<S, crate::kernel::Cpu, T, N>::new(OP, state, coefficients.coefficient_descs(), params, M)?;
    // SAFETY: as in `apply_steps`.
    step_state(OP, &sweep, state, steps, boundaries, |plan| unsafe { super::fused::run_parallel(plan) })
}

/// One batch of a distributed state's steps (`dist/systems.rs`): its blocks as rings of
/// descriptors, ring by ring from each field's newest level, each narrowed to the points its
/// process steps; each stage's coefficient fields narrowed alike (one group for one stencil);
/// the steps; each field's conditions on the sides; the points (in the rings' coordinates)
/// injected and sampled as a `PointIo`'s. The caller advances its rings by `steps` once a run
/// returns `Ok`.
#[cfg(feature = "mpi")]
pub(crate) struct RingBatch<'p, B: Backend, T: Pod, const N: usize, const M: usize> {
    pub(crate) rings: SmallVec<[Desc<B, T, N>; 4]>,
    pub(crate) coefficients: &'p [SmallVec<[Desc<B, T, N>; 3]>],
    pub(crate) steps: usize,
    pub(crate) boundaries: &'p [super::Boundaries<T, N>; M],
    pub(crate) points: Option<super::point_io::StepPoints<'p, T, N>>,
}

/// The steps of `S` (every field it evolves) over `batch`, one call per sweep or the fused
/// wavefront on this thread.
///
/// # Safety
///
/// The ring descriptors address distinct, live, writable arrays of one shape on one device that
/// nothing else accesses during the call; the coefficient descriptors live arrays of that shape
/// that nothing writes during the call.
///
/// # Errors
///
/// As `StencilApply::try_apply_steps_with`.
#[cfg(feature = "mpi")]
pub(crate) unsafe fn step_rings<S, B, T, const N: usize, const M: usize, const L: usize>(
    op: &'static str,
    batch: RingBatch<'_, B, T, N, M>,
    params: &S::Params,
) -> Result<()>
where
    S: Stencil<T, N> + Evolves<M, L>,
    B: ExprStencilKernels + CopyKernels,
    T: Scalar,
{
    let sweep =
        ExprSweep::<S, B, T, N>::over::<M, L>(op, batch.rings[0], None, batch.coefficients[0].clone(), params, M)?;
    // SAFETY: the caller's contract.
    unsafe { run_batch(op, &sweep, L + 1, batch, |plan| plan.run_sequential()) }
}

/// [`step_rings`] on rayon's threads (bands of each hyperplane, slabs of the block, or a pipeline
/// of sweep groups).
///
/// # Safety
///
/// As for [`step_rings`].
///
/// # Errors
///
/// As [`step_rings`].
#[cfg(all(feature = "mpi", feature = "rayon"))]
pub(crate) unsafe fn par_step_rings<S, T, const N: usize, const M: usize, const L: usize>(
    op: &'static str,
    batch: RingBatch<'_, crate::kernel::Cpu, T, N, M>,
    params: &S::Params,
) -> Result<()>
where
    S: Stencil<T, N> + Evolves<M, L>,
    T: Scalar,
{
    let sweep = ExprSweep::<S, crate::kernel::Cpu, T, N>::over::<M, L>(
        op,
        batch.rings[0],
        None,
        batch.coefficients[0].clone(),
        params,
        M,
    )?;
    // SAFETY: the caller's contract.
    unsafe { run_batch(op, &sweep, L + 1, batch, |plan| super::fused::run_parallel(plan)) }
}

/// `batch` of any sweep (a stencil's, or the stages' of `Stages`) over rings of `ring` arrays
/// per field: plans the points on the rings' shape and runs the steps, each pass by `fused`.
///
/// # Safety
///
/// As for [`step_rings`].
///
/// # Errors
///
/// As [`step_rings`].
#[cfg(feature = "mpi")]
pub(super) unsafe fn run_batch<B, T, const N: usize, const M: usize, S>(
    op: &'static str,
    sweep: &S,
    ring: usize,
    batch: RingBatch<'_, B, T, N, M>,
    fused: impl Fn(&Plan<'_, B, T, N, S>) -> Result<()>,
) -> Result<()>
where
    S: Sweep<B, T, N>,
    B: ExprStencilKernels + CopyKernels,
    T: Scalar,
{
    let RingBatch { rings, steps, boundaries, points, .. } = batch;
    let like = rings[0];
    let mut plan = points.map(|p| super::fused::PointPlan::new(op, p, steps, M, like, sweep.radius())).transpose()?;
    let hook = plan.as_mut().map(|p| p as &mut dyn PointHook<B, T, N>);
    // SAFETY: the caller's contract; the plan's arrays are the rings'.
    unsafe { super::fused::run_steps_on(op, sweep, rings, ring, steps, boundaries, hook, fused) }
}
