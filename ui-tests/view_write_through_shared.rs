// A shared view is read-only: it has no `IndexMut`.
use cnda::prelude::*;

fn main() {
    let a = Array::<f64, 2>::zeros([3, 4]);
    #[allow(unused_mut)]
    let mut v = a.view();
    v[[0, 0]] = 1.0;
}
