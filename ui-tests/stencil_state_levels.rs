// A stencil reading two time levels steps a state of two levels: a DoubleBuffer (one level) is
// refused at compile time, naming the state it does not step.
use cnda::prelude::*;
use cnda::stencil::DoubleBuffer;

fn main() {
    let wave = stencil!(#[levels(2)] |u, um; c: f64| 2.0 * u[0, 0] - um[0, 0] + c * (u[-1, 0] + u[1, 0] - 2.0 * u[0, 0]));
    let mut field = DoubleBuffer::new(Array::<f64, 2>::zeros([8, 8]));
    wave.apply_steps(&mut field, 10, (), (0.1,));
}
