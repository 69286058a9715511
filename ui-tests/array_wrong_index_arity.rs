// A rank-2 array takes a 2-element index; three indices do not compile.
use cnda::prelude::*;

fn main() {
    let a = Array::<f64, 2>::zeros([3, 4]);
    let _ = a[[1, 2, 0]];
}
