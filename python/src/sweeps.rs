//! What `cnda.stencil` runs once its arguments are views, written once for host and CUDA memory
//! (`Engine`: the CPU adds rayon's threads for large grids; a device runs one call per sweep).
//!
//! `out` receives the interior swept and the halo (the points within the stencil's radius of an
//! edge) as the boundary says: `u`'s values for a fixed side, the refilled halo otherwise, so
//! `stencil(u, steps=2)` equals `stencil(stencil(u))`. One sweep with fixed sides reads `u` and
//! writes `out` in place, whatever their strides; more steps (or other boundaries) run in a
//! double buffer of two row-major working fields: `u` copied into the first, its halo into the
//! second, the result copied to `out`.

use cnda::kernel::{CopyKernels, ElementwiseKernels, StencilKernels};
use cnda::stencil::{Boundaries, Boundary, DoubleBuffer};
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

    /// `steps` sweeps over `field` with `boundaries`.
    fn steps<T: Float + Send + Sync, const N: usize>(
        spec: &Taps<T, N>,
        field: &mut DoubleBuffer<T, N, Self>,
        steps: usize,
        fields: &[In<'_, T, N, Self>],
        boundaries: Boundaries<T, N>,
        parallel: bool,
    ) -> cnda::Result<()>;

    /// A zero-filled array of `a`'s shape where `a` lives.
    fn zeros_like<T: Pod, const N: usize>(a: &Array<T, N, Self>) -> cnda::Result<Array<T, N, Self>>;
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
        field: &mut DoubleBuffer<T, N, Self>,
        steps: usize,
        fields: &[In<'_, T, N, Self>],
        boundaries: Boundaries<T, N>,
        parallel: bool,
    ) -> cnda::Result<()> {
        match (spec, parallel) {
            (Taps::Constant(s), false) => s.try_apply_steps_with(field, steps, boundaries),
            (Taps::Constant(s), true) => s.try_par_apply_steps_with(field, steps, boundaries),
            (Taps::Varying(s), false) => s.try_apply_steps_with(field, steps, fields, boundaries),
            (Taps::Varying(s), true) => s.try_par_apply_steps_with(field, steps, fields, boundaries),
        }
    }

    fn zeros_like<T: Pod, const N: usize>(a: &Array<T, N, Self>) -> cnda::Result<Array<T, N, Self>> {
        Array::try_zeros(a.shape())
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
        field: &mut DoubleBuffer<T, N, Self>,
        steps: usize,
        fields: &[In<'_, T, N, Self>],
        boundaries: Boundaries<T, N>,
        _: bool,
    ) -> cnda::Result<()> {
        match spec {
            Taps::Constant(s) => s.try_apply_steps_with(field, steps, boundaries),
            Taps::Varying(s) => s.try_apply_steps_with(field, steps, fields, boundaries),
        }
    }

    fn zeros_like<T: Pod, const N: usize>(a: &Array<T, N, Self>) -> cnda::Result<Array<T, N, Self>> {
        Array::try_zeros_in(&a.device(), a.shape())
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
        B::sweep(spec, u.clone(), fields, out.view_mut(), parallel)?;
        return copy_frame(u, out, spec.radius());
    }
    let first = u.try_to_owned()?;
    let mut second = B::zeros_like(&first)?;
    copy_frame(first.view().into_strided(), second.view_mut().into_strided(), spec.radius())?;
    let mut field = DoubleBuffer::from_pair(first, second);
    B::steps(spec, &mut field, steps, fields, boundaries, parallel)?;
    out.try_assign(field.current())
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
            out.view_mut().narrow(axis, start, r).try_assign(&u.clone().narrow(axis, start, r))?;
        }
    }
    Ok(())
}
