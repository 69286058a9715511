//! The expression as data: the checked tree flattened into nodes in evaluation order (operands
//! before the operation, left before right, as the CPU's point function computes them), the
//! shape of cnda's `Node`s. The macro prints them as `::cnda::stencil::Node`s; cnda's run-time
//! parser (`TextStencil`) builds its `Node`s from them, so both give the same data.

use crate::ir::{Arith, Cmp, Expr, Func, Let, Lit, Logic};

/// One flattened node: the name of its `cnda::stencil::Node` variant's operation and its
/// operands (indices of earlier nodes).
#[derive(Clone, Debug, PartialEq)]
pub enum Flat {
    /// `Node::Tap(k)`.
    Tap(usize),
    /// `Node::Param(i)`.
    Param(usize),
    /// `Node::Lit`.
    Lit(Lit),
    /// `Node::Unary(Unary::<name>, a)`.
    Unary(&'static str, usize),
    /// `Node::Binary(Binary::<name>, a, b)`.
    Binary(&'static str, usize, usize),
    /// `Node::Select(c, a, b)`.
    Select(usize, usize, usize),
    /// `Node::Powi(a, n)`.
    Powi(usize, i32),
}

/// The nodes of the bindings `lets`, in order, then of each value of `values`, in order; and the
/// node of each value. A binding is computed once, and every use of it is an operand that names
/// its node (a DAG).
pub fn flatten(lets: &[Let], values: &[Expr]) -> (Vec<Flat>, Vec<usize>) {
    let mut flat = Flattened { out: Vec::new(), lets: Vec::with_capacity(lets.len()) };
    for binding in lets {
        let at = flat.push(&binding.value);
        flat.lets.push(at);
    }
    let at = values.iter().map(|value| flat.push(value)).collect();
    (flat.out, at)
}

/// Nodes so far, and the node of each binding.
struct Flattened {
    out: Vec<Flat>,
    lets: Vec<usize>,
}

impl Flattened {
    /// Appends the nodes of `e` (none for a binding, computed before) and returns the index of its
    /// value.
    fn push(&mut self, e: &Expr) -> usize {
        let node = match e {
            Expr::Local(i) => return self.lets[*i],
            Expr::Tap(k) => Flat::Tap(*k),
            Expr::Param(i) => Flat::Param(*i),
            Expr::Lit(lit) => Flat::Lit(*lit),
            Expr::Neg(x) => Flat::Unary("Neg", self.push(x)),
            Expr::Not(x) => Flat::Unary("Not", self.push(x)),
            Expr::Arith(op, a, b) => Flat::Binary(arith(*op), self.push(a), self.push(b)),
            Expr::Cmp(op, a, b) => Flat::Binary(cmp(*op), self.push(a), self.push(b)),
            Expr::Logic(op, a, b) => Flat::Binary(logic(*op), self.push(a), self.push(b)),
            Expr::Select(c, a, b) => Flat::Select(self.push(c), self.push(a), self.push(b)),
            Expr::Call(func, args) => match (func, args.as_slice()) {
                (Func::Min, [a, b]) => Flat::Binary("Min", self.push(a), self.push(b)),
                (Func::Max, [a, b]) => Flat::Binary("Max", self.push(a), self.push(b)),
                (func, [x]) => Flat::Unary(unary(*func), self.push(x)),
                _ => unreachable!("lowering checks every call's arity"),
            },
            Expr::Powi(x, n) => Flat::Powi(self.push(x), *n),
        };
        self.out.push(node);
        self.out.len() - 1
    }
}

fn arith(op: Arith) -> &'static str {
    match op {
        Arith::Add => "Add",
        Arith::Sub => "Sub",
        Arith::Mul => "Mul",
        Arith::Div => "Div",
    }
}

fn cmp(op: Cmp) -> &'static str {
    match op {
        Cmp::Lt => "Lt",
        Cmp::Le => "Le",
        Cmp::Gt => "Gt",
        Cmp::Ge => "Ge",
        Cmp::Eq => "Eq",
        Cmp::Ne => "Ne",
    }
}

fn logic(op: Logic) -> &'static str {
    match op {
        Logic::And => "And",
        Logic::Or => "Or",
    }
}

fn unary(func: Func) -> &'static str {
    match func {
        Func::Sqrt => "Sqrt",
        Func::Exp => "Exp",
        Func::Ln => "Ln",
        Func::Sin => "Sin",
        Func::Cos => "Cos",
        Func::Tanh => "Tanh",
        Func::Abs => "Abs",
        Func::Floor => "Floor",
        Func::Flush => "Flush",
        Func::Min | Func::Max => unreachable!("two-operand functions"),
    }
}
