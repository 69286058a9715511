//! Every rejected input: the message (what, why, how to fix) and where it points.

use super::*;

fn message(src: &str) -> String {
    err(src).to_string()
}

/// Asserts the message of `src` contains `expected`.
#[track_caller]
fn rejects(src: &str, expected: &str) {
    let msg = message(src);
    assert!(msg.contains(expected), "`{src}`:\n  got      {msg}\n  expected {expected}");
}

/// The column where the error for single-line `src` starts.
fn column(src: &str) -> usize {
    let start = err(src).span().start();
    assert_eq!(start.line, 1, "{src}");
    start.column
}

/// Asserts the error for `src` starts at the first occurrence of `at` in it.
#[track_caller]
fn points_at(src: &str, at: &str) {
    assert_eq!(column(src), src.find(at).expect("`at` occurs in `src`"), "`{src}` should point at `{at}`");
}

#[test]
fn unknown_names() {
    let src = "|u, k; dt: T| u[0, 0] + foo * k[0, 0]";
    assert_eq!(message(src), "`foo` is not a field or parameter of this stencil: fields are `u, k`, parameters `dt`");
    points_at(src, "foo");
    rejects("|u| u[0] + foo", "`foo` is not a field or parameter of this stencil: fields are `u`, and there are no parameters (declare one after `;`, e.g. `|...; foo: T|`)");
    rejects("|u; a, b| v[0]", "`v` is not a field or parameter of this stencil: fields are `u`, parameters `a, b`");
    rejects("|u| u[0] * std::f64::consts::PI", "`std :: f64 :: consts :: PI` is not allowed in a stencil body");
    rejects("|u| u[0] * sqrt", "`sqrt` is a function: call it, e.g. `sqrt(...)`");
}

#[test]
fn bare_field() {
    let src = "|u, k| u + k[0, 0]";
    assert_eq!(message(src), "`u` is a field: read it at an offset, e.g. `u[0, 0]`");
    points_at(src, "u +");
    // The example has the stencil's rank, even before any read is seen.
    rejects("|u| u * u[1, 2, 3]", "e.g. `u[0, 0, 0]`");
    rejects("|u| u[1] * u", "e.g. `u[0]`");
    rejects("|u| u(0, 0)", "`u` is a field: read it with brackets, e.g. `u[0, 0]`");
}

#[test]
fn indexed_parameter() {
    let src = "|u; dt: T| u[0] * dt[0]";
    assert_eq!(message(src), "`dt` is a parameter, not a field: it cannot be indexed");
    points_at(src, "dt[");
    rejects("|u; dt| dt(1)", "`dt` is a parameter, not a function: it cannot be called");
}

#[test]
fn offsets_must_be_literals() {
    let src = "|u; i| u[i, 0]";
    assert_eq!(
        message(src),
        "stencil offsets must be integer literals; `i` is not (a stencil reads its fields at offsets fixed at compile time)"
    );
    points_at(src, "i,");
    rejects("|u| u[1.0]", "`1.0` is not");
    rejects("|u| u[0 + 1]", "`0 + 1` is not");
    rejects("|u| u[-(1)]", "`- (1)` is not");
    rejects("|u| u[1u8]", "`1u8` is not");
    points_at("|u| u[0, 1, u[0, 0, 0]]", "u[0, 0");
}

#[test]
fn offset_too_large() {
    rejects("|u| u[65]", "the offset 65 is too large: stencil offsets are at most 64 in magnitude");
    rejects("|u| u[0, -65]", "the offset -65 is too large");
    points_at("|u| u[0, -65]", "-65");
    assert_eq!(ok("|u| u[-64] + u[64]").taps.len(), 2);
}

#[test]
fn rank_mismatch_and_range() {
    let src = "|u, v| u[0, 0] + v[1, 0, 0]";
    assert_eq!(
        message(src),
        "`v` is read with 3 indices here but 2 before: every read of every field has the rank of the stencil"
    );
    points_at(src, "v[1");
    rejects("|u| u[0, 0] + u[0, 0, 0]", "`u` is read with 3 indices here but 2 before");
    rejects("|u| u[0, 0, 0, 0, 0]", "`u` is read with 5 offsets: a stencil has rank 1 to 4");
    rejects("|u| u[]", "`u` is read with no offsets: give one per axis");
    rejects("|u; a| a * 2", "the body reads no field");
}

#[test]
fn control_flow_and_statements() {
    let src = "|u| if u[0] > 0.0 { u[0] } else { 0.0 }";
    assert_eq!(message(src), "`if` is not allowed in a stencil body: write `select(condition, a, b)`");
    points_at(src, "if");
    rejects("|u| match u[0] { _ => 1.0 }", "`match` is not allowed in a stencil body: write `select(condition, a, b)`");
    rejects("|u| let x = u[0]; x", "`let` bindings go in a block that is the whole body");
    rejects("|u| u[1] + { u[0] }", "a block is allowed only as the whole body");
    rejects("|u| unsafe { u[0] }", "blocks are not allowed in a stencil body");
    rejects("|u| (|x| x)(u[0])", "closures are not allowed in a stencil body");
    rejects("|u| loop { }", "loops are not allowed in a stencil body");
    rejects("|u| return u[0]", "`return` is not allowed in a stencil body");
    let src = "|u| u[0]; u[1]";
    rejects(src, "expected the end of the stencil body: the body is one expression");
    points_at(src, ";");
}

#[test]
fn let_bindings_are_plain_names_before_the_value() {
    let src = "|u; a| { let u = u[0]; u }";
    assert_eq!(message(src), "`u` is a field: a `let` binding needs a name of its own");
    points_at(src, "u =");
    rejects("|u; a| { let a = u[0]; a }", "`a` is a parameter: a `let` binding needs a name of its own");
    rejects("|u| { let x = u[0]; let x = u[1]; x }", "`x` is bound by an earlier `let`");
    rejects("|u| { let sqrt = u[0]; sqrt }", "`sqrt` is a function");
    rejects("|u| { let x: f64 = u[0]; x }", "a `let` binding takes no type");
    rejects("|u| { let (x, y) = (u[0], u[1]); x }", "a `let` binding names one value");
    rejects("|u| { let mut x = u[0]; x }", "a `let` binding names one value");
    rejects("|u| { let x; u[0] }", "`let x` needs a value");
    rejects("|u| { let x = u[0]; x; }", "ends with the stencil's value, an expression without `;`: remove this `;`");
    rejects("|u| { u[0]; u[1] }", "only `let name = value;` bindings may come before the stencil's value");
    rejects("|u| { }", "the body's block is empty");
    rejects("|u| { let x = u[0]; let y = x; y }", "`y` would be another name for `x`: use `x` itself");
    // A value bound before other bindings is a node like any other (`VALUES` names it).
    ok("|u| { let x = u[0]; let y = u[1] * 2.0; x }");
    rejects("|u| { let c = u[0] > 1.0; c }", "the stencil body is a condition");
    rejects("|u| { let x = u[0]; { x } }", "a block is allowed only as the whole body");
}

#[test]
fn functions_and_methods() {
    let src = "|u| tan(u[0])";
    assert_eq!(
        message(src),
        "unknown function `tan`: a stencil body may call sqrt, exp, ln, sin, cos, tanh, abs, floor, min, max, flush, powi, select, laplace, diff, diff_half"
    );
    points_at(src, "tan");
    let src = "|u| u[0].tan()";
    assert_eq!(
        message(src),
        "unknown method `tan`: a stencil body may call the methods sqrt, exp, ln, sin, cos, tanh, abs, floor, min, max, flush, powi"
    );
    points_at(src, "tan");
    rejects("|u| f64::sqrt(u[0])", "`f64 :: sqrt` cannot be called in a stencil body");
    rejects("|u| u[0].select(1, 2)", "unknown method `select`");
    rejects("|u| u[0].sqrt::<f64>()", "`sqrt` takes no generic arguments");
    rejects("|u| sqrt(u[0], u[1])", "`sqrt` takes 1 argument, but 2 are given here");
    rejects("|u| u[0].min()", "`min` takes 2 arguments, but 1 are given here");
    rejects("|u| select(u[0] > 0.0, 1.0)", "`select` takes 3 arguments, but 2 are given here");
    rejects("|u| powi(u[0])", "`powi` takes 2 arguments");
    rejects("|u| u[0].x", "field access (`.name`) is not allowed in a stencil body");
}

#[test]
fn powi_exponent() {
    let src = "|u; n| powi(u[0], n)";
    rejects(src, "`powi` takes an integer literal exponent, e.g. `powi(x, 2)` or `x.powi(-1)`; `n` is not one");
    points_at(src, "n)");
    rejects("|u| u[0].powi(2.0)", "`powi` takes an integer literal exponent");
    rejects("|u| u[0].powi(2147483648)", "`powi` takes an integer literal exponent");
    rejects("|u| u[0].powi(1 + 1)", "`1 + 1` is not one");
    assert!(matches!(ok("|u| u[0].powi(2i32)").values[0], cnda_lang::ir::Expr::Powi(_, 2)));
}

#[test]
fn operators() {
    let src = "|u| u[0] % 2.0";
    rejects(src, "`%` is not allowed in a stencil body");
    points_at(src, "%");
    rejects("|u| u[0] as f32", "`as` casts are not allowed in a stencil body");
    rejects("|u| u[0] = 1.0", "assignment is not allowed in a stencil body");
    rejects("|u| u[0] += 1.0", "`+=` is not allowed in a stencil body");
    rejects("|u| u[0] & u[1]", "`&` is not allowed in a stencil body: combine conditions with `&&`");
    rejects("|u| u[0] | u[1]", "`|` is not allowed in a stencil body: combine conditions with `||`");
    rejects("|u| u[0] ^ 2.0", "`^` is not allowed in a stencil body: for a power write `powi(x, n)`");
    rejects("|u| u[0] << 1", "`<<` is not allowed in a stencil body");
    rejects("|u| *u[0]", "`*` is not allowed in a stencil body");
    rejects("|u| &u[0]", "references are not allowed in a stencil body");
    rejects("|u| [u[0], 1.0]", "arrays are not allowed in a stencil body");
    rejects("|u| u[0] + (u[0], 1.0)", "tuples are not allowed in a stencil body");
    rejects("|u| ()", "a stencil computes at least one value");
    rejects("|u| (u[0],)", "a stencil of one value ends with it, not a 1-tuple");
    rejects("|u| (u[0], u[0], u[0], u[0], u[0], u[0], u[0], u[0], u[0])", "at most 8 values; this tuple has 9");
    rejects("|u| (u[0], u[0] > 1.0)", "the stencil body is a condition");
    rejects("#[levels(2)] |u, v| (u[0], v[0])", "a stencil of 2 values at 2 levels reads its first 4 fields");
    rejects("#[levels(0)] |u| u[0]", "expected `#[levels(L)]` with L from 1 to 8");
    rejects("#[levels(x)] |u| u[0]", "expected `#[levels(L)]`");
    rejects("#[levels(2)] #[levels(2)] |u, v| u[0]", "`#[levels(..)]` is given twice");
    rejects("|u| u[0][1]", "only a field can be read at offsets");
    rejects("|u| (u)[0]", "only a field can be read at offsets");
    rejects("|u| format!(\"{}\", u[0])", "macros (`format!`) are not allowed in a stencil body");
    rejects("|u| #[allow(unused)] u[0]", "attributes are not allowed in a stencil body");
}

#[test]
fn literals() {
    rejects("|u| u[0] * true", "`true` and `false` are not allowed in a stencil body");
    rejects("|u| u[0] * 'a'", "only number literals are allowed in a stencil body");
    rejects("|u| u[0] * 1u8", "the literal `1u8` has suffix `u8`");
    let src = "|u; a: f32| u[0] * 1e39";
    assert_eq!(message(src), "the literal `1e39` overflows f32: its largest finite value is 3.4028235e38");
    points_at(src, "1e39");
    rejects("|u| u[0] * 1e39f32", "the literal `1e39f32` overflows f32");
    rejects("|u| u[0] * 1e400", "the literal `1e400` overflows f64");
    rejects("|u; a: f64| u[0] * 1e309", "overflows f64");
    // Generic: fine, since the stencil may be used with f64 only.
    ok("|u| u[0] * 1e39");
}

#[test]
fn types() {
    let src = "|u; a: f32, b: f64| u[0] * a * b";
    assert_eq!(
        message(src),
        "parameter `b` is `f64` but parameter `a` is `f32`: a stencil computes in one type; \
         write `T` (or no type) for a stencil generic over its element type"
    );
    points_at(src, "f64");
    rejects("|u; a: f32| u[0] * a * 2.0f64", "the literal `2.0f64` is `f64` but parameter `a` is `f32`");
    rejects("|u| u[0] * 2f64 + 1f32", "the literal `1f32` is `f32` but the literal `2f64` is `f64`");
    let src = "|u; a: i32| u[0]";
    rejects(
        src,
        "parameter `a` has type `i32`: a parameter's type is `T` (the stencil's element type), `f32` or `f64`",
    );
    points_at(src, "i32");
    rejects("|u; a: Vec<T>| u[0]", "parameter `a` has type `Vec < T >`");
}

#[test]
fn bools_and_numbers() {
    let src = "|u| u[0] + (u[1] > 0.0)";
    rejects(src, "`+` needs numbers, but its right operand is a condition (a bool)");
    points_at(src, "(u[1]");
    rejects("|u| -(u[0] > 0.0)", "`-` needs numbers, but its operand is a condition");
    rejects("|u| (u[0] > 0.0) < u[1]", "`<` compares numbers, but its left operand is a condition");
    let src = "|u| select(u[0] && u[1] > 0.0, 1, 0)";
    rejects(src, "`&&` works on conditions (bools), but its left operand is a number: compare a number to get a condition, e.g. `x > 0.0`");
    points_at(src, "u[0] &&");
    rejects("|u| select(!u[0], 1, 0)", "`!` works on conditions (bools), but its operand is a number: compare a number to get a condition, e.g. `x > 0.0`; negate a number with `-x`");
    rejects("|u| select(u[0], 1, 0)", "the first argument of `select` is the condition (a bool), but this is a number");
    rejects(
        "|u| select(u[0] > 0.0, u[0] > 1.0, 0)",
        "the branches of `select(condition, a, b)` are numbers, but this one is a condition",
    );
    rejects("|u| sqrt(u[0] > 0.0)", "`sqrt` takes numbers, but this argument is a condition");
    rejects("|u| (u[0] > 0.0).powi(2)", "`powi` takes numbers, but this argument is a condition");
    let src = "|u| u[0] > 0.0";
    assert_eq!(
        message(src),
        "the stencil body is a condition (a bool), but a stencil computes a number: write `select(condition, 1.0, 0.0)` for a number"
    );
}

#[test]
fn header() {
    let msg = "a stencil needs at least one input field";
    rejects("|| 1.0", msg);
    rejects("|; dt: T| dt", msg);
    rejects("pub struct S = || 1.0;", msg);
    let src = "|u, v; u: T| v[0]";
    assert_eq!(
        message(src),
        "`u` is declared twice (as a field, then as a parameter): field and parameter names must be distinct"
    );
    points_at(src, "u: T");
    rejects("|u, u| u[0]", "`u` is declared twice (as a field, then as a field)");
    rejects("|u; a, a| u[0]", "`a` is declared twice (as a parameter, then as a parameter)");
    rejects("|u|", "the stencil has no body");
    rejects("struct S = |u| ;", "the stencil has no body");
    rejects("|u v| u[0]", "expected `,`, `;` or the closing `|`");
    rejects("|u; a b| u[0]", "expected `,`, `;` or the closing `|`");
    rejects("", "expected a stencil");
    rejects("u[0]", "expected a stencil");
    rejects("move |u| u[0]", "expected a stencil");
}

#[test]
fn item_form_errors() {
    rejects("pub struct S = |u| u[0]", "expected `;` after the stencil body");
    rejects("pub struct S = |u| u[0]; struct T = |u| u[0];", "expected the end of the stencil body");
    rejects("pub struct S<T> = |u| u[0];", "expected `=` after the stencil's name");
    rejects("pub struct S = u[0];", "expected the stencil closure");
    rejects("pub fn f = |u| u[0];", "expected a stencil");
}

#[test]
fn finite_difference_operators() {
    rejects("|u| u[0, 0] + laplace(u, 3)", "takes an even integer literal order of accuracy from 2 to 16; `3`");
    rejects("|u| u[0, 0] + laplace(u, 18)", "order of accuracy from 2 to 16");
    rejects("|u| u[0, 0] + laplace(u)", "`laplace` takes 2 arguments, but 1 are given here");
    rejects("|u| u[0, 0] + diff(u, 2, 1, 2)", "takes an integer literal axis below the rank, 2; `2`");
    rejects("|u| u[0, 0] + diff(u, 0, 5, 2)", "an integer literal derivative from 1 to 4");
    rejects("|u| u[0, 0] + diff_half(u, 0, 2, 0)", "a side of 1 (the half point after the centre) or -1");
    rejects("|u; c| u[0] + laplace(c, 2)", "`laplace(u, order)` applies to a field, `u` or `u[i, j]`; `c`");
    rejects("|u| laplace(u, 2)", "`laplace(u, ..)` needs the stencil's rank, and no read gives it");
    rejects("|u| u[0, 0] + laplace(u[0, 0, 0], 2)", "is read with 3 indices here but 2 before");
    rejects(
        "|u| u[60] + laplace(u[60], 16)",
        "`laplace` reaches 8 points from its centre, past the largest offset, 64",
    );
    rejects("|u| { let laplace = u[0]; laplace }", "`laplace` is a function");
    rejects("|u| u[0] * laplace", "`laplace` is a function: call it");
}

#[test]
fn subnormals_attribute() {
    rejects("#[subnormals(drop)] |u| u[0]", "expected `#[subnormals(flush)]`");
    rejects("#[subnormals] |u| u[0]", "or `#[subnormals(keep)]`");
    rejects("#[subnormals(keep)] #[subnormals(flush)] |u| u[0]", "`#[subnormals(..)]` is given twice");
    rejects("#[inline] |u| u[0]", "the expression form takes only `#[subnormals(..)]`");
    points_at("#[subnormals(keep)] #[subnormals(keep)] |u| u[0]", "#[subnormals(keep)] |u|");
    rejects("#[subnormals(keep)] u[0]", "expected a stencil");
}

#[test]
fn writes_attribute() {
    rejects("#[writes] |u, v| u[0]", "expected `#[writes(field, ..)]`");
    rejects("#[writes()] |u, v| u[0]", "expected `#[writes(field, ..)]`");
    rejects("#[writes(v)] #[writes(v)] |u, v| u[0]", "`#[writes(..)]` is given twice");
    rejects("#[writes(u, v)] |u, v| u[0]", "names 2 fields for 1 values");
    rejects("#[writes(w)] |u, v| u[0]", "`w` is not one of the stencil's fields");
    points_at("#[writes(u, w)] |u, v| (u[0], v[0])", "w)]");
    rejects(
        "#[levels(2)] #[writes(um)] |u, um| u[0]",
        "`um` is level 1 of field `u`: a stage writes a field's newest level, so name `u`",
    );
    rejects("#[writes(v, u)] |u, v| (u[0], v[0])", "once each and in the stencil's order");
    rejects("#[writes(u, u)] |u, v| (u[0], v[0])", "once each and in the stencil's order");
    rejects("#[inline] |u| u[0]", "`#[levels(..)]`, `#[writes(..)]` and `#[compute(..)]`");
    rejects(
        "#[levels(2)] #[writes(v)] |u, um, v| u[0] + v[0]",
        "`v` is field 1 of the state, whose levels are fields 2 to 3",
    );
}

#[test]
fn errors_point_inside_the_input() {
    // A whole-input span would start at column 0; these point at the offending token.
    for (src, at) in [
        ("|u, k; dt: T| u[0, 0] + dt * k[0, 0] + foo", "foo"),
        ("|u| u[0] + u[1].tan()", "tan"),
        ("|u| u[0] + u[0, 1]", "u[0, 1]"),
        ("|u| u[0] + u[0] as f64", "u[0] as"),
    ] {
        assert_ne!(column(src), 0, "{src}");
        points_at(src, at);
    }
}

#[test]
fn more_than_sixty_four_taps_are_refused() {
    let reads: Vec<String> = (0..65).map(|k| format!("u[{}, {}]", k / 9 - 3, k % 9 - 4)).collect();
    let src = format!("|u| {}", reads.join(" + "));
    let e = crate::expand(src.parse().unwrap()).unwrap_err();
    assert!(e.to_string().contains("at most 64 distinct"), "{e}");
}

#[test]
fn compute_attribute() {
    rejects("#[compute(f16)] |u| u[0]", "expected `#[compute(f32)]`");
    rejects("#[compute] |u| u[0]", "or `#[compute(f64)]`");
    rejects("#[compute(f32)] #[compute(f64)] |u| u[0]", "`#[compute(..)]` is given twice");
    rejects("#[compute(f64)] |u; a: f32| a * u[0]", "parameter `a` is `f32` but `#[compute(f64)]` is `f64`");
    rejects("#[compute(f32)] |u| u[0] * 2.0f64", "is `f64` but `#[compute(f32)]` is `f32`");
}
