//! Elementwise math, sequences, closeness, `dot`, rows and columns, `Zip::fold`: each against a
//! naive reference loop.

use cnda::prelude::*;
use proptest::prelude::*;

#[test]
fn elementwise_math_matches_the_scalar_functions() {
    let a = Array::from_fn([3, 4], |[i, j]| 0.1 + (i * 4 + j) as f64 * 0.37);
    let t = a.t();
    type Case = (Array<f64, 2>, fn(f64) -> f64);
    let cases: [Case; 6] = [
        (t.sqrt(), f64::sqrt),
        (t.exp(), f64::exp),
        (t.ln(), f64::ln),
        (t.sin(), f64::sin),
        (t.cos(), f64::cos),
        (t.abs(), f64::abs),
    ];
    for (got, f) in cases {
        assert_eq!(got.shape(), [4, 3]);
        for ([i, j], &x) in got.indexed_iter() {
            assert_eq!(x, f(a[[j, i]]));
        }
    }
    assert_eq!(a.powi(3)[[2, 3]], a[[2, 3]].powi(3));
    assert_eq!(a.powf(0.5)[[1, 1]], a[[1, 1]].powf(0.5));
    let c = a.clamp(1.0, 2.0);
    assert!(c.iter().all(|&x| (1.0..=2.0).contains(&x)));
    assert_eq!(c[[0, 0]], 1.0);
}

#[test]
fn sequences_match_numpy() {
    // np.linspace(-1, 1, 5), np.arange(2, 11, 4), np.arange(0.5, 0, -0.2)
    assert_eq!(Array::linspace(-1.0, 1.0, 5).as_slice(), &[-1.0, -0.5, 0.0, 0.5, 1.0]);
    assert_eq!(Array::<f64, 1>::linspace(3.0, 9.0, 1).as_slice(), &[3.0]);
    assert!(Array::<f64, 1>::linspace(0.0, 1.0, 0).is_empty());
    let l = Array::linspace(0.0f32, 0.3, 4);
    assert_eq!(l[[3]], 0.3);
    assert_eq!(Array::arange(2, 11, 4).as_slice(), &[2, 6, 10]);
    assert_eq!(Array::arange(0.5, 0.0, -0.2).len(), 3);
    assert!(Array::arange(5, 1, 1).is_empty());
    let eye = Array::<i32, 2>::eye(3);
    for ([i, j], &x) in eye.indexed_iter() {
        assert_eq!(x, i32::from(i == j));
    }
}

#[test]
#[should_panic(expected = "arange: the step must be non-zero")]
fn arange_with_a_zero_step_panics() {
    let _ = Array::arange(0.0, 1.0, 0.0);
}

#[test]
fn allclose_follows_numpy_and_broadcasts() {
    let a = Array::from_shape_vec([2, 2], vec![1.0, 100.0, 1e-9, 0.0]).unwrap();
    let b = &a * (1.0 + 1e-6);
    assert!(a.allclose(&b, 1e-5, 1e-8));
    assert!(!a.allclose(&b, 1e-7, 0.0));
    let row = Array::from_shape_vec([2], vec![1.0, 100.0]).unwrap();
    assert!(!a.allclose(&row, 1e-5, 1e-8));
    assert!(a.slice(s![0..1, ..]).allclose(&row, 0.0, 0.0));
    let nan = Array::from_shape_vec([1], vec![f64::NAN]).unwrap();
    assert!(!nan.allclose(&nan, 1.0, 1.0));
    assert!(a.abs_diff_eq(&b, 1e-3));
    assert!(!a.abs_diff_eq(&b, 1e-6));
    let wide = Array::<f64, 2>::zeros([2, 3]);
    assert!(!wide.abs_diff_eq(&Array::<f64, 2>::zeros([3, 2]), 1.0), "shapes differ");
}

fn naive_matmul(a: &Array<f64, 2>, b: &Array<f64, 2>) -> Array<f64, 2> {
    let ([m, k], [_, n]) = (a.shape(), b.shape());
    Array::from_fn([m, n], |[i, j]| (0..k).map(|p| a[[i, p]] * b[[p, j]]).sum())
}

#[test]
fn dot_is_the_inner_product_and_the_matrix_product() {
    let a = Array::from_fn([3, 4], |[i, j]| (i as f64) - 0.5 * j as f64);
    let b = Array::from_fn([4, 2], |[i, j]| (i * 2 + j) as f64);
    assert_eq!(a.dot(&b), naive_matmul(&a, &b));
    let x = Array::from_fn([4], |[k]| k as f64 + 1.0);
    let y = a.dot(&x);
    assert_eq!(y.shape(), [3]);
    for i in 0..3 {
        assert_eq!(y[[i]], (0..4).map(|k| a[[i, k]] * x[[k]]).sum::<f64>());
    }
    assert_eq!(x.dot(&x), 30.0);
    assert!(matches!(x.try_dot(&Array::<f64, 1>::ones([3])), Err(Error::ShapeMismatch { .. })));
    assert!(matches!(a.try_dot(&a), Err(Error::ShapeMismatch { .. })));
    // A transposed operand is read through its strides.
    assert_eq!(a.t().dot(&a), naive_matmul(&a.t().to_owned(), &a));
}

#[test]
fn rows_and_columns_are_views() {
    let mut m = Array::from_fn([3, 4], |[i, j]| 10 * i + j);
    assert_eq!(m.row(2).to_owned().as_slice(), &[20, 21, 22, 23]);
    assert_eq!(m.column(1).to_owned().as_slice(), &[1, 11, 21]);
    m.row_mut(0).fill(0);
    assert_eq!(m.row(0).sum(), 0);
    assert_eq!(m.t().row(3).to_owned().as_slice(), &[0, 13, 23]);
}

proptest! {
    #[test]
    fn zip_fold_matches_a_naive_loop(m in 0usize..6, n in 0usize..6, transposed in any::<bool>()) {
        let a = Array::from_fn([m, n], |[i, j]| (i * 7 + j) as i64);
        let b = Array::from_fn([n, m], |[i, j]| (i as i64) - (j as i64));
        let bt = b.t();
        let folded = Zip::from(a.view()).and(bt).fold(0i64, |acc, &x, &y| acc + x * y);
        let naive: i64 = (0..m).flat_map(|i| (0..n).map(move |j| (i, j))).map(|(i, j)| a[[i, j]] * b[[j, i]]).sum();
        prop_assert_eq!(folded, naive);
        let v = if transposed { a.t().to_owned() } else { a.clone() };
        prop_assert_eq!(Zip::from(v.view()).fold(0usize, |count, _| count + 1), m * n);
    }

    #[test]
    fn dot_is_symmetric_for_vectors(xs in proptest::collection::vec(-100i64..100, 0..20)) {
        let a = Array::from_shape_vec([xs.len()], xs.clone()).unwrap();
        let b = a.flip(0).to_owned();
        prop_assert_eq!(a.dot(&b), b.dot(&a));
        prop_assert_eq!(a.dot(&a), xs.iter().map(|x| x * x).sum::<i64>());
    }

    #[test]
    fn matrix_dot_matches_the_naive_product(m in 1usize..6, k in 1usize..6, n in 1usize..6) {
        let a = Array::from_fn([m, k], |[i, j]| ((i * 3 + j) % 5) as f64 - 2.0);
        let b = Array::from_fn([k, n], |[i, j]| ((i + 2 * j) % 7) as f64 * 0.5);
        prop_assert_eq!(a.dot(&b), naive_matmul(&a, &b));
    }
}
