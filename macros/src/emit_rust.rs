//! The Rust expansion: a unit struct implementing `::cnda::stencil::Stencil`, whose `point` computes
//! the body in the source's operation order and whose `NODES` give the same tree as data, from
//! which cnda generates the device code.

use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::quote;

use crate::emit_nodes;
use cnda_lang::ir::{Arith, Cmp, Elem, Expr, Func, Item, Lit, Logic, Stencil};

/// The name of the expression form's struct, private to the block it is defined in.
pub(crate) const HIDDEN: &str = "__CndaStencil";

/// The whole expansion: an item (struct and impl) or a block evaluating to the stencil's value.
pub(crate) fn expansion(stencil: &Stencil) -> TokenStream {
    let derive = quote! {
        #[derive(
            ::core::clone::Clone, ::core::marker::Copy, ::core::fmt::Debug, ::core::default::Default,
            ::core::cmp::PartialEq, ::core::cmp::Eq, ::core::hash::Hash
        )]
    };
    match &stencil.item {
        Some(Item { attrs, vis, name }) => {
            // `missing_docs` holds for a public stencil as for any struct; give it the source as a doc.
            let doc = if attrs.iter().any(|a| a.path().is_ident("doc")) {
                quote!()
            } else {
                let text = format!(" The stencil `{}` (defined with `stencil!`).", stencil.source);
                quote!(#[doc = #text])
            };
            let imp = implementation(stencil, name);
            quote! {
                #(#attrs)*
                #doc
                #derive
                #vis struct #name;
                #imp
            }
        }
        None => {
            let name = Ident::new(HIDDEN, Span::call_site());
            let imp = implementation(stencil, &name);
            quote! {
                {
                    #derive
                    struct #name;
                    #imp
                    #name
                }
            }
        }
    }
}

/// `impl Stencil<E, N> for Name`.
fn implementation(s: &Stencil, name: &Ident) -> TokenStream {
    let concrete = |e: Elem| match e {
        Elem::F32 => quote!(::core::primitive::f32),
        _ => quote!(::core::primitive::f64),
    };
    // `elem`: the fields' type; `compute`: the type the body computes in (the same unless
    // `#[compute(..)]`, whose stencils are generic over the fields' type).
    let (generics, elem, compute) = match (s.compute, s.elem) {
        (Some(c), _) => {
            let c = concrete(c);
            (quote!(<T: ::cnda::stencil::Scalar>), quote!(T), Some(c))
        }
        (None, Elem::Generic) => (quote!(<T: ::cnda::stencil::Scalar>), quote!(T), None),
        (None, e) => (quote!(), concrete(e), None),
    };
    let where_clause = compute.as_ref().map(|c| quote!(where #c: ::cnda::stencil::Widen<T>));
    let widened = compute.is_some();
    let compute = compute.unwrap_or_else(|| elem.clone());
    let rank = Literal::usize_unsuffixed(s.rank);
    let fields = s.fields.iter().map(ToString::to_string);
    let params = s.params.iter().map(ToString::to_string);
    let taps = s.taps.iter().map(|tap| {
        let field = Literal::usize_unsuffixed(tap.field);
        let offset = tap.offset.iter().map(|&o| signed(i64::from(o)));
        quote!(::cnda::stencil::Tap { field: #field, offset: [#(#offset),*] })
    });
    let source = &s.source;
    let param_types = s.params.iter().map(|_| &compute);
    // Mixed-site names cannot capture, or be captured by, the user's parameter names.
    let reader = Ident::new("taps", Span::mixed_site());
    let params_arg = Ident::new("params", Span::mixed_site());
    let (params_pat, bind) = if s.params.is_empty() {
        (quote!(_), quote!())
    } else {
        let names = &s.params;
        (quote!(#params_arg), quote!(let (#(#names,)*) = *#params_arg;))
    };
    let names: Vec<Ident> = s.lets.iter().map(|l| l.name.clone()).collect();
    let widen = widened.then(|| quote!(<#compute as ::cnda::stencil::Widen<T>>));
    let printer = RustExpr { elem: &compute, reader: &reader, params: &s.params, lets: &names, widen: widen.as_ref() };
    let bound = s.lets.iter().map(|l| printer.expr(&l.value));
    let lets = quote!(#(let #names = #bound;)*);
    let stored = s.stored();
    // Each value rounded to the fields' type once, where the stencil computes in a wider one;
    // a flushed value flushed again in the fields' type (an f64 below 2^-126 narrows to an f32
    // subnormal).
    let store = |v: &Expr| {
        let value = printer.expr(v);
        match (&widen, v) {
            (Some(w), Expr::Call(Func::Flush, _)) => {
                quote!(<#elem as ::cnda::stencil::Scalar>::flush(#w::narrow(#value)))
            }
            (Some(w), _) => quote!(#w::narrow(#value)),
            (None, _) => value,
        }
    };
    // One value is the point's value; several, an array of them in output order.
    let (values_ty, body) = match stored.as_slice() {
        [value] => (elem.clone(), store(value)),
        values => {
            let (m, each) = (Literal::usize_unsuffixed(values.len()), values.iter().map(store));
            (quote!([#elem; #m]), quote!([#(#each),*]))
        }
    };
    let (nodes, value_nodes) = emit_nodes::tokens(&s.lets, &stored);
    let arity = s.fields.len();
    // A stencil with at least one field per level of each value steps a state of them.
    let (outputs, levels) = (stored.len(), s.levels);
    // A stage instead steps every state its written fields fit in.
    let stage = s.writes.as_ref().map(|writes| {
        let least = writes.iter().max().map_or(1, |&f| f + 1);
        let each = (least..=s.fields.len() / levels).map(|m| {
            let (m_lit, l, c) = (
                Literal::usize_unsuffixed(m),
                Literal::usize_unsuffixed(levels),
                Literal::usize_unsuffixed(s.fields.len() - m * levels + 1),
            );
            let writes = writes.iter().map(|&f| Literal::usize_unsuffixed(f));
            quote! {
                impl ::cnda::stencil::Stage<#m_lit, #l> for #name {
                    const WRITES: &'static [usize] = &[#(#writes),*];
                    type Coefficients = ::cnda::stencil::Arity<#c>;
                }
            }
        });
        quote!(#(#each)*)
    });
    let evolves = s.fields.len().checked_sub(outputs * levels).filter(|_| s.writes.is_none()).map(|coefficients| {
        let (m, l, c) = (
            Literal::usize_unsuffixed(outputs),
            Literal::usize_unsuffixed(levels),
            Literal::usize_unsuffixed(coefficients + 1),
        );
        quote! {
            impl ::cnda::stencil::Evolves<#m, #l> for #name {
                type Coefficients = ::cnda::stencil::Arity<#c>;
            }
        }
    });
    let radius = (0..s.rank).map(|k| {
        let r = s.taps.iter().map(|tap| tap.offset[k].unsigned_abs() as usize).max().unwrap_or(0);
        Literal::usize_unsuffixed(r)
    });
    quote! {
        impl #name {
            /// The stencil's radius along each axis: the largest offset it reads there.
            #[allow(dead_code)]
            pub const RADIUS: [usize; #rank] = [#(#radius),*];
        }

        impl #generics ::cnda::stencil::Stencil<#elem, #rank> for #name #where_clause {
            const FIELDS: &'static [&'static str] = &[#(#fields),*];
            const PARAMS: &'static [&'static str] = &[#(#params),*];
            const TAPS: &'static [::cnda::stencil::Tap<#rank>] = &[#(#taps),*];
            const NODES: &'static [::cnda::stencil::Node] = #nodes;
            const VALUES: &'static [usize] = #value_nodes;
            const SOURCE: &'static str = #source;
            type Compute = #compute;
            type Params = (#(#param_types,)*);
            type Arity = ::cnda::stencil::Arity<#arity>;
            type Values = #values_ty;
            #[inline(always)]
            fn point<R: ::cnda::stencil::TapReader<#elem>>(#reader: &R, #params_pat: &Self::Params) -> #values_ty {
                #bind
                #lets
                #body
            }
        }

        #evolves
        #stage
    }
}

/// `-1` as two tokens, as the parser produces it (a negative literal token is not portable).
pub(crate) fn signed(v: i64) -> TokenStream {
    let magnitude = Literal::u64_unsuffixed(v.unsigned_abs());
    if v < 0 {
        quote!(-#magnitude)
    } else {
        quote!(#magnitude)
    }
}

/// Prints the body as Rust; every operation is parenthesized so the tree is the source's.
struct RustExpr<'a> {
    elem: &'a TokenStream,
    reader: &'a Ident,
    params: &'a [Ident],
    /// The `let` bindings' names, as written.
    lets: &'a [Ident],
    /// `<C as Widen<T>>` when each tap is widened to the compute type `C`.
    widen: Option<&'a TokenStream>,
}

impl RustExpr<'_> {
    fn expr(&self, e: &Expr) -> TokenStream {
        let elem = self.elem;
        let scalar = quote!(<#elem as ::cnda::stencil::Scalar>);
        match e {
            Expr::Tap(k) => {
                let (reader, k) = (self.reader, Literal::usize_unsuffixed(*k));
                match self.widen {
                    Some(w) => quote!(#w::widen(#reader.tap(#k))),
                    None => quote!(#reader.tap(#k)),
                }
            }
            Expr::Param(i) => {
                let name = &self.params[*i];
                quote!(#name)
            }
            Expr::Lit(lit) => {
                let (f64_bits, f32_bits) = bits(*lit);
                quote!(#scalar::literal(
                    ::core::primitive::f64::from_bits(#f64_bits),
                    ::core::primitive::f32::from_bits(#f32_bits)
                ))
            }
            Expr::Neg(x) => {
                let x = self.expr(x);
                quote!((-#x))
            }
            Expr::Not(x) => {
                let x = self.expr(x);
                quote!((!#x))
            }
            Expr::Arith(op, a, b) => self.binary(arith(*op), a, b),
            Expr::Cmp(op, a, b) => self.binary(cmp(*op), a, b),
            Expr::Logic(op, a, b) => self.binary(logic(*op), a, b),
            Expr::Select(c, a, b) => {
                let (c, a, b) = (self.expr(c), self.expr(a), self.expr(b));
                quote!(#scalar::select(#c, #a, #b))
            }
            Expr::Call(func, args) => {
                let name = Ident::new(func.name(), Span::call_site());
                let args = args.iter().map(|a| self.expr(a));
                quote!(#scalar::#name(#(#args),*))
            }
            Expr::Powi(x, n) => {
                let (x, n) = (self.expr(x), signed(i64::from(*n)));
                quote!(::cnda::stencil::powi::<#elem>(#x, #n))
            }
            Expr::Local(i) => {
                let name = &self.lets[*i];
                quote!(#name)
            }
        }
    }

    fn binary(&self, op: &str, a: &Expr, b: &Expr) -> TokenStream {
        let op: TokenStream = op.parse().expect("an operator is one valid token");
        let (a, b) = (self.expr(a), self.expr(b));
        quote!((#a #op #b))
    }
}

/// The literal's values as `u64` and `u32` hex literals: exact, and the same values the device
/// strings spell, whatever rustc would make of the decimal text in either type.
pub(crate) fn bits(lit: Lit) -> (Literal, Literal) {
    let parse = |text: String| text.parse::<Literal>().expect("a valid integer literal");
    (parse(format!("0x{:016x}_u64", lit.f64.to_bits())), parse(format!("0x{:08x}_u32", lit.f32.to_bits())))
}

/// The operator's spelling in Rust.
fn arith(op: Arith) -> &'static str {
    match op {
        Arith::Add => "+",
        Arith::Sub => "-",
        Arith::Mul => "*",
        Arith::Div => "/",
    }
}

/// The comparison's spelling in Rust.
fn cmp(op: Cmp) -> &'static str {
    match op {
        Cmp::Lt => "<",
        Cmp::Le => "<=",
        Cmp::Gt => ">",
        Cmp::Ge => ">=",
        Cmp::Eq => "==",
        Cmp::Ne => "!=",
    }
}

/// The logical operator's spelling in Rust.
fn logic(op: Logic) -> &'static str {
    match op {
        Logic::And => "&&",
        Logic::Or => "||",
    }
}
