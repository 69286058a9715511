// A broadcast view repeats elements (stride 0), so it is read-only by type.
use cnda::prelude::*;

fn main() {
    let row = Array::<f64, 1>::zeros([4]);
    #[allow(unused_mut)]
    let mut b = row.broadcast_to([3, 4]);
    b[[0, 0]] = 1.0;
}
