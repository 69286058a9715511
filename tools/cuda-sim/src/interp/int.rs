//! Integer instructions: add/sub/mul/mad (lo, hi, wide, with carry), div/rem, bitwise, shifts,
//! min/max, not/neg/abs/clz/popc, bfi. Values are raw bits in a `u64`; results are masked to the
//! type's width (sign-extended values are re-masked).

use crate::ptx::ir::{IntK, IntUnK, Ty};

/// The low `bits` bits of all ones.
#[inline]
pub fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// `v`'s low `bits` bits, sign-extended.
#[inline]
pub fn sx(v: u64, bits: u32) -> i64 {
    if bits >= 64 {
        v as i64
    } else {
        let s = 64 - bits;
        ((v << s) as i64) >> s
    }
}

/// `v`'s low `bits` bits, zero-extended.
#[inline]
pub fn zx(v: u64, bits: u32) -> u64 {
    v & mask(bits)
}

/// A binary integer operation of type `ty` (`Pred` for predicate logic).
pub fn int_bin(k: IntK, ty: Ty, a: u64, b: u64) -> u64 {
    let bits = ty.bits();
    let m = mask(bits);
    let signed = ty.signed();
    let r = match k {
        IntK::Add => a.wrapping_add(b),
        IntK::Sub => a.wrapping_sub(b),
        IntK::MulLo => a.wrapping_mul(b),
        IntK::MulHi => {
            if signed {
                ((sx(a, bits) as i128 * sx(b, bits) as i128) >> bits) as u64
            } else {
                ((zx(a, bits) as u128 * zx(b, bits) as u128) >> bits) as u64
            }
        }
        IntK::Div => {
            if zx(b, bits) == 0 {
                m
            } else if signed {
                sx(a, bits).wrapping_div(sx(b, bits)) as u64
            } else {
                zx(a, bits) / zx(b, bits)
            }
        }
        IntK::Rem => {
            if zx(b, bits) == 0 {
                a
            } else if signed {
                sx(a, bits).wrapping_rem(sx(b, bits)) as u64
            } else {
                zx(a, bits) % zx(b, bits)
            }
        }
        IntK::And => a & b,
        IntK::Or => a | b,
        IntK::Xor => a ^ b,
        IntK::Shl => {
            let s = zx(b, 32);
            if s >= bits as u64 {
                0
            } else {
                a << s
            }
        }
        IntK::Shr => {
            let s = zx(b, 32);
            if signed {
                (sx(a, bits) >> s.min(bits as u64 - 1)) as u64
            } else if s >= bits as u64 {
                0
            } else {
                zx(a, bits) >> s
            }
        }
        IntK::Min | IntK::Max => {
            let less = if signed { sx(a, bits) < sx(b, bits) } else { zx(a, bits) < zx(b, bits) };
            if less == (k == IntK::Min) {
                a
            } else {
                b
            }
        }
    };
    r & m
}

/// A unary integer operation.
pub fn int_un(k: IntUnK, ty: Ty, a: u64) -> u64 {
    let bits = ty.bits();
    let m = mask(bits);
    match k {
        IntUnK::Not => !a & m,
        IntUnK::Neg => a.wrapping_neg() & m,
        IntUnK::Abs => sx(a, bits).wrapping_abs() as u64 & m,
        IntUnK::Clz => u64::from(zx(a, bits).leading_zeros() - (64 - bits)),
        IntUnK::Popc => u64::from(zx(a, bits).count_ones()),
    }
}

/// `mul.wide` (`c` is `None`) and `mad.wide`: `ty` is the source type; the result has twice its
/// width.
pub fn wide(ty: Ty, a: u64, b: u64, c: Option<u64>) -> u64 {
    let bits = ty.bits();
    let p = if ty.signed() { (sx(a, bits) * sx(b, bits)) as u64 } else { zx(a, bits) * zx(b, bits) };
    p.wrapping_add(c.unwrap_or(0)) & mask(2 * bits)
}

/// `mad.lo`/`mad.hi` with optional carry in and out: (result, carry out).
pub fn mad(hi: bool, ty: Ty, a: u64, b: u64, c: u64, carry_in: bool) -> (u64, bool) {
    let bits = ty.bits();
    let p = if ty.signed() {
        (sx(a, bits) as i128 * sx(b, bits) as i128) as u128
    } else {
        zx(a, bits) as u128 * zx(b, bits) as u128
    };
    let part = if hi { (p >> bits) as u64 & mask(bits) } else { p as u64 & mask(bits) };
    let sum = part as u128 + zx(c, bits) as u128 + u128::from(carry_in);
    (sum as u64 & mask(bits), sum >> bits != 0)
}

/// `add.cc`/`addc`/`sub.cc`/`subc`: (result, carry or borrow out).
pub fn add_carry(sub: bool, ty: Ty, a: u64, b: u64, carry_in: bool) -> (u64, bool) {
    let bits = ty.bits();
    let (a, b, c) = (zx(a, bits) as u128, zx(b, bits) as u128, u128::from(carry_in));
    if sub {
        let r = a.wrapping_sub(b + c);
        (r as u64 & mask(bits), a < b + c)
    } else {
        let r = a + b + c;
        (r as u64 & mask(bits), r >> bits != 0)
    }
}

/// `bfi`: `b` with the `len` bits at `pos` replaced by the low bits of `a`.
pub fn bfi(ty: Ty, a: u64, b: u64, pos: u64, len: u64) -> u64 {
    let bits = ty.bits() as u64;
    let (pos, len) = (pos & 0xff, len & 0xff);
    if len == 0 || pos >= bits {
        return zx(b, bits as u32);
    }
    let len = len.min(bits - pos);
    let field = mask(len as u32) << pos;
    ((b & !field) | ((a << pos) & field)) & mask(bits as u32)
}
