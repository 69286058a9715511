//! Random bodies, written as Rust in either call style and with minimal or extra parentheses: the
//! expression data must be exactly what an independent flattening of the same tree gives, every
//! operand an earlier node and every tap and parameter declared.

use super::*;
use cnda_lang::ir::Lit;
use cnda_lang::literal;

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
/// (the function's name in the body, its node's operation).
const UNARY: [(&str, &str); 8] = [
    ("sqrt", "Sqrt"),
    ("exp", "Exp"),
    ("ln", "Ln"),
    ("sin", "Sin"),
    ("cos", "Cos"),
    ("tanh", "Tanh"),
    ("abs", "Abs"),
    ("floor", "Floor"),
];
const BINARY: [(&str, &str); 2] = [("min", "Min"), ("max", "Max")];

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

/// Flattens a generated tree as the macro should, numbering taps on first appearance.
#[derive(Default)]
struct Flattener {
    taps: Vec<(usize, [i32; 2])>,
    nodes: Vec<Flat>,
}

impl Flattener {
    fn add(&mut self, node: Flat) -> usize {
        self.nodes.push(node);
        self.nodes.len() - 1
    }

    fn num(&mut self, n: &Num) -> usize {
        let node = match n {
            Num::Read(f, offset) => {
                let tap = (*f, *offset);
                let k = self.taps.iter().position(|t| *t == tap).unwrap_or_else(|| {
                    self.taps.push(tap);
                    self.taps.len() - 1
                });
                Flat::Tap(k)
            }
            Num::Param(i) => Flat::Param(*i),
            Num::Lit(text) => Flat::Lit(literal::value(text)),
            Num::Neg(x) => Flat::Unary("Neg", self.num(x)),
            Num::Arith(op, a, b) => {
                let op = ["Add", "Sub", "Mul", "Div"]["+-*/".find(op).expect("an operator")];
                Flat::Binary(op, self.num(a), self.num(b))
            }
            Num::Select(c, a, b) => Flat::Select(self.cond(c), self.num(a), self.num(b)),
            Num::Unary(f, x) => Flat::Unary(UNARY[*f].1, self.num(x)),
            Num::Binary(f, a, b) => Flat::Binary(BINARY[*f].1, self.num(a), self.num(b)),
            Num::Powi(x, n) => Flat::Powi(self.num(x), *n),
        };
        self.add(node)
    }

    fn cond(&mut self, c: &Cond) -> usize {
        let node = match c {
            Cond::Cmp(op, a, b) => {
                let op = match *op {
                    "<" => "Lt",
                    "<=" => "Le",
                    ">" => "Gt",
                    ">=" => "Ge",
                    "==" => "Eq",
                    _ => "Ne",
                };
                Flat::Binary(op, self.num(a), self.num(b))
            }
            Cond::Logic(op, a, b) => Flat::Binary(if *op == "&&" { "And" } else { "Or" }, self.cond(a), self.cond(b)),
            Cond::Not(x) => Flat::Unary("Not", self.cond(x)),
        };
        self.add(node)
    }
}

/// Every operand is an earlier node, every tap and parameter declared.
fn well_formed(nodes: &[Flat], taps: usize, params: usize) -> bool {
    nodes.iter().enumerate().all(|(i, node)| match *node {
        Flat::Tap(k) => k < taps,
        Flat::Param(p) => p < params,
        Flat::Lit(Lit { f64, f32 }) => !f64.is_nan() && !f32.is_nan(),
        Flat::Unary(_, a) | Flat::Powi(a, _) => a < i,
        Flat::Binary(_, a, b) => a < i && b < i,
        Flat::Select(c, a, b) => c < i && a < i && b < i,
    })
}

#[test]
fn random_bodies_flatten_exactly() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut checked = 0;
    for case in 0..600 {
        let tree = num(&mut rng, 1 + case % 6);
        let body = RustWriter { rng: &mut rng }.num(&tree).0;
        let src = format!("|u, v; a, b| {body}");
        let mut expected = Flattener::default();
        expected.num(&tree);
        let reads = expected.taps.len();
        if reads == 0 {
            assert!(err(&src).to_string().contains("reads no field"), "{src}");
            continue;
        }
        let st = ok(&src);
        assert_eq!(st.taps.len(), reads, "{src}");
        let got = nodes(&src);
        assert_eq!(got, expected.nodes, "{src}");
        assert!(well_formed(&got, reads, 2), "{src}\n{got:?}");
        syn::parse2::<syn::Expr>(expand(tokens(&src)).expect("expands")).expect("the expansion parses");
        checked += 1;
    }
    assert!(checked > 400, "only {checked} bodies read a field");
}

#[test]
fn the_checker_catches_bad_nodes() {
    assert!(!well_formed(&[Flat::Tap(0), Flat::Binary("Add", 0, 1)], 1, 0));
    assert!(!well_formed(&[Flat::Tap(2)], 2, 1));
    assert!(!well_formed(&[Flat::Param(1)], 2, 1));
    assert!(well_formed(&[Flat::Tap(1), Flat::Param(0), Flat::Binary("Min", 0, 1)], 2, 1));
}
