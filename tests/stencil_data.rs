//! A `stencil!` stencil's expression data (`NODES`, what every device backend generates its code
//! from) means what its compiled point function computes: the interpreter of the checked data
//! (`CheckedExpr::eval`, written from the data alone) agrees with `Stencil::point` bit for bit, on
//! random tap values and parameters (NaN, infinities and signed zeros among them), in every
//! element type, for stencils of one value and of several.

use cnda::stencil::{check, stencil, Scalar, Stencil, TapReader, Values as _};
use proptest::prelude::*;

struct TapValues<T>(Vec<T>);

impl<T: Copy> TapReader<T> for TapValues<T> {
    fn tap(&self, k: usize) -> T {
        self.0[k]
    }
}

/// Tap values: ordinary numbers mostly, the special ones often enough to meet every branch.
fn value() -> impl Strategy<Value = f64> {
    prop_oneof![
        8 => -4.0..4.0f64,
        1 => Just(0.0),
        1 => Just(-0.0),
        1 => Just(f64::INFINITY),
        1 => Just(f64::NEG_INFINITY),
        1 => Just(f64::NAN),
        1 => Just(0.5),
    ]
}

/// The data and the point function of `S` agree at `taps`, `params` in `T`.
fn agree<S: Stencil<T, N, Params = (T, T)>, T: Scalar, const N: usize>(_: &S, taps: &[f64], params: (f64, f64)) {
    let checked = check::<S, T, N>("test").expect("stencil! data passes the check");
    let taps = TapValues(taps[..S::TAPS.len()].iter().map(|&x| T::from_f64(x)).collect());
    let params = (T::from_f64(params.0), T::from_f64(params.1));
    let (data, point) = (checked.eval(&taps, &params), S::point(&taps, &params));
    assert_eq!(data.len(), S::VALUES.len());
    for (m, &data) in data.iter().enumerate() {
        let point = point.get(m);
        assert!(data == point || data.is_nan() && point.is_nan(), "{}: data {data:?}, point {point:?}", S::SOURCE);
    }
}

fn in_every_type<S>(s: &S, taps: &[f64], params: (f64, f64))
where
    S: Stencil<f32, 2, Params = (f32, f32)>
        + Stencil<f64, 2, Params = (f64, f64)>
        + Stencil<half::f16, 2, Params = (half::f16, half::f16)>
        + Stencil<half::bf16, 2, Params = (half::bf16, half::bf16)>,
{
    agree::<S, f32, 2>(s, taps, params);
    agree::<S, f64, 2>(s, taps, params);
    agree::<S, half::f16, 2>(s, taps, params);
    agree::<S, half::bf16, 2>(s, taps, params);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn the_data_computes_what_the_point_function_computes(
        taps in proptest::collection::vec(value(), 8),
        a in value(),
        b in value(),
    ) {
        let heat = stencil!(|u, k; a, b| u[0, 0] + a * (k[0, 0] * (u[-1, 0] + u[1, 0] + u[0, -1] + u[0, 1] - 4.0 * u[0, 0])) - b);
        in_every_type(&heat, &taps, (a, b));
        let branches = stencil!(|u, k; a, b| select(
            (u[0, 0] < a && !(k[0, 1] >= b)) || u[1, 0] == u[-1, 0] || u[0, -1] != 0.1 && k[0, 0] <= 2,
            sqrt(u[0, 0]) + exp(u[1, 0]) - ln(abs(u[-1, 0])) * sin(k[0, 1]) / cos(k[0, 0]),
            -tanh(floor(u[0, -1])).min(a).max(b) + powi(u[0, 1], -3) + powi(k[0, 0], 0) * 1e39
        ));
        in_every_type(&branches, &taps, (a, b));
        let nested = stencil!(|u; a, b| (u[0, 0] - (u[1, 0] - u[0, 1]) / a).powi(2) * -(b - u[-1, -1]).max(1e-3));
        in_every_type(&nested, &taps, (a, b));
        let bound = stencil!(|u, k; a, b| {
            let lap = u[-1, 0] + u[1, 0] + u[0, -1] + u[0, 1] - 4.0 * u[0, 0];
            let hot = lap > a || !(k[0, 0] <= b);
            u[0, 0] + select(hot, a * lap, lap * lap) - k[0, 0] * lap
        });
        in_every_type(&bound, &taps, (a, b));
        // A system: several values sharing bindings, one of them a bound node itself.
        let system = stencil!(|u, k; a, b| {
            let uk = u[0, 0] * k[0, 0];
            let lap = u[-1, 0] + u[1, 0] - 2.0 * u[0, 0];
            (u[0, 0] + a * lap - uk, k[0, 0] + uk * b, uk, min(lap, a) / k[0, 1])
        });
        in_every_type(&system, &taps, (a, b));
    }
}
