//! Zero-copy conversion between cnda and ndarray views (feature `ndarray`): random shapes,
//! steps (negative included) and axis orders, element by element and address by address.
#![cfg(feature = "ndarray")]

use cnda::prelude::*;
use ndarray::{s, Array3, SliceInfoElem};
use proptest::prelude::*;

fn slice_elem(start: usize, step: isize) -> SliceInfoElem {
    SliceInfoElem::Slice { start: start as isize, end: None, step }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn views_round_trip_through_ndarray(
        shape in proptest::collection::vec(0usize..6, 3),
        steps in proptest::collection::vec(prop_oneof![Just(1isize), Just(2), Just(-1), Just(-2)], 3),
        starts in proptest::collection::vec(0usize..3, 3),
        order in Just([0usize, 1, 2]).prop_shuffle(),
    ) {
        let a = Array3::from_shape_fn((shape[0], shape[1], shape[2]), |(i, j, k)| (i * 100 + j * 10 + k) as i64);
        let starts: Vec<usize> = starts.iter().zip(&shape).map(|(&s, &n)| s.min(n)).collect();
        let info = [slice_elem(starts[0], steps[0]), slice_elem(starts[1], steps[1]), slice_elem(starts[2], steps[2])];
        let info = ndarray::SliceInfo::<_, ndarray::Ix3, ndarray::Ix3>::try_from(info).unwrap();
        let v = a.slice(info).permuted_axes(order);
        let c = ArrayView::<i64, 3>::from_ndarray(v.view()).unwrap();
        prop_assert_eq!(c.shape().to_vec(), v.shape().to_vec());
        for ((i, j, k), x) in v.indexed_iter() {
            prop_assert_eq!(c[[i, j, k]], *x);
            prop_assert!(core::ptr::eq(&c[[i, j, k]], x), "not the same element");
        }
        let back = c.to_ndarray();
        prop_assert_eq!(back.shape(), v.shape());
        for ((i, j, k), x) in v.indexed_iter() {
            prop_assert!(core::ptr::eq(&back[[i, j, k]], x));
        }
    }
}

#[test]
fn mutable_views_write_through_both_ways() {
    let mut a = Array3::<f64>::zeros((2, 3, 4));
    {
        let mut c = ArrayViewMut::<f64, 3>::from_ndarray(a.slice_mut(s![.., ..;-1, 1..])).unwrap();
        c[[1, 0, 2]] = 5.0; // a[1, 2, 3]
        c.to_ndarray()[[0, 2, 0]] = 6.0; // a[0, 0, 1]
    }
    assert_eq!(a[[1, 2, 3]], 5.0);
    assert_eq!(a[[0, 0, 1]], 6.0);
    let mut b = Array::<f64, 2>::zeros([3, 2]);
    b.view_mut().t().to_ndarray().row_mut(1).fill(1.0);
    assert_eq!(b.column(1).iter().copied().collect::<Vec<_>>(), [1.0, 1.0, 1.0]);
}

#[test]
fn rank_mismatch_is_an_error_and_broadcast_views_convert_read_only() {
    let a = Array3::<f32>::zeros((2, 2, 2));
    let e = ArrayView::<f32, 2>::from_ndarray(a.view()).unwrap_err();
    assert!(e.to_string().contains("the ndarray view has 3 axes, the cnda view 2"), "{e}");
    let row = ndarray::Array1::from_vec(vec![1.0f32, 2.0]);
    let wide = row.broadcast((3, 2)).unwrap();
    let c = ArrayView::<f32, 2>::from_ndarray(wide).unwrap();
    assert_eq!(c.strides(), [0, 1]);
    assert_eq!(c.sum(), 9.0);
}
