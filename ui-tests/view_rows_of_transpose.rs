use cnda::prelude::*;

fn main() {
    let a = Array::<f64, 2>::zeros([2, 3]);
    // A transposed row-major array is ColMajor: its rows are not contiguous.
    for row in a.t().rows() {
        println!("{row:?}");
    }
}
