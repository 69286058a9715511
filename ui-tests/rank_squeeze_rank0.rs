// A rank-0 array has no axis to squeeze away.
use cnda::prelude::*;

fn main() {
    let a = Array::<f64, 0>::zeros([]);
    let _ = a.squeeze(0);
}
