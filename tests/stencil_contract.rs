//! A hand-written `Stencil` that disagrees with itself is refused before any kernel trusts it
//! (the trait is safe to implement: nothing unsafe may rely on an implementation being honest,
//! and it hands over data, never device code).

use cnda::prelude::*;
use cnda::stencil::{Binary, DoubleBuffer, Evolves, Lit, Node, Scalar, Stencil, Tap, TapReader, Unary};

/// A configurable liar: its taps, parameter names and expression data are given per test through
/// the type parameter.
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
    const NODES: &'static [Node] = match CASE {
        // Node 1 reads node 2, which comes after it: not a tree.
        2 => &[Node::Tap(0), Node::Binary(Binary::Add, 0, 2), Node::Tap(0)],
        // A tap the stencil does not have.
        4 => &[Node::Tap(1)],
        // A condition as the value.
        5 => &[Node::Tap(0), Node::Tap(0), Node::Binary(Binary::Lt, 0, 1)],
        // A number where `!` wants a condition.
        6 => &[Node::Tap(0), Node::Unary(Unary::Not, 0)],
        // A NaN literal, which a device compiler cannot spell as a constant.
        7 => &[Node::Tap(0), Node::Lit(Lit::new(f64::NAN)), Node::Binary(Binary::Mul, 0, 1)],
        _ => &[Node::Tap(0)],
    };
    const VALUES: &'static [usize] = match CASE {
        // An output past the nodes.
        8 => &[1],
        // Two outputs for a stencil whose points compute one value.
        9 => &[0, 0],
        _ => &[<Self as Stencil<T, 1>>::NODES.len() - 1],
    };
    const SOURCE: &'static str = "a hand-written stencil";
    type Compute = T;
    type Params = ();
    type Arity = cnda::stencil::Arity<1>;
    type Values = T;

    fn point<R: TapReader<T>>(taps: &R, _: &()) -> T {
        taps.tap(0)
    }
}

// It steps one field at one level (the stepper still checks the counts).
impl<const CASE: u8> Evolves<1, 1> for Liar<CASE> {
    type Coefficients = cnda::stencil::Arity<1>;
}

fn apply_err<S: Stencil<f64, 1, Params = (), Arity = cnda::stencil::Arity<1>, Values = f64>>(s: S) -> Error {
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
fn malformed_expression_data_is_refused_before_any_kernel() {
    for (e, why) in [
        (apply_err(Liar::<2>), "node 1 (Binary(Add, 0, 2)) reading node 2, which does not come before it"),
        (apply_err(Liar::<4>), "node 0 reading tap 1 of 1"),
        (apply_err(Liar::<5>), "output 0 is a condition (node 2)"),
        (apply_err(Liar::<6>), "node 1 (Unary(Not, 0)) mixing conditions and numbers"),
        (apply_err(Liar::<7>), "a NaN literal"),
        (apply_err(Liar::<8>), "output 0 is node 1 of 1"),
        (apply_err(Liar::<9>), "a stencil that names 1 fields and 2 values"),
    ] {
        assert!(matches!(e, Error::Layout { .. }), "{e}");
        assert!(e.to_string().contains(why), "{e}");
    }
    let mut f = DoubleBuffer::new(Array::<f64, 1>::ones([8]));
    let e = Liar::<2>.try_apply_steps(&mut f, 3, (), ()).unwrap_err();
    assert!(e.to_string().contains("does not come before it"), "{e}");
    let e = Liar::<9>.try_apply_steps(&mut f, 3, (), ()).unwrap_err();
    assert!(e.to_string().contains("names 2 output values but its `Values` holds 1"), "{e}");
}

/// The data, not the compiled point function, is what the devices run: a hand-written stencil
/// whose data and `point` agree is checked and interpreted to the same value.
#[test]
fn checked_data_evaluates_as_the_point_function() {
    struct At(f64);
    impl TapReader<f64> for At {
        fn tap(&self, _: usize) -> f64 {
            self.0
        }
    }
    let checked = cnda::stencil::check::<Double, f64, 0>("test").unwrap();
    for x in [0.0, -1.5, 3.25, f64::INFINITY] {
        assert_eq!(checked.eval(&At(x), &()), [<Double as Stencil<f64, 0>>::point(&At(x), &())]);
    }
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
    const NODES: &'static [Node] = &[Node::Tap(0), Node::Tap(0), Node::Binary(Binary::Add, 0, 1)];
    const VALUES: &'static [usize] = &[2];
    const SOURCE: &'static str = "|u| 2 * u[]";
    type Compute = T;
    type Params = ();
    type Arity = cnda::stencil::Arity<1>;
    type Values = T;

    fn point<R: TapReader<T>>(taps: &R, _: &()) -> T {
        taps.tap(0) + taps.tap(0)
    }
}

impl Evolves<1, 1> for Double {
    type Coefficients = cnda::stencil::Arity<1>;
}

#[test]
fn rank_zero_time_steps_sweep_the_one_point() {
    let mut f = DoubleBuffer::new(Array::<f64, 0>::full([], 1.5));
    Double.apply_steps(&mut f, 3, (), ());
    assert_eq!(f.current()[[]], 12.0);
}

/// An honest stencil of one field and one value that claims to step other states.
#[derive(Clone, Copy, Debug, Default)]
struct Pretender;

impl<T: Scalar> Stencil<T, 1> for Pretender {
    const FIELDS: &'static [&'static str] = &["u"];
    const PARAMS: &'static [&'static str] = &[];
    const TAPS: &'static [Tap<1>] = &[Tap { field: 0, offset: [1] }];
    const NODES: &'static [Node] = &[Node::Tap(0)];
    const VALUES: &'static [usize] = &[0];
    const SOURCE: &'static str = "|u| u[1]";
    type Compute = T;
    type Params = ();
    type Arity = cnda::stencil::Arity<1>;
    type Values = T;

    fn point<R: TapReader<T>>(taps: &R, _: &()) -> T {
        taps.tap(0)
    }
}

// Two fields, from one value.
impl Evolves<2, 1> for Pretender {
    type Coefficients = cnda::stencil::Arity<1>;
}

// Two levels and a coefficient field, from one field.
impl Evolves<1, 2> for Pretender {
    type Coefficients = cnda::stencil::Arity<2>;
}

/// The steppers check a state's counts against the stencil's, whatever `Evolves` claims: the
/// kernels would otherwise read fields or write outputs the stencil does not have.
#[test]
fn a_dishonest_evolves_is_refused_before_any_kernel() {
    let ones = || Array::<f64, 1>::ones([8]);
    let mut two_fields = cnda::stencil::State::from_fields([ones(), ones()]);
    let e = Pretender.try_apply_steps(&mut two_fields, 3, (), ()).unwrap_err();
    assert!(matches!(e, Error::Layout { .. }), "{e}");
    assert!(e.to_string().contains("a stencil of 1 values and 1 fields writing 2 of 2 fields at 1 levels"), "{e}");
    let mut two_levels = cnda::stencil::State::from_levels([[ones(), ones()]]);
    let k = ones();
    let e = Pretender.try_apply_steps(&mut two_levels, 3, &k, ()).unwrap_err();
    assert!(e.to_string().contains("writing 1 of 1 fields at 2 levels with 1 coefficient fields"), "{e}");
    // Nothing was written: the levels are as they were.
    assert!(two_levels.field(0).iter().all(|&x| x == 1.0));
}

// A stage claiming to write two fields with its one value.
impl cnda::stencil::Stage<2, 1> for Pretender {
    const WRITES: &'static [usize] = &[0, 1];
    type Coefficients = cnda::stencil::Arity<1>;
}

/// Stages are checked alike: one value per written field, whatever `Stage` claims.
#[test]
fn a_dishonest_stage_is_refused_before_any_kernel() {
    let ones = || Array::<f64, 1>::ones([8]);
    let mut state = cnda::stencil::State::from_fields([ones(), ones()]);
    let stages = cnda::stencil::Stages((Pretender, Pretender));
    let e =
        stages.try_apply_steps_with(&mut state, 3, ((), ()), ((), ()), [cnda::stencil::Boundary::Fixed]).unwrap_err();
    assert!(matches!(e, Error::Layout { .. }), "{e}");
    assert!(e.to_string().contains("exactly one stage"), "{e}");
    assert!(state.field(0).iter().all(|&x| x == 1.0));
}
