//! The smoothers: which one a hierarchy uses ([`Smoother`]), what each level keeps for it, and
//! the sweeps.

use super::level::{checkerboard, exchange_halos, fill_halos, Level};
use super::operator::{HostTaps, InverseDiagonal};
use crate::array::Array;
use crate::error::{Error, Result};
use crate::kernel::StencilKernels;
use crate::solve::vectors::{SolverBackend, SolverScalar, Space};
use crate::stencil::DynStencil;

/// How each level smooths.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Smoother {
    /// Weighted Jacobi with `ω = 2N / (2N + 1)` for `N` axes (4/5 in 2D, 6/7 in 3D: the damping
    /// that smooths the Laplacian's oscillatory modes best). The default: each sweep is one
    /// stencil pass and one update, so a solve takes a cycle or two more than with
    /// [`Smoother::RedBlack`] and less time (`docs/BENCHMARKS.md`).
    DampedJacobi,
    /// `x += ω D⁻¹ (b − A x)`: fully parallel; `ω = 4/5` in 2D and `6/7` in 3D damp the
    /// oscillatory half of the spectrum best for the Laplacian.
    Jacobi {
        /// The damping factor.
        omega: f64,
    },
    /// Gauss-Seidel on the points of even index sum, then odd (the reverse after the coarse
    /// correction): exact Gauss-Seidel for stencils that couple only points of the other colour
    /// (the 5- and 7-point Laplacians), each colour one residual sweep. Smooths about twice as
    /// fast per sweep as Jacobi, at about twice the cost.
    RedBlack,
    /// A Chebyshev polynomial in `D⁻¹ A` of degree `pre` (and `post`), as fully parallel as
    /// Jacobi and one stencil pass per degree, that damps every eigenvalue of `D⁻¹ A` in
    /// `[0.6 λ_max / N, λ_max]` (the oscillatory modes, for `N` axes) at once instead of one
    /// sweep at a time; `λ_max` from the stencil's Fourier symbol (refused for a constant stencil
    /// that is not symmetric or whose `D⁻¹ A` is not positive), or Gershgorin's bound for a
    /// variable operator (taken as symmetric and positive: a diffusion operator). A tenth of the
    /// residual or better per V(2,2) cycle on Laplacians (0.06 in 2D, 0.075 in 3D).
    Chebyshev,
}

/// What a level keeps for its smoother.
pub(super) enum LevelSmoother<T: SolverScalar, const N: usize, B: SolverBackend> {
    /// Constant taps: `I − ω D⁻¹ A` as one stencil, so a sweep is `S x + ω D⁻¹ b` in two passes
    /// over memory instead of the residual's four.
    JacobiSweep { sweep: DynStencil<T, N>, omega: f64 },
    /// Variable taps: `x += ω D⁻¹ (b − A x)`.
    Jacobi { omega: f64 },
    /// `D⁻¹` on the points of even, then odd, index sum (zero elsewhere).
    RedBlack { colours: [Array<T, N, B>; 2] },
    /// The interval of `D⁻¹ A`'s spectrum the polynomial damps.
    Chebyshev { low: f64, high: f64 },
}

/// Where the Chebyshev smoother's interval starts, as a fraction of `λ_max`, for `N` axes: `0.6 /
/// N` (at most 1/2). The oscillatory modes of the Laplacian lie in `[λ_max / 2N, λ_max]`; with
/// V(2,2) cycles a slightly narrower interval damps more of them, measured best of 0.15 to 0.35
/// (`tests/multigrid.rs`: a reduction of 0.06 per cycle in 2D at 0.3, 0.075 in 3D at 0.2, against
/// 0.12 and 0.11 at `1 / 2N`).
fn chebyshev_low<const N: usize>() -> f64 {
    (0.6 / N as f64).min(0.5)
}

/// Headroom over the sampled `λ_max`: a polynomial grows fast just past its interval.
const CHEBYSHEV_HEADROOM: f64 = 1.02;

impl<T: SolverScalar, const N: usize, B: SolverBackend> LevelSmoother<T, N, B> {
    /// `smoother` for an operator of `taps` (on the host) with inverse diagonal `inverse`, on
    /// `space`.
    ///
    /// # Errors
    ///
    /// `Error::Parameter` for Chebyshev on a stencil that is not symmetric or whose `D⁻¹ A` is
    /// not positive; `Error::Alloc`; `Error::Layout` from the sweep stencil.
    pub(super) fn new(
        smoother: Smoother,
        taps: &HostTaps<N>,
        inverse: &InverseDiagonal<T, N, B>,
        space: &Space<T, N, B>,
        parity: usize,
    ) -> Result<Self> {
        Ok(match smoother {
            Smoother::RedBlack => {
                // Colour `c`: the points whose global index sum has parity `c`; the interior's first
                // point has parity `parity`.
                let mut colours = [checkerboard(space, parity)?, checkerboard(space, 1 - parity)?];
                for colour in &mut colours {
                    inverse.apply(space, colour, 1.0)?;
                }
                LevelSmoother::RedBlack { colours }
            }
            Smoother::Jacobi { .. } | Smoother::DampedJacobi => {
                let omega = match smoother {
                    Smoother::Jacobi { omega } => omega,
                    _ => (2 * N) as f64 / (2 * N + 1) as f64,
                };
                match (taps, inverse) {
                    (HostTaps::Constant(taps), &InverseDiagonal::Constant(inverse)) => {
                        let others = taps.iter().filter(|(o, _)| *o != [0; N]);
                        let sweep = others.map(|&(o, w)| (o, T::from_f64(-omega * w * inverse)));
                        let sweep = DynStencil::try_new(sweep.chain([([0; N], T::from_f64(1.0 - omega))]))?;
                        LevelSmoother::JacobiSweep { sweep, omega }
                    }
                    _ => LevelSmoother::Jacobi { omega },
                }
            }
            Smoother::Chebyshev => {
                let (halo, shape) = (space.halo(), space.shape());
                let inside = |i: [usize; N]| (0..N).all(|k| i[k] >= halo[k] && i[k] < halo[k] + shape[k]);
                let high = CHEBYSHEV_HEADROOM * largest_eigenvalue(taps, inside)?;
                LevelSmoother::Chebyshev { low: chebyshev_low::<N>() * high, high }
            }
        })
    }

    /// Stencil passes over the level per sweep (the unit of [`Multigrid`](super::Multigrid)'s
    /// work count).
    pub(super) fn passes_per_sweep(&self) -> usize {
        match self {
            LevelSmoother::RedBlack { .. } => 2,
            _ => 1,
        }
    }
}

impl<T: SolverScalar, const N: usize, B: SolverBackend> InverseDiagonal<T, N, B> {
    /// `v = factor D⁻¹ v` over the interior.
    ///
    /// # Errors
    ///
    /// The kernels' errors.
    pub(super) fn apply(&self, space: &Space<T, N, B>, v: &mut Array<T, N, B>, factor: f64) -> Result<()> {
        match self {
            InverseDiagonal::Constant(inverse) => space.scale(v, factor * inverse),
            InverseDiagonal::Field(inverse) => {
                space.multiply(v, inverse)?;
                if factor == 1.0 {
                    return Ok(());
                }
                space.scale(v, factor)
            }
        }
    }
}

/// The largest eigenvalue of `D⁻¹ A` (an upper bound of it): for constant taps, the largest
/// value of the symmetric stencil's Fourier symbol; for variable ones, Gershgorin's bound, the
/// largest `Σ |a_ij| / |a_ii|` over the rows (the interior points: `inside`, of the padded
/// fields).
///
/// # Errors
///
/// `Error::Parameter` as [`symbol_maximum`] refuses.
fn largest_eigenvalue<const N: usize>(taps: &HostTaps<N>, inside: impl Fn([usize; N]) -> bool) -> Result<f64> {
    match taps {
        HostTaps::Constant(taps) => {
            let centre: f64 = taps.iter().filter(|(o, _)| *o == [0; N]).map(|&(_, w)| w).sum();
            symbol_maximum(taps, centre)
        }
        HostTaps::Variable { offsets, fields } => {
            let centre = offsets.iter().position(|o| *o == [0; N]).expect("checked with the diagonal");
            let mut bound = 0f64;
            for (i, &d) in fields[centre].indexed_iter() {
                if inside(i) && d != 0.0 {
                    let row: f64 = fields.iter().map(|f| f[i].abs()).sum();
                    bound = bound.max(row / d.abs());
                }
            }
            Ok(bound)
        }
    }
}

/// The largest eigenvalue of `D⁻¹ A` for the symmetric constant stencil `taps` of centre weight
/// `centre`: the maximum of its Fourier symbol `Σ w_o cos(o · θ) / centre` over a lattice of `θ ∈ [0, π]^N`
/// that holds the corners (where the Laplacians and their coarse operators peak).
///
/// # Errors
///
/// `Error::Parameter` when a tap's mirror image has another weight, or the symbol is negative
/// somewhere (the polynomial would amplify those modes).
fn symbol_maximum<const N: usize>(taps: &[([isize; N], f64)], centre: f64) -> Result<f64> {
    let refuse = |reason: String| {
        Err(Error::Parameter {
            op: "Multigrid::new",
            reason,
            fix: "use Smoother::DampedJacobi or Smoother::RedBlack for this stencil",
        })
    };
    let weight = |o: [isize; N]| taps.iter().filter(|(p, _)| *p == o).map(|(_, w)| w).sum::<f64>();
    for &(o, w) in taps {
        let mirror = weight(o.map(|d| -d));
        if (mirror - w).abs() > 1e-12 * w.abs().max(centre.abs()) {
            return refuse(format!(
                "Chebyshev smoothing needs a symmetric stencil; the tap at {o:?} weighs {w} and its mirror {mirror}"
            ));
        }
    }
    // 16 samples per axis in 3D (17^3 points), more in fewer axes.
    let samples: usize = [64, 64, 32, 16].get(N).copied().unwrap_or(8);
    let (mut lowest, mut highest) = (f64::INFINITY, f64::NEG_INFINITY);
    for flat in 0..(samples + 1).pow(N as u32) {
        let theta: [f64; N] = core::array::from_fn(|k| {
            let j = flat / (samples + 1).pow(k as u32) % (samples + 1);
            core::f64::consts::PI * j as f64 / samples as f64
        });
        let symbol = taps
            .iter()
            .map(|(o, w)| w * o.iter().zip(&theta).map(|(&d, t)| d as f64 * t).sum::<f64>().cos())
            .sum::<f64>()
            / centre;
        lowest = lowest.min(symbol);
        highest = highest.max(symbol);
    }
    if lowest < -1e-12 * highest.abs() || highest <= 0.0 {
        return refuse(format!(
            "Chebyshev smoothing needs D⁻¹ A positive; its symbol ranges over [{lowest}, {highest}]"
        ));
    }
    Ok(highest)
}

impl<T: SolverScalar, const N: usize, B: SolverBackend + StencilKernels> Level<T, N, B> {
    /// `sweeps` sweeps of the level's smoother on `A x = b` (a Chebyshev polynomial of degree
    /// `sweeps`); red-black sweeps take the colours in reverse order when `reverse`
    /// (post-smoothing, so a V-cycle stays symmetric). Leaves `r` and the scratch vector
    /// overwritten.
    ///
    /// # Errors
    ///
    /// The kernels' errors.
    pub(super) fn smooth(&mut self, sweeps: usize, reverse: bool) -> Result<()> {
        if sweeps == 0 {
            return Ok(());
        }
        self.passes += sweeps * self.smoother.passes_per_sweep();
        match &self.smoother {
            LevelSmoother::JacobiSweep { sweep, omega } => {
                let inverse = match self.inverse_diagonal {
                    InverseDiagonal::Constant(inverse) => inverse,
                    InverseDiagonal::Field(_) => unreachable!("a sweep stencil is built for constant taps"),
                };
                for _ in 0..sweeps {
                    // `x`'s halo is refilled before every sweep (the transfers may write the
                    // scratch vector's halo ring).
                    fill_halos(&mut self.exchange, &mut self.x, self.space.halo(), *self.op.boundaries())?;
                    sweep.try_apply(&self.x, &mut self.scratch)?;
                    self.space.axpy(&mut self.scratch, omega * inverse, &self.b)?;
                    core::mem::swap(&mut self.x, &mut self.scratch);
                }
            }
            &LevelSmoother::Jacobi { omega } => {
                for _ in 0..sweeps {
                    exchange_halos(&mut self.exchange, &mut self.x)?;
                    self.op.try_apply(&mut self.x, &mut self.r)?;
                    self.space.xpby(&mut self.r, &self.b, -1.0)?;
                    self.inverse_diagonal.apply(&self.space, &mut self.r, 1.0)?;
                    self.space.axpy(&mut self.x, omega, &self.r)?;
                }
            }
            LevelSmoother::RedBlack { colours } => {
                let order = if reverse { [1, 0] } else { [0, 1] };
                for _ in 0..sweeps {
                    for c in order {
                        exchange_halos(&mut self.exchange, &mut self.x)?;
                        self.op.try_apply(&mut self.x, &mut self.r)?;
                        self.space.xpby(&mut self.r, &self.b, -1.0)?;
                        self.space.multiply(&mut self.r, &colours[c])?;
                        self.space.axpy(&mut self.x, 1.0, &self.r)?;
                    }
                }
            }
            &LevelSmoother::Chebyshev { low, high } => {
                // The Chebyshev iteration (Saad, Iterative Methods, algorithm 12.1) with the
                // preconditioner `D⁻¹`: the direction `d` lives in the scratch vector.
                let (theta, delta) = ((high + low) / 2.0, (high - low) / 2.0);
                let sigma = theta / delta;
                let mut rho = 1.0 / sigma;
                exchange_halos(&mut self.exchange, &mut self.x)?;
                self.op.try_apply(&mut self.x, &mut self.r)?;
                self.space.xpby(&mut self.r, &self.b, -1.0)?;
                self.space.copy(&mut self.scratch, &self.r)?;
                self.inverse_diagonal.apply(&self.space, &mut self.scratch, 1.0 / theta)?;
                self.space.axpy(&mut self.x, 1.0, &self.scratch)?;
                for _ in 1..sweeps {
                    exchange_halos(&mut self.exchange, &mut self.x)?;
                    self.op.try_apply(&mut self.x, &mut self.r)?;
                    self.space.xpby(&mut self.r, &self.b, -1.0)?;
                    let next = 1.0 / (2.0 * sigma - rho);
                    // d = ρ' ρ d + (2 ρ' / δ) D⁻¹ r, built in `r`, which then becomes `d`.
                    self.inverse_diagonal.apply(&self.space, &mut self.r, 2.0 * next / delta)?;
                    self.space.axpy(&mut self.r, next * rho, &self.scratch)?;
                    core::mem::swap(&mut self.r, &mut self.scratch);
                    self.space.axpy(&mut self.x, 1.0, &self.scratch)?;
                    rho = next;
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_laplacians_largest_eigenvalue_of_d_inverse_a_is_two() {
        let five = [([-1, 0], 1.0), ([1, 0], 1.0), ([0, -1], 1.0), ([0, 1], 1.0), ([0, 0], -4.0)];
        assert!((symbol_maximum(&five, -4.0).unwrap() - 2.0).abs() < 1e-12);
        let shifted = [([-1], -1.0), ([0], 3.0), ([1], -1.0)]; // 2 − Δ: symbol (3 − 2 cos θ) / 3
        assert!((symbol_maximum(&shifted, 3.0).unwrap() - 5.0 / 3.0).abs() < 1e-12);
    }

    #[test]
    fn chebyshev_refuses_stencils_it_would_amplify() {
        let upwind = [([-1], 1.0), ([0], -2.0), ([1], 0.5)];
        let e = symbol_maximum(&upwind, -2.0).unwrap_err().to_string();
        assert!(e.contains("symmetric"), "{e}");
        let indefinite = [([-1], 2.0), ([0], 1.0), ([1], 2.0)];
        let e = symbol_maximum(&indefinite, 1.0).unwrap_err().to_string();
        assert!(e.contains("positive"), "{e}");
    }
}
