//! The expression as data: the checked tree flattened into `::cnda::stencil::Node`s in evaluation
//! order (operands before the operation, left before right, as the CPU's point function computes
//! them), which cnda checks once and every device backend generates its own code from.

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use crate::ir::{Arith, Cmp, Expr, Func, Let, Lit, Logic};

/// One flattened node: the name of its `cnda::stencil::Node` variant's operation and its
/// operands (indices of earlier nodes).
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Flat {
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
pub(crate) fn flatten(lets: &[Let], values: &[Expr]) -> (Vec<Flat>, Vec<usize>) {
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

/// `&[::cnda::stencil::Node::..., ...]` for the nodes of the bindings `lets` and the values, and
/// `&[...]` for the node of each value.
pub(crate) fn tokens(lets: &[Let], values: &[Expr]) -> (TokenStream, TokenStream) {
    let (nodes, at) = flatten(lets, values);
    let at = at.into_iter().map(Literal::usize_unsuffixed);
    let nodes = nodes.into_iter().map(|node| {
        let n = |i: usize| Literal::usize_unsuffixed(i);
        match node {
            Flat::Tap(k) => {
                let k = n(k);
                quote!(::cnda::stencil::Node::Tap(#k))
            }
            Flat::Param(i) => {
                let i = n(i);
                quote!(::cnda::stencil::Node::Param(#i))
            }
            Flat::Lit(lit) => {
                let (f64_bits, f32_bits) = crate::emit_rust::bits(lit);
                quote!(::cnda::stencil::Node::Lit(::cnda::stencil::Lit {
                    f64: ::core::primitive::f64::from_bits(#f64_bits),
                    f32: ::core::primitive::f32::from_bits(#f32_bits)
                }))
            }
            Flat::Unary(op, a) => {
                let (op, a) = (format_ident!("{op}"), n(a));
                quote!(::cnda::stencil::Node::Unary(::cnda::stencil::Unary::#op, #a))
            }
            Flat::Binary(op, a, b) => {
                let (op, a, b) = (format_ident!("{op}"), n(a), n(b));
                quote!(::cnda::stencil::Node::Binary(::cnda::stencil::Binary::#op, #a, #b))
            }
            Flat::Select(c, a, b) => {
                let (c, a, b) = (n(c), n(a), n(b));
                quote!(::cnda::stencil::Node::Select(#c, #a, #b))
            }
            Flat::Powi(a, exponent) => {
                let (a, exponent) = (n(a), crate::emit_rust::signed(i64::from(exponent)));
                quote!(::cnda::stencil::Node::Powi(#a, #exponent))
            }
        }
    });
    (quote!(&[#(#nodes),*]), quote!(&[#(#at),*]))
}
