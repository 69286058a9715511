//! `cnda::fft` against a naive discrete Fourier transform written here (sums of `x[j] e^(-2 pi i
//! j k / n)` in `f64`, without cnda's transform code): random shapes, axes, norms and layouts,
//! prime lengths (Rader's and Bluestein's algorithms inside rustfft), both precisions; round
//! trips, Parseval, the real transforms against the complex ones, NumPy's frequencies, and every
//! refusal.
#![cfg(feature = "fft")]

use cnda::fft::{self, Norm};
use cnda::prelude::*;
use cnda::Complex;
use proptest::prelude::*;

type C64 = Complex<f64>;

/// The naive transform of `x` (row-major, `shape`) along `axis`, forward or inverse, scaled as
/// NumPy's `norm` says.
fn naive(x: &[C64], shape: &[usize], axis: usize, forward: bool, norm: Norm) -> Vec<C64> {
    let n = shape[axis];
    let inner: usize = shape[axis + 1..].iter().product();
    let outer: usize = shape[..axis].iter().product();
    let sign = if forward { -1.0 } else { 1.0 };
    let scale = match (norm, forward) {
        (Norm::Backward, true) | (Norm::Forward, false) => 1.0,
        (Norm::Ortho, _) => 1.0 / (n as f64).sqrt(),
        _ => 1.0 / n as f64,
    };
    let mut out = vec![C64::new(0.0, 0.0); x.len()];
    for o in 0..outer {
        for i in 0..inner {
            for k in 0..n {
                let mut sum = C64::new(0.0, 0.0);
                for j in 0..n {
                    // The angle reduced exactly first: (j k mod n) / n.
                    let angle = sign * 2.0 * std::f64::consts::PI * ((j * k) % n) as f64 / n as f64;
                    sum += x[(o * n + j) * inner + i] * C64::new(angle.cos(), angle.sin());
                }
                out[(o * n + k) * inner + i] = sum * scale;
            }
        }
    }
    out
}

/// The largest distance between `got` and `want`, relative to `want`'s largest magnitude.
fn relative_error(got: &[C64], want: &[C64]) -> f64 {
    let size = want.iter().map(|w| w.norm()).fold(1e-300, f64::max);
    got.iter()
        .zip(want)
        .map(|(g, w)| (g - w).norm())
        .fold(0.0, |m: f64, e| if e.is_nan() { f64::INFINITY } else { m.max(e) })
        / size
}

fn signal(shape: &[usize], seed: u64) -> Vec<C64> {
    let len: usize = shape.iter().product();
    (0..len as u64)
        .map(|k| {
            let h = (k + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(seed.wrapping_mul(0xBF58_476D_1CE4_E5B9));
            C64::new((h >> 11) as f64 / (1u64 << 53) as f64 - 0.5, ((h >> 3) % 1000) as f64 / 1000.0 - 0.5)
        })
        .collect()
}

fn array3(shape: [usize; 3], data: &[C64]) -> Array<C64, 3> {
    Array::from_fn(shape, |[a, b, c]| data[(a * shape[1] + b) * shape[2] + c])
}

const NORMS: [Norm; 3] = [Norm::Backward, Norm::Ortho, Norm::Forward];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Any axis of a 3D array of odd, even and prime lengths, every norm, both directions,
    /// in f64 and f32, from a row-major array and from a transposed view of another.
    #[test]
    fn transforms_match_the_naive_sum(
        shape in prop::array::uniform3(prop::sample::select(vec![1usize, 2, 3, 5, 7, 8, 12, 13, 16, 17])),
        axis in 0usize..3,
        norm in 0usize..3,
        forward: bool,
        seed: u64,
    ) {
        let norm = NORMS[norm];
        let data = signal(&shape, seed);
        let want = naive(&data, &shape, axis, forward, norm);
        let a = array3(shape, &data);
        let got = if forward { fft::fft(&a, axis, norm) } else { fft::ifft(&a, axis, norm) };
        prop_assert!(relative_error(got.as_slice(), &want) < 1e-12);
        // The same values through a transposed view of the axes reversed.
        let reversed = Array::from_fn([shape[2], shape[1], shape[0]], |[c, b, a]| data[(a * shape[1] + b) * shape[2] + c]);
        let view = reversed.view().permute([2, 1, 0]);
        let through_view = if forward { fft::fft(view, axis, norm) } else { fft::ifft(view, axis, norm) };
        prop_assert_eq!(through_view.as_slice(), got.as_slice());
        // f32: the same within its precision.
        let a32 = a.map(|c| Complex::new(c.re as f32, c.im as f32));
        let got32 = if forward { fft::fft(&a32, axis, norm) } else { fft::ifft(&a32, axis, norm) };
        let widened: Vec<C64> = got32.as_slice().iter().map(|c| C64::new(c.re as f64, c.im as f64)).collect();
        prop_assert!(relative_error(&widened, &want) < 1e-5);
    }

    /// The half spectrum is the complex transform's first `n / 2 + 1` values, and `irfft` to the
    /// original length gives the signal back, for even and odd lengths on every axis.
    #[test]
    fn real_transforms_are_half_spectra_and_invert(
        shape in prop::array::uniform3(1usize..10),
        axis in 0usize..3,
        norm in 0usize..3,
        seed: u64,
    ) {
        let norm = NORMS[norm];
        let data: Vec<f64> = signal(&shape, seed).iter().map(|c| c.re).collect();
        let real = Array::from_fn(shape, |[a, b, c]| data[(a * shape[1] + b) * shape[2] + c]);
        let half = fft::rfft(&real, axis, norm);
        let n = shape[axis];
        let full = fft::fft(real.map(|x| C64::new(x, 0.0)), axis, norm);
        let mut kept = shape;
        kept[axis] = n / 2 + 1;
        prop_assert_eq!(half.shape(), kept);
        let expected = Array::from_fn(kept, |[a, b, c]| full[[a, b, c]]);
        prop_assert!(relative_error(half.as_slice(), expected.as_slice()) < 1e-13);
        let back = fft::irfft(&half, n, axis, norm);
        let err = back.as_slice().iter().zip(&data).map(|(g, w)| (g - w).abs()).fold(0.0, |m: f64, e| if e.is_nan() { f64::INFINITY } else { m.max(e) });
        prop_assert!(err < 1e-12, "{}", err);
    }
}

#[test]
fn prime_lengths_take_the_large_prime_algorithms() {
    for n in [97, 1009, 2003] {
        let data = signal(&[n], n as u64);
        let a = Array::from_fn([n], |[k]| data[k]);
        let got = fft::fft(&a, 0, Norm::Backward);
        assert!(relative_error(got.as_slice(), &naive(&data, &[n], 0, true, Norm::Backward)) < 1e-11, "{n}");
        let back = fft::ifft(&got, 0, Norm::Backward);
        assert!(relative_error(back.as_slice(), &data) < 1e-12, "{n}");
    }
}

#[test]
fn n_dimensional_transforms_are_the_one_dimensional_ones_in_turn_and_keep_parseval() {
    let shape = [6, 5, 9];
    let data = signal(&shape, 7);
    let a = array3(shape, &data);
    let all = fft::fftn(&a, &[0, 1, 2], Norm::Backward);
    let mut step = data.clone();
    for axis in [2, 1, 0] {
        step = naive(&step, &shape, axis, true, Norm::Backward);
    }
    assert!(relative_error(all.as_slice(), &step) < 1e-12);
    // Parseval: sum |x|^2 = sum |X|^2 / n (the ortho transform keeps the sum itself).
    let energy = |v: &[C64]| v.iter().map(|c| c.norm_sqr()).sum::<f64>();
    let n = 6.0 * 5.0 * 9.0;
    assert!((energy(all.as_slice()) / n - energy(&data)).abs() < 1e-10 * energy(&data));
    let ortho = fft::fftn(&a, &[2, 0, 1], Norm::Ortho);
    assert!((energy(ortho.as_slice()) - energy(&data)).abs() < 1e-10 * energy(&data));
    // Two axes of three, and back.
    let two = fft::fftn(&a, &[0, 2], Norm::Forward);
    let back = fft::ifftn(&two, &[2, 0], Norm::Forward);
    assert!(relative_error(back.as_slice(), &data) < 1e-12);
    // rfftn: the real transform along the last axis named, then the others.
    let real = a.map(|c| c.re);
    let half = fft::rfftn(&real, &[1, 2], Norm::Backward);
    assert_eq!(half.shape(), [6, 5, 5]);
    let full = fft::fftn(real.map(|x| C64::new(x, 0.0)), &[1, 2], Norm::Backward);
    let expected = Array::from_fn([6, 5, 5], |[i, j, k]| full[[i, j, k]]);
    assert!(relative_error(half.as_slice(), expected.as_slice()) < 1e-12);
    let again = fft::irfftn(&half, &[1, 2], 9, Norm::Backward);
    let err = again.as_slice().iter().zip(real.as_slice()).map(|(g, w)| (g - w).abs()).fold(0.0, |m: f64, e| {
        if e.is_nan() {
            f64::INFINITY
        } else {
            m.max(e)
        }
    });
    assert!(err < 1e-12, "{err}");
}

/// Real transforms over three axes in any order and norm, cropped and padded back, in f64 and
/// f32, from flipped (negative-stride) and offset views; ranks 1 and 4.
#[test]
fn real_n_dimensional_transforms_in_any_order_norm_precision_and_layout() {
    let shape = [4, 6, 5];
    let data: Vec<f64> = signal(&shape, 11).iter().map(|c| c.re).collect();
    let real = Array::from_fn(shape, |[a, b, c]| data[(a * 6 + b) * 5 + c]);
    let complex = real.map(|x| C64::new(x, 0.0));
    for (axes, norm) in [(&[2, 0, 1][..], Norm::Ortho), (&[0, 1, 2], Norm::Forward), (&[1, 0], Norm::Backward)] {
        let half = fft::rfftn(&real, axes, norm);
        let last = *axes.last().unwrap();
        let full = fft::fftn(&complex, axes, norm);
        let mut kept = shape;
        kept[last] = shape[last] / 2 + 1;
        assert_eq!(half.shape(), kept);
        let expected = Array::from_fn(kept, |i| full[i]);
        assert!(relative_error(half.as_slice(), expected.as_slice()) < 1e-13, "{axes:?}");
        let back = fft::irfftn(&half, axes, shape[last], norm);
        let err = back.as_slice().iter().zip(&data).map(|(g, w)| (g - w).abs()).fold(0.0, |m: f64, e| {
            if e.is_nan() {
                f64::INFINITY
            } else {
                m.max(e)
            }
        });
        assert!(err < 1e-12, "{axes:?}: {err}");
    }
    // A flipped view goes through a copy, an offset row-major view is read where it lies.
    let flipped = real.flip(1);
    let want = fft::rfft(Array::from_fn(shape, |[a, b, c]| real[[a, 5 - b, c]]), 2, Norm::Backward);
    assert_eq!(fft::rfft(flipped, 2, Norm::Backward).as_slice(), want.as_slice());
    let part = real.slice(s![1..3, .., ..]);
    let want = fft::rfft(Array::from_fn([2, 6, 5], |[a, b, c]| real[[a + 1, b, c]]), 0, Norm::Ortho);
    assert_eq!(fft::rfft(part, 0, Norm::Ortho).as_slice(), want.as_slice());
    let cflip = complex.flip(2);
    let want = fft::fft(Array::from_fn(shape, |[a, b, c]| complex[[a, b, 4 - c]]), 0, Norm::Forward);
    assert_eq!(fft::fft(cflip, 0, Norm::Forward).as_slice(), want.as_slice());
    // f32 real transforms, rank 1 and rank 4.
    let r1 = Array::from_fn([9], |[k]| (k as f32 * 0.7).sin());
    let back = fft::irfft(fft::rfft(&r1, 0, Norm::Backward), 9, 0, Norm::Backward);
    assert!(back.as_slice().iter().zip(r1.as_slice()).all(|(a, b)| (a - b).abs() < 1e-5));
    let r4 = Array::from_fn([2, 3, 4, 5], |[a, b, c, d]| ((a * 60 + b * 20 + c * 5 + d) % 7) as f32 - 3.0);
    let half = fft::rfftn(&r4, &[3, 1, 0, 2], Norm::Ortho);
    assert_eq!(half.shape(), [2, 3, 3, 5]);
    let back = fft::irfftn(&half, &[3, 1, 0, 2], 4, Norm::Ortho);
    assert!(back.as_slice().iter().zip(r4.as_slice()).all(|(a, b)| (a - b).abs() < 1e-5));
}

#[test]
fn irfft_follows_numpy_on_lengths_and_ignored_imaginary_parts() {
    // A spectrum of 4 values to 6 points, to 5, and to 10 (zeros past the end), against the
    // complex inverse of its Hermitian extension.
    let half = Array::from_fn([4], |[k]| C64::new(1.0 + k as f64, if k == 0 { 9.0 } else { 0.5 * k as f64 }));
    for n in [6, 5, 10, 3] {
        let got = fft::irfft(&half, n, 0, Norm::Backward);
        let h = n / 2 + 1;
        let value = |k: usize| if k < 4 { half[[k]] } else { C64::new(0.0, 0.0) };
        let full: Vec<C64> = (0..n)
            .map(|k| {
                let mut v = if k < h { value(k) } else { value(n - k).conj() };
                if k == 0 || (n % 2 == 0 && k == n / 2) {
                    v.im = 0.0; // NumPy ignores these imaginary parts
                }
                v
            })
            .collect();
        let want = naive(&full, &[n], 0, false, Norm::Backward);
        let err = got.as_slice().iter().zip(&want).map(|(g, w)| (g - w.re).abs()).fold(0.0, |m: f64, e| {
            if e.is_nan() {
                f64::INFINITY
            } else {
                m.max(e)
            }
        });
        assert!(err < 1e-12, "{n}: {err}");
    }
}

#[test]
fn frequencies_follow_numpy() {
    assert_eq!(fft::fftfreq(8, 0.5).as_slice(), &[0.0, 0.25, 0.5, 0.75, -1.0, -0.75, -0.5, -0.25]);
    assert_eq!(fft::fftfreq(5, 1.0f32).as_slice(), &[0.0, 0.2, 0.4, -0.4, -0.2]);
    // NumPy 2's `np.fft.rfftfreq(9, 0.1)`, printed with `repr`.
    let numpy = [0.0, 1.1111111111111112, 2.2222222222222223, 3.3333333333333335, 4.444444444444445];
    assert_eq!(fft::rfftfreq(9, 0.1).as_slice(), &numpy);
    assert_eq!(fft::fftfreq::<f64>(0, 1.0).shape(), [0]);
    assert_eq!(fft::rfftfreq::<f64>(0, 1.0).shape(), [0]);
}

#[test]
fn refusals_are_typed_errors_that_name_the_fix() {
    let a = Array::<C64, 2>::zeros([4, 0]);
    let e = fft::try_fft(&a, 1, Norm::Backward).unwrap_err();
    assert!(matches!(e, Error::Parameter { op: "fft", .. }) && e.to_string().contains("has no points"), "{e}");
    let e = fft::try_fft(&a, 2, Norm::Backward).unwrap_err();
    assert!(matches!(e, Error::AxisOutOfRange { axis: 2, rank: 2, .. }), "{e}");
    let b = Array::<C64, 2>::zeros([4, 3]);
    for axes in [&[1, 1][..], &[0, 1, 0]] {
        let e = fft::try_fftn(&b, axes, Norm::Backward).unwrap_err();
        assert!(e.to_string().contains("distinct axes"), "{axes:?}: {e}");
    }
    let e = fft::try_fftn(&b, &[], Norm::Backward).unwrap_err();
    assert!(e.to_string().contains("no axes to transform"), "{e}");
    let e = fft::try_irfftn(&b, &[0, 1], 0, Norm::Backward).unwrap_err();
    assert!(e.to_string().contains("0 points"), "{e}");
    let e = fft::try_rfftn(Array::<f64, 2>::zeros([4, 3]), &[0, 5], Norm::Backward).unwrap_err();
    assert!(matches!(e, Error::AxisOutOfRange { op: "rfftn", axis: 5, .. }), "{e}");
    let e = fft::try_irfft(&b, 0, 1, Norm::Backward).unwrap_err();
    assert!(e.to_string().contains("2 (m - 1)"), "{e}");
    // Rank 0 has no axis.
    let e = fft::try_fft(Array::<C64, 0>::zeros([]), 0, Norm::Backward).unwrap_err();
    assert!(matches!(e, Error::AxisOutOfRange { rank: 0, .. }), "{e}");
}

#[test]
#[should_panic(expected = "fft: axis 3 does not exist in a rank-2 array")]
fn the_plain_names_panic_with_the_message() {
    let _ = fft::fft(Array::<Complex<f32>, 2>::zeros([2, 2]), 3, Norm::Backward);
}

/// Large batches run on rayon's threads: every lane of a wide array along each axis, against
/// the transform of each lane alone.
#[test]
fn batches_on_threads_transform_every_lane() {
    let shape = [3, 64, 130];
    let data = signal(&shape, 3);
    let a = array3(shape, &data);
    for axis in 0..3 {
        let got = fft::fft(&a, axis, Norm::Backward);
        let want = naive(&data, &shape, axis, true, Norm::Backward);
        assert!(relative_error(got.as_slice(), &want) < 1e-12, "axis {axis}");
    }
}

/// Real lanes of odd length go two through one complex transform: each lane must keep an error
/// relative to its own size (a lane a trillion times smaller than its neighbour), a zero lane
/// stays exactly zero, and a NaN or an infinity spoils no other lane. Along the rows (batches)
/// and along the columns (gathered blocks), forward and back.
#[test]
fn real_lanes_of_odd_length_keep_their_own_accuracy_and_specials() {
    let n = 27;
    // Paired as they come: (1, 1e-12), (1e9, 3e-7), (2.5, 4), (5, 1e-6); the zero, NaN and
    // infinite lanes, and the lanes beside them, alone.
    let sizes = [1.0, 1e-12, 1e9, 3e-7, 0.0, 2.5, 4.0, f64::NAN, 1.0, f64::INFINITY, 5.0, 1e-6];
    let rows = sizes.len();
    let data = signal(&[rows, n], 11);
    let lane = |r: usize| -> Vec<f64> {
        (0..n)
            .map(|j| match sizes[r] {
                s if s.is_nan() && j == 4 => f64::NAN,
                s if s.is_infinite() && j == 0 => f64::INFINITY,
                s if !s.is_finite() => 1.0,
                s => s * data[r * n + j].re,
            })
            .collect()
    };
    let by_rows = Array::from_fn([rows, n], |[r, j]| lane(r)[j]);
    let by_columns = Array::from_fn([n, rows], |[j, r]| lane(r)[j]);
    let half = n / 2 + 1;
    for (axis, spectra) in [(1, fft::rfft(&by_rows, 1, Norm::Backward)), (0, fft::rfft(&by_columns, 0, Norm::Backward))]
    {
        let at = |r: usize, k: usize| if axis == 1 { spectra[[r, k]] } else { spectra[[k, r]] };
        for (r, size) in sizes.iter().enumerate() {
            let x: Vec<C64> = lane(r).iter().map(|&v| C64::new(v, 0.0)).collect();
            let got: Vec<C64> = (0..half).map(|k| at(r, k)).collect();
            if !size.is_finite() {
                // NumPy's (pocketfft's) answer: the lane's own spectrum is not finite.
                assert!(got.iter().any(|c| !c.re.is_finite() || !c.im.is_finite()), "axis {axis} lane {r}");
                continue;
            }
            if *size == 0.0 {
                assert!(got.iter().all(|c| *c == C64::new(0.0, 0.0)), "axis {axis} lane {r}: {got:?}");
                continue;
            }
            let want = &naive(&x, &[n], 0, true, Norm::Backward)[..half];
            assert!(relative_error(&got, want) < 1e-13, "axis {axis} lane {r}: {}", relative_error(&got, want));
        }
        // Back, from finite spectra: each lane as accurate as its own size allows.
        let finite = |r: usize| sizes[r].is_finite();
        let back = fft::irfft(&spectra, n, axis, Norm::Backward);
        for r in (0..rows).filter(|&r| finite(r)) {
            let got: Vec<C64> =
                (0..n).map(|j| C64::new(if axis == 1 { back[[r, j]] } else { back[[j, r]] }, 0.0)).collect();
            let want: Vec<C64> = lane(r).iter().map(|&v| C64::new(v, 0.0)).collect();
            if sizes[r] == 0.0 {
                assert!(got.iter().all(|c| c.re == 0.0), "axis {axis} lane {r}");
            } else {
                assert!(relative_error(&got, &want) < 1e-13, "axis {axis} lane {r}: {}", relative_error(&got, &want));
            }
        }
    }
}

/// In `f32`, two lanes each of whose transforms is finite are not paired where the packed
/// transform's sums could overflow; and the zero frequency's imaginary part is ignored by paired
/// inverse transforms as by a lane alone.
#[test]
fn pairs_keep_finite_results_finite_and_ignore_what_numpy_ignores() {
    // Signs of the first frequency's cosine: its mode about 1.8e38, finite alone, but twice that
    // (infinite) inside a packed transform's sums.
    let n = 7;
    let sign = |j: usize| if (2.0 * std::f32::consts::PI * j as f32 / n as f32).cos() >= 0.0 { 1.0 } else { -1.0 };
    let big = Array::from_fn([4, n], |[r, j]| 4e37f32 * sign(j) * (1.0 - 0.05 * r as f32));
    let spectra = fft::rfft(&big, 1, Norm::Backward);
    for r in 0..4 {
        let alone = fft::rfft(Array::from_fn([n], |[j]| big[[r, j]]), 0, Norm::Backward);
        for k in 0..n / 2 + 1 {
            let (got, want) = (spectra[[r, k]], alone[[k]]);
            assert!(got.re.is_finite() && got.im.is_finite(), "lane {r} k {k}: {got}");
            assert!((got - want).norm() <= 1e-6 * want.norm().max(1e30), "lane {r} k {k}: {got} != {want}");
        }
    }
    // Half spectra with an imaginary part at the zero frequency, several lanes of odd length.
    let (n, rows) = (9, 6);
    let data = signal(&[rows, n / 2 + 1], 5);
    let half = Array::from_fn([rows, n / 2 + 1], |[r, k]| data[r * (n / 2 + 1) + k]);
    let back = fft::irfft(&half, n, 1, Norm::Backward);
    for r in 0..rows {
        let alone = fft::irfft(Array::from_fn([n / 2 + 1], |[k]| half[[r, k]]), n, 0, Norm::Backward);
        for j in 0..n {
            assert!((back[[r, j]] - alone[[j]]).abs() <= 1e-14, "lane {r} j {j}: {} != {}", back[[r, j]], alone[[j]]);
        }
    }
}
