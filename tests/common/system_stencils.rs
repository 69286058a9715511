//! The `stencil!` systems the stepper tests share (one process's in tests/stencil_systems.rs,
//! tests/stencil_stages.rs and tests/step_points.rs; the distributed ones in tests/mpi.rs).

use cnda::prelude::*;

stencil! {
    /// Two species reacting and diffusing (a Gray-Scott-like system), a feed field as
    /// coefficient; radius 1 with diagonal taps in the second species (a distributed exchange's
    /// corners matter).
    pub struct Reaction = |u, v, k; a: T, b: T| {
        let uvv = u[0, 0] * v[0, 0] * v[0, 0];
        (
            u[0, 0] + a * (u[-1, 0] + u[1, 0] + u[0, -1] + u[0, 1] - 4.0 * u[0, 0]) - uvv + b * k[0, 0],
            v[0, 0] + a * 0.5 * (v[-1, 1] + v[1, -1] - 2.0 * v[0, 0]) + uvv - b * v[0, 0],
        )
    };
}

stencil! {
    /// A damped wave: the field now and one step before, a slowness field; radius 2.
    #[levels(2)]
    pub struct Wave = |u, um, m; c: T| 1.9 * u[0, 0] - 0.9 * um[0, 0] + c * m[0, 0] * laplace(u, 4);
}

stencil! {
    /// Yee's magnetic update: H from the curl of E (`hx`, `hy` half a cell after `ez`).
    #[writes(hx, hy)]
    pub struct UpdateH = |ez, hx, hy; c: T| (
        hx[0, 0] - c * (ez[0, 1] - ez[0, 0]),
        hy[0, 0] + c * (ez[1, 0] - ez[0, 0]),
    );
}

stencil! {
    /// Yee's electric update from the new H, over a permittivity field.
    #[writes(ez)]
    pub struct UpdateE = |ez, hx, hy, eps; c: T| ez[0, 0] + c / eps[0, 0] * ((hy[0, 0] - hy[-1, 0]) - (hx[0, 0] - hx[0, -1]));
}
