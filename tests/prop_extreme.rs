//! Property tests with extreme values: sizes, positions and steps near `usize::MAX`,
//! `isize::MAX` and `isize::MIN`, empty and size-1 axes, for every view op, the constructors and
//! the stencil entry points. A `try_` form returns `Ok` or `Err` and never panics; an `Ok` view
//! agrees with itself (iteration, `at`, copies) and holds only elements of its source. The same
//! suite runs under AddressSanitizer in `scripts/test`.

use std::panic::{catch_unwind, AssertUnwindSafe};

use cnda::prelude::*;
use cnda::stencil::{self, PadMode};
use cnda::{AxisSlice, SliceSpec};
use proptest::prelude::*;

fn extreme_usize() -> impl Strategy<Value = usize> {
    prop_oneof![
        4 => 0usize..6,
        1 => (0usize..4).prop_map(|k| usize::MAX - k),
        1 => (0usize..4).prop_map(|k| isize::MAX as usize - k),
        1 => (0u32..64).prop_map(|k| 1usize << k),
    ]
}

fn extreme_isize() -> impl Strategy<Value = isize> {
    prop_oneof![
        4 => -6isize..6,
        1 => (0isize..4).prop_map(|k| isize::MIN + k),
        1 => (0isize..4).prop_map(|k| isize::MAX - k),
        1 => (0u32..63).prop_map(|k| -(1isize << k)),
    ]
}

fn shape3() -> impl Strategy<Value = [usize; 3]> {
    prop_oneof![
        4 => proptest::array::uniform3(0usize..5),
        // An empty axis beside a huge one, at most the largest NumPy's size rule allows for a
        // source array (the non-zero axes span isize::MAX bytes of u32); the view ops' arguments
        // stay extreme.
        1 => (0usize..3, extreme_usize()).prop_map(|(axis, n)| {
            let mut shape = [2, 3, 2];
            shape[axis] = 0;
            let others: usize = shape.iter().filter(|&&m| m != 0).product::<usize>() / shape[(axis + 1) % 3];
            shape[(axis + 1) % 3] = n.min(isize::MAX as usize / 4 / others);
            shape
        }),
    ]
}

fn source(shape: [usize; 3]) -> Array<u32, 3> {
    Array::from_fn(shape, |[i, j, k]| (i * 10_000 + j * 100 + k) as u32)
}

/// A `try_` op: must not panic.
fn no_panic<R>(what: &str, f: impl FnOnce() -> R) -> R {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|_| panic!("{what} panicked instead of returning a Result"))
}

/// Every element the view shows is the source's element at the position its value encodes, and
/// the view's own accessors agree.
fn consistent<const N: usize, L: Layout>(source: &Array<u32, 3>, v: ArrayView<'_, u32, N, L>) {
    assert_eq!(Some(v.len()), v.shape().iter().try_fold(1usize, |a, &n| a.checked_mul(n)).or(Some(0)));
    if v.len() > 10_000 {
        return;
    }
    let items: Vec<u32> = v.iter().copied().collect();
    assert_eq!(items.len(), v.len());
    for (index, &x) in v.indexed_iter() {
        assert_eq!(v.at(index), Ok(&x));
        let at = [(x / 10_000) as usize, (x / 100 % 100) as usize, (x % 100) as usize];
        assert_eq!(source.at(at), Ok(&x));
    }
    assert_eq!(v.to_owned().as_slice(), items.as_slice());
    for axis in 0..N {
        let mut past = [0; N];
        past[axis] = v.shape()[axis];
        assert!(v.at(past).is_err());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn slices_with_extreme_bounds_and_steps(shape in shape3(),
                                            items in proptest::collection::vec((extreme_isize(), proptest::option::of(extreme_isize()), extreme_isize()), 3)) {
        let a = source(shape);
        let spec = SliceSpec::<3, 3, false, false>::new(
            [0, 1, 2].map(|k| AxisSlice::Range { start: items[k].0, end: items[k].1, step: items[k].2 }),
        );
        if let Ok(v) = no_panic("try_slice", || a.try_slice(spec)) {
            consistent(&a, v);
        }
        let index = SliceSpec::<3, 2, false, false>::new([
            AxisSlice::Index(items[0].0),
            AxisSlice::Range { start: items[1].0, end: items[1].1, step: items[1].2 },
            AxisSlice::FULL,
        ]);
        if let Ok(v) = no_panic("try_slice with an index", || a.try_slice(index)) {
            consistent(&a, v);
        }
    }

    #[test]
    fn axis_ops_with_extreme_arguments(shape in shape3(), axis in extreme_usize(), other in extreme_usize(),
                                       start in extreme_usize(), len in extreme_usize()) {
        let a = source(shape);
        let v = a.view();
        if let Ok(r) = no_panic("try_narrow", || v.try_narrow(axis, start, len)) { consistent(&a, r); }
        if let Ok(r) = no_panic("try_flip", || v.try_flip(axis)) { consistent(&a, r); }
        if let Ok(r) = no_panic("try_transpose", || v.try_transpose(axis, other)) { consistent(&a, r); }
        if let Ok(r) = no_panic("try_permute", || v.try_permute([axis, other, start])) { consistent(&a, r); }
        if let Ok(r) = no_panic("try_index_axis", || v.try_index_axis::<2>(axis, start)) { consistent(&a, r); }
        if let Ok((l, r)) = no_panic("try_split_at", || v.try_split_at(axis, start)) {
            consistent(&a, l);
            consistent(&a, r);
        }
        if let Ok(r) = no_panic("try_squeeze", || v.try_squeeze::<2>(axis)) { consistent(&a, r); }
        if let Ok(r) = no_panic("try_unsqueeze", || v.try_unsqueeze::<4>(axis)) { consistent(&a, r); }
    }

    #[test]
    fn broadcasts_and_reshapes_to_extreme_shapes(shape in shape3(), target in proptest::array::uniform4(extreme_usize())) {
        let a = source(shape);
        let unit = a.view().try_narrow(0, 0, 1.min(shape[0]));
        if let Ok(unit) = unit {
            if let Ok(b) = no_panic("try_broadcast_to", || unit.try_broadcast_to(target)) { consistent(&a, b); }
        }
        if let Ok(r) = no_panic("try_reshape", || a.view().try_reshape(target)) { consistent(&a, r); }
        if let Ok(r) = no_panic("try_reshape of a transpose", || a.t().try_reshape([target[0], target[1]])) { consistent(&a, r); }
    }

    #[test]
    fn constructors_with_extreme_shapes(shape in proptest::array::uniform3(extreme_usize())) {
        let n = shape.iter().try_fold(1usize, |a, &n| a.checked_mul(n));
        // Shapes that fit in memory but are large would be allocated for real (and, under
        // overcommit, touched): only small and unrepresentable ones are tried.
        let representable = n.and_then(|n| n.checked_mul(8)).is_some_and(|b| b <= isize::MAX as usize);
        if representable && n.unwrap() > 1 << 20 {
            return Ok(());
        }
        match no_panic("try_zeros", || Array::<f64, 3>::try_zeros(shape)) {
            Ok(a) => {
                prop_assert_eq!(a.shape(), shape);
                prop_assert!(a.len() <= 1 << 20 || a.is_empty());
                prop_assert_eq!(a.iter().filter(|&&x| x != 0.0).count(), 0);
            }
            Err(e) => prop_assert!(matches!(e, Error::Overflow { .. } | Error::Alloc { .. }), "{}", e),
        }
        if n.is_none_or(|n| n > 1 << 12) {
            let r = no_panic("from_shape_vec", || Array::<u8, 3>::from_shape_vec(shape, vec![0; 16]));
            prop_assert!(r.is_err());
        }
        let padded = no_panic("try_zeros_padded_in", || Array::<f32, 3, Cpu, Padded>::try_zeros_padded_in(&Cpu, shape));
        if let Ok(p) = padded {
            prop_assert_eq!(p.shape(), shape);
        }
    }

    #[test]
    fn stencil_entry_points_with_extreme_widths(shape in proptest::array::uniform2(0usize..6), width in extreme_usize()) {
        let a = Array::from_fn(shape, |[i, j]| (i * 10 + j) as i32);
        if let Ok(inner) = no_panic("try_interior", || stencil::try_interior(a.view(), width)) {
            prop_assert_eq!(inner.shape(), shape.map(|n| n - 2 * width));
        }
        let padded_len = width.checked_mul(2).and_then(|w| w.checked_add(6)).and_then(|n| n.checked_mul(n));
        if padded_len.is_some_and(|n| n > 1 << 20) && padded_len.is_some_and(|n| n.checked_mul(4).is_some_and(|b| b <= isize::MAX as usize)) {
            // Representable but large: it would be allocated and filled for real.
            return Ok(());
        }
        for mode in [PadMode::Constant(-1), PadMode::Edge, PadMode::Reflect, PadMode::Periodic] {
            if let Ok(p) = no_panic("try_pad", || stencil::try_pad(a.view(), width, mode)) {
                prop_assert_eq!(p.shape(), shape.map(|n| n + 2 * width));
                let back = stencil::interior(p.view(), width);
                prop_assert_eq!(back.to_owned(), a.clone());
            }
        }
    }
}
