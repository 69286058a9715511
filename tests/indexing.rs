//! CNDA's three bounds-check levels: `Checked`, `Unchecked` (memory-safe), `DefaultCheck`,
//! against a naive reference of the row-major offset.

use std::panic::{catch_unwind, AssertUnwindSafe};

use cnda::prelude::*;

fn panic_message(f: impl FnOnce()) -> Option<String> {
    let err = catch_unwind(AssertUnwindSafe(f)).err()?;
    Some(err.downcast_ref::<String>().cloned().unwrap_or_else(|| err.downcast_ref::<&str>().unwrap().to_string()))
}

#[test]
fn checked_indexing_panics_naming_axis_index_and_size() {
    let a = Array::<f64, 3>::zeros([2, 3, 4]).with_check::<Checked>();
    let msg = panic_message(|| {
        let _ = a[[1, 3, 0]];
    });
    assert_eq!(
        msg.as_deref(),
        Some("index 3 is out of bounds for axis 1 with size 3; valid indices on this axis are 0..3")
    );
    let msg = panic_message(|| {
        let _ = a[[0, 0, 4]];
    });
    assert!(msg.unwrap().contains("axis 2 with size 4"));
}

#[test]
fn checked_writes_are_checked_too() {
    let mut a = Array::<i32, 2>::zeros([2, 2]).with_check::<Checked>();
    a[[1, 1]] = 3;
    assert_eq!(a.as_slice(), &[0, 0, 0, 3]);
    assert!(panic_message(|| a[[2, 0]] = 1).unwrap().contains("axis 0 with size 2"));
}

#[test]
fn unchecked_indexing_stays_inside_the_allocation() {
    let a = Array::from_fn([3, 4], |[i, j]| 10 * i + j).with_check::<Unchecked>();
    // Wrong on axis 1 but inside this dense array: in release builds it reads the element at
    // flat offset 1*4 + 5 = 9, which is [2, 1]: wrong, but an element of the same array (the
    // `Unchecked` contract); debug builds and feature `bounds-check` check every axis.
    let per_axis = Unchecked::PER_AXIS;
    match panic_message(|| assert_eq!(a[[1, 5]], 21)) {
        None => assert!(!per_axis, "debug builds check every axis"),
        Some(msg) => assert!(per_axis && msg.contains("axis 1 with size 4"), "{msg}"),
    }
    // Past the end of the memory: the flat check panics, naming the first axis out of range.
    let msg = panic_message(|| {
        let _ = a[[3, 0]];
    });
    assert!(msg.unwrap().contains("axis 0 with size 3"));
    let msg = panic_message(|| {
        let _ = a[[2, 4]];
    });
    assert!(msg.unwrap().contains("axis 1 with size 4"));
}

#[test]
fn unchecked_indexing_cannot_reach_memory_through_wrapping_offsets() {
    let a = Array::<u8, 2>::zeros([4, 4]).with_check::<Unchecked>();
    assert!(panic_message(|| {
        let _ = a[[usize::MAX, usize::MAX]];
    })
    .is_some());
    let e = Array::<u8, 2>::zeros([0, 4]).with_check::<Unchecked>();
    assert!(panic_message(|| {
        let _ = e[[0, 0]];
    })
    .is_some());
}

#[test]
fn default_check_checks_every_axis_in_every_build() {
    let a = Array::from_fn([3, 4], |[i, j]| 10 * i + j);
    let wrong_axis = panic_message(|| {
        let _ = a[[1, 5]];
    });
    assert!(wrong_axis.unwrap().contains("axis 1 with size 4"));
    // Past the memory every build panics.
    assert!(panic_message(|| {
        let _ = a[[3, 3]];
    })
    .is_some());
}

#[test]
fn at_and_get_always_check_per_axis() {
    let mut a = Array::from_fn([3, 4], |[i, j]| 10 * i + j).with_check::<Unchecked>();
    assert_eq!(a.at([1, 5]), Err(Error::IndexOutOfBounds { axis: 1, index: 5, size: 4 }));
    assert_eq!(a.get([1, 5]), None);
    assert_eq!(a.get([2, 3]), Some(&23));
    *a.at_mut([0, 1]).unwrap() = 99;
    *a.get_mut([0, 2]).unwrap() = 98;
    assert_eq!(&a.as_slice()[..4], &[0, 99, 98, 3]);
    assert!(a.at_mut([3, 0]).is_err());
    assert!(a.get_mut([0, 4]).is_none());
}

#[test]
fn get_unchecked_reads_and_writes_in_bounds_elements() {
    let mut a = Array::from_fn([2, 3, 4], |[i, j, k]| 100 * i + 10 * j + k);
    // SAFETY: every index below is in bounds.
    unsafe {
        assert_eq!(*a.get_unchecked([1, 2, 3]), 123);
        *a.get_unchecked_mut([0, 1, 2]) = 7;
    }
    assert_eq!(a[[0, 1, 2]], 7);
}

#[cfg(feature = "bounds-check")]
#[test]
fn bounds_check_feature_checks_get_unchecked() {
    let a = Array::<f32, 2>::zeros([2, 2]);
    let msg = panic_message(|| {
        // SAFETY: not upheld on purpose: the feature must catch it before any access.
        let _ = unsafe { a.get_unchecked([0, 2]) };
    });
    assert!(msg.unwrap().contains("axis 1 with size 2"));
}

#[test]
fn every_index_matches_the_naive_offset_in_every_rank() {
    fn check<const N: usize>(shape: [usize; N]) {
        let len: usize = shape.iter().product();
        let a = Array::from_shape_vec(shape, (0..len).collect()).unwrap();
        let v = a.view().into_strided();
        for (index, &x) in a.indexed_iter() {
            let naive = index.iter().zip(&shape).fold(0, |acc, (&i, &n)| acc * n + i);
            assert_eq!(x, naive);
            assert_eq!(a[index], naive);
            assert_eq!(v[index], naive);
            assert_eq!(*a.view().with_check::<Checked>().at(index).unwrap(), naive);
        }
    }
    check([5]);
    check([3, 4]);
    check([2, 3, 4]);
    check([2, 1, 3, 2]);
    check([1, 2, 1, 2, 3]);
    check([2, 1, 2, 1, 2, 1, 2, 1]);
}

#[test]
fn views_index_like_their_owner() {
    let mut a = Array::from_fn([3, 3], |[i, j]| (i * 3 + j) as f32);
    {
        let mut m = a.view_mut();
        m[[2, 2]] = -1.0;
        assert_eq!(m[[0, 1]], 1.0);
        assert_eq!(m.at([2, 2]), Ok(&-1.0));
    }
    let v = a.view();
    assert_eq!(v[[2, 2]], -1.0);
    assert_eq!(v.get([3, 0]), None);
    let s = ArrayView::from_slice([2, 2], &[1, 2, 3, 4]).unwrap();
    assert_eq!(s[[1, 0]], 3);
    assert!(ArrayView::from_slice([2, 2], &[1, 2, 3]).is_err());
}

#[test]
fn squeeze_and_unsqueeze_keep_dense_layouts() {
    let a = Array::from_fn([2, 3], |[i, j]| 10 * i + j);
    let u = a.view().unsqueeze(1);
    assert_eq!(u.shape(), [2, 1, 3]);
    assert_eq!(u[[1, 0, 2]], 12);
    assert!(u.is_contiguous());
    let back = u.squeeze(1);
    assert_eq!(back.shape(), [2, 3]);
    assert_eq!(back, a.view());
    assert!(matches!(a.view().try_squeeze::<1>(0), Err(Error::Layout { .. })));
    assert!(matches!(a.view().try_squeeze::<1>(5), Err(Error::AxisOutOfRange { .. })));
    let owned = a.unsqueeze(2);
    assert_eq!(owned.shape(), [2, 3, 1]);
    assert_eq!(owned[[1, 1, 0]], 11);
}

#[test]
fn matrices_report_rows_and_columns() {
    let a = Array::<f64, 2>::zeros([3, 5]);
    assert_eq!((a.nrows(), a.ncols()), (3, 5));
    assert_eq!((a.view().nrows(), a.view().ncols()), (3, 5));
}
