//! Integer instructions against host arithmetic: one table per family, every pair of a set of
//! edge values (zero, one, minus one, extremes, powers of two, mixed bits).

use cuda_sim::interp::int::{add_carry, bfi, int_bin, int_un, mad, wide};
use cuda_sim::ptx::ir::{IntK, IntUnK, Ty};

const VALUES: [u64; 14] = [
    0,
    1,
    2,
    3,
    7,
    31,
    0x7f,
    0x8000,
    0x7fff_ffff,
    0x8000_0000,
    0xffff_ffff,
    0x1234_5678_9abc_def0,
    0x8000_0000_0000_0000,
    u64::MAX,
];

fn pairs() -> impl Iterator<Item = (u64, u64)> {
    VALUES.iter().flat_map(|&a| VALUES.iter().map(move |&b| (a, b)))
}

#[test]
fn add_sub_mul_and_logic_on_32_bits_match_the_host() {
    type Host = fn(u32, u32) -> u32;
    let table: [(IntK, Host); 7] = [
        (IntK::Add, u32::wrapping_add),
        (IntK::Sub, u32::wrapping_sub),
        (IntK::MulLo, u32::wrapping_mul),
        (IntK::And, |a, b| a & b),
        (IntK::Or, |a, b| a | b),
        (IntK::Xor, |a, b| a ^ b),
        (IntK::Shl, |a, b| if b >= 32 { 0 } else { a << b }),
    ];
    for (k, host) in table {
        for (a, b) in pairs() {
            for ty in [Ty::U32, Ty::S32, Ty::B32] {
                assert_eq!(int_bin(k, ty, a, b), u64::from(host(a as u32, b as u32)), "{k:?}.{ty:?} {a:#x} {b:#x}");
            }
        }
    }
}

#[test]
fn signed_and_unsigned_division_min_max_and_shifts_match_the_host() {
    for (a, b) in pairs() {
        let (sa, sb, ua, ub) = (a as i32, b as i32, a as u32, b as u32);
        let q = |ty, k| int_bin(k, ty, a, b);
        if sb != 0 {
            assert_eq!(q(Ty::S32, IntK::Div), sa.wrapping_div(sb) as u32 as u64, "div.s32 {sa} {sb}");
            assert_eq!(q(Ty::S32, IntK::Rem), sa.wrapping_rem(sb) as u32 as u64, "rem.s32 {sa} {sb}");
            assert_eq!(q(Ty::U32, IntK::Div), u64::from(ua / ub));
            assert_eq!(q(Ty::U32, IntK::Rem), u64::from(ua % ub));
        } else {
            assert_eq!(q(Ty::U32, IntK::Div), 0xffff_ffff, "division by zero gives all ones");
        }
        if b != 0 {
            assert_eq!(int_bin(IntK::Div, Ty::S64, a, b), (a as i64).wrapping_div(b as i64) as u64);
            assert_eq!(int_bin(IntK::Rem, Ty::U64, a, b), a % b);
        }
        assert_eq!(q(Ty::S32, IntK::Min), sa.min(sb) as u32 as u64);
        assert_eq!(q(Ty::S32, IntK::Max), sa.max(sb) as u32 as u64);
        assert_eq!(q(Ty::U32, IntK::Min), u64::from(ua.min(ub)));
        assert_eq!(int_bin(IntK::Max, Ty::S64, a, b), (a as i64).max(b as i64) as u64);
        assert_eq!(int_bin(IntK::Min, Ty::U64, a, b), a.min(b));
        let s = ub;
        assert_eq!(q(Ty::S32, IntK::Shr), (sa >> s.min(31)) as u32 as u64, "shr.s32 {sa} {s}");
        assert_eq!(q(Ty::U32, IntK::Shr), if s >= 32 { 0 } else { u64::from(ua >> s) });
        assert_eq!(int_bin(IntK::Shl, Ty::B64, a, b), if s >= 64 { 0 } else { a << s });
        assert_eq!(int_bin(IntK::MulHi, Ty::S32, a, b), ((i64::from(sa) * i64::from(sb)) >> 32) as u32 as u64);
        assert_eq!(int_bin(IntK::MulHi, Ty::U64, a, b), ((u128::from(a) * u128::from(b)) >> 64) as u64);
    }
}

#[test]
fn wide_products_and_mad_with_carry_match_128_bit_host_arithmetic() {
    for (a, b) in pairs() {
        assert_eq!(wide(Ty::U32, a, b, None), u64::from(a as u32) * u64::from(b as u32));
        assert_eq!(wide(Ty::S32, a, b, None), (i64::from(a as i32) * i64::from(b as i32)) as u64);
        assert_eq!(wide(Ty::S32, a, b, Some(5)), (i64::from(a as i32) * i64::from(b as i32)).wrapping_add(5) as u64);
        let p = u64::from(a as u32) * u64::from(b as u32);
        let (lo, c1) = mad(false, Ty::U32, a, b, 0xffff_ffff, false);
        let sum = u128::from(p as u32) + 0xffff_ffff;
        assert_eq!((lo, c1), (sum as u32 as u64, sum >> 32 != 0));
        let (hi, _) = mad(true, Ty::U32, a, b, 1, true);
        assert_eq!(hi, ((p >> 32) + 2) & 0xffff_ffff);
    }
    // A 128-bit addition as four add.cc/addc.cc limbs, as libdevice writes it.
    for (a, b) in pairs() {
        let (x, y) = ((u128::from(a) << 64) | u128::from(b), (u128::from(b) << 64) | u128::from(a.rotate_left(7)));
        let mut carry = false;
        let mut r = 0u128;
        for limb in 0..4 {
            let (v, c) = add_carry(false, Ty::U32, (x >> (32 * limb)) as u64, (y >> (32 * limb)) as u64, carry);
            r |= u128::from(v) << (32 * limb);
            carry = c;
        }
        assert_eq!(r, x.wrapping_add(y));
        let mut borrow = false;
        let mut r = 0u128;
        for limb in 0..4 {
            let (v, c) = add_carry(true, Ty::U32, (x >> (32 * limb)) as u64, (y >> (32 * limb)) as u64, borrow);
            r |= u128::from(v) << (32 * limb);
            borrow = c;
        }
        assert_eq!(r, x.wrapping_sub(y));
    }
}

#[test]
fn unary_ops_and_bit_field_insert_match_the_host() {
    for &a in &VALUES {
        assert_eq!(int_un(IntUnK::Not, Ty::B32, a), u64::from(!(a as u32)));
        assert_eq!(int_un(IntUnK::Neg, Ty::S32, a), (a as i32).wrapping_neg() as u32 as u64);
        assert_eq!(int_un(IntUnK::Abs, Ty::S64, a), (a as i64).wrapping_abs() as u64);
        assert_eq!(int_un(IntUnK::Clz, Ty::B64, a), u64::from(a.leading_zeros()));
        assert_eq!(int_un(IntUnK::Clz, Ty::B32, a), u64::from((a as u32).leading_zeros()));
        assert_eq!(int_un(IntUnK::Popc, Ty::B64, a), u64::from(a.count_ones()));
        for &b in &VALUES {
            for (pos, len) in [(0u64, 8u64), (32, 32), (4, 0), (60, 8), (70, 3), (0, 64)] {
                let want = if len == 0 || pos >= 64 {
                    b
                } else {
                    let len = len.min(64 - pos);
                    let m = if len == 64 { u64::MAX } else { ((1u64 << len) - 1) << pos };
                    (b & !m) | ((a << pos) & m)
                };
                assert_eq!(bfi(Ty::B64, a, b, pos, len), want, "bfi {a:#x} {b:#x} {pos} {len}");
            }
        }
    }
}
