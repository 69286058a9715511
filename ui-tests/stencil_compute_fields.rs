// A stencil that computes in f64 (`#[compute(f64)]`) takes f32 and f64 fields: f16 fields are
// refused at compile time, naming the stencil's compute type and what it takes.
use cnda::prelude::*;

stencil! {
    #[compute(f64)]
    struct Heat = |u; dt: f64| u[0, 0] + dt * (u[-1, 0] + u[1, 0] - 2.0 * u[0, 0]);
}

fn main() {
    let u = Array::<half::f16, 2>::zeros([8, 8]);
    let mut out = u.clone();
    Heat.apply((&u,), &mut out, (0.1,));
}
