// Every read of every field has the stencil's rank.
use cnda::prelude::*;

fn main() {
    let _ = stencil!(|u, k| u[0, 0] * k[0, 0, 1]);
}
