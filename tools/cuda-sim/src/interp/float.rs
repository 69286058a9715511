//! Float instructions on f32 and f64: add/sub/mul/div/fma with IEEE rounding (`.rn` from the
//! host's correctly rounded arithmetic; `.rz`, `.rm`, `.rp` by correcting the nearest result
//! with the sign of its exact error), min/max/copysign, abs/neg, sqrt/rcp/ex2, `.ftz` and
//! `.sat`, and the ordered/unordered comparisons of `setp`.
//!
//! `.approx` operations return the correctly rounded (or libm) result: at least as accurate as
//! the GPU's, not bit-equal to it.

use crate::ptx::ir::{Cmp, FUnK, Rnd, FK};

/// Flushes an f32 subnormal to a zero of its sign.
#[inline]
pub fn ftz32(x: f32) -> f32 {
    if x.is_subnormal() {
        0.0f32.copysign(x)
    } else {
        x
    }
}

#[inline]
fn ftz64(x: f64) -> f64 {
    if x.is_subnormal() {
        0.0f64.copysign(x)
    } else {
        x
    }
}

/// Error-free sum: (s, e) with s = fl(a + b) and a + b = s + e exactly.
#[inline]
fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

/// What the rounding and min/max helpers need of f32 and f64, written once for both.
trait Ieee: Copy + PartialOrd + core::ops::Neg<Output = Self> {
    const NAN: Self;
    const ZERO: Self;
    /// The next representable value toward +infinity (NaN and +infinity stay; zeros step to the
    /// smallest subnormal), as `f64::next_up`, which needs a newer Rust than this crate's MSRV.
    fn next_up(self) -> Self;
    fn is_nan(self) -> bool;
    fn is_sign_negative(self) -> bool;
    /// The next representable value toward -infinity.
    fn next_down(self) -> Self {
        -(-self).next_up()
    }
}

macro_rules! ieee {
    ($($F:ty),*) => {$(
        impl Ieee for $F {
            const NAN: Self = <$F>::NAN;
            const ZERO: Self = 0.0;
            fn next_up(self) -> Self {
                if self.is_nan() || self == <$F>::INFINITY {
                    return self;
                }
                if self == 0.0 {
                    return <$F>::from_bits(1);
                }
                let b = self.to_bits();
                <$F>::from_bits(if self > 0.0 { b + 1 } else { b - 1 })
            }
            fn is_nan(self) -> bool {
                <$F>::is_nan(self)
            }
            fn is_sign_negative(self) -> bool {
                <$F>::is_sign_negative(self)
            }
        }
    )*};
}
ieee!(f32, f64);

/// The result of rounding mode `rnd` from the nearest result `r` and the sign of `exact - r`.
fn direct<F: Ieee>(r: F, err: f64, rnd: Rnd) -> F {
    let zero = F::ZERO;
    match rnd {
        Rnd::Rn | Rnd::Approx => r,
        Rnd::Rz if (err < 0.0 && r > zero) || (err > 0.0 && r < zero) => {
            if r > zero {
                r.next_down()
            } else {
                r.next_up()
            }
        }
        Rnd::Rz => r,
        Rnd::Rm if err < 0.0 => r.next_down(),
        Rnd::Rp if err > 0.0 => r.next_up(),
        _ => r,
    }
}

/// The sign of `exact - r` where the exact value is `hi + lo` (f64s, `lo` tiny against `hi`)
/// and `r` an f32 rounding of it; an overflow to infinity counts as an error toward zero.
fn err32(hi: f64, lo: f64, r: f32) -> f64 {
    if r.is_infinite() && hi.is_finite() {
        return -f64::from(r.signum());
    }
    (hi - f64::from(r)) + lo
}

/// A zero result of `a + b` with both nonzero and of opposite signs is -0 under `.rm`.
fn zero_sign32(r: f32, rnd: Rnd) -> f32 {
    if r == 0.0 && rnd == Rnd::Rm {
        -0.0
    } else {
        r
    }
}

/// PTX's `min`/`max`: a NaN operand yields the other; -0 is below +0.
fn minmax<F: Ieee>(min: bool, a: F, b: F) -> F {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => F::NAN,
        (true, false) => b,
        (false, true) => a,
        _ => {
            let a_first = if a == b { a.is_sign_negative() == min } else { (a < b) == min };
            if a_first {
                a
            } else {
                b
            }
        }
    }
}

fn sat32(x: f32) -> f32 {
    if x.is_nan() {
        0.0
    } else {
        x.clamp(0.0, 1.0)
    }
}

/// A binary f32 operation.
pub fn fbin32(k: FK, rnd: Rnd, ftz: bool, sat: bool, a: f32, b: f32) -> f32 {
    let (a, b) = if ftz { (ftz32(a), ftz32(b)) } else { (a, b) };
    let r = match k {
        FK::Add | FK::Sub => {
            let b = if k == FK::Sub { -b } else { b };
            let r = a + b;
            if r == 0.0 && a != 0.0 && b != 0.0 && a.is_sign_negative() != b.is_sign_negative() {
                zero_sign32(r, rnd)
            } else {
                let (hi, lo) = two_sum(f64::from(a), f64::from(b));
                direct(r, err32(hi, lo, r), rnd)
            }
        }
        FK::Mul => {
            let r = a * b;
            direct(r, err32(f64::from(a) * f64::from(b), 0.0, r), rnd)
        }
        FK::Div => a / b,
        FK::Min => minmax(true, a, b),
        FK::Max => minmax(false, a, b),
        FK::CopySign => b.copysign(a),
    };
    let r = if ftz { ftz32(r) } else { r };
    if sat {
        sat32(r)
    } else {
        r
    }
}

/// A binary f64 operation.
pub fn fbin64(k: FK, rnd: Rnd, a: f64, b: f64) -> f64 {
    match k {
        FK::Add | FK::Sub => {
            let b = if k == FK::Sub { -b } else { b };
            let (r, e) = two_sum(a, b);
            if r == 0.0 && a != 0.0 && b != 0.0 && a.is_sign_negative() != b.is_sign_negative() {
                return if rnd == Rnd::Rm { -0.0 } else { r };
            }
            let e = if r.is_infinite() && a.is_finite() && b.is_finite() { -r.signum() } else { e };
            direct(r, e, rnd)
        }
        FK::Mul => {
            let r = a * b;
            let e = if r.is_infinite() && a.is_finite() && b.is_finite() { -r.signum() } else { a.mul_add(b, -r) };
            direct(r, e, rnd)
        }
        FK::Div => a / b,
        FK::Min => minmax(true, a, b),
        FK::Max => minmax(false, a, b),
        FK::CopySign => b.copysign(a),
    }
}

/// `fma` on f32: `a * b + c` rounded once.
pub fn fma32(rnd: Rnd, ftz: bool, sat: bool, a: f32, b: f32, c: f32) -> f32 {
    let (a, b, c) = if ftz { (ftz32(a), ftz32(b), ftz32(c)) } else { (a, b, c) };
    let r = a.mul_add(b, c);
    let r = if rnd == Rnd::Rn || r.is_nan() {
        r
    } else {
        let p = f64::from(a) * f64::from(b);
        let (hi, lo) = two_sum(p, f64::from(c));
        if r == 0.0 && hi == 0.0 && lo == 0.0 && p != 0.0 {
            zero_sign32(r, rnd)
        } else {
            direct(r, err32(hi, lo, r), rnd)
        }
    };
    let r = if ftz { ftz32(r) } else { r };
    if sat {
        sat32(r)
    } else {
        r
    }
}

/// `fma.rn` on f64.
pub fn fma64(a: f64, b: f64, c: f64) -> f64 {
    a.mul_add(b, c)
}

/// A unary f32 operation.
pub fn fun32(k: FUnK, ftz: bool, a: f32) -> f32 {
    let a = if ftz { ftz32(a) } else { a };
    let r = match k {
        FUnK::Abs => f32::from_bits(a.to_bits() & 0x7fff_ffff),
        FUnK::Neg => f32::from_bits(a.to_bits() ^ 0x8000_0000),
        FUnK::Sqrt => a.sqrt(),
        FUnK::Rcp => 1.0 / a,
        FUnK::Rsqrt => 1.0 / a.sqrt(),
        FUnK::Ex2 => a.exp2(),
    };
    if ftz {
        ftz32(r)
    } else {
        r
    }
}

/// A unary f64 operation (`.ftz` flushes f64 subnormals, as `rcp.approx.ftz.f64` does).
pub fn fun64(k: FUnK, ftz: bool, a: f64) -> f64 {
    let a = if ftz { ftz64(a) } else { a };
    let r = match k {
        FUnK::Abs => f64::from_bits(a.to_bits() & 0x7fff_ffff_ffff_ffff),
        FUnK::Neg => f64::from_bits(a.to_bits() ^ 0x8000_0000_0000_0000),
        FUnK::Sqrt => a.sqrt(),
        FUnK::Rcp => 1.0 / a,
        FUnK::Rsqrt => 1.0 / a.sqrt(),
        FUnK::Ex2 => a.exp2(),
    };
    if ftz {
        ftz64(r)
    } else {
        r
    }
}

/// A float comparison (f32 operands compare exactly as f64).
pub fn fcmp(cmp: Cmp, a: f64, b: f64) -> bool {
    let unordered = a.is_nan() || b.is_nan();
    match cmp {
        Cmp::Eq => !unordered && a == b,
        Cmp::Ne => !unordered && a != b,
        Cmp::Lt => !unordered && a < b,
        Cmp::Le => !unordered && a <= b,
        Cmp::Gt => !unordered && a > b,
        Cmp::Ge => !unordered && a >= b,
        Cmp::Equ => unordered || a == b,
        Cmp::Neu => unordered || a != b,
        Cmp::Ltu => unordered || a < b,
        Cmp::Leu => unordered || a <= b,
        Cmp::Gtu => unordered || a > b,
        Cmp::Geu => unordered || a >= b,
        Cmp::Num => !unordered,
        Cmp::Nan => unordered,
    }
}
