//! Literal values.
//!
//! A literal is parsed once per precision from its decimal text (Rust's `parse` rounds correctly,
//! as rustc does for a literal), and every backend receives that same value as a bit pattern: the
//! point function's `Scalar::literal` and the expression data's `Lit` alike.

use crate::ir::Lit;

/// The value of a literal's decimal digits (no sign, no suffix, no `_`), in both precisions.
pub fn value(digits: &str) -> Lit {
    // Integer digits and float digits both parse: `4` means `4.0`. Syntax was checked by the lexer.
    Lit { f64: digits.parse().unwrap_or(f64::NAN), f32: digits.parse().unwrap_or(f32::NAN) }
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
}
