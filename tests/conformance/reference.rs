//! Naive host references: each element computed by its own formula from the base array, with no
//! cnda view or op involved, so a geometry or kernel bug cannot hide in both sides.

use cnda::prelude::*;

use crate::harness::View;

/// A base shape whose view `v` has shape `target`.
pub fn base_shape(target: [usize; 2], v: View) -> [usize; 2] {
    let [p, q] = target;
    match v {
        View::Plain | View::Flipped => [p, q],
        View::Transposed => [q, p],
        View::Stepped => [p, 2 * q],
    }
}

/// Element `[i, j]` of view `v` of `a`, by formula.
pub fn at<T: Pod>(a: &Array<T, 2>, v: View, [i, j]: [usize; 2]) -> T {
    let [m, _] = a.shape();
    let index = match v {
        View::Plain => [i, j],
        View::Transposed => [j, i],
        View::Stepped => [i, 2 * j],
        View::Flipped => [m - 1 - i, j],
    };
    a[index]
}

/// Position in the base array of element `[i, j]` of view `v`.
pub fn base_index(shape: [usize; 2], v: View, [i, j]: [usize; 2]) -> [usize; 2] {
    match v {
        View::Plain => [i, j],
        View::Transposed => [j, i],
        View::Stepped => [i, 2 * j],
        View::Flipped => [shape[0] - 1 - i, j],
    }
}

/// A deterministic field of `shape`: distinct values in about [-2, 2], none zero.
pub fn field<T: Float>(shape: [usize; 2], seed: u64) -> Array<T, 2> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(7);
    Array::from_fn(shape, |[i, j]| {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let unit = (x >> 11) as f64 / (1u64 << 53) as f64; // [0, 1)
        T::from_f64((unit - 0.5) * 4.0 + 1e-3 * (i * 31 + j) as f64 + 1e-6)
    })
}

/// Whether `got` and `want` agree to `rel` relative to `scale` (exactly when `rel == 0`).
pub fn close<T: Float>(got: T, want: f64, rel: f64, scale: f64) -> bool {
    let got = to_f64(got);
    if rel == 0.0 {
        return got == want || (got.is_nan() && want.is_nan());
    }
    (got - want).abs() <= rel * scale.max(f64::MIN_POSITIVE) || (got.is_nan() && want.is_nan())
}

/// `x` as f64, exactly (the suite's floats are f16, f32 or f64; read through their bytes).
pub fn to_f64<T: Float>(x: T) -> f64 {
    let bytes = cnda::bytemuck::bytes_of(&x);
    match bytes.len() {
        2 => half::f16::from_ne_bytes(bytes.try_into().unwrap()).to_f64(),
        4 => f32::from_ne_bytes(bytes.try_into().unwrap()) as f64,
        _ => f64::from_ne_bytes(bytes.try_into().unwrap()),
    }
}

/// Machine epsilon of `T` (f16, f32 or f64).
pub fn eps<T: Float>() -> f64 {
    match core::mem::size_of::<T>() {
        2 => half::f16::EPSILON.to_f64(),
        4 => f32::EPSILON as f64,
        _ => f64::EPSILON,
    }
}
