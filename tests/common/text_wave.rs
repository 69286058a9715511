//! A wave read from text (`TextStencil`: two levels, a coefficient field, periodic and mirrored
//! sides), stepped on the host and on a device backend: what the device tests compare.

use cnda::kernel::{CopyKernels, ExprStencilKernels};
use cnda::prelude::*;
use cnda::stencil::{Boundary, FieldBoundaries, State, TextStencil};

/// Both levels after 7 steps on the host, then on the device (`upload`, `download` move arrays).
pub fn host_and_device<B: ExprStencilKernels + CopyKernels>(
    upload: impl Fn(&Array<f32, 2>) -> Array<f32, 2, B>,
    download: impl Fn(&Array<f32, 2, B>) -> Array<f32, 2>,
) -> ([Array<f32, 2>; 2], [Array<f32, 2>; 2]) {
    let wave = TextStencil::<2>::parse(
        "#[levels(2)] |u, u_prev, m; c| 2.0 * u[0, 0] - u_prev[0, 0] + c * m[0, 0] * laplace(u, 4)",
    );
    let m = Array::from_fn([30, 40], |[i, _]| if i < 15 { 1.0f32 } else { 0.5 });
    let pulse =
        Array::from_fn([30, 40], |[i, j]| (-(((i as f32 - 15.0).powi(2) + (j as f32 - 20.0).powi(2)) / 8.0)).exp());
    let b = FieldBoundaries([[[Boundary::Periodic; 2], [Boundary::Neumann; 2]].into()]);
    let mut host = State::from_levels([[pulse.clone(), pulse.clone()]]);
    wave.apply_steps_with(&mut host, 7, &[&m], &[0.05], b);
    let mut device = State::from_levels([[upload(&pulse), upload(&pulse)]]);
    wave.apply_steps_with(&mut device, 7, &[&upload(&m)], &[0.05], b);
    ([host.level(0, 0).clone(), host.level(0, 1).clone()], [download(device.level(0, 0)), download(device.level(0, 1))])
}
