// Device memory is not host memory: indexing an array on a non-host backend does not compile.
use cnda::prelude::*;

/// A device backend as a downstream crate (or cnda's `cuda` feature) would define it.
#[derive(Clone, Copy, Debug, Default)]
struct Gpu;

struct GpuBuffer;

impl Backend for Gpu {
    const NAME: &'static str = "Gpu";
    type Buffer<T: Pod> = GpuBuffer;
}

fn read_corner(a: &Array<f32, 2, Gpu>) -> f32 {
    a[[0, 0]]
}

fn main() {}
