//! View algebra: fixed cases, result layouts in the type, copies, and bad input as typed errors.

use cnda::prelude::*;

fn grid() -> Array<usize, 2> {
    Array::from_fn([3, 4], |[i, j]| 10 * i + j)
}

fn collect<T: Pod, const N: usize, L: Layout, C: BoundsCheck>(v: ArrayView<'_, T, N, L, C>) -> Vec<T> {
    v.iter().copied().collect()
}

#[test]
fn transpose_of_row_major_is_col_major_by_type() {
    let a = grid();
    let t: ArrayView<usize, 2, ColMajor> = a.t();
    assert_eq!(t.shape(), [4, 3]);
    assert_eq!(t[[3, 2]], 23);
    assert!(t.is_fortran_contiguous());
    let back: ArrayView<usize, 2, RowMajor> = t.t();
    assert_eq!(back, a.view());
    let owned: Array<usize, 2, Cpu, ColMajor> = a.clone().into_t();
    assert_eq!(owned.view(), t);
}

#[test]
fn row_ranges_stay_row_major_and_other_slices_are_strided() {
    let a = grid();
    let rows: ArrayView<usize, 2, RowMajor> = a.slice(s![1..3, ..]);
    assert_eq!(rows.as_slice(), &[10, 11, 12, 13, 20, 21, 22, 23]);
    let plane: ArrayView<usize, 1, RowMajor> = a.slice(s![2, ..]);
    assert_eq!(plane.as_slice(), &[20, 21, 22, 23]);
    let inner: ArrayView<usize, 2, Strided> = a.slice(s![1..-1, 1..-1]);
    assert_eq!(collect(inner), vec![11, 12]);
    let cols: ArrayView<usize, 2, Strided> = a.slice(s![.., ..;2]);
    assert_eq!(collect(cols), vec![0, 2, 10, 12, 20, 22]);
    let f = a.to_layout::<ColMajor>();
    let col_block: ArrayView<usize, 2, ColMajor> = f.slice(s![.., 1..3]);
    assert_eq!(collect(col_block), vec![1, 2, 11, 12, 21, 22]);
}

#[test]
fn slice_items_follow_the_documented_rules() {
    let a = Array::from_fn([6], |[i]| i as i32);
    assert_eq!(collect(a.slice(s![1..-1])), vec![1, 2, 3, 4]);
    assert_eq!(collect(a.slice(s![..;2])), vec![0, 2, 4]);
    assert_eq!(collect(a.slice(s![..;-2])), vec![5, 3, 1]);
    assert_eq!(collect(a.slice(s![1..4;-1])), vec![3, 2, 1]);
    assert_eq!(collect(a.slice(s![2..=3])), vec![2, 3]);
    assert_eq!(collect(a.slice(s![..=-1])), vec![0, 1, 2, 3, 4, 5]);
    assert_eq!(collect(a.slice(s![-2..])), vec![4, 5]);
    assert_eq!(collect(a.slice(s![3..3])), Vec::<i32>::new());
    let r0: ArrayView<i32, 0, RowMajor> = a.slice(s![-1]);
    assert_eq!(r0[[]], 5);
    let (lo, hi) = (1usize, 4usize);
    assert_eq!(collect(a.slice(s![lo..hi;2])), vec![1, 3]);
}

#[test]
fn fixed_geometry_of_views() {
    let a = Array::<f64, 3>::zeros([3, 4, 5]);
    assert_eq!(a.strides(), [20, 5, 1]);
    assert_eq!(a.permute([2, 0, 1]).strides(), [1, 20, 5]);
    assert_eq!(a.t().strides(), [1, 5, 20]);
    assert_eq!(a.flip(1).strides(), [20, -5, 1]);
    assert_eq!(a.index_axis(1, 2).shape(), [3, 5]);
    assert_eq!(a.narrow(2, 1, 3).shape(), [3, 4, 3]);
    assert_eq!(a.broadcast_to([2, 3, 4, 5]).strides(), [0, 20, 5, 1]);
    let b = Array::<f64, 3>::zeros([2, 3, 4]);
    assert_eq!(b.strides(), [12, 4, 1]);
}

#[test]
fn index_axis_and_flip_select_the_right_elements() {
    let a = grid();
    assert_eq!(collect(a.index_axis(0, 1)), vec![10, 11, 12, 13]);
    assert_eq!(collect(a.index_axis(1, 2)), vec![2, 12, 22]);
    assert_eq!(collect(a.flip(0).index_axis(1, 0)), vec![20, 10, 0]);
    assert_eq!(a.flip(1)[[0, 0]], 3);
}

#[test]
fn reshape_is_zero_copy_for_contiguous_views_and_an_error_otherwise() {
    let a = grid();
    let r: ArrayView<usize, 3, RowMajor> = a.reshape([2, 2, 3]);
    assert_eq!(r.as_slice().as_ptr(), a.as_slice().as_ptr());
    assert_eq!(r[[1, 1, 2]], 23);
    let err = a.t().try_reshape([12]).unwrap_err();
    assert!(matches!(err, Error::Layout { op: "reshape", .. }), "{err}");
    assert!(err.to_string().contains("call `.contiguous()` first"));
    let flat = a.t().contiguous();
    assert_eq!(flat.view().reshape([12]).as_slice(), &[0, 10, 20, 1, 11, 21, 2, 12, 22, 3, 13, 23]);
    assert!(matches!(a.try_reshape([5, 2]), Err(Error::LengthMismatch { expected: 10, got: 12, .. })));
}

#[test]
fn broadcast_views_repeat_without_copying() {
    let row = Array::from_shape_vec([1, 3], vec![1, 2, 3]).unwrap();
    let b = row.broadcast_to([2, 2, 3]);
    assert_eq!(collect(b), vec![1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3]);
    assert_eq!(b.strides(), [0, 0, 1]);
    let err = Array::<u8, 2>::zeros([2, 3]).try_broadcast_to([4, 4]).unwrap_err();
    assert_eq!(err, Error::Broadcast { from: vec![2, 3], to: vec![4, 4], axis: 0, from_size: 2, to_size: 4 });
}

#[test]
fn split_at_mut_gives_disjoint_halves() {
    let mut a = Array::<i32, 2>::zeros([4, 4]);
    let (mut left, mut right) = a.split_at_mut(1, 1);
    left.fill(1);
    right.fill(2);
    assert_eq!(&a.as_slice()[..4], &[1, 2, 2, 2]);
    let (top, bottom) = a.split_at(0, 4);
    assert_eq!((top.shape(), bottom.shape()), ([4, 4], [0, 4]));
}

#[test]
fn try_layout_recovers_dense_types_at_run_time() {
    let a = grid();
    let rows: ArrayView<usize, 2, RowMajor> = a.narrow(0, 1, 2).try_layout().unwrap();
    assert_eq!(rows.as_slice(), &[10, 11, 12, 13, 20, 21, 22, 23]);
    assert!(matches!(a.narrow(1, 0, 2).try_layout::<RowMajor>(), Err(Error::Layout { .. })));
}

#[test]
fn mutable_views_write_through_to_the_owner() {
    let mut a = grid();
    a.slice_mut(s![.., -1]).fill(99);
    a.view_mut().t().slice(s![0, ..]).fill(7);
    assert_eq!(collect(a.index_axis(1, 3)), vec![99, 99, 99]);
    assert_eq!(collect(a.index_axis(1, 0)), vec![7, 7, 7]);
    let mut row = a.index_axis_mut(0, 1);
    row[[1]] = 0;
    assert_eq!(a[[1, 1]], 0);
}

#[test]
fn contiguous_borrows_when_it_can_and_copies_when_it_must() {
    let a = grid();
    let c = a.contiguous();
    assert!(c.is_borrowed());
    assert_eq!(c.as_slice().as_ptr(), a.as_slice().as_ptr());
    let rows = a.slice(s![1..3, ..]).contiguous();
    assert!(rows.is_borrowed());
    let t = a.t().contiguous();
    assert!(!t.is_borrowed());
    assert_eq!(t.view(), a.t());
    let flipped = a.flip(1).slice(s![..;2, ..]).contiguous();
    assert_eq!(flipped.as_slice(), &[3, 2, 1, 0, 23, 22, 21, 20]);
}

#[test]
fn blocked_copy_matches_a_naive_transpose_on_tile_boundaries() {
    for (n, m) in [(1, 1), (63, 65), (64, 64), (130, 7), (3, 200)] {
        let a = Array::from_fn([n, m], |[i, j]| (i * 1000 + j) as u32);
        let t = a.t().contiguous();
        for i in 0..m {
            for j in 0..n {
                assert_eq!(t.view()[[i, j]], a[[j, i]]);
            }
        }
    }
    let a3 = Array::from_fn([3, 70, 5], |[i, j, k]| (i * 10000 + j * 10 + k) as u32);
    let p = a3.permute([2, 0, 1]).to_owned();
    assert!(p.indexed_iter().all(|([k, i, j], &x)| x == a3[[i, j, k]]));
}

#[test]
fn to_layout_converts_between_orders() {
    let a = grid();
    let f: Array<usize, 2, Cpu, ColMajor> = a.to_layout();
    assert_eq!(f.as_slice(), &[0, 10, 20, 1, 11, 21, 2, 12, 22, 3, 13, 23]);
    assert_eq!(f.view(), a.view());
    let c: Array<usize, 2> = f.to_layout();
    assert_eq!(c.as_slice(), a.as_slice());
}

#[test]
fn assign_broadcasts_the_source() {
    let mut a = Array::<i64, 3>::zeros([2, 2, 3]);
    a.assign(&Array::from_shape_vec([3], vec![1, 2, 3]).unwrap());
    assert_eq!(collect(a.index_axis(0, 1)), vec![1, 2, 3, 1, 2, 3]);
    let col = Array::from_shape_vec([2, 1], vec![7, 8]).unwrap();
    a.slice_mut(s![0, .., ..]).assign(&col);
    assert_eq!(collect(a.index_axis(0, 0)), vec![7, 7, 7, 8, 8, 8]);
    let err = a.try_assign(&Array::<i64, 1>::zeros([2])).unwrap_err();
    assert!(matches!(err, Error::Broadcast { .. }));
    let mut t = Array::<i64, 2>::zeros([3, 2]);
    t.assign(&a.index_axis(0, 0).t());
    assert_eq!(t.as_slice(), &[7, 8, 7, 8, 7, 8]);
}

#[test]
fn bad_input_gives_typed_errors_from_try_forms() {
    let a = grid();
    let v = a.view();
    assert_eq!(
        v.try_slice(s![1..9, ..]).unwrap_err(),
        Error::Range { op: "slice", axis: 0, start: 1, end: 9, size: 3 }
    );
    assert_eq!(v.try_slice(s![.., ..;0]).unwrap_err(), Error::ZeroStep { axis: 1 });
    // A reversed range inside the axis is empty (NumPy's rule), not an error.
    assert_eq!(v.try_slice(s![2..1, ..]).unwrap().shape(), [0, 4]);
    assert_eq!(
        v.try_slice(s![-4..1, ..]).unwrap_err(),
        Error::Range { op: "slice", axis: 0, start: -4, end: 1, size: 3 }
    );
    assert!(matches!(v.try_slice(s![5, ..]), Err(Error::Range { axis: 0, .. })));
    assert_eq!(v.try_permute([1, 1]).unwrap_err(), Error::InvalidAxes { op: "permute", axes: vec![1, 1], rank: 2 });
    assert_eq!(v.try_narrow(1, 3, 2).unwrap_err(), Error::Range { op: "narrow", axis: 1, start: 3, end: 5, size: 4 });
    assert_eq!(v.try_narrow(2, 0, 1).unwrap_err(), Error::AxisOutOfRange { op: "narrow", axis: 2, rank: 2 });
    assert!(matches!(v.try_index_axis::<1>(0, 3), Err(Error::IndexOutOfBounds { axis: 0, index: 3, size: 3 })));
    assert!(matches!(v.try_split_at(0, 4), Err(Error::Range { .. })));
    assert!(matches!(v.try_flip(2), Err(Error::AxisOutOfRange { .. })));
    assert!(matches!(v.try_transpose(0, 2), Err(Error::AxisOutOfRange { .. })));
    assert!(matches!(v.try_reshape([7]), Err(Error::LengthMismatch { .. })));
    for e in [v.try_slice(s![1..9, ..]).unwrap_err(), v.try_permute([0, 0]).unwrap_err()] {
        let msg = e.to_string();
        assert!(msg.contains(';'), "what/why then how to fix: {msg}");
    }
}

#[test]
#[should_panic(expected = "range 0..5 does not fit axis 0 of size 3")]
fn panicking_forms_carry_the_error_message() {
    let _ = grid().slice(s![0..5, ..]);
}

#[test]
fn owned_consuming_ops_keep_the_buffer() {
    let a = grid();
    let ptr = a.as_slice().as_ptr();
    let r = a.into_reshaped([2, 6]);
    assert_eq!(r.as_slice().as_ptr(), ptr);
    let s = r.into_sliced(s![1, 2..]);
    assert_eq!(s.as_slice(), &[20, 21, 22, 23]);
    let f = grid().into_flipped(0).into_permuted([1, 0]);
    assert_eq!(f[[0, 0]], 20);
    let u = grid().into_unsqueezed(0).into_squeezed(0);
    assert_eq!(u.shape(), [3, 4]);
    assert_eq!(grid().into_transposed(0, 1)[[3, 1]], 13);
}

#[test]
fn metadata_ops_work_on_any_backend_without_touching_elements() {
    // `into_t` and friends only need `Backend`, not `HostAccessible`: checked by this compiling.
    fn reshape_anywhere<B: Backend>(a: Array<f32, 2, B>) -> Array<f32, 2, B, ColMajor> {
        a.into_t()
    }
    let a = reshape_anywhere(Array::<f32, 2>::zeros([2, 5]));
    assert_eq!(a.shape(), [5, 2]);
}

mod multi_slice {
    use cnda::prelude::*;
    use cnda::{AxisSlice, SliceSpec};
    use proptest::prelude::*;

    fn item() -> impl Strategy<Value = AxisSlice> {
        (0isize..7, 0isize..7, prop_oneof![1isize..4, -3isize..0]).prop_map(|(a, b, step)| AxisSlice::Range {
            start: a.min(b),
            end: Some(a.max(b)),
            step,
        })
    }

    proptest! {
        #[test]
        fn accepted_regions_never_share_an_element(specs in proptest::collection::vec(proptest::array::uniform2(item()), 3)) {
            let mut a = Array::<i32, 2>::zeros([6, 6]);
            let specs = [0, 1, 2].map(|k| SliceSpec::<2, 2, false, false>::new(specs[k]));
            let positions: Vec<Vec<[usize; 2]>> = specs
                .iter()
                .map(|spec| {
                    let mut marks = Array::<usize, 2>::from_fn([6, 6], |[i, j]| i * 6 + j);
                    let region = marks.view_mut().slice(*spec).to_owned();
                    region.iter().map(|&flat| [flat / 6, flat % 6]).collect()
                })
                .collect();
            let overlap = (0..3).any(|x| (x + 1..3).any(|y| positions[x].iter().any(|p| positions[y].contains(p))));
            match a.try_multi_slice_mut(specs) {
                Ok(mut views) => {
                    prop_assert!(!overlap, "accepted overlapping regions");
                    for (k, v) in views.iter_mut().enumerate() {
                        v.fill(k as i32 + 1);
                    }
                    for (k, region) in positions.iter().enumerate() {
                        for p in region {
                            prop_assert_eq!(a[*p], k as i32 + 1);
                        }
                    }
                }
                Err(e) => prop_assert!(matches!(e, Error::Layout { .. }), "{}", e),
            }
        }
    }

    #[test]
    fn overlapping_regions_are_refused() {
        let mut a = Array::<i32, 2>::zeros([4, 4]);
        let err = a.try_multi_slice_mut([s![0..3, ..], s![2..4, ..]]).unwrap_err();
        assert!(err.to_string().contains("regions 0 and 1"), "{err}");
        let [left, right] = a.multi_slice_mut([s![.., ..2], s![.., 2..]]);
        assert_eq!((left.shape(), right.shape()), ([4, 2], [4, 2]));
    }
}
