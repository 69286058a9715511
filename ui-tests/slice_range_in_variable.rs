// Ranges must be written literally inside `s!`: a variable holding a range reads as an index.
use cnda::prelude::*;

fn main() {
    let a = Array::<f64, 2>::zeros([3, 4]);
    let rows = 1..3;
    let _ = a.slice(s![rows, ..]);
}
