//! The checked stencil: names resolved, taps numbered, types known. Every emitter reads only this.

use proc_macro2::Ident;
use syn::{Attribute, Visibility};

/// The element type the stencil is implemented for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Elem {
    /// Every `T: Scalar` (no parameter or literal named a concrete type).
    Generic,
    /// Only `f32`.
    F32,
    /// Only `f64`.
    F64,
}

/// One distinct read of a field at a fixed offset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tap {
    /// Index of the field in the stencil's field list.
    pub field: usize,
    /// One offset per axis.
    pub offset: Vec<i32>,
}

/// A literal's value, rounded once for each precision from its decimal text.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lit {
    /// The correctly rounded `f64` value (infinite when the text overflows `f64`).
    pub f64: f64,
    /// The correctly rounded `f32` value (infinite when the text overflows `f32`).
    pub f32: f32,
}

/// `+ - * /`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arith {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
}

/// `< <= > >= == !=`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmp {
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `==`
    Eq,
    /// `!=`
    Ne,
}

/// `&&` and `||`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Logic {
    /// `&&`
    And,
    /// `||`
    Or,
}

/// The math functions, callable as `f(x)` or `x.f()` (`powi` and `select` are separate nodes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Func {
    /// Square root.
    Sqrt,
    /// `e^x`.
    Exp,
    /// Natural logarithm.
    Ln,
    /// Sine.
    Sin,
    /// Cosine.
    Cos,
    /// Hyperbolic tangent.
    Tanh,
    /// Absolute value.
    Abs,
    /// Round toward negative infinity.
    Floor,
    /// The smaller of two numbers.
    Min,
    /// The larger of two numbers.
    Max,
    /// A subnormal to the zero of its sign (cnda's `Scalar::flush`); also what ends every value
    /// unless the stencil says `#[subnormals(keep)]`.
    Flush,
}

impl Func {
    /// Every function, in the order error messages list them.
    pub const ALL: [Func; 11] = [
        Func::Sqrt,
        Func::Exp,
        Func::Ln,
        Func::Sin,
        Func::Cos,
        Func::Tanh,
        Func::Abs,
        Func::Floor,
        Func::Min,
        Func::Max,
        Func::Flush,
    ];

    /// The name in the stencil body, which is also the `Scalar` method's name.
    pub fn name(self) -> &'static str {
        match self {
            Func::Sqrt => "sqrt",
            Func::Exp => "exp",
            Func::Ln => "ln",
            Func::Sin => "sin",
            Func::Cos => "cos",
            Func::Tanh => "tanh",
            Func::Abs => "abs",
            Func::Floor => "floor",
            Func::Min => "min",
            Func::Max => "max",
            Func::Flush => "flush",
        }
    }

    /// Number of arguments in function style (the receiver counts in method style).
    pub fn arity(self) -> usize {
        match self {
            Func::Min | Func::Max => 2,
            _ => 1,
        }
    }

    /// The function called `name`, if any.
    pub fn from_name(name: &str) -> Option<Func> {
        Func::ALL.into_iter().find(|f| f.name() == name)
    }
}

/// An expression of the stencil body. Its tree is the source's: no reassociation, no folding.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    /// Tap `k` of [`Stencil::taps`].
    Tap(usize),
    /// Parameter `i`.
    Param(usize),
    /// A literal number.
    Lit(Lit),
    /// Unary minus.
    Neg(Box<Expr>),
    /// Logical not.
    Not(Box<Expr>),
    /// Arithmetic on numbers.
    Arith(Arith, Box<Expr>, Box<Expr>),
    /// A comparison of numbers, giving a bool.
    Cmp(Cmp, Box<Expr>, Box<Expr>),
    /// `&&` or `||` on bools.
    Logic(Logic, Box<Expr>, Box<Expr>),
    /// `select(condition, if_true, if_false)`.
    Select(Box<Expr>, Box<Expr>, Box<Expr>),
    /// A math function applied to its arguments.
    Call(Func, Vec<Expr>),
    /// `x` to a fixed integer power.
    Powi(Box<Expr>, i32),
    /// The value of `let` binding `i` of [`Stencil::lets`].
    Local(usize),
}

/// A `let name = value;` of the body, computed once, before the bindings after it and the value.
#[derive(Clone, Debug)]
pub struct Let {
    /// The name, as written (its span, so the expansion's `let` is the user's).
    pub name: Ident,
    /// The bound value.
    pub value: Expr,
}

/// The item form's `#[attrs] vis struct Name`.
#[derive(Clone)]
pub struct Item {
    /// Outer attributes, doc comments included.
    pub attrs: Vec<Attribute>,
    /// The struct's visibility.
    pub vis: Visibility,
    /// The struct's name.
    pub name: Ident,
}

impl Stencil {
    /// The values the stencil stores, one per output: each as written, ending in `flush(..)`
    /// unless the stencil keeps subnormals (or the value already ends in it: flushing twice
    /// changes nothing).
    pub fn stored(&self) -> Vec<Expr> {
        let store = |value: &Expr| match (self.subnormals, value) {
            (Subnormals::Keep, value) | (Subnormals::Flush, value @ Expr::Call(Func::Flush, _)) => value.clone(),
            (Subnormals::Flush, value) => Expr::Call(Func::Flush, vec![value.clone()]),
        };
        self.values.iter().map(store).collect()
    }
}

/// A checked stencil definition.
#[derive(Clone)]
pub struct Stencil {
    /// `Some` for the item form, `None` for the expression form.
    pub item: Option<Item>,
    /// Input fields, in declaration order.
    pub fields: Vec<Ident>,
    /// Scalar parameters, in declaration order.
    pub params: Vec<Ident>,
    /// The element type of the impl.
    pub elem: Elem,
    /// Number of axes (1 to 4).
    pub rank: usize,
    /// Distinct reads in order of first appearance in the source.
    pub taps: Vec<Tap>,
    /// The `let` bindings, in order.
    pub lets: Vec<Let>,
    /// The body's values as written, one per output (the elements of a final tuple, or the one
    /// value).
    pub values: Vec<Expr>,
    /// What is stored when the value is subnormal.
    pub subnormals: Subnormals,
    /// The time levels read of each evolving field (`#[levels(L)]`): the first `values * levels`
    /// fields are the evolving fields' levels, newest first, field by field.
    pub levels: usize,
    /// A stage's written state fields (`#[writes(..)]`), in order: field `f` is the stencil's
    /// field `f * levels`.
    pub writes: Option<Vec<usize>>,
    /// The wider type it computes in (`#[compute(..)]`): then `elem` is that type, the fields'
    /// type is generic, and each tap is widened and each value narrowed.
    pub compute: Option<Elem>,
    /// The closure as written, for `Stencil::SOURCE`.
    pub source: String,
}

/// What a stencil stores when its value is subnormal: `#[subnormals(flush)]` (the default) or
/// `#[subnormals(keep)]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Subnormals {
    /// The value ends in `flush(..)`: a subnormal is stored as the zero of its sign.
    Flush,
    /// The value is stored as computed.
    Keep,
}
