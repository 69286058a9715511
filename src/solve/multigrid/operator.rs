//! A level's operator: constant taps ([`StencilOperator`]) or a coefficient field per tap
//! ([`VariableOperator`]), its inverse diagonal, and its taps on the host for the Galerkin
//! products and the smoothers' setup.

use crate::array::Array;
use crate::error::{Error, Result};
use crate::kernel::{Download, StencilKernels};
use crate::solve::operator::{LinearOperator, StencilOperator};
use crate::solve::variable_operator::VariableOperator;
use crate::solve::vectors::{SolverBackend, SolverScalar, Space};
use crate::stencil::Boundaries;

/// What a level applies.
pub(super) enum LevelOperator<T: SolverScalar, const N: usize, B: SolverBackend> {
    Constant(StencilOperator<T, N>),
    Variable(VariableOperator<T, N, B>),
}

/// A level's taps on the host, in `f64`: constant weights, or per-tap fields (the unknowns'
/// shape padded by the radius, as [`VariableOperator`] keeps them).
pub(super) enum HostTaps<const N: usize> {
    Constant(Vec<([isize; N], f64)>),
    Variable { offsets: Vec<[isize; N]>, fields: Vec<Array<f64, N>> },
}

/// `D⁻¹`: one number for constant taps, a field (the vectors' padded shape, zero in the halo)
/// for variable ones.
pub(super) enum InverseDiagonal<T: SolverScalar, const N: usize, B: SolverBackend> {
    Constant(f64),
    Field(Array<T, N, B>),
}

impl<T: SolverScalar, const N: usize, B: SolverBackend + StencilKernels> LevelOperator<T, N, B> {
    pub(super) fn shape(&self) -> [usize; N] {
        match self {
            LevelOperator::Constant(op) => LinearOperator::<T, N, B>::shape(op),
            LevelOperator::Variable(op) => op.shape(),
        }
    }

    pub(super) fn halo(&self) -> [usize; N] {
        match self {
            LevelOperator::Constant(op) => LinearOperator::<T, N, B>::halo(op),
            LevelOperator::Variable(op) => op.halo(),
        }
    }

    pub(super) fn boundaries(&self) -> &Boundaries<T, N> {
        match self {
            LevelOperator::Constant(op) => op.boundaries(),
            LevelOperator::Variable(op) => op.boundaries(),
        }
    }

    /// `y = A x` (`x`'s halo filled first).
    ///
    /// # Errors
    ///
    /// The kernels' errors.
    pub(super) fn try_apply(&self, x: &mut Array<T, N, B>, y: &mut Array<T, N, B>) -> Result<()> {
        match self {
            LevelOperator::Constant(op) => op.try_apply(x, y),
            LevelOperator::Variable(op) => op.try_apply(x, y),
        }
    }

    /// `D⁻¹` on `space` (`taps`, this operator's on the host, checked for a zero diagonal).
    ///
    /// # Errors
    ///
    /// `Error::Parameter` for a zero or non-finite diagonal; the kernels' errors.
    pub(super) fn inverse_diagonal(
        &self,
        taps: &HostTaps<N>,
        space: &Space<T, N, B>,
    ) -> Result<InverseDiagonal<T, N, B>> {
        let refuse = |what: String| {
            Err(Error::Parameter {
                op: "Multigrid::new",
                reason: format!("{what}, which the smoothers divide by"),
                fix: "multigrid needs a non-zero diagonal at every point, as a Laplacian or diffusion operator has",
            })
        };
        match (taps, self) {
            (HostTaps::Constant(taps), _) => {
                let centre: f64 = taps.iter().filter(|(o, _)| *o == [0; N]).map(|&(_, w)| w).sum();
                if centre == 0.0 || !centre.is_finite() {
                    return refuse(format!("the stencil's centre weight is {centre}"));
                }
                Ok(InverseDiagonal::Constant(1.0 / centre))
            }
            (HostTaps::Variable { offsets, fields }, LevelOperator::Variable(op)) => {
                let Some(centre) = offsets.iter().position(|o| *o == [0; N]) else {
                    return refuse("the stencil has no centre tap".into());
                };
                let (halo, shape) = (self.halo(), self.shape());
                let inside = |i: [usize; N]| (0..N).all(|k| i[k] >= halo[k] && i[k] < halo[k] + shape[k]);
                let bad = fields[centre].indexed_iter().find(|&(i, &d)| inside(i) && (d == 0.0 || !d.is_finite()));
                if let Some((i, d)) = bad {
                    return refuse(format!("the centre coefficient at padded point {i:?} is {d}"));
                }
                // 1 / d over the interior, on the device; zero in the halo.
                let mut inverse = space.vector()?;
                space.copy(&mut inverse, &op.coefficients()[centre])?;
                space.reciprocal(&mut inverse)?;
                Ok(InverseDiagonal::Field(inverse))
            }
            (HostTaps::Variable { .. }, LevelOperator::Constant(_)) => {
                unreachable!("a constant operator's taps are constant")
            }
        }
    }
}

impl<T: SolverScalar, const N: usize, B: SolverBackend + StencilKernels> LinearOperator<T, N, B>
    for LevelOperator<T, N, B>
{
    fn shape(&self) -> [usize; N] {
        LevelOperator::shape(self)
    }

    fn halo(&self) -> [usize; N] {
        LevelOperator::halo(self)
    }

    fn try_apply(&self, x: &mut Array<T, N, B>, y: &mut Array<T, N, B>) -> Result<()> {
        LevelOperator::try_apply(self, x, y)
    }
}

/// The taps of a constant stencil on the host.
pub(super) fn constant_taps<T: SolverScalar, const N: usize>(op: &StencilOperator<T, N>) -> HostTaps<N> {
    HostTaps::Constant(op.stencil().taps().iter().map(|&(o, w)| (o, w.into())).collect())
}

impl<T: SolverScalar, const N: usize, B: SolverBackend + StencilKernels + Download> LevelOperator<T, N, B> {
    /// The taps on the host.
    ///
    /// # Errors
    ///
    /// `Error::Device` from a field's download; `Error::Alloc`.
    pub(super) fn host_taps(&self) -> Result<HostTaps<N>> {
        Ok(match self {
            LevelOperator::Constant(op) => constant_taps(op),
            LevelOperator::Variable(op) => HostTaps::Variable {
                offsets: op.stencil().offsets().to_vec(),
                fields: op
                    .coefficients()
                    .iter()
                    .map(|f| f.try_to_host().map(|h| h.map(|v| v.into())))
                    .collect::<Result<_>>()?,
            },
        })
    }
}
