// `s!` needs exactly one item per axis: three items do not slice a rank-2 array.
use cnda::prelude::*;

fn main() {
    let a = Array::<f64, 2>::zeros([3, 4]);
    let _ = a.slice(s![.., 1..3, 0]);
}
