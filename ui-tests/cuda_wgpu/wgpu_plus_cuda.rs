// Arrays of two device backends in one operation do not compile: data moves between them
// through the host, explicitly.
use cnda::prelude::*;

fn add(webgpu: &Array<f32, 2, Wgpu>, cuda: &Array<f32, 2, Cuda>) {
    let _ = webgpu + cuda;
}

fn main() {}
