//! Geometric multigrid for constant-coefficient stencils between zero walls or on periodic axes:
//! vertex-centred coarsening by two (`n → (n − 1) / 2` between walls, so `2^k − 1` points coarsen
//! all the way; `n → n / 2` on a periodic axis, `2^k` points), full-weighting restriction, multilinear prolongation, Galerkin coarse operators
//! (`R A P`, computed exactly from the taps), damped-Jacobi or red-black smoothing, V- and
//! W-cycles, and CG on the coarsest grid. As a solver ([`Multigrid::solve`]) or as CG's
//! preconditioner (one cycle from zero; symmetric when `pre == post`, as by default, so CG
//! converges in a handful of iterations whatever the grid size). On any backend with stencil
//! kernels.

mod galerkin;
mod level;

use std::sync::Mutex;

use self::level::Level;
use super::krylov::Solve;
use super::operator::{LinearOperator, StencilOperator};
use super::options::{SolveOptions, SolveReport};
use super::precond::Preconditioner;
use super::vectors::{SolverBackend, SolverScalar};
use super::Cg;
use crate::array::Array;
use crate::error::{or_panic, Error, Result};
use crate::kernel::tokens::{ScalarRight, Second, Sub};
use crate::kernel::{Allocator, Cpu, StencilKernels};
use crate::ops::elementwise::update;
use crate::stencil::{Boundaries, Boundary, DynStencil, Side};

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
}

/// The cycle between levels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CycleKind {
    /// One coarse-grid visit per level.
    V,
    /// Two (more robust, dearer on the coarse levels).
    W,
}

/// What a [`Multigrid`] hierarchy does: smoother, sweeps, cycle, and where coarsening stops.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MultigridOptions {
    /// The smoother (default [`Smoother::DampedJacobi`]).
    pub smoother: Smoother,
    /// Sweeps before the coarse correction (default 2).
    pub pre: usize,
    /// Sweeps after it (default 2). As CG's preconditioner the cycle must be symmetric: keep
    /// `post == pre`.
    pub post: usize,
    /// V- or W-cycles (default V).
    pub cycle: CycleKind,
    /// Coarsening stops once a level has at most this many points (default 1000) or an axis
    /// cannot halve (an even or one-point axis); that level is solved by CG.
    pub coarsest: usize,
}

impl Default for MultigridOptions {
    fn default() -> Self {
        MultigridOptions { smoother: Smoother::DampedJacobi, pre: 2, post: 2, cycle: CycleKind::V, coarsest: 1000 }
    }
}

/// A multigrid hierarchy for a [`StencilOperator`] on backend `B`.
///
/// ```
/// use cnda::prelude::*;
/// use cnda::solve::{Cg, Multigrid, StencilOperator};
/// use cnda::stencil::{Boundary, LinearStencil};
/// let n = 127; // 2^7 - 1: coarsens to 63, 31, 15, 7
/// let a = StencilOperator::new(LinearStencil::laplacian_5pt(1.0 / 128.0), [n, n], [Boundary::Value(0.0); 2]);
/// let mg = Multigrid::new(&a);
/// let b = Array::<f64, 2>::ones([n, n]);
/// let mut x = Array::zeros([n, n]);
/// let alone = mg.solve(&a, &b, &mut x, cnda::solve::SolveOptions::default().rtol(1e-10));
/// assert!(alone.iterations <= 12, "{alone:?}"); // a tenth of the residual per V(2,2) cycle
/// let mut y = Array::zeros([n, n]);
/// let preconditioned = Cg::new().rtol(1e-10).preconditioner(mg).solve(&a, &b, &mut y);
/// assert!(preconditioned.iterations <= 8, "{preconditioned:?}");
/// ```
pub struct Multigrid<T: SolverScalar, const N: usize, B: SolverBackend = Cpu> {
    levels: Mutex<Vec<Level<T, N, B>>>,
    options: MultigridOptions,
    restriction: DynStencil<T, N>,
    prolongation: DynStencil<T, N>,
}

impl<T: SolverScalar, const N: usize, B: SolverBackend + StencilKernels> core::fmt::Debug for Multigrid<T, N, B> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Multigrid").field("levels", &self.level_shapes()).field("options", &self.options).finish()
    }
}

impl<T: SolverScalar, const N: usize> Multigrid<T, N> {
    /// The hierarchy of `op` on the CPU, with the default options.
    ///
    /// # Panics
    ///
    /// As [`Multigrid::try_new_in`] errs.
    #[track_caller]
    pub fn new(op: &StencilOperator<T, N>) -> Self {
        or_panic(Self::try_new_in(&Cpu, op, MultigridOptions::default()))
    }
}

impl<T: SolverScalar, const N: usize, B: SolverBackend + StencilKernels> Multigrid<T, N, B> {
    /// The hierarchy of `op` with `options`, its vectors from `alloc` (a device's allocator puts
    /// every level on that device).
    ///
    /// # Panics
    ///
    /// As [`Multigrid::try_new_in`] errs.
    #[track_caller]
    pub fn new_in(alloc: &impl Allocator<B>, op: &StencilOperator<T, N>, options: MultigridOptions) -> Self {
        or_panic(Self::try_new_in(alloc, op, options))
    }

    /// [`Multigrid::new_in`], returning errors.
    ///
    /// # Errors
    ///
    /// `Error::Parameter` for a `Neumann` side (not built yet; `Value(0)`, `Fixed` and `Periodic`
    /// are), a stencil that does not reach along every axis or has no centre weight, or a grid
    /// that cannot coarsen once (an even axis between walls, an odd periodic one, or too few
    /// points). With every axis periodic the operator is singular: give a right-hand side of
    /// zero sum (the solution is then defined up to a constant).
    /// `Error::Layout` when a coarse operator has more taps than `DynStencil` takes (64: a 3D
    /// stencil of radius 2 or more); `Error::Alloc`.
    pub fn try_new_in(
        alloc: &impl Allocator<B>,
        op: &StencilOperator<T, N>,
        options: MultigridOptions,
    ) -> Result<Self> {
        const OP: &str = "Multigrid::new";
        let refuse = |reason: String, fix: &'static str| Err(Error::Parameter { op: OP, reason, fix });
        let mut periodic = [false; N];
        for (axis, wraps) in periodic.iter_mut().enumerate() {
            for side in [Side::Low, Side::High] {
                match op.boundaries().at(axis, side) {
                    Boundary::Value(_) | Boundary::Fixed => {}
                    Boundary::Periodic => *wraps = true,
                    other => {
                        return refuse(
                            format!("axis {axis} has a {other:?} boundary"),
                            "multigrid takes zero walls (Value(0), Fixed) and periodic axes today; use CG or \
                             GMRES without it for Neumann sides",
                        );
                    }
                }
            }
        }
        let radius = op.stencil().radius();
        if radius.contains(&0) {
            return refuse(
                format!("the stencil's radius is {radius:?}"),
                "multigrid coarsens every axis: use a stencil that reaches along each",
            );
        }
        let shape = LinearOperator::<T, N, B>::shape(op);
        if !halvable(shape, periodic) {
            return refuse(
                format!(
                    "the grid {shape:?} cannot coarsen: an axis between walls needs an odd number of points \
                     (at least 3), a periodic one an even number (at least 4)"
                ),
                "use 2^k - 1 points between walls (127, 255, ...) and 2^k on periodic axes (128, 256, ...), \
                 which coarsen all the way",
            );
        }
        // The allocator as the backend's own type, which the levels keep (an empty array's).
        let alloc = Array::<T, N, B>::try_zeros_in(alloc, [0; N])?.allocator();
        // `Fixed` halos are zero in the levels' vectors too: every wall is `Value(0)`.
        let sides: [Boundary<T>; N] =
            core::array::from_fn(|k| if periodic[k] { Boundary::Periodic } else { Boundary::Value(T::ZERO) });
        let sides = Boundaries::from(sides);
        let finest = StencilOperator::try_new(op.stencil().clone(), shape, sides)?;
        let mut levels = vec![Level::new(finest, &alloc, options.smoother)?];
        let mut taps: Vec<([isize; N], f64)> = op.stencil().taps().iter().map(|&(o, w)| (o, w.into())).collect();
        let mut shape = shape;
        while halvable(shape, periodic) && shape.iter().product::<usize>() > options.coarsest {
            shape = core::array::from_fn(|k| if periodic[k] { shape[k] / 2 } else { (shape[k] - 1) / 2 });
            taps = galerkin::coarse_operator(&taps);
            let stencil = DynStencil::try_new(taps.iter().map(|&(o, w)| (o, T::from_f64(w))))?;
            levels.push(Level::new(StencilOperator::try_new(stencil, shape, sides)?, &alloc, options.smoother)?);
        }
        let to_t =
            |taps: Vec<([isize; N], f64)>| DynStencil::try_new(taps.into_iter().map(|(o, w)| (o, T::from_f64(w))));
        Ok(Multigrid {
            levels: Mutex::new(levels),
            options,
            restriction: to_t(galerkin::restriction())?,
            prolongation: to_t(galerkin::prolongation())?,
        })
    }

    /// Solves `a x = b` by cycles from the guess in `x`, stopping as the Krylov methods do
    /// ([`SolveOptions`]: `max_iters` counts cycles). `a` must be the operator the hierarchy was
    /// built for.
    ///
    /// # Panics
    ///
    /// As [`Multigrid::try_solve`] errs.
    #[track_caller]
    pub fn solve(
        &self,
        a: &StencilOperator<T, N>,
        b: &Array<T, N, B>,
        x: &mut Array<T, N, B>,
        options: SolveOptions,
    ) -> SolveReport {
        or_panic(self.try_solve(a, b, x, options))
    }

    /// [`Multigrid::solve`], returning errors; `x` holds the last iterate after
    /// `Error::NotConverged`.
    ///
    /// # Errors
    ///
    /// `Error::ShapeMismatch` when `a`, `b` or `x` differs from the hierarchy's finest grid; as
    /// [`Cg::try_solve`](super::Cg::try_solve) otherwise.
    pub fn try_solve(
        &self,
        a: &StencilOperator<T, N>,
        b: &Array<T, N, B>,
        x: &mut Array<T, N, B>,
        options: SolveOptions,
    ) -> Result<SolveReport> {
        self.check_operator(a)?;
        let mut solve = Solve::start("multigrid", &options, a, b, x)?;
        let outcome = if solve.done() { Ok(()) } else { self.iterate(&mut solve, a) };
        solve.finish(x, outcome)
    }

    /// Cycles: `x += cycle(r)`, `r = b − A x`, until the tolerance.
    fn iterate(&self, s: &mut Solve<T, N, B>, a: &StencilOperator<T, N>) -> Result<()> {
        let mut correction = s.space.vector()?;
        loop {
            self.try_apply(&s.r, &mut correction, s.space.halo())?;
            s.space.axpy(&mut s.x, 1.0, &correction)?;
            a.try_apply(&mut s.x, &mut s.r)?;
            s.space.xpby(&mut s.r, &s.b, -1.0)?;
            let norm = s.space.norm(&s.r)?;
            if s.progress.record(norm)? {
                return Ok(());
            }
        }
    }

    /// The shape of each level, finest first.
    pub fn level_shapes(&self) -> Vec<[usize; N]> {
        self.levels.lock().unwrap_or_else(std::sync::PoisonError::into_inner).iter().map(|l| l.space.shape()).collect()
    }

    fn check_operator(&self, a: &StencilOperator<T, N>) -> Result<()> {
        let levels = self.levels.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let finest = levels[0].space.shape();
        let shape = LinearOperator::<T, N, B>::shape(a);
        if shape != finest {
            return Err(Error::ShapeMismatch {
                op: "Multigrid::solve",
                expected: finest.to_vec(),
                got: shape.to_vec(),
            });
        }
        Ok(())
    }

    /// One cycle at level `l` on its `b`, from its `x`.
    fn cycle(&self, levels: &mut [Level<T, N, B>]) -> Result<()> {
        let o = self.options;
        let (fine, coarser) = levels.split_first_mut().expect("a cycle runs on at least one level");
        // The coarsest level is solved, not cycled: a second visit would repeat the solve.
        let visits = match o.cycle {
            CycleKind::W if coarser.len() > 1 => 2,
            _ => 1,
        };
        let Some(coarse) = coarser.first_mut() else {
            return coarsest_solve(fine);
        };
        fine.smooth(o.smoother, o.pre, false)?;
        fine.residual()?;
        fine.restrict_to(coarse, &self.restriction)?;
        for _ in 0..visits {
            self.cycle(coarser)?;
        }
        fine.correct_from(&coarser[0], &self.prolongation)?;
        fine.smooth(o.smoother, o.post, true)
    }
}

/// Whether every axis can halve: odd with at least 3 points between walls (`n → (n − 1) / 2`),
/// even with at least 4 on a periodic axis (`n → n / 2`).
fn halvable<const N: usize>(shape: [usize; N], periodic: [bool; N]) -> bool {
    shape.iter().zip(periodic).all(|(&n, p)| if p { n >= 4 && n % 2 == 0 } else { n >= 3 && n % 2 == 1 })
}

/// `A x = b` on the coarsest level by CG (to rounding, within twice the unknowns' count of
/// iterations; its last iterate otherwise).
fn coarsest_solve<T: SolverScalar, const N: usize, B: SolverBackend + StencilKernels>(
    level: &mut Level<T, N, B>,
) -> Result<()> {
    let shape = level.space.shape();
    let alloc = level.b.allocator();
    let (mut b, mut x) = (Array::try_zeros_in(&alloc, shape)?, Array::try_zeros_in(&alloc, shape)?);
    level.space.store(&mut b, &level.b)?;
    let count: usize = shape.iter().product();
    let singular = (0..N).all(|k| matches!(level.op.boundaries().at(k, Side::Low), Boundary::Periodic));
    if singular {
        // Every axis periodic: constants are the null space. Rounding leaves the restricted
        // residual a little inconsistent, which CG would chase; solve its consistent part.
        remove_mean(&mut b, count)?;
    }
    let rtol = if core::mem::size_of::<T>() == 4 { 1e-6 } else { 1e-12 };
    match Cg::new().rtol(rtol).max_iters(2 * count).try_solve(&level.op, &b, &mut x) {
        Ok(_) | Err(Error::NotConverged { .. }) => {}
        Err(e) => return Err(e),
    }
    if singular {
        remove_mean(&mut x, count)?;
    }
    level.space.load(&mut level.x, &x)
}

/// `v -= mean(v)` (`count` elements).
fn remove_mean<T: SolverScalar, const N: usize, B: SolverBackend>(v: &mut Array<T, N, B>, count: usize) -> Result<()> {
    // SAFETY: `v`'s own elements, live, borrowed uniquely for both calls (read, then updated).
    let sum = unsafe { crate::ops::reduce::reduce(crate::kernel::tokens::Sum, v.desc()) }?.unwrap_or(T::ZERO);
    let mean = T::from_f64(sum.into() / count as f64);
    // SAFETY: as above.
    unsafe { crate::ops::elementwise::update_unary(ScalarRight(Sub, mean), v.desc_mut()) }
}

impl<T: SolverScalar, const N: usize, B: SolverBackend + StencilKernels> Preconditioner<T, N, B>
    for Multigrid<T, N, B>
{
    /// One cycle from zero on `r`: `z ≈ A⁻¹ r`.
    fn try_apply(&self, r: &Array<T, N, B>, z: &mut Array<T, N, B>, halo: [usize; N]) -> Result<()> {
        let mut levels = self.levels.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let finest = &mut levels[0];
        if halo != finest.space.halo() {
            return Err(Error::ShapeMismatch {
                op: "Multigrid (preconditioner)",
                expected: finest.space.halo().to_vec(),
                got: halo.to_vec(),
            });
        }
        let (to, from) = (finest.space.interior(finest.b.desc_mut())?, finest.space.interior(r.desc())?);
        // SAFETY: the finest level's right-hand side (uniquely borrowed through the lock) and
        // the caller's residual, another array; both interiors of the checked padded shape.
        unsafe { update(Second, to, from) }?;
        finest.x.try_fill(T::ZERO)?;
        self.cycle(&mut levels)?;
        let finest = &levels[0];
        let (to, from) = (finest.space.interior(z.desc_mut())?, finest.space.interior(finest.x.desc())?);
        // SAFETY: `z` is uniquely borrowed; the level's iterate is another array; both
        // interiors of the checked padded shape.
        unsafe { update(Second, to, from) }
    }
}
