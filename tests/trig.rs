//! `fft::dct`, `dst` and their inverses against references written here: SciPy's definitions
//! summed naively (every type, every norm, both directions, lengths 1 to 13 and primes, along
//! each axis of 3D arrays and views), values SciPy printed, round trips, orthogonality under
//! `Ortho`, both precisions, refusals.
#![cfg(feature = "fft")]

use cnda::fft::{dct, dctn, dst, dstn, idct, idctn, idst, idstn, try_dct, try_dctn, try_idst, DctType, Norm};
use cnda::prelude::*;
use cnda::Error;
use proptest::prelude::*;
use std::f64::consts::PI;

const TYPES: [DctType; 4] = [DctType::I, DctType::II, DctType::III, DctType::IV];
const NORMS: [Norm; 3] = [Norm::Backward, Norm::Ortho, Norm::Forward];

/// SciPy's unnormalized (`norm="backward"`) forward transform, summed term by term.
fn naive(cosine: bool, ty: DctType, x: &[f64]) -> Vec<f64> {
    let n = x.len();
    let nf = n as f64;
    (0..n)
        .map(|k| {
            let kf = k as f64;
            let sign = if k % 2 == 0 { 1.0 } else { -1.0 };
            let sum = |term: &dyn Fn(usize) -> f64, range: core::ops::Range<usize>| range.map(term).sum::<f64>();
            match (cosine, ty) {
                (true, DctType::I) => {
                    let m = nf - 1.0;
                    x[0] + sign * x[n - 1] + 2.0 * sum(&|j| x[j] * (PI * kf * j as f64 / m).cos(), 1..n - 1)
                }
                (true, DctType::II) => 2.0 * sum(&|j| x[j] * (PI * kf * (2 * j + 1) as f64 / (2.0 * nf)).cos(), 0..n),
                (true, DctType::III) => {
                    x[0] + 2.0 * sum(&|j| x[j] * (PI * j as f64 * (2.0 * kf + 1.0) / (2.0 * nf)).cos(), 1..n)
                }
                (true, DctType::IV) => {
                    2.0 * sum(&|j| x[j] * (PI * (2.0 * kf + 1.0) * (2 * j + 1) as f64 / (4.0 * nf)).cos(), 0..n)
                }
                (false, DctType::I) => {
                    2.0 * sum(&|j| x[j] * (PI * (kf + 1.0) * (j + 1) as f64 / (nf + 1.0)).sin(), 0..n)
                }
                (false, DctType::II) => {
                    2.0 * sum(&|j| x[j] * (PI * (kf + 1.0) * (2 * j + 1) as f64 / (2.0 * nf)).sin(), 0..n)
                }
                (false, DctType::III) => {
                    sign * x[n - 1]
                        + 2.0 * sum(&|j| x[j] * (PI * (2.0 * kf + 1.0) * (j + 1) as f64 / (2.0 * nf)).sin(), 0..n - 1)
                }
                (false, DctType::IV) => {
                    2.0 * sum(&|j| x[j] * (PI * (2.0 * kf + 1.0) * (2 * j + 1) as f64 / (4.0 * nf)).sin(), 0..n)
                }
            }
        })
        .collect()
}

/// The period of the extended sequence, SciPy's `M`.
fn period(cosine: bool, ty: DctType, n: usize) -> f64 {
    match (cosine, ty) {
        (true, DctType::I) => 2.0 * (n as f64 - 1.0),
        (false, DctType::I) => 2.0 * (n as f64 + 1.0),
        _ => 2.0 * n as f64,
    }
}

/// SciPy's transform of `ty` under `norm`, as its documentation defines it: the naive sum scaled,
/// and under `Ortho` the end points weighted (`orthogonalize=True`).
fn reference(cosine: bool, ty: DctType, norm: Norm, x: &[f64]) -> Vec<f64> {
    let n = x.len();
    let m = period(cosine, ty, n);
    let mut input = x.to_vec();
    let root2 = 2f64.sqrt();
    if norm == Norm::Ortho {
        match (cosine, ty) {
            (true, DctType::I) => {
                input[0] *= root2;
                input[n - 1] *= root2;
            }
            (true, DctType::III) => input[0] *= root2,
            (false, DctType::III) => input[n - 1] *= root2,
            _ => {}
        }
    }
    let mut y = naive(cosine, ty, &input);
    let scale = match norm {
        Norm::Backward => 1.0,
        Norm::Ortho => 1.0 / m.sqrt(),
        Norm::Forward => 1.0 / m,
    };
    y.iter_mut().for_each(|v| *v *= scale);
    if norm == Norm::Ortho {
        match (cosine, ty) {
            (true, DctType::I) => {
                y[0] /= root2;
                y[n - 1] /= root2;
            }
            (true, DctType::II) => y[0] /= root2,
            (false, DctType::II) => y[n - 1] /= root2,
            _ => {}
        }
    }
    y
}

/// SciPy's inverse of `ty` under `norm`: the transform of the inverse type, scaled the other way.
fn reference_inverse(cosine: bool, ty: DctType, norm: Norm, x: &[f64]) -> Vec<f64> {
    let inverse = match ty {
        DctType::II => DctType::III,
        DctType::III => DctType::II,
        same => same,
    };
    let swapped = match norm {
        Norm::Backward => Norm::Forward,
        Norm::Forward => Norm::Backward,
        Norm::Ortho => Norm::Ortho,
    };
    reference(cosine, inverse, swapped, x)
}

fn signal(n: usize, seed: u64) -> Vec<f64> {
    (0..n as u64).map(|i| ((i * 7919 + seed * 104_729) % 1000) as f64 / 500.0 - 1.0).collect()
}

fn close(got: &[f64], want: &[f64], tolerance: f64, what: &str) {
    let scale = want.iter().fold(1.0f64, |m, v| m.max(v.abs()));
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        assert!((g - w).abs() <= tolerance * scale, "{what}: [{k}] {g} != {w}");
    }
    assert_eq!(got.len(), want.len(), "{what}");
}

/// The lanes of `a` along `axis`, each as a Vec, in row-major order of the other axes.
fn lanes<const N: usize>(a: &Array<f64, N>, axis: usize) -> Vec<Vec<f64>> {
    let shape = a.shape();
    let mut out = Vec::new();
    let mut idx = [0usize; N];
    let others: usize = (0..N).filter(|&d| d != axis).map(|d| shape[d]).product();
    for _ in 0..others {
        out.push(
            (0..shape[axis])
                .map(|k| {
                    idx[axis] = k;
                    a[idx]
                })
                .collect(),
        );
        // Next position of the other axes, row-major.
        for d in (0..N).rev().filter(|&d| d != axis) {
            idx[d] += 1;
            if idx[d] < shape[d] {
                break;
            }
            idx[d] = 0;
        }
    }
    out
}

#[test]
fn every_type_norm_and_direction_matches_scipys_definitions() {
    for n in (1..=13).chain([17, 31, 64, 97]) {
        let x = signal(n, n as u64);
        let a = Array::from_shape_vec([n], x.clone()).unwrap();
        for ty in TYPES {
            for norm in NORMS {
                for cosine in [true, false] {
                    if cosine && ty == DctType::I && n == 1 {
                        continue;
                    }
                    let what = format!("{} {ty:?} {norm:?} n={n}", if cosine { "dct" } else { "dst" });
                    let (forward, inverse) = match cosine {
                        true => (dct(&a, ty, 0, norm), idct(&a, ty, 0, norm)),
                        false => (dst(&a, ty, 0, norm), idst(&a, ty, 0, norm)),
                    };
                    close(forward.as_slice(), &reference(cosine, ty, norm, &x), 1e-12, &what);
                    close(
                        inverse.as_slice(),
                        &reference_inverse(cosine, ty, norm, &x),
                        1e-12,
                        &format!("inverse {what}"),
                    );
                }
            }
        }
    }
}

/// SciPy 1.17.1's `scipy.fft.dct(x, type=t, norm=...)` and `dst(...)` of `x = [1, -2, 3.5, 0.25, 4]`,
/// as it printed them: an anchor beside the definitions above, which this file wrote from its
/// documentation.
#[test]
fn values_scipy_printed() {
    let x = Array::from_shape_vec([5], vec![1.0, -2.0, 3.5, 0.25, 4.0]).unwrap();
    let cases: [(bool, DctType, Norm, [f64; 5]); 8] = [
        (true, DctType::I, Norm::Backward, SCIPY_DCT1),
        (true, DctType::I, Norm::Ortho, SCIPY_DCT1_ORTHO),
        (false, DctType::IV, Norm::Ortho, SCIPY_DST4_ORTHO),
        (true, DctType::II, Norm::Backward, SCIPY_DCT2),
        (true, DctType::II, Norm::Ortho, SCIPY_DCT2_ORTHO),
        (true, DctType::III, Norm::Ortho, SCIPY_DCT3_ORTHO),
        (false, DctType::I, Norm::Backward, SCIPY_DST1),
        (false, DctType::II, Norm::Ortho, SCIPY_DST2_ORTHO),
    ];
    for (cosine, ty, norm, want) in cases {
        let got = if cosine { dct(&x, ty, 0, norm) } else { dst(&x, ty, 0, norm) };
        close(got.as_slice(), &want, 1e-14, &format!("{cosine} {ty:?} {norm:?}"));
    }
}

const SCIPY_DCT1: [f64; 5] = [8.5, -6.181980515339464, -2.0, 0.1819805153394638, 15.5];
const SCIPY_DCT1_ORTHO: [f64; 5] =
    [2.6427669529663693, -2.6250000000000004, 0.02512626584708376, -0.3750000000000002, 4.39276695296637];
const SCIPY_DST4_ORTHO: [f64; 5] =
    [3.72948414202674, -1.675784004476228, -0.33541019662496846, -1.7961978667883756, 3.640929720285409];
const SCIPY_DCT2: [f64; 5] = [13.5, -8.351372733087048, 2.17172942406179, 0.7530428095733528, 12.92172942406179];
const SCIPY_DCT2_ORTHO: [f64; 5] =
    [3.0186917696247164, -2.640935942558052, 0.6867611441640941, 0.23813304538642444, 4.0862096288451015];
const SCIPY_DCT3_ORTHO: [f64; 5] =
    [1.9097421820452565, -3.17736508312606, 0.7634413615167956, -1.3896224677815485, 4.129871984845346];
const SCIPY_DST1: [f64; 5] = [8.968911086754465, -9.093266739736606, 3.0, -1.2990381056766584, 15.031088913245535];
const SCIPY_DST2_ORTHO: [f64; 5] =
    [2.2953741712391773, -2.468621252147531, 0.002722867617102054, -0.9680697874872222, 4.583939353874569];

#[test]
fn ortho_transforms_are_orthogonal_and_round_trips_give_the_input_back() {
    for n in [2, 5, 8, 13, 30] {
        let x = signal(n, 3);
        let a = Array::from_shape_vec([n], x.clone()).unwrap();
        let energy: f64 = x.iter().map(|v| v * v).sum();
        for ty in TYPES {
            let (c, s) = (dct(&a, ty, 0, Norm::Ortho), dst(&a, ty, 0, Norm::Ortho));
            for (name, y) in [("dct", &c), ("dst", &s)] {
                let e: f64 = y.as_slice().iter().map(|v| v * v).sum();
                assert!((e - energy).abs() < 1e-12 * energy, "{name} {ty:?} n={n}: {e} != {energy}");
            }
            for norm in NORMS {
                let back = idct(dct(&a, ty, 0, norm), ty, 0, norm);
                close(back.as_slice(), &x, 1e-13, &format!("idct(dct) {ty:?} {norm:?} n={n}"));
                let back = idst(dst(&a, ty, 0, norm), ty, 0, norm);
                close(back.as_slice(), &x, 1e-13, &format!("idst(dst) {ty:?} {norm:?} n={n}"));
            }
        }
    }
}

#[test]
fn f32_transforms_within_their_precision() {
    let x = signal(24, 9);
    let a = Array::from_shape_vec([24], x.iter().map(|&v| v as f32).collect()).unwrap();
    for ty in TYPES {
        for norm in NORMS {
            let got: Vec<f64> = dst(&a, ty, 0, norm).as_slice().iter().map(|&v| v as f64).collect();
            close(&got, &reference(false, ty, norm, &x), 1e-5, &format!("dst f32 {ty:?} {norm:?}"));
            let got: Vec<f64> = idct(&a, ty, 0, norm).as_slice().iter().map(|&v| v as f64).collect();
            close(&got, &reference_inverse(true, ty, norm, &x), 1e-5, &format!("idct f32 {ty:?} {norm:?}"));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Along any axis of a 3D array, or of its transposed view: each lane's transform is the
    /// reference's of that lane; `dctn`/`dstn` over two axes are the one-axis transforms in turn.
    #[test]
    fn along_any_axis_of_arrays_and_views(
        shape in [1usize..7, 2usize..9, 1usize..11],
        axis in 0usize..3,
        t in 0usize..4,
        nm in 0usize..3,
        cosine in any::<bool>(),
        transposed in any::<bool>(),
    ) {
        let (ty, norm) = (TYPES[t], NORMS[nm]);
        let owned = Array::from_fn(shape, |[i, j, k]| ((i * 131 + j * 17 + k * 5) % 23) as f64 / 7.0 - 1.5);
        // The same values through a reversed-axes view of a differently laid out array.
        let flipped = Array::from_fn([shape[2], shape[1], shape[0]], |[k, j, i]| owned[[i, j, k]]);
        let view = flipped.permute([2, 1, 0]);
        let n = shape[axis];
        prop_assume!(!(cosine && ty == DctType::I && n == 1));
        let got = match (cosine, transposed) {
            (true, false) => dct(&owned, ty, axis, norm),
            (true, true) => dct(view, ty, axis, norm),
            (false, false) => dst(&owned, ty, axis, norm),
            (false, true) => dst(view, ty, axis, norm),
        };
        prop_assert_eq!(got.shape(), shape);
        for (lane, want) in lanes(&got, axis).iter().zip(lanes(&owned, axis)) {
            close(lane, &reference(cosine, ty, norm, &want), 1e-12, "lane");
        }
        let other = (axis + 1) % 3;
        prop_assume!(!(cosine && ty == DctType::I && shape[other] == 1));
        let (both, one_by_one) = match cosine {
            true => (dctn(&owned, ty, &[axis, other], norm), dct(dct(&owned, ty, other, norm), ty, axis, norm)),
            false => (dstn(&owned, ty, &[axis, other], norm), dst(dst(&owned, ty, other, norm), ty, axis, norm)),
        };
        close(both.as_slice(), one_by_one.as_slice(), 1e-12, "n-dimensional");
        let back = match cosine {
            true => idctn(&both, ty, &[axis, other], norm),
            false => idstn(&both, ty, &[axis, other], norm),
        };
        close(back.as_slice(), owned.as_slice(), 1e-12, "round trip");
    }
}

#[test]
fn refusals_name_the_problem() {
    let one = Array::<f64, 2>::zeros([4, 1]);
    match try_dct(&one, DctType::I, 1, Norm::Backward) {
        Err(Error::Parameter { op: "dct", reason, .. }) => assert!(reason.contains("type I needs two"), "{reason}"),
        other => panic!("{other:?}"),
    }
    // The DST-I and the other DCTs take one point: the DST-I of one point is 2 x (SciPy:
    // `dst([1.5], type=1)` is 3.0), orthonormal 1 x.
    let points = Array::from_shape_vec([4, 1], vec![1.5, -2.0, 0.5, 3.0]).unwrap();
    assert_eq!(dst(&points, DctType::I, 1, Norm::Backward).as_slice(), &[3.0, -4.0, 1.0, 6.0]);
    assert_eq!(dst(&points, DctType::I, 1, Norm::Ortho).as_slice(), points.as_slice());
    assert!(matches!(
        try_idst(&one, DctType::II, 2, Norm::Ortho),
        Err(Error::AxisOutOfRange { op: "idst", axis: 2, rank: 2 })
    ));
    assert!(matches!(try_dctn(&one, DctType::II, &[0, 0], Norm::Ortho), Err(Error::Parameter { op: "dctn", .. })));
    let empty = Array::<f32, 1>::zeros([0]);
    assert!(matches!(try_dct(&empty, DctType::II, 0, Norm::Backward), Err(Error::Parameter { op: "dct", .. })));
}

/// Types II and III of lengths that are not powers of two go two lanes through one complex
/// transform: each lane must keep an error relative to its own size, a zero lane stay zero, and
/// a NaN spoil no other lane; along the rows and along the columns.
#[test]
fn lanes_in_pairs_keep_their_own_accuracy_and_specials() {
    let n = 15;
    // Paired as they come: (1, 1e-12), (1e9, 3e-7), (2, 5); the zero and NaN lanes, and the
    // lanes beside them, alone.
    let sizes = [1.0, 1e-12, 1e9, 3e-7, 0.0, 2.0, 5.0, f64::NAN, 1.0];
    let lane = |r: usize| -> Vec<f64> {
        let x = signal(n, r as u64 + 1);
        x.iter()
            .enumerate()
            .map(|(j, v)| {
                if sizes[r].is_nan() {
                    if j == 2 {
                        f64::NAN
                    } else {
                        *v
                    }
                } else {
                    sizes[r] * v
                }
            })
            .collect()
    };
    let rows = Array::from_fn([sizes.len(), n], |[r, j]| lane(r)[j]);
    let columns = Array::from_fn([n, sizes.len()], |[j, r]| lane(r)[j]);
    for ty in [DctType::II, DctType::III] {
        for cosine in [true, false] {
            let transform = |a: &Array<f64, 2>, axis| {
                if cosine {
                    dct(a, ty, axis, Norm::Ortho)
                } else {
                    dst(a, ty, axis, Norm::Ortho)
                }
            };
            for (axis, got) in [(1, transform(&rows, 1)), (0, transform(&columns, 0))] {
                for (r, size) in sizes.iter().enumerate() {
                    let got: Vec<f64> = (0..n).map(|k| if axis == 1 { got[[r, k]] } else { got[[k, r]] }).collect();
                    let what = format!("{} {ty:?} axis {axis} lane {r}", if cosine { "dct" } else { "dst" });
                    if size.is_nan() {
                        assert!(got.iter().any(|v| v.is_nan()), "{what}");
                    } else if *size == 0.0 {
                        assert!(got.iter().all(|&v| v == 0.0), "{what}: {got:?}");
                    } else {
                        let want = reference(cosine, ty, Norm::Ortho, &lane(r));
                        let scale = want.iter().fold(0.0f64, |m, v| m.max(v.abs()));
                        for (g, w) in got.iter().zip(&want) {
                            assert!((g - w).abs() <= 1e-13 * scale, "{what}: {g} != {w}");
                        }
                    }
                }
            }
        }
    }
}
