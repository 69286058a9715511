//! A stencil's expression as data: what `stencil!` hands every backend, and what each backend
//! generates its own code from (the CPU's point function comes from the same tree, through the
//! macro). A flat list of [`Node`]s in evaluation order, each operand an earlier node's index,
//! and the node of each value (`Stencil::VALUES`, one per output): no text, nothing a backend has
//! to trust before [`check`](fn@super::check) has read it.

/// A number literal, rounded once per precision from its decimal text (as rustc rounds
/// `0.1_f64` and `0.1_f32`): each element type computes with its own rounding of the text, as a
/// device compiler rounds `0.1` and `0.1f`. The 16-bit floats take `f32`'s value, rounded.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lit {
    /// The value in `f64`.
    pub f64: f64,
    /// The value in `f32`.
    pub f32: f32,
}

impl Lit {
    /// `x` in both precisions (`f32` rounded from `x`, which can differ from rounding the text).
    pub const fn new(x: f64) -> Lit {
        Lit { f64: x, f32: x as f32 }
    }
}

/// An operation of one operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Unary {
    /// `-x`.
    Neg,
    /// `!c`, on a condition.
    Not,
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
    /// Largest integer not above `x`.
    Floor,
    /// `x`, except that a subnormal becomes the zero of its sign: magnitudes below `2^-126`
    /// (the smallest normal `f32`) for `f32`, `bf16` and `f16` (which compute in `f32`; no `f16`
    /// lies there but zero), below `2^-1022` for `f64`. `stencil!` ends every value with it
    /// unless the stencil says `#[subnormals(keep)]`; see [`Scalar::flush`](super::Scalar::flush).
    Flush,
}

impl Unary {
    /// Whether the operand and the result are conditions (`Not`) rather than numbers.
    pub const fn on_conditions(self) -> bool {
        matches!(self, Unary::Not)
    }
}

/// An operation of two operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Binary {
    /// `a + b`.
    Add,
    /// `a - b`.
    Sub,
    /// `a * b`.
    Mul,
    /// `a / b`.
    Div,
    /// The smaller; the other when one is NaN ([`Scalar::min`](super::Scalar::min)).
    Min,
    /// The larger; the other when one is NaN ([`Scalar::max`](super::Scalar::max)).
    Max,
    /// `a < b`, a condition.
    Lt,
    /// `a <= b`, a condition.
    Le,
    /// `a > b`, a condition.
    Gt,
    /// `a >= b`, a condition.
    Ge,
    /// `a == b`, a condition.
    Eq,
    /// `a != b`, a condition.
    Ne,
    /// `a && b`, on conditions.
    And,
    /// `a || b`, on conditions.
    Or,
}

impl Binary {
    /// Whether the operands are conditions (`&&`, `||`) rather than numbers.
    pub const fn on_conditions(self) -> bool {
        matches!(self, Binary::And | Binary::Or)
    }

    /// Whether the result is a condition (comparisons and logic) rather than a number.
    pub const fn gives_condition(self) -> bool {
        !matches!(self, Binary::Add | Binary::Sub | Binary::Mul | Binary::Div | Binary::Min | Binary::Max)
    }

    /// The operator's spelling where the operation is an operator (the same in Rust, C++ and
    /// WGSL); `None` for `Min` and `Max`, which are functions.
    pub const fn symbol(self) -> Option<&'static str> {
        Some(match self {
            Binary::Add => "+",
            Binary::Sub => "-",
            Binary::Mul => "*",
            Binary::Div => "/",
            Binary::Lt => "<",
            Binary::Le => "<=",
            Binary::Gt => ">",
            Binary::Ge => ">=",
            Binary::Eq => "==",
            Binary::Ne => "!=",
            Binary::And => "&&",
            Binary::Or => "||",
            Binary::Min | Binary::Max => return None,
        })
    }
}

/// One node of a stencil's expression. Operands are indices of earlier nodes of the same list;
/// [`check`](fn@super::check) refuses any other reference, so the list is a tree, or a DAG where
/// one node is an operand of several (computed once, as a hand-written list may share a
/// subexpression; `stencil!` flattens its tree without sharing), that every backend evaluates in
/// list order.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum Node {
    /// The value of tap `k` ([`Stencil::TAPS`](super::Stencil::TAPS)`[k]`) at the point.
    Tap(usize),
    /// Parameter `i` ([`Stencil::PARAMS`](super::Stencil::PARAMS)`[i]`).
    Param(usize),
    /// A number literal (never NaN).
    Lit(Lit),
    /// An operation of one operand.
    Unary(Unary, usize),
    /// An operation of two operands, the first on the left.
    Binary(Binary, usize, usize),
    /// `select(condition, if_true, if_false)`: both values are computed.
    Select(usize, usize, usize),
    /// `x` to a fixed integer power ([`powi`](super::powi)).
    Powi(usize, i32),
}

impl Node {
    /// The node's operands, in order.
    pub fn operands(&self) -> impl Iterator<Item = usize> {
        let (list, len) = match *self {
            Node::Tap(_) | Node::Param(_) | Node::Lit(_) => ([0; 3], 0),
            Node::Unary(_, a) | Node::Powi(a, _) => ([a, 0, 0], 1),
            Node::Binary(_, a, b) => ([a, b, 0], 2),
            Node::Select(c, a, b) => ([c, a, b], 3),
        };
        list.into_iter().take(len)
    }
}
