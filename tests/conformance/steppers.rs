//! The time-stepping cases' generic steppers, one per kind of step (a system, a leapfrog, a
//! staged step, a decaying field, mixed precision), each over any backend: the harnesses run
//! them on their arrays.

use cnda::prelude::*;
use cnda::stencil::{stencil, Boundaries, Boundary, DoubleBuffer, Scalar, State};
use half::f16;

use crate::harness::{Leapfrog, System};

/// [`System`]'s `steps` time steps over a state of `u, v, w` (the first three of `fields`) with
/// the other two as coefficient fields, `b` for the first and third field and `b` with axis 0's
/// sides swapped for the second: the three fields' newest levels.
pub fn system_steps<T: Scalar, B>(
    fields: [Array<T, 2, B>; 5],
    a: T,
    steps: usize,
    b: [[Boundary<T>; 2]; 2],
) -> [Array<T, 2, B>; 3]
where
    B: cnda::kernel::ExprStencilKernels + cnda::kernel::CopyKernels,
{
    let [u, v, w, k, m] = fields;
    let mut state = State::from_fields([u, v, w]);
    // A boundary per field: the second field's axis 0 swaps its sides' kinds.
    let [low, high] = b[0];
    let other = Boundaries::from([[high, low], b[1]]);
    let b = cnda::stencil::FieldBoundaries([b.into(), other, b.into()]);
    System.apply_steps_with(&mut state, steps, (&k, &m), (a,), b);
    state.into_fields()
}

/// [`Leapfrog`]'s `steps` time steps from levels `u, um` with coefficient field `k`: the two
/// newest levels.
pub fn leapfrog_steps<T: Scalar, B>(
    levels: [Array<T, 2, B>; 3],
    a: T,
    steps: usize,
    b: [[Boundary<T>; 2]; 2],
) -> [Array<T, 2, B>; 2]
where
    B: cnda::kernel::ExprStencilKernels + cnda::kernel::CopyKernels,
{
    let [u, um, k] = levels;
    let mut state = State::from_levels([[u, um]]);
    Leapfrog.apply_steps_with(&mut state, steps, &k, (a,), b);
    [state.level(0, 0).to_owned(), state.level(0, 1).to_owned()]
}

stencil! {
    /// The first of two stages (Yee-like): two fields from the curl of the third.
    #[writes(v, w)]
    pub struct StageOne = |u, v, w; a: T| (v[0, 0] - a * (u[0, 1] - u[0, 0]), w[0, 0] + a * (u[1, 0] - u[0, 0]));
}

stencil! {
    /// The second stage: the third field from the first two's new values, over a coefficient
    /// field, radius 2 along axis 0 (wider than the first stage).
    #[writes(u)]
    pub struct StageTwo = |u, v, w, k; a: T|
        u[0, 0] + a * k[0, 0] * ((w[0, 0] - w[-1, 0]) - (v[0, 0] - v[0, -1])) + 0.0625 * (u[2, 0] - u[-2, 0]);
}

/// `steps` staged steps ([`StageOne`] then [`StageTwo`]) of a state of `u, v, w` (the first
/// three of `fields`), the fourth the second stage's coefficient field: the newest levels.
pub fn staged_steps<T: Scalar, B>(
    fields: [Array<T, 2, B>; 4],
    a: T,
    steps: usize,
    b: [[Boundary<T>; 2]; 2],
) -> [Array<T, 2, B>; 3]
where
    B: cnda::kernel::ExprStencilKernels + cnda::kernel::CopyKernels,
{
    let [u, v, w, k] = fields;
    let mut state = State::from_fields([u, v, w]);
    cnda::stencil::Stages((StageOne, StageTwo)).apply_steps_with(&mut state, steps, ((), &k), ((a,), (a,)), b);
    state.into_fields()
}

stencil! {
    /// A field decaying by `a` per step into the subnormals, flushed (the default): every
    /// operation exact on every backend whatever its own subnormal mode (a maximum of stored
    /// values, which are never subnormal, then one product).
    pub struct Decay = |u; a: T| a * max(u[-1, 0], u[1, 0]);
}

stencil! {
    /// [`Decay`] storing its subnormals.
    #[subnormals(keep)]
    pub struct DecayKept = |u; a: T| a * max(u[-1, 0], u[1, 0]);
}

/// [`Decay`]'s or [`DecayKept`]'s steps over `f` with zero walls.
pub fn decay<T: Scalar, B>(f: &mut DoubleBuffer<T, 2, B>, a: T, steps: usize, keep: bool)
where
    B: cnda::kernel::ExprStencilKernels + cnda::kernel::CopyKernels,
{
    let walls = [[Boundary::Value(T::from_f64(0.0)); 2]; 2];
    if keep {
        DecayKept.apply_steps_with(f, steps, (), (a,), walls);
    } else {
        Decay.apply_steps_with(f, steps, (), (a,), walls);
    }
}

stencil! {
    /// Mixed precision: a two-field reaction over 16-bit fields computed in f32, sharing a `let`.
    #[compute(f32)]
    pub struct Widened = |u, v; a: f32| {
        let uv = u[0, 0] * v[0, 0];
        (u[0, 0] + a * (u[-1, 0] + u[1, 0] + u[0, -1] + u[0, 1] - 4.0 * u[0, 0]) - uv, v[0, 1] + a * uv - 0.25 * v[0, 0])
    };
}

/// [`Widened`]'s `steps` time steps over a state of two f16 fields with sides `b`: both fields.
pub fn mixed_steps<B>(
    fields: [Array<f16, 2, B>; 2],
    a: f32,
    steps: usize,
    b: [[Boundary<f16>; 2]; 2],
) -> [Array<f16, 2, B>; 2]
where
    B: cnda::kernel::ExprStencilKernels + cnda::kernel::CopyKernels,
{
    let mut state = State::from_fields(fields);
    Widened.apply_steps_with(&mut state, steps, (), (a,), b);
    state.into_fields()
}
