//! Random bodies, written as Rust in either call style and with minimal or extra parentheses: the
//! device strings must be exactly what an independent printer of the same tree gives, with balanced
//! parentheses and only declared taps and parameters.

use super::*;
use crate::literal;

/// xorshift64*: deterministic, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

const FIELDS: [&str; 2] = ["u", "v"];
const PARAMS: [&str; 2] = ["a", "b"];
const LITERALS: [&str; 7] = ["0.5", "4", "0.1", "1e-3", "2.5e2", "3", "1e39"];
const UNARY: [(&str, &str, &str); 8] = [
    ("sqrt", "sqrtf", "sqrt"),
    ("exp", "expf", "exp"),
    ("ln", "logf", "log"),
    ("sin", "sinf", "sin"),
    ("cos", "cosf", "cos"),
    ("tanh", "tanhf", "tanh"),
    ("abs", "fabsf", "abs"),
    ("floor", "floorf", "floor"),
];
const BINARY: [(&str, &str, &str); 2] = [("min", "fminf", "min"), ("max", "fmaxf", "max")];

/// A generated number-valued tree.
enum Num {
    Read(usize, [i32; 2]),
    Param(usize),
    Lit(&'static str),
    Neg(Box<Num>),
    Arith(&'static str, Box<Num>, Box<Num>),
    Select(Box<Cond>, Box<Num>, Box<Num>),
    Unary(usize, Box<Num>),
    Binary(usize, Box<Num>, Box<Num>),
    Powi(Box<Num>, i32),
}

/// A generated condition.
enum Cond {
    Cmp(&'static str, Num, Num),
    Logic(&'static str, Box<Cond>, Box<Cond>),
    Not(Box<Cond>),
}

fn num(rng: &mut Rng, depth: u32) -> Num {
    if depth == 0 || rng.chance(25) {
        return match rng.below(4) {
            0 | 1 => Num::Read(rng.below(2), [rng.below(5) as i32 - 2, rng.below(3) as i32 - 1]),
            2 => Num::Param(rng.below(2)),
            _ => Num::Lit(LITERALS[rng.below(LITERALS.len())]),
        };
    }
    match rng.below(12) {
        0 => Num::Neg(Box::new(num(rng, depth - 1))),
        1 => Num::Select(Box::new(cond(rng, depth - 1)), Box::new(num(rng, depth - 1)), Box::new(num(rng, depth - 1))),
        2 => Num::Unary(rng.below(UNARY.len()), Box::new(num(rng, depth - 1))),
        3 => Num::Binary(rng.below(2), Box::new(num(rng, depth - 1)), Box::new(num(rng, depth - 1))),
        4 => Num::Powi(Box::new(num(rng, depth - 1)), rng.below(9) as i32 - 4),
        _ => {
            let op = ["+", "-", "*", "/"][rng.below(4)];
            Num::Arith(op, Box::new(num(rng, depth - 1)), Box::new(num(rng, depth - 1)))
        }
    }
}

fn cond(rng: &mut Rng, depth: u32) -> Cond {
    match rng.below(if depth == 0 { 1 } else { 4 }) {
        0 | 1 => Cond::Cmp(["<", "<=", ">", ">=", "==", "!="][rng.below(6)], num(rng, depth), num(rng, depth)),
        2 => Cond::Logic(["&&", "||"][rng.below(2)], Box::new(cond(rng, depth - 1)), Box::new(cond(rng, depth - 1))),
        _ => Cond::Not(Box::new(cond(rng, depth - 1))),
    }
}

/// Rust precedence levels, higher binds tighter.
fn precedence(op: &str) -> u8 {
    match op {
        "||" => 1,
        "&&" => 2,
        "<" | "<=" | ">" | ">=" | "==" | "!=" => 3,
        "+" | "-" => 4,
        _ => 5,
    }
}

/// Writes Rust source with as few parentheses as precedence allows (plus random extra ones).
struct RustWriter<'r> {
    rng: &'r mut Rng,
}

/// The binding strength of a rendered node: operators by precedence, unary 6, atoms and calls 7.
type Rendered = (String, u8);

impl RustWriter<'_> {
    fn wrap(&mut self, (text, strength): Rendered, need: u8) -> String {
        if strength < need || self.rng.chance(10) {
            format!("({text})")
        } else {
            text
        }
    }

    fn num(&mut self, n: &Num) -> Rendered {
        match n {
            Num::Read(f, [i, j]) => (format!("{}[{i}, {j}]", FIELDS[*f]), 7),
            Num::Param(i) => (PARAMS[*i].to_owned(), 7),
            Num::Lit(text) => ((*text).to_owned(), 7),
            Num::Neg(x) => {
                let x = self.num(x);
                (format!("-{}", self.wrap(x, 6)), 6)
            }
            Num::Arith(op, a, b) => {
                let p = precedence(op);
                let (a, b) = (self.num(a), self.num(b));
                (format!("{} {op} {}", self.wrap(a, p), self.wrap(b, p + 1)), p)
            }
            Num::Select(c, a, b) => {
                let (c, a, b) = (self.cond(c).0, self.num(a).0, self.num(b).0);
                (format!("select({c}, {a}, {b})"), 7)
            }
            Num::Unary(f, x) => {
                let name = UNARY[*f].0;
                let x = self.num(x);
                self.call(name, x, None)
            }
            Num::Binary(f, a, b) => {
                let name = BINARY[*f].0;
                let (a, b) = (self.num(a), self.num(b).0);
                self.call(name, a, Some(b))
            }
            Num::Powi(x, n) => {
                let x = self.num(x);
                self.call("powi", x, Some(n.to_string()))
            }
        }
    }

    /// `f(x, arg)` or `x.f(arg)`, chosen at random.
    fn call(&mut self, name: &str, x: Rendered, arg: Option<String>) -> Rendered {
        if self.rng.chance(50) {
            let args = arg.map(|a| format!(", {a}")).unwrap_or_default();
            (format!("{name}({}{args})", x.0), 7)
        } else {
            // A receiver binds tighter than any operator, and `4.f()` would lex as a float `4.`.
            let receiver = if x.0.bytes().all(|b| b.is_ascii_digit()) { format!("({})", x.0) } else { self.wrap(x, 7) };
            (format!("{receiver}.{name}({})", arg.unwrap_or_default()), 7)
        }
    }

    fn cond(&mut self, c: &Cond) -> Rendered {
        match c {
            Cond::Cmp(op, a, b) => {
                let (a, b) = (self.num(a), self.num(b));
                // Comparisons do not chain, so both sides need more than comparison strength.
                (format!("{} {op} {}", self.wrap(a, 4), self.wrap(b, 4)), 3)
            }
            Cond::Logic(op, a, b) => {
                let p = precedence(op);
                let (a, b) = (self.cond(a), self.cond(b));
                (format!("{} {op} {}", self.wrap(a, p), self.wrap(b, p + 1)), p)
            }
            Cond::Not(x) => {
                let x = self.cond(x);
                (format!("!{}", self.wrap(x, 6)), 6)
            }
        }
    }
}

/// Prints the CUDA `float` expression the macro should give, numbering taps on first appearance.
struct CudaWriter {
    taps: Vec<(usize, [i32; 2])>,
}

impl CudaWriter {
    fn num(&mut self, n: &Num) -> String {
        match n {
            Num::Read(f, offset) => {
                let tap = (*f, *offset);
                let k = self.taps.iter().position(|t| *t == tap).unwrap_or_else(|| {
                    self.taps.push(tap);
                    self.taps.len() - 1
                });
                format!("t{k}")
            }
            Num::Param(i) => format!("p{i}"),
            Num::Lit(text) => literal::cuda_float(literal::value(text).f32),
            Num::Neg(x) => format!("(-{})", self.num(x)),
            Num::Arith(op, a, b) => format!("({} {op} {})", self.num(a), self.num(b)),
            Num::Select(c, a, b) => format!("({} ? {} : {})", self.cond(c), self.num(a), self.num(b)),
            Num::Unary(f, x) => format!("{}({})", UNARY[*f].1, self.num(x)),
            Num::Binary(f, a, b) => format!("{}({}, {})", BINARY[*f].1, self.num(a), self.num(b)),
            Num::Powi(x, n) => format!("cn_powi({}, {n})", self.num(x)),
        }
    }

    fn cond(&mut self, c: &Cond) -> String {
        match c {
            Cond::Cmp(op, a, b) => format!("({} {op} {})", self.num(a), self.num(b)),
            Cond::Logic(op, a, b) => format!("({} {op} {})", self.cond(a), self.cond(b)),
            Cond::Not(x) => format!("(!{})", self.cond(x)),
        }
    }
}

/// Parentheses balance and never close below zero.
fn balanced(s: &str) -> bool {
    let mut depth = 0i32;
    for c in s.chars() {
        depth += match c {
            '(' => 1,
            ')' => -1,
            _ => 0,
        };
        if depth < 0 {
            return false;
        }
    }
    depth == 0
}

/// Every `t{k}` and `p{i}` names a declared tap or parameter.
fn names_in_range(s: &str, taps: usize, params: usize) -> bool {
    let bytes = s.as_bytes();
    (0..bytes.len()).all(|i| {
        let starts_name = matches!(bytes[i], b't' | b'p') && (i == 0 || !bytes[i - 1].is_ascii_alphanumeric());
        let digits: String = s[i + 1..].chars().take_while(char::is_ascii_digit).collect();
        if !starts_name || digits.is_empty() {
            return true;
        }
        let n: usize = digits.parse().expect("digits");
        n < if bytes[i] == b't' { taps } else { params }
    })
}

#[test]
fn random_bodies_print_back_exactly() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut checked = 0;
    for case in 0..600 {
        let tree = num(&mut rng, 1 + case % 6);
        let body = RustWriter { rng: &mut rng }.num(&tree).0;
        let src = format!("|u, v; a, b| {body}");
        let mut expected = CudaWriter { taps: Vec::new() };
        let float = expected.num(&tree);
        let reads = expected.taps.len();
        if reads == 0 {
            assert!(err(&src).to_string().contains("reads no field"), "{src}");
            continue;
        }
        let st = ok(&src);
        assert_eq!(st.taps.len(), reads, "{src}");
        let (cuda_float, cuda_double, wgsl) = strings(&src);
        assert_eq!(cuda_float, float, "{src}");
        for s in [&cuda_float, &cuda_double, &wgsl] {
            assert!(balanced(s), "{src}\n{s}");
            assert!(names_in_range(s, reads, 2), "{src}\n{s}");
        }
        syn::parse2::<syn::Expr>(expand(tokens(&src)).expect("expands")).expect("the expansion parses");
        checked += 1;
    }
    assert!(checked > 400, "only {checked} bodies read a field");
}

#[test]
fn the_checkers_catch_bad_strings() {
    assert!(!balanced("(t0))("));
    assert!(!names_in_range("(t2 + p0)", 2, 1));
    assert!(!names_in_range("(t0 + p1)", 2, 1));
    assert!(names_in_range("fabsf(t1) + sqrtf(p0)", 2, 1));
}
