//! Staged time steps: a step as an ordered list of `stencil!` stencils, each writing some fields
//! of a [`State`] and reading all of them, later stages the values earlier stages of the step
//! wrote (Yee's FDTD, velocity-stress elastic waves, predictor-corrector and Runge-Kutta
//! stages). Stepped by the one time stepper of `fused/` (the stages are sweeps of the fused
//! wavefront on the CPU, one call each on devices), whose rings read the right levels
//! (`fused/rings.rs`).

use super::boundary::StepBoundaries;
use super::fused::{partitions, StageWrites, Sweep};
use super::state::State;
use super::steps::{step_state, Coefficients, ExprSweep};
use crate::error::{or_panic, Error, Result};
use crate::kernel::expr::{Scalar, Stage, Stencil};
use crate::kernel::{CopyKernels, Desc, ExprStencilKernels};

/// A time step in stages: a tuple of 2 to 6 `stencil!` stencils, each a [`Stage`] of the state
/// (declared with `#[writes(fields..)]`), run in order once per step.
///
/// Every stage reads the state's fields at their levels, then its own coefficient fields, and
/// writes the fields its `#[writes(..)]` names; every field of the state is written by exactly
/// one stage. Level 0 of a field is its newest value: this step's where an earlier stage of the
/// step wrote it, else the last step's (level 1 the one before that, and so on). So Yee's
/// scheme updates the magnetic field from the electric one, then the electric field from the
/// new magnetic one:
///
/// ```
/// use cnda::prelude::*;
/// use cnda::stencil::{Boundary, Stages, State};
///
/// stencil! {
///     /// H from the curl of E (`hx`, `hy` half a cell after `ez` along their axis).
///     #[writes(hx, hy)]
///     struct UpdateH = |ez, hx, hy; c: T| (
///         hx[0, 0] - c * (ez[0, 1] - ez[0, 0]),
///         hy[0, 0] + c * (ez[1, 0] - ez[0, 0]),
///     );
/// }
/// stencil! {
///     /// E from the curl of the new H, over a permittivity field.
///     #[writes(ez)]
///     struct UpdateE = |ez, hx, hy, eps; c: T|
///         ez[0, 0] + c / eps[0, 0] * ((hy[0, 0] - hy[-1, 0]) - (hx[0, 0] - hx[0, -1]));
/// }
///
/// let n = 64;
/// let pulse = Array::from_fn([n, n], |[i, j]| if (i, j) == (32, 32) { 1.0 } else { 0.0 });
/// let eps = Array::from_fn([n, n], |[i, _]| if i < 40 { 1.0 } else { 4.0 });
/// let mut fields = State::from_fields([pulse, Array::zeros([n, n]), Array::zeros([n, n])]);
/// let yee = Stages((UpdateH, UpdateE));
/// // `()` and `&eps`: each stage's coefficient fields; `(0.5,)`: each stage's parameters.
/// yee.apply_steps_with(&mut fields, 20, ((), &eps), ((0.5,), (0.5,)), [Boundary::Fixed; 2]);
/// assert!(fields.field(0)[[32, 40]] != 0.0 && fields.field(0)[[32, 60]] == 0.0);
/// ```
///
/// The stepping is bit for bit the same as, `steps` times and stage by stage, refilling the
/// halos of what the last stage wrote, `apply`ing the stage into the scratch of its fields and
/// rotating them; fused on the CPU (the stages are sweeps of one wavefront, in passes of whole
/// steps whose depth is measured at run time), one call per stage on devices.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Stages<S>(pub S);

/// The stages' sweeps as one sweep of the stepper: sweep `(t - 1) S + s + 1` is stage `s`.
struct Staged<X> {
    stages: X,
    writes: StageWrites,
}

/// Each stage's written fields as the stepper's masks, after checking that they are ascending
/// fields of the state and write each of its `fields` exactly once.
///
/// # Errors
///
/// `Error::Layout` otherwise.
fn stage_writes(op: &'static str, writes: &[&[usize]], fields: usize) -> Result<StageWrites> {
    let masks: Option<StageWrites> = writes
        .iter()
        .map(|w| {
            let ascending = w.windows(2).all(|p| p[0] < p[1]);
            (ascending && w.iter().all(|&f| f < fields.min(8))).then(|| w.iter().fold(0u8, |m, &f| m | 1 << f))
        })
        .collect();
    match masks {
        Some(masks) if partitions(&masks, fields) => Ok(masks),
        _ => Err(Error::Layout {
            op,
            reason: format!("stages writing the fields {writes:?} of a state of {fields} fields"),
            fix: "write each field of the state (at most 8) in exactly one stage, naming a stage's fields in the \
                  state's order (`#[writes(..)]`)",
        }),
    }
}

/// The radius of all stages: the largest along each axis.
fn widest<const N: usize>(radii: &[[usize; N]]) -> [usize; N] {
    core::array::from_fn(|k| radii.iter().map(|r| r[k]).max().unwrap_or(0))
}

macro_rules! stages {
    ($count:literal; $($S:ident $C:ident $i:tt),+) => {
        impl<'p, B: ExprStencilKernels, T: Scalar, const N: usize, $($S: Stencil<T, N>),+> Sweep<B, T, N>
            for Staged<($(ExprSweep<'p, $S, B, T, N>,)+)>
        {
            fn radius(&self) -> [usize; N] {
                widest(&[$(self.stages.$i.radius()),+])
            }

            fn wavefront(&self) -> bool {
                <B as ExprStencilKernels>::WAVEFRONT
            }

            fn coefficient_fields(&self) -> usize {
                0 $(+ self.stages.$i.coefficient_fields())+
            }

            unsafe fn region(
                &self,
                dev: &B::Device,
                stage: usize,
                outputs: &[Desc<B, T, N>],
                inputs: &[Desc<B, T, N>],
                start: [usize; N],
                shape: [usize; N],
            ) -> Result<()> {
                match stage {
                    // SAFETY: the caller's contract, for the stage's own sweep (its outputs the
                    // fields it writes, `stage_writes`).
                    $($i => unsafe { self.stages.$i.region(dev, 0, outputs, inputs, start, shape) },)+
                    _ => unreachable!("stage {stage} of {}", $count),
                }
            }

            fn stages(&self) -> Option<StageWrites> {
                Some(self.writes.clone())
            }
        }

        impl<$($S),+> Stages<($($S,)+)> {
            /// `steps` staged steps of `state` (see [`Stages`]), each stage with its coefficient
            /// fields (`coefficients`, one entry per stage: `()`, `&k` or a tuple) and parameters
            /// (`params`, one tuple per stage), with a [`Boundary`](super::Boundary) at each
            /// side of each axis (as for
            /// [`StencilApply::apply_steps_with`](super::StencilApply::apply_steps_with): one for
            /// every field, or a [`FieldBoundaries`](super::FieldBoundaries)); the halo is the
            /// widest stage's radius wide.
            ///
            /// # Panics
            ///
            /// As `try_apply_steps_with` errs.
            #[track_caller]
            pub fn apply_steps_with<T, const N: usize, B, const M: usize, const L: usize, $($C),+>(
                &self,
                state: &mut State<T, N, M, L, B>,
                steps: usize,
                coefficients: ($($C,)+),
                params: ($(<$S as Stencil<T, N>>::Params,)+),
                boundaries: impl StepBoundaries<T, N, M>,
            ) where
                T: Scalar,
                B: ExprStencilKernels + CopyKernels,
                $($S: Stencil<T, N> + Stage<M, L>, $C: Coefficients<T, N, B, <$S as Stage<M, L>>::Coefficients>,)+
            {
                or_panic(self.try_apply_steps_with(state, steps, coefficients, params, boundaries))
            }

            /// `apply_steps_with`, returning errors.
            ///
            /// # Errors
            ///
            /// As [`StencilApply::try_apply_steps_with`](super::StencilApply::try_apply_steps_with);
            /// `Error::Layout` for stages that do not write each field exactly once.
            pub fn try_apply_steps_with<T, const N: usize, B, const M: usize, const L: usize, $($C),+>(
                &self,
                state: &mut State<T, N, M, L, B>,
                steps: usize,
                coefficients: ($($C,)+),
                params: ($(<$S as Stencil<T, N>>::Params,)+),
                boundaries: impl StepBoundaries<T, N, M>,
            ) -> Result<()>
            where
                T: Scalar,
                B: ExprStencilKernels + CopyKernels,
                $($S: Stencil<T, N> + Stage<M, L>, $C: Coefficients<T, N, B, <$S as Stage<M, L>>::Coefficients>,)+
            {
                const OP: &str = "Stages::apply_steps_with";
                let writes = stage_writes(OP, &[$(<$S as Stage<M, L>>::WRITES),+], M)?;
                let sweep = Staged {
                    stages: ($(ExprSweep::<$S, B, T, N>::new(
                        OP,
                        state,
                        coefficients.$i.coefficient_descs(),
                        &params.$i,
                        <$S as Stage<M, L>>::WRITES.len(),
                    )?,)+),
                    writes,
                };
                // SAFETY: `run_steps` hands over the plan of the state's distinct arrays,
                // borrowed uniquely.
                step_state(OP, &sweep, state, steps, boundaries, |plan| unsafe { plan.run_sequential() })
            }

            /// `apply_steps_with` on rayon's threads, as
            /// [`StencilApply::par_apply_steps_with`](super::StencilApply::par_apply_steps_with);
            /// the same result, bit for bit.
            ///
            /// # Panics
            ///
            /// As `try_par_apply_steps_with` errs.
            #[cfg(feature = "rayon")]
            #[track_caller]
            pub fn par_apply_steps_with<T, const N: usize, const M: usize, const L: usize, $($C),+>(
                &self,
                state: &mut State<T, N, M, L>,
                steps: usize,
                coefficients: ($($C,)+),
                params: ($(<$S as Stencil<T, N>>::Params,)+),
                boundaries: impl StepBoundaries<T, N, M>,
            ) where
                T: Scalar,
                $($S: Stencil<T, N> + Stage<M, L>, $C: Coefficients<T, N, crate::kernel::Cpu, <$S as Stage<M, L>>::Coefficients>,)+
            {
                or_panic(self.try_par_apply_steps_with(state, steps, coefficients, params, boundaries))
            }

            /// `par_apply_steps_with`, returning errors.
            ///
            /// # Errors
            ///
            /// As `try_apply_steps_with`.
            #[cfg(feature = "rayon")]
            pub fn try_par_apply_steps_with<T, const N: usize, const M: usize, const L: usize, $($C),+>(
                &self,
                state: &mut State<T, N, M, L>,
                steps: usize,
                coefficients: ($($C,)+),
                params: ($(<$S as Stencil<T, N>>::Params,)+),
                boundaries: impl StepBoundaries<T, N, M>,
            ) -> Result<()>
            where
                T: Scalar,
                $($S: Stencil<T, N> + Stage<M, L>, $C: Coefficients<T, N, crate::kernel::Cpu, <$S as Stage<M, L>>::Coefficients>,)+
            {
                const OP: &str = "Stages::par_apply_steps_with";
                let writes = stage_writes(OP, &[$(<$S as Stage<M, L>>::WRITES),+], M)?;
                let sweep = Staged {
                    stages: ($(ExprSweep::<$S, crate::kernel::Cpu, T, N>::new(
                        OP,
                        state,
                        coefficients.$i.coefficient_descs(),
                        &params.$i,
                        <$S as Stage<M, L>>::WRITES.len(),
                    )?,)+),
                    writes,
                };
                // SAFETY: as in `try_apply_steps_with`.
                step_state(OP, &sweep, state, steps, boundaries, |plan| unsafe {
                    super::fused::run_parallel(plan)
                })
            }

            /// The stages' radius (the widest) and a step's reach (their radii summed), per
            /// axis.
            #[cfg(feature = "mpi")]
            pub(crate) fn radius_and_reach<T: Scalar, const N: usize>() -> ([usize; N], [usize; N])
            where
                $($S: Stencil<T, N>,)+
            {
                let radii = [$(crate::kernel::expr::radius::<$S, T, N>()),+];
                (widest(&radii), core::array::from_fn(|k| radii.iter().map(|r| r[k]).sum()))
            }

            /// The staged sweep over `batch`'s rings, with each stage's coefficient fields.
            ///
            /// # Errors
            ///
            /// As `try_apply_steps_with`.
            #[cfg(feature = "mpi")]
            fn over_rings<'p, T, const N: usize, B, const M: usize, const L: usize>(
                op: &'static str,
                batch: &super::RingBatch<'_, B, T, N, M>,
                params: &'p ($(<$S as Stencil<T, N>>::Params,)+),
            ) -> Result<Staged<($(ExprSweep<'p, $S, B, T, N>,)+)>>
            where
                T: Scalar,
                B: ExprStencilKernels + CopyKernels,
                $($S: Stencil<T, N> + Stage<M, L>,)+
            {
                Ok(Staged {
                    stages: ($(ExprSweep::<$S, B, T, N>::over::<M, L>(
                        op,
                        batch.rings[0],
                        None,
                        batch.coefficients[$i].clone(),
                        &params.$i,
                        <$S as Stage<M, L>>::WRITES.len(),
                    )?,)+),
                    writes: stage_writes(op, &[$(<$S as Stage<M, L>>::WRITES),+], M)?,
                })
            }

            /// The staged steps of `batch` (a distributed state's, `dist/stages.rs`), one call
            /// per sweep or the fused wavefront on this thread.
            ///
            /// # Safety
            ///
            /// As for `steps::step_rings`.
            ///
            /// # Errors
            ///
            /// As `try_apply_steps_with`.
            #[cfg(feature = "mpi")]
            pub(crate) unsafe fn step_rings<T, const N: usize, B, const M: usize, const L: usize>(
                op: &'static str,
                batch: super::RingBatch<'_, B, T, N, M>,
                params: &($(<$S as Stencil<T, N>>::Params,)+),
            ) -> Result<()>
            where
                T: Scalar,
                B: ExprStencilKernels + CopyKernels,
                $($S: Stencil<T, N> + Stage<M, L>,)+
            {
                let sweep = Self::over_rings::<T, N, B, M, L>(op, &batch, params)?;
                // SAFETY: the caller's contract.
                unsafe { super::steps::run_batch(op, &sweep, L + 1, batch, |plan| plan.run_sequential()) }
            }

            /// `step_rings` on rayon's threads.
            ///
            /// # Safety
            ///
            /// As for `step_rings`.
            ///
            /// # Errors
            ///
            /// As `step_rings`.
            #[cfg(all(feature = "mpi", feature = "rayon"))]
            pub(crate) unsafe fn par_step_rings<T, const N: usize, const M: usize, const L: usize>(
                op: &'static str,
                batch: super::RingBatch<'_, crate::kernel::Cpu, T, N, M>,
                params: &($(<$S as Stencil<T, N>>::Params,)+),
            ) -> Result<()>
            where
                T: Scalar,
                $($S: Stencil<T, N> + Stage<M, L>,)+
            {
                let sweep = Self::over_rings::<T, N, crate::kernel::Cpu, M, L>(op, &batch, params)?;
                // SAFETY: the caller's contract.
                unsafe { super::steps::run_batch(op, &sweep, L + 1, batch, |plan| super::fused::run_parallel(plan)) }
            }
        }
    };
}

stages!(2; S0 C0 0, S1 C1 1);
stages!(3; S0 C0 0, S1 C1 1, S2 C2 2);
stages!(4; S0 C0 0, S1 C1 1, S2 C2 2, S3 C3 3);
stages!(5; S0 C0 0, S1 C1 1, S2 C2 2, S3 C3 3, S4 C4 4);
stages!(6; S0 C0 0, S1 C1 1, S2 C2 2, S3 C3 3, S4 C4 4, S5 C5 5);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stages_write_each_field_once_in_order() {
        assert_eq!(stage_writes("t", &[&[1, 2], &[0]], 3).unwrap().as_slice(), [0b110, 0b001]);
        assert_eq!(stage_writes("t", &[&[0], &[1], &[2, 3]], 4).unwrap().as_slice(), [1, 2, 12]);
        for bad in
            [&[&[1, 2][..], &[1][..]][..], &[&[2, 1], &[0]], &[&[0], &[1]], &[&[0, 1, 2, 3], &[]], &[&[0, 3], &[1, 2]]]
        {
            let e = stage_writes("t", bad, 3).unwrap_err();
            assert!(e.to_string().contains("exactly one stage"), "{bad:?}: {e}");
        }
    }
}
