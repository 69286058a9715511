//! Views of run-time rank (`DynView`, `DynViewMut`) against the typed views they convert to: the
//! same elements at the same indices, the same refusals, in row-major order.

use cnda::prelude::*;
use cnda::view::{DynView, DynViewMut};
use proptest::prelude::*;

#[test]
fn row_major_views_index_like_the_typed_ones() {
    let data: Vec<i64> = (0..60).collect();
    let v = DynView::from_slice(&[3, 4, 5], &data).unwrap();
    assert_eq!((v.ndim(), v.shape(), v.strides(), v.len()), (3, &[3, 4, 5][..], &[20, 5, 1][..], 60));
    assert!(v.is_contiguous());
    assert_eq!(v.as_slice(), Some(&data[..]));
    let typed = ArrayView::<i64, 3, RowMajor>::from_slice([3, 4, 5], &data).unwrap();
    for i in 0..3 {
        for j in 0..4 {
            for k in 0..5 {
                assert_eq!(v.at(&[i, j, k]).unwrap(), &typed[[i, j, k]]);
            }
        }
    }
}

#[test]
fn refusals_are_typed_errors_with_their_numbers() {
    let data = [0f32; 12];
    let v = DynView::from_slice(&[3, 4], &data).unwrap();
    assert_eq!(v.at(&[3, 0]), Err(Error::IndexOutOfBounds { axis: 0, index: 3, size: 3 }));
    assert_eq!(v.at(&[0, 0, 0]), Err(Error::RankMismatch { op: "DynView::at", expected: 2, got: 3 }));
    assert!(v.at(&[1]).unwrap_err().to_string().contains("got 1 axes where the array has 2"));
    assert!(v.get(&[2, 4]).is_none());
    assert!(matches!(DynView::from_slice(&[5, 3], &data), Err(Error::LengthMismatch { .. })));
    assert!(matches!(DynView::<f32>::from_slice(&[0, 1 << 62], &[]), Err(Error::Overflow { .. })));
    assert!(matches!(DynView::from_slice_strided(&[3, 4], &[4], 0, &data), Err(Error::RankMismatch { .. })));
    assert!(matches!(DynView::from_slice_strided(&[3, 4], &[5, 1], 0, &data), Err(Error::Layout { .. })));
    assert!(matches!(v.clone().try_into_rank::<3>(), Err(Error::RankMismatch { expected: 2, got: 3, .. })));
    let mut m = [0u8; 4];
    assert!(matches!(DynViewMut::from_slice_strided(&[4, 2], &[1, 0], 0, &mut m), Err(Error::Layout { .. })));
}

#[test]
fn mutable_views_write_where_the_typed_ones_read() {
    let mut data = vec![0i32; 24];
    {
        // Column-major 4 x 6: strides (1, 4).
        let mut v = DynViewMut::from_slice_strided(&[4, 6], &[1, 4], 0, &mut data).unwrap();
        assert!(!v.is_contiguous() && v.as_mut_slice().is_none());
        *v.at_mut(&[2, 5]).unwrap() = 7;
        assert_eq!(v.at(&[2, 5]), Ok(&7));
        let mut typed = v.into_rank::<2>();
        typed[[3, 0]] = 9;
    }
    assert_eq!((data[2 + 5 * 4], data[3]), (7, 9));
    let mut row = DynViewMut::from_slice_strided(&[6], &[4], 1, &mut data).unwrap();
    row.fill(-1);
    assert_eq!(data.iter().filter(|&&x| x == -1).count(), 6);
}

#[test]
fn a_length_one_axis_may_have_any_stride() {
    // Its stride is never stepped: before, the carry added it first and overflowed in debug builds.
    let data = [1u8, 2];
    let v = DynView::from_slice_strided(&[2, 1], &[1, isize::MAX], 0, &data).unwrap();
    assert_eq!(v.to_vec(), [1, 2]);
    let w = DynView::from_slice_strided(&[1, 2], &[isize::MIN, 1], 0, &data).unwrap();
    assert_eq!(w.to_vec(), [1, 2]);
}

#[test]
fn typed_views_convert_both_ways() {
    let a = Array::from_fn([4, 5, 2], |[i, j, k]| (i * 100 + j * 10 + k) as f64);
    let t = a.t();
    let d: DynView<'_, f64> = t.into();
    assert_eq!(d.shape(), &[2, 5, 4]);
    assert_eq!(d.to_vec(), t.iter().copied().collect::<Vec<_>>());
    assert_eq!(d.into_rank::<3>(), t);
    let mut b = a.clone();
    let mut flipped: DynViewMut<'_, f64> = b.view_mut().flip(1).into();
    *flipped.at_mut(&[0, 0, 0]).unwrap() = -5.0;
    assert_eq!(b[[0, 4, 0]], -5.0);
}

/// A shape, strides and offset that stay inside a slice of `len` elements: random strides
/// (flips and repeats included), shifted so the lowest offset is 0.
fn geometry() -> impl Strategy<Value = (Vec<usize>, Vec<isize>, usize, usize)> {
    (1usize..5).prop_flat_map(|rank| {
        (proptest::collection::vec(0usize..5, rank), proptest::collection::vec(-7isize..8, rank)).prop_map(
            |(shape, strides)| {
                let empty = shape.contains(&0);
                let low: isize = shape.iter().zip(&strides).map(|(&n, &s)| (n.max(1) as isize - 1) * s.min(0)).sum();
                let high: isize = shape.iter().zip(&strides).map(|(&n, &s)| (n.max(1) as isize - 1) * s.max(0)).sum();
                let offset = (-low) as usize;
                let len = if empty { offset } else { offset + high as usize + 1 };
                (shape, strides, offset, len)
            },
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Every index reaches the element the offset arithmetic names, in row-major order.
    #[test]
    fn elements_are_where_the_strides_say((shape, strides, offset, len) in geometry()) {
        let data: Vec<u32> = (0..len as u32).collect();
        let v = DynView::from_slice_strided(&shape, &strides, offset, &data).unwrap();
        let mut expected = Vec::new();
        let mut index = vec![0usize; shape.len()];
        let count: usize = shape.iter().product();
        for _ in 0..count {
            let at = offset as isize + index.iter().zip(&strides).map(|(&i, &s)| i as isize * s).sum::<isize>();
            prop_assert_eq!(v.at(&index).unwrap(), &data[at as usize]);
            expected.push(data[at as usize]);
            for axis in (0..shape.len()).rev() {
                index[axis] += 1;
                if index[axis] < shape[axis] { break; }
                index[axis] = 0;
            }
        }
        prop_assert_eq!(v.to_vec(), expected);
        prop_assert_eq!(v.len(), count);
        if v.is_contiguous() && count > 0 {
            prop_assert_eq!(v.as_slice().unwrap(), &data[offset..offset + count]);
        }
    }

    /// A slice one element short is refused, never read past.
    #[test]
    fn a_short_slice_is_refused((shape, strides, offset, len) in geometry()) {
        prop_assume!(len > 0 && !shape.contains(&0));
        let data = vec![0u8; len - 1];
        prop_assert!(DynView::from_slice_strided(&shape, &strides, offset, &data).is_err());
    }
}
