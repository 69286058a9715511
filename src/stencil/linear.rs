//! Constant-coefficient stencils described by data: `K` taps (offset, weight) within a
//! compile-time radius `R`, applied as `out[x] = sum_k weight_k * in[x + offset_k]` over the
//! interior. Being data rather than a closure, the same definition can be handed to a device
//! backend's kernel later; on the CPU it runs through the sweep machinery with the radius checked
//! once, at construction, so the inner loop has no check at all.
//!
//! ```
//! use cnda::prelude::*;
//! use cnda::stencil::LinearStencil;
//!
//! let u = Array::from_fn([5, 6], |[i, j]| (i * i + j) as f64);
//! let mut lap = Array::<f64, 2>::zeros([5, 6]);
//! LinearStencil::laplacian_5pt(1.0).apply(u.view(), lap.view_mut());
//! assert_eq!(lap[[2, 3]], 2.0); // d2/di2 of i^2 is 2, d2/dj2 of j is 0
//! ```

use crate::check::BoundsCheck;
use crate::element::{Float, Numeric, Pod};
use crate::error::{or_panic, Error, Result};
use crate::layout::Layout;
use crate::view::{ArrayView, ArrayViewMut};

#[cfg(feature = "rayon")]
use super::sweep::{try_par_sweep2, try_par_sweep3};
use super::sweep::{try_sweep2, try_sweep3};
use super::window::{Window2, Window3};

/// `K` taps `(offset, weight)` on a rank-`N` grid, every offset within radius `R` on every axis.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinearStencil<T, const N: usize, const R: usize, const K: usize> {
    taps: [([isize; N], T); K],
}

impl<T: Pod, const N: usize, const R: usize, const K: usize> LinearStencil<T, N, R, K> {
    /// A stencil of the given taps, summed in this order (which fixes the rounding).
    ///
    /// # Panics
    ///
    /// When an offset reaches past radius `R`; [`LinearStencil::try_new`] returns the error.
    #[track_caller]
    pub fn new(taps: [([isize; N], T); K]) -> Self {
        or_panic(Self::try_new(taps))
    }

    /// A stencil of the given taps.
    ///
    /// # Errors
    ///
    /// `Error::Layout` naming the first tap whose offset reaches past radius `R`.
    pub fn try_new(taps: [([isize; N], T); K]) -> Result<Self> {
        if let Some(k) = taps.iter().position(|(offset, _)| offset.iter().any(|d| d.unsigned_abs() > R)) {
            return Err(Error::Layout {
                op: "LinearStencil",
                reason: format!("tap {k} has offset {:?}, past the radius {R}", taps[k].0),
                fix: "raise the radius R of the stencil's type, or move the tap inside it",
            });
        }
        Ok(Self { taps })
    }

    /// The taps, in summation order.
    pub fn taps(&self) -> &[([isize; N], T); K] {
        &self.taps
    }
}

impl<T: Float> LinearStencil<T, 2, 1, 5> {
    /// The 5-point Laplacian with grid spacing `h`: `(n + s + w + e - 4 c) / h^2`.
    pub fn laplacian_5pt(h: T) -> Self {
        let a = T::ONE / (h * h);
        let c = T::from_f64(-4.0) * a;
        Self { taps: [([-1, 0], a), ([1, 0], a), ([0, -1], a), ([0, 1], a), ([0, 0], c)] }
    }
}

impl<T: Float> LinearStencil<T, 2, 1, 4> {
    /// One Jacobi step of the 2D Laplace equation: the mean of the four neighbours (the centre
    /// has weight 0, so it is no tap).
    pub fn jacobi_5pt() -> Self {
        let q = T::from_f64(0.25);
        Self { taps: [([-1, 0], q), ([1, 0], q), ([0, -1], q), ([0, 1], q)] }
    }
}

impl<T: Float> LinearStencil<T, 2, 1, 9> {
    /// The isotropic 9-point Laplacian with grid spacing `h`:
    /// `(4 (n + s + w + e) + (corners) - 20 c) / (6 h^2)`.
    pub fn laplacian_9pt(h: T) -> Self {
        let s = T::ONE / (T::from_f64(6.0) * h * h);
        let (edge, corner, centre) = (T::from_f64(4.0) * s, s, T::from_f64(-20.0) * s);
        Self {
            taps: [
                ([-1, 0], edge),
                ([1, 0], edge),
                ([0, -1], edge),
                ([0, 1], edge),
                ([-1, -1], corner),
                ([-1, 1], corner),
                ([1, -1], corner),
                ([1, 1], corner),
                ([0, 0], centre),
            ],
        }
    }
}

impl<T: Float> LinearStencil<T, 3, 1, 7> {
    /// The 7-point Laplacian with grid spacing `h`: `(sum of the 6 face neighbours - 6 c) / h^2`.
    pub fn laplacian_7pt(h: T) -> Self {
        let a = T::ONE / (h * h);
        let [n, s, w, e, d, u] = faces3(a);
        Self { taps: [n, s, w, e, d, u, ([0, 0, 0], T::from_f64(-6.0) * a)] }
    }
}

impl<T: Float> LinearStencil<T, 3, 1, 6> {
    /// One Jacobi step of the 3D Laplace equation: the mean of the six face neighbours.
    pub fn jacobi_7pt() -> Self {
        Self { taps: faces3(T::ONE / T::from_f64(6.0)) }
    }
}

/// The six face neighbours of a 3D point, each with weight `face`.
fn faces3<T: Copy>(face: T) -> [([isize; 3], T); 6] {
    [
        ([-1, 0, 0], face),
        ([1, 0, 0], face),
        ([0, -1, 0], face),
        ([0, 1, 0], face),
        ([0, 0, -1], face),
        ([0, 0, 1], face),
    ]
}

impl<T: Float> LinearStencil<T, 3, 1, 27> {
    /// The 27-point Laplacian with grid spacing `h` (weights 14 for faces, 3 for edges, 1 for
    /// corners and -128 for the centre, over `30 h^2`).
    pub fn laplacian_27pt(h: T) -> Self {
        let s = T::ONE / (T::from_f64(30.0) * h * h);
        let mut taps = [([0isize; 3], T::ZERO); 27];
        let mut k = 0;
        for di in -1isize..=1 {
            for dj in -1isize..=1 {
                for dk in -1isize..=1 {
                    let weight = match di.abs() + dj.abs() + dk.abs() {
                        0 => -128.0,
                        1 => 14.0,
                        2 => 3.0,
                        _ => 1.0,
                    };
                    taps[k] = ([di, dj, dk], T::from_f64(weight) * s);
                    k += 1;
                }
            }
        }
        Self { taps }
    }
}

/// A stencil laid out for one input: each tap's flat element offset for the input's strides
/// (computed once per sweep, so the inner loop does no index arithmetic) and its weight.
struct Plan<T, const K: usize> {
    deltas: [isize; K],
    weights: [T; K],
}

impl<T: Numeric, const N: usize, const R: usize, const K: usize> LinearStencil<T, N, R, K> {
    /// The taps as flat offsets for `strides`. Wrapping: for any point a sweep visits, every tap
    /// lies inside the input, so the true offset fits and the wrapped value equals it.
    fn plan(&self, strides: [isize; N]) -> Plan<T, K> {
        Plan {
            deltas: self
                .taps
                .map(|(offset, _)| (0..N).fold(0isize, |acc, a| acc.wrapping_add(offset[a].wrapping_mul(strides[a])))),
            weights: self.taps.map(|(_, weight)| weight),
        }
    }
}

impl<T: Numeric, const K: usize> Plan<T, K> {
    /// `sum_k weights[k] * at(deltas[k])`, in tap order, starting from the first product (which
    /// saves the add of a zero).
    #[inline(always)]
    fn combine(&self, at: impl Fn(isize) -> T) -> T {
        if K == 0 {
            return T::ZERO;
        }
        let mut acc = self.weights[0] * at(self.deltas[0]);
        for k in 1..K {
            acc = acc + self.weights[k] * at(self.deltas[k]);
        }
        acc
    }
}

/// One `apply` / `try_apply` / `par_apply` impl per rank (a per-rank table: rank, window type,
/// sequential and parallel sweeps). The ranks differ only in those names.
macro_rules! apply_for_rank {
    ($($n:literal: $Window:ident, $try_sweep:ident, $try_par_sweep:ident;)*) => {$(
        impl<T: Numeric, const R: usize, const K: usize> LinearStencil<T, $n, R, K> {
            /// `output[x] = sum_k weight_k * input[x + offset_k]` for every interior point (at
            /// least `R` from every edge); the other points are left alone.
            ///
            /// # Panics
            ///
            /// When the shapes differ; `try_apply` returns the error instead.
            #[track_caller]
            pub fn apply<L1: Layout, C1: BoundsCheck, L2: Layout, C2: BoundsCheck>(
                &self,
                input: ArrayView<'_, T, $n, L1, C1>,
                output: ArrayViewMut<'_, T, $n, L2, C2>,
            ) {
                or_panic(self.try_apply(input, output))
            }

            /// The interior sweep of `apply`.
            ///
            /// # Errors
            ///
            /// `Error::ShapeMismatch` when the shapes differ.
            pub fn try_apply<L1: Layout, C1: BoundsCheck, L2: Layout, C2: BoundsCheck>(
                &self,
                input: ArrayView<'_, T, $n, L1, C1>,
                output: ArrayViewMut<'_, T, $n, L2, C2>,
            ) -> Result<()> {
                let plan = self.plan(input.strides());
                $try_sweep(input, output, |out, w: $Window<'_, T, R>| *out = at_window!(plan, w))
            }

            /// `apply` with the interior split over rayon's threads.
            ///
            /// # Panics
            ///
            /// When the shapes differ.
            #[cfg(feature = "rayon")]
            #[track_caller]
            pub fn par_apply<L1: Layout, C1: BoundsCheck, L2: Layout, C2: BoundsCheck>(
                &self,
                input: ArrayView<'_, T, $n, L1, C1>,
                output: ArrayViewMut<'_, T, $n, L2, C2>,
            ) where
                T: Send + Sync,
            {
                let plan = self.plan(input.strides());
                or_panic($try_par_sweep(input, output, |out, w: $Window<'_, T, R>| *out = at_window!(plan, w)))
            }
        }
    )*};
}

/// The stencil at a window's centre, from a `plan` made for the input the window is over.
macro_rules! at_window {
    ($plan:ident, $w:ident) => {
        $plan.combine(|delta| {
            // SAFETY: `delta` is a tap's offset (within `R`, checked by `try_new`) times the
            // input's strides, which are the window's.
            unsafe { *$w.at_flat(delta) }
        })
    };
}

// Without feature `rayon`, `par_apply` is cfg'd out, so the parallel sweeps' names are never
// resolved.
apply_for_rank! {
    2: Window2, try_sweep2, try_par_sweep2;
    3: Window3, try_sweep3, try_par_sweep3;
}
