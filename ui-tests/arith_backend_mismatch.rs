// Mixing backends in one operation does not compile: moving data between devices is explicit.
use cnda::prelude::*;

#[derive(Clone, Copy, Debug, Default)]
struct Gpu;

struct GpuBuffer;

impl Backend for Gpu {
    const NAME: &'static str = "Gpu";
    type Buffer<T: Pod> = GpuBuffer;
}

fn add(device: &Array<f32, 2, Gpu>, host: &Array<f32, 2>) {
    let _ = device + host;
}

fn main() {}
