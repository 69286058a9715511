// Elements must be plain old data: a `String` owns heap memory and cannot be an element.
use cnda::prelude::*;

fn main() {
    let _ = Array::<String, 1>::zeros([3]);
}
