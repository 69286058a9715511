// A stencil body may call only the functions every backend computes alike.
use cnda::prelude::*;

fn main() {
    let _ = stencil!(|u| tan(u[0, 0]) + u[1, 0]);
}
