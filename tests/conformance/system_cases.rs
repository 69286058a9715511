//! Stencils of several outputs (systems): `System` (harness.rs) computes three outputs from five
//! fields in one pass, on every view of the first field and of the second output, against a naive
//! loop per output in `T`, one rounding per operation in the source's order; and time steps of
//! systems (`System` stepping three fields, `Leapfrog` one field at two levels, `StageOne` then
//! `StageTwo` as staged steps of three fields, `Leapfrog` and the stages with sources and
//! receivers) with per-side boundaries against the CPU's
//! (itself checked against separate sweeps in tests/stencil_systems.rs and
//! tests/stencil_stages.rs).

use cnda::prelude::*;
use cnda::stencil::{Boundary, Scalar};

use crate::cases::{check_matrix, shapes};
use crate::harness::{CpuHarness, Harness, VIEWS};
use crate::reference::{at, base_shape, eps, field, to_f64};

pub fn system_stencils<H: Harness>() {
    system_stencils_for::<H, f32>();
    if H::supports_f64_transcendentals() {
        system_stencils_for::<H, f64>();
    }
}

/// Exact on the CPU, the model and CUDA; WebGPU may fuse a multiply-add (Vulkan allows it),
/// hence the few-ulp tolerance.
fn system_stencils_for<H: Harness, T: Scalar>() {
    let a = T::from_f64(0.375);
    for (seed, &shape) in shapes().iter().enumerate() {
        let seed = seed as u64;
        for (&vu, &vo) in VIEWS.iter().zip(VIEWS.iter().rev()) {
            let u = field::<T>(base_shape(shape, vu), seed);
            let [v, w, k, m] = [1, 2, 3, 4].map(|f| field::<T>(shape, seed + 50 * f));
            let fill = [-7.0, -5.0, -3.0];
            let outputs = [shape, base_shape(shape, vo), shape]
                .iter()
                .zip(fill)
                .map(|(&s, x)| H::upload(&Array::<T, 2>::full(s, T::from_f64(x))))
                .collect::<Vec<_>>();
            let fields = [&u, &v, &w, &k, &m].map(H::upload);
            let got = H::system_stencil(
                [&fields[0], &fields[1], &fields[2], &fields[3], &fields[4]],
                vu,
                a,
                [&outputs[0], &outputs[1], &outputs[2]],
                vo,
            );
            let [rows, cols] = shape;
            let want = |out: usize| {
                let (u, v, w, k, m) = (&u, &v, &w, &k, &m);
                move |[i, j]: [usize; 2]| {
                    if i == 0 || j == 0 || i + 1 >= rows || j + 1 >= cols {
                        return fill[out];
                    }
                    let near = |f: &Array<T, 2>, di: isize, dj: isize| {
                        f[[(i as isize + di) as usize, (j as isize + dj) as usize]]
                    };
                    let uu = |di: isize, dj: isize| at(u, vu, [(i as isize + di) as usize, (j as isize + dj) as usize]);
                    let uv = uu(0, 0) * near(v, 0, 0);
                    let lap = uu(-1, 0) + uu(1, 0) + uu(0, -1) + uu(0, 1) - T::from_f64(4.0) * uu(0, 0);
                    to_f64(match out {
                        0 => uu(0, 0) + a * near(k, 0, 0) * lap - uv,
                        1 => near(v, 0, 1) + uv * near(m, 0, 0),
                        _ if near(w, 1, 1) > a => near(w, 0, 0) - uv,
                        _ => lap,
                    })
                }
            };
            for (out, got) in got.iter().enumerate() {
                let what = format!("{} system output {out} (u {vu:?}, output 1 {vo:?}) {shape:?}", H::NAME);
                check_matrix(&what, got, want(out), shape, 4.0 * eps::<T>());
            }
        }
    }
}

pub fn system_time_steps<H: Harness>() {
    system_time_steps_for::<H, f32>();
    if H::supports_f64_transcendentals() {
        system_time_steps_for::<H, f64>();
    }
}

/// Exact where every operation rounds as on the CPU (the CPU, the model, CUDA). Where a driver
/// may fuse multiply-adds (WebGPU), within 64 ulps per step of the larger of the value and 1:
/// the Laplacians cancel terms a few times the result (an H200's Vulkan driver was 17 ulps a
/// step off).
fn system_time_steps_for<H: Harness, T: Scalar>() {
    let b = [[Boundary::Neumann, Boundary::Value(T::from_f64(0.5))], [Boundary::Periodic, Boundary::Periodic]];
    let a = T::from_f64(0.125);
    for (seed, &shape) in shapes().iter().enumerate() {
        let seed = seed as u64;
        let fields = [0, 1, 2, 3, 4].map(|f| field::<T>(shape, seed + 20 * f));
        let refs = [&fields[0], &fields[1], &fields[2], &fields[3], &fields[4]];
        for steps in [1, 4] {
            let tol = if H::rounds_each_operation() { 0.0 } else { 64.0 * steps as f64 * eps::<T>() };
            let got = H::system_steps(refs, a, steps, b);
            let want = CpuHarness::system_steps(refs, a, steps, b);
            for (f, (got, want)) in got.iter().zip(&want).enumerate() {
                let what = format!("{} system steps {steps} field {f} {shape:?}", H::NAME);
                check_matrix(&what, got, |ix| to_f64(want[ix]), shape, tol);
            }
            let levels = [refs[0], refs[1], refs[3]];
            let got = H::leapfrog_steps(levels, a, steps, b);
            let want = CpuHarness::leapfrog_steps(levels, a, steps, b);
            for (l, (got, want)) in got.iter().zip(&want).enumerate() {
                let what = format!("{} leapfrog steps {steps} level {l} {shape:?}", H::NAME);
                check_matrix(&what, got, |ix| to_f64(want[ix]), shape, tol);
            }
            // Points need an interior around the middle: grids of at least 6 x 6.
            if shape.iter().all(|&n| n >= 6) {
                let levels = [refs[0], refs[1], refs[3]];
                let (got, got_record) = H::point_steps(levels, a, steps, b);
                let (want, want_record) = CpuHarness::point_steps(levels, a, steps, b);
                for (l, (got, want)) in got.iter().zip(&want).enumerate() {
                    let what = format!("{} point steps {steps} level {l} {shape:?}", H::NAME);
                    check_matrix(&what, got, |ix| to_f64(want[ix]), shape, tol);
                }
                let what = format!("{} point steps {steps} record {shape:?}", H::NAME);
                check_matrix(&what, &got_record, |ix| to_f64(want_record[ix]), got_record.shape(), tol);
                let staged = [refs[0], refs[1], refs[2], refs[3]];
                let (got, got_record) = H::staged_point_steps(staged, a, steps, b);
                let (want, want_record) = CpuHarness::staged_point_steps(staged, a, steps, b);
                for (f, (got, want)) in got.iter().zip(&want).enumerate() {
                    let what = format!("{} staged point steps {steps} field {f} {shape:?}", H::NAME);
                    check_matrix(&what, got, |ix| to_f64(want[ix]), shape, tol);
                }
                let what = format!("{} staged point steps {steps} record {shape:?}", H::NAME);
                check_matrix(&what, &got_record, |ix| to_f64(want_record[ix]), got_record.shape(), tol);
            }
            let staged = [refs[0], refs[1], refs[2], refs[3]];
            let got = H::staged_steps(staged, a, steps, b);
            let want = CpuHarness::staged_steps(staged, a, steps, b);
            for (f, (got, want)) in got.iter().zip(&want).enumerate() {
                let what = format!("{} staged steps {steps} field {f} {shape:?}", H::NAME);
                check_matrix(&what, got, |ix| to_f64(want[ix]), shape, tol);
            }
        }
    }
}

/// [`Leapfrog`](crate::harness::Leapfrog)'s `steps` time steps (as `leapfrog_steps`) with a
/// source off the grid and one on it, and two receivers (one off the grid) recorded each step:
/// the two newest levels and the record.
pub fn point_steps<T: Scalar, B>(
    levels: [Array<T, 2, B>; 3],
    a: T,
    steps: usize,
    b: [[Boundary<T>; 2]; 2],
) -> ([Array<T, 2, B>; 2], Array<T, 2>)
where
    B: cnda::kernel::ExprStencilKernels,
{
    use cnda::stencil::{PointIo, Points, State};
    let [u, um, k] = levels;
    let [rows, cols] = u.shape();
    let (r, c) = ((rows / 2) as f64, (cols / 2) as f64);
    let sources = Points::new([[r - 0.5, c + 0.25], [r, c]]);
    let receivers = Points::new([[r + 0.75, c - 0.5], [r, c]]);
    let wavelet = Array::from_fn([steps, 2], |[t, p]| T::from_f64(if t % 3 == p { 0.75 } else { -0.25 }));
    let mut record = Array::<T, 2>::zeros([steps, 2]);
    let mut state = State::from_levels([[u, um]]);
    let io = PointIo::new(b).inject(&sources, 0, wavelet.view()).record(&receivers, 0, record.view_mut());
    crate::harness::Leapfrog.apply_steps_with(&mut state, steps, &k, (a,), io);
    ([state.level(0, 0).to_owned(), state.level(0, 1).to_owned()], record)
}

/// [`StageOne`](crate::steppers::StageOne) then [`StageTwo`](crate::steppers::StageTwo) (as
/// `staged_steps`) with a source injected into the second field (written by the first stage,
/// read by the second in the same step) and receivers of the first field (written by the
/// second stage): the three fields and the record.
pub fn staged_point_steps<T: Scalar, B>(
    fields: [Array<T, 2, B>; 4],
    a: T,
    steps: usize,
    b: [[Boundary<T>; 2]; 2],
) -> ([Array<T, 2, B>; 3], Array<T, 2>)
where
    B: cnda::kernel::ExprStencilKernels,
{
    use cnda::stencil::{PointIo, Points, Stages, State};
    let [u, v, w, k] = fields;
    let [rows, cols] = u.shape();
    let (r, c) = ((rows / 2) as f64, (cols / 2) as f64);
    let sources = Points::new([[r + 0.5, c - 0.25]]);
    let receivers = Points::new([[r - 0.25, c + 0.5], [r, c], [r, c + 1.0]]);
    let wavelet = Array::from_fn([steps, 1], |[t, _]| T::from_f64(if t % 2 == 0 { 0.5 } else { -0.125 }));
    let mut record = Array::<T, 2>::zeros([steps, 3]);
    let mut state = State::from_fields([u, v, w]);
    let io = PointIo::new(b).inject(&sources, 1, wavelet.view()).record(&receivers, 0, record.view_mut());
    Stages((crate::steppers::StageOne, crate::steppers::StageTwo)).apply_steps_with(
        &mut state,
        steps,
        ((), &k),
        ((a,), (a,)),
        io,
    );
    (state.into_fields(), record)
}

/// Mixed precision (`#[compute(f32)]` over f16 fields, a system of two with a `let`): exact where
/// every operation rounds as on the CPU, within 2 f16 ulps a step where a driver may fuse
/// (WebGPU; skipped where the adapter has no f16).
pub fn mixed_time_steps<H: Harness>() {
    use half::f16;
    for (seed, &shape) in shapes().iter().enumerate() {
        let seed = seed as u64;
        let fields = [0, 1].map(|f| field::<f32>(shape, seed + 40 + f).map(f16::from_f32));
        for steps in [1, 3] {
            let Some(got) = H::mixed_steps([&fields[0], &fields[1]], 0.125, steps) else { return };
            let want = CpuHarness::mixed_steps([&fields[0], &fields[1]], 0.125, steps).expect("the CPU has f16");
            let tol = if H::rounds_each_operation() { 0.0 } else { 2.0 * steps as f64 * eps::<f16>() };
            for (f, (got, want)) in got.iter().zip(&want).enumerate() {
                let what = format!("{} mixed precision steps {steps} field {f} {shape:?}", H::NAME);
                check_matrix(&what, got, |ix| to_f64(want[ix]), shape, tol);
            }
        }
    }
}
