//! The exact expression data: nodes in the CPU's evaluation order, operands before operations.

use super::*;
use cnda_lang::ir::Lit;
use Flat::{Binary, Param, Powi, Select, Tap, Unary};

fn lit(x: f64) -> Flat {
    Flat::Lit(Lit { f64: x, f32: x as f32 })
}

#[test]
fn heat() {
    assert_eq!(
        nodes(HEAT),
        [
            Tap(0),
            Param(0),
            Tap(1),
            Tap(2),
            Tap(3),
            Binary("Add", 3, 4),
            Tap(4),
            Binary("Add", 5, 6),
            Tap(5),
            Binary("Add", 7, 8),
            lit(4.0),
            Tap(0),
            Binary("Mul", 10, 11),
            Binary("Sub", 9, 12),
            Binary("Mul", 2, 13),
            Binary("Mul", 1, 14),
            Binary("Add", 0, 15),
        ]
    );
}

#[test]
fn select_with_comparisons_and_logic() {
    let src = "|u; c| select(u[0] > c && !(u[1] <= 0.0) || u[-1] == 1, u[0], -u[1])";
    assert_eq!(
        nodes(src),
        [
            Tap(0),
            Param(0),
            Binary("Gt", 0, 1),
            Tap(1),
            lit(0.0),
            Binary("Le", 3, 4),
            Unary("Not", 5),
            Binary("And", 2, 6),
            Tap(2),
            lit(1.0),
            Binary("Eq", 8, 9),
            Binary("Or", 7, 10),
            Tap(0),
            Tap(1),
            Unary("Neg", 13),
            Select(11, 12, 14),
        ]
    );
}

#[test]
fn every_math_function_in_both_styles() {
    for (name, op) in [
        ("sqrt", "Sqrt"),
        ("exp", "Exp"),
        ("ln", "Ln"),
        ("sin", "Sin"),
        ("cos", "Cos"),
        ("tanh", "Tanh"),
        ("abs", "Abs"),
        ("floor", "Floor"),
    ] {
        let expected = [Tap(0), Tap(1), Binary("Sub", 0, 1), Unary(op, 2)];
        assert_eq!(nodes(&format!("|u| {name}(u[0] - u[1])")), expected, "{name}");
        assert_eq!(nodes(&format!("|u| (u[0] - u[1]).{name}()")), expected, "{name}");
    }
    for (name, op) in [("min", "Min"), ("max", "Max")] {
        let expected = [Tap(0), Tap(1), Unary("Neg", 1), Binary(op, 0, 2)];
        assert_eq!(nodes(&format!("|u| {name}(u[0], -u[1])")), expected, "{name}");
        assert_eq!(nodes(&format!("|u| u[0].{name}(-u[1])")), expected, "{name}");
    }
}

#[test]
fn powi_keeps_its_exponent() {
    assert_eq!(nodes("|u| powi(u[0], 3)"), [Tap(0), Powi(0, 3)]);
    assert_eq!(nodes("|u| u[0].powi(3)"), [Tap(0), Powi(0, 3)]);
    assert_eq!(nodes("|u| (u[0] + 1).powi(-2)"), [Tap(0), lit(1.0), Binary("Add", 0, 1), Powi(2, -2)]);
    assert_eq!(nodes("|u| powi(u[0], -2147483648)"), [Tap(0), Powi(0, i32::MIN)]);
}

#[test]
fn literals_are_rounded_from_the_text_in_each_precision() {
    let only = |src: &str| match nodes(src)[1] {
        Flat::Lit(l) => l,
        ref other => panic!("{src}: {other:?}"),
    };
    assert_eq!(only("|u| u[0] * 0.1"), Lit { f64: 0.1, f32: 0.1 });
    // 1e-300 underflows f32 to zero, as rustc rounds `1e-300_f32`.
    assert_eq!(only("|u| u[0] * 1e-300"), Lit { f64: 1e-300, f32: 0.0 });
    // 1e39 overflows f32: a generic stencil carries f32 infinity.
    assert_eq!(only("|u| u[0] * 1e39"), Lit { f64: 1e39, f32: f32::INFINITY });
    let pi = only("|u| u[0] * 3.14159265358979323846");
    assert_eq!((pi.f64, pi.f32), (core::f64::consts::PI, core::f32::consts::PI));
}

#[test]
fn parentheses_shape_the_tree_and_leave_no_node() {
    assert_eq!(nodes("|u| ((((u[0]))))"), [Tap(0)]);
    assert_eq!(nodes("|u| - - u[0]"), [Tap(0), Unary("Neg", 0), Unary("Neg", 1)]);
    assert_eq!(
        nodes("|u| u[0] / u[1] / u[2] * u[0]"),
        [Tap(0), Tap(1), Binary("Div", 0, 1), Tap(2), Binary("Div", 2, 3), Tap(0), Binary("Mul", 4, 5)]
    );
    assert_eq!(nodes("|u| u[0] - (u[1] - u[2])"), [Tap(0), Tap(1), Tap(2), Binary("Sub", 1, 2), Binary("Sub", 0, 3)]);
}

#[test]
fn parameters_are_numbered_in_declaration_order() {
    assert_eq!(
        nodes("|u; a, b, c| c * u[0] + a - b"),
        [Param(2), Tap(0), Binary("Mul", 0, 1), Param(0), Binary("Add", 2, 3), Param(1), Binary("Sub", 4, 5)]
    );
}

#[test]
fn a_binding_is_one_node_that_every_use_names() {
    let src = "|u; a| { let lap = u[-1] + u[1] - 2.0 * u[0]; let big = lap > a; u[0] + select(big, a * lap, lap) }";
    assert_eq!(
        nodes(src),
        [
            Tap(0),
            Tap(1),
            Binary("Add", 0, 1),
            lit(2.0),
            Tap(2),
            Binary("Mul", 3, 4),
            Binary("Sub", 2, 5),
            Param(0),
            Binary("Gt", 6, 7),
            Tap(2),
            Param(0),
            Binary("Mul", 10, 6),
            Select(8, 11, 6),
            Binary("Add", 9, 12),
        ]
    );
    // A body that is the last binding ends with its node; one without bindings is as before.
    assert_eq!(nodes("|u| { let x = u[0] * 2.0; x }"), [Tap(0), lit(2.0), Binary("Mul", 0, 1)]);
    assert_eq!(nodes("|u| { u[0] }"), [Tap(0)]);
}
