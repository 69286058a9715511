// Elementwise ops need one element type: f32 and f64 arrays do not mix silently.
use cnda::prelude::*;

fn main() {
    let a = Array::<f32, 1>::zeros([4]);
    let b = Array::<f64, 1>::zeros([4]);
    let _ = &a + &b;
}
