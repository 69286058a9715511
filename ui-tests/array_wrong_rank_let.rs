// The rank is part of the type: a 2D array cannot be bound to a 3D array type.
use cnda::prelude::*;

fn main() {
    let _a: Array<f64, 3> = Array::zeros([3, 4]);
}
