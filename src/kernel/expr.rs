//! What `stencil!` emits, and what every backend's expression-stencil kernel consumes: the
//! [`Stencil`] trait (the taps a stencil reads, its per-point CPU function, its CUDA C and WGSL
//! expressions), the element types it computes in ([`Scalar`]), and the per-point tap reader.

use crate::element::{Element, Float};

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
}

/// The element types a [`Stencil`] computes in: `f32` and `f64`. The math a `stencil!` body may
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
/// expression with the same operation order; not meant to be implemented by hand (nothing unsafe
/// trusts it: kernels read a point's taps only through the [`TapReader`] they hand in, checked
/// against `TAPS`).
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

    /// The radius along each axis: the largest offset magnitude of any tap.
    fn radius() -> [usize; N] {
        let mut r = [0usize; N];
        for tap in Self::TAPS {
            for (k, o) in tap.offset.iter().enumerate() {
                r[k] = r[k].max(o.unsigned_abs());
            }
        }
        r
    }
}
