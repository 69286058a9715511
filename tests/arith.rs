//! Elementwise arithmetic with broadcasting, against naive loops.

use cnda::prelude::*;

fn arange<const N: usize>(shape: [usize; N]) -> Array<f64, N> {
    let len = shape.iter().product::<usize>();
    Array::from_shape_vec(shape, (0..len).map(|k| k as f64 + 1.0).collect()).unwrap()
}

#[test]
fn same_shape_ops_match_a_naive_loop() {
    let a = arange([3, 4]);
    let b = a.map(|x| x * 0.5 + 2.0);
    let sum = &a + &b;
    let diff = &a - &b;
    let prod = &a * &b;
    let quot = &a / &b;
    for ix in [[0, 0], [1, 2], [2, 3]] {
        assert_eq!(sum[ix], a[ix] + b[ix]);
        assert_eq!(diff[ix], a[ix] - b[ix]);
        assert_eq!(prod[ix], a[ix] * b[ix]);
        assert_eq!(quot[ix], a[ix] / b[ix]);
    }
}

#[test]
fn broadcasting_across_ranks_follows_numpy() {
    let m = arange([2, 3]);
    let row = Array::from_shape_vec([3], vec![10.0, 20.0, 30.0]).unwrap();
    let col = Array::from_shape_vec([2, 1], vec![100.0, 200.0]).unwrap();
    let r: Array<f64, 2> = &m + &row;
    assert_eq!(r.as_slice(), &[11.0, 22.0, 33.0, 14.0, 25.0, 36.0]);
    let c = &m + &col;
    assert_eq!(c.as_slice(), &[101.0, 102.0, 103.0, 204.0, 205.0, 206.0]);
    // Rank 1 + rank 3: result rank 3, inferred.
    let cube = arange([2, 2, 3]);
    let r3 = &row + &cube;
    assert_eq!(r3.shape(), [2, 2, 3]);
    assert_eq!(r3[[1, 1, 2]], 30.0 + cube[[1, 1, 2]]);
    // Outer product by broadcasting a column against a row.
    let outer = &col * &row;
    assert_eq!(outer.shape(), [2, 3]);
    assert_eq!(outer[[1, 2]], 6000.0);
}

#[test]
fn views_of_any_layout_are_operands() {
    let a = arange([3, 3]);
    let t = &a + a.t();
    for i in 0..3 {
        for j in 0..3 {
            assert_eq!(t[[i, j]], a[[i, j]] + a[[j, i]]);
        }
    }
    let flipped = a.flip(1) - &a;
    assert_eq!(flipped[[0, 0]], a[[0, 2]] - a[[0, 0]]);
    let sliced = &a.slice(s![..;2, ..]) * 2.0;
    assert_eq!(sliced.as_slice(), &[2.0, 4.0, 6.0, 14.0, 16.0, 18.0]);
}

#[test]
fn scalars_work_on_either_side() {
    let a = arange([2, 2]);
    assert_eq!((&a * 2.0).as_slice(), &[2.0, 4.0, 6.0, 8.0]);
    assert_eq!((10.0 - &a).as_slice(), &[9.0, 8.0, 7.0, 6.0]);
    assert_eq!((1.0 / a.view()).as_slice(), &[1.0, 0.5, 1.0 / 3.0, 0.25]);
    assert_eq!((-&a).as_slice(), &[-1.0, -2.0, -3.0, -4.0]);
}

#[test]
fn integer_remainder() {
    let a = Array::from_shape_vec([4], vec![7i32, 8, 9, 10]).unwrap();
    let m = &a % 3;
    assert_eq!(m.as_slice(), &[1, 2, 0, 1]);
    let b = Array::from_shape_vec([4], vec![2i32, 3, 4, 5]).unwrap();
    assert_eq!((&a % &b).as_slice(), &[1, 2, 1, 0]);
}

#[test]
fn compound_assignment_broadcasts_into_arrays_and_views() {
    let mut a = arange([2, 3]);
    a += &Array::from_shape_vec([3], vec![1.0, 1.0, 1.0]).unwrap();
    assert_eq!(a.as_slice(), &[2.0, 3.0, 4.0, 5.0, 6.0, 7.0]);
    a *= 2.0;
    assert_eq!(a.as_slice(), &[4.0, 6.0, 8.0, 10.0, 12.0, 14.0]);
    let mut v = a.slice_mut(s![.., 1..]);
    v -= 1.0;
    assert_eq!(a.as_slice(), &[4.0, 5.0, 7.0, 10.0, 11.0, 13.0]);
    let col = Array::from_shape_vec([2, 1], vec![2.0, 1.0]).unwrap();
    a /= &col;
    assert_eq!(a.as_slice(), &[2.0, 2.5, 3.5, 10.0, 11.0, 13.0]);
}

#[test]
fn incompatible_shapes_are_errors_in_try_forms_and_panics_in_operators() {
    let a = arange([2, 3]);
    let b = arange([2, 2]);
    let err = a.try_add(&b).unwrap_err();
    assert_eq!(err, Error::BroadcastOperands { lhs: vec![2, 3], rhs: vec![2, 2], axis: 1, lhs_size: 3, rhs_size: 2 });
    let caught = std::panic::catch_unwind(|| &a * &b);
    let msg = *caught.unwrap_err().downcast::<String>().unwrap();
    assert!(msg.contains("operands of shapes [2, 3] and [2, 2] do not broadcast"), "{msg}");
    // The axis is numbered in the result's shape, whichever operand has more axes.
    let (c, d) = (Array::<f64, 2>::zeros([3, 4]), Array::<f64, 3>::zeros([2, 5, 4]));
    let expected = |lhs: &[usize], rhs: &[usize], lhs_size, rhs_size| Error::BroadcastOperands {
        lhs: lhs.to_vec(),
        rhs: rhs.to_vec(),
        axis: 1,
        lhs_size,
        rhs_size,
    };
    assert_eq!(c.try_add(&d).unwrap_err(), expected(&[3, 4], &[2, 5, 4], 3, 5));
    assert_eq!(d.try_add(&c).unwrap_err(), expected(&[2, 5, 4], &[3, 4], 5, 3));
    assert!(a.view().try_sub(&b).is_err());
    let mut c = arange([2, 3]);
    assert!(std::panic::catch_unwind(move || c += &Array::<f64, 1>::zeros([2])).is_err());
}

#[test]
fn map_zip_with_and_map_inplace() {
    let a = arange([2, 3]);
    let squares = a.t().map(|x| x * x);
    assert_eq!(squares.shape(), [3, 2]);
    assert_eq!(squares[[2, 1]], 36.0);
    let ints = a.map(|x| x as i64);
    assert_eq!(ints.as_slice(), &[1, 2, 3, 4, 5, 6]);
    let z =
        a.zip_with(&Array::from_shape_vec([3], vec![1u8, 0, 1]).unwrap(), |x, keep| if keep == 1 { x } else { 0.0 });
    assert_eq!(z.as_slice(), &[1.0, 0.0, 3.0, 4.0, 0.0, 6.0]);
    let mut m = arange([2, 2]);
    m.slice_mut(s![.., 0]).map_inplace(|x| *x = -*x);
    assert_eq!(m.as_slice(), &[-1.0, 2.0, -3.0, 4.0]);
}

/// The `try_` compound assignments: the operator's result, or the error where the operator
/// panics, with nothing written.
#[test]
fn try_compound_assignment_returns_errors_instead_of_panicking() {
    let mut a = Array::from_fn([2, 3], |[i, j]| (i * 3 + j) as f64);
    let row = Array::from_fn([3], |[j]| j as f64);
    a.try_add_assign(&row).unwrap();
    a.try_mul_assign(2.0).unwrap();
    a.view_mut().try_sub_assign(1.0).unwrap();
    let want = Array::from_fn([2, 3], |[i, j]| ((i * 3 + j) as f64 + j as f64) * 2.0 - 1.0);
    assert_eq!(a, want);
    let before = a.clone();
    let e = a.try_div_assign(&Array::<f64, 1>::ones([4])).unwrap_err();
    assert!(matches!(e, Error::Broadcast { .. } | Error::BroadcastOperands { .. }), "{e:?}");
    let e = a.slice_mut(s![.., 1..]).try_rem_assign(&row).unwrap_err();
    assert!(e.to_string().contains("broadcast"), "{e}");
    assert_eq!(a, before, "nothing written");
}
