// Complex numbers have no order: `max` (and `min`, `argmax`, `%`, `clamp`) exist only for real
// elements; compare magnitudes or real parts instead.
use cnda::prelude::*;
use cnda::Complex;

fn main() {
    let z = Array::full([3], Complex::new(1.0f64, 2.0));
    let _ = z.max();
    let _ = z.view().min_axis::<0>(0);
    let _ = z.abs().max(); // the fix: a real array of magnitudes
}
