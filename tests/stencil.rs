//! Stencil sweeps, boundaries and halo padding against naive loops.

use cnda::prelude::*;
use cnda::stencil::{self, fill_halo, interior, pad, pad_axes, DoubleBuffer, PadMode, Window2, Window3};
use proptest::prelude::*;

fn field(shape: [usize; 2], seed: u64) -> Array<f64, 2> {
    Array::from_fn(shape, |[i, j]| (((i as u64 * 31 + j as u64 * 17 + seed) % 23) as f64) - 11.0)
}

/// Radius-`r` box sum with weights (1 + |di| + |dj|), naively, over the interior only.
fn naive_box(u: &Array<f64, 2>, r: usize) -> Array<f64, 2> {
    let [n, m] = u.shape();
    let mut out = Array::<f64, 2>::full([n, m], -999.0);
    for i in r..n.saturating_sub(r) {
        for j in r..m.saturating_sub(r) {
            let mut s = 0.0;
            for di in -(r as isize)..=r as isize {
                for dj in -(r as isize)..=r as isize {
                    let w = 1.0 + di.unsigned_abs() as f64 + dj.unsigned_abs() as f64;
                    s += w * u[[(i as isize + di) as usize, (j as isize + dj) as usize]];
                }
            }
            out[[i, j]] = s;
        }
    }
    out
}

fn box_kernel<const R: usize>(out: &mut f64, w: Window2<'_, f64, R>) {
    let r = R as isize;
    let mut s = 0.0;
    for di in -r..=r {
        for dj in -r..=r {
            s += (1.0 + di.unsigned_abs() as f64 + dj.unsigned_abs() as f64) * w[(di, dj)];
        }
    }
    *out = s;
}

fn run_box<const R: usize>(u: &Array<f64, 2>) -> (Array<f64, 2>, Array<f64, 2>) {
    let mut seq = Array::<f64, 2>::full(u.shape(), -999.0);
    stencil::sweep2::<R, _, _, _, _, _>(u.view(), seq.view_mut(), box_kernel::<R>);
    let mut par = Array::<f64, 2>::full(u.shape(), -999.0);
    #[cfg(feature = "rayon")]
    stencil::par_sweep2::<R, _, _, _, _, _>(u.view(), par.view_mut(), box_kernel::<R>);
    #[cfg(not(feature = "rayon"))]
    par.assign(&seq);
    (seq, par)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn sweeps_match_a_naive_loop(n in 1usize..12, m in 1usize..12, seed in 0u64..100, radius in 1usize..4) {
        let u = field([n, m], seed);
        let (seq, par) = match radius {
            1 => run_box::<1>(&u),
            2 => run_box::<2>(&u),
            _ => run_box::<3>(&u),
        };
        let expected = naive_box(&u, radius);
        prop_assert_eq!(&seq, &expected);
        prop_assert_eq!(&par, &expected);
    }

    #[test]
    fn strided_inputs_sweep_like_contiguous_copies(n in 3usize..10, m in 3usize..10, seed in 0u64..50) {
        let u = field([n, m], seed);
        let t = u.t();
        let mut a = Array::<f64, 2>::zeros([m, n]);
        let mut b = Array::<f64, 2>::zeros([m, n]);
        stencil::sweep2::<1, _, _, _, _, _>(t, a.view_mut(), box_kernel::<1>);
        stencil::sweep2::<1, _, _, _, _, _>(t.to_owned().view(), b.view_mut(), box_kernel::<1>);
        prop_assert_eq!(a, b);
    }

    #[test]
    fn padding_matches_a_naive_reference(n in 1usize..6, width in 0usize..7, mode in 0usize..5) {
        let a = Array::from_fn([n], |[i]| i as i32 + 1);
        let mode = [PadMode::Constant(-1), PadMode::Edge, PadMode::Reflect, PadMode::Periodic, PadMode::Symmetric][mode];
        let p = pad(a.view(), width, mode);
        prop_assert_eq!(p.len(), n + 2 * width);
        // Reference: extend one step at a time, as the NumPy definitions read.
        let mut v: Vec<i32> = a.as_slice().to_vec();
        let naive = |k: isize| -> i32 {
            let n = n as isize;
            match mode {
                PadMode::Constant(c) => if (0..n).contains(&k) { v[k as usize] } else { c },
                PadMode::Edge => v[k.clamp(0, n - 1) as usize],
                PadMode::Periodic => v[k.rem_euclid(n) as usize],
                PadMode::Reflect => {
                    let mut k = k;
                    while !(0..n).contains(&k) {
                        if n == 1 { k = 0; break; }
                        k = if k < 0 { -k } else { 2 * (n - 1) - k };
                    }
                    v[k as usize]
                }
                PadMode::Symmetric => {
                    // Mirror about the face (the edge repeated), one fold at a time.
                    let mut k = k;
                    while !(0..n).contains(&k) {
                        k = if k < 0 { -k - 1 } else { 2 * n - 1 - k };
                    }
                    v[k as usize]
                }
            }
        };
        let expected: Vec<i32> = (0..p.len() as isize).map(|q| naive(q - width as isize)).collect();
        prop_assert_eq!(p.as_slice(), expected.as_slice());
        v.clear();
        let inner = interior(p.view(), width);
        prop_assert_eq!(inner, a.view());
    }
}

#[test]
fn boundary_visits_exactly_the_points_the_interior_sweep_skips() {
    let u = field([7, 9], 3);
    let mut visits = Array::<f64, 2>::zeros([7, 9]);
    stencil::sweep2::<2, _, _, _, _, _>(u.view(), visits.view_mut(), |o, _w| *o += 1.0);
    stencil::boundary2::<2, _, _, _, _, _>(u.view(), visits.view_mut(), |o, [i, j], input| {
        assert_eq!(input.get([i, j]), u.get([i, j]));
        *o += 10.0;
    });
    for ([i, j], &v) in visits.indexed_iter() {
        let inside = (2..5).contains(&i) && (2..7).contains(&j);
        assert_eq!(v, if inside { 1.0 } else { 10.0 });
    }
    let mut tiny = Array::<f64, 2>::zeros([1, 1]);
    stencil::boundary2::<1, _, _, _, _, _>(Array::<f64, 2>::zeros([1, 1]).view(), tiny.view_mut(), |o, _, _| *o = 5.0);
    assert_eq!(tiny[[0, 0]], 5.0);
}

#[test]
fn shape_mismatch_is_an_error() {
    let u = Array::<f64, 2>::zeros([4, 4]);
    let mut v = Array::<f64, 2>::zeros([4, 5]);
    let err = stencil::try_sweep2::<1, _, _, _, _, _>(u.view(), v.view_mut(), |o, w| *o = *w.centre()).unwrap_err();
    assert!(matches!(err, Error::ShapeMismatch { op: "sweep2", .. }));
}

#[test]
#[should_panic(expected = "reaches past the window radius 1")]
fn offsets_past_the_radius_panic() {
    let u = Array::<f64, 2>::zeros([5, 5]);
    let mut v = Array::<f64, 2>::zeros([5, 5]);
    let far = 2;
    stencil::sweep2::<1, _, _, _, _, _>(u.view(), v.view_mut(), |o, w| *o = w[(far, 0)]);
}

#[test]
fn seven_point_3d_sweep_matches_a_naive_loop() {
    let u = Array::from_fn([5, 6, 7], |[i, j, k]| ((i * 7 + j * 3 + k) % 5) as f64);
    let mut v = Array::<f64, 3>::zeros([5, 6, 7]);
    let lap = |o: &mut f64, w: Window3<'_, f64, 1>| {
        *o = w[(-1, 0, 0)] + w[(1, 0, 0)] + w[(0, -1, 0)] + w[(0, 1, 0)] + w[(0, 0, -1)] + w[(0, 0, 1)]
            - 6.0 * w.centre()
    };
    stencil::sweep3::<1, _, _, _, _, _>(u.view(), v.view_mut(), lap);
    for i in 1..4 {
        for j in 1..5 {
            for k in 1..6 {
                let e = u[[i - 1, j, k]]
                    + u[[i + 1, j, k]]
                    + u[[i, j - 1, k]]
                    + u[[i, j + 1, k]]
                    + u[[i, j, k - 1]]
                    + u[[i, j, k + 1]]
                    - 6.0 * u[[i, j, k]];
                assert_eq!(v[[i, j, k]], e);
            }
        }
    }
    #[cfg(feature = "rayon")]
    {
        let mut p = Array::<f64, 3>::zeros([5, 6, 7]);
        stencil::par_sweep3::<1, _, _, _, _, _>(u.view(), p.view_mut(), lap);
        assert_eq!(p, v);
    }
    assert_eq!(v[[0, 3, 3]], 0.0, "boundary untouched");
}

#[test]
fn double_buffer_swaps_without_copying() {
    let mut buf = DoubleBuffer::new(Array::from_fn([3, 3], |[i, j]| (i * 3 + j) as f64));
    let before = buf.current().as_slice().as_ptr();
    {
        let (u, mut v) = buf.split();
        v.assign(&u);
        v[[1, 1]] = 100.0;
    }
    buf.swap();
    assert_eq!(buf.current()[[1, 1]], 100.0);
    assert_ne!(buf.current().as_slice().as_ptr(), before);
    assert_eq!(buf.into_current()[[2, 2]], 8.0);
}

fn mode(k: usize) -> PadMode<f64> {
    [PadMode::Constant(-7.0), PadMode::Edge, PadMode::Reflect, PadMode::Periodic, PadMode::Symmetric][k % 5]
}

/// np.pad with per-axis widths and modes, computed point by point.
fn naive_pad_axes(a: &Array<f64, 2>, widths: [usize; 2], modes: [PadMode<f64>; 2]) -> Array<f64, 2> {
    let [n, m] = a.shape();
    let src = |p: isize, n: usize, mode: PadMode<f64>| -> Option<usize> {
        let n = n as isize;
        if (0..n).contains(&p) {
            return Some(p as usize);
        }
        match mode {
            PadMode::Constant(_) => None,
            PadMode::Edge => Some(p.clamp(0, n - 1) as usize),
            PadMode::Periodic => Some(p.rem_euclid(n) as usize),
            PadMode::Reflect => {
                // Walk the reflection one step at a time: the definition, not the folded formula.
                let mut q = 0isize;
                let mut dir = if p < 0 { -1 } else { 1 };
                for _ in 0..p.unsigned_abs() {
                    if n == 1 {
                        break;
                    }
                    if q + dir < 0 || q + dir >= n {
                        dir = -dir;
                    }
                    q += dir;
                }
                Some(q as usize)
            }
            PadMode::Symmetric => {
                // The same walk with the edge repeated at each turn.
                let (mut q, mut dir) = if p < 0 { (0isize, 1) } else { (n - 1, -1) };
                let steps = if p < 0 { p.unsigned_abs() - 1 } else { (p - n) as usize };
                for _ in 0..steps {
                    if q + dir < 0 || q + dir >= n {
                        dir = -dir; // the edge repeats once at each turn
                    } else {
                        q += dir;
                    }
                }
                Some(q as usize)
            }
        }
    };
    Array::from_fn([n + 2 * widths[0], m + 2 * widths[1]], |[i, j]| {
        let (si, sj) =
            (src(i as isize - widths[0] as isize, n, modes[0]), src(j as isize - widths[1] as isize, m, modes[1]));
        match (si, sj, modes) {
            (None, _, [PadMode::Constant(c), _]) | (_, None, [_, PadMode::Constant(c)]) => c,
            (Some(i), Some(j), _) => a[[i, j]],
            _ => unreachable!(),
        }
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn per_axis_padding_and_in_place_halo_refresh_match_a_naive_reference(
        n in 1usize..6, m in 1usize..6, w0 in 0usize..5, w1 in 0usize..5, m0 in 0usize..5, m1 in 0usize..5, seed in 0u64..20,
    ) {
        let a = field([n, m], seed);
        let modes = [mode(m0), mode(m1)];
        let expected = naive_pad_axes(&a, [w0, w1], modes);
        let padded = pad_axes(a.view(), [w0, w1], modes);
        prop_assert_eq!(&padded, &expected);
        // Scribble over the halo, then refresh it in place from the interior.
        let mut stale = padded.clone();
        stale.map_inplace(|x| *x = f64::NAN);
        let mut inner = stale.view_mut().slice(s![w0 as isize..(w0 + n) as isize, w1 as isize..(w1 + m) as isize]);
        inner.assign(&a);
        fill_halo(stale.view_mut(), [w0, w1], modes);
        prop_assert_eq!(&stale, &expected);
        if n > 0 && m > 0 {
            prop_assert_eq!(&padded[[w0, w1]] as *const f64 as usize % 64, 0, "the interior starts a cache line");
        }
    }
}

/// A padded array's interior starts on a cache line, for any element size and halo (a pooled
/// source too), and so does a copy's: with rows of whole lines (208 `f32`s), every interior row
/// does.
#[test]
fn padded_interiors_start_on_a_cache_line() {
    let line = |p: *const u8| p as usize % 64;
    let a = Array::<f32, 3>::ones([200, 24, 200]);
    let p = pad(a.view(), 4, PadMode::Constant(0.0));
    for i in [4, 100, 203] {
        for j in [4, 17, 27] {
            assert_eq!(line((&p[[i, j, 4]] as *const f32).cast()), 0, "row ({i}, {j})");
        }
    }
    let pool = cnda::pool::Pool::new();
    let b = Array::<u8, 2>::try_full_in(&pool, [5, 7], 1).unwrap();
    for w in [[1, 1], [0, 3], [2, 0]] {
        let p = pad_axes(b.view(), w, [PadMode::Edge; 2]);
        assert_eq!(line(&p[w]), 0, "widths {w:?}");
        assert_eq!(p.sum(), ((5 + 2 * w[0]) * (7 + 2 * w[1])) as u8, "filled");
        assert_eq!(line(&p.clone()[w]), 0, "a copy keeps its place in the line");
    }
    let c = Array::<f64, 1>::zeros([0]);
    assert_eq!(pad(c.view(), 3, PadMode::Constant(2.0)).sum(), 12.0, "an empty interior");
}

#[test]
fn fill_halo_rejects_halos_wider_than_the_array() {
    let mut u = Array::<f64, 2>::zeros([4, 4]);
    assert!(matches!(
        stencil::try_fill_halo(u.view_mut(), [3, 0], [PadMode::Edge; 2]),
        Err(Error::Range { axis: 0, .. })
    ));
    assert!(matches!(stencil::try_fill_halo(u.view_mut(), [2, 0], [PadMode::Edge; 2]), Err(Error::Layout { .. })));
    assert!(stencil::try_fill_halo(u.view_mut(), [2, 0], [PadMode::Constant(1.0), PadMode::Edge]).is_ok());
    assert_eq!(u.sum(), 16.0);
}

#[test]
fn double_buffer_current_mut_sets_boundaries() {
    let mut field = DoubleBuffer::new(Array::<f64, 2>::zeros([3, 3]));
    field.current_mut()[[0, 1]] = 5.0;
    assert_eq!(field.current()[[0, 1]], 5.0);
}

mod linear {
    use cnda::prelude::*;
    use cnda::stencil::LinearStencil;
    use proptest::prelude::*;

    /// `sum_k w_k * u[x + o_k]` over the interior, in tap order, by plain indexing.
    fn naive2<const R: usize, const K: usize>(s: &LinearStencil<f64, 2, R, K>, u: &Array<f64, 2>) -> Array<f64, 2> {
        let [n, m] = u.shape();
        Array::from_fn([n, m], |[i, j]| {
            let inside = i >= R && j >= R && i + R < n && j + R < m;
            if !inside {
                return -1.0;
            }
            s.taps()
                .iter()
                .fold(0.0, |acc, &([di, dj], w)| acc + w * u[[(i as isize + di) as usize, (j as isize + dj) as usize]])
        })
    }

    fn naive3<const R: usize, const K: usize>(s: &LinearStencil<f64, 3, R, K>, u: &Array<f64, 3>) -> Array<f64, 3> {
        let [a, b, c] = u.shape();
        Array::from_fn([a, b, c], |[i, j, k]| {
            let inside = i >= R && j >= R && k >= R && i + R < a && j + R < b && k + R < c;
            if !inside {
                return -1.0;
            }
            s.taps().iter().fold(0.0, |acc, &([di, dj, dk], w)| {
                let at = [(i as isize + di) as usize, (j as isize + dj) as usize, (k as isize + dk) as usize];
                acc + w * u[at]
            })
        })
    }

    fn field<const N: usize>(shape: [usize; N], seed: u64) -> Array<f64, N> {
        let mut x = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        Array::from_fn(shape, |_| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (x >> 33) as f64 / (1u64 << 31) as f64 - 0.5
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn linear_2d_stencils_match_a_naive_loop_exactly(n in 1usize..10, m in 1usize..10, seed in 0u64..50, transposed in any::<bool>()) {
            let u = field([n, m], seed);
            let input = if transposed { u.t().to_owned() } else { u.clone() };
            let check = |got: &Array<f64, 2>, want: Array<f64, 2>| {
                for (index, &w) in want.indexed_iter() {
                    if w != -1.0 {
                        assert_eq!(got[index], w, "{index:?}");
                    }
                }
            };
            let mut out = Array::<f64, 2>::full(input.shape(), -1.0);
            let s5 = LinearStencil::laplacian_5pt(0.5);
            s5.apply(input.t().t(), out.view_mut());
            check(&out, naive2(&s5, &input));
            let s9 = LinearStencil::laplacian_9pt(2.0);
            s9.apply(input.view(), out.view_mut());
            check(&out, naive2(&s9, &input));
            let wide = LinearStencil::<f64, 2, 2, 3>::new([([-2, 0], 1.0), ([0, 2], -3.0), ([1, -1], 0.5)]);
            #[cfg(feature = "rayon")]
            wide.par_apply(input.view(), out.view_mut());
            #[cfg(not(feature = "rayon"))]
            wide.apply(input.view(), out.view_mut());
            check(&out, naive2(&wide, &input));
        }

        #[test]
        fn linear_3d_stencils_match_a_naive_loop_exactly(n in 1usize..7, m in 1usize..7, l in 1usize..7, seed in 0u64..50) {
            let u = field([n, m, l], seed);
            let mut out = Array::<f64, 3>::full([n, m, l], -1.0);
            for s in [LinearStencil::laplacian_27pt(1.5)] {
                s.apply(u.view(), out.view_mut());
                for (index, &w) in naive3(&s, &u).indexed_iter() {
                    if w != -1.0 {
                        prop_assert_eq!(out[index], w);
                    }
                }
            }
            let s7 = LinearStencil::jacobi_7pt();
            #[cfg(feature = "rayon")]
            s7.par_apply(u.view(), out.view_mut());
            #[cfg(not(feature = "rayon"))]
            s7.apply(u.view(), out.view_mut());
            for (index, &w) in naive3(&s7, &u).indexed_iter() {
                if w != -1.0 {
                    prop_assert_eq!(out[index], w);
                }
            }
        }
    }

    #[test]
    fn the_laplacian_of_a_quadratic_is_constant() {
        let u = Array::from_fn([6, 7, 5], |[i, j, k]| (i * i + 2 * j * j + k) as f64);
        let mut lap = Array::<f64, 3>::zeros([6, 7, 5]);
        LinearStencil::laplacian_7pt(1.0).apply(u.view(), lap.view_mut());
        assert_eq!(lap[[2, 3, 2]], 2.0 + 4.0);
        let j = LinearStencil::<f64, 2, 1, 4>::jacobi_5pt();
        let flat = Array::<f64, 2>::full([4, 4], 3.0);
        let mut out = Array::<f64, 2>::zeros([4, 4]);
        j.apply(flat.view(), out.view_mut());
        assert_eq!(out[[1, 2]], 3.0);
    }

    #[test]
    fn taps_past_the_radius_and_shape_mismatches_are_errors() {
        let err = LinearStencil::<f64, 2, 1, 2>::try_new([([0, 0], 1.0), ([2, 0], 1.0)]).unwrap_err();
        assert!(err.to_string().contains("tap 1 has offset [2, 0], past the radius 1"), "{err}");
        let s = LinearStencil::<f64, 2, 1, 5>::laplacian_5pt(1.0);
        let (u, mut v) = (Array::<f64, 2>::zeros([3, 3]), Array::<f64, 2>::zeros([3, 4]));
        assert!(matches!(s.try_apply(u.view(), v.view_mut()), Err(Error::ShapeMismatch { .. })));
    }
}

#[test]
fn one_sweep_serves_every_rank() {
    // 1D: the second difference of i^2 is 2 everywhere inside.
    let u = Array::from_fn([8], |[i]| (i * i) as f64);
    let mut v = Array::<f64, 1>::zeros([8]);
    stencil::sweep(u.view(), v.view_mut(), |o, w: stencil::Window1<f64, 1>| *o = w[-1] - 2.0 * w[0] + w[1]);
    assert_eq!(v.as_slice(), &[0.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 0.0]);
    // 4D: the sum of the 8 face neighbours, against a naive loop, through a flipped input.
    let shape = [4, 5, 3, 6];
    let a = Array::from_fn(shape, |[i, j, k, l]| ((i * 7 + j * 5 + k * 3 + l) % 11) as f64);
    let flipped = a.flip(3);
    let mut got = Array::<f64, 4>::zeros(shape);
    stencil::sweep(flipped, got.view_mut(), |o, w: stencil::Window<f64, 4, 1>| {
        *o = (0..4)
            .map(|axis| {
                let (mut lo, mut hi) = ([0isize; 4], [0isize; 4]);
                (lo[axis], hi[axis]) = (-1, 1);
                w[lo] + w[hi]
            })
            .sum();
    });
    let f = flipped.to_owned();
    for [i, j, k, l] in (0..shape.iter().product::<usize>()).map(|n| [n / 90, n / 18 % 5, n / 6 % 3, n % 6]) {
        let inside = (1..3).contains(&i) && (1..4).contains(&j) && k == 1 && (1..5).contains(&l);
        let want = if inside {
            f[[i - 1, j, k, l]]
                + f[[i + 1, j, k, l]]
                + f[[i, j - 1, k, l]]
                + f[[i, j + 1, k, l]]
                + f[[i, j, k - 1, l]]
                + f[[i, j, k + 1, l]]
                + f[[i, j, k, l - 1]]
                + f[[i, j, k, l + 1]]
        } else {
            0.0
        };
        assert_eq!(got[[i, j, k, l]], want, "{:?}", [i, j, k, l]);
    }
    // The boundary of the 4D grid is everything else.
    let mut visits = Array::<f64, 4>::zeros(shape);
    stencil::sweep(a.view(), visits.view_mut(), |o, _: stencil::Window<f64, 4, 1>| *o += 1.0);
    stencil::boundary::<4, 1, _, _, _, _, _>(a.view(), visits.view_mut(), |o, _, _| *o += 1.0);
    assert!(visits.iter().all(|&n| n == 1.0));
}

#[test]
fn linear_stencils_take_arrays_and_any_rank() {
    let u = Array::from_fn([9], |[i]| (i * i * i) as f64);
    let mut v = Array::<f64, 1>::zeros([9]);
    let d2 = stencil::LinearStencil::<f64, 1, 1, 3>::new([([-1], 1.0), ([0], -2.0), ([1], 1.0)]);
    d2.apply(&u, &mut v);
    for i in 1..8 {
        assert_eq!(v[[i]], 6.0 * i as f64, "second difference of i^3 at {i}");
    }
    assert_eq!((v[[0]], v[[8]]), (0.0, 0.0));
    let mut w = Array::<f64, 1>::zeros([8]);
    assert!(matches!(d2.try_apply(&u, &mut w), Err(Error::ShapeMismatch { .. })));
    // Too small for an interior: nothing is written.
    let tiny = Array::from_fn([2], |[i]| i as f64);
    let mut out = Array::<f64, 1>::full([2], 7.0);
    d2.apply(&tiny, &mut out);
    assert_eq!(out.as_slice(), &[7.0, 7.0]);
}

/// `sweep_fields` on inputs and outputs of every stride pattern (transposed, stepped, flipped,
/// mixed with contiguous ones) in ranks 1 and 3, against a naive loop over indices: the row walk
/// takes its unit-stride path only where every operand steps by one along the last axis.
#[test]
fn closure_sweeps_over_fields_of_any_strides_match_a_naive_loop() {
    use cnda::stencil::{sweep_fields, Window1, Window3};
    let a = Array::from_fn([13], |[i]| (i * i % 7) as f64);
    let b = Array::from_fn([26], |[i]| i as f64 * 0.5);
    let stepped = b.slice(s![..;2]);
    for flipped in [false, true] {
        let mut out = Array::<f64, 1>::full([13], -1.0);
        let second = if flipped { a.flip(0) } else { stepped.into_strided() };
        sweep_fields([a.view().into(), second], out.view_mut(), |o, [x, y]: [Window1<f64, 2>; 2], [i]| {
            *o = x[-2] * y[1] + i as f64
        });
        for i in 0..13 {
            let want = if (2..11).contains(&i) { a[[i - 2]] * second[[i + 1]] + i as f64 } else { -1.0 };
            assert_eq!(out[[i]], want, "rank 1 at {i}, flipped {flipped}");
        }
    }
    let shape = [5, 6, 7];
    let u = Array::from_fn(shape, |[i, j, k]| (i * 31 + j * 7 + k) as f64);
    let w = Array::from_fn([7, 6, 5], |[k, j, i]| (k + 2 * j + 3 * i) as f64 * 0.25);
    let wt = w.view().permute([2, 1, 0]);
    let mut out = Array::<f64, 3>::full([7, 6, 5], 0.5);
    let mut out_t = out.view_mut().permute([2, 1, 0]);
    sweep_fields([u.view().into(), wt], out_t.view_mut(), |o, [x, y]: [Window3<f64, 1>; 2], [i, j, k]| {
        *o = x[(1, 0, -1)] - y[(-1, 1, 0)] * (i * 100 + j * 10 + k) as f64;
    });
    for i in 0..5 {
        for j in 0..6 {
            for k in 0..7 {
                let interior = (1..4).contains(&i) && (1..5).contains(&j) && (1..6).contains(&k);
                let want = if interior {
                    u[[i + 1, j, k - 1]] - wt[[i - 1, j + 1, k]] * (i * 100 + j * 10 + k) as f64
                } else {
                    0.5
                };
                assert_eq!(out[[k, j, i]], want, "rank 3 at {i}, {j}, {k}");
            }
        }
    }
}
