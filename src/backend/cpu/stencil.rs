//! The CPU's constant-coefficient stencil kernel: taps as flat offsets for the input's strides,
//! summed at every point of the sweeps' point walker.

use super::Cpu;
use crate::element::Numeric;
use crate::error::Result;
use crate::ops::desc::Desc;
use crate::stencil::StencilKernels;

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

// SAFETY: the point walker visits every point of `out` once and writes the taps' sum there.
unsafe impl StencilKernels for Cpu {
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
        // SAFETY: the trait's contract: every tap of every point is inside the input, and the
        // output's points are distinct and overlap no input element.
        unsafe {
            crate::stencil::for_each_point(
                input.handle.cast_const(),
                input.strides,
                out.handle,
                out.strides,
                out.shape,
                &mut |o, centre, _| *o = plan.at(centre),
            )
        };
        Ok(())
    }
}
