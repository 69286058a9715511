// Device memory is not host memory: indexing a `Cuda` array from the host does not compile.
use cnda::prelude::*;

fn corner(a: &Array<f32, 2, Cuda>) -> f32 {
    a[[0, 0]]
}

fn main() {}
