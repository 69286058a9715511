//! Fused multi-sweep stencils: `k` sweeps of a [`LinearStencil`] over a [`DoubleBuffer`] in one
//! pass over memory, bit for bit equal to `k` separate sweeps (`apply` then `swap`, `k` times).
//!
//! One sweep over a grid larger than the caches is bound by memory bandwidth: every point is read
//! and written once per sweep. The fused form walks a **skewed wavefront** along the first axis:
//! at step `s` it computes hyperplane `s` of sweep 1, hyperplane `s - R` of sweep 2, ...,
//! hyperplane `s - (k - 1) R` of sweep `k`. Sweep `t` at hyperplane `i` reads sweep `t - 1` at
//! hyperplanes `i - R ..= i + R`, all computed earlier (the last one earlier in the same step), so
//! only about `(k + 1) R` hyperplanes of each field are in flight: they stay in the cache, and the
//! grid streams through memory once per `k` sweeps instead of once per sweep.
//!
//! Two fields suffice, as for separate sweeps: sweep `t` writes the field sweep `t - 2` wrote, and
//! overwrites hyperplane `i` of sweep `t - 2` only after every reader of it (sweep `t - 1` at
//! hyperplanes up to `i + R`) has run. Each hyperplane is computed by the backend's stencil kernel
//! with the same taps in the same order as a whole sweep, so the results are identical, not
//! merely close.

use super::buffer::DoubleBuffer;
use super::linear::{LinearStencil, StencilKernels};
use super::sweep::interior_range;
use crate::backend::{Backend, Cpu};
use crate::element::Numeric;
use crate::error::{or_panic, Result};
use crate::ops::desc::Desc;

impl<T: Numeric, const N: usize, const R: usize, const K: usize> LinearStencil<T, N, R, K> {
    /// `steps` sweeps over `field`, each reading the current field and writing the next one, then
    /// swapping them: the same result, bit for bit, as `steps` times
    /// `self.apply(current, next); field.swap()`, in one pass over memory (see the module
    /// documentation). The boundary (points within `R` of an edge) is never written, so each
    /// field keeps the boundary values it had.
    ///
    /// ```
    /// use cnda::prelude::*;
    /// use cnda::stencil::{DoubleBuffer, LinearStencil};
    ///
    /// let hot_top = |[i, _]: [usize; 2]| if i == 0 { 1.0 } else { 0.0 };
    /// let jacobi = LinearStencil::jacobi_5pt();
    /// let mut fused = DoubleBuffer::new(Array::from_fn([64, 64], hot_top));
    /// jacobi.apply_steps(&mut fused, 8);
    /// let mut one_by_one = DoubleBuffer::new(Array::from_fn([64, 64], hot_top));
    /// for _ in 0..8 {
    ///     let (u, v) = one_by_one.split();
    ///     jacobi.apply(u, v);
    ///     one_by_one.swap();
    /// }
    /// assert_eq!(fused.current(), one_by_one.current());
    /// ```
    ///
    /// # Panics
    ///
    /// Never for a `DoubleBuffer` (its fields share one shape); see
    /// [`LinearStencil::try_apply_steps`].
    #[track_caller]
    pub fn apply_steps(&self, field: &mut DoubleBuffer<T, N>, steps: usize) {
        or_panic(self.try_apply_steps(field, steps))
    }

    /// `steps` fused sweeps over `field`; see [`LinearStencil::apply_steps`].
    ///
    /// # Errors
    ///
    /// `Error::ShapeMismatch` when the fields' shapes differ; `Error::Device` from the kernel.
    pub fn try_apply_steps(&self, field: &mut DoubleBuffer<T, N>, steps: usize) -> Result<()> {
        let (a, b) = field.both_mut();
        let fields = [a.desc_mut(), b.desc_mut()];
        // SAFETY: the two fields are distinct owned arrays, borrowed uniquely for the call.
        unsafe { fused_sweeps::<Cpu, T, N, R, K>(self.taps(), fields, steps) }?;
        if steps % 2 == 1 {
            field.swap();
        }
        Ok(())
    }
}

/// Hyperplane `i` (of axis 0) of `d`'s interior for radius `R`.
fn hyperplane<B: Backend, T: Numeric, const N: usize, const R: usize>(d: Desc<B, T, N>, i: usize) -> Desc<B, T, N> {
    let ranges: [core::ops::Range<usize>; N] =
        core::array::from_fn(|k| if k == 0 { i..i + 1 } else { interior_range(d.shape[k], R) });
    let offset = (0..N).fold(0isize, |acc, k| acc + ranges[k].start as isize * d.strides[k]);
    Desc { handle: B::moved(d.handle, offset), shape: ranges.map(|r| r.len()), strides: d.strides }
}

/// `steps` sweeps alternating between `fields[0]` (read first) and `fields[1]`, on the skewed
/// wavefront of the module documentation.
///
/// # Safety
///
/// The two fields are live, distinct, of one shape, and nothing else accesses them during the
/// call.
///
/// # Errors
///
/// `Error::ShapeMismatch` when the shapes differ; `Error::Device`.
unsafe fn fused_sweeps<B: StencilKernels, T: Numeric, const N: usize, const R: usize, const K: usize>(
    taps: &[([isize; N], T); K],
    fields: [Desc<B, T, N>; 2],
    steps: usize,
) -> Result<()> {
    if fields[0].shape != fields[1].shape {
        return Err(crate::error::Error::ShapeMismatch {
            op: "LinearStencil::apply_steps",
            expected: fields[0].shape.to_vec(),
            got: fields[1].shape.to_vec(),
        });
    }
    let shape = fields[0].shape;
    if N == 0 || steps == 0 || (0..N).any(|k| interior_range(shape[k], R).is_empty()) {
        return Ok(()); // no interior point: no sweep writes anything
    }
    let dev = B::handle_device(fields[0].handle);
    crate::ops::output::same_device::<B>("LinearStencil::apply_steps", &dev, &[B::handle_device(fields[1].handle)])?;
    let rows = interior_range(shape[0], R);
    let lag = R.max(1);
    let last_step = rows.end - 1 + (steps - 1) * lag;
    for s in rows.start..=last_step {
        for t in 1..=steps {
            // Sweep `t` is `(t - 1) * lag` hyperplanes behind sweep 1.
            let Some(i) = s.checked_sub((t - 1) * lag) else { break };
            if i < rows.start {
                break;
            }
            if i >= rows.end {
                continue;
            }
            let (src, dst) = (fields[(t - 1) % 2], fields[t % 2]);
            // SAFETY: hyperplane `i` is interior, so every tap of its points lies in `src`; `dst`
            // is the other field; the wavefront order has computed every hyperplane of sweep
            // `t - 1` this one reads, and no later computation reads the hyperplane of sweep
            // `t - 2` it overwrites (module documentation).
            unsafe { B::linear(&dev, hyperplane::<B, T, N, R>(dst, i), hyperplane::<B, T, N, R>(src, i), taps) }?;
        }
    }
    Ok(())
}
