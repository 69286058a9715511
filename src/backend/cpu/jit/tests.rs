//! Each engine's rows against `CheckedExpr::eval`, bit for bit, whichever `CNDA_JIT` the process
//! runs with: every kind of node, on NaNs, signed zeros, subnormals and infinities.

use super::*;
use crate::kernel::expr::{Binary, CheckedExpr, Lit, Node, StencilParams, Tap, TapReader, Unary};

/// Lane values that reach every edge case: NaNs of both signs, both zeros, subnormals of both precisions, the
/// smallest normals, infinities, and ordinary numbers.
const EDGES: [f64; 16] = [
    f64::NAN,
    0.0,
    -0.0,
    1e-310,
    -1e-40,
    1.2e-38,
    2.3e-308,
    f64::INFINITY,
    f64::NEG_INFINITY,
    1.5,
    -2.5,
    0.75,
    3.0,
    -1e3,
    7.25,
    1e30,
];

/// The nodes of one test expression: taps 0, 1, 2 (at -1, 0, +1), parameters 0 and 1, then
/// `tail`, whose indices count from there.
fn nodes(tail: &[Node]) -> Vec<Node> {
    let mut nodes = vec![Node::Tap(0), Node::Tap(1), Node::Tap(2), Node::Param(0), Node::Param(1)];
    nodes.extend_from_slice(tail);
    nodes
}

/// One expression per kind of node (its last node the value), and one of several values.
fn expressions() -> Vec<(Vec<Node>, Vec<usize>)> {
    let one = |tail: &[Node]| {
        let n = nodes(tail);
        let last = n.len() - 1;
        (n, vec![last])
    };
    let mut cases = Vec::new();
    for op in [Unary::Neg, Unary::Sqrt, Unary::Exp, Unary::Ln, Unary::Sin, Unary::Cos, Unary::Tanh, Unary::Abs]
        .into_iter()
        .chain([Unary::Floor, Unary::Flush])
    {
        cases.push(one(&[Node::Unary(op, 1)]));
        // Of a parameter alone: computed once, before the loop.
        cases.push(one(&[Node::Unary(op, 3), Node::Binary(Binary::Add, 5, 0)]));
    }
    for op in [Binary::Add, Binary::Sub, Binary::Mul, Binary::Div, Binary::Min, Binary::Max] {
        cases.push(one(&[Node::Binary(op, 0, 2)]));
        cases.push(one(&[Node::Binary(op, 2, 3)]));
    }
    for op in [Binary::Lt, Binary::Le, Binary::Gt, Binary::Ge, Binary::Eq, Binary::Ne] {
        cases.push(one(&[Node::Binary(op, 0, 1), Node::Select(5, 2, 4)]));
    }
    for op in [Binary::And, Binary::Or] {
        let tail = [
            Node::Binary(Binary::Lt, 0, 1),
            Node::Binary(Binary::Ge, 1, 2),
            Node::Binary(op, 5, 6),
            Node::Unary(Unary::Not, 7),
            Node::Select(8, 0, 2),
        ];
        cases.push(one(&tail));
    }
    for n in [0, 1, 3, 7, -1, -4] {
        cases.push(one(&[Node::Powi(1, n)]));
    }
    for lit in [0.1, -0.0, f64::INFINITY, f64::NEG_INFINITY, 1e-320, 3.0e38] {
        cases.push(one(&[Node::Lit(Lit::new(lit)), Node::Binary(Binary::Mul, 0, 5)]));
    }
    // Several values of one expression, one of them a tap as it is.
    let tail = [Node::Binary(Binary::Add, 0, 2), Node::Binary(Binary::Mul, 5, 3), Node::Unary(Unary::Flush, 6)];
    cases.push((nodes(&tail), vec![7, 1, 5]));
    cases
}

struct At<'a, T>(&'a [T], usize);

impl<T: Scalar> TapReader<T> for At<'_, T> {
    fn tap(&self, k: usize) -> T {
        self.0[self.1 + k]
    }
}

#[derive(Clone, Copy)]
struct Params<T>([T; 2]);

impl<T: Scalar> StencilParams<T> for Params<T> {
    const LEN: usize = 2;
    fn get(&self, i: usize) -> T {
        self.0[i]
    }
}

/// Every expression's row from `engines` (`(C, cranelift)`) against `eval` on a lane of
/// `EDGES` combinations, in `T`; the number of rows compiled.
fn check<T: Scalar + Copy>(engines: (bool, bool), of: fn(f64) -> T, bits: fn(T) -> u64) -> usize {
    let (elem, double) = if T::DTYPE == DType::F64 { (Elem::F64, true) } else { (Elem::F32, false) };
    let len = 16 * 16 + 13;
    // Point i's taps are u[i], u[i + 1], u[i + 2]: a period of 16 against one of 17 pairs every
    // two values of EDGES.
    let u: Vec<T> = (0..len + 2).map(|i| of(EDGES[(i * 7 + i / 16) % 16])).collect();
    let mut compiled = 0;
    for (nodes, values) in expressions() {
        let taps = vec![Tap { field: 0, offset: [-1] }, Tap { field: 0, offset: [0] }, Tap { field: 0, offset: [1] }];
        let expr = CheckedExpr::from_outputs("test", 1, 2, taps, nodes.clone(), values.clone()).unwrap();
        let params = [of(0.5), of(-1e-39)];
        let want: Vec<Vec<T>> = (0..len).map(|i| expr.eval(&At(&u, i), &Params(params))).collect();
        let data = ExprData::new(expr);
        let Some((row, kept)) = compile(&data, &[-1, 0, 1], elem, engines) else {
            continue;
        };
        compiled += 1;
        let mut out: Vec<Vec<T>> = values.iter().map(|_| vec![of(0.0); len]).collect();
        let fields = [u[1..].as_ptr().cast::<u8>()];
        let outputs: Vec<*mut u8> = out.iter_mut().map(|o| o.as_mut_ptr().cast()).collect();
        // SAFETY: the row reads taps -1..=1 of points 0..len from `u[1..]`, which holds points
        // -1..=len; each output holds `len` points; `params` two elements.
        unsafe { row(fields.as_ptr(), outputs.as_ptr(), params.as_ptr().cast(), len) };
        for (i, point) in want.iter().enumerate() {
            for (m, &w) in point.iter().enumerate() {
                let got = out[m][i];
                // A NaN's sign and payload are not part of the result (Rust leaves them open, and
                // compilers rewrite `a + -b` as `a - b`): any NaN where `eval` has one.
                let nan = |x: T| x.partial_cmp(&x).is_none();
                let same = bits(got) == bits(w) || (nan(got) && nan(w));
                assert!(same, "{nodes:?} ({double}), value {m} at point {i}: {got:?} != {w:?}");
            }
        }
        release(kept);
    }
    compiled
}

/// Frees compiled code no row of it runs again (the cache keeps its own for the process; a test
/// that dropped a cranelift module would leak its pages).
fn release(kept: Kept) {
    match kept {
        // SAFETY: the row compiled into this module was called above and is not called again.
        Kept::Cranelift(module) => unsafe { module.free_memory() },
        #[cfg(unix)]
        Kept::C(library) => drop(library),
    }
}

/// The C compiler's rows equal `eval`, in both precisions (where `cc` is at hand: scripts/test
/// requires it with `CNDA_REQUIRE_CC`).
#[cfg(unix)]
#[test]
fn c_rows_equal_eval_bit_for_bit() {
    let cases = expressions().len();
    let f32s = check::<f32>((true, false), |x| x as f32, |x| x.to_bits().into());
    let f64s = check::<f64>((true, false), |x| x, f64::to_bits);
    if std::env::var_os("CNDA_REQUIRE_CC").is_some() {
        assert_eq!((f32s, f64s), (cases, cases), "CNDA_REQUIRE_CC is set, but the C compiler built no row");
    }
}

/// Cranelift's rows equal `eval`, in both precisions.
#[test]
fn cranelift_rows_equal_eval_bit_for_bit() {
    let cases = expressions().len();
    let f32s = check::<f32>((false, true), |x| x as f32, |x| x.to_bits().into());
    let f64s = check::<f64>((false, true), |x| x, f64::to_bits);
    assert_eq!((f32s, f64s), (cases, cases), "cranelift compiles every case on this host");
}

/// A compiler that does not exist: no row, and no error beyond that (cranelift takes over).
#[cfg(unix)]
#[test]
fn a_missing_compiler_gives_no_row() {
    let taps = vec![Tap { field: 0, offset: [0] }];
    let expr = CheckedExpr::from_outputs("test", 1, 0, taps, vec![Node::Tap(0)], vec![0]).unwrap();
    let source = c::source(&expr, &[0], true);
    assert!(source.contains("o0[i] = t0;"), "{source}");
    assert!(c::build_with("/nonexistent/cnda-cc", &[] as &[&str], &source, [core::ptr::null(); 5]).is_err());
    // A compiler that refuses (the guards: fast-math asked for).
    let refused = c::build_with("cc", &["-ffast-math", "-fPIC", "-shared"], &source, [core::ptr::null(); 5]);
    assert!(refused.is_ok_and(|row| row.is_none()), "fast-math must be refused");
}
