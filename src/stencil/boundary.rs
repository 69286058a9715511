//! Boundary conditions of the time steppers, per axis and side: keep fixed values, wrap around,
//! hold a value, or mirror (zero gradient). Applied to the halo (the radius-wide band at each end
//! of each axis) before each sweep by the halo fills of `halo.rs`, so on every backend.

use super::halo::{fill_side, Side};
use super::pad::PadMode;
use crate::element::Pod;
use crate::error::{or_panic, Error, Result};
use crate::kernel::{CopyKernels, Desc};
use crate::ops::operand::AsOperandMut;

/// The boundary condition of one side of one axis of a field swept by the time steppers
/// (`apply_steps_with`). The halo is the `R` points at that end (`R` the stencil's radius along
/// the axis); sweeps write only the interior, and the halo is refilled before each sweep.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub enum Boundary<T> {
    /// The halo holds boundary values no sweep writes (Dirichlet): each field keeps what it had.
    #[default]
    Fixed,
    /// The axis wraps around: the halo holds the periodic images of the interior, as
    /// [`fill_halo`](super::fill_halo) with [`PadMode::Periodic`] would refresh it. Both sides of
    /// an axis are periodic or neither is.
    Periodic,
    /// The halo holds this value (Dirichlet through the halo), in both fields.
    Value(T),
    /// Zero gradient (Neumann): the halo mirrors the interior about the face between them, the
    /// edge value repeated ([`PadMode::Symmetric`], NumPy's `"symmetric"`), for any radius.
    Neumann,
}

impl<T: Copy> Boundary<T> {
    /// Where position `p` of an axis of `n` points reads from when this condition fills the
    /// halo there (`p` outside `0..n`): an interior index, or `None` for a halo of constants
    /// (`Value`, and `Fixed`, which keeps what the halo holds). The halo fills and the matrices
    /// assembled from stencils (`crate::sparse`) share it.
    pub(crate) fn source(self, p: isize, n: usize) -> Option<usize> {
        self.mode().and_then(|mode| super::pad::source(p, n, &mode))
    }

    /// The halo fill of this condition; `None` for [`Boundary::Fixed`], which fills nothing.
    fn mode(self) -> Option<PadMode<T>> {
        match self {
            Boundary::Fixed => None,
            Boundary::Periodic => Some(PadMode::Periodic),
            Boundary::Value(x) => Some(PadMode::Constant(x)),
            Boundary::Neumann => Some(PadMode::Symmetric),
        }
    }
}

/// The boundary conditions of every side of every axis of an `N`-dimensional field. From one
/// condition per axis (`[Boundary::Periodic, Boundary::Neumann]`: both sides alike) or one per
/// side (`[[low, high]; N]`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Boundaries<T, const N: usize> {
    sides: [[Boundary<T>; 2]; N],
}

impl<T: Copy, const N: usize> Boundaries<T, N> {
    /// `boundary` on every side of every axis.
    pub fn all(boundary: Boundary<T>) -> Self {
        Boundaries { sides: [[boundary; 2]; N] }
    }

    /// These conditions with `boundary` at `side` of `axis`.
    ///
    /// # Panics
    ///
    /// When `axis >= N`.
    pub fn with(mut self, axis: usize, side: Side, boundary: Boundary<T>) -> Self {
        self.sides[axis][side as usize] = boundary;
        self
    }

    /// The condition at `side` of `axis`.
    ///
    /// # Panics
    ///
    /// When `axis >= N`.
    pub fn at(&self, axis: usize, side: Side) -> Boundary<T> {
        self.sides[axis][side as usize]
    }

    /// Whether every halo is constant over the sweeps (`Fixed` or `Value` on every side).
    pub(super) fn constant(&self) -> bool {
        self.sides.iter().flatten().all(|b| matches!(b, Boundary::Fixed | Boundary::Value(_)))
    }

    /// Whether `side` of `axis` mirrors the interior.
    pub(super) fn mirrors(&self, axis: usize, side: Side) -> bool {
        matches!(self.at(axis, side), Boundary::Neumann)
    }

    /// Whether axis `axis` wraps around.
    pub(super) fn periodic(&self, axis: usize) -> bool {
        matches!(self.sides[axis][0], Boundary::Periodic)
    }

    /// Checks that periodic axes are periodic on both sides.
    ///
    /// # Errors
    ///
    /// `Error::Layout` naming the axis.
    pub(crate) fn check(&self, op: &'static str) -> Result<()> {
        for (axis, [low, high]) in self.sides.iter().enumerate() {
            if matches!(low, Boundary::Periodic) != matches!(high, Boundary::Periodic) {
                return Err(Error::Layout {
                    op,
                    reason: format!("axis {axis} is periodic on one side only"),
                    fix: "make both sides of a periodic axis `Boundary::Periodic`",
                });
            }
        }
        Ok(())
    }
}

impl<T: Copy, const N: usize> From<[Boundary<T>; N]> for Boundaries<T, N> {
    fn from(per_axis: [Boundary<T>; N]) -> Self {
        Boundaries { sides: per_axis.map(|b| [b; 2]) }
    }
}

impl<T: Copy, const N: usize> From<[[Boundary<T>; 2]; N]> for Boundaries<T, N> {
    fn from(sides: [[Boundary<T>; 2]; N]) -> Self {
        Boundaries { sides }
    }
}

/// A [`Boundaries`] for each of the `M` evolving fields of a system's time steps (one field
/// wrapping around while another is held at a value, say); one `Boundaries` for every field alike
/// is simpler to give as itself ([`StepBoundaries`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FieldBoundaries<T, const N: usize, const M: usize>(pub [Boundaries<T, N>; M]);

/// The boundaries of the time steps of a [`State`](super::State) of `M` fields: anything that
/// converts into one [`Boundaries`] (`[Boundary::Periodic; 2]`, `[[low, high]; N]`, ...), for
/// every field alike, or a [`FieldBoundaries`], one per field. The fields must agree on which axes
/// are periodic (the fused wavefront walks them together).
pub trait StepBoundaries<T, const N: usize, const M: usize> {
    /// One `Boundaries` per field.
    fn per_field(self) -> [Boundaries<T, N>; M];

    /// One `Boundaries` per field, and the sources and receivers of a
    /// [`PointIo`](super::PointIo) (none for plain boundaries).
    #[doc(hidden)]
    fn into_parts<'s>(self) -> ([Boundaries<T, N>; M], Option<super::point_io::StepPoints<'s, T, N>>)
    where
        Self: Sized + 's,
        T: Pod,
    {
        (self.per_field(), None)
    }
}

impl<T: Copy, const N: usize, const M: usize, X: Into<Boundaries<T, N>>> StepBoundaries<T, N, M> for X {
    fn per_field(self) -> [Boundaries<T, N>; M] {
        [self.into(); M]
    }
}

impl<T: Copy, const N: usize, const M: usize> StepBoundaries<T, N, M> for FieldBoundaries<T, N, M> {
    fn per_field(self) -> [Boundaries<T, N>; M] {
        self.0
    }
}

/// Which conditions a fill covers.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Which {
    /// Every condition but `Fixed`.
    All,
    /// The conditions whose halo follows the interior (`Periodic`, `Neumann`), not the constant
    /// `Value` halos, which never change once filled.
    Following,
}

impl<T: Pod, const N: usize> Boundaries<T, N> {
    /// Fills the halo at `side` of `axis` of `d` (width `width`) if its condition is in `which`.
    ///
    /// # Safety
    ///
    /// `d` addresses live, writable memory on `dev`, accessed by nothing else during the call;
    /// the axis has a non-empty interior inside halos of `width`.
    ///
    /// # Errors
    ///
    /// `Error::Device` from a kernel.
    pub(crate) unsafe fn fill<B: CopyKernels>(
        &self,
        dev: &B::Device,
        d: Desc<B, T, N>,
        axis: usize,
        side: Side,
        width: usize,
        which: Which,
    ) -> Result<()> {
        let boundary = self.at(axis, side);
        if which == Which::Following && matches!(boundary, Boundary::Value(_)) {
            return Ok(());
        }
        match boundary.mode() {
            // SAFETY: the caller's contract.
            Some(mode) => unsafe { fill_side(dev, d, axis, width, side, &mode) },
            None => Ok(()),
        }
    }

    /// Whether a side of one of `axes` has a halo that follows the interior (`Periodic`,
    /// `Neumann`: what a [`Which::Following`] fill refreshes), so that a fill has work to do.
    pub(crate) fn follows(&self, axes: core::ops::Range<usize>) -> bool {
        self.sides[axes].iter().flatten().any(|b| matches!(b, Boundary::Periodic | Boundary::Neumann))
    }

    /// Fills the halos of the axes `axes` of `d`, in axis order, both sides (as
    /// [`fill_halo`](super::fill_halo) does, so corners agree with it).
    ///
    /// # Safety
    ///
    /// As for [`Boundaries::fill`], for every axis in `axes` with its width `radius[axis]`.
    ///
    /// # Errors
    ///
    /// `Error::Device` from a kernel.
    pub(super) unsafe fn fill_axes<B: CopyKernels>(
        &self,
        dev: &B::Device,
        d: Desc<B, T, N>,
        axes: core::ops::Range<usize>,
        radius: &[usize; N],
        which: Which,
    ) -> Result<()> {
        for axis in axes {
            for side in [Side::Low, Side::High] {
                // SAFETY: the caller's contract.
                unsafe { self.fill(dev, d, axis, side, radius[axis], which) }?;
            }
        }
        Ok(())
    }
}

/// Fills the halos of a padded field (width `widths[k]` at both ends of axis `k`) as
/// `boundaries` say, axis by axis as [`fill_halo`](super::fill_halo) orders them: what the time
/// steppers do before each sweep, for a field they do not step (a coefficient field read at
/// offsets reaching into its halo). `Fixed` sides are left alone. Any backend.
///
/// ```
/// use cnda::prelude::*;
/// use cnda::stencil::{fill_boundaries, Boundary};
/// let mut k = Array::from_fn([4, 5], |[i, j]| (10 * i + j) as f64);
/// fill_boundaries(&mut k, [1, 1], [Boundary::Neumann, Boundary::Periodic]);
/// assert_eq!(k[[0, 2]], k[[1, 2]]); // mirrored across the low face of axis 0
/// assert_eq!(k[[2, 0]], k[[2, 3]]); // the periodic image along axis 1
/// ```
///
/// # Panics
///
/// As [`try_fill_boundaries`] errs.
#[track_caller]
pub fn fill_boundaries<T: Pod, const N: usize, B: CopyKernels>(
    padded: impl AsOperandMut<T, N, B>,
    widths: [usize; N],
    boundaries: impl Into<Boundaries<T, N>>,
) {
    or_panic(try_fill_boundaries(padded, widths, boundaries))
}

/// [`fill_boundaries`], returning errors.
///
/// # Errors
///
/// `Error::Range` when an axis is not longer than twice its width (no interior);
/// `Error::Layout` for an axis periodic on one side only; `Error::Device` from a kernel.
pub fn try_fill_boundaries<T: Pod, const N: usize, B: CopyKernels>(
    mut padded: impl AsOperandMut<T, N, B>,
    widths: [usize; N],
    boundaries: impl Into<Boundaries<T, N>>,
) -> Result<()> {
    let (d, boundaries) = (padded.operand_desc_mut(), boundaries.into());
    boundaries.check("fill_boundaries")?;
    for (k, (&width, &n)) in widths.iter().zip(&d.shape).enumerate() {
        if width.checked_mul(2).is_none_or(|both| n <= both) {
            return Err(Error::Range {
                op: "fill_boundaries",
                axis: k,
                start: isize::try_from(width).unwrap_or(isize::MAX),
                end: (n as i128 - width as i128).clamp(isize::MIN as i128, isize::MAX as i128) as isize,
                size: n,
            });
        }
    }
    // SAFETY: the uniquely borrowed operand's descriptor, live for the call; every axis has a
    // non-empty interior inside its halo (checked above).
    unsafe { boundaries.fill_axes(&B::handle_device(d.handle), d, 0..N, &widths, Which::All) }
}
