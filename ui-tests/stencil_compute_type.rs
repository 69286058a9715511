// `#[compute(..)]` names f32 or f64, and the parameters and literals of a stencil that computes
// in a wider type are of that type.
use cnda::prelude::*;

stencil! {
    #[compute(f16)]
    struct Half = |u; dt: f32| u[0] * dt;
}

stencil! {
    #[compute(f64)]
    struct Mixed = |u; dt: f32| u[0] * dt;
}

fn main() {}
