//! The host engine contract: the loops that the host-side closure APIs (`map`, `zip_with`,
//! `Zip`, `for_each`, the closure stencil sweeps and their `par_*` forms) run on. Closures are
//! host code, so these loops are the CPU backend's (`backend/cpu`: its lane engine, thread
//! splitter, point walker and SIMD dispatch); generic code reaches them through [`HostEngine`]
//! on [`Cpu`](crate::kernel::Cpu), never by importing the backend.

#[cfg(feature = "rayon")]
use crate::element::{Arithmetic, Numeric};
#[cfg(feature = "rayon")]
use crate::error::Result;
#[cfg(feature = "rayon")]
use crate::kernel::{Cpu, Desc};

/// A read operand: pointer to the element at index 0 and its strides (0 on broadcast axes).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Src<T, const N: usize> {
    pub(crate) ptr: *const T,
    pub(crate) strides: [isize; N],
}

/// A write operand.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Dst<T, const N: usize> {
    pub(crate) ptr: *mut T,
    pub(crate) strides: [isize; N],
}

// SAFETY: a `Src` only reads its elements, so sharing it across threads is as safe as sharing
// `&T`; the kernels' callers guarantee the pointed-to memory outlives every use.
unsafe impl<T: Sync, const N: usize> Send for Src<T, N> {}
// SAFETY: as above.
unsafe impl<T: Sync, const N: usize> Sync for Src<T, N> {}
// SAFETY: parallel callers hand each thread a disjoint block of a `Dst` (split along axis 0), so
// each element is written by one thread, as with `&mut [T]` split into chunks.
unsafe impl<T: Send, const N: usize> Send for Dst<T, N> {}
// SAFETY: as above.
unsafe impl<T: Send, const N: usize> Sync for Dst<T, N> {}

#[cfg(feature = "rayon")]
impl<T, const N: usize> Src<T, N> {
    /// The operand shifted to position `index` of axis 0.
    pub(crate) fn at_row(self, index: usize) -> Self {
        let offset = if N == 0 { 0 } else { index as isize * self.strides[0] };
        Src { ptr: self.ptr.wrapping_offset(offset), strides: self.strides }
    }
}

#[cfg(feature = "rayon")]
impl<T, const N: usize> Dst<T, N> {
    /// The operand shifted to position `index` of axis 0.
    pub(crate) fn at_row(self, index: usize) -> Self {
        let offset = if N == 0 { 0 } else { index as isize * self.strides[0] };
        Dst { ptr: self.ptr.wrapping_offset(offset), strides: self.strides }
    }
}

/// The loops of the host engine. Implemented by `Cpu` only; crate-private, because its callers
/// uphold contracts the type system cannot state (distinct output elements, live pointers).
pub(crate) trait HostEngine {
    /// Calls `f(bases, len, steps)` once per lane (run along the last axes) of `K` operands in
    /// lockstep: `bases[k]` is operand `k`'s element offset of the lane's first element, `len`
    /// the lane length, `steps[k]` operand `k`'s stride along it. Lanes come in row-major order
    /// of the outer indices, trailing axes merged wherever every operand steps through them
    /// uniformly. Nothing is called for an empty shape.
    fn for_each_lane<const N: usize, const K: usize>(
        shape: [usize; N],
        strides: [[isize; N]; K],
        f: impl FnMut([isize; K], usize, [isize; K]),
    );

    /// `out[i] = f(a[i], b[i])` for every index of `shape`.
    ///
    /// # Safety
    ///
    /// Every in-bounds index maps each operand to a valid element; `out` elements are distinct
    /// per index, writable, may be uninitialized, and overlap neither input.
    unsafe fn binary_map<A: Copy, B: Copy, R, const N: usize>(
        shape: [usize; N],
        a: Src<A, N>,
        b: Src<B, N>,
        out: Dst<R, N>,
        f: impl FnMut(A, B) -> R,
    );

    /// `out[i] = f(a[i])` for every index of `shape`.
    ///
    /// # Safety
    ///
    /// As for [`HostEngine::binary_map`], with one input.
    unsafe fn unary_map<A: Copy, R, const N: usize>(
        shape: [usize; N],
        a: Src<A, N>,
        out: Dst<R, N>,
        f: impl FnMut(A) -> R,
    );

    /// `f(&mut dst[i])` for every index of `shape`.
    ///
    /// # Safety
    ///
    /// `dst` elements are initialized, writable and distinct per index.
    unsafe fn update<T, const N: usize>(shape: [usize; N], dst: Dst<T, N>, f: impl FnMut(&mut T));

    /// `f(&mut dst[i], src[i])` for every index of `shape`.
    ///
    /// # Safety
    ///
    /// `dst` elements are initialized, distinct per index, and overlap no `src` element read.
    unsafe fn update_with<T, U: Copy, const N: usize>(
        shape: [usize; N],
        dst: Dst<T, N>,
        src: Src<U, N>,
        f: impl FnMut(&mut T, U),
    );

    /// `f(&mut output[x], pointer to input[x], strides)` for every point `x` of `shape`, with
    /// `input` and `output` pointing at the point `[0; N]` and `strides` the input's; compiled for
    /// the best instruction set of this CPU (the point walker of the closure stencil sweeps).
    ///
    /// # Safety
    ///
    /// Every point's input element is a live element and its output element is live, writable,
    /// distinct per point and written by nobody else; `f` reads only input elements the caller
    /// vouches for; the output does not overlap them.
    unsafe fn for_each_point<T, const N: usize>(
        input: *const T,
        in_strides: [isize; N],
        output: *mut T,
        out_strides: [isize; N],
        shape: [usize; N],
        f: impl FnMut(&mut T, *const T, [isize; N]),
    );

    /// Pairwise sum of a slice (the same summation order as the CPU's `sum` kernel).
    #[cfg(feature = "rayon")]
    fn sum_slice<T: Arithmetic>(x: &[T]) -> T;

    /// Runs `work` on disjoint sub-ranges covering `range`, about `per_thread` of them per
    /// thread of rayon's pool, in parallel.
    #[cfg(feature = "rayon")]
    fn for_each_subrange(
        range: core::ops::Range<usize>,
        per_thread: usize,
        work: impl Fn(core::ops::Range<usize>) + Sync + Send,
    );

    /// Calls `work(first_row, block_shape)` for disjoint blocks of rows covering axis 0, in
    /// parallel.
    #[cfg(feature = "rayon")]
    fn for_each_row_block<const N: usize>(shape: [usize; N], work: impl Fn(usize, [usize; N]) + Sync + Send);

    /// `StencilKernels::taps` for one band of a sweep that writes `sweep_bytes` in all: the CPU
    /// writes a sweep that outgrows its last-level cache with non-temporal stores (the band alone
    /// cannot tell; the plain kernel, which the fused sweeps call per hyperplane, never streams).
    ///
    /// # Safety
    ///
    /// As for `StencilKernels::taps`.
    ///
    /// # Errors
    ///
    /// As for `StencilKernels::taps`.
    #[cfg(feature = "rayon")]
    unsafe fn taps_in_sweep<T: Numeric, const N: usize>(
        out: Desc<Cpu, T, N>,
        input: Desc<Cpu, T, N>,
        taps: &[([isize; N], T)],
        sweep_bytes: usize,
    ) -> Result<()>;

    /// `StencilKernels::varying` for one band of a sweep that writes `sweep_bytes` in all (see
    /// [`HostEngine::taps_in_sweep`]).
    ///
    /// # Safety
    ///
    /// As for `StencilKernels::varying`.
    ///
    /// # Errors
    ///
    /// As for `StencilKernels::varying`.
    #[cfg(feature = "rayon")]
    unsafe fn varying_in_sweep<T: Numeric, const N: usize>(
        out: Desc<Cpu, T, N>,
        input: Desc<Cpu, T, N>,
        offsets: &[[isize; N]],
        coefficients: &[Desc<Cpu, T, N>],
        sweep_bytes: usize,
    ) -> Result<()>;
}
