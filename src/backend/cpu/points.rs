//! The point walker: every point of a stencil region, with the output element, the input centre
//! and the input's strides, on the lane engine.

use super::lanes::{walk_lanes, Lane};

/// `f(&mut output[x], pointer to input[x], strides)` for every point `x` of `shape`, with `input`
/// and `output` pointing at the point `[0; N]` and `strides` the input's. Walks lanes along the
/// last axis; on lanes where both step by one, the output lane is a slice and the strides handed
/// to `f` end in the literal 1, so LLVM knows the writes alias no read and the neighbours' offsets
/// are constants, and vectorizes the loop. Everything the loop reads is a local value (moved
/// into the lane closure, copied before the loop): values read through a closure's environment
/// would be reloaded after every store, which kept the loop scalar (3x slower, measured). The
/// input is read through raw pointers only: a slice spanning rows around a lane would also span
/// memory between rows that may belong to other views. The one point walker of the closure
/// sweeps and the CPU's stencil kernel.
///
/// # Safety
///
/// Every point's input element is a live element and its output element is live, writable,
/// distinct per point and written by nobody else; `f` reads only input elements the caller
/// vouches for; the output does not overlap them.
#[inline(always)]
pub(crate) unsafe fn for_each_point<T, const N: usize>(
    input: *const T,
    in_strides: [isize; N],
    output: *mut T,
    out_strides: [isize; N],
    shape: [usize; N],
    f: &mut impl FnMut(&mut T, *const T, [isize; N]),
) {
    walk_lanes(shape, [in_strides, out_strides], PointLanes { input, in_strides, output, f });
}

/// The lanes of [`for_each_point`] (a named type, so the SIMD-dispatched stencil kernel inlines
/// its loops).
struct PointLanes<'f, T, const N: usize, F> {
    input: *const T,
    in_strides: [isize; N],
    output: *mut T,
    f: &'f mut F,
}

impl<T, const N: usize, F: FnMut(&mut T, *const T, [isize; N])> Lane<2> for PointLanes<'_, T, N, F> {
    #[inline(always)]
    fn run(&mut self, [bi, bo]: [isize; 2], len: usize, [si, so]: [isize; 2]) {
        let (f, in_strides) = (&mut *self.f, self.in_strides);
        // SAFETY: `for_each_point`'s contract, for every point of the lane (in-bounds pointer
        // arithmetic, which LLVM needs to vectorize the loop).
        unsafe {
            let (centre, out) = (self.input.offset(bi), self.output.offset(bo));
            if si == 1 && so == 1 {
                let mut unit = in_strides;
                unit[N - 1] = 1;
                let out = core::slice::from_raw_parts_mut(out, len);
                for j in 0..len {
                    f(out.get_unchecked_mut(j), centre.add(j), unit);
                }
            } else {
                for j in 0..len as isize {
                    f(&mut *out.offset(j * so), centre.offset(j * si), in_strides);
                }
            }
        }
    }
}
