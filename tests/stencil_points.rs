//! Point sources and receivers (`stencil::Points`): multilinear nodes and weights, injection and
//! sampling against naive loops, bit for bit, on the CPU and through the model backend (a device
//! as a downstream crate writes one), and every refusal.

#[path = "common/model.rs"]
mod model;

use cnda::prelude::*;
use cnda::stencil::Points;

#[test]
fn nodes_are_multilinear_and_a_node_touches_itself_alone() {
    let p = Points::new([[2.0, 7.0], [2.25, 7.5], [0.0, 0.75]]);
    assert_eq!(p.len(), 3);
    assert_eq!(p.nodes(0), &[([2, 7], 1.0)]);
    assert_eq!(p.nodes(1), &[([2, 7], 0.375), ([3, 7], 0.125), ([2, 8], 0.375), ([3, 8], 0.125)]);
    assert_eq!(p.nodes(2), &[([0, 0], 0.25), ([0, 1], 0.75)]);
    let q = Points::new([[1.5, 2.5, 3.5]]);
    assert_eq!(q.nodes(0).len(), 8);
    assert_eq!(q.nodes(0).iter().map(|n| n.1).sum::<f64>(), 1.0);
    assert!(Points::<2>::new([]).is_empty());
}

#[test]
fn bad_coordinates_are_refused_with_the_point_named() {
    for bad in [f64::NAN, f64::INFINITY, -0.5, 1e300] {
        let e = Points::try_new([[1.0, 1.0], [bad, 2.0]]).unwrap_err();
        assert!(matches!(e, Error::Coordinate { point: 1, .. }), "{e:?}");
        let text = e.to_string();
        assert!(text.contains("point 1") && text.contains("grid units"), "{text}");
    }
}

/// The naive injection: every node of every point, in order.
fn injected(field: &Array<f64, 2>, p: &Points<2>, amplitudes: &[f64]) -> Array<f64, 2> {
    let mut want = field.clone();
    for (k, &a) in amplitudes.iter().enumerate() {
        for &(at, w) in p.nodes(k) {
            want[at] += w * a;
        }
    }
    want
}

/// The naive sample: the first node's weighted value, then each further one added.
fn sampled(field: &Array<f64, 2>, p: &Points<2>) -> Vec<f64> {
    (0..p.len())
        .map(|k| {
            let nodes = p.nodes(k);
            nodes[1..].iter().fold(field[nodes[0].0] * nodes[0].1, |v, &(at, w)| v + field[at] * w)
        })
        .collect()
}

fn points() -> Points<2> {
    // On nodes, between two, between four, at the field's last interior nodes; one repeated.
    Points::new([[3.0, 4.0], [3.0, 4.5], [5.3, 1.7], [0.1, 8.9], [5.3, 1.7]])
}

fn field() -> Array<f64, 2> {
    Array::from_fn([7, 10], |[i, j]| ((i * 13 + j * 7) % 11) as f64 - 4.5)
}

#[test]
fn injection_and_sampling_match_naive_loops_on_the_cpu() {
    let (p, u) = (points(), field());
    let amplitudes = [1.5, -2.0, 0.25, 3.0, 1.0];
    let mut got = u.clone();
    p.inject(got.view_mut(), &amplitudes);
    assert_eq!(got, injected(&u, &p, &amplitudes));
    let mut record = Array::<f64, 2>::full([3, 5], 9.0);
    p.sample(&got, record.slice_mut(s![1, ..]));
    assert_eq!(record.slice(s![1, ..]).iter().copied().collect::<Vec<_>>(), sampled(&got, &p));
    assert_eq!(record.slice(s![0, ..]).iter().copied().collect::<Vec<_>>(), vec![9.0; 5], "other rows untouched");
}

#[test]
fn injection_and_sampling_run_on_a_second_backend() {
    let (p, u) = (points(), field());
    let amplitudes = [1.5, -2.0, 0.25, 3.0, 1.0];
    let mut d = model::model(0, [7, 10], |ix| u[ix]);
    p.inject(d.view_mut(), &amplitudes);
    let want = injected(&u, &p, &amplitudes);
    for ix in model::indices([7, 10]) {
        assert_eq!(d[ix], want[ix], "at {ix:?}");
    }
    let mut out = model::model(0, [5], |_| 0.0);
    p.sample(&d, out.view_mut());
    let want = sampled(&want, &p);
    for k in 0..5 {
        assert_eq!(out[[k]], want[k], "point {k}");
    }
}

#[test]
fn refusals_come_before_any_write() {
    let p = Points::new([[1.0, 1.0], [6.5, 2.0]]); // the second needs row 7 of 7
    let u = field();
    let mut got = u.clone();
    let e = p.try_inject(got.view_mut(), &[1.0, 1.0]).unwrap_err();
    assert!(matches!(e, Error::Coordinate { point: 1, .. }), "{e:?}");
    assert!(e.to_string().contains("outside a field of shape [7, 10]"), "{e}");
    assert_eq!(got, u, "nothing written");
    let e = points().try_inject(got.view_mut(), &[1.0]).unwrap_err();
    assert!(matches!(e, Error::LengthMismatch { expected: 5, got: 1, .. }), "{e:?}");
    let mut short = Array::<f64, 1>::zeros([4]);
    let e = points().try_sample(&u, short.view_mut()).unwrap_err();
    assert!(matches!(e, Error::LengthMismatch { expected: 5, got: 4, .. }), "{e:?}");
    let e = p.try_sample(&u, Array::<f64, 1>::zeros([2]).view_mut()).unwrap_err();
    assert!(matches!(e, Error::Coordinate { point: 1, .. }), "{e:?}");
}

#[test]
#[should_panic(expected = "Points::inject: point 0")]
fn the_plain_name_panics_with_the_message() {
    Points::new([[9.0, 9.0]]).inject(field().view_mut(), &[1.0]);
}
