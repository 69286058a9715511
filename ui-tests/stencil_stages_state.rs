// A stage writes fields of the state by position: a stage writing the second and third fields
// does not fit a state of two, which is refused at compile time, naming the stage and the state.
use cnda::prelude::*;
use cnda::stencil::{Boundary, Stages, State};

stencil! {
    #[writes(hx, hy)]
    struct UpdateH = |ez, hx, hy; c: f64| (hx[0, 0] - c * (ez[0, 1] - ez[0, 0]), hy[0, 0] + c * (ez[1, 0] - ez[0, 0]));
}

stencil! {
    #[writes(ez)]
    struct UpdateE = |ez, hx, hy; c: f64| ez[0, 0] + c * ((hy[0, 0] - hy[-1, 0]) - (hx[0, 0] - hx[0, -1]));
}

fn main() {
    let mut state = State::from_fields([Array::<f64, 2>::zeros([8, 8]), Array::zeros([8, 8])]);
    Stages((UpdateH, UpdateE)).apply_steps_with(&mut state, 10, ((), ()), ((0.5,), (0.5,)), [Boundary::Fixed; 2]);
}
