//! Reductions against naive loops, accuracy, NaN handling, and property tests along random axes.

use cnda::prelude::*;
use proptest::prelude::*;

#[test]
fn whole_array_reductions() {
    let a = Array::from_shape_vec([2, 3], vec![3.0, -1.0, 4.0, 1.0, 5.0, 9.0]).unwrap();
    assert_eq!(a.sum(), 21.0);
    assert_eq!(a.product(), -540.0);
    assert_eq!(a.mean(), Some(3.5));
    assert_eq!(a.min(), Some(-1.0));
    assert_eq!(a.max(), Some(9.0));
    assert_eq!(a.argmin(), Some([0, 1]));
    assert_eq!(a.argmax(), Some([1, 2]));
    assert_eq!(a.t().argmax(), Some([2, 1]));
    let e = Array::<f32, 2>::zeros([0, 3]);
    assert_eq!((e.sum(), e.product(), e.mean(), e.min(), e.argmax()), (0.0, 1.0, None, None, None));
    let ints = Array::from_fn([4, 4], |[i, j]| (i * 4 + j) as i64);
    assert_eq!(ints.sum(), 120);
    assert_eq!(ints.slice(s![.., ..;-2]).sum(), (0..16).filter(|k| k % 2 == 1).sum::<i64>());
}

#[test]
fn ten_million_tenths_in_f32_stay_accurate() {
    let a = Array::<f32, 1>::full([10_000_000], 0.1);
    let exact = 1_000_000.0f64;
    let rel = ((a.sum() as f64) - exact).abs() / exact;
    assert!(rel < 1e-4, "relative error {rel}");
    // A running f32 sum is far off: the pairwise sum is what makes the test pass.
    let naive: f32 = a.as_slice().iter().sum();
    assert!(((naive as f64) - exact).abs() / exact > 1e-2);
    // Strided lanes too.
    let m = Array::<f32, 2>::full([2_000, 5_000], 0.1);
    let rel_t = ((m.t().sum() as f64) - exact).abs() / exact;
    assert!(rel_t < 1e-4, "relative error {rel_t}");
}

#[test]
fn nan_propagates_through_min_max_and_arg() {
    let a = Array::from_shape_vec([4], vec![1.0, f64::NAN, -3.0, f64::NAN]).unwrap();
    assert!(a.min().unwrap().is_nan());
    assert!(a.max().unwrap().is_nan());
    assert_eq!(a.argmin(), Some([1]));
    assert_eq!(a.argmax(), Some([1]));
    assert!(a.sum().is_nan());
}

#[test]
fn axis_reductions() {
    let a = Array::from_fn([2, 3, 4], |[i, j, k]| (100 * i + 10 * j + k) as f64);
    let s0: Array<f64, 2> = a.sum_axis(0);
    assert_eq!(s0.shape(), [3, 4]);
    assert_eq!(s0[[2, 3]], 23.0 + 123.0);
    let s2 = a.sum_axis(2);
    assert_eq!(s2[[1, 2]], (0..4).map(|k| 120.0 + k as f64).sum::<f64>());
    let m1 = a.mean_axis(1).unwrap();
    assert_eq!(m1[[1, 0]], 110.0);
    let mx = a.fold_axis(2, f64::MIN, f64::max);
    assert_eq!(mx[[0, 1]], 13.0);
    let empty = Array::<f64, 2>::zeros([3, 0]);
    assert!(empty.mean_axis(1).is_none());
    assert_eq!(empty.sum_axis(1).as_slice(), &[0.0, 0.0, 0.0]);
    assert_eq!(empty.sum_axis(0).shape(), [0]);
}

#[test]
#[should_panic(expected = "axis 3 does not exist in a rank-3 array")]
fn axis_out_of_range_panics_with_the_error() {
    let a = Array::<f32, 3>::zeros([2, 2, 2]);
    let _ = a.sum_axis(3);
}

/// `f` folded along `axis` of a row-major `[_, _, _]` array, lane by lane from its first element.
fn naive_axis(data: &[f64], shape: [usize; 3], axis: usize, f: impl Fn(f64, f64) -> f64) -> Vec<Option<f64>> {
    let mut out_shape = shape.to_vec();
    out_shape.remove(axis);
    let mut out = vec![None; out_shape.iter().product()];
    for i in 0..shape[0] {
        for j in 0..shape[1] {
            for k in 0..shape[2] {
                let ix = [i, j, k];
                let mut o: Vec<usize> = ix.to_vec();
                o.remove(axis);
                let x = data[(i * shape[1] + j) * shape[2] + k];
                let slot = &mut out[o[0] * out_shape[1] + o[1]];
                *slot = Some(slot.map_or(x, |acc| f(acc, x)));
            }
        }
    }
    out
}

fn naive_sum_axis(data: &[f64], shape: [usize; 3], axis: usize) -> Vec<f64> {
    naive_axis(data, shape, axis, |a, b| a + b).into_iter().map(|s| s.unwrap_or(0.0)).collect()
}

/// The lanes' extrema, or `None` when the axis is empty (a rank-2 result otherwise).
fn naive_extrema_axis(data: &[f64], shape: [usize; 3], axis: usize, f: fn(f64, f64) -> f64) -> Option<Vec<f64>> {
    (shape[axis] > 0).then(|| naive_axis(data, shape, axis, f).into_iter().map(Option::unwrap).collect())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn reductions_match_naive_loops(shape in proptest::array::uniform::<_, 3>(0usize..6), axis in 0usize..3,
                                    seed in 0u64..1000, flip in any::<bool>()) {
        let len: usize = shape.iter().product();
        // Small integers: every sum is exact, so pairwise and naive order agree bit for bit.
        let data: Vec<f64> = (0..len).map(|k| ((k as u64 * 7919 + seed) % 17) as f64 - 8.0).collect();
        let a = Array::from_shape_vec(shape, data.clone()).unwrap();
        prop_assert_eq!(a.sum(), data.iter().sum::<f64>());
        prop_assert_eq!(a.min(), data.iter().copied().reduce(f64::min));
        prop_assert_eq!(a.max(), data.iter().copied().reduce(f64::max));
        let s = a.sum_axis(axis);
        let expected = naive_sum_axis(&data, shape, axis);
        prop_assert_eq!(s.as_slice(), expected.as_slice());
        // The same reductions through a non-contiguous view agree with the contiguous copy.
        let v = if flip { a.flip(2) } else { a.view().into_strided() };
        let owned = v.to_owned();
        prop_assert_eq!(v.sum(), owned.sum());
        prop_assert_eq!(v.sum_axis(axis), owned.sum_axis(axis));
        prop_assert_eq!(v.argmax(), owned.argmax());
        prop_assert_eq!(v.min_axis::<2>(axis), owned.min_axis::<2>(axis));
        prop_assert_eq!(v.max_axis::<2>(axis), owned.max_axis::<2>(axis));
        prop_assert_eq!(a.min_axis::<2>(axis).map(|m| m.as_slice().to_vec()), naive_extrema_axis(&data, shape, axis, f64::min));
        prop_assert_eq!(a.max_axis::<2>(axis).map(|m| m.as_slice().to_vec()), naive_extrema_axis(&data, shape, axis, f64::max));
        prop_assert_eq!(a.product(), data.iter().product::<f64>());
    }
}

#[test]
fn min_and_max_along_an_axis_propagate_nan_and_know_empty_axes() {
    let a = Array::from_shape_vec([2, 3], vec![3.0, f64::NAN, 1.0, -2.0, 5.0, 0.5]).unwrap();
    let mn = a.min_axis::<1>(0).unwrap();
    assert_eq!((mn[[0]], mn[[2]]), (-2.0, 0.5));
    assert!(mn[[1]].is_nan());
    let mx = a.max_axis::<1>(1).unwrap();
    assert!(mx[[0]].is_nan());
    assert_eq!(mx[[1]], 5.0);
    // Along a strided axis (hyperplanes streamed) the same answers.
    let t = a.t();
    assert_eq!(t.max_axis::<1>(0).unwrap()[[1]], 5.0);
    assert!(t.min_axis::<1>(1).unwrap()[[1]].is_nan());
    let empty = Array::<f64, 2>::zeros([0, 4]);
    assert!(empty.min_axis::<1>(0).is_none());
    assert_eq!(empty.max_axis::<1>(1).unwrap().shape(), [0]);
    assert!(matches!(a.try_max_axis::<1>(2), Err(Error::AxisOutOfRange { op: "max_axis", .. })));
}
