//! The exact device strings.

use super::*;

fn cuda_f32(src: &str) -> String {
    strings(src).0
}

#[test]
fn heat() {
    let (float, double, wgsl) = strings(HEAT);
    assert_eq!(float, "(t0 + (p0 * (t1 * ((((t2 + t3) + t4) + t5) - (4.0f * t0)))))");
    assert_eq!(double, "(t0 + (p0 * (t1 * ((((t2 + t3) + t4) + t5) - (4.0 * t0)))))");
    assert_eq!(wgsl, float);
}

#[test]
fn select_with_comparisons_and_logic() {
    let src = "|u; c| select(u[0] > c && !(u[1] <= 0.0) || u[-1] == 1, u[0], -u[1])";
    let (float, double, wgsl) = strings(src);
    let cond = "(((t0 > p0) && (!(t1 <= 0.0f))) || (t2 == 1.0f))";
    assert_eq!(float, format!("({cond} ? t0 : (-t1))"));
    assert_eq!(double, format!("({} ? t0 : (-t1))", cond.replace(".0f", ".0")));
    // WGSL's order: false value, true value, condition.
    assert_eq!(wgsl, format!("select((-t1), t0, {cond})"));
    let (float, _, wgsl) = strings("|u| select(u[0] != u[1], 1, 0) + select(u[0] >= 2, 3, u[1])");
    assert_eq!(float, "(((t0 != t1) ? 1.0f : 0.0f) + ((t0 >= 2.0f) ? 3.0f : t1))");
    assert_eq!(wgsl, "(select(0.0f, 1.0f, (t0 != t1)) + select(t1, 3.0f, (t0 >= 2.0f)))");
}

#[test]
fn every_math_function_in_both_styles() {
    let table = [
        ("sqrt", "sqrtf", "sqrt", "sqrt"),
        ("exp", "expf", "exp", "exp"),
        ("ln", "logf", "log", "log"),
        ("sin", "sinf", "sin", "sin"),
        ("cos", "cosf", "cos", "cos"),
        ("tanh", "tanhf", "tanh", "tanh"),
        ("abs", "fabsf", "fabs", "abs"),
        ("floor", "floorf", "floor", "floor"),
    ];
    for (name, float, double, wgsl) in table {
        let expected = (format!("{float}((t0 - t1))"), format!("{double}((t0 - t1))"), format!("{wgsl}((t0 - t1))"));
        assert_eq!(strings(&format!("|u| {name}(u[0] - u[1])")), expected, "{name}");
        assert_eq!(strings(&format!("|u| (u[0] - u[1]).{name}()")), expected, "{name}");
    }
    for (name, float, double, wgsl) in [("min", "fminf", "fmin", "min"), ("max", "fmaxf", "fmax", "max")] {
        let expected = (format!("{float}(t0, (-t1))"), format!("{double}(t0, (-t1))"), format!("{wgsl}(t0, (-t1))"));
        assert_eq!(strings(&format!("|u| {name}(u[0], -u[1])")), expected, "{name}");
        assert_eq!(strings(&format!("|u| u[0].{name}(-u[1])")), expected, "{name}");
    }
}

#[test]
fn powi_positive_and_negative() {
    let expected = ("cn_powi(t0, 3)".to_owned(), "cn_powi(t0, 3)".to_owned(), "cn_powi(t0, 3i)".to_owned());
    assert_eq!(strings("|u| powi(u[0], 3)"), expected);
    assert_eq!(strings("|u| u[0].powi(3)"), expected);
    let (float, double, wgsl) = strings("|u| (u[0] + 1).powi(-2)");
    assert_eq!(float, "cn_powi((t0 + 1.0f), -2)");
    assert_eq!(double, "cn_powi((t0 + 1.0), -2)");
    assert_eq!(wgsl, "cn_powi((t0 + 1.0f), -2i)");
    assert_eq!(strings("|u| powi(u[0], 0)").2, "cn_powi(t0, 0i)");
    assert_eq!(strings("|u| powi(u[0], -2147483648)").0, "cn_powi(t0, (-2147483647 - 1))");
    assert_eq!(strings("|u| powi(u[0], -2147483648)").2, "cn_powi(t0, (-2147483647i - 1i))");
}

#[test]
fn literals() {
    assert_eq!(strings("|u| u[0] * 0.1"), ("(t0 * 0.1f)".into(), "(t0 * 0.1)".into(), "(t0 * 0.1f)".into()));
    assert_eq!(strings("|u| u[0] * 4"), ("(t0 * 4.0f)".into(), "(t0 * 4.0)".into(), "(t0 * 4.0f)".into()));
    // 1e-300 underflows f32 to zero, as rustc rounds `1e-300_f32`.
    assert_eq!(strings("|u| u[0] * 1e-300"), ("(t0 * 0.0f)".into(), "(t0 * 1e-300)".into(), "(t0 * 0.0f)".into()));
    assert_eq!(cuda_f32("|u| u[0] * 1e-30"), "(t0 * 1e-30f)");
    assert_eq!(strings("|u| u[0] * 1e-30").2, "(t0 * 1e-30f)");
    // 1e39 overflows f32: a generic stencil spells f32 infinity by its bits.
    let (float, double, wgsl) = strings("|u| u[0] * 1e39");
    assert_eq!(float, "(t0 * __int_as_float(0x7f800000))");
    assert_eq!(double, "(t0 * 1e39)");
    assert_eq!(wgsl, "(t0 * bitcast<f32>(0x7f800000u))");
    // Rounded from the text in each precision, printed shortest.
    assert_eq!(strings("|u| u[0] * 3.14159265358979323846").0, "(t0 * 3.1415927f)");
    assert_eq!(strings("|u| u[0] * 3.14159265358979323846").1, "(t0 * 3.141592653589793)");
    assert_eq!(strings("|u| u[0] * 1_000.5e3").1, "(t0 * 1000500.0)");
    assert_eq!(strings("|u| u[0] * 1e16").1, "(t0 * 1e16)");
}

#[test]
fn nested_parentheses_and_unary_minus() {
    let (float, double, wgsl) = strings("|u| -(-(u[0] - (u[1] - u[2])) * -2.5)");
    assert_eq!(float, "(-((-(t0 - (t1 - t2))) * (-2.5f)))");
    assert_eq!(double, "(-((-(t0 - (t1 - t2))) * (-2.5)))");
    assert_eq!(wgsl, float);
    assert_eq!(cuda_f32("|u| ((((u[0]))))"), "t0");
    assert_eq!(cuda_f32("|u| - - u[0]"), "(-(-t0))");
    assert_eq!(cuda_f32("|u| u[0] / u[1] / u[2] * u[0]"), "(((t0 / t1) / t2) * t0)");
    assert_eq!(cuda_f32("|u| u[0] - u[1] * u[2] + u[0] / -u[1]"), "((t0 - (t1 * t2)) + (t0 / (-t1)))");
}

#[test]
fn parameters_are_numbered_in_declaration_order() {
    assert_eq!(cuda_f32("|u; a, b, c| c * u[0] + a - b"), "(((p2 * t0) + p0) - p1)");
}
