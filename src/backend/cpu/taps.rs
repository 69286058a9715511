//! The CPU's run-time-tap stencil kernels (`DynStencil`, `VariableStencil`). With the tap count
//! known only at run time there is no unrolled sum per point (as `stencil.rs` makes for a
//! `LinearStencil`); instead each contiguous lane is cut into chunks that stay in L1 and the taps
//! become the outer loop: each tap adds its products to a chunk of accumulators in one vectorized
//! pass. Every point still sums its taps in tap order from the first product, so the results equal
//! `LinearStencil`'s bit for bit.

use core::ptr;
use core::slice;

use super::lanes::{walk_lanes, Lane};
use super::simd::{Isa, Kernel};
use super::stencil::MAX_TAPS;
use crate::element::Numeric;
use crate::error::{Error, Result};
use crate::kernel::{Cpu, Desc};

/// Points per chunk: 256 accumulators (2 KiB of f64) and the run of the tap being added stay in L1.
const CHUNK: usize = 256;

/// Operands of a variable-coefficient lane walk: the output, the input, one field per tap.
const VARYING_OPERANDS: usize = MAX_TAPS + 2;

/// The flat element offset of `offset` for `strides`. Wrapping: for any point a kernel visits,
/// every tap lies inside the input, so the true offset fits and the wrapped value equals it.
fn flat<const N: usize>(offset: &[isize; N], strides: [isize; N]) -> isize {
    (0..N).fold(0isize, |acc, a| acc.wrapping_add(offset[a].wrapping_mul(strides[a])))
}

/// `Error::Limit` past [`MAX_TAPS`] taps.
fn check_count(taps: usize) -> Result<()> {
    if taps > MAX_TAPS {
        return Err(Error::taps_limit("Cpu", taps, MAX_TAPS));
    }
    Ok(())
}

/// `out[x] = sum_k taps[k].1 * input[x + taps[k].0]` (`StencilKernels::taps` on the CPU).
///
/// # Safety
///
/// As for `StencilKernels::taps`.
pub(super) unsafe fn constant<T: Numeric, const N: usize>(
    out: Desc<Cpu, T, N>,
    input: Desc<Cpu, T, N>,
    taps: &[([isize; N], T)],
) -> Result<()> {
    check_count(taps.len())?;
    let mut deltas = [0isize; MAX_TAPS];
    let mut weights = [T::ZERO; MAX_TAPS];
    for (k, (offset, weight)) in taps.iter().enumerate() {
        deltas[k] = flat(offset, input.strides);
        weights[k] = *weight;
    }
    let count = taps.len();
    // SAFETY: the caller's contract is the kernel's.
    unsafe { Isa::detect().run(ConstantSweep { out, input, deltas: &deltas[..count], weights: &weights[..count] }) };
    Ok(())
}

/// `out[x] = sum_k coefficients[k][x] * input[x + offsets[k]]` (`StencilKernels::varying` on
/// the CPU).
///
/// # Safety
///
/// As for `StencilKernels::varying`.
pub(super) unsafe fn varying<T: Numeric, const N: usize>(
    out: Desc<Cpu, T, N>,
    input: Desc<Cpu, T, N>,
    offsets: &[[isize; N]],
    coefficients: &[Desc<Cpu, T, N>],
) -> Result<()> {
    check_count(offsets.len())?;
    let mut deltas = [0isize; MAX_TAPS];
    for (k, offset) in offsets.iter().enumerate() {
        deltas[k] = flat(offset, input.strides);
    }
    // Unused operand slots walk as the input (never read: no tap names them).
    let fields: [Desc<Cpu, T, N>; MAX_TAPS] = core::array::from_fn(|k| *coefficients.get(k).unwrap_or(&input));
    let count = offsets.len();
    // SAFETY: the caller's contract is the kernel's.
    unsafe { Isa::detect().run(VaryingSweep { out, input, fields, deltas: &deltas[..count] }) };
    Ok(())
}

/// One constant-coefficient call, as a SIMD-dispatched kernel. Safety (`Kernel::run`): as for
/// `StencilKernels::taps`, with `deltas` the taps' flat offsets for the input's strides.
struct ConstantSweep<'a, T: Numeric, const N: usize> {
    out: Desc<Cpu, T, N>,
    input: Desc<Cpu, T, N>,
    deltas: &'a [isize],
    weights: &'a [T],
}

impl<T: Numeric, const N: usize> Kernel for ConstantSweep<'_, T, N> {
    type Output = ();

    #[inline(always)]
    unsafe fn run(self) {
        let lanes = ConstantLanes {
            out: self.out.handle,
            input: self.input.handle.cast_const(),
            deltas: self.deltas,
            weights: self.weights,
        };
        walk_lanes(self.out.shape, [self.out.strides, self.input.strides], lanes);
    }
}

/// The lanes of [`ConstantSweep`].
struct ConstantLanes<'a, T> {
    out: *mut T,
    input: *const T,
    deltas: &'a [isize],
    weights: &'a [T],
}

impl<T: Numeric> Lane<2> for ConstantLanes<'_, T> {
    #[inline(always)]
    fn run(&mut self, bases: [isize; 2], len: usize, steps: [isize; 2]) {
        let (out, centre) = (self.out.wrapping_offset(bases[0]), self.input.wrapping_offset(bases[1]));
        if steps == [1, 1] {
            let mut acc = [T::ZERO; CHUNK];
            for start in (0..len).step_by(CHUNK) {
                let acc = &mut acc[..CHUNK.min(len - start)];
                for (k, (&delta, &weight)) in self.deltas.iter().zip(self.weights).enumerate() {
                    // SAFETY: tap `k` of the chunk's points lies inside the input (the kernel's
                    // contract), contiguous here, and no output element overlaps it.
                    let run = unsafe { slice::from_raw_parts(centre.wrapping_offset(delta).add(start), acc.len()) };
                    add_products(acc, k == 0, run, weight);
                }
                // SAFETY: the chunk's output elements are distinct, writable and contiguous.
                unsafe { ptr::copy_nonoverlapping(acc.as_ptr(), out.add(start), acc.len()) };
            }
        } else {
            for j in 0..len as isize {
                let at = centre.wrapping_offset(j * steps[1]);
                let mut acc = T::ZERO;
                for (k, (&delta, &weight)) in self.deltas.iter().zip(self.weights).enumerate() {
                    // SAFETY: the tap lies inside the input (the kernel's contract).
                    let x = unsafe { *at.wrapping_offset(delta) };
                    acc = if k == 0 { weight * x } else { acc + weight * x };
                }
                // SAFETY: a distinct writable output element.
                unsafe { *out.offset(j * steps[0]) = acc };
            }
        }
    }
}

/// One variable-coefficient call, as a SIMD-dispatched kernel. Safety (`Kernel::run`): as for
/// `StencilKernels::varying`, with `deltas` the offsets' flat offsets for the input's strides and
/// `fields[..deltas.len()]` the coefficient fields.
struct VaryingSweep<'a, T: Numeric, const N: usize> {
    out: Desc<Cpu, T, N>,
    input: Desc<Cpu, T, N>,
    fields: [Desc<Cpu, T, N>; MAX_TAPS],
    deltas: &'a [isize],
}

impl<T: Numeric, const N: usize> Kernel for VaryingSweep<'_, T, N> {
    type Output = ();

    #[inline(always)]
    unsafe fn run(self) {
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
        };
        walk_lanes(self.out.shape, strides, lanes);
    }
}

/// The lanes of [`VaryingSweep`].
struct VaryingLanes<'a, T> {
    out: *mut T,
    input: *const T,
    fields: [*const T; MAX_TAPS],
    deltas: &'a [isize],
}

impl<T: Numeric> Lane<VARYING_OPERANDS> for VaryingLanes<'_, T> {
    #[inline(always)]
    fn run(&mut self, bases: [isize; VARYING_OPERANDS], len: usize, steps: [isize; VARYING_OPERANDS]) {
        let taps = self.deltas.len();
        let (out, centre) = (self.out.wrapping_offset(bases[0]), self.input.wrapping_offset(bases[1]));
        let fields: [*const T; MAX_TAPS] = core::array::from_fn(|k| self.fields[k].wrapping_offset(bases[k + 2]));
        if steps[..taps + 2].iter().all(|&s| s == 1) {
            let mut acc = [T::ZERO; CHUNK];
            for start in (0..len).step_by(CHUNK) {
                let acc = &mut acc[..CHUNK.min(len - start)];
                for (k, &delta) in self.deltas.iter().enumerate() {
                    // SAFETY: tap `k` of the chunk's points lies inside the input and the
                    // chunk's points inside coefficient field `k` (the kernel's contract), both
                    // contiguous here; no output element overlaps them.
                    let (run, coefficient) = unsafe {
                        (
                            slice::from_raw_parts(centre.wrapping_offset(delta).add(start), acc.len()),
                            slice::from_raw_parts(fields[k].add(start), acc.len()),
                        )
                    };
                    add_field_products(acc, k == 0, run, coefficient);
                }
                // SAFETY: the chunk's output elements are distinct, writable and contiguous.
                unsafe { ptr::copy_nonoverlapping(acc.as_ptr(), out.add(start), acc.len()) };
            }
        } else {
            for j in 0..len as isize {
                let at = centre.wrapping_offset(j * steps[1]);
                let mut acc = T::ZERO;
                for (k, &delta) in self.deltas.iter().enumerate() {
                    // SAFETY: the tap lies inside the input and the point inside coefficient
                    // field `k` (the kernel's contract).
                    let (x, c) = unsafe { (*at.wrapping_offset(delta), *fields[k].wrapping_offset(j * steps[k + 2])) };
                    acc = if k == 0 { c * x } else { acc + c * x };
                }
                // SAFETY: a distinct writable output element.
                unsafe { *out.offset(j * steps[0]) = acc };
            }
        }
    }
}

/// `acc[j] = weight * run[j]` for the first tap, else `acc[j] = acc[j] + weight * run[j]`: one
/// vectorizable pass per tap.
#[inline(always)]
fn add_products<T: Numeric>(acc: &mut [T], first: bool, run: &[T], weight: T) {
    let run = &run[..acc.len()];
    if first {
        acc.iter_mut().zip(run).for_each(|(a, &x)| *a = weight * x);
    } else {
        acc.iter_mut().zip(run).for_each(|(a, &x)| *a = *a + weight * x);
    }
}

/// [`add_products`] with a coefficient per point: `acc[j] (+)= coefficient[j] * run[j]`.
#[inline(always)]
fn add_field_products<T: Numeric>(acc: &mut [T], first: bool, run: &[T], coefficient: &[T]) {
    let (run, coefficient) = (&run[..acc.len()], &coefficient[..acc.len()]);
    if first {
        acc.iter_mut().zip(run.iter().zip(coefficient)).for_each(|(a, (&x, &c))| *a = c * x);
    } else {
        acc.iter_mut().zip(run.iter().zip(coefficient)).for_each(|(a, (&x, &c))| *a = *a + c * x);
    }
}
