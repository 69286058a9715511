// A `Wgpu` array and a `Cpu` array in one operation do not compile: move one with `to_device` or
// `to_host` first.
use cnda::prelude::*;

fn add(device: &Array<f32, 2, Wgpu>, host: &Array<f32, 2>) {
    let _ = device + host;
}

fn main() {}
