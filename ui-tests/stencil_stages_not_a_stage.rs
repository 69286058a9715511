// A stencil without `#[writes(..)]` says nothing of which fields it writes: it is no stage.
use cnda::prelude::*;
use cnda::stencil::{Boundary, Stages, State};

stencil! {
    struct Both = |u, v; c: f64| (u[0, 0] + c * v[0, 1], v[0, 0] - c * u[1, 0]);
}

stencil! {
    #[writes(v)]
    struct Second = |u, v; c: f64| v[0, 0] + c * u[0, 0];
}

fn main() {
    let mut state = State::from_fields([Array::<f64, 2>::zeros([8, 8]), Array::zeros([8, 8])]);
    Stages((Both, Second)).apply_steps_with(&mut state, 10, ((), ()), ((0.5,), (0.5,)), [Boundary::Fixed; 2]);
}
