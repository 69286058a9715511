//! The expression printer shared by the device backends. Every operation is parenthesized, so the
//! string's meaning never depends on the target language's precedence, and the tree is printed as
//! the source wrote it, so devices compute in the CPU's order.

use std::fmt::Write;

use crate::ir::{Arith, Cmp, Expr, Func, Lit, Logic};

/// What differs between device languages.
pub(crate) trait Dialect {
    /// A literal's value in the dialect's element type.
    fn literal(&self, lit: Lit) -> String;
    /// The name of a math function.
    fn function(&self, func: Func) -> &'static str;
    /// The exponent of `cn_powi(x, n)`.
    fn exponent(&self, n: i32) -> String;
    /// `select(condition, if_true, if_false)`, operands already printed.
    fn select(&self, condition: &str, if_true: &str, if_false: &str) -> String;
    /// What a math function's call is wrapped in (a conversion back to the element type when the
    /// functions compute in another): before and after.
    fn call_wrap(&self) -> (&'static str, &'static str) {
        ("", "")
    }
}

/// Prints `e`: tap `k` is the variable `t{k}`, parameter `i` is `p{i}`.
pub(crate) fn print(e: &Expr, dialect: &impl Dialect) -> String {
    let mut out = String::new();
    write(e, dialect, &mut out);
    out
}

fn write(e: &Expr, d: &impl Dialect, out: &mut String) {
    // `write!` into a String cannot fail.
    match e {
        Expr::Tap(k) => drop(write!(out, "t{k}")),
        Expr::Param(i) => drop(write!(out, "p{i}")),
        Expr::Lit(lit) => out.push_str(&d.literal(*lit)),
        Expr::Neg(x) => unary("-", x, d, out),
        Expr::Not(x) => unary("!", x, d, out),
        Expr::Arith(op, a, b) => binary(arith(*op), a, b, d, out),
        Expr::Cmp(op, a, b) => binary(cmp(*op), a, b, d, out),
        Expr::Logic(op, a, b) => binary(logic(*op), a, b, d, out),
        Expr::Select(c, a, b) => out.push_str(&d.select(&print(c, d), &print(a, d), &print(b, d))),
        Expr::Call(func, args) => {
            let (before, after) = d.call_wrap();
            out.push_str(before);
            out.push_str(d.function(*func));
            out.push('(');
            for (i, arg) in args.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write(arg, d, out);
            }
            out.push(')');
            out.push_str(after);
        }
        Expr::Powi(x, n) => {
            out.push_str("cn_powi(");
            write(x, d, out);
            out.push_str(", ");
            out.push_str(&d.exponent(*n));
            out.push(')');
        }
    }
}

fn unary(op: &str, x: &Expr, d: &impl Dialect, out: &mut String) {
    out.push('(');
    out.push_str(op);
    write(x, d, out);
    out.push(')');
}

fn binary(op: &str, a: &Expr, b: &Expr, d: &impl Dialect, out: &mut String) {
    out.push('(');
    write(a, d, out);
    out.push(' ');
    out.push_str(op);
    out.push(' ');
    write(b, d, out);
    out.push(')');
}

/// The operator's spelling, the same in Rust, C++ and WGSL.
pub(crate) fn arith(op: Arith) -> &'static str {
    match op {
        Arith::Add => "+",
        Arith::Sub => "-",
        Arith::Mul => "*",
        Arith::Div => "/",
    }
}

/// The comparison's spelling, the same in Rust, C++ and WGSL.
pub(crate) fn cmp(op: Cmp) -> &'static str {
    match op {
        Cmp::Lt => "<",
        Cmp::Le => "<=",
        Cmp::Gt => ">",
        Cmp::Ge => ">=",
        Cmp::Eq => "==",
        Cmp::Ne => "!=",
    }
}

/// The logical operator's spelling, the same in Rust, C++ and WGSL.
pub(crate) fn logic(op: Logic) -> &'static str {
    match op {
        Logic::And => "&&",
        Logic::Or => "||",
    }
}
