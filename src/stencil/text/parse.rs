//! Text to expression data: `stencil!`'s own parser and checks (`cnda-lang`), then the flattened
//! nodes as cnda's `Node`s; a refusal becomes an `Error::Syntax` with a caret under the token.

use cnda_lang::flat::{flatten, Flat};
use cnda_lang::ir::{self, Elem};

use crate::error::{Error, Result};
use crate::kernel::expr::{Binary, Lit, Node, Tap, Unary, MAX_NODES};

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

/// The longest text read (a stencil of [`MAX_NODES`] nodes is far shorter).
const MAX_TEXT_BYTES: usize = 1 << 20;

/// The deepest nesting of brackets read: the lexer and the parser recurse on it.
const MAX_NESTING: usize = 256;

/// The most tokens read, brackets and their contents counted: a bound on the expression tree's
/// depth, which the lowering and flattening recurse on.
const MAX_TOKENS: usize = 16 * MAX_NODES;

/// The stack of the thread that parses: what [`MAX_TOKENS`] tokens nested as deep as a chain of
/// operators can go need, reserved, not committed, and returned when the thread ends (with the
/// lexer's copy of the text, which a longer-lived thread would keep).
const PARSER_STACK: usize = 256 << 20;

/// What run-time text is refused for, and what to do instead.
const OP: &str = "TextStencil::parse";
const FIX: &str = "correct the text where the caret points (the language is `stencil!`'s: see its documentation)";

/// Parses `text` as `stencil!` would its input (the expression form: `|fields; params| body`),
/// on a thread of its own with a large stack, after bounding its size and nesting.
///
/// # Errors
///
/// `Error::Syntax` at the first error, with `stencil!`'s message; also for what run-time stencils
/// do not take yet (the item form, `#[writes(..)]`, `#[compute(..)]`) and for text past the
/// bounds above.
pub(super) fn parse(text: &str) -> Result<Parsed> {
    bounded(text)?;
    std::thread::scope(|scope| {
        let parser = std::thread::Builder::new().name("cnda-parse".into()).stack_size(PARSER_STACK);
        match parser.spawn_scoped(scope, || parse_here(text)) {
            Ok(thread) => thread.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            // No thread to be had: parse here (the bounds keep the depth moderate).
            Err(_) => parse_here(text),
        }
    })
}

/// Refuses text longer or more deeply nested than the parser takes.
fn bounded(text: &str) -> Result<()> {
    if text.len() > MAX_TEXT_BYTES {
        let reason = format!("the text has {} bytes, more than the {MAX_TEXT_BYTES} a stencil's may", text.len());
        return Err(syntax(text, 1, 0, reason));
    }
    let mut depth = 0usize;
    for (line, content) in text.lines().enumerate() {
        for (column, c) in content.chars().enumerate() {
            match c {
                '(' | '[' | '{' => depth += 1,
                ')' | ']' | '}' => depth = depth.saturating_sub(1),
                _ => {}
            }
            if depth > MAX_NESTING {
                let reason = format!("brackets nest more than {MAX_NESTING} deep here");
                return Err(syntax(text, line + 1, column, reason));
            }
        }
    }
    Ok(())
}

/// The number of tokens in `tokens`, those inside brackets included.
fn count(tokens: proc_macro2::TokenStream) -> usize {
    tokens
        .into_iter()
        .map(|t| match t {
            proc_macro2::TokenTree::Group(g) => 1 + count(g.stream()),
            _ => 1,
        })
        .sum()
}

/// [`parse`] on the current thread.
fn parse_here(text: &str) -> Result<Parsed> {
    let at = |span: proc_macro2::Span, reason: String| {
        // syn reports a missing end at the call site (the start): point past the last token.
        if reason.starts_with("unexpected end of input") {
            let trimmed = text.trim_end();
            let line = trimmed.lines().count().max(1);
            let column = trimmed.lines().last().map_or(0, |l| l.chars().count());
            return syntax(text, line, column, reason);
        }
        let start = span.start();
        syntax(text, start.line, start.column, reason)
    };
    let tokens: proc_macro2::TokenStream = text
        .parse()
        .map_err(|e: proc_macro2::LexError| at(e.span(), format!("the text does not lex as Rust tokens ({e})")))?;
    let tokens_read = count(tokens.clone());
    if tokens_read > MAX_TOKENS {
        let reason = format!("the text has {tokens_read} tokens, more than the {MAX_TOKENS} a stencil's may");
        return Err(syntax(text, 1, 0, reason));
    }
    let input = cnda_lang::parse::input(tokens).map_err(|e| at(e.span(), e.to_string()))?;
    if let Some(item) = &input.item {
        let reason =
            "a stencil read at run time is the expression form `|fields; params| body`, without `struct Name =`";
        return Err(at(item.name.span(), reason.into()));
    }
    if let Some(first) = input.writes.as_ref().and_then(|w| w.first()) {
        let reason = "`#[writes(..)]` stages are not read at run time yet: define the stage with `stencil!`";
        return Err(at(first.span(), reason.into()));
    }
    if let Some((_, attribute)) = &input.compute {
        let reason = "`#[compute(..)]` is not read at run time yet: compute in the fields' type (convert them first) or use `stencil!`";
        return Err(at(attribute.pound_token.spans[0], reason.into()));
    }
    let stencil = cnda_lang::lower::stencil(input).map_err(|e| at(e.span(), e.to_string()))?;
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
    Error::Syntax {
        op: OP,
        line: line.max(1),
        column: column + 1,
        reason,
        excerpt: format!("    {quoted}\n    {caret}"),
        fix: FIX,
    }
}
