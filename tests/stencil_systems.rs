//! Time steps of systems: stencils of several outputs stepping a `State` of several fields, and
//! stencils reading earlier time levels (`#[levels(L)]`), fused on the CPU (sequential and on
//! rayon's threads, slabs and the pipeline) against a reference (`common/rings.rs`): per field
//! a ring of arrays rotated by hand, the newest levels' halos refilled by their definitions
//! (`common/naive_halos.rs`) before every sweep and after the last, one `apply` per sweep. Bit
//! for bit, every level and every scratch array.

use cnda::prelude::*;
use cnda::stencil::{Boundary, FieldBoundaries, State};
use proptest::prelude::*;

#[path = "common/naive_halos.rs"]
mod naive_halos;
#[cfg(feature = "rayon")]
#[path = "common/pool_install.rs"]
mod pool_install;

#[path = "common/rings.rs"]
mod rings;
#[path = "common/stepping.rs"]
mod stepping;
#[path = "common/system_stencils.rs"]
#[allow(dead_code)] // each test file uses some of them
mod system_stencils;

use naive_halos::boundaries;
use rings::{same, Rings};
use stepping::{field, on_threads};
use system_stencils::{Reaction, Wave};

stencil! {
    /// The same wave with the 8th-order Laplacian: radius 4, so blocks of a few hyperplanes per
    /// call (`CNDA_FUSED_BLOCK`) lag by more than one block.
    #[levels(2)]
    pub struct Wave8 = |u, um, m; c: T| 1.9 * u[0, 0] - 0.9 * um[0, 0] + c * m[0, 0] * laplace(u, 8);
}

stencil! {
    /// Three levels, the older ones read off the centre.
    #[levels(3)]
    pub struct ThreeLevels = |u, u1, u2; a: T| u[0, 0] + a * (u1[1, 0] - u2[0, -1]) + 0.25 * (u[0, 1] - u2[-1, 0]);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Two fields at one level from one stencil of two values, with a coefficient field.
    #[test]
    fn a_system_of_two_fields_steps_as_separate_sweeps(
        n0 in prop_oneof![1usize..12, 40usize..300], n1 in 1usize..11, steps in 0usize..10,
        picks in any::<[u8; 4]>(), periodic in any::<[bool; 2]>(), seed in 0u64..50, threads in 1usize..4,
    ) {
        let shape = [n0, n1];
        let (u, v, k) = (field(shape, seed), field(shape, seed + 5), field(shape, seed + 9));
        let b = boundaries(picks, periodic);
        let params = (0.1, 0.03);
        let mut want = Rings::new(&[vec![u.clone()], vec![v.clone()]]);
        want.run(steps, [1, 1], &[b], |levels, out| {
            let (first, second) = out.split_at_mut(1);
            Reaction.apply((levels[0], levels[1], &k), (&mut first[0], &mut second[0]), params);
        });
        let mut state = State::from_fields([u, v]);
        on_threads(threads, |parallel| {
            #[cfg(feature = "rayon")]
            if parallel {
                return Reaction.par_apply_steps_with(&mut state, steps, &k, params, b);
            }
            let _ = parallel;
            Reaction.apply_steps_with(&mut state, steps, &k, params, b);
        });
        same(state, &want)?;
    }

    /// One field at two levels (a wave), radius 2, with a coefficient field.
    #[test]
    fn a_wave_at_two_levels_steps_as_separate_sweeps(
        n0 in prop_oneof![1usize..14, 40usize..300], n1 in 1usize..12, steps in 0usize..10,
        picks in any::<[u8; 4]>(), periodic in any::<[bool; 2]>(), seed in 0u64..50, threads in 1usize..4,
    ) {
        let shape = [n0, n1];
        let (u, um, m) = (field(shape, seed), field(shape, seed + 3), field(shape, seed + 7).map(|x| 1.0 + 0.2 * x));
        let b = boundaries(picks, periodic);
        let mut want = Rings::new(&[vec![u.clone(), um.clone()]]);
        want.run(steps, [2, 2], &[b], |levels, out| Wave.apply((levels[0], levels[1], &m), &mut out[0], (0.05,)));
        let mut state = State::from_levels([[u, um]]);
        on_threads(threads, |parallel| {
            #[cfg(feature = "rayon")]
            if parallel {
                return Wave.par_apply_steps_with(&mut state, steps, &m, (0.05,), b);
            }
            let _ = parallel;
            Wave.apply_steps_with(&mut state, steps, &m, (0.05,), b);
        });
        same(state, &want)?;
    }

    /// The radius-4 wave, Neumann walls among the boundaries (a mirrored axis 0 refreshed after
    /// the block holding its fourth hyperplane).
    #[test]
    fn a_radius_four_wave_steps_as_separate_sweeps(
        n0 in prop_oneof![1usize..20, 40usize..300], n1 in 1usize..14, steps in 0usize..10,
        picks in any::<[u8; 4]>(), periodic in any::<[bool; 2]>(), seed in 0u64..50, threads in 1usize..4,
    ) {
        let shape = [n0, n1];
        let (u, um, m) = (field(shape, seed), field(shape, seed + 3), field(shape, seed + 7).map(|x| 1.0 + 0.2 * x));
        let b = boundaries(picks, periodic);
        let mut want = Rings::new(&[vec![u.clone(), um.clone()]]);
        want.run(steps, [4, 4], &[b], |levels, out| Wave8.apply((levels[0], levels[1], &m), &mut out[0], (0.02,)));
        let mut state = State::from_levels([[u, um]]);
        on_threads(threads, |parallel| {
            #[cfg(feature = "rayon")]
            if parallel {
                return Wave8.par_apply_steps_with(&mut state, steps, &m, (0.02,), b);
            }
            let _ = parallel;
            Wave8.apply_steps_with(&mut state, steps, &m, (0.02,), b);
        });
        same(state, &want)?;
    }

    /// One field at three levels, the older levels read off the centre.
    #[test]
    fn three_levels_step_as_separate_sweeps(
        n0 in prop_oneof![1usize..12, 40usize..200], n1 in 1usize..10, steps in 0usize..10,
        picks in any::<[u8; 4]>(), periodic in any::<[bool; 2]>(), seed in 0u64..50, threads in 1usize..4,
    ) {
        let shape = [n0, n1];
        let levels = [field(shape, seed), field(shape, seed + 1), field(shape, seed + 2)];
        let b = boundaries(picks, periodic);
        let mut want = Rings::new(&[levels.to_vec()]);
        want.run(steps, [1, 1], &[b], |l, out| ThreeLevels.apply((l[0], l[1], l[2]), &mut out[0], (0.3,)));
        let mut state = State::from_levels([levels]);
        on_threads(threads, |parallel| {
            #[cfg(feature = "rayon")]
            if parallel {
                return ThreeLevels.par_apply_steps_with(&mut state, steps, (), (0.3,), b);
            }
            let _ = parallel;
            ThreeLevels.apply_steps_with(&mut state, steps, (), (0.3,), b);
        });
        same(state, &want)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// A boundary per field: the two species of `Reaction` with their own sides (the same axes
    /// periodic).
    #[test]
    fn each_field_keeps_its_own_boundaries(
        n0 in prop_oneof![3usize..12, 40usize..200], n1 in 3usize..11, steps in 1usize..10,
        picks in any::<[u8; 8]>(), periodic in any::<[bool; 2]>(), seed in 0u64..50, threads in 1usize..4,
    ) {
        let shape = [n0, n1];
        let (u, v, k) = (field(shape, seed), field(shape, seed + 5), field(shape, seed + 9));
        let (bu, bv) = (boundaries([picks[0], picks[1], picks[2], picks[3]], periodic), boundaries([picks[4], picks[5], picks[6], picks[7]], periodic));
        let params = (0.1, 0.03);
        let mut want = Rings::new(&[vec![u.clone()], vec![v.clone()]]);
        want.run(steps, [1, 1], &[bu, bv], |levels, out| {
            let (first, second) = out.split_at_mut(1);
            Reaction.apply((levels[0], levels[1], &k), (&mut first[0], &mut second[0]), params);
        });
        let mut state = State::from_fields([u, v]);
        let b = FieldBoundaries([bu.into(), bv.into()]);
        on_threads(threads, |parallel| {
            #[cfg(feature = "rayon")]
            if parallel {
                return Reaction.par_apply_steps_with(&mut state, steps, &k, params, b);
            }
            let _ = parallel;
            Reaction.apply_steps_with(&mut state, steps, &k, params, b);
        });
        same(state, &want)?;
    }
}

/// The fields of a system must agree on which axes wrap around.
#[test]
fn fields_periodic_on_different_axes_are_refused() {
    let mut state = State::from_fields([Array::<f64, 2>::zeros([8, 8]), Array::zeros([8, 8])]);
    let b = FieldBoundaries([[Boundary::Periodic; 2].into(), [Boundary::Neumann; 2].into()]);
    let e = Reaction.try_apply_steps_with(&mut state, 2, &Array::zeros([8, 8]), (0.1, 0.1), b).unwrap_err();
    assert!(e.to_string().contains("axis 0 is periodic for some fields of the system and not for others"), "{e}");
}

/// A state's arrays must agree: one shape, one device.
#[test]
fn a_state_of_arrays_of_different_shapes_is_refused() {
    let e = State::<f64, 2, 2, 1>::try_from_levels([[Array::zeros([4, 4])], [Array::zeros([4, 5])]]).err().unwrap();
    assert!(matches!(e, cnda::Error::ShapeMismatch { .. }), "{e}");
}

/// Rotating by hand: the scratch becomes the newest level, the oldest level the scratch.
#[test]
fn rotating_moves_no_data() {
    let levels = [Array::<f64, 1>::full([3], 1.0), Array::full([3], 2.0)];
    let mut state = State::from_levels([levels]);
    state.scratch_mut(0).fill(3.0);
    state.rotate();
    assert_eq!((state.field(0)[[0]], state.level(0, 1)[[0]]), (3.0, 1.0));
    assert_eq!(state.scratch_mut(0)[[0]], 2.0);
    let [u] = state.into_fields();
    assert_eq!(u[[1]], 3.0);
}

/// A state that owns its halo (`from_interiors`) steps as the same state padded by hand, its
/// coefficient field given unpadded where the stencil reads it only at the point; the columns
/// its rows of whole cache lines add past the padded array stay zero.
#[test]
fn a_state_owning_its_halo_steps_as_one_padded_by_hand() {
    use cnda::stencil::{pad_axes, PadMode};
    for (shape, steps, periodic) in [([7, 9], 5, false), ([60, 11], 9, true), ([3, 3], 2, false)] {
        let (u, um) = (field(shape, 1), field(shape, 2));
        let m = field(shape, 3).map(|x| 1.0 + 0.2 * x);
        let zero = [PadMode::Constant(0.0); 2];
        let b = if periodic { [Boundary::Periodic; 2] } else { [Boundary::Neumann; 2] };
        let mut by_hand = State::from_levels([[pad_axes(&u, [2, 2], zero), pad_axes(&um, [2, 2], zero)]]);
        Wave.apply_steps_with(&mut by_hand, steps, &pad_axes(&m, [2, 2], zero), (0.05,), b);
        let mut owning = State::from_interior_levels([[u, um]], [2, 2]);
        assert_eq!(owning.halo(), Some([2, 2]));
        Wave.apply_steps_with(&mut owning, steps, &m, (0.05,), b);
        let cols = shape[1] + 4;
        for l in 0..2 {
            let storage = owning.level(0, l);
            assert_eq!(storage.shape(), [shape[0] + 4, cols.next_multiple_of(8)], "rows of whole lines of f64");
            assert_eq!(&storage.slice(s![.., ..cols as isize]).to_owned(), by_hand.level(0, l), "{shape:?} level {l}");
            assert!(storage.slice(s![.., cols as isize..]).iter().all(|&x| x == 0.0), "nothing past the rows");
            assert_eq!(owning.interior_level(0, l).shape(), shape);
        }
        assert_eq!(owning.interior(0).to_owned(), by_hand.level(0, 0).slice(s![2..-2, 2..-2]).to_owned());
        assert_eq!(&owning.padded(0).to_owned(), by_hand.field(0), "{shape:?}: the padded array, halo too");
        // A halo refilled by hand through `padded_mut` wraps within the padded array.
        let modes = [PadMode::Periodic; 2];
        owning.padded_mut(0).map_inplace(|x| *x = f64::NAN);
        let mut inner = owning.padded_mut(0);
        inner.slice_mut(s![2..-2, 2..-2]).assign(&by_hand.level(0, 0).slice(s![2..-2, 2..-2]));
        cnda::stencil::fill_halo(owning.padded_mut(0), [2, 2], modes);
        let want = pad_axes(by_hand.level(0, 0).slice(s![2..-2, 2..-2]), [2, 2], modes);
        assert_eq!(owning.padded(0).to_owned(), want, "{shape:?}: a periodic refill by hand");
        assert!(owning.field(0).slice(s![.., cols as isize..]).iter().all(|&x| x == 0.0), "the columns untouched");
    }
}

/// A state owning its halo lays every array of its rings, the scratch too, in rows of whole
/// cache lines with each row's interior starting one, through every rotation.
#[test]
fn a_state_owning_its_halo_starts_every_interior_row_on_a_cache_line() {
    let inner = || Array::<f32, 2>::from_fn([13, 26], |[i, j]| (i * 26 + j) as f32);
    let mut state = State::from_interior_levels([[inner(), inner()]], [2, 2]);
    let line = |x: &f32| x as *const f32 as usize % 64;
    for step in 0..4 {
        for i in 0..13 {
            for l in 0..2 {
                assert_eq!(line(&state.interior_level(0, l)[[i, 0]]), 0, "step {step} level {l} row {i}");
            }
            assert_eq!(line(&state.scratch_mut(0)[[i + 2, 2]]), 0, "step {step} scratch row {i}");
        }
        state.rotate();
    }
    assert_eq!(state.interior(0).to_owned(), inner());
}

/// An array swapped into a state (`field_mut`) is stepped whole, so one of another shape than
/// the others is refused as ever: the steppers narrow only the arrays a state built in rows of
/// whole cache lines (one of the padded shape itself steps beside them).
#[test]
fn an_array_of_another_shape_swapped_in_is_refused() {
    let heat = stencil!(|u; a: T| u[0, 0] + a * laplace(u, 2));
    for swapped in [[6, 2], [8, 40], [8, 16], [8, 7]] {
        let mut owning = State::from_interiors([Array::<f32, 2>::ones([6, 5])], [1, 1]);
        assert_eq!(owning.field(0).shape(), [8, 16]);
        *owning.field_mut(0) = Array::ones(swapped);
        let stepped = heat.try_apply_steps_with(&mut owning, 2, (), (0.1,), [Boundary::Fixed; 2]);
        match swapped {
            [8, 7] | [8, 16] => {
                stepped.unwrap();
                assert_eq!(owning.interior(0).shape(), [6, 5], "{swapped:?}");
            }
            _ => assert!(matches!(stepped.unwrap_err(), cnda::Error::ShapeMismatch { .. }), "{swapped:?}"),
        }
        let mut plain = State::from_fields([Array::<f32, 2>::ones([6, 5])]);
        *plain.scratch_mut(0) = Array::zeros(swapped);
        let e = heat.try_apply_steps_with(&mut plain, 2, (), (0.1,), [Boundary::Fixed; 2]).unwrap_err();
        assert!(matches!(e, cnda::Error::ShapeMismatch { .. }), "{swapped:?}: {e}");
    }
}

/// A state owning a halo other than the stencil's radius, or a coefficient field of the
/// interior's shape that the stencil reads off the point, is refused before any step.
#[test]
fn an_owned_halo_must_be_the_radius() {
    let inner = || Array::<f64, 2>::ones([6, 6]);
    let mut state = State::from_interior_levels([[inner(), inner()]], [1, 2]);
    let e = Wave.try_apply_steps_with(&mut state, 2, &inner(), (0.1,), [Boundary::Fixed; 2]).unwrap_err();
    assert!(e.to_string().contains("owns a halo of [1, 2] points but the stencil's radius is [2, 2]"), "{e}");
    let shifted = stencil!(|u, k; a: T| u[0, 0] + a * (k[1, 0] - u[0, 1]));
    let mut state = State::from_interiors([inner()], [1, 1]);
    let e = shifted.try_apply_steps_with(&mut state, 2, &inner(), (0.1,), [Boundary::Fixed; 2]).unwrap_err();
    assert!(
        e.to_string().contains(
            "coefficient field `k` has the interior's shape [6, 6], but the stencil reads it at offset [1, 0]"
        ),
        "{e}"
    );
    let e =
        shifted.try_apply_steps_with(&mut state, 2, &Array::ones([7, 7]), (0.1,), [Boundary::Fixed; 2]).unwrap_err();
    assert!(matches!(e, cnda::Error::ShapeMismatch { .. }), "{e}");
    assert!(state.interior(0).iter().all(|&x| x == 1.0), "nothing ran");
}
