//! `cvt` against the host: f16 and bf16 bit-equal to the `half` crate, float to integer with
//! each rounding (NaN to 0, saturating), integer widening and narrowing.

use cuda_sim::interp::cvt::cvt;
use cuda_sim::ptx::ir::{CvtRnd, Rnd, Ty};
use half::{bf16, f16};

#[test]
fn every_half_and_bfloat_widens_exactly() {
    for bits in 0..=u16::MAX {
        let h = f16::from_bits(bits).to_f32();
        let got = f32::from_bits(cvt(Ty::F32, Ty::F16, CvtRnd::None, false, false, u64::from(bits)) as u32);
        assert!(got.to_bits() == h.to_bits() || (got.is_nan() && h.is_nan()), "f16 {bits:#x}");
        let b = bf16::from_bits(bits).to_f32();
        let got = f32::from_bits(cvt(Ty::F32, Ty::BF16, CvtRnd::None, false, false, u64::from(bits)) as u32);
        assert!(got.to_bits() == b.to_bits() || (got.is_nan() && b.is_nan()), "bf16 {bits:#x}");
    }
}

#[test]
fn narrowing_to_half_and_bfloat_is_bit_equal_to_the_half_crate() {
    let mut x = 0x9E37_79B9u32;
    for k in 0..200_000u32 {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        // Random bit patterns, and values near halfway points of f16 and bf16.
        let v = if k % 2 == 0 { f32::from_bits(x) } else { f32::from_bits((x & 0xffff_e000) | 0x1000) };
        let rn = CvtRnd::Float(Rnd::Rn);
        let h = cvt(Ty::F16, Ty::F32, rn, false, false, u64::from(v.to_bits())) as u16;
        assert!(h == f16::from_f32(v).to_bits() || (v.is_nan() && f16::from_bits(h).is_nan()), "f16 of {v:e}");
        let b = cvt(Ty::BF16, Ty::F32, rn, false, false, u64::from(v.to_bits())) as u16;
        assert!(b == bf16::from_f32(v).to_bits() || (v.is_nan() && bf16::from_bits(b).is_nan()), "bf16 of {v:e}");
    }
}

#[test]
fn float_to_integer_rounds_as_named_and_saturates() {
    let f = |v: f32| u64::from(v.to_bits());
    let d = |v: f64| v.to_bits();
    let to_s32 = |r, v| cvt(Ty::S32, Ty::F32, CvtRnd::Int(r), false, false, f(v)) as u32 as i32;
    assert_eq!(to_s32(Rnd::Rz, -2.7), -2);
    assert_eq!(to_s32(Rnd::Rm, -2.2), -3);
    assert_eq!(to_s32(Rnd::Rp, 2.2), 3);
    assert_eq!(to_s32(Rnd::Rn, 2.5), 2, "ties to even");
    assert_eq!(to_s32(Rnd::Rn, 3.5), 4);
    assert_eq!(to_s32(Rnd::Rz, f32::NAN), 0);
    assert_eq!(to_s32(Rnd::Rz, 1e20), i32::MAX);
    assert_eq!(to_s32(Rnd::Rz, -1e20), i32::MIN);
    assert_eq!(cvt(Ty::U32, Ty::F64, CvtRnd::Int(Rnd::Rz), false, false, d(-5.0)), 0);
    assert_eq!(cvt(Ty::S64, Ty::F64, CvtRnd::Int(Rnd::Rn), false, false, d(-1e300)), i64::MIN as u64);
    let round = |r, v: f32| f32::from_bits(cvt(Ty::F32, Ty::F32, CvtRnd::Int(r), false, false, f(v)) as u32);
    assert_eq!(round(Rnd::Rz, -2.7), -2.0);
    assert_eq!(round(Rnd::Rm, -2.2), -3.0);
    assert_eq!(round(Rnd::Rp, 2.2), 3.0);
    assert_eq!(round(Rnd::Rn, 0.5), 0.0);
    let sat = f32::from_bits(cvt(Ty::F32, Ty::F32, CvtRnd::None, true, false, f(1.5)) as u32);
    assert_eq!(sat, 1.0);
    assert_eq!(cvt(Ty::F32, Ty::S32, CvtRnd::Float(Rnd::Rn), false, false, (-3i32) as u32 as u64), f(-3.0));
    assert_eq!(cvt(Ty::F64, Ty::S64, CvtRnd::Float(Rnd::Rn), false, false, (1u64 << 60) + 1), d((1u64 << 60) as f64));
    assert_eq!(cvt(Ty::F32, Ty::F64, CvtRnd::Float(Rnd::Rn), false, false, d(0.1)), f(0.1));
}

#[test]
fn integer_conversions_extend_by_the_source_sign_and_truncate() {
    assert_eq!(cvt(Ty::S64, Ty::S32, CvtRnd::None, false, false, 0xffff_fffe), (-2i64) as u64);
    assert_eq!(cvt(Ty::U64, Ty::U32, CvtRnd::None, false, false, 0xffff_fffe), 0xffff_fffe);
    assert_eq!(cvt(Ty::U32, Ty::U64, CvtRnd::None, false, false, 0x1_2345_6789), 0x2345_6789);
    assert_eq!(cvt(Ty::U32, Ty::U16, CvtRnd::None, false, false, 0xabcd_8001), 0x8001);
    assert_eq!(cvt(Ty::S32, Ty::S16, CvtRnd::None, false, false, 0x8001), 0xffff_8001);
    assert_eq!(cvt(Ty::U8, Ty::S32, CvtRnd::None, true, false, (-5i32) as u32 as u64), 0, ".sat clamps");
    assert_eq!(cvt(Ty::S8, Ty::S32, CvtRnd::None, true, false, 300), 127);
}
