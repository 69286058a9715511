// A view borrows its owner and cannot outlive it.
use cnda::prelude::*;

fn main() {
    let v;
    {
        let a = Array::<f64, 2>::zeros([3, 4]);
        v = a.view();
    }
    println!("{}", v[[0, 0]]);
}
