// A system of two fields at one level with one coefficient field: the state holds the two
// fields, and the coefficient field is passed alone; two coefficient fields are refused.
use cnda::prelude::*;
use cnda::stencil::State;

fn main() {
    let react = stencil!(|u, v, k; a: f64| (u[0, 0] - a * u[0, 0] * v[0, 0] + k[0, 0], v[0, 0] + a * u[0, 0] * v[0, 0]));
    let zeros = || Array::<f64, 2>::zeros([8, 8]);
    let mut state = State::from_fields([zeros(), zeros()]);
    let (k, c) = (zeros(), zeros());
    react.apply_steps(&mut state, 10, (&k, &c), (0.1,));
}
