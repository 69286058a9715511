//! Both input forms, and what the checked stencil holds: fields, parameters, rank, taps, types.

use super::*;
use cnda_lang::ir::{Arith, Elem, Expr, Func, Tap};

fn names(ids: &[proc_macro2::Ident]) -> Vec<String> {
    ids.iter().map(ToString::to_string).collect()
}

fn tap(field: usize, offset: &[i32]) -> Tap {
    Tap { field, offset: offset.to_vec() }
}

#[test]
fn expression_form_heat() {
    let st = ok(HEAT);
    assert!(st.item.is_none());
    assert_eq!(names(&st.fields), ["u", "k"]);
    assert_eq!(names(&st.params), ["dt"]);
    assert_eq!(st.rank, 2);
    assert_eq!(st.elem, Elem::Generic);
    let expected =
        [tap(0, &[0, 0]), tap(1, &[0, 0]), tap(0, &[-1, 0]), tap(0, &[1, 0]), tap(0, &[0, -1]), tap(0, &[0, 1])];
    assert_eq!(st.taps, expected);
    assert_eq!(st.source, tokens(HEAT).to_string());
}

#[test]
fn semicolon_is_optional_without_parameters() {
    for src in ["|u| u[0]", "|u;| u[0]", "|u,| u[0]", "|u, v,;| u[0] + v[0]"] {
        assert!(ok(src).params.is_empty(), "{src}");
    }
    assert_eq!(names(&ok("|u, v,;| u[0] + v[0]").fields), ["u", "v"]);
}

#[test]
fn parameters_with_and_without_types() {
    let st = ok("|u; a, b: T, c,| u[0] * a * b * c");
    assert_eq!(names(&st.params), ["a", "b", "c"]);
    assert_eq!(st.elem, Elem::Generic);
    assert_eq!(ok("|u; a: f64, b| u[0] * a * b").elem, Elem::F64);
    assert_eq!(ok("|u; a, b: f32, c: f32| u[0] * a * b * c").elem, Elem::F32);
}

#[test]
fn literal_suffix_fixes_the_element_type() {
    assert_eq!(ok("|u| u[0] * 2.0f32").elem, Elem::F32);
    assert_eq!(ok("|u| u[0] * 2f64").elem, Elem::F64);
    assert_eq!(ok("|u; a: f64| u[0] * a + 1.0_f64").elem, Elem::F64);
}

#[test]
fn item_form() {
    let st = ok("pub struct Heat = |u, k; dt: T| u[0, 0] + dt * k[0, 0];");
    let item = st.item.expect("item form");
    assert_eq!(item.name, "Heat");
    assert!(matches!(item.vis, syn::Visibility::Public(_)));
    assert!(item.attrs.is_empty());
    assert_eq!(st.source, tokens("|u, k; dt: T| u[0, 0] + dt * k[0, 0]").to_string());

    let st = ok("/// Doc.\n#[allow(dead_code)] pub(crate) struct Avg = |u| (u[-1] + u[1]) / 2;");
    let item = st.item.expect("item form");
    assert_eq!(item.attrs.len(), 2);
    assert!(matches!(item.vis, syn::Visibility::Restricted(_)));

    let st = ok("struct Private = |u| u[0];");
    assert!(matches!(st.item.expect("item form").vis, syn::Visibility::Inherited));
}

#[test]
fn ranks_one_to_four() {
    for (src, rank) in
        [("|u| u[1]", 1), ("|u| u[1, 2]", 2), ("|u| u[1, 2, -3]", 3), ("|u| u[1, 2, 3, 64] - u[-64, 0, 0, 0]", 4)]
    {
        assert_eq!(ok(src).rank, rank, "{src}");
    }
}

#[test]
fn taps_are_distinct_in_order_of_first_appearance() {
    let st = ok("|u, v| v[1] * u[0] + u[0] - v[1] + u[-0] + v[0] + u[1]");
    assert_eq!(st.taps, [tap(1, &[1]), tap(0, &[0]), tap(1, &[0]), tap(0, &[1])]);
    // Repeated reads are the same tap, read again (no common-subexpression folding in the tree).
    let Expr::Arith(Arith::Add, _, last) = &st.values[0] else { panic!("{:?}", st.values[0]) };
    assert_eq!(**last, Expr::Tap(3));
}

#[test]
fn a_field_may_go_unread() {
    assert_eq!(ok("|u, unused| u[0]").taps, [tap(0, &[0])]);
}

#[test]
fn function_and_method_styles_agree() {
    for f in Func::ALL {
        let name = f.name();
        let (function, method) = if f.arity() == 1 {
            (format!("|u| {name}(u[0])"), format!("|u| u[0].{name}()"))
        } else {
            (format!("|u| {name}(u[0], u[1])"), format!("|u| u[0].{name}(u[1])"))
        };
        let body = ok(&function).values[0].clone();
        assert_eq!(body, ok(&method).values[0], "{name}");
        assert!(matches!(&body, Expr::Call(g, args) if *g == f && args.len() == f.arity()));
    }
    assert_eq!(ok("|u| powi(u[0], -3)").values[0], ok("|u| u[0].powi(-3)").values[0]);
    assert_eq!(ok("|u| u[0].powi(2)").values[0], Expr::Powi(Box::new(Expr::Tap(0)), 2));
}

#[test]
fn integer_literals_are_floats() {
    assert_eq!(ok("|u| u[0] * 4").values[0], ok("|u| u[0] * 4.0").values[0]);
    assert_eq!(ok("|u| u[0] * 0x10").values[0], ok("|u| u[0] * 16.0").values[0]);
}

#[test]
fn parentheses_shape_the_tree() {
    let left = ok("|u| u[0] - u[1] - u[2]").values[0].clone();
    let right = ok("|u| u[0] - (u[1] - u[2])").values[0].clone();
    assert_ne!(left, right);
    assert_eq!(left, ok("|u| (u[0] - u[1]) - u[2]").values[0]);
}

#[test]
fn finite_difference_operators_expand_to_weighted_taps() {
    let lit = |x: f64| Box::new(Expr::Lit(cnda_lang::literal::value(&format!("{x:?}"))));
    let t = |k: usize| Box::new(Expr::Tap(k));
    let add = |a: Box<Expr>, b: Box<Expr>| Box::new(Expr::Arith(Arith::Add, a, b));
    let sub = |a: Box<Expr>, b: Box<Expr>| Box::new(Expr::Arith(Arith::Sub, a, b));
    let mul = |a: Box<Expr>, b: Box<Expr>| Box::new(Expr::Arith(Arith::Mul, a, b));
    // The 5-point Laplacian: the centre weight once, one weight per distance over the axes.
    let st = ok("|u| laplace(u[0, 0], 2)");
    assert_eq!(st.taps, [tap(0, &[0, 0]), tap(0, &[1, 0]), tap(0, &[-1, 0]), tap(0, &[0, 1]), tap(0, &[0, -1])]);
    assert_eq!(st.values[0], *add(mul(lit(-4.0), t(0)), mul(lit(1.0), add(add(add(t(1), t(2)), t(3)), t(4)))));
    // A bare field takes the rank of the other reads and shares their taps.
    let st = ok("|u, c| c[0] * diff(u, 0, 1, 2)");
    assert_eq!(st.taps, [tap(1, &[0]), tap(0, &[1]), tap(0, &[-1])]);
    assert_eq!(st.values[0], Expr::Arith(Arith::Mul, t(0), mul(lit(0.5), sub(t(1), t(2)))));
    // A staggered derivative around a moved centre.
    let st = ok("|u| diff_half(u[0, 2], 1, 2, -1)");
    assert_eq!(st.taps, [tap(0, &[0, 2]), tap(0, &[0, 1])]);
    // Weights are rounded from the exact fraction in each precision: -205/72 here.
    let st = ok("|u| laplace(u[0, 0, 0], 8)");
    assert_eq!(st.taps.len(), 25);
    let Expr::Arith(Arith::Add, first, _) = &st.values[0] else { panic!("a sum of terms") };
    let centre = format!("{:?}", Expr::Arith(Arith::Mul, lit(-205.0 / 24.0), t(0)));
    let Expr::Arith(Arith::Add, inner, _) = &**first else { panic!() };
    let mut term = &**inner;
    while let Expr::Arith(Arith::Add, a, _) = term {
        term = a;
    }
    assert_eq!(format!("{term:?}"), centre);
    let Expr::Arith(_, w, _) = term else { panic!() };
    let Expr::Lit(w) = &**w else { panic!() };
    assert_eq!((w.f64, w.f32), (-205.0 / 24.0, -205.0_f32 / 24.0));
    let _ = Func::Flush;
}
