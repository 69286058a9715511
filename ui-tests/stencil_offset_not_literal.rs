// A stencil reads its fields at offsets fixed at compile time.
use cnda::prelude::*;

fn main() {
    let i = 1;
    let _ = stencil!(|u| u[i, 0] - u[0, 0]);
}
