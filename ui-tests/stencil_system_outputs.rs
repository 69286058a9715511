// A stencil of two values writes a tuple of two outputs: one array is refused at compile time,
// naming the values the stencil computes.
use cnda::prelude::*;

fn main() {
    let exchange = stencil!(|u, v| (v[0, 0], u[0, 0]));
    let (u, v) = (Array::<f64, 2>::zeros([4, 4]), Array::<f64, 2>::zeros([4, 4]));
    let mut out = Array::<f64, 2>::zeros([4, 4]);
    exchange.apply((&u, &v), &mut out, ());
}
