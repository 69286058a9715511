// `+=` broadcasts the right operand into the left one, so it cannot have more axes.
use cnda::prelude::*;

fn main() {
    let mut row = Array::<f64, 1>::zeros([4]);
    let grid = Array::<f64, 2>::zeros([3, 4]);
    row += &grid;
}
