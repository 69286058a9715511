//! The expression as data, printed: the nodes of [`cnda_lang::flat`] as `::cnda::stencil::Node`s.

use cnda_lang::flat::{flatten, Flat};
use cnda_lang::ir::{Expr, Let};
use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

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
