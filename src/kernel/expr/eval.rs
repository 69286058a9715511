//! The reference semantics of a stencil's expression data: an interpreter that computes a
//! [`CheckedExpr`] expression at one point exactly as `stencil!`'s compiled point function does (the
//! same `Scalar` operations in the same order), so tests can hold the CPU's code, the data and
//! the devices' generated code to one another.

use super::check::CheckedExpr;
use super::node::{Binary, Node, Unary};
use super::{powi, Scalar, StencilParams, TapReader};

/// A node's value: a number or a condition.
#[derive(Clone, Copy)]
enum Value<T> {
    Number(T),
    Condition(bool),
}

impl<T: Copy> Value<T> {
    // `check` has typed every node, so a mismatch here is a bug in `check`, not in the input.
    fn number(self) -> T {
        match self {
            Value::Number(x) => x,
            Value::Condition(_) => unreachable!("check types every operand"),
        }
    }

    fn condition(self) -> bool {
        match self {
            Value::Condition(c) => c,
            Value::Number(_) => unreachable!("check types every operand"),
        }
    }
}

impl<const N: usize> CheckedExpr<N> {
    /// The expression's values at one point, one per output: `taps.tap(k)` is tap `k`'s value
    /// there, `params` the parameters (at least [`CheckedExpr::params`] of them).
    pub fn eval<T: Scalar>(&self, taps: &impl TapReader<T>, params: &impl StencilParams<T>) -> Vec<T> {
        let mut values: Vec<Value<T>> = Vec::with_capacity(self.nodes().len());
        for node in self.nodes() {
            let at = |i: usize| values[i];
            let value = match *node {
                Node::Tap(k) => Value::Number(taps.tap(k)),
                Node::Param(i) => Value::Number(params.get(i)),
                Node::Lit(lit) => Value::Number(<T as Scalar>::literal(lit.f64, lit.f32)),
                Node::Unary(Unary::Not, a) => Value::Condition(!at(a).condition()),
                Node::Unary(op, a) => Value::Number(unary(op, at(a).number())),
                Node::Binary(op, a, b) if op.on_conditions() => {
                    let (a, b) = (at(a).condition(), at(b).condition());
                    Value::Condition(if op == Binary::And { a && b } else { a || b })
                }
                Node::Binary(op, a, b) => binary(op, at(a).number(), at(b).number()),
                Node::Select(c, a, b) => {
                    Value::Number(<T as Scalar>::select(at(c).condition(), at(a).number(), at(b).number()))
                }
                Node::Powi(a, n) => Value::Number(powi(at(a).number(), n)),
            };
            values.push(value);
        }
        self.values().iter().map(|&v| values[v].number()).collect()
    }
}

fn unary<T: Scalar>(op: Unary, x: T) -> T {
    match op {
        Unary::Neg => -x,
        Unary::Sqrt => <T as Scalar>::sqrt(x),
        Unary::Exp => <T as Scalar>::exp(x),
        Unary::Ln => <T as Scalar>::ln(x),
        Unary::Sin => <T as Scalar>::sin(x),
        Unary::Cos => <T as Scalar>::cos(x),
        Unary::Tanh => <T as Scalar>::tanh(x),
        Unary::Abs => <T as Scalar>::abs(x),
        Unary::Floor => <T as Scalar>::floor(x),
        Unary::Flush => <T as Scalar>::flush(x),
        Unary::Not => unreachable!("a condition's operation"),
    }
}

fn binary<T: Scalar>(op: Binary, a: T, b: T) -> Value<T> {
    match op {
        Binary::Add => Value::Number(a + b),
        Binary::Sub => Value::Number(a - b),
        Binary::Mul => Value::Number(a * b),
        Binary::Div => Value::Number(a / b),
        Binary::Min => Value::Number(<T as Scalar>::min(a, b)),
        Binary::Max => Value::Number(<T as Scalar>::max(a, b)),
        Binary::Lt => Value::Condition(a < b),
        Binary::Le => Value::Condition(a <= b),
        Binary::Gt => Value::Condition(a > b),
        Binary::Ge => Value::Condition(a >= b),
        Binary::Eq => Value::Condition(a == b),
        Binary::Ne => Value::Condition(a != b),
        Binary::And | Binary::Or => unreachable!("operations on conditions"),
    }
}
