//! What `stencil!` emits, and what every backend's expression-stencil kernel consumes: the
//! [`Stencil`] trait (the taps a stencil reads, its per-point CPU function, its CUDA C and WGSL
//! expressions), the element types it computes in ([`Scalar`]), and the per-point tap reader.

use crate::element::{Element, Float};

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
    impl Sealed for half::f16 {}
    impl Sealed for half::bf16 {}
}

/// The element types a [`Stencil`] computes in: `f32`, `f64`, and the 16-bit floats `half::f16`
/// and `half::bf16` (every operation in `f32`, rounded back, on the host as on CUDA). The math a `stencil!` body may
/// call, with one definition per operation so the CPU and the device expressions agree. The
/// functions take no `self`, so they never compete with [`Float`]'s methods in `x.sqrt()`.
pub trait Scalar: Float + Element + sealed::Sealed {
    /// The value of a literal: `x64` is the source literal parsed as `f64`, `x32` as `f32` (each
    /// correctly rounded by the compiler, as a device compiler rounds `0.1` / `0.1f`).
    fn literal(x64: f64, x32: f32) -> Self;
    /// `a` when `condition` holds, else `b` (both are computed: a stencil body has no branches).
    fn select(condition: bool, a: Self, b: Self) -> Self;
    /// The smaller of `a` and `b`; the other when one is NaN (C's `fmin`, WGSL's `min`).
    fn min(a: Self, b: Self) -> Self;
    /// The larger of `a` and `b`; the other when one is NaN (C's `fmax`, WGSL's `max`).
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
}

macro_rules! scalar {
    ($($t:ident: $x64:ident, $x32:ident => $lit:ident),*) => {$(
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
                a.min(b)
            }
            #[inline(always)]
            fn max(a: $t, b: $t) -> $t {
                a.max(b)
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
        }
    )*};
}

// Each type takes the literal the compiler parsed for it.
scalar!(f32: x64, x32 => x32, f64: x64, x32 => x64);

/// The 16-bit floats: literals from their `f32` parse (as CUDA's `T(4.0f)`), math through `f32`
/// and rounded back.
macro_rules! half_scalar {
    ($($t:ty),*) => {$(
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
                <$t>::from_f32(a.to_f32().min(b.to_f32()))
            }
            #[inline(always)]
            fn max(a: $t, b: $t) -> $t {
                <$t>::from_f32(a.to_f32().max(b.to_f32()))
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
        }
    )*};
}

half_scalar!(half::f16, half::bf16);

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

/// The number of input fields of a stencil, as a type (so that applying a stencil to the wrong
/// number of fields is a compile error naming both counts).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Arity<const K: usize>;

/// One read of a stencil: input field `field` at `offset` from the point being computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Tap<const N: usize> {
    /// The index of the field, in the order the stencil names its fields.
    pub field: usize,
    /// The offset from the point, per axis.
    pub offset: [isize; N],
}

/// How a stencil's point function reads its taps: `tap(k)` is the value of [`Stencil::TAPS`]`[k]`
/// at the point being computed. Backends (and reference implementations) provide it.
pub trait TapReader<T> {
    /// The value of tap `k` at the current point.
    fn tap(&self, k: usize) -> T;
}

/// The scalar parameters of a stencil: a tuple of one `T` per parameter (`()` for none).
pub trait StencilParams<T>: Copy + Send + Sync {
    /// The number of parameters.
    const LEN: usize;
    /// Parameter `i` (`i < LEN`).
    fn get(&self, i: usize) -> T;
}

impl<T> StencilParams<T> for () {
    const LEN: usize = 0;
    fn get(&self, i: usize) -> T {
        panic!("a stencil without parameters has no parameter {i}")
    }
}

macro_rules! params_tuple {
    ($len:expr; $($name:ident $i:tt),+) => {
        impl<T: Copy + Send + Sync> StencilParams<T> for ($($name,)+) {
            const LEN: usize = $len;
            fn get(&self, i: usize) -> T {
                match i {
                    $($i => self.$i,)+
                    _ => panic!("a stencil with {} parameters has no parameter {i}", $len),
                }
            }
        }
    };
}

// One `T` in every position: a stencil's parameters share its element type.
params_tuple!(1; T 0);
params_tuple!(2; T 0, T 1);
params_tuple!(3; T 0, T 1, T 2);
params_tuple!(4; T 0, T 1, T 2, T 3);
params_tuple!(5; T 0, T 1, T 2, T 3, T 4);
params_tuple!(6; T 0, T 1, T 2, T 3, T 4, T 5);
params_tuple!(7; T 0, T 1, T 2, T 3, T 4, T 5, T 6);
params_tuple!(8; T 0, T 1, T 2, T 3, T 4, T 5, T 6, T 7);

/// A stencil over `N`-dimensional fields of `T`: the value at each point is an expression of the
/// input fields read at constant offsets ([`Stencil::TAPS`]) and of scalar parameters. Written
/// with [`stencil!`](crate::stencil!), which emits the Rust, CUDA C and WGSL forms of one
/// expression with the same operation order; not meant to be implemented by hand. Nothing unsafe
/// trusts an implementation: every apply runs [`check`] first (tap fields within `FIELDS`, one
/// parameter per name, device expressions made only of taps, parameters, literals, operators and
/// the allowed functions), the radius comes from `TAPS` ([`radius`]), and the CPU reads taps
/// only through the [`TapReader`] it hands in.
pub trait Stencil<T: Scalar, const N: usize>: Copy + Send + Sync + 'static {
    /// The input fields' names, in order.
    const FIELDS: &'static [&'static str];
    /// The scalar parameters' names, in order.
    const PARAMS: &'static [&'static str];
    /// Every distinct (field, offset) read, in order of first appearance in the source.
    const TAPS: &'static [Tap<N>];
    /// The stencil as written.
    const SOURCE: &'static str;
    /// The parameters' values: one `T` per name in [`Stencil::PARAMS`].
    type Params: StencilParams<T>;
    /// `Arity<K>` for `K` input fields (`FIELDS.len()`).
    type Arity;

    /// The value at one point, from its taps (`taps.tap(k)` for `TAPS[k]`) and the parameters.
    fn point<R: TapReader<T>>(taps: &R, params: &Self::Params) -> T;

    /// The expression in CUDA C++ for `T` over locals `t0, t1, ...` (the taps) and `p0, p1, ...`
    /// (the parameters), or `None` when CUDA has no such type.
    fn cuda() -> Option<&'static str>;

    /// The expression in WGSL for `T`, over the same locals, or `None` (WGSL has no `f64`).
    fn wgsl() -> Option<&'static str>;
}

/// The radius of `S` along each axis: the largest offset magnitude of any tap (what every
/// generic algorithm uses, computed from `TAPS` so that it cannot disagree with them).
pub fn radius<S: Stencil<T, N>, T: Scalar, const N: usize>() -> [usize; N] {
    let mut r = [0usize; N];
    for tap in S::TAPS {
        for (k, o) in tap.offset.iter().enumerate() {
            r[k] = r[k].max(o.unsigned_abs());
        }
    }
    r
}

/// Checks that `S` agrees with itself before any kernel runs it: a tap reads one of the
/// `FIELDS`, `Params` has one value per name in `PARAMS`, and the device expressions use only
/// taps and parameters that exist, number literals, operators and the functions `stencil!`
/// emits. `stencil!` always passes; a hand-written `Stencil` that does not is refused here
/// rather than trusted by a kernel.
///
/// # Errors
///
/// `Error::Layout` naming what disagrees.
pub fn check<S: Stencil<T, N>, T: Scalar, const N: usize>(op: &'static str) -> crate::error::Result<()> {
    let refuse = |reason: String| {
        Err(crate::error::Error::Layout {
            op,
            reason,
            fix: "define the stencil with `stencil!`, which keeps these consistent",
        })
    };
    if let Some(tap) = S::TAPS.iter().find(|tap| tap.field >= S::FIELDS.len()) {
        return refuse(format!("a tap reads field {} of a stencil with {} fields", tap.field, S::FIELDS.len()));
    }
    if <S::Params as StencilParams<T>>::LEN != S::PARAMS.len() {
        return refuse(format!(
            "the stencil names {} parameters but its `Params` holds {}",
            S::PARAMS.len(),
            <S::Params as StencilParams<T>>::LEN
        ));
    }
    for (language, expression) in [("CUDA", S::cuda()), ("WGSL", S::wgsl())] {
        if let Some(text) = expression {
            if let Err(what) = device_expression(text, S::TAPS.len(), S::PARAMS.len()) {
                return refuse(format!("its {language} expression {what}"));
            }
        }
    }
    Ok(())
}

/// The functions a device expression may call (CUDA's and WGSL's spellings of `stencil!`'s
/// math, its `powi`, the bit casts of infinite literals, and `T(..)`: the conversion to a 16-bit
/// element type).
const DEVICE_FUNCTIONS: &[&str] = &[
    "sqrt",
    "sqrtf",
    "exp",
    "expf",
    "log",
    "logf",
    "sin",
    "sinf",
    "cos",
    "cosf",
    "tanh",
    "tanhf",
    "fabs",
    "fabsf",
    "abs",
    "floor",
    "floorf",
    "fmin",
    "fminf",
    "fmax",
    "fmaxf",
    "min",
    "max",
    "select",
    "cn_powi",
    "__int_as_float",
    "__longlong_as_double",
    "bitcast",
    "f32",
    "f16",
    "T",
];

/// Whether `text` is a pure expression over taps `t0..t{taps - 1}` and parameters
/// `p0..p{params - 1}`: identifiers from those and [`DEVICE_FUNCTIONS`], number literals, and
/// the characters of arithmetic, comparison, logic, selection and grouping; nothing that could
/// end the expression, declare, index, assign or reach memory.
fn device_expression(text: &str, taps: usize, params: usize) -> core::result::Result<(), String> {
    if text.contains("//") || text.contains("/*") {
        return Err("contains a comment".into());
    }
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i] as char;
        if c.is_ascii_alphabetic() || c == '_' {
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            let word = &text[start..i];
            let indexed = |prefix: char, count: usize| {
                word.strip_prefix(prefix).and_then(|n| n.parse::<usize>().ok()).is_some_and(|n| n < count)
            };
            if !(indexed('t', taps) || indexed('p', params) || DEVICE_FUNCTIONS.contains(&word)) {
                return Err(format!("names `{word}`, which is not one of its taps, parameters or allowed functions"));
            }
        } else if c.is_ascii_digit() {
            // A number: digits, hex digits after 0x, a point, an exponent with its sign, suffixes.
            while i < bytes.len() {
                let d = bytes[i] as char;
                let sign_of_exponent =
                    (d == '-' || d == '+') && matches!(bytes[i - 1], b'e' | b'E') && !text[..i].contains("0x");
                if d.is_ascii_alphanumeric() || d == '.' || sign_of_exponent {
                    i += 1;
                } else {
                    break;
                }
            }
        } else if c == '&' || c == '|' {
            // Only `&&` and `||`: a lone `&` could take an address, a lone `|` has no use.
            if bytes.get(i + 1) != Some(&(c as u8)) {
                return Err(format!("contains a lone `{c}`"));
            }
            i += 2;
        } else if c == '*' && text[..i].trim_end().chars().last().is_none_or(|p| "(,?:+-*/<>!&|=".contains(p)) {
            return Err("contains a unary `*`, which could reach memory".into());
        } else if "+-*/()?:<>!,. ".contains(c)
            || c == '='
                && (i > 0 && matches!(bytes[i - 1], b'<' | b'>' | b'!' | b'=') || bytes.get(i + 1) == Some(&b'='))
        {
            // Operators and grouping; `=` only inside `<=`, `>=`, `!=` and `==`.
            i += 1;
        } else {
            return Err(format!("contains `{c}`, which a pure expression has no use for"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::device_expression;

    #[test]
    fn device_expressions_are_pure_or_refused() {
        for ok in [
            "(t0 + (p0 * (t1 * ((((t2 + t3) + t4) + t5) - (4.0f * t0)))))",
            "((t0 < t1) ? sqrtf(fabsf(t2)) : (-cn_powi(t3, -2)))",
            "select(t1, t0, (t0 >= 1e-30f))",
            "(t0 + __longlong_as_double(0x7ff0000000000000LL))",
            "(t0 * bitcast<f32>(0x7f800000u)) + 1.5e+3",
            "((t0 == t1) && (!(t0 != 2.0)))",
        ] {
            device_expression(ok, 6, 1).unwrap_or_else(|e| panic!("{ok}: {e}"));
        }
        for (bad, why) in [
            ("t0; } __global__ void x() {", "`;`"),
            ("((double*)t0)[5]", "`double`"),
            ("t6", "`t6`"),
            ("p1", "`p1`"),
            ("out[0]", "`out`"),
            ("t0 = 1", "`=`"),
            ("t0 /* x */", "comment"),
            ("\"a\"", "`\"`"),
            ("*(&t0 + 9)", "unary `*`"),
            ("(t0 & t1)", "lone `&`"),
        ] {
            let e = device_expression(bad, 6, 1).unwrap_err();
            assert!(e.contains(why), "{bad}: {e}");
        }
    }
}
