//! Op tokens of complex elements: the conjugate, and the magnitude, angle and squared magnitude
//! as real results. (`Abs` serves real and complex elements: `|z|` of a complex `z` is real.)
//! Device kernels know each by its name; the real-valued ones take a form of their own
//! ([`DEVICE_COMPLEX_UNARY`](super::DEVICE_COMPLEX_UNARY),
//! [`DEVICE_COMPLEX_REAL`](super::DEVICE_COMPLEX_REAL)).

use num_complex::Complex;

use super::{Abs, DeviceUnary, UnaryOp};
use crate::element::ComplexPart;

/// `re - i im`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Conj;

impl<F: ComplexPart> UnaryOp<Complex<F>> for Conj {
    type Output = Complex<F>;
    const NAME: &'static str = "conj";

    #[inline(always)]
    fn apply(self, z: Complex<F>) -> Complex<F> {
        Complex::new(z.re, -z.im)
    }

    fn device_form(self) -> Option<DeviceUnary<Complex<F>>> {
        Some(DeviceUnary::Named("conj"))
    }
}

/// `|z| = hypot(re, im)`, as NumPy's `abs` of a complex array (no overflow for parts near the
/// type's largest value).
impl<F: ComplexPart> UnaryOp<Complex<F>> for Abs {
    type Output = F;
    const NAME: &'static str = "abs";

    #[inline(always)]
    fn apply(self, z: Complex<F>) -> F {
        z.re.hypot(z.im)
    }

    fn device_form(self) -> Option<DeviceUnary<Complex<F>>> {
        Some(DeviceUnary::Named("abs"))
    }
}

/// The angle `atan2(im, re)` in `(-π, π]`, NumPy's `angle`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Arg;

impl<F: ComplexPart> UnaryOp<Complex<F>> for Arg {
    type Output = F;
    const NAME: &'static str = "arg";

    #[inline(always)]
    fn apply(self, z: Complex<F>) -> F {
        z.im.atan2(z.re)
    }

    fn device_form(self) -> Option<DeviceUnary<Complex<F>>> {
        Some(DeviceUnary::Named("arg"))
    }
}

/// `re² + im²` (a power spectrum's values), without the square root of `Abs`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NormSqr;

impl<F: ComplexPart> UnaryOp<Complex<F>> for NormSqr {
    type Output = F;
    const NAME: &'static str = "norm_sqr";

    #[inline(always)]
    fn apply(self, z: Complex<F>) -> F {
        z.re * z.re + z.im * z.im
    }

    fn device_form(self) -> Option<DeviceUnary<Complex<F>>> {
        // A single word, as every device name (`abs2`, as Julia calls it).
        Some(DeviceUnary::Named("abs2"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn complex_tokens_compute_what_they_name() {
        let z = Complex::new(3.0f64, -4.0);
        assert_eq!(Conj.apply(z), Complex::new(3.0, 4.0));
        assert_eq!(UnaryOp::<Complex<f64>>::apply(Abs, z), 5.0);
        assert_eq!(NormSqr.apply(z), 25.0);
        assert_eq!(Arg.apply(Complex::new(-1.0f32, 0.0)), core::f32::consts::PI);
        assert_eq!(UnaryOp::<Complex<f32>>::apply(Abs, Complex::new(3e37f32, 4e37)), 5e37f32);
        // Devices know them by name, among cnda's own.
        use super::super::{check_device_name, DEVICE_COMPLEX_REAL, DEVICE_COMPLEX_UNARY};
        fn named<T: core::fmt::Debug>(form: Option<DeviceUnary<T>>) -> &'static str {
            match form {
                Some(DeviceUnary::Named(name)) => name,
                other => panic!("{other:?}"),
            }
        }
        assert!(check_device_name(named(UnaryOp::<Complex<f32>>::device_form(Conj)), DEVICE_COMPLEX_UNARY, "").is_ok());
        for name in [
            named(UnaryOp::<Complex<f64>>::device_form(Abs)),
            named(UnaryOp::<Complex<f64>>::device_form(Arg)),
            named(UnaryOp::<Complex<f64>>::device_form(NormSqr)),
        ] {
            assert!(check_device_name(name, DEVICE_COMPLEX_REAL, "test").is_ok(), "{name}");
        }
    }
}
