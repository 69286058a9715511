//! Op tokens: small values that name an elementwise operation (`Add`, `Sqrt`, `Powi(3)`, ...).
//!
//! Generic algorithms pass a token, not a closure, to a backend's kernel trait, so a backend can
//! choose its kernel from the token's type: the CPU calls [`BinaryOp::apply`] /
//! [`UnaryOp::apply`] in its lane loops (where it inlines like a closure), and a device backend
//! maps the token type to device code in its own folder. Closures (`map`, `Zip`) stay host-only
//! conveniences on top.

use core::fmt::Debug;

use crate::element::{Arithmetic, Float, Numeric, Pod};
use crate::error::{Error, Result};

mod complex;
pub use complex::{Arg, Conj, NormSqr};

/// The `NAME`s of the binary ops device kernels exist for (binary, update and scalar forms): the
/// tokens below. A device backend takes no other name, so a token of a user's own, whatever its
/// `NAME`, can never select a kernel of another signature (`"scalar_add"` would name one).
pub const DEVICE_BINARY: &[&str] = &["add", "sub", "mul", "div", "rem", "assign"];
/// The device functions [`DeviceUnary::Named`] may name (the parametrized ones, `powi`, `powf`
/// and `clamp`, take their own forms).
pub const DEVICE_UNARY: &[&str] =
    &["neg", "abs", "sqrt", "exp", "ln", "log10", "sin", "cos", "tan", "tanh", "floor", "ceil", "round"];
/// The device functions of complex elements with a complex result.
pub const DEVICE_COMPLEX_UNARY: &[&str] = &["neg", "conj"];
/// The device functions of complex elements with a real result (the part type's), in a form of
/// their own.
pub const DEVICE_COMPLEX_REAL: &[&str] = &["abs", "arg", "abs2"];
/// The reductions ([`ReduceOp`]) device kernels exist for.
pub const DEVICE_FOLD: &[&str] = &["sum", "product", "min", "max"];
/// The searches ([`ArgOp`]) device kernels exist for: kernels of their own signature, so a
/// reduction never takes one of these names, nor a search a reduction's.
pub const DEVICE_ARG: &[&str] = &["argmin", "argmax"];

/// `name` when it is one of `known` (a list above), else `Error::NoKernel`: what a device
/// backend checks before it builds a kernel's name from a token's.
///
/// # Errors
///
/// `Error::NoKernel` naming the op and the backend.
pub fn check_device_name(name: &'static str, known: &[&str], backend: &'static str) -> Result<&'static str> {
    if known.contains(&name) {
        Ok(name)
    } else {
        Err(Error::NoKernel {
            op: name,
            backend,
            reason: "an op token of its own (only cnda's tokens have device kernels)",
        })
    }
}

/// The name of the complex function `form` names when a unary op maps `T` to `R` (their types
/// differ): only cnda's functions of a complex `T` with a real result of `T`'s part type
/// ([`DEVICE_COMPLEX_REAL`]), which a device's kernels write as `R`s; any other pair of types is
/// refused. What a device backend checks before it launches a kernel of that form.
///
/// # Errors
///
/// `Error::NoKernel` naming the reason.
pub fn check_complex_real<T: 'static, R: 'static>(form: DeviceUnary<T>, backend: &'static str) -> Result<&'static str> {
    use crate::element::{dtype_of, DType};
    let refuse = |reason| Error::NoKernel { op: "unary", backend, reason };
    let part = dtype_of::<T>().and_then(DType::part).ok_or(refuse("its kernels keep the element type"))?;
    if dtype_of::<R>() != Some(part) {
        return Err(refuse("a complex function's result is its part type"));
    }
    let DeviceUnary::Named(name) = form else { return Err(refuse("a complex function takes no parameter")) };
    check_device_name(name, DEVICE_COMPLEX_REAL, backend)
}

/// A binary elementwise operation on `T`.
pub trait BinaryOp<T>: Copy + Debug + Send + Sync + 'static {
    /// The operation's name, for errors and traces.
    const NAME: &'static str;

    /// The result for one pair of elements.
    fn apply(self, a: T, b: T) -> T;
}

/// A unary elementwise operation from `T` to [`UnaryOp::Output`].
pub trait UnaryOp<T>: Copy + Debug + Send + Sync {
    /// The element type of the result.
    type Output: Pod;

    /// The operation's name, for errors and traces.
    const NAME: &'static str;

    /// The result for one element.
    fn apply(self, x: T) -> Self::Output;

    /// How a device backend runs this operation (`None`: host only, as a token of your own).
    fn device_form(self) -> Option<DeviceUnary<T>> {
        None
    }
}

/// A unary operation as device kernels name it: a device function, or a binary op with a scalar
/// operand, with the parameters the token carries.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum DeviceUnary<T> {
    /// The device function of this name (`"sqrt"`, `"neg"`, ...; the tokens' `NAME`s).
    Named(&'static str),
    /// `op(x, s)` for the binary op of this name.
    ScalarRight(&'static str, T),
    /// `op(s, x)` for the binary op of this name.
    ScalarLeft(&'static str, T),
    /// `xⁿ`.
    Powi(i32),
    /// `xᵖ`.
    Powf(T),
    /// `x` clamped to `lo..=hi`.
    Clamp(T, T),
}

macro_rules! binary_tokens {
    ($($(#[$doc:meta])* $Op:ident $name:literal [$($bound:tt)+] |$a:ident, $b:ident| $e:expr;)*) => {$(
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
        pub struct $Op;

        impl<T: $($bound)+> BinaryOp<T> for $Op {
            const NAME: &'static str = $name;

            #[inline(always)]
            fn apply(self, $a: T, $b: T) -> T {
                $e
            }
        }
    )*};
}

binary_tokens! {
    /// `a + b`.
    Add "add" [Arithmetic] |a, b| a + b;
    /// `a - b`.
    Sub "sub" [Arithmetic] |a, b| a - b;
    /// `a * b`.
    Mul "mul" [Arithmetic] |a, b| a * b;
    /// `a / b`.
    Div "div" [Arithmetic] |a, b| a / b;
    /// `a % b`: Rust's remainder (C's `fmod` for floats; the sign follows `a`).
    Rem "rem" [Numeric + core::ops::Rem<Output = T>] |a, b| a % b;
}

/// `y`: the second operand, for assignment (`dst = src`) through the update kernels.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Second;

impl<T: Pod> BinaryOp<T> for Second {
    const NAME: &'static str = "assign";

    #[inline(always)]
    fn apply(self, _: T, b: T) -> T {
        b
    }
}

/// `-x`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Neg;

impl<T: Arithmetic + core::ops::Neg<Output = T>> UnaryOp<T> for Neg {
    type Output = T;
    const NAME: &'static str = "neg";

    #[inline(always)]
    fn apply(self, x: T) -> T {
        -x
    }

    fn device_form(self) -> Option<DeviceUnary<T>> {
        Some(DeviceUnary::Named("neg"))
    }
}

macro_rules! float_tokens {
    ($($(#[$doc:meta])* $Op:ident $name:literal $f:ident;)*) => {$(
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
        pub struct $Op;

        impl<T: Float> UnaryOp<T> for $Op {
            type Output = T;
            const NAME: &'static str = $name;

            #[inline(always)]
            fn apply(self, x: T) -> T {
                x.$f()
            }

            fn device_form(self) -> Option<DeviceUnary<T>> {
                Some(DeviceUnary::Named($name))
            }
        }
    )*};
}

float_tokens! {
    /// `|x|`.
    Abs "abs" abs;
    /// `√x`.
    Sqrt "sqrt" sqrt;
    /// `eˣ`.
    Exp "exp" exp;
    /// `ln x`.
    Ln "ln" ln;
    /// `log₁₀ x`.
    Log10 "log10" log10;
    /// `sin x`.
    Sin "sin" sin;
    /// `cos x`.
    Cos "cos" cos;
    /// `tan x`.
    Tan "tan" tan;
    /// `tanh x`.
    Tanh "tanh" tanh;
    /// The largest integer not above `x`.
    Floor "floor" floor;
    /// The smallest integer not below `x`.
    Ceil "ceil" ceil;
    /// The nearest integer, half away from zero.
    Round "round" round;
}

/// `xⁿ` for an integer `n`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Powi(pub i32);

impl<T: Float> UnaryOp<T> for Powi {
    type Output = T;
    const NAME: &'static str = "powi";

    #[inline(always)]
    fn apply(self, x: T) -> T {
        x.powi(self.0)
    }

    fn device_form(self) -> Option<DeviceUnary<T>> {
        Some(DeviceUnary::Powi(self.0))
    }
}

/// `xᵖ` for a float `p`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Powf<T>(pub T);

impl<T: Float> UnaryOp<T> for Powf<T> {
    type Output = T;
    const NAME: &'static str = "powf";

    #[inline(always)]
    fn apply(self, x: T) -> T {
        x.powf(self.0)
    }

    fn device_form(self) -> Option<DeviceUnary<T>> {
        Some(DeviceUnary::Powf(self.0))
    }
}

/// `x` clamped to `lo..=hi` (NaN stays NaN); the constructor of the op checks `lo <= hi`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Clamp<T> {
    /// Lower bound.
    pub lo: T,
    /// Upper bound.
    pub hi: T,
}

impl<T: Float> UnaryOp<T> for Clamp<T> {
    type Output = T;
    const NAME: &'static str = "clamp";

    #[inline(always)]
    fn apply(self, x: T) -> T {
        x.clamp(self.lo, self.hi)
    }

    fn device_form(self) -> Option<DeviceUnary<T>> {
        Some(DeviceUnary::Clamp(self.lo, self.hi))
    }
}

/// `op(x, s)`: a binary op with a scalar right operand (`&a * 2.0`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScalarRight<Op, T>(pub Op, pub T);

impl<T: Pod + Debug + Send + Sync, Op: BinaryOp<T>> UnaryOp<T> for ScalarRight<Op, T> {
    type Output = T;
    const NAME: &'static str = Op::NAME;

    #[inline(always)]
    fn apply(self, x: T) -> T {
        self.0.apply(x, self.1)
    }

    fn device_form(self) -> Option<DeviceUnary<T>> {
        Some(DeviceUnary::ScalarRight(Op::NAME, self.1))
    }
}

/// `op(s, x)`: a binary op with a scalar left operand (`2.0 - &a`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScalarLeft<Op, T>(pub T, pub Op);

impl<T: Pod + Debug + Send + Sync, Op: BinaryOp<T>> UnaryOp<T> for ScalarLeft<Op, T> {
    type Output = T;
    const NAME: &'static str = Op::NAME;

    #[inline(always)]
    fn apply(self, x: T) -> T {
        self.1.apply(self.0, x)
    }

    fn device_form(self) -> Option<DeviceUnary<T>> {
        Some(DeviceUnary::ScalarLeft(Op::NAME, self.0))
    }
}

/// A reduction: an associative combination of elements, with the result over no element.
pub trait ReduceOp<T>: Copy + Debug + Send + Sync + 'static {
    /// The reduction's name, for errors and traces.
    const NAME: &'static str;

    /// Whether the CPU combines blocks pairwise (as a balanced tree of 8-way interleaved
    /// partial results), which bounds the rounding error of float sums by `log n` instead of `n`.
    const PAIRWISE: bool;

    /// The result over no element, `None` where it is undefined (`min` of nothing).
    fn identity(self) -> Option<T>;

    /// What a device's idle threads fold from: a value that leaves every other unchanged
    /// (`identity`, or for `min`/`max` the largest/smallest value of `T`); `None` for a
    /// reduction no device kernel runs.
    fn fold_start(self) -> Option<T> {
        self.identity()
    }

    /// `acc` combined with one more element.
    fn combine(self, acc: T, x: T) -> T;
}

/// A search for the position of the best element (`argmin`, `argmax`).
pub trait ArgOp<T>: Copy + Debug + Send + Sync + 'static {
    /// The search's name, for errors and traces.
    const NAME: &'static str;

    /// Whether the search looks for the largest element (`argmax`) rather than the smallest:
    /// the direction device kernels take as a parameter.
    const SEEKS_MAX: bool;

    /// Whether `x` beats the best so far (ties keep the first).
    fn better(self, x: T, best: T) -> bool;
}

/// The sum of the elements (zero over none), pairwise on the CPU.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sum;

impl<T: Arithmetic> ReduceOp<T> for Sum {
    const NAME: &'static str = "sum";
    const PAIRWISE: bool = true;

    fn identity(self) -> Option<T> {
        Some(T::ZERO)
    }

    #[inline(always)]
    fn combine(self, acc: T, x: T) -> T {
        acc + x
    }
}

/// The product of the elements (one over none).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Product;

impl<T: Arithmetic> ReduceOp<T> for Product {
    const NAME: &'static str = "product";
    const PAIRWISE: bool = false;

    fn identity(self) -> Option<T> {
        Some(T::ONE)
    }

    #[inline(always)]
    fn combine(self, acc: T, x: T) -> T {
        acc * x
    }
}

/// NaN-propagating choice, as NumPy's `min`/`max`: once NaN, always NaN.
#[inline(always)]
fn pick<T: Numeric>(best: T, x: T, take: bool) -> T {
    if best.is_nan() || !(x.is_nan() || take) {
        best
    } else {
        x
    }
}

/// The smallest element; NaN if any element is NaN; undefined over none.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Min;

impl<T: Numeric> ReduceOp<T> for Min {
    const NAME: &'static str = "min";

    fn fold_start(self) -> Option<T> {
        Some(T::LARGEST)
    }
    const PAIRWISE: bool = false;

    fn identity(self) -> Option<T> {
        None
    }

    #[inline(always)]
    fn combine(self, acc: T, x: T) -> T {
        pick(acc, x, x < acc)
    }
}

/// The largest element; NaN if any element is NaN; undefined over none.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Max;

impl<T: Numeric> ReduceOp<T> for Max {
    const NAME: &'static str = "max";

    fn fold_start(self) -> Option<T> {
        Some(T::SMALLEST)
    }
    const PAIRWISE: bool = false;

    fn identity(self) -> Option<T> {
        None
    }

    #[inline(always)]
    fn combine(self, acc: T, x: T) -> T {
        pick(acc, x, x > acc)
    }
}

/// The position of the first smallest element (of the first NaN, if any).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ArgMin;

impl<T: Numeric> ArgOp<T> for ArgMin {
    const NAME: &'static str = "argmin";
    const SEEKS_MAX: bool = false;

    #[inline(always)]
    fn better(self, x: T, best: T) -> bool {
        x < best
    }
}

/// The position of the first largest element (of the first NaN, if any).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ArgMax;

impl<T: Numeric> ArgOp<T> for ArgMax {
    const NAME: &'static str = "argmax";
    const SEEKS_MAX: bool = true;

    #[inline(always)]
    fn better(self, x: T, best: T) -> bool {
        x > best
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The names a device accepts are single words, so `{form}_{name}_{type}` never names another
    /// form's kernel; cnda's own tokens are all accepted; a token of one's own is refused.
    #[test]
    fn device_names_are_cnda_tokens_only() {
        for name in
            DEVICE_BINARY.iter().chain(DEVICE_UNARY).chain(DEVICE_FOLD).chain(DEVICE_ARG).chain(DEVICE_COMPLEX_REAL)
        {
            assert!(name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()), "{name}");
        }
        for name in [<Add as BinaryOp<f32>>::NAME, <Rem as BinaryOp<f32>>::NAME, <Second as BinaryOp<f32>>::NAME] {
            assert_eq!(check_device_name(name, DEVICE_BINARY, "test").unwrap(), name);
        }
        let f = |form: Option<DeviceUnary<f64>>| form;
        for form in [
            f(Neg.device_form()),
            f(Abs.device_form()),
            f(Sqrt.device_form()),
            f(Exp.device_form()),
            f(Ln.device_form()),
            f(Log10.device_form()),
            f(Sin.device_form()),
            f(Cos.device_form()),
            f(Tan.device_form()),
            f(Tanh.device_form()),
            f(Floor.device_form()),
            f(Ceil.device_form()),
            f(Round.device_form()),
        ] {
            let Some(DeviceUnary::Named(name)) = form else { panic!("{form:?}") };
            assert!(check_device_name(name, DEVICE_UNARY, "test").is_ok(), "{name}");
        }
        for name in [<Sum as ReduceOp<f32>>::NAME, <Product as ReduceOp<f32>>::NAME, <Max as ReduceOp<f32>>::NAME] {
            assert!(check_device_name(name, DEVICE_FOLD, "test").is_ok(), "{name}");
            assert!(check_device_name(name, DEVICE_ARG, "test").is_err(), "{name}");
        }
        for name in [<ArgMin as ArgOp<f32>>::NAME, <ArgMax as ArgOp<f32>>::NAME] {
            assert!(check_device_name(name, DEVICE_ARG, "test").is_ok(), "{name}");
            assert!(check_device_name(name, DEVICE_FOLD, "test").is_err(), "{name}");
        }
        for foreign in ["scalar_add", "clamp", "powi", "add_f32", "sum_axis", ""] {
            for known in [DEVICE_BINARY, DEVICE_UNARY, DEVICE_FOLD, DEVICE_ARG] {
                assert!(matches!(check_device_name(foreign, known, "test"), Err(Error::NoKernel { .. })), "{foreign}");
            }
        }
    }

    #[test]
    fn tokens_describe_themselves_to_devices() {
        assert_eq!(UnaryOp::<f64>::device_form(Sqrt), Some(DeviceUnary::Named("sqrt")));
        assert_eq!(UnaryOp::<f32>::device_form(Neg), Some(DeviceUnary::Named("neg")));
        assert_eq!(ScalarRight(Mul, 2.0f64).device_form(), Some(DeviceUnary::ScalarRight("mul", 2.0)));
        assert_eq!(ScalarLeft(3.0f32, Sub).device_form(), Some(DeviceUnary::ScalarLeft("sub", 3.0)));
        assert_eq!(UnaryOp::<f64>::device_form(Powi(3)), Some(DeviceUnary::Powi(3)));
        assert_eq!(Powf(0.5f64).device_form(), Some(DeviceUnary::Powf(0.5)));
        assert_eq!(Clamp { lo: -1.0f32, hi: 1.0 }.device_form(), Some(DeviceUnary::Clamp(-1.0, 1.0)));
    }

    #[test]
    fn tokens_compute_what_they_name() {
        assert_eq!(Sub.apply(7.0, 2.0), 5.0);
        assert_eq!(Rem.apply(-7.0, 3.0), -1.0);
        assert_eq!(Rem.apply(7i32, -3), 1);
        assert_eq!(Div.apply(7i32, 2), 3);
        assert_eq!(UnaryOp::<f64>::apply(Neg, 2.0), -2.0);
        assert_eq!(UnaryOp::<f64>::apply(Sqrt, 9.0), 3.0);
        assert_eq!(UnaryOp::<f64>::apply(Round, -2.5), -3.0);
        assert_eq!(Powi(3).apply(2.0f32), 8.0);
        assert_eq!(Clamp { lo: 0.0, hi: 1.0 }.apply(3.0f64), 1.0);
        assert!(Clamp { lo: 0.0, hi: 1.0 }.apply(f64::NAN).is_nan());
        assert_eq!(ScalarRight(Sub, 1.0).apply(5.0), 4.0);
        assert_eq!(ScalarLeft(1.0, Sub).apply(5.0), -4.0);
        assert_eq!(BinaryOp::<u8>::apply(Second, 1, 2), 2);
        assert_eq!(<ScalarLeft<Sub, f64> as UnaryOp<f64>>::NAME, "sub");
        assert_eq!(Min.combine(2.0, 1.0), 1.0);
        assert!(Min.combine(f64::NAN, 1.0).is_nan() && Max.combine(1.0, f64::NAN).is_nan());
        assert_eq!(Max.combine(2, 3), 3);
        assert_eq!((ReduceOp::<i32>::identity(Sum), ReduceOp::<i32>::identity(Product)), (Some(0), Some(1)));
        assert_eq!(ReduceOp::<f32>::identity(Min), None);
        assert!(ArgMin.better(1, 2) && !ArgMin.better(2, 2) && ArgMax.better(3, 2));
    }
}
