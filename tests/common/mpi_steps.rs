//! The time-stepping checks of tests/mpi.rs (a module of that binary): `stencil!` stencils,
//! deep halos and boundary conditions over distributed grids, each against one process
//! stepping the whole grid, bit for bit.

use cnda::dist::{DistArray, DistDoubleBuffer, StencilApplyDist};
use cnda::prelude::*;
use cnda::stencil::{fill_halo, pad_axes, DoubleBuffer, PadMode};
use mpi::traits::Communicator;

/// A `stencil!` stencil swept `steps` times over a distributed grid (`StencilApplyDist`) against
/// one process applying it to the whole grid (padded with periodic images): equal bit for bit.
pub fn check_expr_dist(comm: &impl Communicator, global: [usize; 2], periodic: [bool; 2], steps: usize) {
    // Radius 2 along axis 0, 1 along axis 1, a diagonal tap: the full exchange.
    let s = stencil!(|u; a: T| u[0, 0] + a * (u[-2, 0] + u[2, 0] + u[0, -1] + u[0, 1] + 0.5 * u[1, 1] - 4.5 * u[0, 0]));
    let f = |g: [usize; 2]| ((g[0] * 7 + g[1] * 3) % 11) as f64 * 0.2;
    let radius = [2, 1];
    let widths = [0, 1].map(|k| if periodic[k] { radius[k] } else { 0 });
    let modes = periodic.map(|p| if p { PadMode::Periodic } else { PadMode::Constant(0.0) });
    let mut reference = DoubleBuffer::new(pad_axes(Array::from_fn(global, f).view(), widths, modes));
    for _ in 0..steps {
        fill_halo(reference.current_mut().view_mut(), widths, [PadMode::Periodic; 2]);
        let (a, b) = reference.split();
        s.apply((a,), b, (0.05,));
        reference.swap();
    }
    let mut initial = DistArray::<f64, 2>::new(comm, global, [2, 1], periodic);
    initial.fill_owned_with(f);
    let mut field = DistDoubleBuffer::new(initial);
    for _ in 0..steps {
        let (u, v) = field.both_mut();
        s.apply_dist(u, v, (0.05,));
        field.swap();
    }
    if let Some(g) = field.current().gather(0) {
        let strip = (0..2).fold(reference.current().view().into_strided(), |v, k| v.narrow(k, widths[k], global[k]));
        assert_eq!(g, strip.to_owned(), "StencilApplyDist {global:?} {periodic:?}");
    }
}

/// `steps` sweeps with deep halos (`apply_steps_dist`: one exchange per `halo / radius` sweeps,
/// run by `run`) against one process sweeping the whole grid with `sweep` (padded with periodic
/// images on the periodic axes, refreshed before every sweep): equal bit for bit.
pub fn check_steps_dist<const N: usize>(
    comm: &impl Communicator,
    radius: [usize; N],
    sweep: impl Fn(ArrayView<'_, f64, N>, ArrayViewMut<'_, f64, N>),
    run: impl Fn(&mut DistDoubleBuffer<f64, N>),
    (global, halo, periodic): ([usize; N], [usize; N], [bool; N]),
    steps: usize,
) {
    let f = |g: [usize; N]| g.iter().enumerate().map(|(k, &i)| ((i * (5 + k) + 3 * k) % 13) as f64 * 0.1).sum::<f64>();
    let widths: [usize; N] = core::array::from_fn(|k| if periodic[k] { radius[k] } else { 0 });
    let modes = periodic.map(|p| if p { PadMode::Periodic } else { PadMode::Constant(0.0) });
    let mut reference = DoubleBuffer::new(pad_axes(Array::from_fn(global, f).view(), widths, modes));
    for _ in 0..steps {
        fill_halo(reference.current_mut().view_mut(), widths, [PadMode::Periodic; N]);
        let (a, b) = reference.split();
        sweep(a.into(), b.into());
        reference.swap();
    }
    let mut initial = DistArray::<f64, N>::new(comm, global, halo, periodic);
    initial.fill_owned_with(f);
    let mut field = DistDoubleBuffer::new(initial);
    run(&mut field);
    if let Some(g) = field.current().gather(0) {
        let strip = (0..N).fold(reference.current().view().into_strided(), |v, k| v.narrow(k, widths[k], global[k]));
        assert_eq!(g, strip.to_owned(), "apply_steps_dist {global:?} halo {halo:?} {periodic:?}, {steps} steps");
    }
}

/// `steps` sweeps with boundary conditions at the global edges (`apply_steps_dist_with`, run by
/// `run`) against one process stepping the whole grid with the same conditions (`reference`,
/// the one-process `apply_steps_with`; padded with periodic images on the periodic axes, whose
/// condition is `Periodic`): equal bit for bit.
pub fn check_steps_dist_with<const N: usize>(
    comm: &impl Communicator,
    radius: [usize; N],
    reference: impl Fn(&mut DoubleBuffer<f64, N>),
    run: impl Fn(&mut DistDoubleBuffer<f64, N>),
    (global, halo, periodic): ([usize; N], [usize; N], [bool; N]),
) {
    let f = |g: [usize; N]| g.iter().enumerate().map(|(k, &i)| ((i * (7 + k) + 2 * k) % 11) as f64 * 0.3).sum::<f64>();
    let widths: [usize; N] = core::array::from_fn(|k| if periodic[k] { radius[k] } else { 0 });
    let modes = periodic.map(|p| if p { PadMode::Periodic } else { PadMode::Constant(0.0) });
    let mut one = DoubleBuffer::new(pad_axes(Array::from_fn(global, f).view(), widths, modes));
    reference(&mut one);
    let mut initial = DistArray::<f64, N>::new(comm, global, halo, periodic);
    initial.fill_owned_with(f);
    let mut field = DistDoubleBuffer::new(initial);
    run(&mut field);
    if let Some(g) = field.current().gather(0) {
        let strip = (0..N).fold(one.current().view().into_strided(), |v, k| v.narrow(k, widths[k], global[k]));
        assert_eq!(g, strip.to_owned(), "apply_steps_dist_with {global:?} halo {halo:?} {periodic:?}");
    }
}
