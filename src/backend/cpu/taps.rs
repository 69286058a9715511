//! The CPU's run-time-tap stencil kernels (`DynStencil`, `VariableStencil`). With the tap count
//! known only at run time there is no unrolled sum per point (as `stencil.rs` makes for a
//! `LinearStencil`); instead each contiguous lane is cut into chunks that stay in L1 and the taps
//! become the outer loop: each tap adds its products to a chunk of accumulators in one vectorized
//! pass. Every point still sums its taps in tap order from the first product, so the results equal
//! `LinearStencil`'s bit for bit.

use core::mem::MaybeUninit;

use core::ops::Range;

use super::lane_blocks::{Block, Blocks};
use super::lanes::{walk_lanes, Lane};
use super::simd::{Isa, Kernel};
use super::stencil::MAX_TAPS;
use super::stream::Stores;
use crate::element::Numeric;
use crate::error::{Error, Result};
use crate::kernel::{Cpu, Desc};

/// Operands of a variable-coefficient lane walk: the output, the input, one field per tap.
const VARYING_OPERANDS: usize = MAX_TAPS + 2;

/// The flat element offset of `offset` for `strides`. Wrapping: for any point a kernel visits,
/// every tap lies inside the input, so the true offset fits and the wrapped value equals it.
fn flat<const N: usize>(offset: &[isize; N], strides: [isize; N]) -> isize {
    (0..N).fold(0isize, |acc, a| acc.wrapping_add(offset[a].wrapping_mul(strides[a])))
}

/// The first `count` entries of `table`.
///
/// # Safety
///
/// `count <= table.len()`, and those entries are initialized.
unsafe fn written<X>(table: &[MaybeUninit<X>], count: usize) -> &[X] {
    debug_assert!(count <= table.len());
    // SAFETY: `MaybeUninit<X>` has `X`'s layout, and the caller's contract says the first `count`
    // entries are initialized and in bounds.
    unsafe { core::slice::from_raw_parts(table.as_ptr().cast::<X>(), count) }
}

/// `Error::Limit` past [`MAX_TAPS`] taps.
fn check_count(taps: usize) -> Result<()> {
    if taps > MAX_TAPS {
        return Err(Error::taps_limit("Cpu", taps, MAX_TAPS));
    }
    Ok(())
}

/// `out[x] = sum_k taps[k].1 * input[x + taps[k].0]` (`StencilKernels::taps` on the CPU), for
/// part of a sweep that writes `sweep_bytes` in all (0 where unknown: see [`Stores::for_sweep`]).
///
/// # Safety
///
/// As for `StencilKernels::taps`.
pub(super) unsafe fn constant<T: Numeric, const N: usize>(
    out: Desc<Cpu, T, N>,
    input: Desc<Cpu, T, N>,
    taps: &[([isize; N], T)],
    sweep_bytes: usize,
) -> Result<()> {
    check_count(taps.len())?;
    // Tables of the taps' flat offsets and weights, only the first `count` entries written: the
    // fused sweeps call this once per hyperplane, where zeroing all 64 entries of both showed.
    let mut deltas = [const { MaybeUninit::<isize>::uninit() }; MAX_TAPS];
    let mut weights = [const { MaybeUninit::<T>::uninit() }; MAX_TAPS];
    for (k, (offset, weight)) in taps.iter().enumerate() {
        deltas[k].write(flat(offset, input.strides));
        weights[k].write(*weight);
    }
    let count = taps.len();
    // SAFETY: the first `count <= MAX_TAPS` entries of both tables were written just above.
    let (deltas, weights) = unsafe { (written(&deltas, count), written(&weights, count)) };
    let isa = Isa::detect();
    let stores = Stores::for_sweep(isa, sweep_bytes);
    // SAFETY: the caller's contract is the kernel's; `stores` was made for `isa`.
    unsafe { isa.run(ConstantSweep { out, input, deltas, weights, stores }) };
    Ok(())
}

/// `out[x] = sum_k coefficients[k][x] * input[x + offsets[k]]` (`StencilKernels::varying` on
/// the CPU), for part of a sweep that writes `sweep_bytes` in all (as for [`constant`]).
///
/// # Safety
///
/// As for `StencilKernels::varying`.
pub(super) unsafe fn varying<T: Numeric, const N: usize>(
    out: Desc<Cpu, T, N>,
    input: Desc<Cpu, T, N>,
    offsets: &[[isize; N]],
    coefficients: &[Desc<Cpu, T, N>],
    sweep_bytes: usize,
) -> Result<()> {
    check_count(offsets.len())?;
    let mut deltas = [const { MaybeUninit::<isize>::uninit() }; MAX_TAPS];
    for (k, offset) in offsets.iter().enumerate() {
        deltas[k].write(flat(offset, input.strides));
    }
    // SAFETY: the first `offsets.len() <= MAX_TAPS` entries were written just above.
    let deltas = unsafe { written(&deltas, offsets.len()) };
    // Unused operand slots walk as the input (never read: no tap names them).
    let fields: [Desc<Cpu, T, N>; MAX_TAPS] = core::array::from_fn(|k| *coefficients.get(k).unwrap_or(&input));
    let count = offsets.len();
    let isa = Isa::detect();
    let stores = Stores::for_sweep(isa, sweep_bytes);
    // SAFETY: the caller's contract is the kernel's; `stores` was made for `isa`.
    unsafe { isa.run(VaryingSweep { out, input, fields, deltas: &deltas[..count], stores }) };
    Ok(())
}

/// One constant-coefficient call, as a SIMD-dispatched kernel. Safety (`Kernel::run`): as for
/// `StencilKernels::taps`, with `deltas` the taps' flat offsets for the input's strides, and
/// `stores` made for the instruction set the kernel runs with.
struct ConstantSweep<'a, T: Numeric, const N: usize> {
    out: Desc<Cpu, T, N>,
    input: Desc<Cpu, T, N>,
    deltas: &'a [isize],
    weights: &'a [T],
    stores: Stores,
}

impl<T: Numeric, const N: usize> Kernel for ConstantSweep<'_, T, N> {
    type Output = ();

    #[inline(always)]
    unsafe fn run<S: pulp::Simd>(self, _: S) {
        let lanes = ConstantLanes {
            out: self.out.handle,
            input: self.input.handle.cast_const(),
            deltas: self.deltas,
            weights: self.weights,
            stores: self.stores,
        };
        let _fence = self.stores.fence_on_exit();
        walk_lanes(self.out.shape, [self.out.strides, self.input.strides], lanes);
    }
}

/// The lanes of [`ConstantSweep`].
struct ConstantLanes<'a, T> {
    out: *mut T,
    input: *const T,
    deltas: &'a [isize],
    weights: &'a [T],
    stores: Stores,
}

impl<T: Numeric> Lane<2> for ConstantLanes<'_, T> {
    #[inline(always)]
    fn run(&mut self, bases: [isize; 2], len: usize, steps: [isize; 2]) {
        let (out, centre) = (self.out.wrapping_offset(bases[0]), self.input.wrapping_offset(bases[1]));
        if self.deltas.is_empty() {
            // No tap: the empty sum, as the other backends and `LinearStencil` with `K = 0`.
            for j in 0..len as isize {
                // SAFETY: a distinct writable output element of the lane.
                unsafe { *out.offset(j * steps[0]) = T::ZERO };
            }
            return;
        }
        if steps == [1, 1] {
            // SAFETY: the kernel's contract, for this contiguous lane.
            unsafe {
                if core::mem::size_of::<T>() <= 4 {
                    self.contiguous::<{ 2 * BLOCK }>(out, centre, len)
                } else {
                    self.contiguous::<BLOCK>(out, centre, len)
                }
            }
        } else {
            for j in 0..len as isize {
                // SAFETY: the point's taps lie inside the input, its output element is distinct
                // and writable (the kernel's contract).
                unsafe {
                    *out.offset(j * steps[0]) = weighted_point(centre.offset(j * steps[1]), self.deltas, self.weights)
                };
            }
        }
    }
}

impl<T: Numeric> ConstantLanes<'_, T> {
    /// A contiguous lane in blocks of `B` points, cut by [`Blocks`] (`run` picks `B`: twice [`BLOCK`] for elements
    /// of 4 bytes or fewer, so each block still has as many vectors of sums as one of f64: the
    /// adds of one tap after another form one dependency chain per vector, and too few chains
    /// leave the CPU waiting on their latency).
    ///
    /// # Safety
    ///
    /// The kernel's contract for the lane's `len` points from `out` and `centre`, contiguous.
    #[inline(always)]
    unsafe fn contiguous<const B: usize>(&self, out: *mut T, centre: *const T, len: usize) {
        if len < B {
            for j in 0..len {
                // SAFETY: every tap of the point lies inside the input (the kernel's contract),
                // its output element is distinct, writable and overlaps no input.
                unsafe { *out.add(j) = weighted_point(centre.add(j), self.deltas, self.weights) };
            }
            return;
        }
        // Two copies of the block loop: with plain stores, the edge blocks store whole, exactly
        // the loop the fused sweeps ran before streaming existed (a run-time test of the mode in
        // it cost them up to 20% on one thread: the blocks stopped vectorizing).
        // SAFETY: the kernel's contract, for this lane.
        unsafe {
            if self.stores == Stores::Cached {
                self.blocks::<B, false>(out, centre, len, Stores::Cached)
            } else {
                self.blocks::<B, true>(out, centre, len, self.stores)
            }
        }
    }

    /// The blocks of a contiguous lane of `len >= B` points, stored with `stores`; with `EDGES`,
    /// the lane's first and last blocks store only the points no other block stores
    /// ([`store_part`]).
    ///
    /// # Safety
    ///
    /// As for [`ConstantLanes::contiguous`], with `len >= B`.
    #[inline(always)]
    unsafe fn blocks<const B: usize, const EDGES: bool>(
        &self,
        out: *mut T,
        centre: *const T,
        len: usize,
        stores: Stores,
    ) {
        for Block { start: j, store } in Blocks::<B>::new(out, len) {
            let (centre, weights) = (centre.wrapping_add(j), self.weights);
            // SAFETY: `j + B <= len` and `store` inside the block (`Blocks`): every tap of the
            // block's points lies inside the input (the kernel's contract), contiguous here; the
            // block's output elements are distinct, writable and overlap no input, nor does the
            // edge's scratch block; `stores` was made for the kernel's instruction set.
            unsafe {
                if EDGES && store.len() != B {
                    let mut edge = [T::ZERO; B];
                    weighted_block::<T, B>(edge.as_mut_ptr(), centre, self.deltas, weights, Stores::Cached);
                    store_part(out.add(j), &edge, store);
                } else {
                    weighted_block::<T, B>(out.add(j), centre, self.deltas, weights, stores);
                }
            }
        }
    }
}

/// One variable-coefficient call, as a SIMD-dispatched kernel. Safety (`Kernel::run`): as for
/// `StencilKernels::varying`, with `deltas` the offsets' flat offsets for the input's strides,
/// `fields[..deltas.len()]` the coefficient fields, and `stores` made for the instruction set the
/// kernel runs with.
struct VaryingSweep<'a, T: Numeric, const N: usize> {
    out: Desc<Cpu, T, N>,
    input: Desc<Cpu, T, N>,
    fields: [Desc<Cpu, T, N>; MAX_TAPS],
    deltas: &'a [isize],
    stores: Stores,
}

impl<T: Numeric, const N: usize> Kernel for VaryingSweep<'_, T, N> {
    type Output = ();

    #[inline(always)]
    unsafe fn run<S: pulp::Simd>(self, _: S) {
        let mut strides = [self.input.strides; VARYING_OPERANDS];
        strides[0] = self.out.strides;
        for (k, field) in self.fields.iter().enumerate() {
            strides[k + 2] = field.strides;
        }
        let lanes = VaryingLanes {
            out: self.out.handle,
            input: self.input.handle.cast_const(),
            fields: self.fields.map(|f| f.handle.cast_const()),
            deltas: self.deltas,
            stores: self.stores,
        };
        let _fence = self.stores.fence_on_exit();
        walk_lanes(self.out.shape, strides, lanes);
    }
}

/// The lanes of [`VaryingSweep`].
struct VaryingLanes<'a, T> {
    out: *mut T,
    input: *const T,
    fields: [*const T; MAX_TAPS],
    deltas: &'a [isize],
    stores: Stores,
}

impl<T: Numeric> Lane<VARYING_OPERANDS> for VaryingLanes<'_, T> {
    #[inline(always)]
    fn run(&mut self, bases: [isize; VARYING_OPERANDS], len: usize, steps: [isize; VARYING_OPERANDS]) {
        let taps = self.deltas.len();
        let (out, centre) = (self.out.wrapping_offset(bases[0]), self.input.wrapping_offset(bases[1]));
        if taps == 0 {
            for j in 0..len as isize {
                // SAFETY: a distinct writable output element of the lane.
                unsafe { *out.offset(j * steps[0]) = T::ZERO };
            }
            return;
        }
        let fields: [*const T; MAX_TAPS] = core::array::from_fn(|k| self.fields[k].wrapping_offset(bases[k + 2]));
        if steps[..taps + 2].iter().all(|&s| s == 1) {
            if len >= BLOCK {
                // SAFETY: the kernel's contract, for this contiguous lane (two copies of the
                // block loop, as in `ConstantLanes::contiguous`).
                unsafe {
                    if self.stores == Stores::Cached {
                        self.blocks::<false>(out, centre, &fields, len, Stores::Cached)
                    } else {
                        self.blocks::<true>(out, centre, &fields, len, self.stores)
                    }
                }
            } else {
                for j in 0..len {
                    let fields: [*const T; MAX_TAPS] = core::array::from_fn(|k| fields[k].wrapping_add(j));
                    // SAFETY: as above, for one point.
                    unsafe { *out.add(j) = varying_point(centre.add(j), self.deltas, &fields[..taps], 0) };
                }
            }
        } else {
            for j in 0..len as isize {
                let fields: [*const T; MAX_TAPS] =
                    core::array::from_fn(|k| fields[k].wrapping_offset(j * steps[k + 2]));
                // SAFETY: the point's taps lie inside the input and the point inside each
                // coefficient field; its output element is distinct and writable (the kernel's
                // contract).
                unsafe {
                    *out.offset(j * steps[0]) =
                        varying_point(centre.offset(j * steps[1]), self.deltas, &fields[..taps], 0)
                };
            }
        }
    }
}

impl<T: Numeric> VaryingLanes<'_, T> {
    /// The blocks of a contiguous lane of `len >= BLOCK` points with coefficient fields `fields`
    /// (the first one per tap, at the lane's start), stored with `stores`; with `EDGES`, the lane's first and
    /// last blocks store only the points no other block stores ([`store_part`]).
    ///
    /// # Safety
    ///
    /// The kernel's contract for the lane's `len >= BLOCK` points from `out`, `centre` and each
    /// field, contiguous.
    #[inline(always)]
    unsafe fn blocks<const EDGES: bool>(
        &self,
        out: *mut T,
        centre: *const T,
        fields: &[*const T; MAX_TAPS],
        len: usize,
        stores: Stores,
    ) {
        for Block { start: j, store } in Blocks::<BLOCK>::new(out, len) {
            let fields: [*const T; MAX_TAPS] = core::array::from_fn(|k| fields[k].wrapping_add(j));
            let (centre, fields) = (centre.wrapping_add(j), &fields[..self.deltas.len()]);
            // SAFETY: `j + BLOCK <= len` and `store` inside the block (`Blocks`): every tap of the
            // block's points lies inside the input and the block's points inside each coefficient
            // field (the kernel's contract), contiguous here; the output elements are distinct,
            // writable and overlap neither, nor does the edge's scratch block; `stores` was made
            // for the kernel's instruction set.
            unsafe {
                if EDGES && store.len() != BLOCK {
                    let mut edge = [T::ZERO; BLOCK];
                    varying_block(edge.as_mut_ptr(), centre, self.deltas, fields, Stores::Cached);
                    store_part(out.add(j), &edge, store);
                } else {
                    varying_block(out.add(j), centre, self.deltas, fields, stores);
                }
            }
        }
    }
}

/// Points per block: the block's sums stay in registers (eight AVX2 vectors of f64) while the
/// taps, a run-time count, are the loop around them, so each tap costs one load per point, as in
/// an unrolled sum.
const BLOCK: usize = 32;

/// `out[l] = sum_k weights[k] * centre[deltas[k] + l]` for the `B` points `l`, in tap order
/// from the first product. Plain index loops over a constant block (no closures), so they are
/// compiled inside the SIMD-dispatched kernel and vectorize.
///
/// # Safety
///
/// At least one tap, one weight per tap; every `centre + deltas[k] + l` is readable and every
/// `out + l` writable, overlapping none of them; the kernel runs with the instruction set
/// `stores` was made for.
#[inline(always)]
unsafe fn weighted_block<T: Numeric, const B: usize>(
    out: *mut T,
    centre: *const T,
    deltas: &[isize],
    weights: &[T],
    stores: Stores,
) {
    let mut a = [T::ZERO; B];
    let (run, w) = (centre.wrapping_offset(deltas[0]), weights[0]);
    for (l, x) in a.iter_mut().enumerate() {
        // SAFETY: `l < B`: a readable input element (the caller's contract).
        *x = w * unsafe { *run.add(l) };
    }
    for (&delta, &w) in deltas.iter().zip(weights).skip(1) {
        let run = centre.wrapping_offset(delta);
        for (l, x) in a.iter_mut().enumerate() {
            // SAFETY: as above.
            *x = *x + w * unsafe { *run.add(l) };
        }
    }
    // SAFETY: `out..out + B` is writable; `stores` was made for the kernel's instruction set (the
    // caller's contract).
    unsafe { stores.block(out, &a) };
}

/// `out[l] = block[l]` for the points `l` of `store`: with streamed stores, a lane's first or
/// last block, computed whole into `block`, stores only the points no other block of the lane
/// stores, so that no line is stored both plainly and streamed (`lane_blocks.rs`). With plain
/// stores the edge blocks store whole: the overlapped points get the same values again, cheaper
/// than the detour (the fused sweeps' rows showed it).
///
/// # Safety
///
/// `store` lies inside the block, and `out + l` is writable for each of its points.
#[inline(always)]
unsafe fn store_part<T: Copy, const B: usize>(out: *mut T, block: &[T; B], store: Range<usize>) {
    let part = &block[store.clone()];
    // SAFETY: `part` (checked inside the block) is `store`'s points, writable at `out` (the
    // caller's contract); the scratch block overlaps no output.
    unsafe { core::ptr::copy_nonoverlapping(part.as_ptr(), out.add(store.start), part.len()) };
}

/// One point of [`weighted_block`]: `sum_k weights[k] * centre[deltas[k]]`.
///
/// # Safety
///
/// At least one tap; every `centre + deltas[k]` is readable.
#[inline(always)]
unsafe fn weighted_point<T: Numeric>(centre: *const T, deltas: &[isize], weights: &[T]) -> T {
    // SAFETY: a tap of the point: readable (the caller's contract).
    let mut a = weights[0] * unsafe { *centre.wrapping_offset(deltas[0]) };
    for (&delta, &w) in deltas.iter().zip(weights).skip(1) {
        // SAFETY: as above.
        a = a + w * unsafe { *centre.wrapping_offset(delta) };
    }
    a
}

/// [`weighted_block`] with a coefficient field per tap: `out[l] = sum_k fields[k][l] *
/// centre[deltas[k] + l]`.
///
/// # Safety
///
/// As for [`weighted_block`], with every `fields[k] + l` readable (one field per tap).
#[inline(always)]
unsafe fn varying_block<T: Numeric>(
    out: *mut T,
    centre: *const T,
    deltas: &[isize],
    fields: &[*const T],
    stores: Stores,
) {
    let mut a = [T::ZERO; BLOCK];
    let (run, c) = (centre.wrapping_offset(deltas[0]), fields[0]);
    for (l, x) in a.iter_mut().enumerate() {
        // SAFETY: `l < BLOCK`: readable input and coefficient elements (the caller's contract).
        *x = unsafe { *c.add(l) * *run.add(l) };
    }
    for (&delta, &c) in deltas.iter().zip(fields).skip(1) {
        let run = centre.wrapping_offset(delta);
        for (l, x) in a.iter_mut().enumerate() {
            // SAFETY: as above.
            *x = *x + unsafe { *c.add(l) * *run.add(l) };
        }
    }
    // SAFETY: `out..out + BLOCK` is writable; `stores` was made for the kernel's instruction set
    // (the caller's contract).
    unsafe { stores.block(out, &a) };
}

/// One point of [`varying_block`], its coefficients at `fields[k] + at`.
///
/// # Safety
///
/// At least one tap; every `centre + deltas[k]` and `fields[k] + at` is readable.
#[inline(always)]
unsafe fn varying_point<T: Numeric>(centre: *const T, deltas: &[isize], fields: &[*const T], at: isize) -> T {
    // SAFETY: a tap of the point and its coefficient: readable (the caller's contract).
    let mut a = unsafe { *fields[0].wrapping_offset(at) * *centre.wrapping_offset(deltas[0]) };
    for (&delta, &c) in deltas.iter().zip(fields).skip(1) {
        // SAFETY: as above.
        a = a + unsafe { *c.wrapping_offset(at) * *centre.wrapping_offset(delta) };
    }
    a
}

// Debug builds only: the panic the test needs is an integer overflow, which they check.
#[cfg(all(test, debug_assertions))]
mod tests {
    use super::constant;
    use crate::backend::cpu::simd::Isa;
    use crate::backend::cpu::stream::{tests::FENCES, Stores};
    use crate::prelude::*;

    /// A kernel that panics between its streamed stores (an integer overflow: debug builds
    /// check them) still fences them: the caller that catches the panic may read the output.
    #[test]
    fn a_kernel_that_panics_still_fences_its_streamed_stores() {
        let input = Array::<i32, 1>::from_fn([512], |[i]| if i < 300 { 1 } else { i32::MAX });
        let mut out = Array::<i32, 1>::zeros([512]);
        let streamed = Stores::for_sweep(Isa::detect(), usize::MAX) != Stores::Cached;
        let before = FENCES.with(core::cell::Cell::get);
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            // SAFETY: one tap at offset 0: every point's tap is its own input point; the output
            // is a distinct array of the input's shape. A whole sweep (`usize::MAX` bytes):
            // streamed unless CNDA_STREAMING=off.
            unsafe { constant(out.desc_mut(), input.desc(), &[([0], 2)], usize::MAX) }
        }));
        assert!(caught.is_err(), "2 * i32::MAX overflows");
        assert_eq!(FENCES.with(core::cell::Cell::get), before + usize::from(streamed));
        assert!(out.as_slice()[..256].iter().all(|&x| x == 2), "the blocks before the overflow are stored");
    }
}
