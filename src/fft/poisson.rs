//! Direct solves of `c u - Δu = f` on boxes (rectangular grids) whose every axis is periodic,
//! between walls or between mirrors: the Laplacian is diagonal in the modes of the real Fourier
//! transform (periodic axes), of the DST-I (walls: the values one spacing past each end, as
//! `Value` and `Fixed` halos hold them) and of the DCT-II (mirrors: zero gradient at the faces
//! half a spacing past each end, as `Neumann` halos mirror), so one transform per axis, a
//! division per mode and the inverse solve it exactly, in `O(n log n)`. The Laplacian is either
//! the second-order finite-difference one (the `2N + 1`-point stencil, as
//! `LinearStencil::laplacian_5pt`/`laplacian_7pt` and the solvers' operators apply it, with a
//! spacing per axis; its discrete equations are solved to rounding) or the exact one (spectral
//! accuracy for smooth solutions).

use super::trig::{self, DctType, Family};
use super::{count, row_major, try_irfftn, try_rfftn, FftFloat, FftKernels, Norm};
use crate::array::Array;
use crate::element::Float;
use crate::error::{or_panic, Error, Result};
use crate::kernel::tokens::{Add, Mul, ScalarRight};
use crate::ops::operand::AsOperand;
use crate::ops::transfer::upload;
use crate::stencil::{Boundaries, Boundary, Side};

/// Which Laplacian [`solve_box`] and [`solve_periodic`] invert.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Laplacian {
    /// The second-order central difference along each axis, `(u[i-1] - 2 u[i] + u[i+1]) / h²`
    /// summed over the axes, the points past the ends read as the boundary conditions fill
    /// them: the mode of `θ` radians per point has the eigenvalue `4 sin²(θ / 2) / h²`. The
    /// solution satisfies the finite-difference equations to rounding.
    #[default]
    SecondOrder,
    /// The derivative itself: eigenvalue `(θ / h)²` (the solution of the continuous equation for
    /// a right-hand side in the span of the modes: band-limited on periodic axes, a sine series
    /// between zero walls, a cosine series between mirrors).
    Spectral,
}

/// The `u` with `shift u - Δu = f` on a box of `f`'s shape, `spacing[a]` apart along axis `a`,
/// with `boundaries` (one per axis, or per side as the steppers take them; both sides of an axis
/// of one kind):
///
/// - `Periodic`: the axis wraps around (a real Fourier transform);
/// - walls, `Value(g)` (or `Fixed`, a wall of zeros, as the solvers' operators read it): `u` is
///   `g` one spacing past the end, vertex-centred Dirichlet (a DST-I; the walls' values move to
///   the right-hand side, so only [`Laplacian::SecondOrder`] takes non-zero ones);
/// - `Neumann`: zero gradient at the face half a spacing past the end, cell-centred (a DCT-II).
///
/// The same operator as a [`StencilOperator`](crate::solve::StencilOperator) of the
/// `2N + 1`-point Laplacian with these boundaries (and `shift` on the diagonal), solved directly
/// instead of iteratively. With `shift = 0` and no wall (Poisson, periodic or mirrored) the
/// constant is free and `f` must average zero for a solution to exist: the solve takes `f`'s
/// consistent part (its mean removed, as the multigrid solvers do) and returns the `u` of mean
/// zero. Any layout of `f`; the result is row-major, on `f`'s backend (the CPU, CUDA or WebGPU:
/// the wall values lifted and the divisors applied there, the divisors computed on the host).
///
/// ```
/// use cnda::prelude::*;
/// use cnda::fft::{solve_box, Laplacian};
/// use cnda::stencil::Boundary;
///
/// // -Δu = 1 on the unit square's 31 x 31 inner points, u = 0 on its edge: walls on both axes.
/// let (n, h) = (31, 1.0 / 32.0);
/// let f = Array::<f64, 2>::ones([n, n]);
/// let u = solve_box(&f, [h, h], 0.0, [Boundary::Value(0.0); 2], Laplacian::SecondOrder);
/// assert!((u[[15, 15]] - 0.0737).abs() < 1e-3); // the centre of the square's solution
///
/// // Mixed: periodic along x, a zero-flux box along y.
/// let g = Array::from_fn([32, 16], |[i, _]| (i as f64 / 32.0 * std::f64::consts::TAU).sin());
/// let v = solve_box(&g, [1.0 / 32.0, 1.0 / 16.0], 1.0, [Boundary::Periodic, Boundary::Neumann], Laplacian::SecondOrder);
/// assert_eq!(v.shape(), [32, 16]);
/// ```
///
/// # Panics
///
/// As [`try_solve_box`] errs.
#[track_caller]
pub fn solve_box<T: FftFloat, const N: usize, B: FftKernels>(
    f: impl AsOperand<T, N, B>,
    spacing: [T; N],
    shift: T,
    boundaries: impl Into<Boundaries<T, N>>,
    laplacian: Laplacian,
) -> Array<T, N, B> {
    or_panic(try_solve_box(f, spacing, shift, boundaries, laplacian))
}

/// [`solve_box`], returning errors.
///
/// # Errors
///
/// `Error::Parameter` for a rank-0 grid, a spacing that is not positive and finite, a shift or
/// wall value that is not finite, an axis whose two sides differ in kind (periodic, wall,
/// mirror), a non-zero wall value with [`Laplacian::Spectral`], or a shift that makes the
/// operator singular (`shift` equal to minus an eigenvalue of the Laplacian within rounding, a
/// resonance of the Helmholtz equation); the transforms' errors (an axis of length zero,
/// `Error::Alloc`).
pub fn try_solve_box<T: FftFloat, const N: usize, B: FftKernels>(
    f: impl AsOperand<T, N, B>,
    spacing: [T; N],
    shift: T,
    boundaries: impl Into<Boundaries<T, N>>,
    laplacian: Laplacian,
) -> Result<Array<T, N, B>> {
    solve("solve_box", f, spacing, shift, boundaries.into(), laplacian)
}

/// The `u` with `shift u - Δu = f` on a grid periodic along every axis: [`solve_box`] with
/// `Boundary::Periodic` on each, on any backend with transforms (the CPU, CUDA, WebGPU): a real
/// transform, each mode times its divisor's reciprocal (computed on the host and uploaded), the
/// inverse, all on `f`'s backend.
///
/// ```
/// use cnda::prelude::*;
/// use cnda::fft::{solve_periodic, Laplacian};
/// use std::f64::consts::PI;
///
/// // -Δu = f for u = sin(2 π x) cos(4 π y) on the unit square, 32 x 32 points.
/// let h = 1.0 / 32.0;
/// let u = Array::from_fn([32, 32], |[i, j]| (2.0 * PI * i as f64 * h).sin() * (4.0 * PI * j as f64 * h).cos());
/// let f = u.map(|x| 20.0 * PI * PI * x);
/// let solved = solve_periodic(&f, [h, h], 0.0, Laplacian::Spectral);
/// assert!((solved[[5, 7]] - u[[5, 7]]).abs() < 1e-12);
/// ```
///
/// # Panics
///
/// As [`try_solve_periodic`] errs.
#[track_caller]
pub fn solve_periodic<T: FftFloat, const N: usize, B: FftKernels>(
    f: impl AsOperand<T, N, B>,
    spacing: [T; N],
    shift: T,
    laplacian: Laplacian,
) -> Array<T, N, B> {
    or_panic(try_solve_periodic(f, spacing, shift, laplacian))
}

/// [`solve_periodic`], returning errors.
///
/// # Errors
///
/// As [`try_solve_box`].
pub fn try_solve_periodic<T: FftFloat, const N: usize, B: FftKernels>(
    f: impl AsOperand<T, N, B>,
    spacing: [T; N],
    shift: T,
    laplacian: Laplacian,
) -> Result<Array<T, N, B>> {
    let op = "solve_periodic";
    let sides = check_sides(op, &[Boundary::Periodic; N].into(), spacing, shift, laplacian)?;
    let shape = f.operand_desc().shape;
    has_points(op, shape)?;
    let axes: Vec<usize> = (0..N).collect();
    let divisors = Divisors::new(op, &sides, shape, spacing, shift, laplacian, Some(N - 1))?;
    divided_in_fourier(op, f, &axes, shape, &divisors)
}

/// The checks of a solve of `shape` and each axis's kind, with the divisors of every mode of a
/// transform that keeps every axis whole (the Hartley transform on periodic axes): what a
/// distributed solve computes per process from the same arguments.
#[cfg(feature = "mpi")]
pub(super) fn box_modes<T: FftFloat, const N: usize>(
    op: &'static str,
    boundaries: &Boundaries<T, N>,
    shape: [usize; N],
    spacing: [T; N],
    shift: T,
    laplacian: Laplacian,
) -> Result<([Sides<T>; N], Divisors<T, N>)> {
    let sides = check_sides(op, boundaries, spacing, shift, laplacian)?;
    has_points(op, shape)?;
    let divisors = Divisors::new(op, &sides, shape, spacing, shift, laplacian, None)?;
    Ok((sides, divisors))
}

/// `Error::Parameter` for an axis of no points.
fn has_points<const N: usize>(op: &'static str, shape: [usize; N]) -> Result<()> {
    match shape.iter().position(|&n| n == 0) {
        Some(axis) => Err(Error::Parameter {
            op,
            reason: format!("axis {axis} of shape {shape:?} has no points"),
            fix: "solve on a grid of one point or more along every axis",
        }),
        None => Ok(()),
    }
}

/// The kind of an axis's two sides, and so its transform.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Sides<T> {
    /// The real Fourier transform.
    Periodic,
    /// The DST-I, with the values one spacing past the low and the high end.
    Walls(T, T),
    /// The DCT-II.
    Mirrors,
}

impl<T> Sides<T> {
    /// The sine or cosine transform of a wall or mirror axis.
    pub(super) fn trig(&self) -> Option<(Family, DctType)> {
        match self {
            Sides::Periodic => None,
            Sides::Walls(..) => Some((Family::Sine, DctType::I)),
            Sides::Mirrors => Some((Family::Cosine, DctType::II)),
        }
    }
}

fn solve<T: FftFloat, const N: usize, B: FftKernels>(
    op: &'static str,
    f: impl AsOperand<T, N, B>,
    spacing: [T; N],
    shift: T,
    boundaries: Boundaries<T, N>,
    laplacian: Laplacian,
) -> Result<Array<T, N, B>> {
    let sides = check_sides(op, &boundaries, spacing, shift, laplacian)?;
    let shape = f.operand_desc().shape;
    has_points(op, shape)?;
    let periodic: Vec<usize> = (0..N).filter(|&a| sides[a] == Sides::Periodic).collect();
    let divisors = Divisors::new(op, &sides, shape, spacing, shift, laplacian, periodic.last().copied())?;
    if periodic.len() == N {
        // Only Fourier modes: from `f` where it lies.
        return divided_in_fourier(op, f, &periodic, shape, &divisors);
    }
    let mut u = row_major(op, f.operand_desc())?;
    for (axis, side) in sides.iter().enumerate() {
        if let &Sides::Walls(low, high) = side {
            // The points next to a wall read its value: it moves to the right-hand side.
            let h = spacing[axis];
            add_to_ends(&mut u, axis, low / h / h, high / h / h)?;
        }
    }
    for (axis, kind) in sides.iter().enumerate().filter_map(|(a, s)| s.trig().map(|k| (a, k))) {
        trig::in_place(op, &mut u, axis, kind, Norm::Backward, false)?;
    }
    u = if periodic.is_empty() {
        multiplied(&mut u, &divisors.factors(op, shape)?)?;
        u
    } else {
        divided_in_fourier(op, &u, &periodic, shape, &divisors)?
    };
    for (axis, kind) in sides.iter().enumerate().filter_map(|(a, s)| s.trig().map(|k| (a, k))) {
        trig::in_place(op, &mut u, axis, kind, Norm::Backward, true)?;
    }
    Ok(u)
}

/// Below infinity in magnitude (NaN compares false).
fn finite<T: FftFloat>(x: T) -> bool {
    x.abs() < T::LARGEST
}

/// Each axis's kind, after checking the rank, the spacings, the shift, that each axis's two sides
/// agree and that the Laplacian takes them.
pub(super) fn check_sides<T: FftFloat, const N: usize>(
    op: &'static str,
    boundaries: &Boundaries<T, N>,
    spacing: [T; N],
    shift: T,
    laplacian: Laplacian,
) -> Result<[Sides<T>; N]> {
    let refuse = |reason: String, fix: &'static str| Err(Error::Parameter { op, reason, fix });
    if N == 0 {
        return refuse("a rank-0 grid has no axis to transform".into(), "solve on a grid of rank 1 or more");
    }
    if let Some(axis) = (0..N).find(|&a| !(finite(spacing[a]) && spacing[a] > T::ZERO)) {
        return refuse(
            format!("a spacing of {} along axis {axis}, which is not positive and finite", spacing[axis]),
            "give each axis's grid spacing, positive and finite",
        );
    }
    if !finite(shift) {
        return refuse(format!("a shift of {shift}"), "give a finite shift c of `c u - Δu = f` (0 for Poisson)");
    }
    let mut sides = [Sides::Periodic; N];
    for (axis, kind) in sides.iter_mut().enumerate() {
        let (low, high) = (boundaries.at(axis, Side::Low), boundaries.at(axis, Side::High));
        let wall = |b: Boundary<T>| match b {
            Boundary::Fixed => Some(T::ZERO),
            Boundary::Value(g) => Some(g),
            _ => None,
        };
        *kind =
            match (low, high) {
                (Boundary::Periodic, Boundary::Periodic) => Sides::Periodic,
                (Boundary::Neumann, Boundary::Neumann) => Sides::Mirrors,
                _ => match (wall(low), wall(high)) {
                    (Some(g0), Some(g1)) => Sides::Walls(g0, g1),
                    _ => return Err(Error::Parameter {
                        op,
                        reason: format!(
                            "axis {axis} has {low:?} below and {high:?} above; a transform needs one kind on both sides"
                        ),
                        fix: "give both sides of an axis one kind: `Periodic`, walls (`Value`, `Fixed`) or `Neumann`; \
                              mixed sides need an iterative solve (`solve::Multigrid` with a `StencilOperator`)",
                    }),
                },
            };
        if let Sides::Walls(g0, g1) = *kind {
            if !(finite(g0) && finite(g1)) {
                return Err(Error::Parameter {
                    op,
                    reason: format!("axis {axis} has walls of values {g0} and {g1}, not both finite"),
                    fix: "give finite wall values",
                });
            }
            if laplacian == Laplacian::Spectral && (g0 != T::ZERO || g1 != T::ZERO) {
                return Err(Error::Parameter {
                    op,
                    reason: format!("axis {axis} has walls of values {g0} and {g1}, and the spectral Laplacian's sine series vanishes at walls"),
                    fix: "subtract a smooth function with the wall values and solve for the rest with zero walls, \
                          or use `Laplacian::SecondOrder`",
                });
            }
        }
    }
    Ok(sides)
}

/// `low` added to every point of the first hyperplane along `axis` of the row-major `u`, and
/// `high` to the last's, on `u`'s backend.
fn add_to_ends<T: FftFloat, const N: usize, B: FftKernels>(
    u: &mut Array<T, N, B>,
    axis: usize,
    low: T,
    high: T,
) -> Result<()> {
    let n = u.shape()[axis];
    let d = u.desc_mut();
    let dev = B::handle_device(d.handle);
    for (k, g) in [(0, low), (n - 1, high)] {
        let mut plane = d;
        plane.handle = B::moved(d.handle, k as isize * d.strides[axis]);
        plane.shape[axis] = 1;
        // SAFETY: one hyperplane of `u`, borrowed uniquely.
        unsafe { B::update_unary(&dev, ScalarRight(Add, g), plane) }?;
    }
    Ok(())
}

/// Every point of the row-major `u` times its factor (`factors` in `u`'s order), on `u`'s
/// backend.
fn multiplied<T: FftFloat, const N: usize, B: FftKernels>(u: &mut Array<T, N, B>, factors: &[T]) -> Result<()> {
    let d = u.desc_mut();
    let factors = upload(&B::allocator_of_handle(d.handle), factors, d.shape)?;
    // SAFETY: `u`, borrowed uniquely, and the fresh factors, of one shape.
    unsafe { B::update(&B::handle_device(d.handle), Mul, d, factors.desc()) }
}

/// `f`'s transform over the periodic `axes` (the others already transformed or none), divided
/// mode by mode on `f`'s backend (by the divisors' reciprocals, computed on the host), and
/// transformed back.
fn divided_in_fourier<T: FftFloat, const N: usize, B: FftKernels>(
    op: &'static str,
    f: impl AsOperand<T, N, B>,
    axes: &[usize],
    shape: [usize; N],
    divisors: &Divisors<T, N>,
) -> Result<Array<T, N, B>> {
    let mut spectrum = try_rfftn(f, axes, Norm::Backward)?;
    let half = spectrum.shape();
    let factors = divisors.factors(op, half)?;
    let spectrum_desc = spectrum.desc_mut();
    let factors = upload(&B::allocator_of_handle(spectrum_desc.handle), &factors, half)?;
    // SAFETY: both are dense row-major arrays of the half shape, alive here and apart (the
    // factors are a fresh array); the spectrum is borrowed uniquely.
    unsafe { B::scale_modes(&B::handle_device(spectrum_desc.handle), spectrum_desc, factors.desc()) }?;
    try_irfftn(&spectrum, axes, shape[axes[axes.len() - 1]], Norm::Backward)
}

/// What each mode is divided by: `shift` plus the sum of its axes' eigenvalues of `-Δ`.
pub(super) struct Divisors<T, const N: usize> {
    /// Per axis, by mode index as the transformed array stores them.
    eigen: Vec<Vec<T>>,
    shift: T,
    /// Whether the all-zero mode is free (set to zero).
    null: bool,
    /// Sixteen units of rounding of `T`: a divisor within this fraction of the sizes it sums is
    /// rounding, so the mode would be multiplied by ~1/eps and the shift is taken as a resonance.
    rounding: T,
}

impl<T: FftFloat, const N: usize> Divisors<T, N> {
    /// The eigenvalues of every axis, after checking that each mode's (other than a constant's)
    /// is a normal number: a spacing so small that `1/h²` overflows, or so large that it
    /// underflows, would otherwise make modes look singular or vanish.
    fn new(
        op: &'static str,
        sides: &[Sides<T>; N],
        shape: [usize; N],
        spacing: [T; N],
        shift: T,
        laplacian: Laplacian,
        half_axis: Option<usize>,
    ) -> Result<Self> {
        // Poisson without a wall: the constant mode is free.
        let null = shift == T::ZERO && !sides.iter().any(|s| matches!(s, Sides::Walls(..)));
        let single = size_of::<T>() == 4;
        let epsilon = <T as Float>::from_f64(if single { f32::EPSILON as f64 } else { f64::EPSILON });
        let smallest = <T as Float>::from_f64(if single { f32::MIN_POSITIVE as f64 } else { f64::MIN_POSITIVE });
        let mut eigen = Vec::with_capacity(N);
        for a in 0..N {
            let (n, h) = (shape[a], spacing[a]);
            let stored = if half_axis == Some(a) { n / 2 + 1 } else { n };
            let mut values = Vec::with_capacity(stored);
            for k in 0..stored {
                let theta = radians(sides[a], k, n);
                let value = eigenvalue(laplacian, theta, h);
                if theta != T::ZERO && !(finite(value) && value >= smallest) {
                    return Err(Error::Parameter {
                        op,
                        reason: format!(
                            "a spacing of {h} along axis {a} puts the Laplacian's eigenvalue {value} out of the range of the element type"
                        ),
                        fix: "solve in scaled units: with the spacing s times larger, divide the shift by s² and multiply f \
                              (and the wall values) by s²",
                    });
                }
                values.push(value);
            }
            eigen.push(values);
        }
        let largest = eigen.iter().map(|e| e.iter().fold(T::ZERO, |m, &x| if x > m { x } else { m }));
        let size = largest.fold(shift.abs(), |s, m| s + m);
        if !finite(size) {
            return Err(Error::Parameter {
                op,
                reason: format!(
                    "the shift {shift} plus the Laplacian's largest eigenvalues overflows the element type"
                ),
                fix: "solve in scaled units: with the spacing s times larger, divide the shift by s² and multiply f \
                      (and the wall values) by s²",
            });
        }
        Ok(Divisors { eigen, shift, null, rounding: <T as Float>::from_f64(16.0) * epsilon })
    }

    /// What each mode of `shape` (row-major) is multiplied by: its divisor's reciprocal, zero
    /// for the free constant.
    fn factors(&self, op: &'static str, shape: [usize; N]) -> Result<Vec<T>> {
        self.block_factors(op, [0; N], shape)
    }

    /// [`factors`](Self::factors) of the block of `shape` modes from mode `origin` (a process's
    /// share of a distributed grid's modes).
    pub(super) fn block_factors(&self, op: &'static str, origin: [usize; N], shape: [usize; N]) -> Result<Vec<T>> {
        let len = shape.iter().product::<usize>();
        let mut factors = crate::kernel::try_zeroed_vec(op, len)?;
        let mut index = [0usize; N];
        for factor in factors.iter_mut() {
            let mode: [usize; N] = core::array::from_fn(|a| origin[a] + index[a]);
            if let Some(lambda) = self.divisor(op, mode)? {
                *factor = T::ONE / lambda;
            }
            next_index(&mut index, shape);
        }
        Ok(factors)
    }

    /// What mode `index` is divided by, `None` for the free constant; an error where the shift
    /// cancels the Laplacian.
    fn divisor(&self, op: &'static str, index: [usize; N]) -> Result<Option<T>> {
        if self.null && index.iter().all(|&k| k == 0) {
            // The free constant: the solution of mean zero, `f`'s mean dropped.
            return Ok(None);
        }
        let laplacian = (0..N).fold(T::ZERO, |sum, a| sum + self.eigen[a][index[a]]);
        let lambda = self.shift + laplacian;
        // Rounding relative to this mode's own terms: one grid-wide bound (from the largest
        // eigenvalues) took the smallest modes of large f32 grids as singular.
        if lambda.abs() <= self.rounding * (self.shift.abs() + laplacian) {
            return Err(Error::Parameter {
                op,
                reason: format!(
                    "the operator is singular: the shift {} cancels the Laplacian at mode {index:?}",
                    self.shift
                ),
                fix: "pick a shift that is not minus an eigenvalue of the Laplacian (a resonance of the Helmholtz equation)",
            });
        }
        Ok(Some(lambda))
    }
}

/// The next index of `shape` in row-major order (all zeros after the last).
fn next_index<const N: usize>(index: &mut [usize; N], shape: [usize; N]) {
    for a in (0..N).rev() {
        index[a] += 1;
        if index[a] < shape[a] {
            return;
        }
        index[a] = 0;
    }
}

/// Checks, without a right-hand side, what a solve of `shape` would check of its modes: the
/// spacings' eigenvalues in range and no mode singular (a resonant shift).
pub(super) fn check_modes<T: FftFloat, const N: usize>(
    op: &'static str,
    sides: &[Sides<T>; N],
    shape: [usize; N],
    spacing: [T; N],
    shift: T,
    laplacian: Laplacian,
) -> Result<()> {
    let divisors = Divisors::new(op, sides, shape, spacing, shift, laplacian, None)?;
    let mut index = [0usize; N];
    for _ in 0..shape.iter().product::<usize>() {
        divisors.divisor(op, index)?;
        next_index(&mut index, shape);
    }
    Ok(())
}

/// The frequency, in radians per point, of mode `k` of an axis of `n` points: signed on periodic
/// axes (`2 π k / n`, `k - n` past the middle), `π (k + 1) / (n + 1)` between walls (the DST-I's
/// sines), `π k / n` between mirrors (the DCT-II's cosines).
fn radians<T: FftFloat>(sides: Sides<T>, k: usize, n: usize) -> T {
    let pi = <T as Float>::from_f64(core::f64::consts::PI);
    match sides {
        Sides::Periodic => {
            let signed = if k <= n / 2 { count::<T>(k) } else { -count::<T>(n - k) };
            count::<T>(2) * pi * signed / count::<T>(n)
        }
        Sides::Walls(..) => pi * count::<T>(k + 1) / count::<T>(n + 1),
        Sides::Mirrors => pi * count::<T>(k) / count::<T>(n),
    }
}

/// The eigenvalue of `-d²/dx²` for the mode of `theta` radians per point, `h` apart.
fn eigenvalue<T: FftFloat>(laplacian: Laplacian, theta: T, h: T) -> T {
    // Squared last, so that no tiny or huge h squares out of range.
    let w = match laplacian {
        Laplacian::SecondOrder => count::<T>(2) * (theta / count::<T>(2)).sin() / h,
        Laplacian::Spectral => theta / h,
    };
    w * w
}
