//! The expansion compiled and run against a minimal stand-in for cnda's stencil API: the names and
//! signatures here are the contract the macro's output needs (`::cnda::stencil::{Scalar, Stencil,
//! Tap, TapReader, Node, Unary, Binary, Lit, powi}`).
#![deny(warnings)]

// As cnda does, so that `::cnda::...` paths resolve inside this crate.
extern crate self as cnda;

use cnda::stencil::{Stencil, TapReader};
use cnda_macros::stencil;

/// Runtime tag of an element type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum DType {
    /// `i32`
    I32,
    /// `f32`
    F32,
    /// `f64`
    F64,
    /// `half::f16`
    F16,
    /// `half::bf16`
    BF16,
}

/// An array element.
pub trait Element: Copy {
    /// The element's tag.
    const DTYPE: DType;
}

impl Element for i32 {
    const DTYPE: DType = DType::I32;
}
impl Element for f32 {
    const DTYPE: DType = DType::F32;
}
impl Element for f64 {
    const DTYPE: DType = DType::F64;
}

/// The stencil API the expansion refers to.
pub mod stencil {
    use core::ops::{Add, Div, Mul, Neg, Sub};

    /// A field count as a type.
    pub struct Arity<const K: usize>;

    /// One read: a field at an offset.
    #[derive(Debug, PartialEq, Eq)]
    pub struct Tap<const N: usize> {
        /// Index into `Stencil::FIELDS`.
        pub field: usize,
        /// One offset per axis.
        pub offset: [isize; N],
    }

    /// A literal in both precisions.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub struct Lit {
        /// In `f64`.
        pub f64: f64,
        /// In `f32`.
        pub f32: f32,
    }

    /// One-operand operations.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    #[allow(missing_docs)]
    pub enum Unary {
        Neg,
        Not,
        Sqrt,
        Exp,
        Ln,
        Sin,
        Cos,
        Tanh,
        Abs,
        Floor,
        Flush,
    }

    /// Two-operand operations.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    #[allow(missing_docs)]
    pub enum Binary {
        Add,
        Sub,
        Mul,
        Div,
        Min,
        Max,
        Lt,
        Le,
        Gt,
        Ge,
        Eq,
        Ne,
        And,
        Or,
    }

    /// One node of the expression data.
    #[derive(Clone, Copy, Debug, PartialEq)]
    #[allow(missing_docs)]
    pub enum Node {
        Tap(usize),
        Param(usize),
        Lit(Lit),
        Unary(Unary, usize),
        Binary(Binary, usize, usize),
        Select(usize, usize, usize),
        Powi(usize, i32),
    }

    /// Gives the value of tap `k` at the current point.
    pub trait TapReader<T> {
        /// The value of `Stencil::TAPS[k]`.
        fn tap(&self, k: usize) -> T;
    }

    /// A floating-point element a stencil computes in.
    pub trait Scalar:
        crate::Element
        + Add<Output = Self>
        + Sub<Output = Self>
        + Mul<Output = Self>
        + Div<Output = Self>
        + Neg<Output = Self>
        + PartialOrd
    {
        /// The literal whose value in `f64` is `f64` and in `f32` is `f32`.
        fn literal(f64: f64, f32: f32) -> Self;
        /// `a` if `c`, else `b`.
        fn select(c: bool, a: Self, b: Self) -> Self {
            if c {
                a
            } else {
                b
            }
        }
        /// Square root.
        fn sqrt(self) -> Self;
        /// Exponential.
        fn exp(self) -> Self;
        /// Natural logarithm.
        fn ln(self) -> Self;
        /// Sine.
        fn sin(self) -> Self;
        /// Cosine.
        fn cos(self) -> Self;
        /// Hyperbolic tangent.
        fn tanh(self) -> Self;
        /// Absolute value.
        fn abs(self) -> Self;
        /// Floor.
        fn floor(self) -> Self;
        /// A subnormal to the zero of its sign.
        fn flush(self) -> Self;
        /// Minimum.
        fn min(self, other: Self) -> Self;
        /// Maximum.
        fn max(self, other: Self) -> Self;
    }

    macro_rules! scalar {
        ($t:ident, $pick:expr) => {
            impl Scalar for $t {
                fn literal(f64: f64, f32: f32) -> Self {
                    $pick(f64, f32)
                }
                fn sqrt(self) -> Self {
                    $t::sqrt(self)
                }
                fn exp(self) -> Self {
                    $t::exp(self)
                }
                fn ln(self) -> Self {
                    $t::ln(self)
                }
                fn sin(self) -> Self {
                    $t::sin(self)
                }
                fn cos(self) -> Self {
                    $t::cos(self)
                }
                fn tanh(self) -> Self {
                    $t::tanh(self)
                }
                fn abs(self) -> Self {
                    $t::abs(self)
                }
                fn floor(self) -> Self {
                    $t::floor(self)
                }
                fn flush(self) -> Self {
                    if self != 0.0 && self.abs() < $t::MIN_POSITIVE {
                        $t::copysign(0.0, self)
                    } else {
                        self
                    }
                }
                fn min(self, other: Self) -> Self {
                    $t::min(self, other)
                }
                fn max(self, other: Self) -> Self {
                    $t::max(self, other)
                }
            }
        };
    }
    scalar!(f32, |_, narrow| narrow);
    scalar!(f64, |wide, _| wide);

    /// `x^n` by repeated multiplication.
    pub fn powi<T: Scalar>(x: T, n: i32) -> T {
        let mut p = T::literal(1.0, 1.0);
        for _ in 0..n.unsigned_abs() {
            p = p * x;
        }
        if n < 0 {
            T::literal(1.0, 1.0) / p
        } else {
            p
        }
    }

    /// A type a stencil over fields of `T` computes in: exact widening, rounded narrowing.
    pub trait Widen<T>: Copy {
        /// `x`, exactly.
        fn widen(x: T) -> Self;
        /// `self` rounded to `T`.
        fn narrow(self) -> T;
    }

    impl Widen<f32> for f32 {
        fn widen(x: f32) -> f32 {
            x
        }
        fn narrow(self) -> f32 {
            self
        }
    }

    impl Widen<f64> for f64 {
        fn widen(x: f64) -> f64 {
            x
        }
        fn narrow(self) -> f64 {
            self
        }
    }

    impl Widen<f32> for f64 {
        fn widen(x: f32) -> f64 {
            f64::from(x)
        }
        fn narrow(self) -> f32 {
            self as f32
        }
    }

    /// A point update over `N`-dimensional fields of `T`.
    pub trait Stencil<T: Scalar, const N: usize> {
        /// Input field names.
        const FIELDS: &'static [&'static str];
        /// Parameter names.
        const PARAMS: &'static [&'static str];
        /// Distinct reads.
        const TAPS: &'static [Tap<N>];
        /// The expression as data.
        const NODES: &'static [Node];
        /// The node of each output's value.
        const VALUES: &'static [usize];
        /// The definition as written.
        const SOURCE: &'static str;
        /// The type the body computes in.
        type Compute;
        /// One `Compute` per parameter.
        type Params: Copy;
        /// The number of fields, as a type.
        type Arity;
        /// What one point computes: `T`, or `[T; M]` for `M` outputs.
        type Values;
        /// The update at one point.
        fn point<R: TapReader<T>>(taps: &R, params: &Self::Params) -> Self::Values;
    }

    /// The state a stencil steps: `M` fields at `L` levels.
    pub trait Evolves<const M: usize, const L: usize> {
        /// One more than the coefficient fields, as a type.
        type Coefficients;
    }

    /// A stage of a state of `M` fields at `L` levels: the fields it writes.
    pub trait Stage<const M: usize, const L: usize> {
        /// The written fields.
        const WRITES: &'static [usize];
        /// One more than the coefficient fields, as a type.
        type Coefficients;
    }
}

/// Tap values gathered in advance.
struct Taps<T>(Vec<T>);

impl<T: Copy> TapReader<T> for Taps<T> {
    fn tap(&self, k: usize) -> T {
        self.0[k]
    }
}

/// Applies `S` at `(i, j)` of row-major `n`-wide fields.
fn at<S: Stencil<T, 2>, T: stencil::Scalar>(
    _: &S,
    fields: &[&[T]],
    n: usize,
    (i, j): (isize, isize),
    p: S::Params,
) -> S::Values {
    let taps = S::TAPS.iter().map(|t| fields[t.field][((i + t.offset[0]) * n as isize + j + t.offset[1]) as usize]);
    S::point(&Taps(taps.collect()), &p)
}

stencil! {
    /// The heat equation's explicit step.
    pub struct Heat = |u, k; dt: T| u[0, 0] + dt * (k[0, 0] * (u[-1, 0] + u[1, 0] + u[0, -1] + u[0, 1] - 4.0 * u[0, 0]));
}

/// The derived `Default`, from a generic context.
fn made<S: Default>() -> S {
    S::default()
}

/// A stencil type in a signature, as the item form allows.
fn heat_at(s: Heat, u: &[f64], k: &[f64], dt: f64) -> f64 {
    at(&s, &[u, k], 3, (1, 1), (dt,))
}

fn grid<T: Copy>(f: impl Fn(usize) -> T) -> Vec<T> {
    (0..9).map(f).collect()
}

#[test]
fn heat_item_form_computes_in_source_order() {
    let u = grid(|i| (i * i) as f64 * 0.37);
    let k = grid(|i| 1.0 + i as f64 * 0.01);
    let dt = 0.1;
    let expected = u[4] + dt * (k[4] * (u[1] + u[7] + u[3] + u[5] - 4.0 * u[4]));
    assert_eq!(heat_at(Heat, &u, &k, dt).to_bits(), expected.to_bits());
    assert_eq!(<Heat as Stencil<f64, 2>>::FIELDS, ["u", "k"]);
    assert_eq!(<Heat as Stencil<f64, 2>>::PARAMS, ["dt"]);
    assert_eq!(<Heat as Stencil<f64, 2>>::TAPS.len(), 6);
    assert_eq!(<Heat as Stencil<f64, 2>>::TAPS[2], stencil::Tap { field: 0, offset: [-1, 0] });
    let source = <Heat as Stencil<f32, 2>>::SOURCE;
    assert!(source.starts_with('|') && source.ends_with("u[0, 0]))") && !source.contains('\n'), "{source}");
    assert_eq!(format!("{:?}", made::<Heat>()), "Heat");
}

#[test]
fn generic_stencils_carry_one_expression_for_every_element_type() {
    use stencil::{Binary, Lit, Node};
    let double = <Heat as Stencil<f64, 2>>::NODES;
    assert_eq!(double, <Heat as Stencil<f32, 2>>::NODES);
    assert_eq!(double.len(), 18);
    assert_eq!(double[10], Node::Lit(Lit { f64: 4.0, f32: 4.0 }));
    assert_eq!(double[16], Node::Binary(Binary::Add, 0, 15));
    assert_eq!(double[17], Node::Unary(stencil::Unary::Flush, 16), "subnormals flushed by default");
}

#[test]
fn expression_form_in_f32() {
    let heat =
        stencil!(|u, k; dt: T| u[0, 0] + dt * (k[0, 0] * (u[-1, 0] + u[1, 0] + u[0, -1] + u[0, 1] - 4.0 * u[0, 0])));
    let u = grid(|i| (i as f32).sin());
    let k = grid(|i| 0.5 + i as f32);
    let dt = 0.013_f32;
    let expected = u[4] + dt * (k[4] * (u[1] + u[7] + u[3] + u[5] - 4.0 * u[4]));
    assert_eq!(at(&heat, &[&u, &k], 3, (1, 1), (dt,)).to_bits(), expected.to_bits());
}

#[test]
fn literals_have_each_types_rounding() {
    let s = stencil!(|u| u[0, 0] * 0.1 + 1e-300);
    let u64s = grid(|i| i as f64);
    let u32s = grid(|i| i as f32);
    assert_eq!(at(&s, &[&u64s], 3, (1, 1), ()), 4.0 * 0.1 + 1e-300);
    assert_eq!(at(&s, &[&u32s], 3, (1, 1), ()), 4.0_f32 * 0.1 + 0.0);
}

#[test]
fn functions_select_and_powi() {
    let s = stencil!(|u; a| select(u[0, 0] > a && !(u[0, 1] < 0), u[0, 0].sqrt().min(ln(u[0, 1])), powi(u[0, -1], -2) + abs(-u[0, 0]).floor()));
    let u = grid(|i| 0.5 + i as f64);
    let (c, r, l) = (u[4], u[5], u[3]);
    assert_eq!(at(&s, &[&u], 3, (1, 1), (1.0,)), c.sqrt().min(r.ln()));
    assert_eq!(at(&s, &[&u], 3, (1, 1), (9.0,)), 1.0 / (l * l) + c.abs().floor());
    let t = stencil!(|u| exp(u[0, 0]) - u[0, 0].sin() * cos(u[0, 0]) + u[0, 0].tanh().max(0.25));
    let expected = c.exp() - c.sin() * c.cos() + c.tanh().max(0.25);
    assert_eq!(at(&t, &[&u], 3, (1, 1), ()), expected);
}

#[test]
fn concrete_types_restrict_the_impl() {
    let s = stencil!(|u; a: f32| a * u[0, 0] - u[0, 1]);
    let u = grid(|i| i as f32);
    assert_eq!(at(&s, &[&u], 3, (1, 1), (2.0,)), 3.0);
    assert_eq!(nodes_of(&s).len(), 6);
    let d = stencil!(#[subnormals(keep)] |u; a: f64| a * u[0, 0]);
    assert_eq!(
        nodes_of(&d),
        [stencil::Node::Param(0), stencil::Node::Tap(0), stencil::Node::Binary(stencil::Binary::Mul, 0, 1)]
    );
}

fn nodes_of<S: Stencil<T, 2>, T: stencil::Scalar>(_: &S) -> &'static [stencil::Node] {
    S::NODES
}

fn values_of<S: Stencil<T, 2>, T: stencil::Scalar>(_: &S) -> &'static [usize] {
    S::VALUES
}

#[test]
fn a_final_tuple_gives_one_value_per_output_sharing_the_bindings() {
    let s = stencil!(|u, v; f: T| {
        let uv = u[0, 0] * v[0, 0];
        (u[0, 0] - uv + f, v[0, 1] + uv)
    });
    let u = grid(|i| i as f64 * 0.5);
    let v = grid(|i| 1.0 + i as f64);
    let [a, b] = at(&s, &[&u, &v], 3, (1, 1), (0.25,));
    let uv = u[4] * v[4];
    assert_eq!((a.to_bits(), b.to_bits()), ((u[4] - uv + 0.25).to_bits(), (v[5] + uv).to_bits()));
    // The binding's nodes once, then each value's, each ending in its flush.
    let nodes = nodes_of::<_, f64>(&s);
    assert_eq!(values_of::<_, f64>(&s), [7, 10]);
    assert_eq!(nodes[2], stencil::Node::Binary(stencil::Binary::Mul, 0, 1));
    assert_eq!(nodes[10], stencil::Node::Unary(stencil::Unary::Flush, 9));
    assert_eq!(nodes[9], stencil::Node::Binary(stencil::Binary::Add, 8, 2));
    // Two values from two fields at one level each: it steps a state of both.
    fn steps<S: stencil::Evolves<2, 1, Coefficients = stencil::Arity<1>>>(_: &S) {}
    steps(&s);
    let wave = stencil!(#[levels(2)] |u, um, m; c: f64| 2.0 * u[0, 0] - um[0, 0] + c * m[0, 0]);
    fn wave_steps<S: stencil::Evolves<1, 2, Coefficients = stencil::Arity<2>>>(_: &S) {}
    wave_steps(&wave);
    // A stage: every state its written fields fit in, no `Evolves`.
    let h = stencil!(#[writes(hx, hy)] |ez, hx, hy, k; c: f64| (hx[0, 0] - c * ez[0, 1], hy[0, 0] + k[0, 0]));
    fn stage<const M: usize, S: stencil::Stage<M, 1>>(_: &S) -> (&'static [usize], &'static str) {
        (S::WRITES, core::any::type_name::<S::Coefficients>())
    }
    assert_eq!(stage::<3, _>(&h), (&[1, 2][..], core::any::type_name::<stencil::Arity<2>>()));
    assert_eq!(stage::<4, _>(&h), (&[1, 2][..], core::any::type_name::<stencil::Arity<1>>()));
    let e = stencil!(#[levels(2)] #[writes(u)] |v, vm, u, um; c: f64| u[0] + c * (v[1] - v[0]) - um[0]);
    fn stage2<S: stencil::Stage<2, 2>>(_: &S) -> &'static [usize] {
        S::WRITES
    }
    assert_eq!(stage2(&e), [1]);
    // Without the flush, a value may be a bound node itself.
    let t = stencil!(#[subnormals(keep)] |u| { let d = u[0, 1] - u[0, 0]; (d, u[0, 0]) });
    assert_eq!(values_of::<_, f64>(&t), [2, 3]);
}

#[test]
#[allow(non_snake_case)] // `R`, the name of `point`'s type parameter, as a parameter name
fn parameter_names_do_not_capture_the_expansions_locals() {
    let s = stencil!(|u; taps, params, R| taps * u[0, 0] + params - R);
    let u = grid(|i| i as f64);
    assert_eq!(at(&s, &[&u], 3, (1, 1), (2.0, 3.0, 1.0)), 10.0);
}

#[test]
fn works_inside_macro_rules() {
    macro_rules! scaled {
        ($factor:expr) => {
            stencil!(|u| u[0, 0] * $factor)
        };
    }
    let s = scaled!(3);
    let u = grid(|i| i as f64);
    assert_eq!(at(&s, &[&u], 3, (1, 1), ()), 12.0);
}

#[test]
fn let_bindings_compute_once_in_source_order() {
    let s = stencil!(|u; a| {
        let lap = u[-1, 0] + u[1, 0] - 2.0 * u[0, 0];
        let big = lap > a;
        u[0, 0] + select(big, a * lap, lap)
    });
    let u = grid(|i| (i * i) as f64 * 0.5);
    let lap = u[1] + u[7] - 2.0 * u[4];
    for a in [0.5, 100.0] {
        let expected = u[4] + if lap > a { a * lap } else { lap };
        assert_eq!(at(&s, &[&u], 3, (1, 1), (a,)), expected);
    }
    assert_eq!(nodes_of::<_, f64>(&s).len(), 15, "the bindings' nodes appear once, then the flush");
}

#[test]
fn subnormal_values_are_stored_as_signed_zeros_unless_kept() {
    let flushed = stencil!(|u; a| a * u[0, 0]);
    let kept = stencil!(#[subnormals(keep)] |u; a| a * u[0, 0]);
    let u = grid(|i| if i % 2 == 0 { 1e-30_f32 } else { -1e-30 });
    // 1e-30 * 1e-10 is subnormal in f32: zero when flushed, with the product's sign.
    for (centre, sign) in [((1, 1), 1.0_f32), ((1, 2), -1.0)] {
        let zero = at(&flushed, &[&u], 3, centre, (1e-10,));
        assert_eq!(zero.to_bits(), (sign * 0.0_f32).to_bits());
        let tiny = at(&kept, &[&u], 3, centre, (1e-10,));
        assert!(tiny.is_subnormal() && tiny.signum() == sign, "{tiny}");
    }
    // Normal values pass unchanged.
    assert_eq!(at(&flushed, &[&u], 3, (1, 1), (2.0,)), 2e-30);
}
