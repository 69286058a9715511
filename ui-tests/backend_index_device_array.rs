// Device memory is not host memory: indexing an array on a non-host backend does not compile.
use cnda::prelude::*;

#[path = "common/gpu.rs"]
mod gpu;
use gpu::Gpu;

fn read_corner(a: &Array<f32, 2, Gpu>) -> f32 {
    a[[0, 0]]
}

fn main() {}
