// A stencil's subnormal mode is `flush` (the default) or `keep`; anything else is refused with
// both choices named.
use cnda::stencil::stencil;

fn main() {
    let _ = stencil!(#[subnormals(zero)] |u| 0.5 * u[0, 0]);
}
