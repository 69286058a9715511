//! Complex elements against naive loops over num-complex's own operators: arithmetic with
//! broadcasting and scalars on either side, compound assignment, sums, products and means,
//! `dot` and `matmul` (CPU through `gemm`, CUDA through cuBLAS on the CPU-hosted device),
//! `conj`, `abs`, `arg`, `norm_sqr`, the zero-copy part views, `.npy` round trips; the same
//! ops and the part views of device memory on CUDA (the CPU-hosted device) and WebGPU (lavapipe)
//! against the CPU, `matmul` too (cuBLAS, WebGPU's tiled kernel).

use cnda::prelude::*;
use cnda::Complex;
use proptest::prelude::*;

type C64 = Complex<f64>;

fn z(re: f64, im: f64) -> C64 {
    Complex::new(re, im)
}

/// A deterministic complex array of `shape` with parts in `[-1, 1)`.
fn field<const N: usize>(shape: [usize; N], seed: u64) -> Array<C64, N> {
    let mut s = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
    let mut next = move || {
        s = s.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        ((s >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    };
    Array::from_fn(shape, |_| z(next(), next()))
}

fn complex_f32(a: &Array<C64, 2>) -> Array<Complex<f32>, 2> {
    a.map(|v| Complex::new(v.re as f32, v.im as f32))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// `a op b` with `b` a row, a column or a whole array equals num-complex's operator applied
    /// per element (bit for bit: the same operation on the same values).
    #[test]
    fn arithmetic_broadcasts_as_a_naive_loop(rows in 1usize..7, cols in 1usize..7, seed in any::<u64>(), kind in 0usize..3) {
        let a = field([rows, cols], seed);
        let b: Array<C64, 2> = match kind {
            0 => field([rows, cols], seed ^ 1),
            1 => field([1, cols], seed ^ 2),
            _ => field([rows, 1], seed ^ 3),
        };
        let bs = b.shape();
        let at = |i: usize, j: usize| b[[i.min(bs[0] - 1), j.min(bs[1] - 1)]];
        let (sum, diff, prod, quot) = (&a + &b, &a - &b, &a * &b, &a / &b);
        for i in 0..rows {
            for j in 0..cols {
                let (x, y) = (a[[i, j]], at(i, j));
                prop_assert_eq!(sum[[i, j]], x + y);
                prop_assert_eq!(diff[[i, j]], x - y);
                prop_assert_eq!(prod[[i, j]], x * y);
                prop_assert_eq!(quot[[i, j]], x / y);
            }
        }
        let mut c = a.clone();
        c *= &b;
        prop_assert_eq!(&c, &prod);
        c -= z(0.5, -2.0);
        prop_assert_eq!(c[[0, 0]], prod[[0, 0]] - z(0.5, -2.0));
    }

    /// Sums are the pairwise sums of the real and the imaginary parts (the same tree, so the same
    /// bits) and within rounding of a sequential sum; products and means within rounding.
    #[test]
    fn reductions_match_their_parts_and_a_naive_fold(n in 0usize..700, seed in any::<u64>()) {
        let a = field([n], seed);
        let s = a.sum();
        prop_assert_eq!(s, z(a.re().to_owned().sum(), a.im().to_owned().sum()));
        let naive = a.iter().fold(z(0.0, 0.0), |acc, &v| acc + v);
        prop_assert!((s - naive).norm() <= 1e-13 * (n as f64 + 1.0));
        match a.mean() {
            None => prop_assert_eq!(n, 0),
            Some(m) => prop_assert!((m - naive / n as f64).norm() <= 1e-13),
        }
        let small = a.slice(s![..n.min(12)]).to_owned();
        let p = small.product();
        let naive = small.iter().fold(z(1.0, 0.0), |acc, &v| acc * v);
        prop_assert!((p - naive).norm() <= 1e-13 * naive.norm().max(1e-300));
        let by_rows = field([5, n.max(1)], seed).sum_axis::<1>(1);
        let rows = field([5, n.max(1)], seed);
        for i in 0..5 {
            let want = rows.slice(s![i, ..]).to_owned().sum();
            prop_assert_eq!(by_rows[[i]], want);
        }
    }

    /// `matmul` and `dot` against the triple loop, for plain, transposed and sliced operands,
    /// in both precisions.
    #[test]
    fn matmul_matches_the_triple_loop(m in 1usize..9, k in 0usize..9, n in 1usize..9, seed in any::<u64>()) {
        let a = field([m, k], seed);
        let bt = field([n, k], seed ^ 7); // b as its transpose: a strided operand
        let b = bt.t();
        let c = a.matmul(&b);
        for i in 0..m {
            for j in 0..n {
                let want = (0..k).fold(z(0.0, 0.0), |acc, p| acc + a[[i, p]] * bt[[j, p]]);
                prop_assert!((c[[i, j]] - want).norm() <= 1e-13 * (k as f64 + 1.0), "{:?} vs {:?}", c[[i, j]], want);
            }
        }
        let c32 = complex_f32(&a).matmul(&complex_f32(&b.to_owned()));
        for (x, y) in c32.iter().zip(c.iter()) {
            prop_assert!(((x.re as f64 - y.re).hypot(x.im as f64 - y.im)) <= 1e-5 * (k as f64 + 1.0));
        }
        let (u, v) = (field([k], seed ^ 9), field([k], seed ^ 11));
        let want = (0..k).fold(z(0.0, 0.0), |acc, p| acc + u[[p]] * v[[p]]);
        prop_assert!((u.dot(&v) - want).norm() <= 1e-13 * (k as f64 + 1.0));
    }
}

#[test]
fn elementwise_functions_match_num_complex() {
    let mut a = field([4, 5], 3);
    a[[0, 0]] = z(3e300, 4e300); // |z| without overflow, as hypot
    a[[0, 1]] = z(-1.0, 0.0); // the angle's branch: +π
    a[[0, 2]] = z(-1.0, -0.0); // and -π
    let (conj, abs, arg, norm_sqr) = (a.conj(), a.abs(), a.arg(), a.norm_sqr());
    for (idx, v) in a.indexed_iter() {
        assert_eq!(conj[idx], v.conj());
        assert_eq!(abs[idx], v.norm());
        assert_eq!(arg[idx], v.arg());
        assert_eq!(norm_sqr[idx], v.re * v.re + v.im * v.im);
    }
    assert_eq!(abs[[0, 0]], 5e300);
    assert_eq!((arg[[0, 1]], arg[[0, 2]]), (std::f64::consts::PI, -std::f64::consts::PI));
    // On views too, strided and flipped.
    let v = a.slice(s![.., ..;-2]);
    assert_eq!(v.conj(), v.to_owned().conj());
    assert_eq!(-&a, a.map(|v| -v));
    assert_eq!(z(2.0, 1.0) * &a, a.map(|v| z(2.0, 1.0) * v));
    assert_eq!(z(1.0, 0.0) / a.view(), a.map(|v| z(1.0, 0.0) / v));
}

/// Means divide each part by the count: a complex division by `n + 0i` would square `n`
/// (overflowing at 1e36 x 100 in f32) and turn an infinite part's `inf * 0` into NaN.
#[test]
fn means_divide_each_part_by_the_count() {
    let big = Array::full([4, 100], Complex::new(1e35f32, -3e35));
    let mean = big.mean().unwrap();
    assert!((mean - Complex::new(1e35, -3e35)).norm() <= 1e-6 * 3.2e35, "{mean}");
    // Sums and means of a power of two are exact: 100 x 2^1014 would overflow times 100.
    let v = 2f64.powi(1014);
    let big = Array::full([4, 100], z(v, -v));
    assert_eq!(big.mean(), Some(z(v, -v)));
    assert!(big.mean_axis::<1>(1).unwrap().iter().all(|&m| m == z(v, -v)));
    let inf = Array::from_shape_vec([2], vec![z(1.0, f64::INFINITY), z(1.0, 0.0)]).unwrap();
    assert_eq!(inf.mean(), Some(z(1.0, f64::INFINITY)));
    assert_eq!(inf.mean_axis::<0>(0).unwrap()[[]], z(1.0, f64::INFINITY));
}

#[test]
fn part_views_are_zero_copy_and_write_through() {
    let mut a = field([3, 4], 5);
    let before = a.clone();
    let addr = |x: &f64| x as *const f64 as usize;
    let base = &a[[1, 2]] as *const C64 as usize;
    assert_eq!((addr(&a.re()[[1, 2]]), addr(&a.im()[[1, 2]])), (base, base + 8));
    assert_eq!(a.re().strides(), [8, 2]);
    for (idx, v) in before.indexed_iter() {
        assert_eq!((a.re()[idx], a.im()[idx]), (v.re, v.im));
    }
    a.im_mut().fill(0.0);
    a.re_mut().slice_mut(s![1, ..]).fill(7.0);
    for (idx, v) in before.indexed_iter() {
        let want = if idx[0] == 1 { 7.0 } else { v.re };
        assert_eq!(a[idx], z(want, 0.0));
    }
    // Both parts at once, of a transposed view.
    let mut b = before.clone();
    let (re, im) = b.view_mut().t().parts();
    let (mut re, mut im) = (re.t(), im.t());
    re.fill(1.0);
    im.assign(&before.re());
    assert!(b.iter().zip(before.iter()).all(|(x, y)| *x == z(1.0, y.re)));
    // f32 parts are 4 bytes apart.
    let c = complex_f32(&before);
    let base = &c[[2, 3]] as *const Complex<f32> as usize;
    assert_eq!(&c.im()[[2, 3]] as *const f32 as usize, base + 4);
}

/// NumPy's `allclose` of complex arrays: the magnitudes of the difference and of `other`, not
/// the parts one by one.
#[test]
fn allclose_measures_magnitudes() {
    let a = field([3, 4], 5);
    let b = a.map(|v| v * z(1.0, 1e-9)); // |a - b| = 1e-9 |a|, |b| = |a| to rounding
    assert!(a.allclose(&b, 2e-9, 0.0) && !a.allclose(&b, 0.5e-9, 0.0));
    let (p, o) = (Array::full([2], z(3.0, 4.0)), Array::full([1], z(0.0, 0.0)));
    assert!(p.allclose(&o, 0.0, 5.0) && !p.allclose(&o, 0.0, 4.99)); // each part is within 4.99
    assert!(p.abs_diff_eq(&Array::full([2], z(0.0, 0.0)), 5.0) && !p.abs_diff_eq(&o, 5.0));
    let nan = Array::full([1], z(f64::NAN, 0.0));
    assert!(!nan.allclose(&nan, 1.0, 1.0));
    // hypot(inf, NaN) is infinite, yet a NaN part is never close; equal infinities are (NumPy's).
    let (x, y) = (Array::full([1], z(1.0, f64::NAN)), Array::full([1], z(f64::INFINITY, f64::NAN)));
    assert!(!x.allclose(&y, 1.0, 0.0) && !y.allclose(&y, 1.0, 0.0));
    let inf = Array::full([2], z(f64::INFINITY, -1.0));
    assert!(inf.allclose(&inf, 0.0, 0.0) && !inf.allclose(&Array::full([2], z(-f64::INFINITY, -1.0)), 1.0, 1.0));
    let real = Array::full([1], f64::INFINITY);
    assert!(real.allclose(&real, 0.0, 0.0) && !real.allclose(&Array::full([1], 1.0), 1.0, 1.0));
    let a32 = complex_f32(&a);
    assert!(a32.view().allclose(&a32.map(|v| v * Complex::new(1.0f32, 1e-7)), 3e-7, 0.0));
}

#[test]
fn complex_dtypes_are_numpys() {
    assert_eq!(<C64 as Element>::DTYPE, DType::C128);
    assert_eq!(<Complex<f32> as Element>::DTYPE.name(), "complex64");
    assert_eq!(DType::C128.size(), 16);
    assert!(DType::C64.is_complex() && !DType::C64.is_float());
    assert_eq!((DType::C64.part(), DType::F64.part()), (Some(DType::F32), None));
    assert!(<C64 as cnda::Arithmetic>::is_nan(z(1.0, f64::NAN)));
}

#[cfg(feature = "npy")]
#[test]
fn npy_round_trips_complex_arrays() {
    use cnda::interop::npy;
    let a = field([3, 5], 8);
    let mut file = Vec::new();
    npy::write(&mut file, a.t()).unwrap();
    // NumPy's header for complex128.
    assert!(String::from_utf8_lossy(&file[..128]).contains("'descr': '<c16'"));
    let back: Array<C64, 2> = npy::read(file.as_slice()).unwrap();
    assert_eq!(back, a.t().to_owned());
    assert!(npy::read::<f64, 2>(file.as_slice()).is_err());
    let small = complex_f32(&a);
    let mut file = Vec::new();
    npy::write(&mut file, small.view()).unwrap();
    assert!(String::from_utf8_lossy(&file[..128]).contains("'descr': '<c8'"));
    assert_eq!(npy::read::<Complex<f32>, 2>(file.as_slice()).unwrap(), small);
}

/// Every elementwise op on a device against the CPU's: bit for bit where the device rounds each
/// product and sum once in num-complex's order (`exact`: CUDA, and lavapipe's WebGPU), on dense
/// and strided operands, with scalars on either side and in place; the magnitude and angle within
/// a few ulps (the device's own `hypot` and `atan2`, Vulkan's f32 `atan2` within its looser
/// bound); sums, products and means within rounding
/// (another order of the same sums); both precisions (`Complex<f64>` where the device has f64).
#[cfg(any(feature = "cuda", feature = "wgpu"))]
fn device_cases<D: cnda::kernel::Upload>(dev: &D, f64_arg: bool, f32_arg_tol: f32, ieee_specials: bool)
where
    D::Target: cnda::kernel::ElementwiseKernels
        + cnda::kernel::ReduceKernels
        + cnda::kernel::CopyKernels
        + cnda::kernel::Download,
{
    let (a, b) = (field([5, 7], 1), field([5, 7], 2));
    let (da, db) = (a.to_device(dev), b.to_device(dev));
    assert_eq!((&da + &db).to_host(), &a + &b);
    assert_eq!((&da - &db).to_host(), &a - &b);
    assert_eq!((&da * &db).to_host(), &a * &b);
    assert_eq!((&da / &db).to_host(), &a / &b);
    let s = z(0.25, -1.5);
    assert_eq!((&da * s).to_host(), &a * s);
    assert_eq!((s / &da).to_host(), s / &a);
    assert_eq!((-&da).to_host(), -&a);
    assert_eq!(da.conj().to_host(), a.conj());
    assert_eq!(da.norm_sqr().to_host(), a.norm_sqr());
    let abs = da.abs().to_host();
    assert!(abs.iter().zip(a.abs().iter()).all(|(x, y)| (x - y).abs() <= 4.5e-16 * y.abs()));
    if f64_arg {
        let arg = da.arg().to_host();
        assert!(arg.iter().zip(a.arg().iter()).all(|(x, y)| (x - y).abs() <= 1e-15));
    } else {
        assert!(matches!(da.try_arg(), Err(cnda::Error::UnsupportedDType { .. })));
    }
    // Strided and broadcast operands, and in place.
    let row = b.slice(s![2..3, ..]).to_owned();
    assert_eq!(
        (da.slice(s![1.., ..;-2]) * db.slice(s![..4, ..;2])).to_host(),
        a.slice(s![1.., ..;-2]) * b.slice(s![..4, ..;2])
    );
    assert_eq!((&da / &row.to_device(dev)).to_host(), &a / &row);
    let (mut dc, mut c) = (a.to_device(dev), a.clone());
    dc *= &db;
    c *= &b;
    dc -= s;
    c -= s;
    dc.view_mut().slice_mut(s![.., 1..3]).assign(&row.slice(s![.., ..2]).to_device(dev));
    c.slice_mut(s![.., 1..3]).assign(&row.slice(s![.., ..2]));
    assert_eq!(dc.to_host(), c);
    // Part views of device memory: read by the device's ops, written through by its copies
    // (a real array promoted into a complex one, as `fft` of real data needs).
    assert_eq!(da.re().to_owned().to_host(), a.re().to_owned());
    assert_eq!((da.im() * 2.0).to_host(), &a.im() * 2.0);
    let (mut dp, mut p) = (a.to_device(dev), a.clone());
    dp.im_mut().assign(&db.slice(s![.., ..;-1]).re());
    p.im_mut().assign(&b.slice(s![.., ..;-1]).re());
    dp.re_mut().slice_mut(s![1, ..]).fill(7.0);
    p.re_mut().slice_mut(s![1, ..]).fill(7.0);
    assert_eq!(dp.to_host(), p);
    let mut promoted = Array::<C64, 2, D::Target>::zeros_in(&da.allocator(), [5, 7]);
    let magnitudes = da.norm_sqr();
    promoted.re_mut().assign(&magnitudes);
    assert_eq!(promoted.to_host(), a.norm_sqr().map(|m| z(m, 0.0)));
    {
        let (mut re, mut im) = dp.parts_mut();
        re.slice_mut(s![.., 2..]).fill(-0.5);
        im *= 2.0;
        let (mut re, mut im) = p.parts_mut();
        re.slice_mut(s![.., 2..]).fill(-0.5);
        im *= 2.0;
    }
    assert_eq!(dp.to_host(), p);
    let empty = Array::<C64, 2, D::Target>::zeros_in(&da.allocator(), [0, 3]);
    assert_eq!(empty.im().to_owned().to_host().shape(), [0, 3]);
    // Non-finite operands: the same IEEE operations in the same order (NaN payloads aside).
    let odd = Array::from_shape_vec(
        [6],
        vec![z(1.0, 0.0), z(0.0, 0.0), z(f64::INFINITY, 1.0), z(f64::NAN, 2.0), z(-0.0, f64::INFINITY), z(3.0, -4.0)],
    )
    .unwrap();
    let flipped = odd.slice(s![..;-1]).to_owned();
    let (dodd, dflipped) = (odd.to_device(dev), flipped.to_device(dev));
    let same = |got: &Array<C64, 1>, want: &Array<C64, 1>| {
        let part = |x: f64, y: f64| x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan());
        got.iter().zip(want.iter()).all(|(x, y)| part(x.re, y.re) && part(x.im, y.im))
    };
    assert!(same(&(&dodd * &dflipped).to_host(), &(&odd * &flipped)));
    assert!(same(&(&dodd / &dflipped).to_host(), &(&odd / &flipped)));
    let abs = dodd.abs().to_host();
    assert_eq!((abs[[2]], abs[[4]], abs[[1]], abs[[5]]), (f64::INFINITY, f64::INFINITY, 0.0, 5.0));
    assert!(abs[[3]].is_nan());
    let mixed = Array::from_shape_vec([2], vec![z(f64::INFINITY, f64::NAN), z(f64::NAN, -f64::INFINITY)]).unwrap();
    let got = mixed.to_device(dev).abs().to_host();
    if ieee_specials {
        assert!(got.iter().all(|&m| m == f64::INFINITY), "|inf + NaN i| is inf, as hypot: {got:?}");
    }
    // Reductions; means divide each part by the count.
    let v = 2f64.powi(1014); // 100 v is exact; 100 v times 100 overflows
    let big = Array::full([3, 100], z(v, -v));
    assert_eq!(big.to_device(dev).mean_axis::<1>(1).unwrap().to_host(), Array::full([3], z(v, -v)));
    let near = |x: C64, y: C64, tol: f64| (x - y).norm() <= tol * y.norm().max(1.0);
    assert!(near(da.sum(), a.sum(), 1e-14));
    assert!(near(da.mean().unwrap(), a.mean().unwrap(), 1e-14));
    let small = field([9], 3);
    assert!(near(small.to_device(dev).product(), small.product(), 1e-14));
    let (rows, want) = (da.sum_axis::<1>(1).to_host(), a.sum_axis::<1>(1));
    assert!(rows.iter().zip(want.iter()).all(|(x, y)| near(*x, *y, 1e-14)));
    // Complex<f32>.
    let a32 = complex_f32(&a);
    let d32 = a32.to_device(dev);
    assert_eq!(d32.im().to_owned().to_host(), a32.im().to_owned());
    assert_eq!((d32.slice(s![1.., ..;-2]).re() + 1.0).to_host(), &a32.slice(s![1.., ..;-2]).re() + 1.0);
    assert_eq!((&d32 * &d32).to_host(), &a32 * &a32);
    assert_eq!((&d32 / &d32.conj()).to_host(), &a32 / &a32.conj());
    let (arg, want) = (d32.arg().to_host(), a32.arg());
    assert!(arg.iter().zip(want.iter()).all(|(x, y)| (x - y).abs() <= f32_arg_tol), "{arg:?} {want:?}");
    let (abs, want) = (d32.slice(s![.., ..;-3]).abs().to_host(), a32.slice(s![.., ..;-3]).abs());
    assert!(abs.iter().zip(want.iter()).all(|(x, y)| (x - y).abs() <= 2.5e-7 * y), "{abs:?} {want:?}");
    let (total, want) = (d32.sum(), a32.sum());
    assert!((total - want).norm() <= 1e-5 * want.norm().max(1.0));
}

/// A device's complex `matmul` with plain and transposed operands, across several of WebGPU's
/// 16 x 16 tiles and with an empty inner dimension, against the CPU's (`Complex<f64>` when
/// `f64`).
#[cfg(any(feature = "cuda", feature = "wgpu"))]
fn matmul_cases<D: cnda::kernel::Upload>(dev: &D, f64: bool)
where
    D::Target: cnda::kernel::MatmulKernels + cnda::kernel::CopyKernels + cnda::kernel::Download,
{
    for (m, k, n) in [(3, 4, 5), (1, 7, 2), (6, 1, 6), (4, 0, 3), (17, 33, 18)] {
        let (a, bt) = (field([m, k], 1), field([n, k], 2));
        if f64 {
            let want = a.matmul(&bt.t());
            let got = a.to_device(dev).matmul(&bt.to_device(dev).t()).to_host();
            assert!(got.iter().zip(want.iter()).all(|(x, y)| (x - y).norm() <= 1e-13), "{m}x{k}x{n}");
        }
        let want = complex_f32(&a).matmul(&complex_f32(&bt).t());
        let got = complex_f32(&a).to_device(dev).matmul(&complex_f32(&bt).to_device(dev).t()).to_host();
        assert!(got.iter().zip(want.iter()).all(|(x, y)| (x - y).norm() <= 2e-5), "{m}x{k}x{n} f32");
    }
}

#[cfg(feature = "cuda")]
mod cuda {
    use super::*;

    fn device() -> Option<CudaDevice> {
        match CudaDevice::new(0) {
            Ok(dev) => Some(dev),
            Err(e) => {
                assert!(std::env::var_os("CNDA_REQUIRE_CUDA").is_none(), "CNDA_REQUIRE_CUDA is set but: {e}");
                eprintln!("SKIP: no CUDA device: {e}");
                None
            }
        }
    }

    /// cuBLAS's `zgemm`/`cgemm` against the CPU's.
    #[test]
    fn matmul_matches_the_cpu() {
        let Some(dev) = device() else { return };
        matmul_cases(&dev, true);
    }

    /// Complex operands 8 bytes past cuBLAS's 16-byte alignment (aligned for `Complex<f64>`, as
    /// a DLPack import may give them) are copied before `zgemm`: the same product.
    #[test]
    fn misaligned_operands_are_copied_for_cublas() {
        let Some(dev) = device() else { return };
        let (a, b) = (field([3, 4], 8), field([4, 2], 9));
        let words: Vec<f64> = std::iter::once(0.0).chain(a.iter().flat_map(|v| [v.re, v.im])).collect();
        let raw = Array::from_shape_vec([words.len()], words).unwrap().to_device(&dev);
        let addr = raw.device_ptr() + 8;
        // SAFETY: the 24 words after `raw`'s first are `a`'s 12 complex numbers, row-major;
        // `raw`, kept by the array, holds them allocated, and nothing else writes them.
        let shifted = unsafe { Array::<C64, 2, Cuda>::from_device_memory(&dev, addr, [3, 4], raw) };
        assert_eq!(shifted.device_ptr() % 16, 8, "one word past a 16-byte boundary");
        let got = shifted.matmul(&b.to_device(&dev)).to_host();
        assert!(got.iter().zip(a.matmul(&b).iter()).all(|(x, y)| (x - y).norm() <= 1e-13));
        let got = b.t().to_owned().to_device(&dev).matmul(&shifted.t()).to_host();
        assert!(got.iter().zip(b.t().matmul(&a.t()).iter()).all(|(x, y)| (x - y).norm() <= 1e-13));
    }

    #[test]
    fn elementwise_ops_and_reductions_match_the_cpu() {
        let Some(dev) = device() else { return };
        device_cases(&dev, true, 4e-7, true);
    }
}

#[cfg(feature = "wgpu")]
mod wgpu {
    use super::*;

    fn device() -> Option<WgpuDevice> {
        match WgpuDevice::new() {
            Ok(dev) => Some(dev),
            Err(e) => {
                assert!(std::env::var_os("CNDA_REQUIRE_WGPU").is_none(), "CNDA_REQUIRE_WGPU is set but: {e}");
                eprintln!("SKIP: no WebGPU adapter: {e}");
                None
            }
        }
    }

    #[test]
    fn elementwise_ops_and_reductions_match_the_cpu() {
        let Some(dev) = device() else { return };
        if !dev.supports::<C64>() {
            eprintln!("SKIP: the adapter has no f64 shaders (Complex<f64>)");
            return;
        }
        // Vulkan has no f64 `atan2`: the angle of a Complex<f64> is refused; its f32 one may be
        // 4096 ulps off (lavapipe's is within about 16). Nor does it promise IEEE infinities
        // beside NaNs: lavapipe's |inf + NaN i| is NaN.
        device_cases(&dev, false, 4e-6, false);
    }

    /// The tiled WGSL kernel, `Complex<f64>` where the adapter has f64 shaders.
    #[test]
    fn matmul_matches_the_cpu() {
        let Some(dev) = device() else { return };
        matmul_cases(&dev, dev.supports::<C64>());
    }
}
