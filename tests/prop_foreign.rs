//! Property tests of views over foreign strided memory (`from_slice_strided`): random shapes,
//! strides (zero and negative included) and offsets over a small slice, against a model that
//! enumerates every index. Accepted views read exactly the elements the model names (under ASan in
//! scripts/test, so a view that reached outside would abort); refused ones reach outside, and
//! mutable views are refused whenever two indices share an element.

use cnda::prelude::*;
use proptest::prelude::*;

/// The flat position of every index of `shape` in row-major order, or `None` when one falls
/// outside `0..len`.
fn model(shape: &[usize], strides: &[isize], offset: usize, len: usize) -> Option<Vec<usize>> {
    let count: usize = shape.iter().product();
    let mut out = Vec::with_capacity(count);
    for flat in 0..count {
        let mut rest = flat;
        let mut at = offset as i128;
        for k in (0..shape.len()).rev() {
            at += (rest % shape[k]) as i128 * strides[k] as i128;
            rest /= shape[k];
        }
        if at < 0 || at >= len as i128 {
            return None;
        }
        out.push(at as usize);
    }
    Some(out)
}

fn case() -> impl Strategy<Value = (Vec<usize>, Vec<isize>, usize, usize)> {
    (1usize..=3).prop_flat_map(|rank| {
        (
            proptest::collection::vec(0usize..5, rank),
            proptest::collection::vec(-7isize..8, rank),
            0usize..40,
            0usize..40,
        )
    })
}

fn check<const N: usize>(shape: &[usize], strides: &[isize], offset: usize, len: usize) -> Result<(), TestCaseError> {
    let data: Vec<u32> = (0..len as u32).collect();
    let (shape, strides): ([usize; N], [isize; N]) = (shape.try_into().unwrap(), strides.try_into().unwrap());
    let want = model(&shape, &strides, offset, len);
    let view = ArrayView::from_slice_strided(shape, strides, offset, &data);
    match (&want, &view) {
        (Some(positions), Ok(view)) => {
            let got: Vec<u32> = view.iter().copied().collect();
            prop_assert_eq!(got, positions.iter().map(|&p| p as u32).collect::<Vec<_>>());
        }
        (None, Err(e)) => prop_assert!(e.to_string().contains("outside the"), "{e}"),
        _ => prop_assert!(false, "model says {:?}, view says {:?}", want.is_some(), view.is_ok()),
    }
    let mut data = data;
    let unique = want.as_ref().is_some_and(|p| {
        let mut sorted = p.clone();
        sorted.sort_unstable();
        sorted.windows(2).all(|w| w[0] != w[1])
    });
    if let Ok(mut view) = ArrayViewMut::from_slice_strided(shape, strides, offset, &mut data) {
        prop_assert!(unique, "a mutable view was made with two indices on one element");
        view.map_inplace(|x| *x += 1000);
        let positions = want.unwrap();
        for (k, x) in data.iter().enumerate() {
            prop_assert_eq!(*x >= 1000, positions.contains(&k));
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2048))]

    #[test]
    fn views_of_foreign_memory_reach_exactly_the_model((shape, strides, offset, len) in case()) {
        match shape.len() {
            1 => check::<1>(&shape, &strides, offset, len)?,
            2 => check::<2>(&shape, &strides, offset, len)?,
            _ => check::<3>(&shape, &strides, offset, len)?,
        }
    }
}

#[test]
fn dense_permutations_are_writable() {
    let mut data = vec![0u32; 24];
    // A transposed, flipped 2 x 3 x 4 block.
    let mut v = ArrayViewMut::from_slice_strided([4, 3, 2], [-1, 4, 12], 3, &mut data).unwrap();
    v[[0, 0, 0]] = 7;
    assert_eq!(data[3], 7);
}
