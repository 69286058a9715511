// Mixing backends in one operation does not compile: moving data between devices is explicit.
use cnda::prelude::*;

#[path = "common/gpu.rs"]
mod gpu;
use gpu::Gpu;

fn add(device: &Array<f32, 2, Gpu>, host: &Array<f32, 2>) {
    let _ = device + host;
}

fn main() {}
