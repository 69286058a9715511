//! The cuFFT stand-in against values worked by hand and a naive DFT written here: the basic and
//! the advanced layout (strides and distances), the real transforms' half spectra, the inverse's
//! sign, the stand-in's strictness (overwritten C2R inputs, NaNs for spectra no real signal has,
//! misaligned real data refused), bad plans and out-of-bounds data refused.

use cuda_sim::cufft::{
    cufftDestroy, cufftExecC2R, cufftExecD2Z, cufftExecZ2Z, cufftPlanMany, C2R, D2Z, EXEC_FAILED, INVALID_PLAN,
    INVALID_SIZE, SUCCESS, Z2Z,
};
use cuda_sim::driver::{device as dev, memory as mem};
use std::ptr::null_mut;

fn upload<T: Copy>(data: &[T]) -> u64 {
    let mut p = 0u64;
    let bytes = std::mem::size_of_val(data);
    // SAFETY: a valid out-pointer, and `data` holds `bytes` bytes.
    unsafe {
        assert_eq!(mem::cuMemAlloc_v2(&mut p, bytes), 0);
        assert_eq!(mem::cuMemcpyHtoD_v2(p, data.as_ptr().cast(), bytes), 0);
    }
    p
}

fn download<T: Copy + Default>(p: u64, n: usize) -> Vec<T> {
    let mut out = vec![T::default(); n];
    // SAFETY: `out` holds the bytes copied.
    assert_eq!(unsafe { mem::cuMemcpyDtoH_v2(out.as_mut_ptr().cast(), p, n * std::mem::size_of::<T>()) }, 0);
    out
}

/// A plan of rank 1 with the advanced layout (or the basic one when `embed` is false).
fn plan(n: i32, embed: bool, (istride, idist): (i32, i32), (ostride, odist): (i32, i32), kind: i32, batch: i32) -> i32 {
    let (mut h, mut sizes, mut ie, mut oe) = (0, [n], [n], [n]);
    let (ip, op) = if embed { (ie.as_mut_ptr(), oe.as_mut_ptr()) } else { (null_mut(), null_mut()) };
    // SAFETY: one int at each pointer, as rank 1 reads.
    let s =
        unsafe { cufftPlanMany(&mut h, 1, sizes.as_mut_ptr(), ip, istride, idist, op, ostride, odist, kind, batch) };
    assert_eq!(s, SUCCESS);
    h
}

/// `sum_j x[j] e^(sign 2 pi i j k / n)`, directly.
fn dft(x: &[(f64, f64)], sign: f64) -> Vec<(f64, f64)> {
    let n = x.len();
    (0..n)
        .map(|k| {
            x.iter().enumerate().fold((0.0, 0.0), |(re, im), (j, &(a, b))| {
                let t = sign * 2.0 * std::f64::consts::PI * (j * k) as f64 / n as f64;
                (re + a * t.cos() - b * t.sin(), im + a * t.sin() + b * t.cos())
            })
        })
        .collect()
}

#[test]
fn complex_transforms_in_the_basic_and_the_advanced_layout() {
    assert_eq!(dev::cuInit(0), 0);
    // [1, 2, 3, 4] -> [10, -2 + 2i, -2, -2 - 2i].
    let x = [1.0, 0.0, 2.0, 0.0, 3.0, 0.0, 4.0, 0.0f64];
    let (px, py) = (upload(&x), upload(&[0.0f64; 8]));
    let h = plan(4, false, (0, 0), (0, 0), Z2Z, 1);
    assert_eq!(cufftExecZ2Z(h, px as _, py as _, -1), SUCCESS);
    let got = download::<f64>(py, 8);
    let want = [10.0, 0.0, -2.0, 2.0, -2.0, 0.0, -2.0, -2.0];
    assert!(got.iter().zip(want).all(|(g, w)| (g - w).abs() < 1e-14), "{got:?}");
    assert_eq!(cufftDestroy(h), SUCCESS);
    assert_eq!(cufftDestroy(h), INVALID_PLAN);
    // Columns of a 5 x 3 row-major matrix: stride 3, distance 1, batch 3, in place, inverse.
    let m: Vec<(f64, f64)> = (0..15).map(|i| (i as f64 * 0.5 - 2.0, (i % 4) as f64)).collect();
    let flat: Vec<f64> = m.iter().flat_map(|&(a, b)| [a, b]).collect();
    let p = upload(&flat);
    let h = plan(5, true, (3, 1), (3, 1), Z2Z, 3);
    assert_eq!(cufftExecZ2Z(h, p as _, p as _, 1), SUCCESS);
    let got = download::<f64>(p, 30);
    for c in 0..3 {
        let column: Vec<_> = (0..5).map(|r| m[r * 3 + c]).collect();
        for (r, want) in dft(&column, 1.0).into_iter().enumerate() {
            let at = 2 * (r * 3 + c);
            assert!((got[at] - want.0).abs() < 1e-12 && (got[at + 1] - want.1).abs() < 1e-12, "{c} {r}");
        }
    }
}

#[test]
fn real_transforms_keep_the_half_spectrum() {
    assert_eq!(dev::cuInit(0), 0);
    // Two rows of 5 real points, row distance 5 -> half spectra of 3, distance 3.
    let x: Vec<f64> = (0..10).map(|i| ((i * 7) % 5) as f64 - 1.5).collect();
    let (px, py) = (upload(&x), upload(&[0.0f64; 12]));
    let h = plan(5, true, (1, 5), (1, 3), D2Z, 2);
    assert_eq!(cufftExecD2Z(h, px as _, py as _), SUCCESS);
    let half = download::<f64>(py, 12);
    for b in 0..2 {
        let row: Vec<_> = x[b * 5..b * 5 + 5].iter().map(|&v| (v, 0.0)).collect();
        for (k, want) in dft(&row, -1.0).into_iter().take(3).enumerate() {
            let at = 2 * (b * 3 + k);
            assert!((half[at] - want.0).abs() < 1e-12 && (half[at + 1] - want.1).abs() < 1e-12);
        }
    }
    // Back, unnormalized: 4 x the signal, in single precision (an even length, 4 -> 3 values);
    // the input overwritten, as cuFFT's complex-to-real transforms overwrite theirs.
    let spectrum = [10.0f32, 0.0, -2.0, 2.0, -2.0, 0.0];
    let (ps, pr) = (upload(&spectrum), upload(&[0.0f32; 4]));
    let h = plan(4, false, (0, 0), (0, 0), C2R, 1);
    assert_eq!(cufftExecC2R(h, ps as _, pr as _), SUCCESS);
    let signal = download::<f32>(pr, 4);
    assert!(signal.iter().zip([4.0, 8.0, 12.0, 16.0]).all(|(g, w)| (g - w).abs() < 1e-5), "{signal:?}");
    assert!(download::<f32>(ps, 6).iter().all(|v| v.is_nan()));
    // Imaginary parts at the zero or Nyquist frequency: no real signal's spectrum, NaNs.
    for spectrum in [[10.0f32, 7.0, -2.0, 2.0, -2.0, 0.0], [10.0, 0.0, -2.0, 2.0, -2.0, 5.0]] {
        let ps = upload(&spectrum);
        assert_eq!(cufftExecC2R(h, ps as _, pr as _), SUCCESS);
        assert!(download::<f32>(pr, 4).iter().all(|v| v.is_nan()));
    }
    // Real-transform data not aligned as its complex type is refused.
    assert_eq!(cufftExecC2R(h, (ps + 4) as _, pr as _), cuda_sim::cufft::INVALID_VALUE);
}

#[test]
fn bad_plans_and_data_outside_allocations_are_refused() {
    assert_eq!(dev::cuInit(0), 0);
    let (mut h, mut zero) = (0, [0]);
    // SAFETY: one int at the size pointer; null embeddings.
    let s = unsafe { cufftPlanMany(&mut h, 1, zero.as_mut_ptr(), null_mut(), 1, 1, null_mut(), 1, 1, Z2Z, 1) };
    assert_eq!(s, INVALID_SIZE);
    // A batch of 3 rows of 8 from an allocation of 2 rows.
    let p = upload(&[0.0f64; 32]);
    let h = plan(8, false, (0, 0), (0, 0), Z2Z, 3);
    assert_eq!(cufftExecZ2Z(h, p as _, p as _, -1), EXEC_FAILED);
    assert_eq!(cufftExecC2R(h, p as _, p as _), cuda_sim::cufft::INVALID_VALUE);
}
