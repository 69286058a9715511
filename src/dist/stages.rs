//! Staged steps of distributed states: [`Stages::apply_steps_dist`], the one distributed driver
//! (`systems.rs`) running the stages' sweep (`stencil/stages.rs`) on each batch of steps.

use mpi::datatype::Equivalence;

use super::systems::steps_dist;
use super::{DistBackend, DistCoefficients, DistState};
use crate::error::{or_panic, Result};
use crate::kernel::expr::{Scalar, Stage, Stencil};
use crate::kernel::{CopyKernels, ExprStencilKernels};
use crate::stencil::{Stages, StepBoundaries};

macro_rules! stages_dist {
    ($($S:ident $C:ident $i:tt),+) => {
        impl<$($S),+> Stages<($($S,)+)> {
            /// `steps` staged steps of a distributed state, as
            /// [`StencilApplyDist::apply_steps_dist`](super::StencilApplyDist::apply_steps_dist)
            /// steps one stencil's: each stage with its coefficient fields (one entry per stage:
            /// `()`, `&mut k` or a tuple of `&mut DistArray`) and parameters, deep halos (one
            /// exchange per `halo / reach` steps, where a step's reach is the sum of its stages'
            /// radii along the axis); bit for bit `apply_steps_with` on one `State` holding the
            /// whole grid. Collective.
            ///
            /// # Panics
            ///
            /// As `try_apply_steps_dist` errs.
            #[track_caller]
            pub fn apply_steps_dist<T, const N: usize, B, const M: usize, const L: usize, $($C),+>(
                &self,
                state: &mut DistState<T, N, M, L, B>,
                steps: usize,
                coefficients: ($($C,)+),
                params: ($(<$S as Stencil<T, N>>::Params,)+),
                boundaries: impl StepBoundaries<T, N, M>,
            ) where
                T: Scalar + Equivalence,
                B: DistBackend + ExprStencilKernels + CopyKernels,
                $($S: Stencil<T, N> + Stage<M, L>, $C: DistCoefficients<T, N, B, <$S as Stage<M, L>>::Coefficients>,)+
            {
                or_panic(self.try_apply_steps_dist(state, steps, coefficients, params, boundaries))
            }

            /// `apply_steps_dist`, returning errors.
            ///
            /// # Errors
            ///
            /// As [`StencilApplyDist::try_apply_steps_dist`](super::StencilApplyDist::try_apply_steps_dist)
            /// and `try_apply_steps_with`; `Error::Decomposition` for a halo narrower than a
            /// step's reach on an axis with neighbours.
            pub fn try_apply_steps_dist<T, const N: usize, B, const M: usize, const L: usize, $($C),+>(
                &self,
                state: &mut DistState<T, N, M, L, B>,
                steps: usize,
                mut coefficients: ($($C,)+),
                params: ($(<$S as Stencil<T, N>>::Params,)+),
                boundaries: impl StepBoundaries<T, N, M>,
            ) -> Result<()>
            where
                T: Scalar + Equivalence,
                B: DistBackend + ExprStencilKernels + CopyKernels,
                $($S: Stencil<T, N> + Stage<M, L>, $C: DistCoefficients<T, N, B, <$S as Stage<M, L>>::Coefficients>,)+
            {
                const OP: &str = "Stages::apply_steps_dist";
                let groups = vec![$(coefficients.$i.dist_arrays()),+];
                let reach = Self::radius_and_reach::<T, N>();
                steps_dist(OP, state, steps, groups, reach, boundaries, |batch| {
                    // SAFETY: `steps_dist` hands over the state's distinct blocks, borrowed
                    // uniquely, and the coefficient fields' (other arrays, only read), all
                    // narrowed to one view.
                    unsafe { Self::step_rings::<T, N, B, M, L>(OP, batch, &params) }
                })
            }

            /// `apply_steps_dist` with each process's steps on rayon's threads, as
            /// [`StencilApplyDist::par_apply_steps_dist`](super::StencilApplyDist::par_apply_steps_dist);
            /// the same result, bit for bit. Host blocks.
            ///
            /// # Panics
            ///
            /// As `try_par_apply_steps_dist` errs.
            #[cfg(feature = "rayon")]
            #[track_caller]
            pub fn par_apply_steps_dist<T, const N: usize, const M: usize, const L: usize, $($C),+>(
                &self,
                state: &mut DistState<T, N, M, L>,
                steps: usize,
                coefficients: ($($C,)+),
                params: ($(<$S as Stencil<T, N>>::Params,)+),
                boundaries: impl StepBoundaries<T, N, M>,
            ) where
                T: Scalar + Equivalence,
                $($S: Stencil<T, N> + Stage<M, L>, $C: DistCoefficients<T, N, crate::kernel::Cpu, <$S as Stage<M, L>>::Coefficients>,)+
            {
                or_panic(self.try_par_apply_steps_dist(state, steps, coefficients, params, boundaries))
            }

            /// `par_apply_steps_dist`, returning errors.
            ///
            /// # Errors
            ///
            /// As `try_apply_steps_dist`.
            #[cfg(feature = "rayon")]
            pub fn try_par_apply_steps_dist<T, const N: usize, const M: usize, const L: usize, $($C),+>(
                &self,
                state: &mut DistState<T, N, M, L>,
                steps: usize,
                mut coefficients: ($($C,)+),
                params: ($(<$S as Stencil<T, N>>::Params,)+),
                boundaries: impl StepBoundaries<T, N, M>,
            ) -> Result<()>
            where
                T: Scalar + Equivalence,
                $($S: Stencil<T, N> + Stage<M, L>, $C: DistCoefficients<T, N, crate::kernel::Cpu, <$S as Stage<M, L>>::Coefficients>,)+
            {
                const OP: &str = "Stages::par_apply_steps_dist";
                let groups = vec![$(coefficients.$i.dist_arrays()),+];
                let reach = Self::radius_and_reach::<T, N>();
                steps_dist(OP, state, steps, groups, reach, boundaries, |batch| {
                    // SAFETY: as in `try_apply_steps_dist`.
                    unsafe { Self::par_step_rings::<T, N, M, L>(OP, batch, &params) }
                })
            }
        }
    };
}

stages_dist!(S0 C0 0, S1 C1 1);
stages_dist!(S0 C0 0, S1 C1 1, S2 C2 2);
stages_dist!(S0 C0 0, S1 C1 1, S2 C2 2, S3 C3 3);
stages_dist!(S0 C0 0, S1 C1 1, S2 C2 2, S3 C3 3, S4 C4 4);
stages_dist!(S0 C0 0, S1 C1 1, S2 C2 2, S3 C3 3, S4 C4 4, S5 C5 5);
