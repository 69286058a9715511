//! The constant-coefficient stencil kernel family.

use crate::element::Numeric;
use crate::error::Result;
use crate::kernel::{Backend, Desc};

/// The constant-coefficient stencil kernel a backend provides.
///
/// # Safety
///
/// Implementations write every element of `out` with the weighted sum of the taps, in tap order,
/// and touch no other memory.
pub unsafe trait StencilKernels: Backend {
    /// `out[x] = sum_k taps[k].1 * input[x + taps[k].0]` for every point `x` of `out.shape`, where
    /// `input` (with its own strides) describes the input point of `out[0; N]`.
    ///
    /// # Safety
    ///
    /// Both address live memory on `dev`; every tap of every point lies inside the input; `out`'s
    /// indices address distinct writable elements that overlap no input element.
    ///
    /// # Errors
    ///
    /// `Error::Device` when a device fails.
    unsafe fn linear<T: Numeric, const N: usize, const K: usize>(
        dev: &Self::Device,
        out: Desc<Self, T, N>,
        input: Desc<Self, T, N>,
        taps: &[([isize; N], T); K],
    ) -> Result<()>;
}
