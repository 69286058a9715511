//! The element types a stencil computes in ([`Scalar`]), with one definition of each math
//! function so the CPU, the IR's interpreter and the device generators agree, and `powi` as
//! every backend computes it.

use crate::element::{Element, Float};

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
    impl Sealed for half::f16 {}
    impl Sealed for half::bf16 {}
}

/// The element types a [`Stencil`](super::Stencil) computes in: `f32`, `f64`, and the 16-bit floats `half::f16`
/// and `half::bf16` (every operation in `f32`, rounded back, on the host as on CUDA). The math a `stencil!` body may
/// call, with one definition per operation so the CPU and the device expressions agree. The
/// functions take no `self`, so they never compete with [`Float`]'s methods in `x.sqrt()`.
pub trait Scalar: Float + Element + super::Values<Self> + super::Widen<Self> + sealed::Sealed {
    /// The value of a literal: `x64` is the source literal parsed as `f64`, `x32` as `f32` (each
    /// correctly rounded by the compiler, as a device compiler rounds `0.1` / `0.1f`).
    fn literal(x64: f64, x32: f32) -> Self;
    /// `a` when `condition` holds, else `b` (both are computed: a stencil body has no branches).
    fn select(condition: bool, a: Self, b: Self) -> Self;
    /// The smaller of `a` and `b`; the other when one is NaN (C's `fmin`, WGSL's `min`); `a`
    /// when they compare equal, so `min(0.0, -0.0)` is `0.0` on every target (x86's rule, which
    /// aarch64's instruction does not follow, spelled out; run-time stencils' compiled rows
    /// spell the same).
    fn min(a: Self, b: Self) -> Self;
    /// The larger of `a` and `b`; the other when one is NaN (C's `fmax`, WGSL's `max`); `a` when
    /// they compare equal, as [`Scalar::min`].
    fn max(a: Self, b: Self) -> Self;
    /// Square root (correctly rounded, as IEEE 754 and CUDA's `sqrt` are).
    fn sqrt(x: Self) -> Self;
    /// `e^x`.
    fn exp(x: Self) -> Self;
    /// Natural logarithm.
    fn ln(x: Self) -> Self;
    /// Sine.
    fn sin(x: Self) -> Self;
    /// Cosine.
    fn cos(x: Self) -> Self;
    /// Hyperbolic tangent.
    fn tanh(x: Self) -> Self;
    /// Absolute value.
    fn abs(x: Self) -> Self;
    /// Largest integer not above `x`.
    fn floor(x: Self) -> Self;
    /// `x`, except that a subnormal becomes the zero of its sign (`Unary::Flush`): what a
    /// `stencil!` stores unless it says `#[subnormals(keep)]`. A decaying field otherwise fills
    /// with subnormals, on which x86 CPUs take a hundred cycles per operation (a 3x slower time
    /// loop, measured). Done in arithmetic on the bits, so every backend computes the same value
    /// whatever its own subnormal mode: the `f32` threshold for `f32` and the 16-bit floats
    /// (their arithmetic is `f32`; `f16` has no value below it but zero), the `f64` one for `f64`.
    fn flush(x: Self) -> Self;
}

macro_rules! scalar {
    ($($t:ident: $x64:ident, $x32:ident => $lit:ident, $exponent:literal, $sign:literal),*) => {$(
        impl Scalar for $t {
            #[inline(always)]
            fn literal($x64: f64, $x32: f32) -> $t {
                let _ = ($x64, $x32);
                $lit
            }
            #[inline(always)]
            fn select(condition: bool, a: $t, b: $t) -> $t {
                if condition {
                    a
                } else {
                    b
                }
            }
            #[inline(always)]
            fn min(a: $t, b: $t) -> $t {
                if a.is_nan() || b < a {
                    b
                } else {
                    a
                }
            }
            #[inline(always)]
            fn max(a: $t, b: $t) -> $t {
                if a.is_nan() || b > a {
                    b
                } else {
                    a
                }
            }
            #[inline(always)]
            fn sqrt(x: $t) -> $t {
                x.sqrt()
            }
            #[inline(always)]
            fn exp(x: $t) -> $t {
                x.exp()
            }
            #[inline(always)]
            fn ln(x: $t) -> $t {
                x.ln()
            }
            #[inline(always)]
            fn sin(x: $t) -> $t {
                x.sin()
            }
            #[inline(always)]
            fn cos(x: $t) -> $t {
                x.cos()
            }
            #[inline(always)]
            fn tanh(x: $t) -> $t {
                x.tanh()
            }
            #[inline(always)]
            fn abs(x: $t) -> $t {
                x.abs()
            }
            #[inline(always)]
            fn floor(x: $t) -> $t {
                x.floor()
            }
            #[inline(always)]
            fn flush(x: $t) -> $t {
                // Zero or subnormal exactly when the exponent field is zero: keep the sign only.
                if x.to_bits() & $exponent == 0 {
                    <$t>::from_bits(x.to_bits() & $sign)
                } else {
                    x
                }
            }
        }
    )*};
}

// Each type takes the literal the compiler parsed for it.
scalar!(
    f32: x64, x32 => x32, 0x7f80_0000, 0x8000_0000,
    f64: x64, x32 => x64, 0x7ff0_0000_0000_0000, 0x8000_0000_0000_0000
);

/// The 16-bit floats: literals from their `f32` parse (as CUDA's `T(4.0f)`), math through `f32`
/// and rounded back.
macro_rules! half_scalar {
    ($($t:ty: $exponent:literal),*) => {$(
        impl Scalar for $t {
            #[inline(always)]
            fn literal(_: f64, x32: f32) -> $t {
                <$t>::from_f32(x32)
            }
            #[inline(always)]
            fn select(condition: bool, a: $t, b: $t) -> $t {
                if condition {
                    a
                } else {
                    b
                }
            }
            #[inline(always)]
            fn min(a: $t, b: $t) -> $t {
                // One of the operands, exactly: the `f32` rule on the widened values.
                <$t>::from_f32(<f32 as Scalar>::min(a.to_f32(), b.to_f32()))
            }
            #[inline(always)]
            fn max(a: $t, b: $t) -> $t {
                <$t>::from_f32(<f32 as Scalar>::max(a.to_f32(), b.to_f32()))
            }
            #[inline(always)]
            fn sqrt(x: $t) -> $t {
                Float::sqrt(x)
            }
            #[inline(always)]
            fn exp(x: $t) -> $t {
                Float::exp(x)
            }
            #[inline(always)]
            fn ln(x: $t) -> $t {
                Float::ln(x)
            }
            #[inline(always)]
            fn sin(x: $t) -> $t {
                Float::sin(x)
            }
            #[inline(always)]
            fn cos(x: $t) -> $t {
                Float::cos(x)
            }
            #[inline(always)]
            fn tanh(x: $t) -> $t {
                Float::tanh(x)
            }
            #[inline(always)]
            fn abs(x: $t) -> $t {
                Float::abs(x)
            }
            #[inline(always)]
            fn floor(x: $t) -> $t {
                Float::floor(x)
            }
            #[inline(always)]
            fn flush(x: $t) -> $t {
                // As through f32, on the bits: a bf16 subnormal is an f32 subnormal; an f16 one
                // is not (f16 has no value below 2^-126 but zero), so f16 keeps every value.
                if $exponent != 0 && x.to_bits() & $exponent == 0 {
                    <$t>::from_bits(x.to_bits() & 0x8000)
                } else {
                    x
                }
            }
        }
    )*};
}

half_scalar!(half::f16: 0, half::bf16: 0x7f80);

/// `x` to the integer power `n` as every backend computes `powi` in a stencil: `|n| - 1`
/// multiplications from the left (`x * x * x`), then one division for negative `n`; `1` for 0.
/// (Rust's own `powi` leaves its method unspecified, so a device could not match it.)
#[inline(always)]
pub fn powi<T: Scalar>(x: T, n: i32) -> T {
    let mut p = if n == 0 { T::ONE } else { x };
    for _ in 1..n.unsigned_abs() {
        p = p * x;
    }
    if n < 0 {
        T::ONE / p
    } else {
        p
    }
}

#[cfg(test)]
mod tests {
    use super::Scalar;

    /// `min` and `max`: the other operand for a NaN, the first for equal operands (signed zeros
    /// included), whatever the target's instructions do.
    #[test]
    fn min_and_max_keep_the_first_of_equals_and_skip_a_nan() {
        fn check<T: Scalar + Into<f64>>(from: fn(f64) -> T) {
            let (zero, minus, one, nan) = (from(0.0), from(-0.0), from(1.0), from(f64::NAN));
            let bits = |x: T| Into::<f64>::into(x).to_bits();
            for (a, b) in [(zero, minus), (minus, zero)] {
                assert_eq!(bits(T::min(a, b)), bits(a));
                assert_eq!(bits(T::max(a, b)), bits(a));
            }
            assert_eq!(bits(T::min(nan, one)), bits(one));
            assert_eq!(bits(T::min(one, nan)), bits(one));
            assert_eq!(bits(T::max(nan, minus)), bits(minus));
            assert_eq!(bits(T::min(one, minus)), bits(minus));
            assert_eq!(bits(T::max(minus, one)), bits(one));
        }
        check::<f64>(|x| x);
        check::<f32>(|x| x as f32);
        check::<half::f16>(half::f16::from_f64);
        check::<half::bf16>(half::bf16::from_f64);
    }
}
