//! Fused multi-sweep stencils (`apply_steps` and its forms) against separate sweeps, bit for bit,
//! with fixed and periodic boundaries, sequential and parallel.

use cnda::prelude::*;
use cnda::stencil::{self, fill_halo, pad, Boundary, DoubleBuffer, LinearStencil, PadMode};
use proptest::prelude::*;

#[cfg(feature = "rayon")]
#[path = "common/pool_install.rs"]
mod pool_install;
#[cfg(feature = "rayon")]
use pool_install::install;

fn field(shape: [usize; 2], seed: u64) -> Array<f64, 2> {
    Array::from_fn(shape, |[i, j]| (((i as u64 * 31 + j as u64 * 17 + seed) % 23) as f64) - 11.0)
}

/// A double buffer whose current field is `initial` and whose scratch field is `next`.
fn fields<const N: usize>(initial: &Array<f64, N>, next: &Array<f64, N>) -> DoubleBuffer<f64, N> {
    let mut field = DoubleBuffer::new(initial.clone());
    let (_, mut v) = field.split();
    v.assign(next);
    field
}

/// Both fields of a double buffer, current first.
fn both<const N: usize>(mut field: DoubleBuffer<f64, N>) -> (Array<f64, N>, Array<f64, N>) {
    let current = field.current().clone();
    let (_, other) = field.split();
    (current, other.to_owned())
}

/// `steps` separate sweeps of `stencil`: the reference for the fused form.
fn sweeps_one_by_one<const N: usize, const R: usize, const K: usize>(
    stencil: &stencil::LinearStencil<f64, N, R, K>,
    initial: &Array<f64, N>,
    next: &Array<f64, N>,
    steps: usize,
) -> (Array<f64, N>, Array<f64, N>) {
    let mut field = fields(initial, next);
    separately(stencil, &mut field, steps);
    both(field)
}

/// The fused form on the same starting fields.
fn sweeps_fused<const N: usize, const R: usize, const K: usize>(
    stencil: &LinearStencil<f64, N, R, K>,
    initial: &Array<f64, N>,
    next: &Array<f64, N>,
    steps: usize,
) -> (Array<f64, N>, Array<f64, N>) {
    sweeps_fused_with(stencil, initial, next, steps, [Boundary::Fixed; N], None)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn fused_sweeps_equal_separate_sweeps_bit_for_bit(
        rows in 0usize..14, cols in 0usize..14, steps in 0usize..7, seed in 0u64..1000, radius2 in any::<bool>(),
    ) {
        let initial = field([rows, cols], seed);
        // The scratch field starts different (its boundary must survive untouched too).
        let next = field([rows, cols], seed + 1);
        if radius2 {
            let wide = LinearStencil::<f64, 2, 2, 5>::new([
                ([-2, 0], 0.1), ([0, 2], 0.2), ([1, -1], 0.3), ([0, 0], -0.4), ([2, 1], 0.05),
            ]);
            prop_assert_eq!(sweeps_fused(&wide, &initial, &next, steps), sweeps_one_by_one(&wide, &initial, &next, steps));
        } else {
            let jacobi = LinearStencil::jacobi_5pt();
            prop_assert_eq!(sweeps_fused(&jacobi, &initial, &next, steps), sweeps_one_by_one(&jacobi, &initial, &next, steps));
        }
    }
}

#[test]
fn fused_sweeps_in_3d_equal_separate_sweeps() {
    let shape = [9, 7, 8];
    let initial = Array::from_fn(shape, |[i, j, k]| ((i * 31 + j * 17 + k * 7) % 13) as f64 * 0.37);
    let next = Array::from_fn(shape, |[i, j, k]| ((i + j + k) % 5) as f64);
    for steps in [1, 2, 3, 4, 5] {
        let lap = LinearStencil::laplacian_27pt(0.5);
        assert_eq!(
            sweeps_fused(&lap, &initial, &next, steps),
            sweeps_one_by_one(&lap, &initial, &next, steps),
            "{steps}"
        );
        let jac = LinearStencil::jacobi_7pt();
        assert_eq!(
            sweeps_fused(&jac, &initial, &next, steps),
            sweeps_one_by_one(&jac, &initial, &next, steps),
            "{steps}"
        );
    }
}

/// `steps` separate sweeps of `stencil` on `field`.
fn separately<const N: usize, const R: usize, const K: usize>(
    stencil: &LinearStencil<f64, N, R, K>,
    field: &mut DoubleBuffer<f64, N>,
    steps: usize,
) {
    for _ in 0..steps {
        let (u, v) = field.split();
        stencil.apply(u, v);
        field.swap();
    }
}

/// The pass depth is measured at run time (`fused/tune.rs`): calls of one kind run passes of
/// 1, 2, 3, 4, 6, 8, 12, ... steps in turn until the fastest is found, and carry a call's steps
/// over passes of whatever depth. Each call, whichever depths it ran, equals separate sweeps.
#[test]
fn calls_whose_pass_depth_is_being_measured_equal_separate_sweeps() {
    let (rows, cols) = (61, 96);
    let jacobi = LinearStencil::jacobi_5pt();
    let next = field([rows, cols], 5);
    let mut reference = fields(&field([rows, cols], 4), &next);
    let mut fused = fields(&field([rows, cols], 4), &next);
    // 13 steps a call, then 1, then 29: the search meets calls shorter and longer than its next
    // depth.
    for (call, steps) in [13, 13, 1, 29, 13, 13, 29, 13].into_iter().enumerate() {
        separately(&jacobi, &mut reference, steps);
        jacobi.apply_steps(&mut fused, steps);
        assert_eq!(fused.current(), reference.current(), "call {call} of {steps} steps");
    }
    #[cfg(feature = "rayon")]
    install(&rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap(), || {
        for (call, steps) in [7, 13, 2, 13, 29].into_iter().enumerate() {
            separately(&jacobi, &mut reference, steps);
            jacobi.par_apply_steps(&mut fused, steps);
            assert_eq!(fused.current(), reference.current(), "parallel call {call} of {steps} steps");
        }
    });
}

/// The parallel fused form on the same starting fields, in a pool of `threads` threads.
#[cfg(feature = "rayon")]
fn sweeps_fused_par<const N: usize, const R: usize, const K: usize>(
    stencil: &LinearStencil<f64, N, R, K>,
    initial: &Array<f64, N>,
    next: &Array<f64, N>,
    steps: usize,
    threads: usize,
) -> (Array<f64, N>, Array<f64, N>) {
    sweeps_fused_with(stencil, initial, next, steps, [Boundary::Fixed; N], Some(threads))
}

#[cfg(feature = "rayon")]
proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn parallel_fused_sweeps_equal_separate_sweeps_bit_for_bit(
        rows in 0usize..24, cols in 0usize..12, steps in 0usize..9, seed in 0u64..1000, threads in 1usize..5,
    ) {
        let initial = field([rows, cols], seed);
        let next = field([rows, cols], seed + 7);
        let wide = LinearStencil::<f64, 2, 2, 5>::new([
            ([-2, 0], 0.1), ([0, 2], 0.2), ([1, -1], 0.3), ([0, 0], -0.4), ([2, 1], 0.05),
        ]);
        prop_assert_eq!(sweeps_fused_par(&wide, &initial, &next, steps, threads), sweeps_one_by_one(&wide, &initial, &next, steps));
        let jacobi = LinearStencil::jacobi_5pt();
        prop_assert_eq!(sweeps_fused_par(&jacobi, &initial, &next, steps, threads), sweeps_one_by_one(&jacobi, &initial, &next, steps));
    }
}

#[cfg(feature = "rayon")]
#[test]
fn parallel_fused_sweeps_in_3d_equal_separate_sweeps() {
    let shape = [12, 6, 7];
    let initial = Array::from_fn(shape, |[i, j, k]| ((i * 31 + j * 17 + k * 7) % 13) as f64 * 0.37);
    let next = Array::from_fn(shape, |[i, j, k]| ((i + j + k) % 5) as f64);
    for steps in [1, 2, 5, 8] {
        let lap = LinearStencil::laplacian_27pt(0.5);
        assert_eq!(sweeps_fused_par(&lap, &initial, &next, steps, 2), sweeps_one_by_one(&lap, &initial, &next, steps));
    }
}

/// `steps` separate sweeps with the halos of the periodic axes refreshed by `fill_halo` before
/// every sweep and after the last: the reference for `apply_steps_with`.
fn sweeps_one_by_one_with<const N: usize, const R: usize, const K: usize>(
    stencil: &LinearStencil<f64, N, R, K>,
    initial: &Array<f64, N>,
    next: &Array<f64, N>,
    steps: usize,
    boundaries: [Boundary<f64>; N],
) -> (Array<f64, N>, Array<f64, N>) {
    let mut field = fields(initial, next);
    if steps == 0 || initial.shape().iter().any(|&n| n < 2 * R + 1) {
        // No interior point: nothing is swept or refreshed, and the fields swap as ever.
        return sweeps_one_by_one(stencil, initial, next, steps);
    }
    let widths = boundaries.map(|b| if b == Boundary::Periodic { R } else { 0 });
    let refresh =
        |field: &mut DoubleBuffer<f64, N>| fill_halo(field.current_mut().view_mut(), widths, [PadMode::Periodic; N]);
    for _ in 0..steps {
        refresh(&mut field);
        let (u, v) = field.split();
        stencil.apply(u, v);
        field.swap();
    }
    refresh(&mut field);
    both(field)
}

/// The fused form with boundaries, on `threads` threads (sequential when `None`).
fn sweeps_fused_with<const N: usize, const R: usize, const K: usize>(
    stencil: &LinearStencil<f64, N, R, K>,
    initial: &Array<f64, N>,
    next: &Array<f64, N>,
    steps: usize,
    boundaries: [Boundary<f64>; N],
    threads: Option<usize>,
) -> (Array<f64, N>, Array<f64, N>) {
    let mut field = fields(initial, next);
    match threads {
        None => stencil.apply_steps_with(&mut field, steps, boundaries),
        #[cfg(feature = "rayon")]
        Some(n) => install(&rayon::ThreadPoolBuilder::new().num_threads(n).build().unwrap(), || {
            stencil.par_apply_steps_with(&mut field, steps, boundaries)
        }),
        #[cfg(not(feature = "rayon"))]
        Some(_) => stencil.apply_steps_with(&mut field, steps, boundaries),
    }
    both(field)
}

fn boundary(periodic: bool) -> Boundary<f64> {
    if periodic {
        Boundary::Periodic
    } else {
        Boundary::Fixed
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn fused_sweeps_with_periodic_axes_equal_refresh_then_sweep_bit_for_bit(
        rows in prop_oneof![0usize..16, 40usize..600], cols in 0usize..12, steps in 0usize..8, seed in 0u64..1000,
        periodic in any::<[bool; 2]>(), radius2 in any::<bool>(), threads in 0usize..4,
    ) {
        let (initial, next) = (field([rows, cols], seed), field([rows, cols], seed + 5));
        let boundaries = periodic.map(boundary);
        let threads = (threads > 0).then_some(threads);
        if radius2 {
            let wide = LinearStencil::<f64, 2, 2, 5>::new([
                ([-2, 0], 0.1), ([0, 2], 0.2), ([1, -1], 0.3), ([0, 0], -0.4), ([2, 1], 0.05),
            ]);
            prop_assert_eq!(
                sweeps_fused_with(&wide, &initial, &next, steps, boundaries, threads),
                sweeps_one_by_one_with(&wide, &initial, &next, steps, boundaries)
            );
        } else {
            let lap = LinearStencil::laplacian_9pt(0.7);
            prop_assert_eq!(
                sweeps_fused_with(&lap, &initial, &next, steps, boundaries, threads),
                sweeps_one_by_one_with(&lap, &initial, &next, steps, boundaries)
            );
        }
    }
}

#[test]
fn fused_sweeps_with_periodic_axes_in_1d_and_3d() {
    let wave = LinearStencil::<f64, 1, 2, 3>::new([([-2], 0.25), ([1], 0.5), ([0], 0.25)]);
    // Up to 12 points a pipeline of threads, 200 and 333 in slabs.
    for n in (0..12).chain([200, 333]) {
        let initial = Array::from_fn([n], |[i]| ((i * 7) % 5) as f64 - 2.0);
        let next = Array::from_fn([n], |[i]| i as f64);
        for steps in 0..7 {
            for threads in [None, Some(3)] {
                assert_eq!(
                    sweeps_fused_with(&wave, &initial, &next, steps, [Boundary::Periodic], threads),
                    sweeps_one_by_one_with(&wave, &initial, &next, steps, [Boundary::Periodic]),
                    "n {n}, {steps} steps"
                );
            }
        }
    }
    // 11 hyperplanes: a pipeline of threads; 150: slabs.
    for shape in [[11, 6, 7], [150, 5, 4]] {
        fused_sweeps_with_periodic_axes_in_3d(shape);
    }
}

fn fused_sweeps_with_periodic_axes_in_3d(shape: [usize; 3]) {
    let initial = Array::from_fn(shape, |[i, j, k]| ((i * 31 + j * 17 + k * 7) % 13) as f64 * 0.37);
    let next = Array::from_fn(shape, |[i, j, k]| ((i + j + k) % 5) as f64);
    let lap = LinearStencil::laplacian_27pt(0.5);
    for periodic in [[true, false, true], [false, true, true], [true, true, true], [true, false, false]] {
        for steps in [1, 2, 5] {
            for threads in [None, Some(2)] {
                let boundaries = periodic.map(boundary);
                assert_eq!(
                    sweeps_fused_with(&lap, &initial, &next, steps, boundaries, threads),
                    sweeps_one_by_one_with(&lap, &initial, &next, steps, boundaries),
                    "{periodic:?}, {steps} steps"
                );
            }
        }
    }
}

#[test]
fn periodic_jacobi_is_the_mean_of_the_neighbours_on_a_torus() {
    // Independent of `fill_halo`: indices taken modulo the torus's size, taps in the same order.
    let (n, m, steps) = (9, 7, 5);
    let mut torus = Array::from_fn([n, m], |[i, j]| ((5 * i + 3 * j * j) % 11) as f64);
    let mut field = DoubleBuffer::new(pad(torus.view(), 1, PadMode::Periodic));
    LinearStencil::jacobi_5pt().apply_steps_with(&mut field, steps, [Boundary::Periodic; 2]);
    for _ in 0..steps {
        let at = |i: isize, j: isize| torus[[i.rem_euclid(n as isize) as usize, j.rem_euclid(m as isize) as usize]];
        torus = Array::from_fn([n, m], |[i, j]| {
            let (i, j) = (i as isize, j as isize);
            0.25 * at(i - 1, j) + 0.25 * at(i + 1, j) + 0.25 * at(i, j - 1) + 0.25 * at(i, j + 1)
        });
    }
    assert_eq!(field.current(), &pad(torus.view(), 1, PadMode::Periodic));
}

/// Planes wide enough that two threads share one wavefront, each computing a band of axis 1 of
/// every unit (`fused/bands.rs`: 64 rows of 128 points each here), the first completing each
/// unit's halos: the same as separate sweeps, with periodic axes before and after the bands'.
#[cfg(feature = "rayon")]
#[test]
fn fused_sweeps_in_bands_of_axis_1_equal_separate_sweeps() {
    let shape = [8, 130, 130];
    let initial = Array::from_fn(shape, |[i, j, k]| ((i * 31 + j * 17 + k * 7) % 13) as f64 * 0.37);
    let next = Array::from_fn(shape, |[i, j, k]| ((i + j + k) % 5) as f64);
    let lap = LinearStencil::laplacian_27pt(0.5);
    for periodic in [[false, false, false], [true, true, false], [false, true, true]] {
        for steps in [2, 5] {
            let boundaries = periodic.map(boundary);
            assert_eq!(
                sweeps_fused_with(&lap, &initial, &next, steps, boundaries, Some(2)),
                sweeps_one_by_one_with(&lap, &initial, &next, steps, boundaries),
                "{periodic:?}, {steps} steps"
            );
        }
    }
}
