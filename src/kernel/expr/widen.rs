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

impl sealed::Sealed<f16> for f32 {}
impl Widen<f16> for f32 {
    #[inline(always)]
    fn widen(x: f16) -> f32 {
        f16_to_f32(x)
    }
    #[inline(always)]
    fn narrow(self) -> f16 {
        f32_to_f16(self)
    }
}

impl sealed::Sealed<bf16> for f32 {}
impl Widen<bf16> for f32 {
    #[inline(always)]
    fn widen(x: bf16) -> f32 {
        x.to_f32()
    }
    #[inline(always)]
    fn narrow(self) -> bf16 {
        bf16::from_f32(self)
    }
}

// The f16 conversions as selects between the cases rather than branches, so the CPU kernels'
// loops over points vectorize (`half`'s portable conversions branch per value: f16 fields
// computed in f32 ran at a nineteenth of f32 fields' speed, docs/BENCHMARKS.md). The same values
// as `half`'s, NaN payloads included (tested over every f16, and every f32 near a rounding tie).

/// `h` as f32, exactly.
#[inline(always)]
fn f16_to_f32(h: f16) -> f32 {
    let h = u32::from(h.to_bits());
    let sign = (h & 0x8000) << 16;
    // Exponent and mantissa moved to their f32 places, the exponent rebased (15 to 127).
    let moved = (h & 0x7fff) << 13;
    let exponent = moved & 0x0f80_0000;
    let normal = moved + (112 << 23);
    // Infinity and NaN: the exponent all ones, a NaN made quiet as `half` makes it.
    let quiet = if moved & 0x007f_e000 != 0 { 0x0040_0000 } else { 0 };
    let special = (normal + (112 << 23)) | quiet;
    // Zero and subnormals: 2^-14 (1 + m / 1024) - 2^-14, exact.
    let tiny = (f32::from_bits(moved + (113 << 23)) - f32::from_bits(113 << 23)).to_bits();
    let bits = if exponent == 0x0f80_0000 {
        special
    } else if exponent == 0 {
        tiny
    } else {
        normal
    };
    f32::from_bits(bits | sign)
}

/// `x` rounded to f16, to nearest even.
#[inline(always)]
fn f32_to_f16(x: f32) -> f16 {
    let bits = x.to_bits();
    let sign = ((bits >> 16) & 0x8000) as u16;
    let a = bits & 0x7fff_ffff;
    // Normal results: the exponent rebased (127 to 15), then the 13 dropped bits rounded to
    // nearest even (adding 0xfff plus the kept bit carries exactly when they pass half, or tie
    // at an odd kept bit); a carry out of the mantissa raises the exponent, up to infinity.
    let normal = (a.wrapping_add(0xc800_0000).wrapping_add(0xfff + ((a >> 13) & 1)) >> 13) as u16;
    // Below 2^-14: adding 0.5 (whose ulp is 2^-24, an f16 subnormal's) rounds to nearest even.
    let tiny = (f32::from_bits(a) + 0.5).to_bits().wrapping_sub(0x3f00_0000) as u16;
    // From 2^16 up: infinity; a NaN keeps its payload's top bits, made quiet.
    let nan = if a > 0x7f80_0000 { 0x0200 | ((a & 0x007f_ffff) >> 13) as u16 } else { 0 };
    let o = if a >= 0x4780_0000 {
        0x7c00 | nan
    } else if a < 0x3880_0000 {
        tiny
    } else {
        normal
    };
    f16::from_bits(o | sign)
}

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

    /// Every f16 widens as `half` widens it (NaNs bit for bit).
    #[test]
    fn f16_widens_as_half_does_for_every_value() {
        for bits in 0..=u16::MAX {
            let h = f16::from_bits(bits);
            assert_eq!(f16_to_f32(h).to_bits(), h.to_f32().to_bits(), "{bits:#06x}");
        }
    }

    /// f32 narrows to f16 as `half` narrows it: at every rounding tie between neighbouring f16
    /// values (and one bit either side), on a stride through every f32, and at the edges.
    #[test]
    fn f32_narrows_to_f16_as_half_does() {
        let check = |x: u32| {
            let f = f32::from_bits(x);
            assert_eq!(f32_to_f16(f).to_bits(), f16::from_f32(f).to_bits(), "{x:#010x} ({f:e})");
        };
        for bits in 0..0x7c00u16 {
            let (lo, hi) = (f16::from_bits(bits).to_f32(), f16::from_bits(bits + 1).to_f32());
            let tie = ((f64::from(lo) + f64::from(hi)) / 2.0) as f32;
            for d in [-1i64, 0, 1] {
                check((i64::from(tie.to_bits()) + d) as u32);
                check((i64::from(tie.to_bits()) + d) as u32 | 0x8000_0000);
            }
        }
        for x in (0..=u32::MAX).step_by(4099) {
            check(x);
        }
        for x in [0, 1, 0x3880_0000 - 1, 0x3880_0000, 0x477f_efff, 0x477f_f000, 0x4780_0000, 0x7f7f_ffff] {
            check(x);
            check(x | 0x8000_0000);
        }
        for x in [0x7f80_0000u32, 0x7f80_0001, 0x7f80_2000, 0x7fc0_0000, 0x7fff_ffff] {
            check(x);
            check(x | 0x8000_0000);
        }
    }

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
