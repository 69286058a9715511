//! Element types: the `Pod` bound, numeric elements, and the runtime [`DType`] tag.

use core::fmt;

use num_complex::Complex;

pub use bytemuck::Zeroable;

/// The element bound of every array: plain old data (`Copy`, no padding, no pointers, every bit
/// pattern valid), i.e. any type that implements [`bytemuck::Pod`]. It exists so that a wrong
/// element type gets cnda's message instead of a list of unrelated `Pod` types; implement (or
/// derive) `bytemuck::Pod` for your own types, or declare them with `structured!`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be an array element: cnda elements must be plain old data (`bytemuck::Pod`)",
    label = "not plain old data",
    note = "elements are copied bit for bit and shared with NumPy, devices and MPI, so they cannot own memory \
            (`String`, `Vec`, `Box`) or hold references; use the numeric types, `[T; K]` arrays of them, \
            or declare a struct of scalar fields with `cnda::structured!`"
)]
pub trait Pod: bytemuck::Pod {}

#[diagnostic::do_not_recommend]
impl<T: bytemuck::Pod> Pod for T {}

/// Runtime tag of an element type, for type-erased code (interop, serialization, error messages).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DType {
    /// `i8`
    I8,
    /// `i16`
    I16,
    /// `i32`
    I32,
    /// `i64`
    I64,
    /// `isize`
    Isize,
    /// `u8`
    U8,
    /// `u16`
    U16,
    /// `u32`
    U32,
    /// `u64`
    U64,
    /// `usize`
    Usize,
    /// IEEE 754 half precision (`half::f16`)
    F16,
    /// bfloat16 (`half::bf16`)
    BF16,
    /// `f32`
    F32,
    /// `f64`
    F64,
    /// `Complex<f32>` (NumPy's `complex64`: two `f32`, real part first)
    C64,
    /// `Complex<f64>` (NumPy's `complex128`: two `f64`, real part first)
    C128,
}

impl DType {
    /// Size of one element in bytes.
    pub const fn size(self) -> usize {
        match self {
            DType::I8 | DType::U8 => 1,
            DType::I16 | DType::U16 | DType::F16 | DType::BF16 => 2,
            DType::I32 | DType::U32 | DType::F32 => 4,
            DType::I64 | DType::U64 | DType::F64 | DType::C64 => 8,
            DType::C128 => 16,
            DType::Isize | DType::Usize => core::mem::size_of::<usize>(),
        }
    }

    /// The NumPy name of the type (`"float64"`, `"int32"`, ...).
    pub const fn name(self) -> &'static str {
        match self {
            DType::I8 => "int8",
            DType::I16 => "int16",
            DType::I32 => "int32",
            DType::I64 => "int64",
            DType::Isize => "intp",
            DType::U8 => "uint8",
            DType::U16 => "uint16",
            DType::U32 => "uint32",
            DType::U64 => "uint64",
            DType::Usize => "uintp",
            DType::F16 => "float16",
            DType::BF16 => "bfloat16",
            DType::F32 => "float32",
            DType::F64 => "float64",
            DType::C64 => "complex64",
            DType::C128 => "complex128",
        }
    }

    /// Whether the type is a real floating-point type.
    pub const fn is_float(self) -> bool {
        matches!(self, DType::F16 | DType::BF16 | DType::F32 | DType::F64)
    }

    /// Whether the type is a complex type.
    pub const fn is_complex(self) -> bool {
        matches!(self, DType::C64 | DType::C128)
    }

    /// The type of a complex type's parts (`C64`: `F32`, `C128`: `F64`); `None` for real types.
    pub const fn part(self) -> Option<DType> {
        match self {
            DType::C64 => Some(DType::F32),
            DType::C128 => Some(DType::F64),
            _ => None,
        }
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

mod sealed {
    pub trait Sealed {}
}

/// A scalar element with a runtime [`DType`]: the primitive numeric types, `half`'s floats and
/// [`Complex`]`<f32 | f64>`.
///
/// Arrays hold any [`Pod`] type (structured elements included); `Element` adds what type-erased
/// code needs. Sealed: code that reinterprets memory by `DTYPE` (structured field views, interop)
/// trusts that `DTYPE.size() == size_of::<Self>()`, which only this crate's impls guarantee.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a cnda scalar element",
    label = "not one of cnda's scalar element types",
    note = "the scalar elements are i8..i64, isize, u8..u64, usize, f32, f64, half::f16, half::bf16, \
            Complex<f32> and Complex<f64>; arrays of your own `Pod` structs work through `structured!`"
)]
pub trait Element: sealed::Sealed + Pod + Send + Sync + fmt::Debug + fmt::Display + PartialEq {
    /// The runtime tag of this type.
    const DTYPE: DType;
}

/// An element with zero, one and the four arithmetic operations: every [`Numeric`] type and
/// `Complex<f32 | f64>`. What sums, products, means, `dot` and the arithmetic operators need
/// (`matmul` needs a [`GemmElement`](crate::GemmElement)).
pub trait Arithmetic:
    Element
    + core::ops::Add<Output = Self>
    + core::ops::Sub<Output = Self>
    + core::ops::Mul<Output = Self>
    + core::ops::Div<Output = Self>
{
    /// Additive identity.
    const ZERO: Self;
    /// Multiplicative identity.
    const ONE: Self;

    /// `n` converted to this type (rounded for floats, wrapping for narrow integers), for means.
    fn from_usize(n: usize) -> Self;

    /// This value divided by the count `n` (a mean's last step): `self / n` for real types, each
    /// part divided by `n` for complex ones (a complex division by `n + 0i` would square `n`,
    /// overflowing early and rounding twice).
    fn div_count(self, n: usize) -> Self {
        self / Self::from_usize(n)
    }

    /// Whether the value is a float NaN, or a complex number with a NaN part (always `false` for
    /// integers).
    #[allow(clippy::eq_op)]
    fn is_nan(self) -> bool {
        self != self
    }
}

/// A real numeric element: [`Arithmetic`] and ordered (what `min`, `max`, comparisons and
/// stencils' bounds need). Every scalar element but the complex ones.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a real numeric element",
    label = "needs an ordered, real element type",
    note = "complex numbers have no order: `min`, `max`, `argmin`, `argmax`, their `_axis` forms, `%` and stencils \
            take real elements; use `z.abs()`, `z.norm_sqr()` or `z.re()` to get a real array"
)]
pub trait Numeric: Arithmetic + PartialOrd {
    /// The largest value: `+inf` for floats, `MAX` for integers (the identity of `min`).
    const LARGEST: Self;
    /// The smallest value: `-inf` for floats, `MIN` for integers (the identity of `max`).
    const SMALLEST: Self;
}

/// The [`Element::DTYPE`] of `T` when `T` is an element type (kernels are generic over any
/// [`Pod`], and a device backend's kernel-suffix map starts from this).
pub fn dtype_of<T: 'static>() -> Option<DType> {
    let id = core::any::TypeId::of::<T>();
    ELEMENT_TYPES.iter().find(|(t, _)| (t)() == id).map(|&(_, d)| d)
}

/// The bytes of one part of `T` when `T` is a complex number (`Complex<f32>`: 4, `Complex<f64>`:
/// 8), for kernels that move complex elements as their real and imaginary parts.
#[cfg(any(feature = "cuda", feature = "wgpu"))]
pub(crate) fn complex_part_size<T: 'static>() -> Option<usize> {
    dtype_of::<T>().and_then(DType::part).map(DType::size)
}

macro_rules! numeric {
    ($($t:ty => $tag:ident, $zero:expr, $one:expr, $largest:expr, $smallest:expr, $from:expr;)*) => {
        /// Every element type's `TypeId` (as a function: `TypeId::of` is not const) and `DTYPE`.
        static ELEMENT_TYPES: &[(fn() -> core::any::TypeId, DType)] = &[
            $((core::any::TypeId::of::<$t> as fn() -> core::any::TypeId, <$t as Element>::DTYPE),)*
            (core::any::TypeId::of::<Complex<f32>>, DType::C64),
            (core::any::TypeId::of::<Complex<f64>>, DType::C128),
        ];
        $(
        impl sealed::Sealed for $t {}
        impl Element for $t {
            const DTYPE: DType = DType::$tag;
        }
        impl Arithmetic for $t {
            const ZERO: Self = $zero;
            const ONE: Self = $one;
            #[allow(clippy::cast_possible_truncation)]
            fn from_usize(n: usize) -> Self {
                $from(n)
            }
        }
        impl Numeric for $t {
            const LARGEST: Self = $largest;
            const SMALLEST: Self = $smallest;
        }
    )*};
}

numeric! {
    i8 => I8, 0, 1, i8::MAX, i8::MIN, |n| n as i8;
    i16 => I16, 0, 1, i16::MAX, i16::MIN, |n| n as i16;
    i32 => I32, 0, 1, i32::MAX, i32::MIN, |n| n as i32;
    i64 => I64, 0, 1, i64::MAX, i64::MIN, |n| n as i64;
    isize => Isize, 0, 1, isize::MAX, isize::MIN, |n| n as isize;
    u8 => U8, 0, 1, u8::MAX, u8::MIN, |n| n as u8;
    u16 => U16, 0, 1, u16::MAX, u16::MIN, |n| n as u16;
    u32 => U32, 0, 1, u32::MAX, u32::MIN, |n| n as u32;
    u64 => U64, 0, 1, u64::MAX, u64::MIN, |n| n as u64;
    usize => Usize, 0, 1, usize::MAX, usize::MIN, |n| n;
    half::f16 => F16, half::f16::ZERO, half::f16::ONE, half::f16::INFINITY, half::f16::NEG_INFINITY, |n| half::f16::from_f64(n as f64);
    half::bf16 => BF16, half::bf16::ZERO, half::bf16::ONE, half::bf16::INFINITY, half::bf16::NEG_INFINITY, |n| half::bf16::from_f64(n as f64);
    f32 => F32, 0.0, 1.0, f32::INFINITY, f32::NEG_INFINITY, |n| n as f32;
    f64 => F64, 0.0, 1.0, f64::INFINITY, f64::NEG_INFINITY, |n| n as f64;
}

macro_rules! complex {
    ($($t:ty => $tag:ident;)*) => {$(
        impl sealed::Sealed for Complex<$t> {}
        impl Element for Complex<$t> {
            const DTYPE: DType = DType::$tag;
        }
        impl Arithmetic for Complex<$t> {
            const ZERO: Self = Complex::new(0.0, 0.0);
            const ONE: Self = Complex::new(1.0, 0.0);
            #[allow(clippy::cast_possible_truncation)]
            fn from_usize(n: usize) -> Self {
                Complex::new(n as $t, 0.0)
            }
            #[allow(clippy::cast_possible_truncation)]
            fn div_count(self, n: usize) -> Self {
                let n = n as $t;
                Complex::new(self.re / n, self.im / n)
            }
        }
    )*};
}

complex! {
    f32 => C64;
    f64 => C128;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dtype_sizes_match_the_rust_types() {
        assert_eq!(<f64 as Element>::DTYPE.size(), core::mem::size_of::<f64>());
        assert_eq!(<half::bf16 as Element>::DTYPE.size(), 2);
        assert_eq!(<usize as Element>::DTYPE.size(), core::mem::size_of::<usize>());
        assert_eq!(<u8 as Element>::DTYPE.size(), 1);
    }

    #[test]
    fn every_dtype_size_matches_its_type() {
        fn check<T: Element>() {
            assert_eq!(T::DTYPE.size(), core::mem::size_of::<T>(), "{}", T::DTYPE);
        }
        check::<i8>();
        check::<i16>();
        check::<i32>();
        check::<i64>();
        check::<isize>();
        check::<u8>();
        check::<u16>();
        check::<u32>();
        check::<u64>();
        check::<usize>();
        check::<half::f16>();
        check::<half::bf16>();
        check::<f32>();
        check::<f64>();
        check::<Complex<f32>>();
        check::<Complex<f64>>();
    }

    #[test]
    fn dtype_names_follow_numpy() {
        assert_eq!(DType::F32.to_string(), "float32");
        assert_eq!(<i64 as Element>::DTYPE.name(), "int64");
        assert!(DType::F16.is_float());
        assert!(!DType::U16.is_float());
    }
}

/// A floating-point element (`f32`, `f64`): what elementwise math (`sqrt`, `exp`, ...) needs.
pub trait Float: Numeric + core::ops::Neg<Output = Self> {
    /// Absolute value.
    fn abs(self) -> Self;
    /// Square root.
    fn sqrt(self) -> Self;
    /// `e^self`.
    fn exp(self) -> Self;
    /// Natural logarithm.
    fn ln(self) -> Self;
    /// Base-10 logarithm.
    fn log10(self) -> Self;
    /// Sine.
    fn sin(self) -> Self;
    /// Cosine.
    fn cos(self) -> Self;
    /// Tangent.
    fn tan(self) -> Self;
    /// Hyperbolic tangent.
    fn tanh(self) -> Self;
    /// Largest integer not above.
    fn floor(self) -> Self;
    /// Smallest integer not below.
    fn ceil(self) -> Self;
    /// Nearest integer, half away from zero.
    fn round(self) -> Self;
    /// Integer power.
    fn powi(self, n: i32) -> Self;
    /// Float power.
    fn powf(self, p: Self) -> Self;
    /// Clamped to `lo..=hi`.
    fn clamp(self, lo: Self, hi: Self) -> Self;
    /// `x` as this type (rounded to the nearest).
    fn from_f64(x: f64) -> Self;
}

macro_rules! float {
    ($($t:ty),*) => {$(
        impl Float for $t {
            fn abs(self) -> Self { <$t>::abs(self) }
            fn sqrt(self) -> Self { <$t>::sqrt(self) }
            fn exp(self) -> Self { <$t>::exp(self) }
            fn ln(self) -> Self { <$t>::ln(self) }
            fn log10(self) -> Self { <$t>::log10(self) }
            fn sin(self) -> Self { <$t>::sin(self) }
            fn cos(self) -> Self { <$t>::cos(self) }
            fn tan(self) -> Self { <$t>::tan(self) }
            fn tanh(self) -> Self { <$t>::tanh(self) }
            fn floor(self) -> Self { <$t>::floor(self) }
            fn ceil(self) -> Self { <$t>::ceil(self) }
            fn round(self) -> Self { <$t>::round(self) }
            fn powi(self, n: i32) -> Self { <$t>::powi(self, n) }
            fn powf(self, p: Self) -> Self { <$t>::powf(self, p) }
            fn clamp(self, lo: Self, hi: Self) -> Self { <$t>::clamp(self, lo, hi) }
            #[allow(clippy::cast_possible_truncation)]
            fn from_f64(x: f64) -> Self { x as $t }
        }
    )*};
}

float!(f32, f64);

/// The 16-bit floats compute in `f32` and round back after every operation (as their arithmetic
/// operators in the `half` crate do, and as cnda's CUDA kernels do), so host and device agree.
macro_rules! half_float {
    ($($t:ty),*) => {$(
        impl Float for $t {
            fn abs(self) -> Self { Self::from_f32(self.to_f32().abs()) }
            fn sqrt(self) -> Self { Self::from_f32(self.to_f32().sqrt()) }
            fn exp(self) -> Self { Self::from_f32(self.to_f32().exp()) }
            fn ln(self) -> Self { Self::from_f32(self.to_f32().ln()) }
            fn log10(self) -> Self { Self::from_f32(self.to_f32().log10()) }
            fn sin(self) -> Self { Self::from_f32(self.to_f32().sin()) }
            fn cos(self) -> Self { Self::from_f32(self.to_f32().cos()) }
            fn tan(self) -> Self { Self::from_f32(self.to_f32().tan()) }
            fn tanh(self) -> Self { Self::from_f32(self.to_f32().tanh()) }
            fn floor(self) -> Self { Self::from_f32(self.to_f32().floor()) }
            fn ceil(self) -> Self { Self::from_f32(self.to_f32().ceil()) }
            fn round(self) -> Self { Self::from_f32(self.to_f32().round()) }
            fn powi(self, n: i32) -> Self { Self::from_f32(self.to_f32().powi(n)) }
            fn powf(self, p: Self) -> Self { Self::from_f32(self.to_f32().powf(p.to_f32())) }
            fn clamp(self, lo: Self, hi: Self) -> Self { Self::from_f32(self.to_f32().clamp(lo.to_f32(), hi.to_f32())) }
            fn from_f64(x: f64) -> Self { Self::from_f64(x) }
        }
    )*};
}

half_float!(half::f16, half::bf16);

/// The type of a complex element's parts, `f32` or `f64`: what `re`, `im`, `abs`, `arg` and
/// `conj` of a `Complex<Self>` array need. Sealed.
pub trait ComplexPart: Float + sealed::Sealed {
    /// `√(x² + y²)` without undue overflow or underflow.
    fn hypot(self, other: Self) -> Self;
    /// The angle of the point `(x, y) = (other, self)`, in `(-π, π]`.
    fn atan2(self, other: Self) -> Self;
}

macro_rules! complex_part {
    ($($t:ty),*) => {$(
        impl ComplexPart for $t {
            fn hypot(self, other: Self) -> Self { <$t>::hypot(self, other) }
            fn atan2(self, other: Self) -> Self { <$t>::atan2(self, other) }
        }
    )*};
}

complex_part!(f32, f64);

/// What NumPy's `allclose` measures: the distance between two elements and an element's size,
/// in a real type (a float itself; a complex number's magnitude, in its part type, as NumPy's
/// `abs`; NaN when a part is NaN, though `hypot(inf, NaN)` is infinite). Sealed.
pub trait Magnitude: Copy + PartialEq + sealed::Sealed {
    /// The real type the distances are in.
    type Real: Float;
    /// `|self - other|`.
    fn distance(self, other: Self) -> Self::Real;
    /// `|self|`.
    fn magnitude(self) -> Self::Real;
}

impl<T: Float> Magnitude for T {
    type Real = T;
    fn distance(self, other: Self) -> T {
        (self - other).abs()
    }
    fn magnitude(self) -> T {
        self.abs()
    }
}

impl<F: ComplexPart> Magnitude for Complex<F>
where
    Complex<F>: sealed::Sealed,
{
    type Real = F;
    fn distance(self, other: Self) -> F {
        Complex::new(self.re - other.re, self.im - other.im).magnitude()
    }
    fn magnitude(self) -> F {
        if self.re.is_nan() || self.im.is_nan() {
            self.re + self.im // NaN
        } else {
            self.re.hypot(self.im)
        }
    }
}
