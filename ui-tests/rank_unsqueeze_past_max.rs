// Ranks stop at 8: a rank-8 array cannot gain an axis.
use cnda::prelude::*;

fn main() {
    let a = Array::<f64, 8>::zeros([1; 8]);
    let _ = a.unsqueeze(0);
}
