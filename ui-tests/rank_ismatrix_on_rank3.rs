// `nrows` is a matrix operation; a rank-3 array is not a matrix.
use cnda::prelude::*;

fn main() {
    let a = Array::<f64, 3>::zeros([2, 3, 4]);
    let _ = a.nrows();
}
