//! The stencil kernel family: constant-coefficient stencils as data ([`StencilKernels`]) and
//! any [`Stencil`] expression ([`ExprStencilKernels`]).

use crate::element::Numeric;
use crate::error::Result;
use crate::kernel::expr::{ExprData, Scalar, Stencil};
use crate::kernel::{Backend, Desc};

/// The constant-coefficient stencil kernel a backend provides.
///
/// # Safety
///
/// Implementations write every element of `out` with the weighted sum of the taps, in tap order,
/// and touch no other memory. The tap limits ([`StencilKernels::MAX_TAPS`],
/// [`StencilKernels::MAX_LINEAR_TAPS`]) are no part of this contract: callers check them to fail
/// early and alike on every process, and a kernel still returns `Error::Limit` past its tables.
pub unsafe trait StencilKernels: Backend {
    /// Whether the time steppers run this backend's kernel hyperplane by hyperplane on the fused
    /// wavefront (many small calls: right where a call is a function call, as on the CPU); else
    /// one call per sweep.
    const WAVEFRONT: bool = false;

    /// The most taps [`StencilKernels::taps`] and [`StencilKernels::varying`] take (past it they
    /// return `Error::Limit`); `usize::MAX`, the default, for no limit. Known without a device,
    /// so a caller can check a stencil before any work: the distributed sweeps do, on every
    /// process alike, where a process with nothing to sweep would never launch the kernel.
    const MAX_TAPS: usize = usize::MAX;

    /// The most taps [`StencilKernels::linear`] takes; by default [`StencilKernels::MAX_TAPS`]
    /// (the default `linear` runs `taps`).
    const MAX_LINEAR_TAPS: usize = Self::MAX_TAPS;

    /// Whether what a kernel just wrote is read back from cache by the next kernel (the CPU:
    /// kernels run on the caller's core), so that a product and a pass over it fuse when both
    /// sweep a slab at a time; devices' kernels read from memory anyway.
    const OUTPUT_IN_CACHE: bool = false;

    /// `out[x] = sum_k taps[k].1 * input[x + taps[k].0]` for every point `x` of `out.shape`, where
    /// `input` (with its own strides) describes the input point of `out[0; N]`: taps known at
    /// run time (`DynStencil`), summed in order from the first product.
    ///
    /// # Safety
    ///
    /// Both address live memory on `dev`; every tap of every point lies inside the input; `out`'s
    /// indices address distinct writable elements that overlap no input element.
    ///
    /// # Errors
    ///
    /// `Error::Device` when a device fails; `Error::Limit` past [`StencilKernels::MAX_TAPS`].
    unsafe fn taps<T: Numeric, const N: usize>(
        dev: &Self::Device,
        out: Desc<Self, T, N>,
        input: Desc<Self, T, N>,
        taps: &[([isize; N], T)],
    ) -> Result<()>;

    /// [`StencilKernels::taps`] with the tap count known at compile time (`LinearStencil`), which
    /// a backend may unroll; by default the run-time kernel.
    ///
    /// # Safety
    ///
    /// As for [`StencilKernels::taps`].
    ///
    /// # Errors
    ///
    /// As for [`StencilKernels::taps`].
    unsafe fn linear<T: Numeric, const N: usize, const K: usize>(
        dev: &Self::Device,
        out: Desc<Self, T, N>,
        input: Desc<Self, T, N>,
        taps: &[([isize; N], T); K],
    ) -> Result<()> {
        // SAFETY: the caller's contract is the run-time kernel's.
        unsafe { Self::taps(dev, out, input, taps) }
    }

    /// The variable-coefficient stencil in one pass where the backend has a kernel for it:
    /// `out[x] = sum_k coefficients[k][x] * input[x + offsets[k]]`, summed in order from the first
    /// product, each coefficient field describing its point of `out[0; N]` with its own strides;
    /// `Ok(true)` when done, `Ok(false)` with nothing written when the backend has none (the
    /// generic algorithm then composes it from elementwise products and sums, with the same
    /// roundings). The default has none.
    ///
    /// # Safety
    ///
    /// As for [`StencilKernels::taps`], with `coefficients.len() == offsets.len()` fields of
    /// `out`'s shape, live on `dev` and overlapping no element of `out`.
    ///
    /// # Errors
    ///
    /// As for [`StencilKernels::taps`].
    unsafe fn varying<T: Numeric, const N: usize>(
        dev: &Self::Device,
        out: Desc<Self, T, N>,
        input: Desc<Self, T, N>,
        offsets: &[[isize; N]],
        coefficients: &[Desc<Self, T, N>],
    ) -> Result<bool> {
        let _ = (dev, out, input, offsets, coefficients);
        Ok(false)
    }
}

/// The expression-stencil kernel a backend provides: any [`Stencil`] (what `stencil!` emits).
///
/// # Safety
///
/// Implementations write every element of each output with that output's value of `S`'s
/// expression at the taps of that point (the same operations in the same order as `S::point`
/// and [`CheckedExpr::eval`](crate::kernel::expr::CheckedExpr::eval); a device may differ only
/// where its documented math differs from the CPU's) and touch no other memory. `S` is a safe
/// trait: an implementation takes nothing from it unchecked. A device backend generates its code
/// only from what [`check`](fn@crate::kernel::expr::check) returned for `S` (never from text or
/// data it has not checked), and reads only its fields, within the box the taps `check` accepted
/// span around each output point (a kernel that shares loads among points may read the box's
/// corners that no tap reads). Its time steps inject
/// and sample points with the backend's elementwise and copy kernels, and read the samples back
/// with its download, hence the supertraits.
pub unsafe trait ExprStencilKernels: super::ElementwiseKernels + super::CopyKernels + super::Download {
    /// As [`StencilKernels::WAVEFRONT`].
    const WAVEFRONT: bool = false;

    /// `outputs[m][x] = S::point(taps at x, params).get(m)` for every output `m` and every point
    /// `x` of their shape, where tap `k` reads `fields[TAPS[k].field]` at `x + TAPS[k].offset`,
    /// each field (with its own strides) describing its point of `outputs[0][0; N]`.
    ///
    /// # Safety
    ///
    /// `fields.len() == S::FIELDS.len()` and `outputs.len() == S::VALUES.len()`, the outputs and
    /// the fields all of one shape; every descriptor addresses live memory on `dev`; every tap of every point
    /// lies inside its field, which is a view of an array (so the box the taps span around each
    /// point lies inside it too); the outputs' indices address distinct writable elements that
    /// overlap no field element and no other output's.
    ///
    /// # Errors
    ///
    /// `Error::Device` when a device fails; `Error::Limit` past a kernel's fixed limits.
    unsafe fn expression<S: Stencil<T, N>, T: Scalar, const N: usize>(
        dev: &Self::Device,
        outputs: &[Desc<Self, T, N>],
        fields: &[Desc<Self, T, N>],
        params: &S::Params,
    ) -> Result<()>;

    /// [`ExprStencilKernels::expression`] for an expression that is data at run time (a
    /// `TextStencil`), computing in `T`: `params[i]` is parameter `i`. The CPU compiles rows of
    /// it (feature `jit`) or interprets the nodes over blocks of points; devices generate and
    /// compile code as for a `Stencil` type, cached under [`ExprData::key`].
    ///
    /// # Safety
    ///
    /// As for [`ExprStencilKernels::expression`], with `data`'s counts of fields and values in
    /// place of `S`'s.
    ///
    /// # Errors
    ///
    /// As for [`ExprStencilKernels::expression`]; `Error::Layout` when `params` holds another
    /// count than the expression's parameters.
    unsafe fn expression_data<T: Scalar, const N: usize>(
        dev: &Self::Device,
        data: &ExprData<N>,
        outputs: &[Desc<Self, T, N>],
        fields: &[Desc<Self, T, N>],
        params: &[T],
    ) -> Result<()>;

    /// `steps` sweeps of `S` at once where the backend has a time-tiled kernel for it (a tile
    /// of the grid advanced several sweeps in fast on-chip memory): `Ok(true)` when done, with
    /// `fields[steps % 2]` holding sweep `steps` and `fields[(steps - 1) % 2]` sweep `steps - 1`
    /// on their interiors, exactly as `steps` calls of [`ExprStencilKernels::expression`] over
    /// the interior alternating between the fields; `Ok(false)`, with nothing written, when it
    /// has none (the caller then makes one call per sweep). The default has none.
    ///
    /// # Safety
    ///
    /// `fields` are two distinct whole fields of one shape on `dev` (`fields[0]` holds sweep 0),
    /// whose halos (the points within the stencil's radius of an edge) hold what every sweep
    /// reads there and are not written; `coefficients` are whole fields of the same shape, one per
    /// field of `S` after the first, overlapping neither; nothing else accesses any of them
    /// during the call; `steps >= 1`.
    ///
    /// # Errors
    ///
    /// As for [`ExprStencilKernels::expression`].
    unsafe fn expression_steps<S: Stencil<T, N>, T: Scalar, const N: usize>(
        dev: &Self::Device,
        fields: [Desc<Self, T, N>; 2],
        coefficients: &[Desc<Self, T, N>],
        params: &S::Params,
        steps: usize,
    ) -> Result<bool> {
        let _ = (dev, fields, coefficients, params, steps);
        Ok(false)
    }
}
