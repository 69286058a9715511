//! Constant-coefficient stencils described by data: `K` taps (offset, weight) within a
//! compile-time radius `R`, applied as `out[x] = sum_k weight_k * in[x + offset_k]` over the
//! interior, on grids of any rank. Being data rather than a closure, a stencil is handed to the
//! backend's [`StencilKernels`] by one generic algorithm (same shape, same device, interior
//! region); the radius is checked once, at construction, so the CPU's inner loop has no check at
//! all.
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

use super::region::Interior;
#[cfg(feature = "rayon")]
use super::region::{band, par_bands};
use crate::element::{Float, Numeric, Pod};
use crate::error::{or_panic, Error, Result};
#[cfg(feature = "rayon")]
use crate::kernel::Cpu;
#[cfg(feature = "rayon")]
use crate::kernel::SharedDesc;
use crate::kernel::StencilKernels;
use crate::ops::operand::{AsOperand, AsOperandMut};

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

impl<T: Numeric, const N: usize, const R: usize, const K: usize> LinearStencil<T, N, R, K> {
    /// `output[x] = sum_k weight_k * input[x + offset_k]` for every interior point (at least `R`
    /// from every edge); the other points are left alone. Input and output are views (CPU) or
    /// arrays (`&u`, `&mut v`) on one backend.
    ///
    /// # Panics
    ///
    /// When the shapes differ; [`LinearStencil::try_apply`] returns the error instead.
    #[track_caller]
    pub fn apply<B: StencilKernels>(&self, input: impl AsOperand<T, N, B>, output: impl AsOperandMut<T, N, B>) {
        or_panic(self.try_apply(input, output))
    }

    /// The interior sweep of [`LinearStencil::apply`].
    ///
    /// # Errors
    ///
    /// `Error::ShapeMismatch` when the shapes differ; `Error::DeviceMismatch`; `Error::Device`.
    pub fn try_apply<B: StencilKernels>(
        &self,
        input: impl AsOperand<T, N, B>,
        mut output: impl AsOperandMut<T, N, B>,
    ) -> Result<()> {
        let (input, out) = (input.operand_desc(), output.operand_desc_mut());
        let Some(interior) = Interior::of("LinearStencil::apply", [R; N], &input, &out, &[])? else {
            return Ok(());
        };
        let (out, input) = (interior.narrow(out), interior.narrow(input));
        // SAFETY: the interior keeps every tap inside the input; the output is borrowed uniquely
        // and the input shared, so they cannot overlap.
        unsafe { B::linear(&B::handle_device(out.handle), out, input, &self.taps) }
    }

    /// [`LinearStencil::apply`] on CPU views with the interior split over rayon's threads in
    /// bands of the first axis.
    ///
    /// # Panics
    ///
    /// When the shapes differ.
    #[cfg(feature = "rayon")]
    #[track_caller]
    pub fn par_apply(&self, input: impl AsOperand<T, N, Cpu>, mut output: impl AsOperandMut<T, N, Cpu>)
    where
        T: Send + Sync,
    {
        let (input, out) = (input.operand_desc(), output.operand_desc_mut());
        let Some(interior) = or_panic(Interior::of("LinearStencil::par_apply", [R; N], &input, &out, &[])) else {
            return;
        };
        let (out, input) = (interior.narrow(out), interior.narrow(input));
        if N == 0 {
            // SAFETY: as in `try_apply`.
            return or_panic(unsafe { Cpu::linear(&Cpu, out, input, &self.taps) });
        }
        let (out, input) = (SharedDesc(out), SharedDesc(input));
        or_panic(par_bands(out.0.shape[0], |rows| {
            let (out, input) = (&out, &input);
            // SAFETY: as in `try_apply`; bands of the first axis are disjoint, so no output
            // element is written by two tasks.
            unsafe { Cpu::linear(&Cpu, band(out.0, rows.clone()), band(input.0, rows), &self.taps) }
        }));
    }
}
