//! Op tokens of complex elements: the conjugate, and the magnitude, angle and squared magnitude
//! as real results. (`Abs` serves real and complex elements: `|z|` of a complex `z` is real.)

use num_complex::Complex;

use super::{Abs, UnaryOp};
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
        // Complex tokens are host-only until the device kernels exist.
        assert!(
            UnaryOp::<Complex<f32>>::device_form(Conj).is_none() && UnaryOp::<Complex<f64>>::device_form(Abs).is_none()
        );
    }
}
