// A stencil of two fields applied to one.
use cnda::prelude::*;

fn main() {
    let s = stencil!(|u, k| u[0, 0] * k[0, 0]);
    let u = Array::<f64, 2>::zeros([4, 4]);
    let mut v = Array::<f64, 2>::zeros([4, 4]);
    s.apply(&u, &mut v, ());
}
