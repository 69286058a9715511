//! User stencil expressions for device backends: a point update written in the device's own
//! language (CUDA C, WGSL) as an expression of the neighbours, checked by a small lexer to be pure
//! arithmetic on reads within the stencil's radius, so the kernel made from it reads only inside
//! the input and writes only its own output point. Backends rewrite the neighbour reads it finds
//! into their own indexing.

use crate::error::{Error, Result};

/// One neighbour read `u(di, dj)` in an expression: its byte span and offsets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Neighbour {
    /// Byte range of `u(di, dj)` in the expression.
    pub span: (usize, usize),
    /// `(di, dj)`.
    pub offset: [i64; 2],
}

/// Checks that `expression` is pure arithmetic on the neighbours within radius `r`: numbers,
/// `T` (the element type), `u(di, dj)` with integer literals `|di|, |dj| <= r`, the pure math
/// functions in `functions`, arithmetic, comparison and logical operators, `?:`, commas and
/// parentheses. No assignment, no other identifier, no brackets, braces, semicolons or
/// preprocessor lines. Returns every neighbour read.
///
/// # Errors
///
/// `Error::Device` of `backend` naming the first thing refused and where.
pub fn neighbour_reads(
    expression: &str,
    r: usize,
    functions: &[&str],
    backend: &'static str,
) -> Result<Vec<Neighbour>> {
    let refuse = |at: usize, what: String| {
        Error::Device {
        backend,
        message: format!(
            "user stencil expression, at byte {at}: {what}; write arithmetic on u(di, dj) with |di|, |dj| <= {r}, numbers, T and math functions ({})",
            functions.join(", ")
        ),
    }
    };
    let bytes = expression.as_bytes();
    let mut reads = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i] as char;
        if c.is_ascii_whitespace() {
            i += 1;
        } else if c.is_ascii_digit() || (c == '.' && bytes.get(i + 1).is_some_and(u8::is_ascii_digit)) {
            // A number: digits, a point, an exponent, an `f` suffix.
            i += 1;
            while i < bytes.len() {
                let d = bytes[i] as char;
                let sign_after_exponent = (d == '+' || d == '-') && matches!(bytes[i - 1] as char, 'e' | 'E');
                if d.is_ascii_digit() || d == '.' || d == 'e' || d == 'E' || d == 'f' || sign_after_exponent {
                    i += 1;
                } else {
                    break;
                }
            }
        } else if c.is_ascii_alphabetic() || c == '_' {
            let start = i;
            while i < bytes.len() && ((bytes[i] as char).is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            let word = &expression[start..i];
            if word == "u" {
                let (end, offset) = neighbour(expression, i, r).map_err(|(at, what)| refuse(at, what))?;
                reads.push(Neighbour { span: (start, end), offset });
                i = end;
            } else if word != "T" && !functions.contains(&word) {
                return Err(refuse(start, format!("the name `{word}` is not allowed")));
            }
        } else {
            // Operators: one or two characters; a lone `=` (assignment) and `++`/`--` are refused.
            let two = expression.get(i..i + 2).unwrap_or("");
            if ["==", "!=", "<=", ">=", "&&", "||"].contains(&two) {
                i += 2;
            } else if two == "++" || two == "--" {
                return Err(refuse(i, format!("`{two}` is not allowed")));
            } else if "+-*/%()<>!?:,".contains(c) {
                i += 1;
            } else {
                return Err(refuse(i, format!("the character `{c}` is not allowed")));
            }
        }
    }
    Ok(reads)
}

/// Reads `(di, dj)` after a `u` at byte `i`: two integer literals within `r`; returns the byte
/// after the closing parenthesis and the offsets, or where and what is wrong.
fn neighbour(expression: &str, mut i: usize, r: usize) -> core::result::Result<(usize, [i64; 2]), (usize, String)> {
    let bytes = expression.as_bytes();
    let skip = |i: &mut usize| {
        while *i < bytes.len() && bytes[*i].is_ascii_whitespace() {
            *i += 1;
        }
    };
    let expect = |i: &mut usize, c: u8| {
        skip(i);
        if bytes.get(*i) == Some(&c) {
            *i += 1;
            Ok(())
        } else {
            Err((*i, format!("`u` must be followed by `(di, dj)`, two integer literals; expected `{}`", c as char)))
        }
    };
    let number = |i: &mut usize| {
        skip(i);
        let start = *i;
        if matches!(bytes.get(*i), Some(b'-' | b'+')) {
            *i += 1;
        }
        while *i < bytes.len() && bytes[*i].is_ascii_digit() {
            *i += 1;
        }
        let text = &expression[start..*i];
        match text.parse::<i64>() {
            Ok(v) if v.unsigned_abs() as usize <= r => Ok(v),
            Ok(v) => Err((start, format!("the offset {v} reaches past the stencil's radius {r}"))),
            Err(_) => Err((start, "neighbour offsets must be integer literals".to_string())),
        }
    };
    expect(&mut i, b'(')?;
    let di = number(&mut i)?;
    expect(&mut i, b',')?;
    let dj = number(&mut i)?;
    expect(&mut i, b')')?;
    Ok((i, [di, dj]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn neighbour_reads_are_found_with_their_spans() {
        let e = "u(0, 0) + 2 * u( -1 ,+1 )";
        let reads = neighbour_reads(e, 1, &[], "test").unwrap();
        assert_eq!(reads, [Neighbour { span: (0, 7), offset: [0, 0] }, Neighbour { span: (14, 25), offset: [-1, 1] }]);
        assert_eq!(&e[14..25], "u( -1 ,+1 )");
    }
}
