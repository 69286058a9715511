//! The CPU as the host engine of the contract ([`HostEngine`]): the closure APIs' loops are the
//! lane engine, the point walker (under SIMD dispatch), the thread splitter and the pairwise sum
//! of this folder.

use super::simd::{Isa, Kernel};
use super::{lanes, points};
#[cfg(feature = "rayon")]
use crate::element::Numeric;
#[cfg(feature = "rayon")]
use crate::error::Result;
use crate::kernel::host::{Dst, HostEngine, Src};
use crate::kernel::Cpu;
#[cfg(feature = "rayon")]
use crate::kernel::Desc;

impl HostEngine for Cpu {
    #[inline]
    fn for_each_lane<const N: usize, const K: usize>(
        shape: [usize; N],
        strides: [[isize; N]; K],
        f: impl FnMut([isize; K], usize, [isize; K]),
    ) {
        lanes::for_each_lane(shape, strides, f)
    }

    #[inline(always)]
    unsafe fn binary_map<A: Copy, B: Copy, R, const N: usize>(
        shape: [usize; N],
        a: Src<A, N>,
        b: Src<B, N>,
        out: Dst<R, N>,
        f: impl FnMut(A, B) -> R,
    ) {
        // SAFETY: the trait's contract is the lane engine's.
        unsafe { lanes::binary_map(shape, a, b, out, f) }
    }

    #[inline(always)]
    unsafe fn unary_map<A: Copy, R, const N: usize>(
        shape: [usize; N],
        a: Src<A, N>,
        out: Dst<R, N>,
        f: impl FnMut(A) -> R,
    ) {
        // SAFETY: as above.
        unsafe { lanes::unary_map(shape, a, out, f) }
    }

    #[inline(always)]
    unsafe fn update<T, const N: usize>(shape: [usize; N], dst: Dst<T, N>, f: impl FnMut(&mut T)) {
        // SAFETY: as above.
        unsafe { lanes::update(shape, dst, f) }
    }

    #[inline(always)]
    unsafe fn update_with<T, U: Copy, const N: usize>(
        shape: [usize; N],
        dst: Dst<T, N>,
        src: Src<U, N>,
        f: impl FnMut(&mut T, U),
    ) {
        // SAFETY: as above.
        unsafe { lanes::update_with(shape, dst, src, f) }
    }

    #[inline(always)]
    unsafe fn for_each_point<T, const N: usize>(
        input: *const T,
        in_strides: [isize; N],
        output: *mut T,
        out_strides: [isize; N],
        shape: [usize; N],
        f: impl FnMut(&mut T, *const T, [isize; N]),
    ) {
        // SAFETY: the walk's contract is the trait method's.
        unsafe { Isa::detect().run(PointWalk { input, in_strides, output, out_strides, shape, f }) }
    }

    #[cfg(feature = "rayon")]
    fn sum_slice<T: crate::element::Arithmetic>(x: &[T]) -> T {
        super::reduce::sum_slice(x)
    }

    #[cfg(feature = "rayon")]
    fn for_each_subrange(
        range: core::ops::Range<usize>,
        per_thread: usize,
        work: impl Fn(core::ops::Range<usize>) + Sync + Send,
    ) {
        super::threads::for_each_subrange(range, per_thread, work)
    }

    #[cfg(feature = "rayon")]
    fn for_each_row_block<const N: usize>(shape: [usize; N], work: impl Fn(usize, [usize; N]) + Sync + Send) {
        super::threads::for_each_row_block(shape, work)
    }

    #[cfg(feature = "rayon")]
    unsafe fn taps_in_sweep<T: Numeric, const N: usize>(
        out: Desc<Cpu, T, N>,
        input: Desc<Cpu, T, N>,
        taps: &[([isize; N], T)],
        sweep_bytes: usize,
    ) -> Result<()> {
        // SAFETY: the trait's contract is the kernel's.
        unsafe { super::taps::constant(out, input, taps, sweep_bytes) }
    }

    #[cfg(feature = "rayon")]
    unsafe fn varying_in_sweep<T: Numeric, const N: usize>(
        out: Desc<Cpu, T, N>,
        input: Desc<Cpu, T, N>,
        offsets: &[[isize; N]],
        coefficients: &[Desc<Cpu, T, N>],
        sweep_bytes: usize,
    ) -> Result<()> {
        // SAFETY: the trait's contract is the kernel's.
        unsafe { super::taps::varying(out, input, offsets, coefficients, sweep_bytes) }
    }
}

/// [`points::for_each_point`] as a SIMD-dispatched kernel, so the caller's closure is compiled for
/// the CPU's instruction set inside the loop. Safety (`Kernel::run`): the fields describe points
/// as `HostEngine::for_each_point` requires.
struct PointWalk<T, const N: usize, F> {
    input: *const T,
    in_strides: [isize; N],
    output: *mut T,
    out_strides: [isize; N],
    shape: [usize; N],
    f: F,
}

impl<T, const N: usize, F: FnMut(&mut T, *const T, [isize; N])> Kernel for PointWalk<T, N, F> {
    type Output = ();

    #[inline(always)]
    unsafe fn run<S: pulp::Simd>(self, _: S) {
        let PointWalk { input, in_strides, output, out_strides, shape, mut f } = self;
        // SAFETY: the kernel's contract.
        unsafe { points::for_each_point(input, in_strides, output, out_strides, shape, &mut f) }
    }
}
