// A `let` binding in a stencil body needs a name of its own: a field's name is refused, with the
// binding's span.
use cnda::stencil::stencil;

fn main() {
    let _ = stencil!(|u, k; dt: T| {
        let k = u[-1, 0] + u[1, 0] - 2.0 * u[0, 0];
        u[0, 0] + dt * k
    });
}
