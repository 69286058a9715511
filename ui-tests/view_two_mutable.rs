// Two mutable views of one array at once would alias.
use cnda::prelude::*;

fn main() {
    let mut a = Array::<f64, 2>::zeros([3, 4]);
    let mut first = a.view_mut();
    let mut second = a.view_mut();
    first[[0, 0]] = 1.0;
    second[[0, 0]] = 2.0;
}
