//! Literal values and their device spellings.
//!
//! A literal is parsed once per precision from its decimal text (Rust's `parse` rounds correctly,
//! as rustc does for a literal), and every backend receives that same value: Rust as a bit pattern,
//! devices as the shortest decimal that round-trips, which their correctly rounding parsers map back
//! to the same bits.

use crate::ir::Lit;

/// The value of a literal's decimal digits (no sign, no suffix, no `_`), in both precisions.
pub(crate) fn value(digits: &str) -> Lit {
    // Integer digits and float digits both parse: `4` means `4.0`. Syntax was checked by the lexer.
    Lit { f64: digits.parse().unwrap_or(f64::NAN), f32: digits.parse().unwrap_or(f32::NAN) }
}

/// `v` as a CUDA `float` literal.
pub(crate) fn cuda_float(v: f32) -> String {
    if v.is_infinite() {
        "__int_as_float(0x7f800000)".to_owned()
    } else {
        format!("{}f", shortest(format!("{v:?}")))
    }
}

/// `v` as a CUDA `double` literal.
pub(crate) fn cuda_double(v: f64) -> String {
    if v.is_infinite() {
        "__longlong_as_double(0x7ff0000000000000LL)".to_owned()
    } else {
        shortest(format!("{v:?}"))
    }
}

/// `v` as a WGSL `f32` literal.
pub(crate) fn wgsl_f32(v: f32) -> String {
    if v.is_infinite() {
        "bitcast<f32>(0x7f800000u)".to_owned()
    } else {
        format!("{}f", shortest(format!("{v:?}")))
    }
}

/// Rust's shortest round-trip text, made a float literal in C and WGSL: it needs a `.` or an
/// exponent (`{:?}` always gives one today; this keeps it so).
fn shortest(text: String) -> String {
    if text.contains(['.', 'e', 'E']) {
        text
    } else {
        text + ".0"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_precisions_round_from_the_text() {
        let tenth = value("0.1");
        assert_eq!(tenth.f64, 0.1_f64);
        assert_eq!(tenth.f32, 0.1_f32);
        // Rounding the f64 to f32 could differ from rounding the text; the text is what rustc uses.
        let tricky = value("1.00000005960464477539062500001");
        assert_eq!(tricky.f32, 1.000_000_1_f32);
        assert_eq!(value("4").f64, 4.0);
    }

    #[test]
    fn overflow_is_infinite() {
        let big = value("1e39");
        assert!(big.f32.is_infinite());
        assert_eq!(big.f64, 1e39);
        assert!(value("1e400").f64.is_infinite());
    }

    #[test]
    fn device_spellings() {
        assert_eq!(cuda_float(4.0), "4.0f");
        assert_eq!(cuda_float(0.1), "0.1f");
        assert_eq!(cuda_double(0.1), "0.1");
        assert_eq!(cuda_double(1e-300), "1e-300");
        assert_eq!(wgsl_f32(1e-30), "1e-30f");
        assert_eq!(wgsl_f32(f32::MAX), "3.4028235e38f");
        assert_eq!(cuda_float(f32::INFINITY), "__int_as_float(0x7f800000)");
        assert_eq!(wgsl_f32(f32::INFINITY), "bitcast<f32>(0x7f800000u)");
        assert_eq!(cuda_double(f64::INFINITY), "__longlong_as_double(0x7ff0000000000000LL)");
        assert_eq!(shortest("7".to_owned()), "7.0");
    }

    #[test]
    fn spellings_round_trip() {
        for v in [0.1_f32, 1.0 / 3.0, 1e-45, 16_777_217.0, 3.0e-7] {
            let text = cuda_float(v);
            assert_eq!(text.trim_end_matches('f').parse::<f32>().unwrap().to_bits(), v.to_bits(), "{text}");
        }
        for v in [0.1_f64, 1.0 / 3.0, 5e-324, 1e300] {
            assert_eq!(cuda_double(v).parse::<f64>().unwrap().to_bits(), v.to_bits());
        }
    }
}
