//! Run-time stencils on the CPU (`DynStencil`: taps known at run time; `VariableStencil`: a
//! coefficient field per tap) against a naive loop written here from the definition, bit for
//! bit: ranks 1-3, random taps and radii (anisotropic), every stride pattern (row- and
//! column-major, stepped, flipped), lanes at every offset from a cache line, the threaded form;
//! `DynStencil` against the compile-time `LinearStencil`; and every refusal with its message.

use cnda::prelude::*;
use cnda::stencil::{DynStencil, LinearStencil, VariableStencil, MAX_RADIUS, MAX_TAPS};
use proptest::prelude::*;

/// `$s.par_apply(..)` when `$threads` (with feature `rayon`), else `$s.apply(..)`.
macro_rules! apply {
    ($threads:expr, $s:expr, $($arg:expr),*) => {{
        #[cfg(feature = "rayon")]
        if $threads { $s.par_apply($($arg),*) } else { $s.apply($($arg),*) }
        #[cfg(not(feature = "rayon"))]
        {
            let _ = $threads;
            $s.apply($($arg),*)
        }
    }};
}

/// The naive sweep: every point at least `radius` from each edge gets the taps' sum in tap order
/// from the first product (`factor(k, x)` is tap `k`'s weight or coefficient at `x`); the other
/// points keep `fill`.
fn naive<const N: usize>(
    u: &Array<f64, N>,
    offsets: &[[isize; N]],
    factor: impl Fn(usize, [usize; N]) -> f64,
    radius: [usize; N],
    fill: f64,
) -> Array<f64, N> {
    let shape = u.shape();
    Array::from_fn(shape, |x| {
        if (0..N).any(|a| x[a] < radius[a] || x[a] + radius[a] >= shape[a]) {
            return fill;
        }
        let term = |k: usize| {
            let at: [usize; N] = core::array::from_fn(|a| (x[a] as isize + offsets[k][a]) as usize);
            factor(k, x) * u[at]
        };
        (1..offsets.len()).fold(term(0), |acc, k| acc + term(k))
    })
}

fn field<const N: usize>(shape: [usize; N], seed: u64) -> Array<f64, N> {
    Array::from_fn(shape, |x| {
        let h = x.iter().fold(seed, |h, &i| h.wrapping_mul(1_000_003).wrapping_add(i as u64 * 7919));
        (h % 1013) as f64 / 97.0 - 5.0
    })
}

/// Random taps within radius `r` on each axis.
fn taps<const N: usize>(count: usize, r: [usize; N], seed: u64) -> Vec<([isize; N], f64)> {
    (0..count as u64)
        .map(|k| {
            let h = seed.wrapping_mul(6364136223846793005).wrapping_add(k.wrapping_mul(1442695040888963407));
            let offset = core::array::from_fn(|a| ((h >> (8 * a)) % (2 * r[a] as u64 + 1)) as isize - r[a] as isize);
            (offset, ((h >> 40) % 17) as f64 * 0.125 - 1.0)
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn dyn_stencils_equal_the_naive_loop_in_every_layout(
        n0 in 1usize..12, n1 in 1usize..90, count in 1usize..30, r0 in 0usize..3, r1 in 0usize..4,
        seed in 0u64..1000, layout in 0u8..4, threads in any::<bool>(),
    ) {
        let s = DynStencil::new(taps(count, [r0, r1], seed));
        let radius = s.radius();
        let (offsets, weights): (Vec<_>, Vec<_>) = s.taps().iter().copied().unzip();
        let u = field([n0, n1], seed);
        let want = naive(&u, &offsets, |k, _| weights[k], radius, -3.0);
        // The same data under three stride patterns (NaN between the stepped elements, so a
        // stray read would show), the output row- or column-major.
        let big = Array::from_fn([2 * n0, 2 * n1], |[i, j]| if i % 2 == 0 && j % 2 == 0 { u[[i / 2, j / 2]] } else { f64::NAN });
        let u_t = u.t().to_owned();
        let input: ArrayView<'_, f64, 2> = match layout {
            0 => u.view().into(),
            1 => big.slice(s![..;2, ..;2]).into_strided(),
            _ => u_t.t().into(),
        };
        let column_major = layout == 2;
        let mut store = if column_major { Array::full([n1, n0], -3.0) } else { Array::full([n0, n1], -3.0) };
        let out: ArrayViewMut<'_, f64, 2> = if column_major { store.view_mut().t().into() } else { store.view_mut().into() };
        apply!(threads, s, input, out);
        let got = if column_major { store.t().to_owned() } else { store };
        prop_assert_eq!(got, want);
    }

    #[test]
    fn variable_stencils_equal_the_naive_loop(
        n in 1usize..7, m in 1usize..7, l in 1usize..90, count in 1usize..12, seed in 0u64..1000,
        flipped in any::<bool>(), threads in any::<bool>(),
    ) {
        let offsets: Vec<[isize; 3]> = taps(count, [1, 2, 2], seed).into_iter().map(|(o, _)| o).collect();
        let s = VariableStencil::new(offsets.clone());
        let u = field([n, m, l], seed);
        let coefficients: Vec<Array<f64, 3>> = (0..count as u64).map(|k| field([n, m, l], seed + 17 * k + 1)).collect();
        let want = naive(&u, &offsets, |k, x| coefficients[k][x], s.radius(), 0.5);
        let mut out = Array::full([n, m, l], 0.5);
        if flipped {
            // Every operand flipped along axis 2: the same points, negative strides.
            let flip = |a: &Array<f64, 3>| a.flip(2).to_owned();
            let (uf, cf) = (flip(&u), coefficients.iter().map(flip).collect::<Vec<_>>());
            let views: Vec<ArrayView<'_, f64, 3>> = cf.iter().map(|c| c.flip(2)).collect();
            let mut outf = Array::full([n, m, l], 0.5);
            apply!(threads, s, uf.flip(2), &views, outf.view_mut().flip(2));
            out = outf.flip(2).to_owned();
        } else {
            apply!(threads, s, &u, &coefficients.iter().collect::<Vec<_>>(), &mut out);
        }
        prop_assert_eq!(out, want);
    }
}

#[test]
fn a_dyn_stencil_gives_a_linear_stencils_bits_in_one_to_three_dimensions() {
    let u1 = field([300], 1);
    let lin1 = LinearStencil::<f64, 1, 2, 3>::new([([-2], 0.3), ([0], -0.7), ([1], 1.1)]);
    let (mut a, mut b) = (Array::<f64, 1>::zeros([300]), Array::<f64, 1>::zeros([300]));
    lin1.apply(&u1, &mut a);
    DynStencil::from(lin1).apply(&u1, &mut b);
    assert_eq!(a, b);

    let u2 = field([37, 300], 2);
    let lin2 = LinearStencil::laplacian_9pt(0.3);
    let (mut a, mut b) = (Array::<f64, 2>::zeros([37, 300]), Array::<f64, 2>::zeros([37, 300]));
    lin2.apply(&u2, &mut a);
    apply!(true, DynStencil::from(lin2), &u2, &mut b);
    assert_eq!(a, b);

    let u3 = field([9, 10, 270], 3);
    let lin3 = LinearStencil::laplacian_27pt(0.7);
    let (mut a, mut b) = (Array::<f64, 3>::zeros([9, 10, 270]), Array::<f64, 3>::zeros([9, 10, 270]));
    lin3.apply(&u3, &mut a);
    DynStencil::from(lin3).apply(&u3, &mut b);
    assert_eq!(a, b);

    // f32 too, through the same kernel.
    let u = u2.map(|x| x as f32);
    let (mut a, mut b) = (Array::<f32, 2>::zeros([37, 300]), Array::<f32, 2>::zeros([37, 300]));
    LinearStencil::<f32, 2, 1, 5>::laplacian_5pt(0.5).apply(&u, &mut a);
    DynStencil::from(LinearStencil::<f32, 2, 1, 5>::laplacian_5pt(0.5)).apply(&u, &mut b);
    assert_eq!(a, b);
}

#[test]
fn a_weight_array_gives_its_nonzero_taps_in_row_major_order_about_the_centre() {
    let w =
        Array::from_shape_vec([3, 5], vec![0.0, 2.0, 0.0, 0.0, 0.0, 1.0, 3.0, 0.0, -4.0, 0.0, 0.0, 5.0, 0.0, 6.0, 0.0])
            .unwrap();
    let s = DynStencil::from_weights(&w);
    assert_eq!(
        s.taps(),
        &[([-1, -1], 2.0), ([0, -2], 1.0), ([0, -1], 3.0), ([0, 1], -4.0), ([1, -1], 5.0), ([1, 1], 6.0)]
    );
    assert_eq!(s.radius(), [1, 2]);
}

#[test]
fn a_one_axis_stencil_writes_every_point_of_the_other_axes() {
    // Radius 0 along axis 0: every row is interior.
    let s = DynStencil::new([([0, -1], 1.0), ([0, 1], 1.0)]);
    let u = field([4, 6], 9);
    let mut v = Array::full([4, 6], 7.0);
    s.apply(&u, &mut v);
    for i in 0..4 {
        assert_eq!(v[[i, 0]], 7.0);
        assert_eq!(v[[i, 3]], u[[i, 2]] + u[[i, 4]]);
    }
}

#[test]
fn refusals_say_what_why_and_how_to_fix() {
    let e = DynStencil::<f64, 2>::try_new([]).unwrap_err();
    assert!(e.to_string().contains("no tap"), "{e}");
    let many = (0..=MAX_TAPS as isize).map(|k| ([k % 5 - 2, k / 5 % 5 - 2], 1.0));
    let e = DynStencil::<f64, 2>::try_new(many).unwrap_err();
    assert!(e.to_string().contains("65 taps, more than the 64"), "{e}");
    let e = DynStencil::try_new([([0, MAX_RADIUS as isize + 1], 1.0)]).unwrap_err();
    assert!(e.to_string().contains("tap 0 has offset [0, 9], past the largest radius 8"), "{e}");
    let e = DynStencil::try_from_weights(&Array::<f64, 2>::ones([3, 4])).unwrap_err();
    assert!(e.to_string().contains("axis 1 of the weight array has even extent 4"), "{e}");
    let e = DynStencil::try_from_weights(&Array::<f64, 2>::zeros([3, 3])).unwrap_err();
    assert!(e.to_string().contains("every weight is zero"), "{e}");

    let s = DynStencil::new([([0, 1], 1.0)]);
    let e = s.try_apply(Array::<f64, 2>::zeros([4, 4]), &mut Array::<f64, 2>::zeros([4, 5])).unwrap_err();
    assert!(matches!(e, cnda::Error::ShapeMismatch { .. }), "{e}");

    let v = VariableStencil::new([[-1], [1]]);
    let u = Array::<f64, 1>::zeros([6]);
    let e = v.try_apply(&u, &[&u], &mut Array::<f64, 1>::zeros([6])).unwrap_err();
    assert!(e.to_string().contains("1 coefficient fields for a stencil of 2 taps"), "{e}");
    let short = Array::<f64, 1>::zeros([5]);
    let e = v.try_apply(&u, &[&u, &short], &mut Array::<f64, 1>::zeros([6])).unwrap_err();
    assert!(matches!(e, cnda::Error::ShapeMismatch { .. }), "{e}");
}

#[test]
fn a_grid_smaller_than_the_stencil_is_left_alone() {
    let s = DynStencil::new([([-3], 1.0), ([3], 1.0)]);
    let mut v = Array::full([6], 2.0);
    s.apply(Array::<f64, 1>::ones([6]), &mut v);
    assert_eq!(v, Array::full([6], 2.0));
}

#[test]
fn steps_between_two_lent_fields_equal_a_double_buffer() {
    use cnda::stencil::{Boundary, DoubleBuffer};
    let s = DynStencil::new([([-1, 0], 0.25), ([0, 2], 0.125), ([0, 0], 0.5), ([1, -1], 0.125)]);
    let v = VariableStencil::new([[-1, 0], [0, 2], [0, 0], [1, -1]]);
    let coefficients: Vec<Array<f64, 2>> = (0..4).map(|k| field([13, 15], 40 + k).map(|x| 0.05 * x)).collect();
    let coefficients: Vec<&Array<f64, 2>> = coefficients.iter().collect();
    let b = [[Boundary::Periodic; 2], [Boundary::Neumann, Boundary::Value(0.5)]];
    for steps in [1, 4, 7] {
        for (variable, threads) in [(false, false), (false, true), (true, false), (true, true)] {
            let u = field([13, 15], steps as u64);
            let mut want = DoubleBuffer::new(u.clone());
            // The two fields as views into one larger array (rows 0..13 and 13..26, every other column).
            let mut big = Array::<f64, 2>::zeros([26, 30]);
            let (mut top, mut bottom) = big.slice_mut(s![.., ..;2]).split_at(0, 13);
            top.assign(&u);
            bottom.assign(&u);
            if variable {
                v.apply_steps_with(&mut want, steps, &coefficients, b);
                if threads {
                    #[cfg(feature = "rayon")]
                    v.par_apply_steps_between(top.view_mut(), bottom.view_mut(), steps, &coefficients, b);
                    #[cfg(not(feature = "rayon"))]
                    v.apply_steps_between(top.view_mut(), bottom.view_mut(), steps, &coefficients, b);
                } else {
                    v.apply_steps_between(top.view_mut(), bottom.view_mut(), steps, &coefficients, b);
                }
            } else {
                s.apply_steps_with(&mut want, steps, b);
                if threads {
                    #[cfg(feature = "rayon")]
                    s.par_apply_steps_between(top.view_mut(), bottom.view_mut(), steps, b);
                    #[cfg(not(feature = "rayon"))]
                    s.apply_steps_between(top.view_mut(), bottom.view_mut(), steps, b);
                } else {
                    s.apply_steps_between(top.view_mut(), bottom.view_mut(), steps, b);
                }
            }
            let (last, other) = if steps % 2 == 0 { (&top, &bottom) } else { (&bottom, &top) };
            let what = format!("{steps} steps, variable {variable}, threads {threads}");
            assert_eq!(&last.to_owned(), want.current(), "{what}");
            want.swap();
            assert_eq!(&other.to_owned(), want.current(), "{what}: the other field");
        }
    }
}

/// Lanes starting at every element offset from a cache line (the kernels align the bulk of their
/// blocks to the output's lines, peeling a first block), in float64 and float32, lanes of every
/// length around the block sizes, input and output at different offsets: bit for bit the naive
/// sum, written here in the element type; the points outside the lanes untouched.
#[test]
fn lanes_at_every_offset_from_a_cache_line_give_the_naive_sums() {
    macro_rules! check {
        ($t:ty) => {{
            let taps: Vec<([isize; 2], $t)> =
                vec![([-1, 0], 0.25), ([1, 0], 0.5), ([0, -2], -0.125), ([0, 1], 1.5), ([0, 0], -0.75)];
            let s = DynStencil::<$t, 2>::new(taps.clone());
            for width in [33, 63, 64, 65, 97, 130, 131, 200] {
                for (c_in, c_out) in (0..17).map(|c| (c, (c * 5) % 17)) {
                    let wide = |c: usize| width + c + 3;
                    let src =
                        Array::<$t, 2>::from_fn([4, wide(c_in)], |[i, j]| ((i * 31 + j * 7) % 23) as $t * 0.5 - 3.0);
                    let mut dst = Array::<$t, 2>::full([4, wide(c_out)], <$t>::NAN);
                    let input = src.slice(s![.., c_in..c_in + width]);
                    s.apply(input, dst.slice_mut(s![.., c_out..c_out + width]));
                    for i in 0..4 {
                        for j in 0..wide(c_out) {
                            let got = dst[[i, j]];
                            let inside = (1..3).contains(&i) && (c_out + 2..c_out + width - 2).contains(&j);
                            if !inside {
                                assert!(got.is_nan(), "{width} {c_in} {c_out}: [{i}, {j}] written");
                                continue;
                            }
                            let at = |k: usize| {
                                let (o, w) = taps[k];
                                let jj = (j - c_out + c_in) as isize + o[1];
                                w * src[[(i as isize + o[0]) as usize, jj as usize]]
                            };
                            let want = (1..taps.len()).fold(at(0), |acc, k| acc + at(k));
                            assert_eq!(got.to_bits(), want.to_bits(), "{width} {c_in} {c_out}: [{i}, {j}]");
                        }
                    }
                }
            }
        }};
    }
    check!(f64);
    check!(f32);
}
