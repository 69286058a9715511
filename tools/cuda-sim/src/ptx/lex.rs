//! The PTX lexer: words (opcodes, directives, registers, symbols, numbers), punctuation and
//! strings, comments dropped, each token with its line.

/// A token.
#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    /// An opcode, directive, register, symbol, label or number: `ld.param.u64`, `.reg`, `%r1`,
    /// `$L__BB0_1`, `0f3F800000`, `136`.
    Word(String),
    /// One of `{ } ( ) [ ] , ; : + - @ ! < > = |`.
    Punct(char),
    /// A string literal (`.pragma "nounroll"`).
    Str(String),
}

fn word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '%' | '.')
}

/// The tokens of `text`, each with its 1-based line.
pub fn lex(text: &str) -> Result<Vec<(Tok, u32)>, String> {
    let mut out = Vec::new();
    let mut chars = text.char_indices().peekable();
    let mut line = 1u32;
    while let Some((i, c)) = chars.next() {
        match c {
            '\n' => line += 1,
            c if c.is_whitespace() => {}
            '/' if matches!(chars.peek(), Some((_, '/'))) => {
                for (_, c) in chars.by_ref() {
                    if c == '\n' {
                        line += 1;
                        break;
                    }
                }
            }
            '/' if matches!(chars.peek(), Some((_, '*'))) => {
                chars.next();
                let mut prev = ' ';
                for (_, c) in chars.by_ref() {
                    if c == '\n' {
                        line += 1;
                    }
                    if prev == '*' && c == '/' {
                        break;
                    }
                    prev = c;
                }
            }
            '"' => {
                let mut s = String::new();
                for (_, c) in chars.by_ref() {
                    if c == '"' {
                        break;
                    }
                    s.push(c);
                }
                out.push((Tok::Str(s), line));
            }
            '{' | '}' | '(' | ')' | '[' | ']' | ',' | ';' | ':' | '+' | '-' | '@' | '!' | '<' | '>' | '=' | '|' => {
                out.push((Tok::Punct(c), line))
            }
            c if word_char(c) => {
                let mut end = i + c.len_utf8();
                while let Some(&(j, d)) = chars.peek() {
                    if !word_char(d) {
                        break;
                    }
                    end = j + d.len_utf8();
                    chars.next();
                }
                out.push((Tok::Word(text[i..end].to_string()), line));
            }
            c => return Err(format!("line {line}: unexpected character {c:?}")),
        }
    }
    Ok(out)
}
