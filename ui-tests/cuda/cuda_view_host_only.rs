// Host-only methods (iteration, slices of memory) are not there on a device view.
use cnda::prelude::*;

fn total(a: &Array<f64, 2, Cuda>) -> f64 {
    a.t().iter().sum()
}

fn main() {}
