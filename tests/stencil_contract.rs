//! A hand-written `Stencil` that disagrees with itself is refused before any kernel trusts it
//! (the trait is safe to implement: nothing unsafe may rely on an implementation being honest).

use cnda::prelude::*;
use cnda::stencil::{DoubleBuffer, Scalar, Stencil, Tap, TapReader};

/// A configurable liar: its taps, field names, parameter names and device expressions are given
/// per test through the type parameter.
#[derive(Clone, Copy, Debug, Default)]
struct Liar<const CASE: u8>;

impl<T: Scalar, const CASE: u8> Stencil<T, 1> for Liar<CASE> {
    const FIELDS: &'static [&'static str] = &["u"];
    const PARAMS: &'static [&'static str] = if CASE == 1 { &["a", "b"] } else { &[] };
    const TAPS: &'static [Tap<1>] = match CASE {
        0 => &[Tap { field: 3, offset: [0] }],
        3 => &[Tap { field: 0, offset: [1_000_000] }],
        _ => &[Tap { field: 0, offset: [1] }],
    };
    const SOURCE: &'static str = "a hand-written stencil";
    type Params = ();
    type Arity = cnda::stencil::Arity<1>;

    fn point<R: TapReader<T>>(taps: &R, _: &()) -> T {
        taps.tap(0)
    }

    fn cuda() -> Option<&'static str> {
        match CASE {
            2 => Some("t0; } __global__ void escape() { ((double*)0)[0] = 1;"),
            _ => Some("t0"),
        }
    }

    fn wgsl() -> Option<&'static str> {
        Some("t0")
    }
}

fn apply_err<S: Stencil<f64, 1, Params = (), Arity = cnda::stencil::Arity<1>>>(s: S) -> Error {
    let u = Array::<f64, 1>::ones([8]);
    let mut v = Array::<f64, 1>::zeros([8]);
    s.try_apply(&u, &mut v, ()).unwrap_err()
}

#[test]
fn a_tap_of_a_missing_field_is_refused() {
    let e = apply_err(Liar::<0>);
    assert!(e.to_string().contains("a tap reads field 3 of a stencil with 1 fields"), "{e}");
    let mut f = DoubleBuffer::new(Array::<f64, 1>::ones([8]));
    let e = Liar::<0>.try_apply_steps(&mut f, 3, (), ()).unwrap_err();
    assert!(e.to_string().contains("a tap reads field 3"), "{e}");
}

#[test]
fn parameter_names_and_values_must_agree() {
    let e = apply_err(Liar::<1>);
    assert!(e.to_string().contains("names 2 parameters but its `Params` holds 0"), "{e}");
}

#[test]
fn a_device_expression_that_is_not_pure_is_refused_on_every_backend() {
    let e = apply_err(Liar::<2>);
    assert!(e.to_string().contains("its CUDA expression contains `;`"), "{e}");
}

#[test]
fn offsets_past_the_grid_leave_no_interior_and_read_nothing() {
    let u = Array::<f64, 1>::ones([8]);
    let mut v = Array::<f64, 1>::full([8], 5.0);
    Liar::<3>.apply(&u, &mut v, ());
    assert!(v.iter().all(|&x| x == 5.0));
    assert_eq!(cnda::stencil::radius::<Liar<3>, f64, 1>(), [1_000_000]);
}

/// Rank 0: one point, swept as often as asked.
#[derive(Clone, Copy, Debug, Default)]
struct Double;

impl<T: Scalar> Stencil<T, 0> for Double {
    const FIELDS: &'static [&'static str] = &["u"];
    const PARAMS: &'static [&'static str] = &[];
    const TAPS: &'static [Tap<0>] = &[Tap { field: 0, offset: [] }];
    const SOURCE: &'static str = "|u| 2 * u[]";
    type Params = ();
    type Arity = cnda::stencil::Arity<1>;

    fn point<R: TapReader<T>>(taps: &R, _: &()) -> T {
        taps.tap(0) + taps.tap(0)
    }

    fn cuda() -> Option<&'static str> {
        Some("(t0 + t0)")
    }

    fn wgsl() -> Option<&'static str> {
        Some("(t0 + t0)")
    }
}

#[test]
fn rank_zero_time_steps_sweep_the_one_point() {
    let mut f = DoubleBuffer::new(Array::<f64, 0>::full([], 1.5));
    Double.apply_steps(&mut f, 3, (), ());
    assert_eq!(f.current()[[]], 12.0);
}
