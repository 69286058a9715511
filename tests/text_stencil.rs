//! Stencils read from text at run time (`TextStencil`, feature `text`): the same text given to
//! `stencil!` computes the same values, bit for bit, in single sweeps and in fused time steps
//! (sequential and on threads, with boundaries); random expression data run by the CPU's block
//! interpreter equals the reference interpreter (`CheckedExpr::eval`), along contiguous and
//! strided lanes; refusals carry `stencil!`'s message with a caret under the token.

use cnda::prelude::*;
use cnda::stencil::{
    Binary, Boundary, CheckedExpr, FieldBoundaries, Lit, Node, State, StencilApply, StencilParams, Tap, TapReader,
    TextStencil, Unary,
};
use proptest::prelude::*;

/// A field with irregular values of both signs, seeded.
fn field<const N: usize>(shape: [usize; N], seed: u64) -> Array<f64, N> {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    Array::from_fn(shape, |_| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 0.5
    })
}

fn bits<const N: usize>(a: &Array<f64, N>) -> Vec<u64> {
    a.iter().map(|x| x.to_bits()).collect()
}

/// The `stencil!` of the tokens and the `TextStencil` of the same tokens as text.
macro_rules! both {
    ($n:literal; $($t:tt)*) => {
        (cnda::stencil!($($t)*), TextStencil::<$n>::parse(stringify!($($t)*)))
    };
}

#[test]
fn one_value_stencils_equal_the_macro_bit_for_bit() {
    let shape = [23, 37];
    let (u, k) = (field(shape, 1), field(shape, 2));
    // The heat step with a coefficient field.
    let (compiled, text) =
        both!(2; |u, k; dt| u[0, 0] + dt * k[0, 0] * (u[-1, 0] + u[1, 0] + u[0, -1] + u[0, 1] - 4.0 * u[0, 0]));
    let (mut want, mut got) = (Array::zeros(shape), Array::zeros(shape));
    compiled.apply((&u, &k), &mut want, (0.1,));
    text.apply(&[&u, &k], &mut [&mut got], &[0.1]);
    assert_eq!(bits(&want), bits(&got));
    // Every function, comparisons, logic, select, powi, and a parameter-only subexpression.
    let (compiled, text) = both!(2; |u, k; a, b| {
        let s = select(u[0, 1] > k[0, 0] && !(u[1, 0] <= 0.0) || u[0, -1] == k[1, 1], u[0, 0].sqrt().abs(), -k[0, 0].exp());
        let t = min(u[-1, -1].sin(), u[1, -1].cos()) + max(k[-1, 0].tanh(), (u[0, 0] * a).floor()) + (a * b - 1.5) * u[0, 2].powi(3);
        s / (u[0, 0].abs() + 1.0).ln() + t * b + flush(u[0, 0] * 1e-300) + k[0, 0].powi(-2)
    });
    compiled.apply((&u, &k), &mut want, (0.7, -1.3));
    text.apply(&[&u, &k], &mut [&mut got], &[0.7, -1.3]);
    assert_eq!(bits(&want), bits(&got));
    // A finite-difference operator of the language.
    let (compiled, text) = both!(2; |u; c| u[0, 0] + c * laplace(u, 4));
    compiled.apply(&u, &mut want, (0.05,));
    text.apply(&[&u], &mut [&mut got], &[0.05]);
    assert_eq!(bits(&want), bits(&got));
}

#[test]
fn a_system_of_two_values_equals_the_macro_in_f32_and_f64() {
    let (compiled, text) = both!(2; |u, v; du, dv, f, k| {
        let uvv = u[0, 0] * v[0, 0] * v[0, 0];
        (
            u[0, 0] + du * (u[-1, 0] + u[1, 0] + u[0, -1] + u[0, 1] - 4.0 * u[0, 0]) - uvv + f * (1.0 - u[0, 0]),
            v[0, 0] + dv * (v[-1, 0] + v[1, 0] + v[0, -1] + v[0, 1] - 4.0 * v[0, 0]) + uvv - (f + k) * v[0, 0],
        )
    });
    assert_eq!((text.fields(), text.params().len(), text.outputs()), (&["u".to_string(), "v".to_string()][..], 4, 2));
    let shape = [40, 300];
    let (u, v) = (field(shape, 3), field(shape, 4));
    let p = [0.2, 0.1, 0.035, 0.06];
    let (mut wu, mut wv, mut gu, mut gv) =
        (Array::zeros(shape), Array::zeros(shape), Array::zeros(shape), Array::zeros(shape));
    compiled.apply((&u, &v), (&mut wu, &mut wv), (p[0], p[1], p[2], p[3]));
    text.apply(&[&u, &v], &mut [&mut gu, &mut gv], &p);
    assert_eq!((bits(&wu), bits(&wv)), (bits(&gu), bits(&gv)));
    text.par_apply(&[&u, &v], &mut [&mut gu, &mut gv], &p);
    assert_eq!((bits(&wu), bits(&wv)), (bits(&gu), bits(&gv)));
    let (u, v) = (u.map(|x| x as f32), v.map(|x| x as f32));
    let p = p.map(|x| x as f32);
    let (mut wu, mut wv, mut gu, mut gv) =
        (Array::zeros(shape), Array::zeros(shape), Array::zeros(shape), Array::zeros(shape));
    compiled.apply((&u, &v), (&mut wu, &mut wv), (p[0], p[1], p[2], p[3]));
    text.apply(&[&u, &v], &mut [&mut gu, &mut gv], &p);
    assert!(wu.iter().zip(gu.iter()).chain(wv.iter().zip(gv.iter())).all(|(a, b)| a.to_bits() == b.to_bits()));
}

/// Time steps through the one stepper: a wave of two levels with a coefficient field and
/// periodic and mirrored sides, fused, sequential and on threads, against the macro's.
#[test]
fn time_steps_with_levels_and_boundaries_equal_the_macro() {
    let (compiled, text) =
        both!(3; #[levels(2)] |u, u_prev, m; c| 2.0 * u[0, 0, 0] - u_prev[0, 0, 0] + c * m[0, 0, 0] * laplace(u, 4));
    assert_eq!(text.levels(), 2);
    let shape = [12, 14, 40];
    let m = field(shape, 7).map(|x| 1.0 + 0.2 * x);
    let b = FieldBoundaries([[[Boundary::Periodic; 2], [Boundary::Neumann; 2], [Boundary::Fixed; 2]].into()]);
    let start = || State::from_levels([[field(shape, 5), field(shape, 6)]]);
    let mut want = start();
    compiled.apply_steps_with(&mut want, 9, &m, (0.05,), b);
    let mut got = start();
    text.apply_steps_with(&mut got, 9, &[&m], &[0.05], b);
    for l in 0..2 {
        assert_eq!(bits(want.level(0, l)), bits(got.level(0, l)), "level {l}");
    }
    let mut par = start();
    text.par_apply_steps_with(&mut par, 9, &[&m], &[0.05], b);
    assert_eq!(bits(want.level(0, 0)), bits(par.level(0, 0)));
}

#[test]
fn strided_operands_are_gathered_and_scattered() {
    let text = TextStencil::<2>::parse("|u, k; a| a * u[0, 1] - k[1, 0] * u[-1, 0]");
    let (u, k) = (field([20, 30], 8), field([20, 30], 9));
    // Transposed fields (their last axis strided) and every other column of the output.
    let mut out = Array::zeros([30, 40]);
    text.apply(&[u.t(), k.t()], &mut [out.slice_mut(s![.., ..;2])], &[1.5]);
    for i in 0..30 {
        for j in 0..20 {
            let inside = (1..29).contains(&i) && (1..19).contains(&j);
            let want = if inside { 1.5 * u[[j + 1, i]] - k[[j, i + 1]] * u[[j, i - 1]] } else { 0.0 };
            assert_eq!(out[[i, 2 * j]].to_bits(), want.to_bits(), "({i}, {j})");
            assert_eq!(out[[i, 2 * j + 1]], 0.0);
        }
    }
}

#[test]
fn refusals_say_what_and_where() {
    let e = TextStencil::<2>::try_parse("|u; dt| u[0, 0] + dt * u[0, 0].cbrt()").unwrap_err();
    let message = e.to_string();
    assert!(matches!(e, cnda::Error::Syntax { line: 1, .. }), "{message}");
    assert!(message.contains("cbrt"), "{message}");
    // The caret stands under the refused name.
    let lines: Vec<&str> = message.lines().collect();
    let (quoted, caret) = (lines[lines.len() - 2], lines[lines.len() - 1]);
    assert_eq!(&quoted[caret.find('^').unwrap()..][..4], "cbrt", "{message}");
    let e = TextStencil::<2>::try_parse("|u|\n  u[0, 0] +\n  u[0, 0, 1]").unwrap_err();
    assert!(matches!(e, cnda::Error::Syntax { line: 3, .. }), "{e}");
    let e = TextStencil::<2>::try_parse("|u| u[0]").unwrap_err();
    assert!(e.to_string().contains("a TextStencil<2> has 2 axes"), "{e}");
    let e = TextStencil::<1>::try_parse("struct S = |u| u[0];").unwrap_err();
    assert!(matches!(e, cnda::Error::Syntax { column: 8, .. }) && e.to_string().contains("expression form"), "{e}");
    let e = TextStencil::<1>::try_parse("#[levels(1)] #[compute(f64)] |u| u[0]").unwrap_err();
    assert!(matches!(e, cnda::Error::Syntax { column: 14, .. }) && e.to_string().contains("compute"), "{e}");
    let e = TextStencil::<1>::try_parse("|u|\n  u[0] +\n").unwrap_err();
    assert!(matches!(e, cnda::Error::Syntax { line: 2, column: 9, .. }), "{e}");
    let e = TextStencil::<1>::try_parse("|u| \"text\"").unwrap_err();
    assert!(matches!(e, cnda::Error::Syntax { .. }), "{e}");
    // Operands and parameters.
    let text = TextStencil::<1>::parse("|u; a, b| a * u[-1] + b * u[1]");
    let (u, mut out) = (field([9], 1), Array::zeros([9]));
    let e = text.try_apply(&[&u], &mut [&mut out], &[1.0]).unwrap_err();
    assert!(e.to_string().contains("2 parameters (a, b); 1 values were passed"), "{e}");
    let e = text.try_apply(&[&u, &u], &mut [&mut out], &[1.0, 2.0]).unwrap_err();
    assert!(e.to_string().contains("2 fields and 1 outputs given to a stencil that names 1 fields"), "{e}");
    let typed = TextStencil::<1>::parse("|u; a: f32| a * u[0]");
    let e = typed.try_apply(&[&u], &mut [&mut out], &[1.0]).unwrap_err();
    assert!(matches!(e, cnda::Error::DType { .. }), "{e}");
    let mut state = State::from_fields([field([9], 2)]);
    let e = TextStencil::<1>::parse("#[levels(2)] |u, up| u[0] - up[0]")
        .try_apply_steps(&mut state, 1, &[] as &[&Array<f64, 1>], &[])
        .unwrap_err();
    assert!(e.to_string().contains("reads 2 time levels; the state holds 1"), "{e}");
}

/// Text past the parser's bounds is refused, never a stack overflow: brackets nested deeper
/// than 256, more tokens than 16 per node, a chain of operations past the nodes a stencil may
/// have; a `powi` exponent too large to unroll runs in the interpreter.
#[test]
fn oversized_text_is_refused_and_huge_powers_still_run() {
    let deep = format!("|u| {}u[0]{}", "(".repeat(300), ")".repeat(300));
    let e = TextStencil::<1>::try_parse(&deep).unwrap_err();
    assert!(e.to_string().contains("nest more than 256 deep"), "{e}");
    let long = format!("|u| u[0]{}", " + u[0]".repeat(20_000));
    let e = TextStencil::<1>::try_parse(&long).unwrap_err();
    assert!(e.to_string().contains("tokens, more than the 65536"), "{e}");
    let chain = format!("|u| u[0]{}", " + u[0]".repeat(9_000));
    let e = TextStencil::<1>::try_parse(&chain).unwrap_err();
    assert!(e.to_string().contains("more than the 4096 a stencil may have"), "{e}");
    // Deep but within the bounds: parsed on the parser's own stack.
    let nested = format!("|u| {}u[0]{}", "(1.0 + ".repeat(250), ")".repeat(250));
    let s = TextStencil::<1>::parse(&nested);
    let (u, mut out) = (Array::full([4], 1.0f64), Array::zeros([4]));
    s.apply(&[&u], &mut [&mut out], &[]);
    assert_eq!(out[[1]], 251.0);
    let power = TextStencil::<1>::parse("|u| powi(u[0], 1000) + powi(u[0], -1001)");
    let u = Array::from_fn([5], |[i]| 1.0 + i as f64 * 1e-3);
    let (mut got, mut want) = (Array::zeros([5]), Array::zeros([5]));
    power.apply(&[&u], &mut [&mut got], &[]);
    cnda::stencil!(|u| powi(u[0], 1000) + powi(u[0], -1001)).apply(&u, &mut want, ());
    assert_eq!(got, want);
}

/// Random expression data over two fields of one axis: nodes of every kind in a random order.
fn expression() -> impl Strategy<Value = (Vec<Node>, Vec<usize>)> {
    let step = (0u8..12, any::<u16>(), any::<u16>(), any::<u16>(), -3i32..4, -2.0..2.0f64);
    proptest::collection::vec(step, 1..40).prop_map(|steps| {
        // Start with the four taps and both parameters, then numbers and conditions as drawn.
        let mut nodes = vec![Node::Tap(0), Node::Tap(1), Node::Tap(2), Node::Tap(3), Node::Param(0), Node::Param(1)];
        let mut numbers: Vec<usize> = (0..6).collect();
        let mut conditions: Vec<usize> = Vec::new();
        for (kind, a, b, c, n, x) in steps {
            let num = |i: u16| numbers[i as usize % numbers.len()];
            let (node, condition) = match kind {
                0 => (Node::Lit(Lit::new(x)), false),
                1 => (Node::Binary(Binary::Add, num(a), num(b)), false),
                2 => (Node::Binary(Binary::Mul, num(a), num(b)), false),
                3 => (Node::Binary(Binary::Div, num(a), num(b)), false),
                4 => (Node::Binary([Binary::Sub, Binary::Min, Binary::Max][c as usize % 3], num(a), num(b)), false),
                5 => (
                    Node::Unary(
                        [Unary::Neg, Unary::Sqrt, Unary::Exp, Unary::Abs, Unary::Floor, Unary::Flush, Unary::Sin]
                            [c as usize % 7],
                        num(a),
                    ),
                    false,
                ),
                6 => (Node::Powi(num(a), n), false),
                7 | 8 => {
                    let ops = [Binary::Lt, Binary::Le, Binary::Gt, Binary::Ge, Binary::Eq, Binary::Ne];
                    (Node::Binary(ops[c as usize % 6], num(a), num(b)), true)
                }
                9 if !conditions.is_empty() => {
                    let cond = conditions[c as usize % conditions.len()];
                    (Node::Select(cond, num(a), num(b)), false)
                }
                10 if !conditions.is_empty() => {
                    let (p, q) = (conditions[a as usize % conditions.len()], conditions[b as usize % conditions.len()]);
                    (Node::Binary(if c % 2 == 0 { Binary::And } else { Binary::Or }, p, q), true)
                }
                11 if !conditions.is_empty() => {
                    (Node::Unary(Unary::Not, conditions[a as usize % conditions.len()]), true)
                }
                _ => (Node::Binary(Binary::Sub, num(a), num(b)), false),
            };
            nodes.push(node);
            let at = nodes.len() - 1;
            if condition {
                conditions.push(at)
            } else {
                numbers.push(at)
            }
        }
        let values = vec![*numbers.last().unwrap(), numbers[numbers.len() / 2]];
        (nodes, values)
    })
}

struct PointTaps<'a, T: cnda::stencil::Scalar> {
    fields: [&'a Array<T, 1>; 2],
    taps: &'a [Tap<1>],
    at: usize,
}

impl<T: cnda::stencil::Scalar> TapReader<T> for PointTaps<'_, T> {
    fn tap(&self, k: usize) -> T {
        let t = self.taps[k];
        self.fields[t.field][[(self.at as isize + t.offset[0]) as usize]]
    }
}

#[derive(Clone, Copy)]
struct Two<T>(T, T);

impl<T: Copy + Send + Sync> StencilParams<T> for Two<T> {
    const LEN: usize = 2;
    fn get(&self, i: usize) -> T {
        [self.0, self.1][i]
    }
}

/// `expr` over fields `u`, `v` (taps at -1..=2 around points 1..=len) by the CPU's kernel for
/// data, into outputs whose points are `stride` apart (1: compiled rows where the element type
/// has them; else the block interpreter), against the reference interpreter, bit for bit.
fn check_kernel<T: cnda::stencil::Scalar + Bits>(
    expr: &CheckedExpr<1>,
    u: &Array<T, 1>,
    v: &Array<T, 1>,
    params: [T; 2],
) -> Result<(), TestCaseError> {
    use cnda::kernel::{Cpu, ExprStencilKernels};
    use cnda::ops::operand::{AsOperand, AsOperandMut};
    use cnda::stencil::ExprData;
    let data = ExprData::new(expr.clone());
    let len = u.len() - 3;
    for stride in [1usize, 3] {
        let mut outs = [Array::<T, 1>::zeros([len * stride]), Array::zeros([len * stride])];
        {
            let [o0, o1] = &mut outs;
            let mut o0 = o0.slice_mut(s![..; stride as isize]);
            let mut o1 = o1.slice_mut(s![..; stride as isize]);
            let fields =
                [u.slice(s![1..1 + len as isize]).operand_desc(), v.slice(s![1..1 + len as isize]).operand_desc()];
            // SAFETY: every tap of every point (offsets -1..=2 from 1..1 + len) lies inside
            // the fields' arrays of len + 3; the outputs are distinct arrays.
            unsafe {
                Cpu::expression_data::<T, 1>(
                    &Cpu,
                    &data,
                    &[o0.operand_desc_mut(), o1.operand_desc_mut()],
                    &fields,
                    &params,
                )
                .unwrap()
            };
        }
        for i in 0..len {
            let want =
                expr.eval(&PointTaps { fields: [u, v], taps: expr.taps(), at: i + 1 }, &Two(params[0], params[1]));
            for m in 0..2 {
                let got = outs[m][[i * stride]];
                prop_assert!(
                    got.to_bits_u64() == want[m].to_bits_u64() || got.is_nan() && want[m].is_nan(),
                    "stride {} point {} value {}: {:?} != {:?}",
                    stride,
                    i,
                    m,
                    got,
                    want[m]
                );
            }
        }
    }
    Ok(())
}

/// The bits of a float, widened.
trait Bits {
    fn to_bits_u64(self) -> u64;
}

impl Bits for f64 {
    fn to_bits_u64(self) -> u64 {
        self.to_bits()
    }
}

impl Bits for f32 {
    fn to_bits_u64(self) -> u64 {
        self.to_bits().into()
    }
}

impl Bits for half::f16 {
    fn to_bits_u64(self) -> u64 {
        self.to_bits().into()
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// The CPU's kernels for data (compiled rows along contiguous lanes, the block interpreter
    /// along strided ones and for 16-bit elements) against the reference interpreter, bit for
    /// bit (NaNs alike), over lanes longer than a block, in f64, f32 and f16.
    #[test]
    fn the_kernels_for_data_equal_the_reference((nodes, values) in expression(), len in 1usize..700, seed in any::<u64>(), a in -2.0..2.0f64, b in -2.0..2.0f64) {
        let taps = vec![Tap { field: 0, offset: [-1] }, Tap { field: 1, offset: [0] }, Tap { field: 0, offset: [2] }, Tap { field: 1, offset: [1] }];
        let expr = CheckedExpr::from_outputs("test", 2, 2, taps, nodes, values).unwrap();
        // Signed zeros, infinities, NaNs and subnormals among the values, where `min`, `max`,
        // comparisons and `flush` differ most.
        let special = [0.0, -0.0, f64::INFINITY, f64::NEG_INFINITY, f64::NAN, 1e-310, -1e-40];
        let salt = |a: Array<f64, 1>, s: u64| a.map(|x| if (x.to_bits() ^ s) % 5 == 0 { special[(x.to_bits() % 7) as usize] } else { x });
        let (u, v) = (salt(field([len + 3], seed), seed), salt(field([len + 3], seed ^ 1), seed ^ 1));
        check_kernel(&expr, &u, &v, [a, b])?;
        check_kernel(&expr, &u.map(|x| x as f32), &v.map(|x| x as f32), [a as f32, b as f32])?;
        let small = |x: f64| half::f16::from_f64(x);
        check_kernel(&expr, &u.map(small), &v.map(small), [small(a), small(b)])?;
    }
}
