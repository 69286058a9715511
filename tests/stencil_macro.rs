//! `stencil!` stencils applied on the CPU against naive references written without cnda's stencil
//! code: plain loops over row-major `Vec`s, evaluating the same expression in the same order, so
//! results must match bit for bit. Layouts (transposed, stepped, column-major), ranks 1-4,
//! radii 0-3, 1-3 fields, odd sizes, and every call form.

use cnda::prelude::*;
use cnda::stencil::{self, stencil, Stencil};
use proptest::prelude::*;

/// The radius of stencil `s`.
fn radius_of<T: stencil::Scalar, const N: usize, S: Stencil<T, N>>(_: &S) -> [usize; N] {
    stencil::radius::<S, T, N>()
}

/// Row-major flat index of `idx` in `shape`.
fn flat(shape: &[usize], idx: &[isize]) -> usize {
    idx.iter().zip(shape).fold(0usize, |acc, (&i, &n)| acc * n + i as usize)
}

/// Every interior point of `shape` for per-axis radius `r`, in row-major order.
fn interior_points(shape: &[usize], r: &[usize]) -> Vec<Vec<isize>> {
    let mut points = vec![vec![]];
    for (k, &n) in shape.iter().enumerate() {
        let range: Vec<isize> = if n > 2 * r[k] { (r[k] as isize..(n - r[k]) as isize).collect() } else { vec![] };
        points = points.into_iter().flat_map(|p| range.iter().map(move |&i| [p.clone(), vec![i]].concat())).collect();
    }
    points
}

/// The naive sweep: `out[x] = f(read, x)` at every interior point, `read(field, x + offset)`.
fn naive<T: Copy>(
    shape: &[usize],
    radius: &[usize],
    fields: &[Vec<T>],
    out: &mut [T],
    f: impl Fn(&dyn Fn(usize, &[isize]) -> T) -> T,
) {
    for p in interior_points(shape, radius) {
        let read = |field: usize, offset: &[isize]| {
            let at: Vec<isize> = p.iter().zip(offset).map(|(&i, &o)| i + o).collect();
            fields[field][flat(shape, &at)]
        };
        out[flat(shape, &p)] = f(&read);
    }
}

#[test]
fn the_heat_stencil_matches_a_naive_loop_bit_for_bit() {
    let heat =
        stencil!(|u, k; dt: T| u[0, 0] + dt * (k[0, 0] * (u[-1, 0] + u[1, 0] + u[0, -1] + u[0, 1] - 4.0 * u[0, 0])));
    assert_eq!(radius_of::<f64, 2, _>(&heat), [1, 1]);
    let shape = [7, 9];
    let u = Array::from_fn(shape, |[i, j]| ((i * 31 + j * 17) % 13) as f64 * 0.37 - 1.1);
    let k = Array::from_fn(shape, |[i, j]| 0.1 + ((i + 2 * j) % 5) as f64 * 0.05);
    let mut v = Array::<f64, 2>::full(shape, -7.0);
    heat.apply((&u, &k), &mut v, (0.2,));
    let mut want = vec![-7.0; 63];
    naive(&shape, &[1, 1], &[u.as_slice().to_vec(), k.as_slice().to_vec()], &mut want, |r| {
        r(0, &[0, 0])
            + 0.2
                * (r(1, &[0, 0])
                    * (r(0, &[-1, 0]) + r(0, &[1, 0]) + r(0, &[0, -1]) + r(0, &[0, 1]) - 4.0 * r(0, &[0, 0])))
    });
    assert_eq!(v.as_slice(), &want[..]);
}

/// `let` bindings name subexpressions (numbers and conditions) that later bindings and the value
/// use: the same values as the expression written out, bit for bit.
#[test]
fn let_bindings_match_a_naive_loop_bit_for_bit() {
    let s = stencil!(|u, k; a: T| {
        let lap = u[-1, 0] + u[1, 0] + u[0, -1] + u[0, 1] - 4.0 * u[0, 0];
        let steep = lap > a;
        let flux = k[0, 0] * lap;
        u[0, 0] + select(steep, a * flux, flux) - 0.5 * lap
    });
    let shape = [8, 11];
    let u = Array::from_fn(shape, |[i, j]| ((i * 31 + j * 17) % 13) as f64 * 0.37 - 1.1);
    let k = Array::from_fn(shape, |[i, j]| 0.1 + ((i + 2 * j) % 5) as f64 * 0.05);
    let mut v = Array::<f64, 2>::full(shape, -7.0);
    s.apply((&u, &k), &mut v, (0.25,));
    let mut want = vec![-7.0; 88];
    naive(&shape, &[1, 1], &[u.as_slice().to_vec(), k.as_slice().to_vec()], &mut want, |r| {
        let lap = r(0, &[-1, 0]) + r(0, &[1, 0]) + r(0, &[0, -1]) + r(0, &[0, 1]) - 4.0 * r(0, &[0, 0]);
        let flux = r(1, &[0, 0]) * lap;
        r(0, &[0, 0]) + if lap > 0.25 { 0.25 * flux } else { flux } - 0.5 * lap
    });
    assert_eq!(v.as_slice(), &want[..]);
}

/// A nonlinear stencil with comparisons, select and every math function, in f32 and f64.
fn nonlinear_case<T: stencil::Scalar + From<f32>>(shape: [usize; 2]) {
    let s = stencil!(|a, b; c| select(a[0, 0] < b[0, 1], sqrt(abs(a[1, -1])) + exp(b[0, 0] * c), ln(1.5 + a[-1, 0] * a[-1, 0]))
        + sin(a[0, 1]).min(cos(b[-1, 1])) * tanh(c).max(floor(b[1, 0])) - powi(a[0, 0], 3) / powi(b[0, 0] + 2.0, -2));
    let a = Array::<T, 2>::from_fn(shape, |[i, j]| T::from(((i * 7 + j * 3) % 11) as f32 * 0.3 - 1.2));
    let b = Array::<T, 2>::from_fn(shape, |[i, j]| T::from(((i * 5 + j * 13) % 9) as f32 * 0.25 - 0.9));
    let mut out = Array::<T, 2>::zeros(shape);
    let c = T::from(0.7);
    s.apply((&a, &b), &mut out, (c,));
    let mut want = vec![T::from(0.0); shape[0] * shape[1]];
    let two = T::from(2.0);
    let sel = |cond: bool, x: T, y: T| if cond { x } else { y };
    naive(&shape, &[1, 1], &[a.as_slice().to_vec(), b.as_slice().to_vec()], &mut want, |r| {
        let p3 = r(0, &[0, 0]) * r(0, &[0, 0]) * r(0, &[0, 0]);
        let q = r(1, &[0, 0]) + two;
        sel(
            r(0, &[0, 0]) < r(1, &[0, 1]),
            r(0, &[1, -1]).abs().sqrt() + (r(1, &[0, 0]) * c).exp(),
            (T::from(1.5) + r(0, &[-1, 0]) * r(0, &[-1, 0])).ln(),
        ) + <T as stencil::Scalar>::min(r(0, &[0, 1]).sin(), r(1, &[-1, 1]).cos())
            * <T as stencil::Scalar>::max(c.tanh(), r(1, &[1, 0]).floor())
            - p3 / (T::ONE / (q * q))
    });
    for (got, want) in out.as_slice().iter().zip(&want) {
        assert!(got == want || (got.is_nan() && want.is_nan()), "{got} != {want}");
    }
}

#[test]
fn nonlinear_stencils_match_a_naive_loop_in_f32_and_f64() {
    nonlinear_case::<f64>([6, 8]);
    nonlinear_case::<f32>([9, 5]);
}

#[test]
fn fields_may_have_any_layout_and_the_output_another() {
    let s = stencil!(|u, w| u[0, 1] - 2.0 * w[1, 0] + u[-2, 0]);
    let base = Array::from_fn([11, 14], |[i, j]| (i * 14 + j) as f64 * 0.5);
    let w = Array::from_fn([6, 7], |[i, j]| (i as f64 - j as f64) * 1.25).to_layout::<ColMajor>();
    // u: a stepped, flipped view of `base`; w: column-major; out: a transposed view.
    let u = base.slice(s![..;2, ..;-2]);
    assert_eq!(u.shape(), [6, 7]);
    let mut out_t = Array::<f64, 2>::full([7, 6], 9.0);
    s.apply((u, &w), out_t.view_mut().t(), ());
    let (uc, wc) = (u.to_owned(), w.to_layout::<RowMajor>());
    let mut want = vec![9.0; 42];
    naive(&[6, 7], &[2, 1], &[uc.as_slice().to_vec(), wc.as_slice().to_vec()], &mut want, |r| {
        r(0, &[0, 1]) - 2.0 * r(1, &[1, 0]) + r(0, &[-2, 0])
    });
    assert_eq!(out_t.t().to_owned().as_slice(), &want[..]);
}

#[test]
fn ranks_one_to_four_and_radii_zero_to_three() {
    // Rank 1, radius 3.
    let s1 = stencil!(|u| u[-3] + u[3] * 0.5 - u[0]);
    let u1 = Array::from_fn([10], |[i]| (i * i) as f64);
    let mut v1 = Array::<f64, 1>::zeros([10]);
    s1.apply(&u1, &mut v1, ());
    let mut want = vec![0.0; 10];
    naive(&[10], &[3], &[u1.as_slice().to_vec()], &mut want, |r| r(0, &[-3]) + r(0, &[3]) * 0.5 - r(0, &[0]));
    assert_eq!(v1.as_slice(), &want[..]);

    // Rank 3, radius 0 (a pointwise map of three fields: every point is interior).
    let s3 = stencil!(|a, b, c; x: f64| a[0, 0, 0] * x + b[0, 0, 0] / (c[0, 0, 0] + 1.0));
    let f = |seed: usize| Array::from_fn([3, 4, 5], move |[i, j, k]| ((i * 20 + j * 5 + k + seed) % 7) as f64);
    let (a, b, c) = (f(0), f(3), f(5));
    let mut v3 = Array::<f64, 3>::zeros([3, 4, 5]);
    s3.apply((&a, &b, &c), &mut v3, (1.5,));
    let mut want = vec![0.0; 60];
    let data = [a.as_slice().to_vec(), b.as_slice().to_vec(), c.as_slice().to_vec()];
    naive(&[3, 4, 5], &[0, 0, 0], &data, &mut want, |r| {
        r(0, &[0, 0, 0]) * 1.5 + r(1, &[0, 0, 0]) / (r(2, &[0, 0, 0]) + 1.0)
    });
    assert_eq!(v3.as_slice(), &want[..]);

    // Rank 4, radius 2 on one axis and 1 on another.
    let s4 = stencil!(|u| u[0, 2, 0, 0] - u[0, -1, 0, 1] + u[0, 0, 0, -1]);
    assert_eq!(radius_of::<f64, 4, _>(&s4), [0, 2, 0, 1]);
    let u4 = Array::from_fn([2, 7, 3, 5], |[i, j, k, l]| (i * 1000 + j * 100 + k * 10 + l) as f64);
    let mut v4 = Array::<f64, 4>::zeros([2, 7, 3, 5]);
    s4.apply(u4.view(), &mut v4, ());
    let mut want = vec![0.0; 210];
    naive(&[2, 7, 3, 5], &[0, 2, 0, 1], &[u4.as_slice().to_vec()], &mut want, |r| {
        r(0, &[0, 2, 0, 0]) - r(0, &[0, -1, 0, 1]) + r(0, &[0, 0, 0, -1])
    });
    assert_eq!(v4.as_slice(), &want[..]);
}

stencil! {
    /// A named stencil type, usable in signatures.
    pub struct Smooth = |u; w: T| (1.0 - w) * u[0, 0] + w * 0.25 * (u[-1, 0] + u[1, 0] + u[0, -1] + u[0, 1]);
}

fn smooth_twice(u: &Array<f32, 2>, w: f32) -> Array<f32, 2> {
    let mut v = u.clone();
    let mut t = u.clone();
    Smooth.apply(u, &mut t, (w,));
    Smooth.apply(&t, &mut v, (w,));
    v
}

#[test]
fn a_named_stencil_type_works_in_signatures() {
    let u = Array::from_fn([5, 5], |[i, j]| if i == 2 && j == 2 { 1.0f32 } else { 0.0 });
    let v = smooth_twice(&u, 0.5);
    // Twice the 5-point smoother: the centre keeps 0.5^2 + 4 * (0.125)^2 of the spike.
    assert_eq!(v[[2, 2]], 0.5 * 0.5 + 4.0 * 0.125 * 0.125);
    assert_eq!(v[[0, 0]], 0.0);
}

#[test]
fn grids_without_an_interior_are_left_alone_and_mismatches_are_errors() {
    let s = stencil!(|u| u[-2, 0] + u[2, 0]);
    let u = Array::<f64, 2>::ones([4, 3]);
    let mut v = Array::<f64, 2>::full([4, 3], 5.0);
    s.apply(&u, &mut v, ());
    assert!(v.iter().all(|&x| x == 5.0), "no point is 2 from both ends of an axis of 4");
    let mut w = Array::<f64, 2>::zeros([5, 3]);
    let err = s.try_apply(&u, &mut w, ()).unwrap_err();
    assert!(matches!(err, Error::ShapeMismatch { .. }), "{err}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Random shapes, steps and offsets of a radius-2 two-field stencil against the naive loop.
    #[test]
    fn random_shapes_and_views_match_the_naive_loop(
        n0 in 1usize..12, n1 in 1usize..12, step0 in 1usize..3, step1 in 1usize..3, flip in any::<bool>(),
        seed in 0u64..1000,
    ) {
        let s = stencil!(|u, k; a: T, b: T| a * u[2, -1] + k[0, 0] * (u[-2, 1] - b * k[1, 1]));
        let base = Array::from_fn([n0 * step0, n1 * step1], |[i, j]| ((i as u64 * 7919 + j as u64 * 104729 + seed) % 1000) as f64 / 100.0);
        let u = if flip { base.slice(s![..;step0 as isize, ..;-(step1 as isize)]) } else { base.slice(s![..;step0 as isize, ..;step1 as isize]) };
        let k = Array::from_fn([n0, n1], |[i, j]| ((i * 3 + j * 5) as u64 % 17) as f64 - 8.0);
        let mut out = Array::<f64, 2>::full([n0, n1], 0.5);
        s.apply((u, &k), &mut out, (1.25, -0.5));
        #[cfg(feature = "rayon")]
        {
            let mut par = Array::<f64, 2>::full([n0, n1], 0.5);
            s.par_apply((u, &k), &mut par, (1.25, -0.5));
            prop_assert_eq!(&par, &out);
        }
        let mut want = vec![0.5; n0 * n1];
        naive(&[n0, n1], &[2, 1], &[u.to_owned().as_slice().to_vec(), k.as_slice().to_vec()], &mut want, |r| {
            1.25 * r(0, &[2, -1]) + r(1, &[0, 0]) * (r(0, &[-2, 1]) - -0.5 * r(1, &[1, 1]))
        });
        prop_assert_eq!(out.as_slice(), &want[..]);
    }
}

/// Closure sweeps over several fields with the point's index: against the naive loop, and the
/// parallel form against the sequential one.
#[test]
fn closure_sweeps_over_several_fields_see_the_index() {
    use cnda::stencil::{sweep_fields, Window2};
    let shape = [9, 11];
    let u = Array::from_fn(shape, |[i, j]| ((i * 5 + j * 3) % 7) as f64 - 2.0);
    let k = Array::from_fn(shape, |[i, j]| 0.25 + ((i + j) % 4) as f64 * 0.125);
    let t = Array::from_fn(shape, |[i, j]| (i * 11 + j) as f64).t().to_owned().t().to_owned();
    let update = |out: &mut f64, [u, k, t]: [Window2<f64, 2>; 3], [i, j]: [usize; 2]| {
        *out = u[(0, 0)] + k[(0, 0)] * (u[(-2, 0)] + u[(0, 1)]) - t[(1, -1)] * (i * 100 + j) as f64;
    };
    let mut v = Array::<f64, 2>::full(shape, 3.0);
    sweep_fields([u.view().into(), k.view().into(), t.view().into()], v.view_mut(), update);
    let mut want = vec![3.0; 99];
    for i in 2..7 {
        for j in 2..9 {
            want[i * 11 + j] =
                u[[i, j]] + k[[i, j]] * (u[[i - 2, j]] + u[[i, j + 1]]) - t[[i + 1, j - 1]] * (i * 100 + j) as f64;
        }
    }
    assert_eq!(v.as_slice(), &want[..]);
    #[cfg(feature = "rayon")]
    {
        let mut p = Array::<f64, 2>::full(shape, 3.0);
        cnda::stencil::par_sweep_fields([u.view().into(), k.view().into(), t.view().into()], p.view_mut(), update);
        assert_eq!(p, v);
    }
}
