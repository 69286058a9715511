// A `stencil!` operator takes one owned array per field after the unknown: a stencil of `u`
// and `k` cannot be made without `k`.
use cnda::prelude::*;
use cnda::solve::ExprOperator;
use cnda::stencil::Boundary;

fn main() {
    let flux = stencil!(|u, k| k[0] * (2.0 * u[0] - u[-1] - u[1]));
    let _a = ExprOperator::new(flux, [8], [Boundary::Value(0.0)], (), ());
}
