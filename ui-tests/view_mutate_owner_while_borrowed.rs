// A view borrows its owner: the owner cannot be written while the view is alive.
use cnda::prelude::*;

fn main() {
    let mut a = Array::<f64, 2>::zeros([3, 4]);
    let row = a.slice(s![0, ..]);
    a[[0, 0]] = 1.0;
    println!("{}", row[[0]]);
}
