// A linear operator has one value per point: a stencil of two outputs is not one.
use cnda::prelude::*;
use cnda::solve::ExprOperator;
use cnda::stencil::Boundary;

fn main() {
    let pair = stencil!(|u| (u[0] - u[1], u[0] + u[1]));
    let _a = ExprOperator::<_, f64, 1>::new(pair, [8], [Boundary::Value(0.0)], (), ());
}
