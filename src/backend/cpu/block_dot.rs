//! Sums of products over blocks of unit-stride slices: the inner loop of the CPU's inner
//! products and sums of squares, written with pulp's vector types.
//!
//! Left to the compiler, a loop of scalar accumulators vectorizes poorly (the adds must keep
//! their order, and the vectorizer chose 2-wide registers and shuffles: about one product per
//! cycle). Here product `i` goes to accumulator `i % LANES`, the accumulators live in as many
//! vector registers as the instruction set needs (4 with AVX-512 in f64, 8 with AVX2, 32 scalars
//! in the baseline), and they are combined by halving (`k` with `k + width`). Every instruction
//! set adds the same numbers in the same order, so the sums agree bit for bit whichever runs.

use crate::element::{DType, Float};
use pulp::Simd;

/// Accumulators per block: enough independent adds to hide their latency behind two loads per
/// cycle, and a multiple of every instruction set's vector width.
pub(super) const LANES: usize = 32;

/// `Σ x[i] y[i]` over slices of equal length (as `LANES` interleaved sums, combined by halving).
#[inline(always)]
pub(super) fn block_dot<S: Simd, T: Float>(simd: S, x: &[T], y: &[T]) -> T {
    debug_assert_eq!(x.len(), y.len());
    // A constant branch per element type: the vector types are f32's and f64's.
    match T::DTYPE {
        DType::F64 => bytemuck::cast(dot_f64(simd, bytemuck::cast_slice(x), bytemuck::cast_slice(y))),
        DType::F32 => bytemuck::cast(dot_f32(simd, bytemuck::cast_slice(x), bytemuck::cast_slice(y))),
        _ => dot_scalar(x, y),
    }
}

/// [`block_dot`] in scalar code, for the element types without pulp vectors (`f16`, `bf16`), in
/// the same order.
#[inline(always)]
fn dot_scalar<T: Float>(x: &[T], y: &[T]) -> T {
    let mut lanes = [T::ZERO; LANES];
    for (a, b) in x.chunks(LANES).zip(y.chunks(LANES)) {
        for (k, (&p, &q)) in a.iter().zip(b).enumerate() {
            lanes[k] = lanes[k] + p * q;
        }
    }
    halve(lanes)
}

/// The accumulators' total: lane `k` plus lane `k + width` for halving widths, as a vector
/// register's reduction adds them.
#[inline(always)]
fn halve<T: Float>(mut lanes: [T; LANES]) -> T {
    let mut width = LANES;
    while width > 1 {
        width /= 2;
        for k in 0..width {
            lanes[k] = lanes[k] + lanes[k + width];
        }
    }
    lanes[0]
}

macro_rules! dot_in {
    ($name:ident, $t:ty, $lanes:ident, $as_simd:ident, $splat:ident, $add:ident, $mul:ident) => {
        #[inline(always)]
        fn $name<S: Simd>(simd: S, x: &[$t], y: &[$t]) -> $t {
            // Vectors per group of LANES elements (a compile-time constant per instruction set).
            let group = LANES / S::$lanes;
            let whole = x.len() / LANES * LANES;
            let (xv, _) = S::$as_simd(&x[..whole]);
            let (yv, _) = S::$as_simd(&y[..whole]);
            let mut acc = [simd.$splat(0.0); LANES];
            for (a, b) in xv.chunks_exact(group).zip(yv.chunks_exact(group)) {
                for g in 0..group {
                    acc[g] = simd.$add(acc[g], simd.$mul(a[g], b[g]));
                }
            }
            let mut lanes = [0.0; LANES];
            lanes.copy_from_slice(&bytemuck::cast_slice::<_, $t>(&acc[..group]));
            for (k, (&p, &q)) in x[whole..].iter().zip(&y[whole..]).enumerate() {
                lanes[k] += p * q;
            }
            halve(lanes)
        }
    };
}

dot_in!(dot_f64, f64, F64_LANES, as_simd_f64s, splat_f64s, add_f64s, mul_f64s);
dot_in!(dot_f32, f32, F32_LANES, as_simd_f32s, splat_f32s, add_f32s, mul_f32s);

#[cfg(test)]
mod tests {
    use super::{block_dot, dot_scalar};
    use crate::backend::cpu::simd::Isa;

    struct Dot<'a, T>(&'a [T], &'a [T]);

    impl<T: crate::element::Float> pulp::WithSimd for Dot<'_, T> {
        type Output = T;
        #[inline(always)]
        fn with_simd<S: pulp::Simd>(self, simd: S) -> T {
            block_dot(simd, self.0, self.1)
        }
    }

    /// Every instruction set this CPU has gives the scalar order's sum bit for bit, at every
    /// length around the accumulator count, in both precisions; and the sum is the exact one to
    /// rounding.
    #[test]
    fn every_instruction_set_sums_in_the_same_order() {
        for len in [0, 1, 7, 31, 32, 33, 64, 95, 511, 512, 513] {
            let x: Vec<f64> = (0..len).map(|i| ((i * 37) % 101) as f64 * 0.013 - 0.6).collect();
            let y: Vec<f64> = (0..len).map(|i| ((i * 11) % 23) as f64 * 0.7 + 1e-3).collect();
            let (xf, yf): (Vec<f32>, Vec<f32>) =
                (x.iter().map(|&v| v as f32).collect(), y.iter().map(|&v| v as f32).collect());
            let exact: f64 = x.iter().zip(&y).map(|(p, q)| p * q).sum();
            let (reference, reference_f32) = (dot_scalar(&x, &y), dot_scalar(&xf, &yf));
            assert!((reference - exact).abs() <= 1e-12 * exact.abs().max(1.0), "{len}: {reference} {exact}");
            for isa in Isa::available() {
                assert_eq!(isa.run_simd(Dot(&x, &y)).to_bits(), reference.to_bits(), "{isa:?} f64 {len}");
                assert_eq!(isa.run_simd(Dot(&xf, &yf)).to_bits(), reference_f32.to_bits(), "{isa:?} f32 {len}");
            }
        }
    }
}
