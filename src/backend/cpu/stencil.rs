//! The CPU's constant-coefficient stencil kernel: taps as flat offsets for the input's strides,
//! summed at every point of the sweeps' point walker.

use super::simd::{Isa, Kernel};
use crate::element::Numeric;
use crate::error::Result;
use crate::kernel::Cpu;
use crate::kernel::Desc;
use crate::kernel::StencilKernels;

/// A stencil laid out for one input: each tap's flat element offset for the input's strides
/// (computed once per call, so the inner loop does no index arithmetic) and its weight.
struct Plan<T, const K: usize> {
    deltas: [isize; K],
    weights: [T; K],
}

impl<T: Numeric, const K: usize> Plan<T, K> {
    /// The taps as flat offsets for `strides`. Wrapping: for any point the kernel visits, every
    /// tap lies inside the input, so the true offset fits and the wrapped value equals it.
    fn new<const N: usize>(taps: &[([isize; N], T); K], strides: [isize; N]) -> Self {
        Plan {
            deltas: taps
                .map(|(offset, _)| (0..N).fold(0isize, |acc, a| acc.wrapping_add(offset[a].wrapping_mul(strides[a])))),
            weights: taps.map(|(_, weight)| weight),
        }
    }

    /// `sum_k weights[k] * centre[deltas[k]]`, in tap order, starting from the first product
    /// (which saves the add of a zero).
    ///
    /// # Safety
    ///
    /// Every `centre + deltas[k]` is a readable element.
    #[inline(always)]
    unsafe fn at(&self, centre: *const T) -> T {
        if K == 0 {
            return T::ZERO;
        }
        // SAFETY: the caller's contract.
        unsafe {
            let mut acc = self.weights[0] * *centre.offset(self.deltas[0]);
            for k in 1..K {
                acc = acc + self.weights[k] * *centre.offset(self.deltas[k]);
            }
            acc
        }
    }
}

/// One call's sweep, as a SIMD-dispatched kernel. Safety (`Kernel::run`): as for
/// `StencilKernels::linear`, for `out`, `input` and the taps `plan` was made from.
struct Sweep<T: Numeric, const N: usize, const K: usize> {
    plan: Plan<T, K>,
    out: Desc<Cpu, T, N>,
    input: Desc<Cpu, T, N>,
}

impl<T: Numeric, const N: usize, const K: usize> Kernel for Sweep<T, N, K> {
    type Output = ();

    #[inline(always)]
    unsafe fn run<S: pulp::Simd>(self, _: S) {
        let Sweep { plan, out, input } = self;
        // SAFETY: the kernel's contract: every tap of every point is inside the input, and
        // the output's points are distinct and overlap no input element.
        unsafe {
            super::points::for_each_point(
                input.handle.cast_const(),
                input.strides,
                out.handle,
                out.strides,
                out.shape,
                &mut |o, centre, _| *o = plan.at(centre),
            )
        };
    }
}

// SAFETY: the point walker (or, for run-time taps, the lane walk of `taps.rs`) visits every point
// of `out` once and writes the taps' sum there.
unsafe impl StencilKernels for Cpu {
    const WAVEFRONT: bool = true;
    // The run-time-tap kernels keep the taps in tables of `MAX_TAPS`; `linear` unrolls any count.
    const MAX_TAPS: usize = MAX_TAPS;
    const MAX_LINEAR_TAPS: usize = usize::MAX;
    const OUTPUT_IN_CACHE: bool = true;

    unsafe fn taps<T: Numeric, const N: usize>(
        _: &Cpu,
        out: Desc<Cpu, T, N>,
        input: Desc<Cpu, T, N>,
        taps: &[([isize; N], T)],
    ) -> Result<()> {
        // SAFETY: the trait's contract is the kernel's. Part of a sweep of unknown size (a
        // hyperplane of the fused sweeps, which the next sweep reads from cache): plain stores.
        unsafe { super::taps::constant(out, input, taps, 0) }
    }

    unsafe fn varying<T: Numeric, const N: usize>(
        _: &Cpu,
        out: Desc<Cpu, T, N>,
        input: Desc<Cpu, T, N>,
        offsets: &[[isize; N]],
        coefficients: &[Desc<Cpu, T, N>],
    ) -> Result<bool> {
        // SAFETY: the trait's contract is the kernel's (plain stores, as in `taps`).
        unsafe { super::taps::varying(out, input, offsets, coefficients, 0) }.map(|()| true)
    }

    unsafe fn linear<T: Numeric, const N: usize, const K: usize>(
        _: &Cpu,
        out: Desc<Cpu, T, N>,
        input: Desc<Cpu, T, N>,
        taps: &[([isize; N], T); K],
    ) -> Result<()> {
        let plan = Plan::new(taps, input.strides);
        if N == 0 {
            // SAFETY: one point, whose taps lie in the input (the trait's contract).
            unsafe { *out.handle = plan.at(input.handle) };
            return Ok(());
        }
        // SAFETY: the trait's contract is the kernel's.
        unsafe { Isa::detect().run(Sweep { plan, out, input }) };
        Ok(())
    }
}

/// The most taps of a run-time stencil on the CPU (and of an expression stencil,
/// `expression.rs`).
pub(super) const MAX_TAPS: usize = 64;

#[cfg(test)]
mod tests {
    use super::{Plan, Sweep};
    use crate::backend::cpu::simd::Isa;
    use crate::prelude::*;
    use crate::stencil::LinearStencil;

    #[test]
    fn every_instruction_set_computes_the_same_bits_as_a_naive_loop() {
        let (n, m) = (37, 45);
        let u = Array::from_fn([n, m], |[i, j]| ((i * 131 + j * 71) % 97) as f64 * 0.013 - 0.4);
        let lap = LinearStencil::laplacian_9pt(0.3);
        let mut naive = Array::<f64, 2>::zeros([n - 2, m - 2]);
        for i in 1..n - 1 {
            for j in 1..m - 1 {
                let mut taps = lap.taps().iter();
                let at =
                    |(d, w): &([isize; 2], f64)| w * u[[(i as isize + d[0]) as usize, (j as isize + d[1]) as usize]];
                let first = at(taps.next().unwrap());
                naive[[i - 1, j - 1]] = taps.fold(first, |acc, t| acc + at(t));
            }
        }
        for isa in Isa::available() {
            let mut out = Array::<f64, 2>::zeros([n - 2, m - 2]);
            let input = u.desc().narrowed(0, 1, n - 2).narrowed(1, 1, m - 2);
            let plan = Plan::new(lap.taps(), input.strides);
            // SAFETY: the input is the interior of `u` (every tap inside `u`), the output a
            // fresh array of its shape.
            unsafe { isa.run(Sweep { plan, out: out.desc_mut(), input }) };
            assert_eq!(out, naive, "{isa:?}");
        }
    }
}
