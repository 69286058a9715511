//! `cvt`: integer widening, narrowing and saturation; float to float (f16 and bf16 through the
//! `half` crate, so conversions are bit-equal to the host's); float to integer with `.rni`,
//! `.rzi`, `.rmi`, `.rpi` (NaN to 0, saturating); integer to float (nearest); `.sat` and `.ftz`.

use half::{bf16, f16};

use super::float::ftz32;
use super::int::{mask, sx, zx};
use crate::ptx::ir::{CvtRnd, Rnd, Ty};

/// A float source as f64 (exact for every source type).
fn float_in(st: Ty, a: u64, ftz: bool) -> f64 {
    match st {
        Ty::F16 => f16::from_bits(a as u16).to_f64(),
        Ty::BF16 => bf16::from_bits(a as u16).to_f64(),
        Ty::F32 => {
            let x = f32::from_bits(a as u32);
            f64::from(if ftz { ftz32(x) } else { x })
        }
        _ => f64::from_bits(a),
    }
}

fn round_int(x: f64, rnd: Rnd) -> f64 {
    match rnd {
        Rnd::Rz => x.trunc(),
        Rnd::Rm => x.floor(),
        Rnd::Rp => x.ceil(),
        _ => x.round_ties_even(),
    }
}

fn int_range(t: Ty) -> (i128, i128) {
    let bits = t.bits();
    if t.signed() {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    }
}

/// `cvt.rnd.sat.ftz.dt.st d, a` on raw bits.
pub fn cvt(dt: Ty, st: Ty, rnd: CvtRnd, sat: bool, ftz: bool, a: u64) -> u64 {
    match (dt.float(), st.float()) {
        (false, false) => {
            let v: i128 = if st.signed() { sx(a, st.bits()) as i128 } else { zx(a, st.bits()) as i128 };
            let v = if sat {
                let (lo, hi) = int_range(dt);
                v.clamp(lo, hi)
            } else {
                v
            };
            v as u64 & mask(dt.bits())
        }
        (false, true) => {
            let x = float_in(st, a, ftz);
            let r = match rnd {
                CvtRnd::Int(r) => r,
                _ => Rnd::Rz,
            };
            if x.is_nan() {
                return 0;
            }
            let (lo, hi) = int_range(dt);
            let v = round_int(x, r);
            let v = if v <= lo as f64 {
                lo
            } else if v >= hi as f64 {
                hi
            } else {
                v as i128
            };
            v as u64 & mask(dt.bits())
        }
        (true, false) => {
            let v: i128 = if st.signed() { sx(a, st.bits()) as i128 } else { zx(a, st.bits()) as i128 };
            match dt {
                Ty::F32 => u64::from((if st.signed() { v as i64 as f32 } else { v as u64 as f32 }).to_bits()),
                Ty::F64 => (if st.signed() { v as i64 as f64 } else { v as u64 as f64 }).to_bits(),
                Ty::F16 => u64::from(f16::from_f64(v as f64).to_bits()),
                _ => u64::from(bf16::from_f64(v as f64).to_bits()),
            }
        }
        (true, true) => {
            let x = float_in(st, a, ftz);
            let x = match rnd {
                CvtRnd::Int(r) => round_int(x, r),
                _ => x,
            };
            let x = if sat {
                if x.is_nan() {
                    0.0
                } else {
                    x.clamp(0.0, 1.0)
                }
            } else {
                x
            };
            match dt {
                Ty::F64 => x.to_bits(),
                Ty::F32 => {
                    let y = x as f32;
                    u64::from(if ftz { ftz32(y) } else { y }.to_bits())
                }
                // From an f32 source, round from f32 (as the half crate does), never twice.
                Ty::F16 if st == Ty::F32 => u64::from(f16::from_f32(x as f32).to_bits()),
                Ty::F16 => u64::from(f16::from_f64(x).to_bits()),
                Ty::BF16 if st == Ty::F32 => u64::from(bf16::from_f32(x as f32).to_bits()),
                _ => u64::from(bf16::from_f64(x).to_bits()),
            }
        }
    }
}
