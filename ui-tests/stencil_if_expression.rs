// A stencil body has no branches: `select` computes both sides.
use cnda::prelude::*;

fn main() {
    let _ = stencil!(|u| if u[0, 0] > 0.0 { u[1, 0] } else { u[-1, 0] });
}
