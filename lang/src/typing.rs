//! Numbers versus conditions: every backend computes in the element type and branches only
//! through `select`, so a bool never flows into arithmetic and the body is a number.

use quote::ToTokens;
use syn::{Error, Result};

/// The type of a body expression.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    /// A number of the element type.
    Scalar,
    /// A condition: a comparison, `&&`, `||` or `!`.
    Bool,
}

/// Where an operand sits, for messages.
#[derive(Clone, Copy)]
pub enum Side {
    /// Left of a binary operator.
    Left,
    /// Right of a binary operator.
    Right,
    /// The only operand of a unary operator or function.
    Only,
}

impl Side {
    fn phrase(self) -> &'static str {
        match self {
            Side::Left => "its left operand",
            Side::Right => "its right operand",
            Side::Only => "its operand",
        }
    }
}

const TO_NUMBER: &str = "turn a condition into a number with `select(condition, a, b)`";
const TO_BOOL: &str = "compare a number to get a condition, e.g. `x > 0.0`";

fn check(ty: Ty, want: Ty, at: impl ToTokens, msg: impl FnOnce() -> String) -> Result<()> {
    if ty == want {
        Ok(())
    } else {
        Err(Error::new_spanned(at, msg()))
    }
}

/// An operand of `+ - * /` or of unary `-`.
pub fn arith_operand(ty: Ty, at: impl ToTokens, op: &str, side: Side) -> Result<()> {
    check(ty, Ty::Scalar, at, || {
        format!("`{op}` needs numbers, but {} is a condition (a bool): {TO_NUMBER}", side.phrase())
    })
}

/// An operand of a comparison.
pub fn compared(ty: Ty, at: impl ToTokens, op: &str, side: Side) -> Result<()> {
    check(ty, Ty::Scalar, at, || {
        format!(
            "`{op}` compares numbers, but {} is a condition (a bool): combine conditions with `&&`, `||` and `!`",
            side.phrase()
        )
    })
}

/// An operand of `&&`, `||` or `!`.
pub fn logic_operand(ty: Ty, at: impl ToTokens, op: &str, side: Side) -> Result<()> {
    check(ty, Ty::Bool, at, || {
        let negate = if op == "!" { "; negate a number with `-x`" } else { "" };
        format!("`{op}` works on conditions (bools), but {} is a number: {TO_BOOL}{negate}", side.phrase())
    })
}

/// An argument of a math function.
pub fn argument(ty: Ty, at: impl ToTokens, func: &str) -> Result<()> {
    check(ty, Ty::Scalar, at, || {
        format!("`{func}` takes numbers, but this argument is a condition (a bool): {TO_NUMBER}")
    })
}

/// The first argument of `select`.
pub fn select_condition(ty: Ty, at: impl ToTokens) -> Result<()> {
    check(ty, Ty::Bool, at, || {
        format!("the first argument of `select` is the condition (a bool), but this is a number: {TO_BOOL}")
    })
}

/// The second or third argument of `select`.
pub fn select_branch(ty: Ty, at: impl ToTokens) -> Result<()> {
    check(ty, Ty::Scalar, at, || {
        "the branches of `select(condition, a, b)` are numbers, but this one is a condition (a bool)".to_owned()
    })
}

/// The whole body.
pub fn body(ty: Ty, at: impl ToTokens) -> Result<()> {
    check(ty, Ty::Scalar, at, || {
        "the stencil body is a condition (a bool), but a stencil computes a number: \
         write `select(condition, 1.0, 0.0)` for a number"
            .to_owned()
    })
}
