// `permute` takes one axis per dimension: the arity is checked by the type.
use cnda::prelude::*;

fn main() {
    let a = Array::<f64, 3>::zeros([2, 3, 4]);
    let _ = a.permute([1, 0]);
}
