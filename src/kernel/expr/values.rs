//! What a stencil computes at one point: one value per output ([`Values`]), `T` for a stencil of
//! one output and `[T; M]` for `M` (a system's updated fields, computed in one pass).

use super::Scalar;

mod sealed {
    pub trait Sealed {}
}

/// The values of one point of a [`Stencil`](super::Stencil): `T` for one output, `[T; M]` for `M`
/// outputs (1 to [`MAX_OUTPUTS`]). Sealed: kernels write exactly [`Values::LEN`] outputs, so only
/// these types may claim a count.
pub trait Values<T>: Copy + Send + Sync + sealed::Sealed + 'static {
    /// The number of outputs.
    const LEN: usize;
    /// The value of output `m` (`m < LEN`).
    fn get(&self, m: usize) -> T;
}

/// The most outputs a stencil may have: what the kernels' tables hold (compressible flow updates
/// five fields in one pass; larger systems split into stages).
pub const MAX_OUTPUTS: usize = 8;

macro_rules! one_value {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl Values<$t> for $t {
            const LEN: usize = 1;
            #[inline(always)]
            fn get(&self, m: usize) -> $t {
                debug_assert_eq!(m, 0, "a stencil of one output has no output {m}");
                *self
            }
        }
    )*};
}

one_value!(f32, f64, half::f16, half::bf16);

impl<T: Scalar, const M: usize> sealed::Sealed for [T; M] {}
impl<T: Scalar, const M: usize> Values<T> for [T; M] {
    const LEN: usize = M;
    #[inline(always)]
    fn get(&self, m: usize) -> T {
        self[m]
    }
}
