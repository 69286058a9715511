//! The diffusion operator `−∇·(k ∇u) + c u` with a conductivity `k` per point, as a
//! [`VariableOperator`]: the `2N + 1`-point finite-volume form, each face's conductivity the
//! harmonic mean of its two points' (exact across layers, conservative).

use super::variable_operator::VariableOperator;
use super::vectors::SolverScalar;
use crate::array::Array;
use crate::element::Pod;
use crate::error::{or_panic, Error, Result};
use crate::kernel::{CopyKernels, ElementwiseKernels, StencilKernels, Upload};
use crate::stencil::{Boundaries, Boundary, Side, VariableStencil};

/// What a diffusion operator was built from (a host copy of the conductivity, the spacing and
/// the shift), kept for multigrid's rediscretized coarse levels.
#[derive(Debug)]
pub(crate) struct Conductivity<T: Pod, const N: usize> {
    pub(crate) k: Array<T, N>,
    pub(crate) h: [f64; N],
    pub(crate) shift: f64,
}

/// The offsets of the diffusion stencil: `−e_k` and `+e_k` for each axis, then the centre.
pub(super) fn offsets<const N: usize>() -> Vec<[isize; N]> {
    let mut all = Vec::with_capacity(2 * N + 1);
    for k in 0..N {
        for d in [-1, 1] {
            let mut o = [0; N];
            o[k] = d;
            all.push(o);
        }
    }
    all.push([0; N]);
    all
}

impl<T: SolverScalar, const N: usize, B: StencilKernels + ElementwiseKernels + CopyKernels> VariableOperator<T, N, B> {
    /// `−∇·(k ∇u) + shift u` on a grid of `k`'s shape with spacing `h` per axis and
    /// `boundaries` (`Value(0)`: `u = 0` one spacing past the last point, through that point's
    /// own `k`; `Neumann`: no flux; `Periodic`), its fields built on the host and moved by
    /// `alloc`. Symmetric, and definite for a positive `k` and a positive shift or a wall. The
    /// operator keeps a host copy of `k` for [`Multigrid::for_variable`](super::Multigrid::for_variable)'s
    /// rediscretized coarse levels ([`CoarseOperators::Rediscretized`](super::CoarseOperators)).
    ///
    /// ```
    /// use cnda::prelude::*;
    /// use cnda::solve::{Cg, VariableOperator};
    /// use cnda::stencil::Boundary;
    /// // A layered conductivity: 1 in the lower half, 1000 in the upper.
    /// let k = Array::from_fn([31, 31], |[i, _]| if i < 16 { 1.0 } else { 1000.0 });
    /// let a = VariableOperator::diffusion_in(&Cpu, &k, [1.0 / 32.0; 2], 0.0, [Boundary::Value(0.0); 2]);
    /// let mut u = Array::zeros([31, 31]);
    /// let report = Cg::new().rtol(1e-10).solve(&a, &Array::ones([31, 31]), &mut u);
    /// assert!(u[[8, 15]] > u[[24, 15]]); // the conducting layer stays cooler
    /// # let _ = report;
    /// ```
    ///
    /// # Panics
    ///
    /// As [`VariableOperator::try_diffusion_in`] errs.
    #[track_caller]
    pub fn diffusion_in<D: Upload<Target = B>>(
        alloc: &D,
        k: &Array<T, N>,
        h: [f64; N],
        shift: f64,
        boundaries: impl Into<Boundaries<T, N>>,
    ) -> Self {
        or_panic(Self::try_diffusion_in(alloc, k, h, shift, boundaries))
    }

    /// [`VariableOperator::diffusion_in`], returning errors.
    ///
    /// # Errors
    ///
    /// `Error::Parameter` for a conductivity that is not positive and finite, a spacing that is
    /// not, or as [`VariableOperator::try_new`]; `Error::Alloc`, `Error::Device`.
    pub fn try_diffusion_in<D: Upload<Target = B>>(
        alloc: &D,
        k: &Array<T, N>,
        h: [f64; N],
        shift: f64,
        boundaries: impl Into<Boundaries<T, N>>,
    ) -> Result<Self> {
        const OP: &str = "VariableOperator::diffusion";
        let boundaries = boundaries.into();
        let refuse = |reason: String| {
            Err(Error::Parameter {
                op: OP,
                reason,
                fix: "give a positive, finite conductivity at every point and positive spacings",
            })
        };
        if let Some(&s) = h.iter().find(|&&s| s <= 0.0 || !s.is_finite()) {
            return refuse(format!("the spacing {s}"));
        }
        if let Some((i, &v)) = k.indexed_iter().find(|&(_, &v)| !(v.into() > 0.0 && v.into().is_finite())) {
            return refuse(format!("the conductivity at {i:?} is {v:?}"));
        }
        let shape = k.shape();
        // The conductivity at padded index `p`: inside, or a neighbour's image across a
        // periodic seam; none past a wall or a `Neumann` side.
        let k_at = |p: [usize; N]| -> Option<f64> {
            let mut i = [0; N];
            for a in 0..N {
                i[a] = match p[a] {
                    0 if boundaries.at(a, Side::Low) == Boundary::Periodic => shape[a] - 1,
                    q if q == shape[a] + 1 && boundaries.at(a, Side::High) == Boundary::Periodic => 0,
                    q if (1..=shape[a]).contains(&q) => q - 1,
                    _ => return None,
                };
            }
            Some(k[i].into())
        };
        let fields = diffusion_fields::<T, N>(shape, k_at, h, shift)?
            .iter()
            .map(|f| f.try_to_backend(alloc))
            .collect::<Result<Vec<_>>>()?;
        let mut op = Self::try_new(VariableStencil::try_new(offsets::<N>())?, fields, boundaries)?;
        op.conductivity = Some(Conductivity { k: k.view().try_to_owned()?, h, shift });
        Ok(op)
    }
}

/// The diffusion stencil's fields (in [`offsets`]' order) on unknowns of `shape` padded by one
/// point (zero there): `k_at(p)` is the conductivity at padded index `p`, inside or at a
/// neighbour past the unknowns (`None` where there is none: past a wall or a `Neumann` side,
/// where a face takes its point's own conductivity). Each face's conductivity is the harmonic
/// mean of its two points'.
///
/// # Errors
///
/// `Error::Overflow`, `Error::Alloc`.
pub(super) fn diffusion_fields<T: SolverScalar, const N: usize>(
    shape: [usize; N],
    k_at: impl Fn([usize; N]) -> Option<f64>,
    h: [f64; N],
    shift: f64,
) -> Result<Vec<Array<T, N>>> {
    let padded: [usize; N] = core::array::from_fn(|a| shape[a] + 2);
    // The conductivity of the face from interior padded point `p` towards `d` (±1) along `axis`.
    let face = |p: [usize; N], axis: usize, d: isize| -> f64 {
        let own = k_at(p).expect("an interior point's conductivity");
        let mut q = p;
        q[axis] = p[axis].wrapping_add_signed(d);
        match k_at(q) {
            None => own,
            // As `2 / (1/a + 1/b)`: no overflow or underflow for any positive finite `k`.
            Some(other) => 2.0 / (own.recip() + other.recip()),
        }
    };
    let offsets = offsets::<N>();
    let mut fields = Vec::with_capacity(offsets.len());
    for (t, o) in offsets.iter().enumerate() {
        let centre = t == offsets.len() - 1;
        fields.push(Array::<T, N>::try_from_fn(padded, |p| {
            if (0..N).any(|a| p[a] == 0 || p[a] > shape[a]) {
                return T::ZERO;
            }
            let weight = if centre {
                (0..N).map(|a| (face(p, a, -1) + face(p, a, 1)) / (h[a] * h[a])).sum::<f64>() + shift
            } else {
                let axis = o.iter().position(|&d| d != 0).expect("an off-centre offset");
                -face(p, axis, o[axis]) / (h[axis] * h[axis])
            };
            T::from_f64(weight)
        })?);
    }
    Ok(fields)
}
