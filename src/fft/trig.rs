//! Real-to-real trigonometric transforms: the discrete cosine and sine transforms of types I to
//! IV with SciPy's definitions, names and `norm` modes ([`dct`], [`idct`], [`dst`], [`idst`]
//! along one axis; [`dctn`], [`idctn`], [`dstn`], [`idstn`] along several), through rustdct on
//! the lanes of any axis on the CPU, and on CUDA and WebGPU through the Fourier transforms
//! (`trig_fft.rs`). They diagonalize the
//! finite-difference Laplacian between walls (DST-I) and mirrors (DCT-II), as
//! [`solve_box`](super::solve_box) uses them.
//!
//! The definitions and scalings are documented on [`DctType`].

use std::sync::Arc;

use num_complex::Complex;
use rustdct::{Dct1, Dst1, TransformType2And3, TransformType4};

use super::lanes::{self, Around};
use super::trig_pairs::PairedTrig;
use super::{checked_axes, count, length, row_major, FftFloat, FftKernels, Norm};
use crate::array::Array;
use crate::error::{or_panic, Error, Result};
use crate::ops::operand::AsOperand;

/// The type of a discrete cosine or sine transform (SciPy's `type`, 1 to 4).
///
/// For `N` points, `norm = Backward` (SciPy's default):
///
/// | type | DCT `y[k] =` | DST `y[k] =` |
/// |------|--------------|--------------|
/// | I    | `x[0] + (-1)^k x[N-1] + 2 Σ_{0<n<N-1} x[n] cos(π k n / (N-1))` | `2 Σ x[n] sin(π (k+1) (n+1) / (N+1))` |
/// | II   | `2 Σ x[n] cos(π k (2n+1) / (2N))` | `2 Σ x[n] sin(π (k+1) (2n+1) / (2N))` |
/// | III  | `x[0] + 2 Σ_{n>0} x[n] cos(π n (2k+1) / (2N))` | `(-1)^k x[N-1] + 2 Σ_{n<N-1} x[n] sin(π (2k+1) (n+1) / (2N))` |
/// | IV   | `2 Σ x[n] cos(π (2k+1) (2n+1) / (4N))` | `2 Σ x[n] sin(π (2k+1) (2n+1) / (4N))` |
///
/// Type III inverts type II and the reverse; types I and IV invert themselves; each up to the
/// factor `M`: `2 (N - 1)` for the DCT-I, `2 (N + 1)` for the DST-I, `2 N` otherwise.
/// `Backward` divides the inverse by `M`, `Forward` the forward transform; `Ortho` divides both
/// by `sqrt(M)` and, so that the transform is orthogonal (SciPy's `orthogonalize=True`), weights
/// end points: both ends for the DCT-I, the first point for the DCT-II and III, the last for the
/// DST-II and III; the DST-I and both type IV transforms are orthogonal unweighted.
///
/// ```
/// use cnda::prelude::*;
/// use cnda::fft::{dct, idct, DctType, Norm};
///
/// let x = Array::from_fn([3, 8], |[i, j]| (i * 8 + j) as f64);
/// let y = dct(&x, DctType::II, 1, Norm::Ortho);
/// let back = idct(&y, DctType::II, 1, Norm::Ortho);
/// assert!((back[[2, 5]] - x[[2, 5]]).abs() < 1e-12);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum DctType {
    /// Type I: even (DCT) or odd (DST) about the end points themselves.
    I,
    /// Type II, the default: about the half points before and after the ends (the "DCT").
    #[default]
    II,
    /// Type III, the inverse of type II up to scale (the "inverse DCT").
    III,
    /// Type IV: about the half points, even at one end and odd at the other.
    IV,
}

impl DctType {
    /// The type whose transform inverts this one's (up to scale).
    pub(super) fn inverse(self) -> Self {
        match self {
            DctType::II => DctType::III,
            DctType::III => DctType::II,
            same => same,
        }
    }
}

/// Cosines or sines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    Cosine,
    Sine,
}

macro_rules! trig_pair {
    ($(#[$doc:meta])* $name:ident, $try_name:ident, $family:expr, $inverse:expr, $scipy:literal) => {
        $(#[$doc])*
        #[doc = concat!("SciPy's `scipy.fft.", $scipy, "(a, type, axis=axis, norm=...)`.")]
        ///
        /// # Panics
        ///
        #[doc = concat!("As [`", stringify!($try_name), "`] errs.")]
        #[track_caller]
        pub fn $name<T: FftFloat, const N: usize, B: FftKernels>(
            a: impl AsOperand<T, N, B>,
            ty: DctType,
            axis: usize,
            norm: Norm,
        ) -> Array<T, N, B> {
            or_panic($try_name(a, ty, axis, norm))
        }

        #[doc = concat!("[`", stringify!($name), "`], returning errors.")]
        ///
        /// # Errors
        ///
        /// As the [module](super)'s transforms; also `Error::Parameter` for a DCT-I of an axis of
        /// one point (its period, `2 (N - 1)`, is zero).
        pub fn $try_name<T: FftFloat, const N: usize, B: FftKernels>(
            a: impl AsOperand<T, N, B>,
            ty: DctType,
            axis: usize,
            norm: Norm,
        ) -> Result<Array<T, N, B>> {
            along_each($scipy, &a, &[axis], ($family, ty), norm, $inverse)
        }
    };
}

macro_rules! trig_pair_n {
    ($(#[$doc:meta])* $name:ident, $try_name:ident, $family:expr, $inverse:expr, $scipy:literal) => {
        $(#[$doc])*
        #[doc = concat!("SciPy's `scipy.fft.", $scipy, "(a, type, axes=axes, norm=...)`.")]
        ///
        /// # Panics
        ///
        #[doc = concat!("As [`", stringify!($try_name), "`] errs.")]
        #[track_caller]
        pub fn $name<T: FftFloat, const N: usize, B: FftKernels>(
            a: impl AsOperand<T, N, B>,
            ty: DctType,
            axes: &[usize],
            norm: Norm,
        ) -> Array<T, N, B> {
            or_panic($try_name(a, ty, axes, norm))
        }

        #[doc = concat!("[`", stringify!($name), "`], returning errors.")]
        ///
        /// # Errors
        ///
        /// As the [module](super)'s transforms; also `Error::Parameter` for a DCT-I of an axis of
        /// one point.
        pub fn $try_name<T: FftFloat, const N: usize, B: FftKernels>(
            a: impl AsOperand<T, N, B>,
            ty: DctType,
            axes: &[usize],
            norm: Norm,
        ) -> Result<Array<T, N, B>> {
            along_each($scipy, &a, axes, ($family, ty), norm, $inverse)
        }
    };
}

trig_pair!(
    /// The discrete cosine transform of type `ty` of the real array `a` along `axis` (see the
    /// [`DctType`] for the definitions).
    dct, try_dct, Family::Cosine, false, "dct"
);
trig_pair!(
    /// The inverse of [`dct`] of type `ty` (the transform of type III for type II, and the
    /// reverse; types I and IV their own), scaled so that `idct(dct(x))` is `x` under the same
    /// `norm`.
    idct, try_idct, Family::Cosine, true, "idct"
);
trig_pair!(
    /// The discrete sine transform of type `ty` of the real array `a` along `axis` (see the
    /// [`DctType`] for the definitions).
    dst, try_dst, Family::Sine, false, "dst"
);
trig_pair!(
    /// The inverse of [`dst`] of type `ty`, scaled so that `idst(dst(x))` is `x` under the same
    /// `norm`.
    idst, try_idst, Family::Sine, true, "idst"
);
trig_pair_n!(
    /// [`dct`] along each of `axes`.
    dctn, try_dctn, Family::Cosine, false, "dctn"
);
trig_pair_n!(
    /// [`idct`] along each of `axes`, the inverse of [`dctn`].
    idctn, try_idctn, Family::Cosine, true, "idctn"
);
trig_pair_n!(
    /// [`dst`] along each of `axes`.
    dstn, try_dstn, Family::Sine, false, "dstn"
);
trig_pair_n!(
    /// [`idst`] along each of `axes`, the inverse of [`dstn`].
    idstn, try_idstn, Family::Sine, true, "idstn"
);

/// `a`'s transform of `kind` along each of `axes`, the last first, in a new row-major array.
fn along_each<T: FftFloat, const N: usize, B: FftKernels>(
    op: &'static str,
    a: &impl AsOperand<T, N, B>,
    axes: &[usize],
    kind: (Family, DctType),
    norm: Norm,
    inverse: bool,
) -> Result<Array<T, N, B>> {
    let (&last, rest) = checked_axes(op, axes, N)?;
    let mut x = row_major(op, a.operand_desc())?;
    for &axis in core::iter::once(&last).chain(rest.iter().rev()) {
        in_place(op, &mut x, axis, kind, norm, inverse)?;
    }
    Ok(x)
}

/// The row-major `x` transformed along `axis` in place: the transform of `kind`, or its inverse.
pub(super) fn in_place<T: FftFloat, const N: usize, B: FftKernels>(
    op: &'static str,
    x: &mut Array<T, N, B>,
    axis: usize,
    (family, ty): (Family, DctType),
    norm: Norm,
    inverse: bool,
) -> Result<()> {
    length(op, x.shape(), axis)?;
    if family == Family::Cosine && ty == DctType::I && x.shape()[axis] == 1 {
        return Err(Error::Parameter {
            op,
            reason: format!("axis {axis} of shape {:?} has one point, and a DCT of type I needs two", x.shape()),
            fix: "transform an axis of 2 points or more, or use another type",
        });
    }
    let d = x.desc_mut();
    // SAFETY: `d` is the dense row-major `x`, borrowed uniquely, with a point along `axis`.
    unsafe { B::trig_axis(&B::handle_device(d.handle), op, d, axis, (family, ty), norm, inverse) }
}

/// The CPU's transform of the dense row-major `x` (rustdct on the lanes).
pub(super) fn on_lanes<T: FftFloat, const N: usize>(
    op: &'static str,
    x: &mut [T],
    shape: [usize; N],
    axis: usize,
    (family, ty): (Family, DctType),
    norm: Norm,
    inverse: bool,
) -> Result<()> {
    let n = shape[axis];
    let computed = if inverse { ty.inverse() } else { ty };
    let plan = Plan::new(family, computed, n);
    let weights = Weights::<T>::new(family, computed, n, norm, inverse);
    let around = Around::new(shape, axis);
    // Types II and III of lengths rustdct takes through a complex transform: two lanes at once
    // where they allow (`trig_pairs.rs`).
    let paired = PairedTrig::<T>::new(family, computed, n);
    // One complex scratch serves both: rustdct's real one is its first values.
    let scratch = plan.scratch_len().div_ceil(2).max(paired.as_ref().map_or(0, PairedTrig::scratch_len));
    let rows = if paired.is_some() { 2 } else { 1 };
    lanes::in_place(op, x, around, (n, rows), scratch, |mut lanes, work: &mut [Complex<T>]| {
        let mut i = 0;
        while i < lanes.count() {
            let count = if paired.is_some() && i + 1 < lanes.count() { 2 } else { 1 };
            if let (Some(p), 2) = (&paired, count) {
                let (a, b) = lanes.pair(i);
                weights.before(a);
                weights.before(b);
                if !p.process(a, b, work) {
                    plan.process(a, bytemuck::cast_slice_mut(work));
                    plan.process(b, bytemuck::cast_slice_mut(work));
                }
                weights.after(a);
                weights.after(b);
            } else {
                let lane = lanes.lane(i);
                weights.before(lane);
                plan.process(lane, bytemuck::cast_slice_mut(work));
                weights.after(lane);
            }
            i += count;
        }
        Ok(())
    })
}

/// A rustdct plan of one family and type (its own trait per type).
enum Plan<T> {
    Dct1(Arc<dyn Dct1<T>>),
    Dst1(Arc<dyn Dst1<T>>),
    Dct2(Arc<dyn TransformType2And3<T>>),
    Dct3(Arc<dyn TransformType2And3<T>>),
    Dst2(Arc<dyn TransformType2And3<T>>),
    Dst3(Arc<dyn TransformType2And3<T>>),
    Dct4(Arc<dyn TransformType4<T>>),
    Dst4(Arc<dyn TransformType4<T>>),
}

impl<T: FftFloat> Plan<T> {
    fn new(family: Family, ty: DctType, n: usize) -> Self {
        super::plans::with_trig_planner::<T, _>(|planner| match (family, ty) {
            (Family::Cosine, DctType::I) => Plan::Dct1(planner.plan_dct1(n)),
            (Family::Sine, DctType::I) => Plan::Dst1(planner.plan_dst1(n)),
            (Family::Cosine, DctType::II) => Plan::Dct2(planner.plan_dct2(n)),
            (Family::Cosine, DctType::III) => Plan::Dct3(planner.plan_dct3(n)),
            (Family::Sine, DctType::II) => Plan::Dst2(planner.plan_dst2(n)),
            (Family::Sine, DctType::III) => Plan::Dst3(planner.plan_dst3(n)),
            (Family::Cosine, DctType::IV) => Plan::Dct4(planner.plan_dct4(n)),
            (Family::Sine, DctType::IV) => Plan::Dst4(planner.plan_dst4(n)),
        })
    }

    fn scratch_len(&self) -> usize {
        match self {
            Plan::Dct1(p) => p.get_scratch_len(),
            Plan::Dst1(p) => p.get_scratch_len(),
            Plan::Dct2(p) | Plan::Dct3(p) | Plan::Dst2(p) | Plan::Dst3(p) => p.get_scratch_len(),
            Plan::Dct4(p) | Plan::Dst4(p) => p.get_scratch_len(),
        }
    }

    /// rustdct's unnormalized transform of `lane` (half of SciPy's `Backward` one).
    fn process(&self, lane: &mut [T], scratch: &mut [T]) {
        match self {
            Plan::Dct1(p) => p.process_dct1_with_scratch(lane, scratch),
            Plan::Dst1(p) => p.process_dst1_with_scratch(lane, scratch),
            Plan::Dct2(p) => p.process_dct2_with_scratch(lane, scratch),
            Plan::Dct3(p) => p.process_dct3_with_scratch(lane, scratch),
            Plan::Dst2(p) => p.process_dst2_with_scratch(lane, scratch),
            Plan::Dst3(p) => p.process_dst3_with_scratch(lane, scratch),
            Plan::Dct4(p) => p.process_dct4_with_scratch(lane, scratch),
            Plan::Dst4(p) => p.process_dst4_with_scratch(lane, scratch),
        }
    }
}

/// The factors around rustdct's transform that make it SciPy's: a scale for every output, and
/// under `Ortho` the orthogonalizing weight of end points before or after.
pub(super) struct Weights<T> {
    scale: T,
    /// The input points weighted before the transform, and their factor.
    before: Option<(Ends, T)>,
    /// The output points weighted after it (besides `scale`), and their factor.
    after: Option<(Ends, T)>,
}

/// Which end points of a lane a weight applies to.
#[derive(Clone, Copy, Debug)]
enum Ends {
    First,
    Last,
    Both,
}

impl<T: FftFloat> Weights<T> {
    /// For the transform of `ty` actually computed, of `n` points, as the forward transform or
    /// the inverse of another under `norm`.
    pub(super) fn new(family: Family, ty: DctType, n: usize, norm: Norm, inverse: bool) -> Self {
        let two = count::<T>(2);
        // The logical length: the period of the extended sequence.
        let m = match (family, ty) {
            (Family::Cosine, DctType::I) => two * count::<T>(n - 1),
            (Family::Sine, DctType::I) => two * count::<T>(n + 1),
            _ => two * count::<T>(n),
        };
        // rustdct computes half of SciPy's unnormalized transform.
        let scale = match (norm, inverse) {
            (Norm::Backward, false) | (Norm::Forward, true) => two,
            (Norm::Backward, true) | (Norm::Forward, false) => two / m,
            (Norm::Ortho, _) => two / m.sqrt(),
        };
        let (up, down) = (two.sqrt(), T::ONE / two.sqrt());
        let (before, after) = match (norm, family, ty) {
            (Norm::Ortho, Family::Cosine, DctType::I) => (Some((Ends::Both, up)), Some((Ends::Both, down))),
            (Norm::Ortho, Family::Cosine, DctType::II) => (None, Some((Ends::First, down))),
            (Norm::Ortho, Family::Cosine, DctType::III) => (Some((Ends::First, up)), None),
            (Norm::Ortho, Family::Sine, DctType::II) => (None, Some((Ends::Last, down))),
            (Norm::Ortho, Family::Sine, DctType::III) => (Some((Ends::Last, up)), None),
            _ => (None, None),
        };
        Weights { scale, before, after }
    }

    /// The factor of every output.
    pub(super) fn scale(&self) -> T {
        self.scale
    }

    /// The input points of an `n`-point lane weighted before the transform, with their factors.
    pub(super) fn before_points(&self, n: usize) -> Vec<(usize, T)> {
        points(self.before, n)
    }

    /// The output points weighted after it (besides the scale), with their factors.
    pub(super) fn after_points(&self, n: usize) -> Vec<(usize, T)> {
        points(self.after, n)
    }

    fn before(&self, lane: &mut [T]) {
        weigh(lane, self.before);
    }

    fn after(&self, lane: &mut [T]) {
        lane.iter_mut().for_each(|v| *v = *v * self.scale);
        weigh(lane, self.after);
    }
}

/// The points of an `n`-point lane `weight` names, with its factor.
fn points<T: FftFloat>(weight: Option<(Ends, T)>, n: usize) -> Vec<(usize, T)> {
    let Some((ends, w)) = weight else { return Vec::new() };
    let last = n - 1;
    let points: &[usize] = match ends {
        Ends::First => &[0],
        Ends::Last => &[last],
        Ends::Both => &[0, last],
    };
    points.iter().map(|&i| (i, w)).collect()
}

/// `lane`'s end points named by `weight` multiplied by its factor.
fn weigh<T: FftFloat>(lane: &mut [T], weight: Option<(Ends, T)>) {
    for (i, w) in points(weight, lane.len()) {
        lane[i] = lane[i] * w;
    }
}
