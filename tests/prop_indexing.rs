//! Property tests: on random shapes of rank 1 to 4 (empty and unit axes included), every access
//! path agrees with a naive row-major offset model, and out-of-range indices never succeed.

use cnda::prelude::*;
use proptest::prelude::*;

fn naive_offset(index: &[usize], shape: &[usize]) -> usize {
    index.iter().zip(shape).fold(0, |acc, (&i, &n)| acc * n + i)
}

fn check_rank<const N: usize>(shape: [usize; N], probes: &[[usize; N]]) {
    let len: usize = shape.iter().product();
    let a = Array::from_shape_vec(shape, (0..len as u32).collect()).unwrap().with_check::<Checked>();
    let strided = a.view().into_strided();
    for &index in probes {
        let inside = index.iter().zip(&shape).all(|(&i, &n)| i < n);
        if inside {
            let expected = naive_offset(&index, &shape) as u32;
            assert_eq!(a[index], expected);
            assert_eq!(strided[index], expected);
            assert_eq!(a.at(index), Ok(&expected));
            assert_eq!(a.get(index), Some(&expected));
        } else {
            let axis = (0..N).find(|&k| index[k] >= shape[k]).unwrap();
            assert_eq!(a.at(index), Err(Error::IndexOutOfBounds { axis, index: index[axis], size: shape[axis] }));
            assert_eq!(strided.get(index), None);
            assert!(std::panic::catch_unwind(|| a[index]).is_err());
        }
    }
}

fn shape_and_probes<const N: usize>() -> impl Strategy<Value = ([usize; N], Vec<[usize; N]>)> {
    proptest::array::uniform::<_, N>(0usize..6).prop_flat_map(|shape| {
        let probe = proptest::array::uniform::<_, N>(0usize..8);
        (Just(shape), proptest::collection::vec(probe, 1..24))
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn rank1_matches_the_naive_offset((shape, probes) in shape_and_probes::<1>()) {
        check_rank(shape, &probes);
    }

    #[test]
    fn rank2_matches_the_naive_offset((shape, probes) in shape_and_probes::<2>()) {
        check_rank(shape, &probes);
    }

    #[test]
    fn rank3_matches_the_naive_offset((shape, probes) in shape_and_probes::<3>()) {
        check_rank(shape, &probes);
    }

    #[test]
    fn rank4_matches_the_naive_offset((shape, probes) in shape_and_probes::<4>()) {
        check_rank(shape, &probes);
    }

    #[test]
    fn unchecked_access_stays_in_memory(shape in proptest::array::uniform::<_, 2>(0usize..6),
                                        index in proptest::array::uniform::<_, 2>(0usize..10)) {
        let len: usize = shape.iter().product();
        let a = Array::from_shape_vec(shape, (0..len as u32).collect()).unwrap().with_check::<Unchecked>();
        let offset = naive_offset(&index, &shape);
        let got = std::panic::catch_unwind(|| a[index]);
        let in_bounds = index[0] < shape[0] && index[1] < shape[1];
        if in_bounds || (offset < len && !Unchecked::PER_AXIS) {
            // An element of this array: the right one, or (release, wrong axis) the one at that
            // flat offset of the same dense array.
            prop_assert_eq!(got.unwrap(), offset as u32);
        } else {
            prop_assert!(got.is_err());
        }
    }
}
