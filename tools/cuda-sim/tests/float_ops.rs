//! Float instructions against host arithmetic: round-to-nearest results equal the host's, and
//! the directed roundings (`.rz`, `.rm`, `.rp`) equal the exact result (computed in f64, where
//! the test's operands make it exact) rounded by an independent reference.

use cuda_sim::interp::float::{fbin32, fbin64, fcmp, fma32, fun32, fun64};
use cuda_sim::ptx::ir::{Cmp, FUnK, Rnd, FK};

const F32S: [f32; 16] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.1,
    -0.3,
    3.0,
    1.0e-3,
    7.5e3,
    -2.5e-2,
    1.0 / 3.0,
    16_777_217.0,
    1.1754944e-38,
    3.0e38,
    -3.0e38,
    2.0e-45,
];

/// `x` (exact, in f64) rounded to f32 by `rnd`, by comparing neighbours.
fn round_ref(x: f64, rnd: Rnd) -> f32 {
    let n = x as f32; // nearest
    if f64::from(n) == x || x.is_nan() {
        return n;
    }
    let (lo, hi) = if f64::from(n) < x { (n, next_up(n)) } else { (next_down(n), n) };
    match rnd {
        Rnd::Rz => {
            if x > 0.0 {
                lo
            } else {
                hi
            }
        }
        Rnd::Rm => lo,
        Rnd::Rp => hi,
        _ => n,
    }
}

fn next_up(x: f32) -> f32 {
    if x == f32::INFINITY {
        return x;
    }
    if x == 0.0 {
        return f32::from_bits(1);
    }
    f32::from_bits(if x > 0.0 { x.to_bits() + 1 } else { x.to_bits() - 1 })
}

fn next_down(x: f32) -> f32 {
    -next_up(-x)
}

#[test]
fn nearest_f32_and_f64_arithmetic_equals_the_host() {
    for &a in &F32S {
        for &b in &F32S {
            assert_eq!(fbin32(FK::Add, Rnd::Rn, false, false, a, b).to_bits(), (a + b).to_bits());
            assert_eq!(fbin32(FK::Sub, Rnd::Rn, false, false, a, b).to_bits(), (a - b).to_bits());
            assert_eq!(fbin32(FK::Mul, Rnd::Rn, false, false, a, b).to_bits(), (a * b).to_bits());
            let q = fbin32(FK::Div, Rnd::Rn, false, false, a, b);
            assert!(q.to_bits() == (a / b).to_bits() || (q.is_nan() && (a / b).is_nan()));
            assert_eq!(fma32(Rnd::Rn, false, false, a, b, 0.5).to_bits(), a.mul_add(b, 0.5).to_bits());
            let (x, y) = (f64::from(a) * 1.3, f64::from(b) - 0.7);
            assert_eq!(fbin64(FK::Add, Rnd::Rn, x, y).to_bits(), (x + y).to_bits());
            assert_eq!(fbin64(FK::Mul, Rnd::Rn, x, y).to_bits(), (x * y).to_bits());
        }
    }
}

#[test]
fn directed_f32_rounding_equals_the_exact_result_rounded() {
    // Operands within a few binades of each other, so their f64 sum and product are exact.
    let ops: Vec<f32> = (0..200).map(|k| ((k as f32) * 0.377 - 31.0) * (1.0 + (k % 7) as f32 * 1.0e-3)).collect();
    for &a in &ops {
        for &b in ops.iter().step_by(7) {
            for rnd in [Rnd::Rz, Rnd::Rm, Rnd::Rp] {
                let sum = f64::from(a) + f64::from(b);
                let got = fbin32(FK::Add, rnd, false, false, a, b);
                if sum != 0.0 {
                    assert_eq!(got.to_bits(), round_ref(sum, rnd).to_bits(), "add.{rnd:?} {a} {b}");
                }
                let prod = f64::from(a) * f64::from(b);
                assert_eq!(
                    fbin32(FK::Mul, rnd, false, false, a, b).to_bits(),
                    round_ref(prod, rnd).to_bits(),
                    "mul.{rnd:?}"
                );
                let c = 0.1f32;
                let exact = prod + f64::from(c); // exact: the product has <= 48 bits, c is close in scale
                if exact != 0.0 {
                    assert_eq!(
                        fma32(rnd, false, false, a, b, c).to_bits(),
                        round_ref(exact, rnd).to_bits(),
                        "fma.{rnd:?} {a} {b}"
                    );
                }
            }
        }
    }
    // Overflow: towards zero stays finite, away from it goes to infinity.
    assert_eq!(fbin32(FK::Mul, Rnd::Rz, false, false, 3.0e38, 10.0), f32::MAX);
    assert_eq!(fbin32(FK::Mul, Rnd::Rp, false, false, 3.0e38, 10.0), f32::INFINITY);
    assert_eq!(fbin32(FK::Mul, Rnd::Rm, false, false, 3.0e38, 10.0), f32::MAX);
    // x - x is -0 only when rounding down.
    assert!(fbin32(FK::Sub, Rnd::Rm, false, false, 1.5, 1.5).is_sign_negative());
    assert!(fbin32(FK::Sub, Rnd::Rn, false, false, 1.5, 1.5).is_sign_positive());
    // f64 add.rz.
    let (a, b) = (1.0f64, 1.0e-20);
    assert_eq!(fbin64(FK::Add, Rnd::Rz, a, b), 1.0);
    assert_eq!(fbin64(FK::Add, Rnd::Rp, a, b), 1.0 + f64::EPSILON);
    assert_eq!(fbin64(FK::Add, Rnd::Rz, -a, -b), -1.0);
}

#[test]
fn min_max_copysign_abs_neg_and_flush_to_zero_follow_ptx() {
    let nan = f32::NAN;
    assert_eq!(fbin32(FK::Min, Rnd::Rn, false, false, nan, 2.0), 2.0, "min of NaN and x is x");
    assert_eq!(fbin32(FK::Max, Rnd::Rn, false, false, 2.0, nan), 2.0);
    assert!(fbin32(FK::Max, Rnd::Rn, false, false, nan, nan).is_nan());
    assert!(fbin32(FK::Min, Rnd::Rn, false, false, 0.0, -0.0).is_sign_negative(), "-0 < +0");
    assert!(fbin32(FK::Max, Rnd::Rn, false, false, -0.0, 0.0).is_sign_positive());
    // copysign.f32 d, a, b: b's magnitude with a's sign.
    assert_eq!(fbin32(FK::CopySign, Rnd::Rn, false, false, -1.0, 3.0), -3.0);
    assert_eq!(fbin64(FK::CopySign, Rnd::Rn, 1.0, -3.0), 3.0);
    assert_eq!(fun32(FUnK::Abs, false, -nan).to_bits(), nan.to_bits() & 0x7fff_ffff);
    assert_eq!(fun32(FUnK::Neg, false, 0.0).to_bits(), 0x8000_0000);
    let tiny = f32::from_bits(1);
    assert_eq!(fbin32(FK::Add, Rnd::Rn, true, false, tiny, 0.0).to_bits(), 0, ".ftz flushes subnormals");
    assert_eq!(fbin32(FK::Add, Rnd::Rn, false, false, tiny, 0.0).to_bits(), 1);
    assert_eq!(fbin32(FK::Add, Rnd::Rn, false, true, 0.75, 0.5), 1.0, ".sat clamps to [0, 1]");
    assert_eq!(fbin32(FK::Mul, Rnd::Rn, false, true, nan, 1.0), 0.0, ".sat turns NaN into 0");
    assert_eq!(fun32(FUnK::Sqrt, false, 2.0), 2.0f32.sqrt());
    assert_eq!(fun64(FUnK::Sqrt, false, 2.0), 2.0f64.sqrt());
    assert_eq!(fun64(FUnK::Rcp, true, 4.0), 0.25);
    assert_eq!(fun32(FUnK::Ex2, true, 3.0), 8.0);
}

#[test]
fn comparisons_are_ordered_or_unordered_as_named() {
    let nan = f64::NAN;
    let table = [
        (Cmp::Eq, 1.0, 1.0, true),
        (Cmp::Eq, nan, nan, false),
        (Cmp::Ne, 1.0, 2.0, true),
        (Cmp::Ne, nan, 1.0, false),
        (Cmp::Neu, nan, 1.0, true),
        (Cmp::Lt, 1.0, 2.0, true),
        (Cmp::Lt, nan, 2.0, false),
        (Cmp::Ltu, nan, 2.0, true),
        (Cmp::Le, 2.0, 2.0, true),
        (Cmp::Leu, 3.0, 2.0, false),
        (Cmp::Gt, -0.0, 0.0, false),
        (Cmp::Ge, -0.0, 0.0, true),
        (Cmp::Gtu, nan, 0.0, true),
        (Cmp::Geu, 1.0, 2.0, false),
        (Cmp::Equ, nan, 0.0, true),
        (Cmp::Num, 1.0, 2.0, true),
        (Cmp::Num, 1.0, nan, false),
        (Cmp::Nan, 1.0, nan, true),
        (Cmp::Nan, 1.0, 2.0, false),
    ];
    for (cmp, a, b, want) in table {
        assert_eq!(fcmp(cmp, a, b), want, "{cmp:?} {a} {b}");
    }
}
