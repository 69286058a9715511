//! Mixed precision (`#[compute(f32)]`, `#[compute(f64)]`): fields stored in one type, every
//! operation in a wider one, each value rounded once when stored. Against naive loops written
//! without cnda's stencil code, on one step, on fused time steps (sequential and threaded) and
//! on a system of two outputs with a `let`.

use cnda::prelude::*;
use cnda::stencil::{Boundary, Scalar, State, Stencil};
use half::{bf16, f16};
use proptest::prelude::*;

stencil! {
    /// Diffusion with a variable coefficient, computed in f32 whatever 16-bit type the fields hold.
    #[compute(f32)]
    struct Heat16 = |u, k; dt: f32| u[0, 0] + dt * k[0, 0] * (u[-1, 0] + u[1, 0] + u[0, -1] + u[0, 1] - 4.0 * u[0, 0]);
}

stencil! {
    /// The same stencil computing in its fields' own type (every operation rounded to it).
    struct Heat = |u, k; dt: T| u[0, 0] + dt * k[0, 0] * (u[-1, 0] + u[1, 0] + u[0, -1] + u[0, 1] - 4.0 * u[0, 0]);
}

stencil! {
    /// Gray-Scott's two species over f32 fields, accumulated in f64.
    #[compute(f64)]
    struct GrayScott64 = |u, v; du: f64, dv: f64, f: f64, k: f64| {
        let uvv = u[0, 0] * v[0, 0] * v[0, 0];
        (
            u[0, 0] + du * (u[-1, 0] + u[1, 0] + u[0, -1] + u[0, 1] - 4.0 * u[0, 0]) - uvv + f * (1.0 - u[0, 0]),
            v[0, 0] + dv * (v[-1, 0] + v[1, 0] + v[0, -1] + v[0, 1] - 4.0 * v[0, 0]) + uvv - (f + k) * v[0, 0],
        )
    };
}

/// `Heat16`'s value at interior point `[i, j]`, computed by hand in f32 and rounded once.
fn heat_by_hand<T: Scalar>(u: &Array<T, 2>, k: &Array<T, 2>, dt: f32, [i, j]: [usize; 2], f: fn(T) -> f32) -> f32 {
    let at = |a: &Array<T, 2>, di: isize, dj: isize| f(a[[(i as isize + di) as usize, (j as isize + dj) as usize]]);
    let lap = at(u, -1, 0) + at(u, 1, 0) + at(u, 0, -1) + at(u, 0, 1) - 4.0 * at(u, 0, 0);
    at(u, 0, 0) + dt * at(k, 0, 0) * lap
}

fn field<T: Scalar>(shape: [usize; 2], seed: usize, from: fn(f32) -> T) -> Array<T, 2> {
    Array::from_fn(shape, |[i, j]| from(((i * 131 + j * 71 + seed * 17) % 97) as f32 / 97.0 - 0.3))
}

/// One step over f16 and bf16 fields: the naive f32 loop rounded once, bit for bit; the 16-bit
/// stencil that rounds every operation differs, and lies farther from an f64 reference (in sum).
#[test]
fn sixteen_bit_fields_computed_in_f32_round_once() {
    fn check<T: Scalar + core::fmt::Debug>(from: fn(f32) -> T, to: fn(T) -> f32)
    where
        f32: cnda::stencil::Widen<T>,
    {
        let (u, k) = (field([33, 41], 1, from), field([33, 41], 2, from));
        let k = k.map(|x| from(to(x).abs()));
        // `apply` writes the interior (the points a radius from every edge).
        let mut mixed = Array::<T, 2>::full([33, 41], from(-9.0));
        Heat16.apply((&u, &k), &mut mixed, (0.25,));
        let mut rounded_each = mixed.clone();
        Heat.apply((&u, &k), &mut rounded_each, (from(0.25),));
        let (mut error_mixed, mut error_each, mut differ) = (0.0f64, 0.0f64, 0);
        for i in 1..32 {
            for j in 1..40 {
                let want = heat_by_hand(&u, &k, 0.25, [i, j], to);
                assert_eq!(mixed[[i, j]], from(want), "{} at {i}, {j}", T::DTYPE);
                let exact = {
                    let at = |a: &Array<T, 2>, di: isize, dj: isize| {
                        f64::from(to(a[[(i as isize + di) as usize, (j as isize + dj) as usize]]))
                    };
                    let lap = at(&u, -1, 0) + at(&u, 1, 0) + at(&u, 0, -1) + at(&u, 0, 1) - 4.0 * at(&u, 0, 0);
                    at(&u, 0, 0) + f64::from(to(from(0.25))) * at(&k, 0, 0) * lap
                };
                error_mixed += (f64::from(to(mixed[[i, j]])) - exact).abs();
                error_each += (f64::from(to(rounded_each[[i, j]])) - exact).abs();
                differ += usize::from(mixed[[i, j]] != rounded_each[[i, j]]);
            }
        }
        assert!(differ > 0, "{}: computing in f32 changed no value", T::DTYPE);
        assert!(error_mixed < error_each, "{}: {error_mixed} against {error_each}", T::DTYPE);
    }
    check::<f16>(f16::from_f32, f16::to_f32);
    check::<bf16>(bf16::from_f32, bf16::to_f32);
    // Over f32 fields the same stencil is the f32 stencil.
    let (u, k) = (field([9, 8], 3, |x| x), field([9, 8], 4, f32::abs));
    let (mut a, mut b) = (Array::<f32, 2>::zeros([9, 8]), Array::<f32, 2>::zeros([9, 8]));
    Heat16.apply((&u, &k), &mut a, (0.25,));
    Heat.apply((&u, &k), &mut b, (0.25,));
    assert_eq!(a, b);
}

/// Gray-Scott over f32 fields computed in f64, stepped with periodic sides: each step the naive
/// f64 loop rounded once per value; fused steps (sequential and threaded) bit for bit with one
/// `apply` per step.
#[test]
fn f32_fields_accumulated_in_f64_step_as_the_naive_loop() {
    let params = (0.16, 0.08, 0.035, 0.065);
    let n = [24, 19];
    let u0 = Array::from_fn(n, |[i, j]| 1.0 - 0.5 * (((i * 7 + j * 3) % 11) as f32 / 11.0));
    let v0 = Array::from_fn(n, |[i, j]| 0.25 * (((i * 5 + j * 13) % 7) as f32 / 7.0));
    // The naive loop: periodic neighbours, every operation in f64, one rounding per value.
    let (mut u, mut v) = (u0.clone(), v0.clone());
    for _ in 0..9 {
        let at = |a: &Array<f32, 2>, i: usize, j: usize, di: isize, dj: isize| {
            let (i, j) = ((i as isize + di).rem_euclid(n[0] as isize), (j as isize + dj).rem_euclid(n[1] as isize));
            f64::from(a[[i as usize, j as usize]])
        };
        let (du, dv, f, k) = params;
        let (un, vn) = (
            Array::from_fn(n, |[i, j]| {
                let (uc, vc) = (at(&u, i, j, 0, 0), at(&v, i, j, 0, 0));
                let lap =
                    at(&u, i, j, -1, 0) + at(&u, i, j, 1, 0) + at(&u, i, j, 0, -1) + at(&u, i, j, 0, 1) - 4.0 * uc;
                (uc + du * lap - uc * vc * vc + f * (1.0 - uc)) as f32
            }),
            Array::from_fn(n, |[i, j]| {
                let (uc, vc) = (at(&u, i, j, 0, 0), at(&v, i, j, 0, 0));
                let lap =
                    at(&v, i, j, -1, 0) + at(&v, i, j, 1, 0) + at(&v, i, j, 0, -1) + at(&v, i, j, 0, 1) - 4.0 * vc;
                (vc + dv * lap + uc * vc * vc - (f + k) * vc) as f32
            }),
        );
        (u, v) = (un, vn);
    }
    let periodic = [Boundary::Periodic; 2];
    let mut fused = State::from_interiors([u0.clone(), v0.clone()], GrayScott64::RADIUS);
    GrayScott64.apply_steps_with(&mut fused, 9, (), params, periodic);
    assert_eq!(fused.interior(0).to_owned(), u, "u, fused");
    assert_eq!(fused.interior(1).to_owned(), v, "v, fused");
    #[cfg(feature = "rayon")]
    {
        let mut threaded = State::from_interiors([u0, v0], GrayScott64::RADIUS);
        GrayScott64.par_apply_steps_with(&mut threaded, 9, (), params, periodic);
        assert_eq!(threaded.interior(0).to_owned(), u, "u, threaded");
        assert_eq!(threaded.interior(1).to_owned(), v, "v, threaded");
    }
}

/// The stencil's data and its compiled point function agree for mixed stencils too: the
/// interpreter over widened taps, narrowed once, is the point function.
#[test]
fn the_data_widened_and_narrowed_is_the_point_function() {
    use cnda::stencil::{check, TapReader, Widen};
    struct Taps(Vec<f16>);
    impl TapReader<f16> for Taps {
        fn tap(&self, k: usize) -> f16 {
            self.0[k]
        }
    }
    struct Wide(Vec<f32>);
    impl TapReader<f32> for Wide {
        fn tap(&self, k: usize) -> f32 {
            self.0[k]
        }
    }
    let expr = check::<Heat16, f16, 2>("test").unwrap();
    proptest!(|(values in proptest::collection::vec(-4.0f32..4.0, 6), dt in 0.0f32..1.0)| {
        let taps: Vec<f16> = values.iter().map(|&x| f16::from_f32(x)).collect();
        let wide = Wide(taps.iter().map(|&x| <f32 as Widen<f16>>::widen(x)).collect());
        let data = expr.eval(&wide, &(dt,));
        let point = <Heat16 as Stencil<f16, 2>>::point(&Taps(taps), &(dt,));
        prop_assert_eq!(point, <f32 as Widen<f16>>::narrow(data[0]));
    });
}

/// A value that is normal in f64 but below f32's smallest normal is stored as zero by a
/// flushing `#[compute(f64)]` stencil over f32 fields (as every flushing stencil stores no
/// subnormal), and as the f32 subnormal it rounds to with `#[subnormals(keep)]`.
#[test]
fn values_narrowed_into_the_subnormals_are_flushed_unless_kept() {
    stencil! {
        #[compute(f64)]
        struct Scale = |u; c: f64| c * u[0];
    }
    stencil! {
        #[compute(f64)]
        #[subnormals(keep)]
        struct ScaleKept = |u; c: f64| c * u[0];
    }
    let u = Array::from_shape_vec([4], vec![1e-30f32, -1e-30, 1.0, 3e-28]).unwrap();
    let (mut flushed, mut kept) = (Array::<f32, 1>::full([4], 7.0), Array::<f32, 1>::full([4], 7.0));
    Scale.apply((&u,), &mut flushed, (1e-10,));
    ScaleKept.apply((&u,), &mut kept, (1e-10,));
    let want = |x: f32| (f64::from(x) * 1e-10) as f32;
    assert!(want(1e-30).is_subnormal() && want(3e-28).is_normal());
    assert_eq!(flushed.as_slice(), [0.0, -0.0, want(1.0), want(3e-28)]);
    assert!(flushed[[1]].is_sign_negative(), "the zero keeps the sign");
    assert_eq!(kept.as_slice(), [want(1e-30), want(-1e-30), want(1.0), want(3e-28)]);
}
