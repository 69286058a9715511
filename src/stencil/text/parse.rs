//! Text to expression data: `stencil!`'s own parser and checks (`cnda-lang`), then the flattened
//! nodes as cnda's `Node`s; a refusal becomes an `Error::Syntax` with a caret under the token.

use cnda_lang::flat::{flatten, Flat};
use cnda_lang::ir::{self, Elem};

use crate::error::{Error, Result};
use crate::kernel::expr::{Binary, Lit, Node, Tap, Unary};

/// What the text defines, before the rank is known: checked by `stencil!`'s own rules.
pub(super) struct Parsed {
    pub(super) fields: Vec<String>,
    pub(super) params: Vec<String>,
    pub(super) rank: usize,
    pub(super) taps: Vec<(usize, Vec<i32>)>,
    pub(super) nodes: Vec<Node>,
    pub(super) values: Vec<usize>,
    pub(super) levels: usize,
    /// `Some` when a parameter or literal names a concrete type (`dt: f32`).
    pub(super) elem: Option<crate::element::DType>,
}

/// Parses `text` as `stencil!` would its input (the expression form: `|fields; params| body`).
///
/// # Errors
///
/// `Error::Syntax` at the first error, with `stencil!`'s message; also for what run-time stencils
/// do not take yet (the item form, `#[writes(..)]`, `#[compute(..)]`).
pub(super) fn parse(text: &str) -> Result<Parsed> {
    let tokens: proc_macro2::TokenStream = text.parse().map_err(|e: proc_macro2::LexError| {
        let at = e.span().start();
        syntax(text, at.line, at.column, format!("the text does not lex as Rust tokens ({e})"))
    })?;
    let stencil = cnda_lang::analyze(tokens).map_err(|e| {
        let at = e.span().start();
        syntax(text, at.line, at.column, e.to_string())
    })?;
    let refuse = |what: &str| syntax(text, 1, 0, what.to_string());
    if stencil.item.is_some() {
        return Err(refuse(
            "a stencil read at run time is the expression form `|fields; params| body`, without `struct Name =`",
        ));
    }
    if stencil.writes.is_some() {
        return Err(refuse("`#[writes(..)]` stages are not read at run time yet: define the stage with `stencil!`"));
    }
    if stencil.compute.is_some() {
        return Err(refuse(
            "`#[compute(..)]` is not read at run time yet: compute in the fields' type (convert them first) or use `stencil!`",
        ));
    }
    let (flat, values) = flatten(&stencil.lets, &stencil.stored());
    Ok(Parsed {
        fields: stencil.fields.iter().map(ToString::to_string).collect(),
        params: stencil.params.iter().map(ToString::to_string).collect(),
        rank: stencil.rank,
        taps: stencil.taps.iter().map(|t: &ir::Tap| (t.field, t.offset.clone())).collect(),
        nodes: flat.into_iter().map(node).collect(),
        values,
        levels: stencil.levels,
        elem: match stencil.elem {
            Elem::Generic => None,
            Elem::F32 => Some(crate::element::DType::F32),
            Elem::F64 => Some(crate::element::DType::F64),
        },
    })
}

/// The taps at rank `N`, which the text's rank must be.
pub(super) fn taps<const N: usize>(parsed: &Parsed) -> Vec<Tap<N>> {
    parsed
        .taps
        .iter()
        .map(|(field, offset)| Tap { field: *field, offset: core::array::from_fn(|a| offset[a] as isize) })
        .collect()
}

/// A flattened node as cnda's.
fn node(flat: Flat) -> Node {
    match flat {
        Flat::Tap(k) => Node::Tap(k),
        Flat::Param(i) => Node::Param(i),
        Flat::Lit(lit) => Node::Lit(Lit { f64: lit.f64, f32: lit.f32 }),
        Flat::Unary(op, a) => Node::Unary(unary(op), a),
        Flat::Binary(op, a, b) => Node::Binary(binary(op), a, b),
        Flat::Select(c, a, b) => Node::Select(c, a, b),
        Flat::Powi(a, n) => Node::Powi(a, n),
    }
}

/// The operation `cnda-lang` names `name` (the variant's name, as the macro prints it).
fn unary(name: &str) -> Unary {
    match name {
        "Neg" => Unary::Neg,
        "Not" => Unary::Not,
        "Sqrt" => Unary::Sqrt,
        "Exp" => Unary::Exp,
        "Ln" => Unary::Ln,
        "Sin" => Unary::Sin,
        "Cos" => Unary::Cos,
        "Tanh" => Unary::Tanh,
        "Abs" => Unary::Abs,
        "Floor" => Unary::Floor,
        "Flush" => Unary::Flush,
        _ => unreachable!("cnda-lang names no other operation of one operand ({name})"),
    }
}

/// As [`unary`], for two operands.
fn binary(name: &str) -> Binary {
    match name {
        "Add" => Binary::Add,
        "Sub" => Binary::Sub,
        "Mul" => Binary::Mul,
        "Div" => Binary::Div,
        "Min" => Binary::Min,
        "Max" => Binary::Max,
        "Lt" => Binary::Lt,
        "Le" => Binary::Le,
        "Gt" => Binary::Gt,
        "Ge" => Binary::Ge,
        "Eq" => Binary::Eq,
        "Ne" => Binary::Ne,
        "And" => Binary::And,
        "Or" => Binary::Or,
        _ => unreachable!("cnda-lang names no other operation of two operands ({name})"),
    }
}

/// The refusal of `text` at `line` (from 1) and `column` (characters from 0), its line quoted
/// with a caret under the column.
pub(super) fn syntax(text: &str, line: usize, column: usize, reason: String) -> Error {
    let quoted = text.lines().nth(line.saturating_sub(1)).unwrap_or("");
    let caret = format!("{}^", " ".repeat(column.min(quoted.chars().count())));
    Error::Syntax { line: line.max(1), column: column + 1, reason, excerpt: format!("    {quoted}\n    {caret}") }
}
