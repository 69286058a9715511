//! Time steps with boundaries: `apply_steps_with` (fused on the CPU, sequential and on two
//! threads) against `k` separate sweeps whose halos a naive reference refills before every sweep
//! and after the last, written here from the definitions (no cnda halo code): bit for bit, both
//! fields. `stencil!` stencils with coefficient fields and `LinearStencil`s, every boundary kind
//! per side, radii 1-2 (anisotropic too), ranks 2 and 3, odd sizes, k = 1..9.

use cnda::prelude::*;
use cnda::stencil::{Boundaries, Boundary, DoubleBuffer, LinearStencil, Side};
use proptest::prelude::*;

#[path = "common/naive_halos.rs"]
mod naive_halos;
#[cfg(feature = "rayon")]
#[path = "common/pool_install.rs"]
mod pool_install;

use naive_halos::{boundaries, refill, side_boundary};
#[cfg(feature = "rayon")]
use pool_install::install;

fn both<const N: usize>(f: DoubleBuffer<f64, N>) -> (Array<f64, N>, Array<f64, N>) {
    let mut f = f;
    let current = f.current().clone();
    f.swap();
    (current, f.into_current())
}

stencil! {
    /// A variable-coefficient diffusion with an advection term, radius 2 along axis 0 and 1 along
    /// axis 1.
    pub struct AdvectDiffuse = |u, k, c; dt: T| u[0, 0]
        + dt * (k[0, 0] * (u[-1, 0] + u[1, 0] + u[0, -1] + u[0, 1] - 4.0 * u[0, 0])
            - c[0, 0] * (u[2, 0] - u[-2, 0]) * 0.25);
}

/// The reference: refill, apply, swap, `steps` times; then a last refill.
fn reference_steps(
    initial: &Array<f64, 2>,
    next: &Array<f64, 2>,
    k: &Array<f64, 2>,
    c: &Array<f64, 2>,
    steps: usize,
    b: &[[Boundary<f64>; 2]; 2],
) -> (Array<f64, 2>, Array<f64, 2>) {
    let mut f = DoubleBuffer::from_pair(initial.clone(), next.clone());
    let r = [2, 1];
    let shape = initial.shape();
    if steps == 0 || shape[0] < 5 || shape[1] < 3 {
        for _ in 0..steps {
            f.swap();
        }
        return both(f);
    }
    for _ in 0..steps {
        refill(f.current_mut(), r, b);
        let (u, v) = f.split();
        AdvectDiffuse.apply((u, k, c), v, (0.05,));
        f.swap();
    }
    refill(f.current_mut(), r, b);
    both(f)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn stencil_macro_time_steps_match_separate_sweeps_with_refilled_halos(
        n0 in prop_oneof![1usize..14, 40usize..400], n1 in 1usize..11, steps in 0usize..10,
        picks in any::<[u8; 4]>(), periodic in any::<[bool; 2]>(), seed in 0u64..50, threads in 1usize..4,
    ) {
        let shape = [n0, n1];
        let field = |s: u64| Array::from_fn(shape, move |[i, j]| ((i as u64 * 31 + j as u64 * 17 + s) % 23) as f64 * 0.125 - 1.0);
        let (initial, next) = (field(seed), field(seed + 7));
        let (k, c) = (field(seed + 3).map(|x| 0.5 + 0.1 * x), field(seed + 5));
        let b = boundaries(picks, periodic);
        let want = reference_steps(&initial, &next, &k, &c, steps, &b);
        let mut f = DoubleBuffer::from_pair(initial.clone(), next.clone());
        #[cfg(feature = "rayon")]
        if threads > 1 {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            install(&pool, || AdvectDiffuse.par_apply_steps_with(&mut f, steps, (&k, &c), (0.05,), b));
        } else {
            AdvectDiffuse.apply_steps_with(&mut f, steps, (&k, &c), (0.05,), b);
        }
        #[cfg(not(feature = "rayon"))]
        {
            let _ = threads;
            AdvectDiffuse.apply_steps_with(&mut f, steps, (&k, &c), (0.05,), b);
        }
        let got = both(f);
        prop_assert_eq!(&got.0, &want.0, "current field, {:?} {} steps, {:?}", shape, steps, b);
        prop_assert_eq!(&got.1, &want.1, "other field");
    }

    /// Run-time stencils (`DynStencil`; `VariableStencil` with a coefficient field per tap),
    /// radius 2 along axis 0 and 1 along axis 1, fused (one or two threads) against the
    /// reference of refilled halos and single sweeps.
    #[cfg(feature = "rayon")]
    #[test]
    fn runtime_stencil_time_steps_match_separate_sweeps_with_refilled_halos(
        n0 in prop_oneof![1usize..13, 60usize..500], n1 in 1usize..10, steps in 0usize..8,
        picks in any::<[u8; 4]>(), periodic in any::<[bool; 2]>(), seed in 0u64..50, threads in 1usize..4,
        variable in any::<bool>(),
    ) {
        let shape = [n0, n1];
        let field = |s: u64| Array::from_fn(shape, move |[i, j]| ((i as u64 * 29 + j as u64 * 13 + s) % 19) as f64 * 0.0625 - 0.5);
        let offsets = [[-2, 0], [0, -1], [0, 0], [0, 1], [1, 1], [2, 0]];
        let weights = [0.125, 0.25, 0.5 - seed as f64 / 64.0, 0.25, -0.125, 0.0625];
        let taps = cnda::stencil::DynStencil::new(offsets.iter().copied().zip(weights));
        let varying = cnda::stencil::VariableStencil::new(offsets);
        let coefficients: Vec<Array<f64, 2>> = (0..6).map(|k| field(seed + 3 * k).map(|x| 0.2 + 0.1 * x)).collect();
        let coefficients: Vec<&Array<f64, 2>> = coefficients.iter().collect();
        let sweep = |u: ArrayView<'_, f64, 2>, v: ArrayViewMut<'_, f64, 2>| {
            if variable { varying.apply(u, &coefficients, v) } else { taps.apply(u, v) }
        };
        let b = boundaries(picks, periodic);
        let mut reference = DoubleBuffer::from_pair(field(seed), field(seed + 1));
        let interior = n0 >= 5 && n1 >= 3;
        for _ in 0..steps {
            if interior {
                refill(reference.current_mut(), [2, 1], &b);
                let (u, v) = reference.split();
                sweep(u.into(), v.into());
            }
            reference.swap();
        }
        if interior && steps > 0 {
            refill(reference.current_mut(), [2, 1], &b);
        }
        let mut f = DoubleBuffer::from_pair(field(seed), field(seed + 1));
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        install(&pool, || match (variable, threads > 1) {
            (false, false) => taps.apply_steps_with(&mut f, steps, b),
            (false, true) => taps.par_apply_steps_with(&mut f, steps, b),
            (true, false) => varying.apply_steps_with(&mut f, steps, &coefficients, b),
            (true, true) => varying.par_apply_steps_with(&mut f, steps, &coefficients, b),
        });
        prop_assert_eq!(both(f), both(reference), "{:?} {} steps, {:?}", shape, steps, b);
    }

    /// A radius-1 `LinearStencil` in 3D with per-side boundaries, fused against the reference.
    #[test]
    fn linear_stencil_time_steps_with_per_side_boundaries_in_3d(
        n in 3usize..8, m in 3usize..7, l in 3usize..6, steps in 1usize..8, picks in any::<[u8; 4]>(),
        periodic in any::<[bool; 3]>(),
    ) {
        let shape = [n, m, l];
        let initial = Array::from_fn(shape, |[i, j, k]| ((i * 7 + j * 3 + k * 5) % 11) as f64);
        let b: [[Boundary<f64>; 2]; 3] = core::array::from_fn(|a| {
            if periodic[a] { [Boundary::Periodic; 2] } else { [side_boundary(picks[a], 9.0), side_boundary(picks[a + 1], -3.0)] }
        });
        let jacobi = LinearStencil::jacobi_7pt();
        let mut reference = DoubleBuffer::new(initial.clone());
        for _ in 0..steps {
            refill(reference.current_mut(), [1; 3], &b);
            let (u, v) = reference.split();
            jacobi.apply(u, v);
            reference.swap();
        }
        refill(reference.current_mut(), [1; 3], &b);
        let mut fused = DoubleBuffer::new(initial);
        jacobi.apply_steps_with(&mut fused, steps, b);
        prop_assert_eq!(both(fused), both(reference));
    }
}

#[test]
fn boundaries_per_side_build_from_arrays_and_refuse_a_half_periodic_axis() {
    let per_axis: Boundaries<f64, 2> = [Boundary::Neumann, Boundary::Value(1.0)].into();
    assert_eq!(per_axis.at(0, Side::High), Boundary::Neumann);
    assert_eq!(per_axis.at(1, Side::Low), Boundary::Value(1.0));
    let mixed = Boundaries::all(Boundary::Fixed).with(1, Side::High, Boundary::Periodic);
    let mut f = DoubleBuffer::new(Array::<f64, 2>::zeros([6, 6]));
    let err = LinearStencil::jacobi_5pt().try_apply_steps_with(&mut f, 2, mixed).unwrap_err();
    assert!(err.to_string().contains("axis 1 is periodic on one side only"), "{err}");
}

#[test]
fn a_value_boundary_holds_its_value_in_both_fields() {
    let s = stencil!(|u| 0.5 * (u[-1] + u[1]));
    let b = [[Boundary::Value(4.0), Boundary::Value(-2.0)]];
    let mut f = DoubleBuffer::new(Array::<f64, 1>::zeros([9]));
    s.apply_steps_with(&mut f, 3, (), (), b);
    let (a, other) = both(f);
    assert_eq!((a[[0]], a[[8]], other[[0]], other[[8]]), (4.0, -2.0, 4.0, -2.0));
    // By hand: 2, 1, 0.5 reach in from the left after three sweeps of averaging.
    let mut want = Array::<f64, 1>::zeros([9]);
    for _ in 0..3 {
        refill(&mut want, [1], &b);
        want =
            Array::from_fn([9], |[i]| if i == 0 || i == 8 { want[[i]] } else { 0.5 * (want[[i - 1]] + want[[i + 1]]) });
    }
    refill(&mut want, [1], &b);
    assert_eq!(a, want);
}
