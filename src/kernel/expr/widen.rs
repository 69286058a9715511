//! Mixed precision: a stencil may store its fields in one type and compute in a wider one
//! (`#[compute(f32)]` over `f16` or `bf16` fields, `#[compute(f64)]` over `f32` fields). Each tap
//! is widened exactly, the whole expression computes in the wider type, and each value is
//! rounded once, to nearest even, when stored: where a 16-bit stencil rounds every operation,
//! a mixed one rounds once per point.

use half::{bf16, f16};

mod sealed {
    pub trait Sealed<T> {}
}

/// A type a stencil over fields of `T` may compute in (`Self` wider than `T`, or `T` itself):
/// `f32` for `f16`, `bf16` and `f32`; `f64` for `f32` and `f64`; each 16-bit type for itself.
/// Sealed: the device code generators emit exactly these conversions.
#[diagnostic::on_unimplemented(
    message = "a stencil computing in `{Self}` cannot take fields of `{T}`",
    label = "this stencil computes in `{Self}`",
    note = "`#[compute(f32)]` takes f16, bf16 and f32 fields; `#[compute(f64)]` takes f32 and f64 fields: convert the fields, or define the stencil with the other `#[compute(..)]`"
)]
pub trait Widen<T>: Copy + sealed::Sealed<T> + 'static {
    /// `x` in the wider type, exactly.
    fn widen(x: T) -> Self;
    /// `self` rounded to `T`, to nearest even.
    fn narrow(self) -> T;
}

macro_rules! same {
    ($($t:ty),*) => {$(
        impl sealed::Sealed<$t> for $t {}
        impl Widen<$t> for $t {
            #[inline(always)]
            fn widen(x: $t) -> $t {
                x
            }
            #[inline(always)]
            fn narrow(self) -> $t {
                self
            }
        }
    )*};
}

same!(f32, f64, f16, bf16);

macro_rules! half_in_f32 {
    ($($t:ty),*) => {$(
        impl sealed::Sealed<$t> for f32 {}
        impl Widen<$t> for f32 {
            #[inline(always)]
            fn widen(x: $t) -> f32 {
                x.to_f32()
            }
            #[inline(always)]
            fn narrow(self) -> $t {
                <$t>::from_f32(self)
            }
        }
    )*};
}

half_in_f32!(f16, bf16);

impl sealed::Sealed<f32> for f64 {}
impl Widen<f32> for f64 {
    #[inline(always)]
    fn widen(x: f32) -> f64 {
        f64::from(x)
    }
    #[inline(always)]
    fn narrow(self) -> f32 {
        self as f32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Widening is exact and narrowing rounds to nearest, ties to even, as the devices convert.
    #[test]
    fn widening_is_exact_and_narrowing_rounds_to_nearest_even() {
        for bits in (0..=u16::MAX).step_by(7) {
            let h = f16::from_bits(bits);
            if !h.is_nan() {
                assert_eq!(<f32 as Widen<f16>>::narrow(<f32 as Widen<f16>>::widen(h)), h);
            }
        }
        // 1 + 2^-11 lies halfway between two f16 values: to even (1); just above, up.
        let half_ulp = 1.0 + 2f32.powi(-11);
        assert_eq!(<f32 as Widen<f16>>::narrow(half_ulp), f16::ONE);
        assert_eq!(<f32 as Widen<f16>>::narrow(half_ulp + 2f32.powi(-20)), f16::from_f32(1.0 + 2f32.powi(-10)));
        assert_eq!(<f32 as Widen<bf16>>::narrow(1.0 + 2f32.powi(-8)), bf16::ONE);
        assert_eq!(<f64 as Widen<f32>>::narrow(1.0 + 2f64.powi(-24)), 1.0f32);
        assert_eq!(<f64 as Widen<f32>>::narrow(1.0 + 2f64.powi(-24) + 2f64.powi(-40)), 1.0 + f32::EPSILON);
        assert_eq!(<f64 as Widen<f32>>::widen(0.1f32), 0.1f32 as f64);
    }
}
