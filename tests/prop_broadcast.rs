//! Property tests of broadcasting: random shape pairs of ranks 1 to 3, compatible or not, against
//! a reference that applies NumPy's rule axis by axis.

use cnda::prelude::*;
use proptest::prelude::*;

/// NumPy's rule: align trailing axes; sizes must match or one must be 1.
fn reference_shape(a: &[usize], b: &[usize]) -> Option<Vec<usize>> {
    let k = a.len().max(b.len());
    (0..k)
        .map(|i| {
            let x = if i + a.len() >= k { a[i + a.len() - k] } else { 1 };
            let y = if i + b.len() >= k { b[i + b.len() - k] } else { 1 };
            match (x, y) {
                _ if x == y => Some(x),
                (1, _) => Some(y),
                (_, 1) => Some(x),
                _ => None,
            }
        })
        .collect()
}

/// The element of an operand of `shape` read at `index` of the broadcast result.
fn reference_at(data: &[i64], shape: &[usize], index: &[usize]) -> i64 {
    let lead = index.len() - shape.len();
    let flat = shape.iter().enumerate().fold(0, |acc, (k, &n)| acc * n + if n == 1 { 0 } else { index[lead + k] });
    data[flat]
}

fn operand<const N: usize>(shape: [usize; N], salt: i64) -> (Array<i64, N>, Vec<i64>) {
    let len: usize = shape.iter().product();
    let data: Vec<i64> = (0..len as i64).map(|k| k * 7 + salt).collect();
    (Array::from_shape_vec(shape, data.clone()).unwrap(), data)
}

fn check_pair<const N: usize, const M: usize, const K: usize>(
    sa: [usize; N],
    sb: [usize; M],
) -> Result<(), TestCaseError>
where
    Rank<N>: MaxRank<Rank<M>, Output = Rank<K>>,
{
    let (a, da) = operand(sa, 1);
    let (b, db) = operand(sb, 1000);
    match (reference_shape(&sa, &sb), a.try_add(&b)) {
        (Some(shape), Ok(sum)) => {
            prop_assert_eq!(sum.shape().to_vec(), shape.clone());
            for (index, &x) in sum.indexed_iter() {
                prop_assert_eq!(x, reference_at(&da, &sa, &index) + reference_at(&db, &sb, &index));
            }
            // Operands in other layouts (column-major, flipped views) give the same result.
            let f = a.to_layout::<ColMajor>();
            prop_assert_eq!(&f + b.flip(0).flip(0), sum);
        }
        (None, Err(e)) => prop_assert!(matches!(e, Error::BroadcastOperands { .. }), "{}", e),
        (expected, got) => prop_assert!(false, "reference {:?}, got {:?}", expected, got.map(|a| a.shape().to_vec())),
    }
    Ok(())
}

/// Axis lengths from {1, 2, 3}, so that equal, unit and clashing sizes all occur often.
fn dims<const N: usize>() -> impl Strategy<Value = [usize; N]> {
    proptest::array::uniform::<_, N>(1usize..4)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn rank2_with_rank2(a in dims::<2>(), b in dims::<2>()) { check_pair(a, b)?; }

    #[test]
    fn rank3_with_rank1(a in dims::<3>(), b in dims::<1>()) { check_pair(a, b)?; }

    #[test]
    fn rank1_with_rank3(a in dims::<1>(), b in dims::<3>()) { check_pair(a, b)?; }

    #[test]
    fn rank2_with_rank3(a in dims::<2>(), b in dims::<3>()) { check_pair(a, b)?; }

    #[test]
    fn compound_assignment_broadcasts_lower_ranks(a in dims::<3>(), b in dims::<2>()) {
        let (mut x, dx) = operand(a, 0);
        let (y, dy) = operand(b, 50);
        let compatible = reference_shape(&a, &b).is_some_and(|s| s == a.to_vec());
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| x += &y));
        prop_assert_eq!(result.is_ok(), compatible);
        if compatible {
            for (index, &v) in x.indexed_iter() {
                prop_assert_eq!(v, reference_at(&dx, &a, &index) + reference_at(&dy, &b, &index));
            }
        }
    }
}
