//! Every generic algorithm driven through a second backend (`common/model.rs`, written as a
//! downstream crate would write one), checked against naive references: broadcasting, output
//! allocation from the input's allocator, axis merging (the model records the shapes its kernels
//! receive), the same-device check, device views.

#[path = "common/model.rs"]
mod model;

use cnda::prelude::*;
use cnda::stencil::LinearStencil;
use cnda::view::Shared;
use model::{indices, launches, model, Model, ModelAlloc};

fn fa(i: [usize; 3]) -> f64 {
    (i[0] * 100 + i[1] * 10 + i[2]) as f64
}

#[test]
fn operators_broadcast_through_the_generic_algorithm() {
    let a = model(0, [2, 3, 4], fa);
    let b = model(0, [3, 1], |[j, _]| j as f64 * 0.5 + 1.0);
    let c = &a + &b;
    assert_eq!(c.shape(), [2, 3, 4]);
    for [i, j, k] in indices([2, 3, 4]) {
        assert_eq!(c[[i, j, k]], fa([i, j, k]) + (j as f64 * 0.5 + 1.0));
    }
    let d = &a * 2.0;
    let e = 1.0 - &a;
    let n = -&a;
    let r = a.sqrt();
    for i in indices([2, 3, 4]) {
        assert_eq!((d[i], e[i], n[i], r[i]), (fa(i) * 2.0, 1.0 - fa(i), -fa(i), fa(i).sqrt()));
    }
}

#[test]
fn outputs_come_from_the_left_operands_allocator() {
    let a = model(7, [2, 3], |[i, j]| (i + j) as f64);
    let b = model(7, [3], |[j]| j as f64);
    assert_eq!((&a - &b).allocator(), ModelAlloc(7));
    assert_eq!((&a / 2.0).allocator(), ModelAlloc(7));
    assert_eq!(a.exp().allocator(), ModelAlloc(7));
}

#[test]
fn operands_on_two_devices_are_an_error_not_a_wrong_answer() {
    let a = model(0, [2, 2], |_| 1.0);
    let b = model(1, [2, 2], |_| 2.0);
    let err = a.try_add(&b).unwrap_err();
    assert!(matches!(err, Error::DeviceMismatch { backend: "Model", .. }), "{err}");
    assert!(err.to_string().contains("two different Model devices (Dev(0) and Dev(1))"), "{err}");
    assert!(matches!(&err, Error::DeviceMismatch { expected, got, .. } if expected == "Dev(0)" && got == "Dev(1)"));
    let caught = std::panic::catch_unwind(|| &a * &b).unwrap_err();
    let message = caught.downcast_ref::<String>().unwrap();
    assert!(message.contains("to_device"), "{message}");
}

#[test]
fn kernels_receive_merged_axes() {
    let a = model(0, [2, 3, 4], fa);
    let b = model(0, [2, 3, 4], |_| 1.0);
    let _ = launches();
    let _ = &a + &b;
    let _ = a.abs();
    // A row broadcast merges the inner axes only where both operands step uniformly.
    let row = model(0, [4], |[k]| k as f64);
    let _ = &a + &row;
    // A transposed operand keeps its axes apart.
    let t = model(0, [4, 3, 2], |_| 0.0).into_t();
    let _ = &a + &t;
    assert_eq!(launches(), vec![vec![1, 1, 24], vec![1, 1, 24], vec![1, 6, 4], vec![2, 3, 4]]);
}

#[test]
fn compound_assignment_updates_in_place() {
    let mut a = model(0, [2, 3, 4], fa);
    let b = model(0, [4], |[k]| k as f64);
    a += &b;
    a *= 2.0;
    for i in indices([2, 3, 4]) {
        assert_eq!(a[i], (fa(i) + i[2] as f64) * 2.0);
    }
    let other = model(3, [4], |_| 0.0);
    let caught = std::panic::catch_unwind(move || {
        let mut a = a;
        a -= &other;
    });
    assert!(caught.is_err(), "an update across devices must fail");
}

#[test]
fn zeros_in_takes_the_backend_from_the_allocator() {
    let z = Array::<f32, 2, Model>::zeros_in(&ModelAlloc(2), [3, 5]);
    assert_eq!(z.allocator(), ModelAlloc(2));
    assert!(indices([3, 5]).into_iter().all(|i| z[i] == 0.0));
}

#[test]
fn reductions_run_through_the_generic_algorithm() {
    let a = model(4, [2, 3, 4], fa);
    let all: Vec<f64> = indices([2, 3, 4]).into_iter().map(fa).collect();
    assert_eq!(a.sum(), all.iter().sum::<f64>());
    assert_eq!(a.max(), Some(123.0));
    assert_eq!(a.argmin(), Some([0, 0, 0]));
    assert_eq!(a.argmax(), Some([1, 2, 3]));
    let _ = launches();
    for axis in 0..3 {
        let s = a.sum_axis::<2>(axis);
        let m = a.min_axis::<2>(axis).unwrap();
        assert_eq!(s.allocator(), ModelAlloc(4));
        let other: Vec<usize> = (0..3).filter(|&d| d != axis).collect();
        assert_eq!(s.shape(), [a.shape()[other[0]], a.shape()[other[1]]]);
        for [p, q] in indices(s.shape()) {
            let lane = (0..a.shape()[axis]).map(|k| {
                let mut i = [0; 3];
                (i[other[0]], i[other[1]], i[axis]) = (p, q, k);
                fa(i)
            });
            assert_eq!(s[[p, q]], lane.clone().sum::<f64>(), "sum_axis({axis})");
            assert_eq!(m[[p, q]], lane.reduce(f64::min).unwrap(), "min_axis({axis})");
        }
    }
    // The reduced axis is handed over last, with the outer axes merged where they can be.
    assert_eq!(
        launches(),
        vec![vec![1, 12, 2], vec![1, 12, 2], vec![2, 4, 3], vec![2, 4, 3], vec![1, 6, 4], vec![1, 6, 4]]
    );
    let mean = a.mean_axis::<2>(2).unwrap();
    assert_eq!(mean[[1, 1]], 111.5);
    let empty = model(4, [3, 0], |_| 0.0);
    assert_eq!(empty.min_axis::<1>(1), None);
    assert_eq!(empty.sum_axis::<1>(1)[[2]], 0.0);
}

#[test]
fn copies_and_fills_run_through_the_generic_algorithm() {
    let a = model(5, [2, 3, 4], fa);
    let _ = launches();
    let f = a.to_layout::<ColMajor>();
    assert_eq!((f.strides(), f.allocator()), ([1, 2, 6], ModelAlloc(5)));
    let t = a.to_owned().into_t(); // a dense copy, then a zero-copy transpose
    let owned = t.to_owned();
    assert_eq!(owned.strides(), [6, 2, 1]);
    for [i, j, k] in indices([2, 3, 4]) {
        assert_eq!(f[[i, j, k]], fa([i, j, k]));
        assert_eq!(owned[[k, j, i]], fa([i, j, k]));
    }
    // A column-major copy of a row-major array is a transpose (three axes, reversed to give a
    // row-major destination); a dense copy is one axis.
    assert_eq!(launches(), vec![vec![4, 3, 2], vec![1, 1, 24], vec![4, 3, 2]]);
    let mut z = a.to_owned();
    z.fill(2.5);
    assert!(indices([2, 3, 4]).into_iter().all(|i| z[i] == 2.5));
}

#[test]
fn matrix_products_run_through_the_generic_algorithm() {
    let a = model(6, [3, 4], |[i, j]| (i * 4 + j) as f64);
    let b = model(6, [3, 5], |[i, j]| (i as f64) - (j as f64) * 0.5);
    // aᵀ (4 x 3, a transposed view's layout) times b (3 x 5).
    let at = a.to_owned().into_t();
    let p = at.matmul(&b);
    assert_eq!((p.shape(), p.allocator()), ([4, 5], ModelAlloc(6)));
    for [i, j] in indices([4, 5]) {
        let want: f64 = (0..3).map(|q| ((q * 4 + i) as f64) * ((q as f64) - (j as f64) * 0.5)).sum();
        assert_eq!(p[[i, j]], want);
    }
    let x = model(6, [4], |[j]| j as f64 + 1.0);
    let y = a.matvec(&x);
    for i in 0..3 {
        assert_eq!(y[[i]], (0..4).map(|j| ((i * 4 + j) * (j + 1)) as f64).sum::<f64>());
    }
    let elsewhere = model(9, [4, 2], |_| 1.0);
    assert!(matches!(a.try_matmul(&elsewhere), Err(Error::DeviceMismatch { .. })));
    assert!(matches!(a.try_matmul(&b), Err(Error::ShapeMismatch { op: "matmul", .. })));
}

#[test]
fn linear_stencils_run_through_the_generic_algorithm() {
    let u = model(2, [5, 6], |[i, j]| (i * i + j) as f64);
    let mut lap = model(2, [5, 6], |_| -1.0);
    let _ = launches();
    LinearStencil::laplacian_5pt(1.0).apply(&u, &mut lap);
    // The kernel sees the interior only, and the edge points are left alone.
    assert_eq!(launches(), vec![vec![3, 4]]);
    for [i, j] in indices([5, 6]) {
        let inside = (1..4).contains(&i) && (1..5).contains(&j);
        assert_eq!(lap[[i, j]], if inside { 2.0 } else { -1.0 }, "{i} {j}");
    }
    let mut elsewhere = model(3, [5, 6], |_| 0.0);
    let err = LinearStencil::laplacian_5pt(1.0).try_apply(&u, &mut elsewhere).unwrap_err();
    assert!(matches!(err, Error::DeviceMismatch { .. }), "{err}");
}

#[test]
fn device_views_are_metadata_and_go_through_the_same_ops() {
    let mut a = model(8, [2, 3], |[i, j]| (10 * i + j) as f64);
    let b = model(8, [3], |[j]| j as f64);
    // A transposed view of a row-major model array is column-major by type, with no copy.
    let t: View<'_, f64, 2, Shared, Model, ColMajor> = a.view().t();
    assert_eq!((t.shape(), t.strides()), ([3, 2], [1, 3]));
    let s = &t * 2.0;
    assert_eq!((s.shape(), s.allocator()), ([3, 2], ModelAlloc(8)));
    assert_eq!(s[[2, 1]], 2.0 * 12.0);
    let row = a.view().index_axis::<1>(0, 1);
    let sum = row + &b;
    assert_eq!((sum[[0]], sum[[2]]), (10.0, 14.0));
    {
        let mut right = a.view_mut().narrow(1, 1, 2);
        right += 100.0;
    }
    assert_eq!((a[[0, 0]], a[[0, 1]], a[[1, 2]]), (0.0, 101.0, 112.0));
    let (top, bottom) = a.view_mut().split_at(0, 1);
    let mut top = top;
    top -= &bottom.into_view();
    assert_eq!(a[[0, 1]], 101.0 - 111.0);
}
