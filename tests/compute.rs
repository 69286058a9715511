//! Zip, parallel variants and matrix products against naive references.

use cnda::prelude::*;

#[test]
fn zip_walks_mixed_layouts_in_lockstep() {
    let a = Array::from_fn([4, 5], |[i, j]| (i * 5 + j) as f64);
    let b = a.to_layout::<ColMajor>();
    let c = a.flip(1).to_owned();
    let mut out = Array::<f64, 2>::zeros([4, 5]);
    Zip::from(out.view_mut()).and(a.view()).and(b.view()).and(c.flip(1)).for_each(|o, &x, &y, &z| *o = x + y + z);
    assert_eq!(out, a.map(|x| 3.0 * x));
    let collected = Zip::from(a.view()).and(b.t().t()).map_collect(|&x, &y| x * y);
    assert_eq!(collected, a.map(|x| x * x));
}

#[test]
fn zip_takes_six_producers_and_rejects_mismatched_shapes() {
    let a = Array::<i32, 1>::from_fn([8], |[i]| i as i32);
    let mut outs = [Array::<i32, 1>::zeros([8]), Array::<i32, 1>::zeros([8])];
    let [o1, o2] = &mut outs;
    Zip::from(o1.view_mut()).and(o2.view_mut()).and(a.view()).and(a.view()).and(a.flip(0)).and(a.view()).for_each(
        |x, y, &p, &q, &r, &s| {
            *x = p + q;
            *y = r + s;
        },
    );
    assert_eq!(outs[0].as_slice(), &[0, 2, 4, 6, 8, 10, 12, 14]);
    assert_eq!(outs[1][[0]], 7);
    let short = Array::<i32, 1>::zeros([3]);
    assert!(matches!(Zip::from(a.view()).try_and(short.view()), Err(Error::ShapeMismatch { .. })));
}

#[cfg(feature = "rayon")]
#[test]
fn parallel_variants_match_sequential_ones() {
    let a = Array::from_fn([257, 33], |[i, j]| ((i * 31 + j * 7) % 97) as f64 * 0.25);
    assert_eq!(a.par_map(|x| x * 2.0 + 1.0), a.map(|x| x * 2.0 + 1.0));
    assert_eq!(a.t().par_map(|x| x - 1.0), a.t().map(|x| x - 1.0));
    assert_eq!(a.par_sum(), a.sum());
    let mut b = a.clone();
    b.par_map_inplace(|x| *x *= 3.0);
    assert_eq!(b, a.map(|x| x * 3.0));
    let mut c = Array::<f64, 2>::zeros([257, 33]);
    Zip::from(c.view_mut()).and(a.view()).and(b.view()).par_for_each(|o, &x, &y| *o = y - x);
    assert_eq!(c, a.map(|x| 2.0 * x));
    let mut t = Array::<f64, 2>::zeros([33, 257]);
    Zip::from(t.view_mut()).and(a.t()).par_for_each(|o, &x| *o = x);
    assert_eq!(t.view(), a.t());
}

fn naive_matmul(a: &Array<f64, 2>, b: &Array<f64, 2>) -> Array<f64, 2> {
    let ([m, k], [_, n]) = (a.shape(), b.shape());
    Array::from_fn([m, n], |[i, j]| (0..k).map(|p| a[[i, p]] * b[[p, j]]).sum())
}

#[test]
fn matmul_matches_a_naive_triple_loop_for_every_layout() {
    let a = Array::from_fn([37, 19], |[i, j]| ((i * 13 + j * 5) % 11) as f64 - 5.0);
    let b = Array::from_fn([19, 23], |[i, j]| ((i * 3 + j * 7) % 13) as f64 - 6.0);
    let expected = naive_matmul(&a, &b);
    assert_eq!(a.matmul(&b), expected);
    // Transposed and flipped operands are multiplied without copying first.
    let bt = b.t().to_owned();
    assert_eq!(a.matmul(&bt.t()), expected);
    let at = a.to_layout::<ColMajor>();
    assert_eq!(at.matmul(&b), expected);
    assert_eq!(a.flip(0).matmul(&b), expected.flip(0).to_owned());
    assert_eq!(a.matmul_with(&b, Par::Seq), expected);
    let x = Array::from_fn([19], |[i]| i as f64);
    let y = a.matvec(&x);
    for i in 0..37 {
        assert_eq!(y[[i]], (0..19).map(|p| a[[i, p]] * p as f64).sum::<f64>());
    }
}

#[test]
fn matmul_rejects_mismatched_inner_dimensions() {
    let a = Array::<f32, 2>::zeros([3, 4]);
    let b = Array::<f32, 2>::zeros([5, 2]);
    assert!(matches!(a.try_matmul(&b), Err(Error::ShapeMismatch { op: "matmul", .. })));
    assert!(a.try_matvec(&Array::<f32, 1>::zeros([3])).is_err());
    let empty = Array::<f32, 2>::zeros([3, 0]).matmul(&Array::<f32, 2>::zeros([0, 2]));
    assert_eq!(empty.as_slice(), &[0.0; 6]);
}
