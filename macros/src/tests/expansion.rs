//! The Rust expansion: its exact shape, and that it is valid Rust syntax.

use quote::quote;

use super::*;

fn expansion(src: &str) -> String {
    expand(tokens(src)).unwrap_or_else(|e| panic!("`{src}` was rejected: {e}")).to_string()
}

#[track_caller]
fn contains(haystack: &str, needle: TokenStream) {
    let needle = needle.to_string();
    assert!(haystack.contains(&needle), "expansion lacks\n  {needle}\nin\n  {haystack}");
}

#[test]
fn exact_shape_of_a_concrete_stencil() {
    let src = "|u; c: f32| c * u[1] - u[-1].abs()";
    let source = tokens(src).to_string();
    let expected = quote! {
        {
            #[derive(
                ::core::clone::Clone, ::core::marker::Copy, ::core::fmt::Debug, ::core::default::Default,
                ::core::cmp::PartialEq, ::core::cmp::Eq, ::core::hash::Hash
            )]
            struct __CndaStencil;
            impl __CndaStencil {
                /// The stencil's radius along each axis: the largest offset it reads there.
                #[allow(dead_code)]
                pub const RADIUS: [usize; 1] = [1];
            }
            impl ::cnda::stencil::Stencil<::core::primitive::f32, 1> for __CndaStencil {
                const FIELDS: &'static [&'static str] = &["u"];
                const PARAMS: &'static [&'static str] = &["c"];
                const TAPS: &'static [::cnda::stencil::Tap<1>] = &[
                    ::cnda::stencil::Tap { field: 0, offset: [1] },
                    ::cnda::stencil::Tap { field: 0, offset: [-1] }
                ];
                const NODES: &'static [::cnda::stencil::Node] = &[
                    ::cnda::stencil::Node::Param(0),
                    ::cnda::stencil::Node::Tap(0),
                    ::cnda::stencil::Node::Binary(::cnda::stencil::Binary::Mul, 0, 1),
                    ::cnda::stencil::Node::Tap(1),
                    ::cnda::stencil::Node::Unary(::cnda::stencil::Unary::Abs, 3),
                    ::cnda::stencil::Node::Binary(::cnda::stencil::Binary::Sub, 2, 4),
                    ::cnda::stencil::Node::Unary(::cnda::stencil::Unary::Flush, 5)
                ];
                const VALUES: &'static [usize] = &[6];
                const SOURCE: &'static str = #source;
                type Compute = ::core::primitive::f32;
                type Params = (::core::primitive::f32,);
                type Arity = ::cnda::stencil::Arity<1usize>;
                type Values = ::core::primitive::f32;
                #[inline(always)]
                fn point<R: ::cnda::stencil::TapReader<::core::primitive::f32>>(
                    taps: &R,
                    params: &Self::Params
                ) -> ::core::primitive::f32 {
                    let (c,) = *params;
                    <::core::primitive::f32 as ::cnda::stencil::Scalar>::flush(
                        ((c * taps.tap(0)) - <::core::primitive::f32 as ::cnda::stencil::Scalar>::abs(taps.tap(1)))
                    )
                }
            }
            impl ::cnda::stencil::Evolves<1, 1> for __CndaStencil {
                type Coefficients = ::cnda::stencil::Arity<1>;
            }
            __CndaStencil
        }
    };
    assert_eq!(expansion(src), expected.to_string());
}

#[test]
fn generic_heat() {
    let out = expansion(HEAT);
    syn::parse_str::<syn::Expr>(&out).expect("the expansion is an expression");
    contains(&out, quote!(impl<T: ::cnda::stencil::Scalar> ::cnda::stencil::Stencil<T, 2> for __CndaStencil));
    contains(
        &out,
        quote!(
            const FIELDS: &'static [&'static str] = &["u", "k"];
        ),
    );
    contains(
        &out,
        quote!(
            const PARAMS: &'static [&'static str] = &["dt"];
        ),
    );
    contains(
        &out,
        quote!(::cnda::stencil::Tap { field: 1, offset: [0, 0] }, ::cnda::stencil::Tap { field: 0, offset: [-1, 0] }),
    );
    contains(
        &out,
        quote!(
            type Params = (T,);
        ),
    );
    contains(&out, quote!(fn point<R: ::cnda::stencil::TapReader<T>>(taps: &R, params: &Self::Params) -> T));
    // A prefix of the body, as text since its parentheses do not close.
    assert!(
        out.contains("let (dt ,) = * params ; < T as :: cnda :: stencil :: Scalar > :: flush ((taps . tap (0) + (dt * (taps . tap (1) * ("),
        "{out}"
    );
    // The literal in the data carries both precisions' bits, as the point function's does.
    contains(
        &out,
        quote!(::cnda::stencil::Node::Lit(::cnda::stencil::Lit {
            f64: ::core::primitive::f64::from_bits(0x4010000000000000_u64),
            f32: ::core::primitive::f32::from_bits(0x40800000_u32)
        })),
    );
    assert!(!out.contains("fn cuda") && !out.contains("fn wgsl"), "no device text: {out}");
    assert!(out.ends_with("__CndaStencil }"));
}

#[test]
fn literals_are_bit_patterns() {
    let out = expansion("|u| u[0] * 0.1");
    contains(
        &out,
        quote!(<T as ::cnda::stencil::Scalar>::literal(
            ::core::primitive::f64::from_bits(0x3fb999999999999a_u64),
            ::core::primitive::f32::from_bits(0x3dcccccd_u32)
        )),
    );
    // f32 overflow in a generic stencil is infinity's bits.
    contains(&expansion("|u| u[0] * 1e39"), quote!(::core::primitive::f32::from_bits(0x7f800000_u32)));
}

#[test]
fn functions_select_and_powi() {
    let out = expansion("|u| select(u[0] < 1 || !(u[0] >= 2), u[0].min(u[1]), powi(ln(u[1]), -2))");
    let scalar = quote!(<T as ::cnda::stencil::Scalar>);
    let one = quote!(#scalar::literal(
        ::core::primitive::f64::from_bits(0x3ff0000000000000_u64),
        ::core::primitive::f32::from_bits(0x3f800000_u32)
    ));
    let two = quote!(#scalar::literal(
        ::core::primitive::f64::from_bits(0x4000000000000000_u64),
        ::core::primitive::f32::from_bits(0x40000000_u32)
    ));
    contains(
        &out,
        quote! {
            #scalar::select(
                ((taps.tap(0) < #one) || (!(taps.tap(0) >= #two))),
                #scalar::min(taps.tap(0), taps.tap(1)),
                ::cnda::stencil::powi::<T>(#scalar::ln(taps.tap(1)), -2)
            )
        },
    );
}

#[test]
fn concrete_f64_is_an_impl_for_f64_only() {
    let out = expansion("|u; a: f64| a * u[0, 0]");
    contains(&out, quote!(impl ::cnda::stencil::Stencil<::core::primitive::f64, 2> for __CndaStencil));
    contains(&out, quote!(::cnda::stencil::Node::Binary(::cnda::stencil::Binary::Mul, 0, 1)));
}

#[test]
fn powi_exponents_are_signed_literals() {
    let out = expansion("|u| powi(u[0], -3)");
    contains(&out, quote!(::cnda::stencil::Node::Powi(0, -3)));
}

#[test]
fn no_parameters() {
    let out = expansion("|u| u[0, 0, 0]");
    contains(
        &out,
        quote!(
            type Params = ();
        ),
    );
    contains(&out, quote!((taps: &R, _: &Self::Params) -> T { <T as ::cnda::stencil::Scalar>::flush(taps.tap(0)) }));
}

#[test]
fn subnormals_are_flushed_unless_kept() {
    let flush = quote!(::cnda::stencil::Node::Unary(::cnda::stencil::Unary::Flush, 0));
    // Flushed by default, and once when the body already ends in `flush`.
    for src in ["|u| u[0]", "#[subnormals(flush)] |u| u[0]", "|u| flush(u[0])", "|u| u[0].flush()"] {
        let out = expansion(src);
        contains(&out, quote!(&[::cnda::stencil::Node::Tap(0), #flush]));
        contains(&out, quote!({ <T as ::cnda::stencil::Scalar>::flush(taps.tap(0)) }));
    }
    // Kept: the value as computed; an inner `flush` stays where it was written.
    let out = expansion("#[subnormals(keep)] |u| u[0]");
    contains(
        &out,
        quote!(
            const NODES: &'static [::cnda::stencil::Node] = &[::cnda::stencil::Node::Tap(0)];
        ),
    );
    contains(&out, quote!((taps: &R, _: &Self::Params) -> T { taps.tap(0) }));
    let out = expansion("#[subnormals(keep)] |u| flush(u[0]) * 2");
    contains(&out, quote!(::cnda::stencil::Node::Unary(::cnda::stencil::Unary::Flush, 0), ::cnda::stencil::Node::Lit));
    assert!(!out.contains("Unary :: Flush , 2"), "{out}");
    // The item form takes it among its attributes, and passes the others on.
    let out = expansion("/// Doc.\n#[subnormals(keep)] #[derive(PartialOrd)] pub struct Kept = |u| u[0];");
    assert!(!out.contains("subnormals") && out.contains("PartialOrd") && !out.contains("Flush"), "{out}");
}

#[test]
fn item_form_is_a_struct_and_an_impl() {
    let out = expansion("pub struct Heat = |u, k; dt: T| u[0, 0] + dt * k[0, 0];");
    let file = syn::parse_str::<syn::File>(&out).expect("the expansion is items");
    assert_eq!(file.items.len(), 4, "the struct, its RADIUS, the Stencil impl and the Evolves impl");
    contains(
        &out,
        quote!(impl ::cnda::stencil::Evolves<1, 1> for Heat { type Coefficients = ::cnda::stencil::Arity<2>; }),
    );
    // Two values at two levels read the first four fields; one field more is a coefficient.
    let system = expansion("#[levels(2)] |u, um, v, vm, c| (u[0] + um[0] * c[0], v[0] - vm[0])");
    contains(
        &system,
        quote!(impl ::cnda::stencil::Evolves<2, 2> for __CndaStencil { type Coefficients = ::cnda::stencil::Arity<2>; }),
    );
    contains(
        &system,
        quote!(
            type Values = [T; 2];
        ),
    );
    // Fewer fields than values: applied, never stepped.
    assert!(!expansion("|u| (u[0], u[1])").contains("Evolves"));
    let source = tokens("|u, k; dt: T| u[0, 0] + dt * k[0, 0]").to_string();
    let doc = format!(" The stencil `{source}` (defined with `stencil!`).");
    contains(&out, quote!(#[doc = #doc]));
    contains(
        &out,
        quote!(
            pub struct Heat;
        ),
    );
    contains(&out, quote!(impl<T: ::cnda::stencil::Scalar> ::cnda::stencil::Stencil<T, 2> for Heat));

    // The user's attributes come first, and a user doc replaces the generated one.
    let out = expansion("/// Heat.\n#[allow(dead_code)] pub(crate) struct Heat = |u| u[0];");
    let at = |s: &str| out.find(s).unwrap_or_else(|| panic!("no `{s}` in {out}"));
    assert!(at("Heat.") < at("dead_code") && at("dead_code") < at("derive"), "{out}");
    assert!(!out.contains("defined with"));
    contains(
        &out,
        quote!(
            pub(crate) struct Heat;
        ),
    );
}

#[test]
fn let_bindings_are_rust_lets_in_the_point_function() {
    let out = expansion("|u; a| { let lap = u[-1] - u[0]; let big = lap > a; select(big, lap, a) }");
    assert!(out.contains("let lap = (taps . tap (0) - taps . tap (1)) ;"), "{out}");
    assert!(out.contains("let big = (lap > a) ;"), "{out}");
    contains(&out, quote!(<T as ::cnda::stencil::Scalar>::select(big, lap, a)));
}

#[test]
fn compute_widens_each_tap_and_narrows_each_value() {
    let out = expansion("#[compute(f64)] |u; a| a * u[0]");
    let c = quote!(::core::primitive::f64);
    let widen = quote!(<#c as ::cnda::stencil::Widen<T>>);
    contains(
        &out,
        quote!(impl<T: ::cnda::stencil::Scalar> ::cnda::stencil::Stencil<T, 1> for __CndaStencil where #c: ::cnda::stencil::Widen<T>),
    );
    contains(&out, quote!(type Compute = #c; type Params = (#c,);));
    contains(&out, quote!(#widen::narrow(<#c as ::cnda::stencil::Scalar>::flush((a * #widen::widen(taps.tap(0)))))));
    // Several values: each narrowed; the fields' type in `Values`.
    let out = expansion("#[compute(f32)] |u, v| (u[0] + v[0], u[0] - v[0])");
    contains(
        &out,
        quote!(
            type Values = [T; 2];
        ),
    );
    assert_eq!(out.matches("narrow").count(), 2, "{out}");
    // Without the attribute the compute type is the element type.
    contains(
        &expansion("|u| u[0]"),
        quote!(
            type Compute = T;
        ),
    );
}
