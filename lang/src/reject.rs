//! Errors for Rust syntax a stencil body does not allow. A body must mean the same on the CPU, in
//! CUDA C++ and in WGSL, so it is a small pure expression language; each message says what to
//! write instead.

use quote::ToTokens;
use syn::{BinOp, Error, Expr, UnOp};

/// What a body may contain, appended to messages without a more specific fix.
pub const ALLOWED: &str = "a stencil body may contain field reads such as `u[0, -1]`, parameters, \
     number literals, `+ - * /`, comparisons, `&&` `||` `!`, `select(c, a, b)` and the functions \
     sqrt, exp, ln, sin, cos, tanh, abs, floor, min, max, flush, powi";

/// The error for an expression kind the lowering does not accept.
pub fn expr(e: &Expr) -> Error {
    let msg = match e {
        Expr::If(_) => "`if` is not allowed in a stencil body: write `select(condition, a, b)`".to_owned(),
        Expr::Match(_) => "`match` is not allowed in a stencil body: write `select(condition, a, b)`".to_owned(),
        Expr::Let(_) => "`let` bindings go in a block that is the whole body: \
                         `|u| { let lap = u[-1] + u[1] - 2.0 * u[0]; u[0] + 0.1 * lap }`"
            .to_owned(),
        Expr::Block(_) => "a block is allowed only as the whole body (`{ let name = ...; value }`), \
                           not inside an expression"
            .to_owned(),
        Expr::Unsafe(_) | Expr::Const(_) | Expr::TryBlock(_) | Expr::Async(_) => {
            "blocks are not allowed in a stencil body: the body is one expression, or a block of `let` \
             bindings and a value"
                .to_owned()
        }
        Expr::Closure(_) => "closures are not allowed in a stencil body: the body is one expression".to_owned(),
        Expr::Cast(_) => "`as` casts are not allowed in a stencil body: every number in it already has \
                          the stencil's element type"
            .to_owned(),
        Expr::Assign(_) => "assignment is not allowed in a stencil body: the stencil's result is the value of \
                            its expression"
            .to_owned(),
        Expr::Macro(m) => {
            format!("macros (`{}!`) are not allowed in a stencil body: {ALLOWED}", m.mac.path.to_token_stream())
        }
        Expr::Lit(_) => "only number literals are allowed in a stencil body".to_owned(),
        Expr::Index(_) => "only a field can be read at offsets: write a field name before the brackets, \
                           e.g. `u[0, 0]`"
            .to_owned(),
        Expr::Path(p) => format!(
            "`{}` is not allowed in a stencil body: it names only its own fields and parameters \
             (pass other values as parameters)",
            p.to_token_stream()
        ),
        other => format!("{} not allowed in a stencil body: {ALLOWED}", kind(other)),
    };
    Error::new_spanned(e, msg)
}

fn kind(e: &Expr) -> &'static str {
    match e {
        Expr::Array(_) | Expr::Repeat(_) => "arrays are",
        Expr::Tuple(_) => "tuples are",
        Expr::Field(_) => "field access (`.name`) is",
        Expr::Reference(_) | Expr::RawAddr(_) => "references are",
        Expr::Range(_) => "ranges are",
        Expr::Struct(_) => "struct literals are",
        Expr::Try(_) => "`?` is",
        Expr::Await(_) => "`.await` is",
        Expr::Return(_) => "`return` is",
        Expr::Break(_) | Expr::Continue(_) => "`break` and `continue` are",
        Expr::Loop(_) | Expr::While(_) | Expr::ForLoop(_) => "loops are",
        Expr::Yield(_) => "`yield` is",
        Expr::Infer(_) => "`_` is",
        _ => "this expression is",
    }
}

/// The error for a binary operator outside `+ - * /`, comparisons, `&&` and `||`.
pub fn bin_op(op: &BinOp) -> Error {
    let text = op.to_token_stream().to_string();
    let msg = match op {
        BinOp::Rem(_) => format!("`%` is not allowed in a stencil body: {ALLOWED}"),
        BinOp::BitAnd(_) => "`&` is not allowed in a stencil body: combine conditions with `&&`".to_owned(),
        BinOp::BitOr(_) => "`|` is not allowed in a stencil body: combine conditions with `||`".to_owned(),
        BinOp::BitXor(_) => "`^` is not allowed in a stencil body: for a power write `powi(x, n)`; \
                             for conditions use `&&`, `||` and `!`"
            .to_owned(),
        BinOp::Shl(_) | BinOp::Shr(_) => format!("`{text}` is not allowed in a stencil body: {ALLOWED}"),
        _ => format!(
            "`{text}` is not allowed in a stencil body: assignment has no meaning in it; the stencil's result \
             is the value of its expression"
        ),
    };
    Error::new_spanned(op, msg)
}

/// The error for a unary operator other than `-` and `!`.
pub fn un_op(op: &UnOp) -> Error {
    Error::new_spanned(op, format!("`{}` is not allowed in a stencil body: {ALLOWED}", op.to_token_stream()))
}

/// The error for attributes inside the body.
pub fn attribute(attr: &syn::Attribute) -> Error {
    Error::new_spanned(attr, "attributes are not allowed in a stencil body")
}
