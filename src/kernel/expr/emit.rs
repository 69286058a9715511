//! The printer every code generator shares: a [`CheckedExpr`] expression as statements, one
//! local per operation in node order (so the target computes in the CPU's order, whatever its
//! language's precedence, and a node used twice is computed once), each operation
//! parenthesized. What differs between CUDA C, WGSL and the CPU's C rows (`backend::cpu::jit`) is
//! a [`Dialect`], which each backend defines beside its kernels. The text comes only from checked nodes, the dialect's fixed
//! spellings and numbers, never from a stencil implementation.

use core::fmt::Write;

use super::check::CheckedExpr;
use super::node::{Binary, Lit, Node, Unary};

/// What differs between device languages.
pub trait Dialect {
    /// A literal's value in the element type (finite or infinite, never NaN: `check` refuses it).
    fn literal(&self, lit: Lit) -> String;
    /// The name of a one-operand math function (not `Neg` or `Not`, which are operators).
    fn function(&self, op: Unary) -> &'static str;
    /// The name of `Min` or `Max`.
    fn function2(&self, op: Binary) -> &'static str;
    /// The exponent of `cn_powi(x, n)`; by default as C spells an `int` (`-2147483648` would
    /// negate a `long` literal, so `INT_MIN` is spelled as a difference).
    fn exponent(&self, n: i32) -> String {
        if n == i32::MIN {
            "(-2147483647 - 1)".to_owned()
        } else {
            n.to_string()
        }
    }
    /// `select(condition, if_true, if_false)`, operands already printed; by default C's `?:`.
    fn select(&self, condition: &str, if_true: &str, if_false: &str) -> String {
        format!("({condition} ? {if_true} : {if_false})")
    }
    /// What a math function's call is wrapped in (a conversion back to the element type when the
    /// functions compute in another): before and after.
    fn call_wrap(&self) -> (&'static str, &'static str) {
        ("", "")
    }
    /// The statement that declares local `name` with `value`: a condition or a number.
    fn declare(&self, name: &str, condition: bool, value: &str) -> String;
}

/// The statements (each on its own line after `indent`) that compute `expr` from the locals
/// `t{k}` (its taps) and `p{i}` (its parameters), and the spelling of each output's value.
pub fn statements<const N: usize>(expr: &CheckedExpr<N>, d: &impl Dialect, indent: &str) -> (String, Vec<String>) {
    let nodes = expr.nodes();
    let mut names: Vec<String> = Vec::with_capacity(nodes.len());
    let mut out = String::new();
    for (i, node) in nodes.iter().enumerate() {
        let at = |k: usize| names[k].as_str();
        let value = match *node {
            // Leaves are spelled where they are used.
            Node::Tap(k) => {
                names.push(format!("t{k}"));
                continue;
            }
            Node::Param(p) => {
                names.push(format!("p{p}"));
                continue;
            }
            Node::Lit(lit) => {
                names.push(d.literal(lit));
                continue;
            }
            Node::Unary(Unary::Neg, a) => format!("(-{})", at(a)),
            Node::Unary(Unary::Not, a) => format!("(!{})", at(a)),
            Node::Unary(op, a) => call(d, d.function(op), &[at(a)]),
            Node::Binary(op, a, b) => match op.symbol() {
                Some(symbol) => format!("({} {symbol} {})", at(a), at(b)),
                None => call(d, d.function2(op), &[at(a), at(b)]),
            },
            Node::Select(c, a, b) => d.select(at(c), at(a), at(b)),
            Node::Powi(a, n) => format!("cn_powi({}, {})", at(a), d.exponent(n)),
        };
        let name = format!("v{i}");
        // `write!` into a String cannot fail.
        let _ = writeln!(out, "{indent}{}", d.declare(&name, expr.is_condition(i), &value));
        names.push(name);
    }
    let values = expr.values().iter().map(|&v| names[v].clone()).collect();
    (out, values)
}

fn call(d: &impl Dialect, name: &str, args: &[&str]) -> String {
    let (before, after) = d.call_wrap();
    format!("{before}{name}({}){after}", args.join(", "))
}

/// A finite value's shortest round-trip decimal `text` (Rust's `{:?}`) as a float literal with
/// `suffix` (`f` in C and WGSL for `f32`): it gets a `.` where it has neither one nor an
/// exponent, and a negative value is parenthesized so that it is one operand wherever it goes.
pub fn float_literal(text: String, suffix: &str) -> String {
    let text = if text.contains(['.', 'e', 'E']) { text } else { text + ".0" };
    match text.strip_prefix('-') {
        Some(magnitude) => format!("(-{magnitude}{suffix})"),
        None => format!("{text}{suffix}"),
    }
}
