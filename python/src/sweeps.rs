//! What `cnda.stencil` runs once its arguments are views, written once for host and CUDA memory
//! (`Engine`: the CPU adds rayon's threads for large grids; a device runs one call per sweep).
//!
//! `out` receives the interior swept and the halo (the points within the stencil's radius of an
//! edge) as the boundary says: `u`'s values for a fixed side, the refilled halo otherwise, so
//! `stencil(u, steps=2)` equals `stencil(stencil(u))`. One sweep with fixed sides reads `u` and
//! writes `out` in place, whatever their strides; more steps (or other boundaries) alternate
//! between `out` and one row-major scratch field, ordered so that the last sweep lands in `out`:
//! with fixed sides and constant taps on the CPU the first sweep reads `u` itself and both get a
//! copy of its halo; otherwise
//! one copy of `u` (into whichever holds sweep 0) and of its halo (into the other).

use cnda::kernel::{CopyKernels, ElementwiseKernels, StencilKernels};
use cnda::stencil::{Boundaries, Boundary};
use cnda::view::{Shared, Unique};
use cnda::{Array, Float, Pod, View};

use crate::stencil_args::Taps;

/// A shared view of a stencil operand on backend `B`.
pub type In<'a, T, const N: usize, B> = View<'a, T, N, Shared, B>;

/// The written view.
pub type Out<'a, T, const N: usize, B> = View<'a, T, N, Unique, B>;

/// A backend `cnda.stencil` runs on: its one sweep and its time steps, threaded where it can.
pub trait Engine: StencilKernels + ElementwiseKernels + CopyKernels {
    /// One sweep of the interior.
    fn sweep<T: Float + Send + Sync, const N: usize>(
        spec: &Taps<T, N>,
        u: In<'_, T, N, Self>,
        fields: &[In<'_, T, N, Self>],
        out: Out<'_, T, N, Self>,
        parallel: bool,
    ) -> cnda::Result<()>;

    /// `steps` sweeps alternating between `first` (holding sweep 0) and `second`, with
    /// `boundaries`: sweep `steps` ends in `second` when `steps` is odd.
    #[allow(clippy::too_many_arguments)]
    fn steps<T: Float + Send + Sync, const N: usize>(
        spec: &Taps<T, N>,
        first: Out<'_, T, N, Self>,
        second: Out<'_, T, N, Self>,
        steps: usize,
        fields: &[In<'_, T, N, Self>],
        boundaries: Boundaries<T, N>,
        parallel: bool,
    ) -> cnda::Result<()>;

    /// `steps` sweeps with fixed boundaries from `u` itself (sweep 1 reads it: no copy into
    /// `first`), alternating between `first` and `second` whose halos hold `u`'s, where the
    /// backend and the stencil have that form: `Ok(false)`, with nothing written, otherwise.
    fn steps_from<T: Float + Send + Sync, const N: usize>(
        spec: &Taps<T, N>,
        u: In<'_, T, N, Self>,
        first: Out<'_, T, N, Self>,
        second: Out<'_, T, N, Self>,
        steps: usize,
        parallel: bool,
    ) -> cnda::Result<bool> {
        let _ = (spec, u, first, second, steps, parallel);
        Ok(false)
    }

    /// `f` of a scratch field of `a`'s shape where `a` lives (contents unspecified: whatever a
    /// previous call left, or zeros).
    fn with_scratch<T: Pod, const N: usize, R>(
        a: &In<'_, T, N, Self>,
        f: impl FnOnce(Out<'_, T, N, Self>) -> cnda::Result<R>,
    ) -> cnda::Result<R>;
}

thread_local! {
    /// The CPU's scratch field of this thread's last `cnda.stencil` call with steps.
    static SCRATCH: core::cell::RefCell<Option<Box<dyn core::any::Any>>> = const { core::cell::RefCell::new(None) };
}

impl Engine for cnda::kernel::Cpu {
    fn sweep<T: Float + Send + Sync, const N: usize>(
        spec: &Taps<T, N>,
        u: In<'_, T, N, Self>,
        fields: &[In<'_, T, N, Self>],
        out: Out<'_, T, N, Self>,
        parallel: bool,
    ) -> cnda::Result<()> {
        match (spec, parallel) {
            (Taps::Constant(s), false) => s.try_apply(u, out),
            (Taps::Constant(s), true) => s.try_par_apply(u, out),
            (Taps::Varying(s), false) => s.try_apply(u, fields, out),
            (Taps::Varying(s), true) => s.try_par_apply(u, fields, out),
        }
    }

    fn steps<T: Float + Send + Sync, const N: usize>(
        spec: &Taps<T, N>,
        first: Out<'_, T, N, Self>,
        second: Out<'_, T, N, Self>,
        steps: usize,
        fields: &[In<'_, T, N, Self>],
        boundaries: Boundaries<T, N>,
        parallel: bool,
    ) -> cnda::Result<()> {
        match (spec, parallel) {
            (Taps::Constant(s), false) => s.try_apply_steps_between(first, second, steps, boundaries),
            (Taps::Constant(s), true) => s.try_par_apply_steps_between(first, second, steps, boundaries),
            (Taps::Varying(s), false) => s.try_apply_steps_between(first, second, steps, fields, boundaries),
            (Taps::Varying(s), true) => s.try_par_apply_steps_between(first, second, steps, fields, boundaries),
        }
    }

    fn steps_from<T: Float + Send + Sync, const N: usize>(
        spec: &Taps<T, N>,
        u: In<'_, T, N, Self>,
        first: Out<'_, T, N, Self>,
        second: Out<'_, T, N, Self>,
        steps: usize,
        parallel: bool,
    ) -> cnda::Result<bool> {
        match (spec, parallel) {
            (Taps::Constant(s), false) => s.try_apply_steps_from(u, first, second, steps).map(|()| true),
            (Taps::Constant(s), true) => s.try_par_apply_steps_from(u, first, second, steps).map(|()| true),
            (Taps::Varying(_), _) => Ok(false),
        }
    }

    /// The scratch field is kept for the next call on this thread (time-stepping loops call
    /// with one shape again and again; a fresh 128 MiB field costs more than the sweeps it
    /// serves), and let go when a call needs another shape or element type.
    fn with_scratch<T: Pod, const N: usize, R>(
        a: &In<'_, T, N, Self>,
        f: impl FnOnce(Out<'_, T, N, Self>) -> cnda::Result<R>,
    ) -> cnda::Result<R> {
        // A kept field of another type or shape is dropped before the new one is allocated.
        let kept = SCRATCH.with(|s| s.borrow_mut().take());
        let kept = kept.and_then(|k| k.downcast::<Array<T, N>>().ok()).filter(|k| k.shape() == a.shape());
        let mut scratch = match kept {
            Some(kept) => kept,
            None => Box::new(Array::<T, N>::try_zeros(a.shape())?),
        };
        let result = f(scratch.view_mut().into_strided());
        SCRATCH.with(|s| *s.borrow_mut() = Some(scratch));
        result
    }
}

#[cfg(feature = "cuda")]
impl Engine for cnda::backend::cuda::Cuda {
    fn sweep<T: Float + Send + Sync, const N: usize>(
        spec: &Taps<T, N>,
        u: In<'_, T, N, Self>,
        fields: &[In<'_, T, N, Self>],
        out: Out<'_, T, N, Self>,
        _: bool,
    ) -> cnda::Result<()> {
        match spec {
            Taps::Constant(s) => s.try_apply(u, out),
            Taps::Varying(s) => s.try_apply(u, fields, out),
        }
    }

    fn steps<T: Float + Send + Sync, const N: usize>(
        spec: &Taps<T, N>,
        first: Out<'_, T, N, Self>,
        second: Out<'_, T, N, Self>,
        steps: usize,
        fields: &[In<'_, T, N, Self>],
        boundaries: Boundaries<T, N>,
        _: bool,
    ) -> cnda::Result<()> {
        match spec {
            Taps::Constant(s) => s.try_apply_steps_between(first, second, steps, boundaries),
            Taps::Varying(s) => s.try_apply_steps_between(first, second, steps, fields, boundaries),
        }
    }

    fn with_scratch<T: Pod, const N: usize, R>(
        a: &In<'_, T, N, Self>,
        f: impl FnOnce(Out<'_, T, N, Self>) -> cnda::Result<R>,
    ) -> cnda::Result<R> {
        let mut scratch = Array::<T, N, Self>::try_zeros_in(&a.device(), a.shape())?;
        f(scratch.view_mut().into_strided())
    }
}

/// `steps` sweeps of `spec` from `u` into `out` (see the module docs for what `out` receives).
pub fn sweeps<T: Float + Send + Sync, const N: usize, B: Engine>(
    spec: &Taps<T, N>,
    u: In<'_, T, N, B>,
    fields: &[In<'_, T, N, B>],
    mut out: Out<'_, T, N, B>,
    steps: usize,
    boundaries: Boundaries<T, N>,
    parallel: bool,
) -> cnda::Result<()> {
    if steps == 1 && boundaries == Boundaries::all(Boundary::Fixed) {
        B::sweep(spec, u, fields, out.view_mut(), parallel)?;
        return copy_frame(u, out, spec.radius());
    }
    // `out` and a scratch field alternate, ordered so that the last sweep lands in `out`: the
    // one that holds sweep 0 gets all of `u` (only its halo where sweep 1 can read `u` itself),
    // the other only its halo.
    B::with_scratch(&u, |mut scratch| {
        let (mut first, mut second) = if steps.is_multiple_of(2) {
            (out.view_mut(), scratch.view_mut())
        } else {
            (scratch.view_mut(), out.view_mut())
        };
        copy_frame(u, second.view_mut(), spec.radius())?;
        if boundaries == Boundaries::all(Boundary::Fixed) {
            copy_frame(u, first.view_mut(), spec.radius())?;
            if B::steps_from(spec, u, first.view_mut(), second.view_mut(), steps, parallel)? {
                return Ok(());
            }
        }
        first.try_assign(&u)?;
        B::steps(spec, first, second, steps, fields, boundaries, parallel)
    })
}

/// `out`'s halo (the points within `radius` of an edge) from `u`'s.
fn copy_frame<T: Pod, const N: usize, B: CopyKernels>(
    u: In<'_, T, N, B>,
    mut out: Out<'_, T, N, B>,
    radius: [usize; N],
) -> cnda::Result<()> {
    let shape = u.shape();
    for axis in 0..N {
        let r = radius[axis].min(shape[axis]);
        if r == 0 {
            continue;
        }
        for start in [0, shape[axis] - r] {
            out.view_mut().narrow(axis, start, r).try_assign(&u.narrow(axis, start, r))?;
        }
    }
    Ok(())
}
