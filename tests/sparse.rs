//! CSR matrices on the CPU: construction checked against a dense reference (naive loops), the
//! matrix of a stencil against the stencil's own `apply` for every boundary condition, `spmv`
//! against a dense product on random matrices (proptest), Matrix Market files read and written
//! (round trips, symmetric storage, the refusals), and the matrix as the solvers' operator.

use cnda::prelude::*;
use cnda::solve::{Cg, LinearOperator, StencilOperator};
use cnda::sparse::CsrMatrix;
use cnda::stencil::{Boundary, DynStencil, LinearStencil};
use cnda::Error;
use proptest::prelude::*;

#[path = "common/dense.rs"]
mod dense;

/// `m x` by a naive loop.
fn dense_product(m: &Array<f64, 2>, x: &[f64]) -> Vec<f64> {
    let [rows, cols] = m.shape();
    (0..rows).map(|i| (0..cols).map(|j| m[[i, j]] * x[j]).sum()).collect()
}

#[test]
fn triplets_sum_duplicates_and_sort_each_rows_columns() {
    let a = CsrMatrix::from_triplets([3, 4], &[(2, 3, 1.0), (0, 1, 2.0), (2, 0, -1.0), (0, 1, 0.5), (1, 2, 0.0)]);
    assert_eq!(a.shape(), [3, 4]);
    assert_eq!(a.offsets().as_slice(), &[0, 1, 2, 4]);
    assert_eq!(a.columns().as_slice(), &[1, 2, 0, 3]);
    assert_eq!(a.values().as_slice(), &[2.5, 0.0, -1.0, 1.0]); // an explicit zero is kept, as SciPy does
    let d = a.try_to_dense().unwrap();
    assert_eq!(d.as_slice(), &[0.0, 2.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -1.0, 0.0, 0.0, 1.0]);
    let empty = CsrMatrix::<f64>::from_triplets([2, 0], &[]);
    let mut y = Array::full([2], 7.0);
    empty.spmv(&Array::zeros([0]), &mut y);
    assert_eq!(y.as_slice(), &[0.0, 0.0]);
}

#[test]
fn malformed_parts_are_refused_with_the_reason() {
    let refuse = |offsets: Vec<i32>, columns: Vec<i32>, values: Vec<f64>, says: &str| {
        let e = CsrMatrix::try_from_parts([2, 3], offsets, columns, values).unwrap_err();
        assert!(matches!(e, Error::Parameter { .. }) && e.to_string().contains(says), "{e}");
    };
    refuse(vec![0, 1], vec![0], vec![1.0], "2 offsets for 2 rows");
    refuse(vec![0, 1, 1], vec![0], vec![1.0, 2.0], "1 columns but 2 values");
    refuse(vec![1, 1, 1], vec![0], vec![1.0], "from 1 to 1");
    refuse(vec![0, 2, 1], vec![0], vec![1.0], "the offsets decrease after row 1 (2 then 1)");
    refuse(vec![0, 1, 2], vec![0, 3], vec![1.0, 2.0], "column 3, outside 0..3");
    refuse(vec![0, 1, 2], vec![0, -1], vec![1.0, 2.0], "column -1");
    let e = CsrMatrix::try_from_parts([2, 2], vec![0, 2, 1], vec![0, 1], vec![1.0, 2.0]);
    assert!(e.unwrap_err().to_string().contains("run from 0 to 1, not from 0 to the 2 entries"));
    let e = CsrMatrix::try_from_triplets([2, 2], &[(2, 0, 1.0)]).unwrap_err();
    assert!(e.to_string().contains("(2, 0) lies outside the 2 x 2 matrix"), "{e}");
    let e = CsrMatrix::<f64>::try_from_triplets([1usize << 31, 1], &[]).unwrap_err();
    assert!(e.to_string().contains("32-bit"), "{e}");
    let a = CsrMatrix::from_triplets([2, 3], &[(0, 0, 1.0)]);
    let e = a.try_spmv(&Array::zeros([2]), &mut Array::zeros([2])).unwrap_err();
    assert!(matches!(e, Error::ShapeMismatch { .. }), "{e}");
}

/// The matrix of a stencil reproduces the stencil's `apply` on random arrays, for every
/// boundary condition and mixes of them, including corner taps (9 points) and radius 2.
#[test]
fn the_matrix_of_a_stencil_applies_as_the_stencil_does() {
    let nine = DynStencil::new([
        ([-1, -1], 0.25),
        ([-1, 0], 1.0),
        ([-1, 1], 0.5),
        ([0, -1], 2.0),
        ([0, 0], -6.0),
        ([0, 1], 1.5),
        ([1, -1], 0.75),
        ([1, 0], 1.25),
        ([1, 1], -0.5),
        ([2, 0], 0.125),
        ([0, -2], 0.375),
    ]);
    let shape = [9, 7];
    let zero = Boundary::Value(0.0);
    let sides: [[[Boundary<f64>; 2]; 2]; 6] = [
        [[zero; 2]; 2],
        [[Boundary::Periodic; 2]; 2],
        [[Boundary::Neumann; 2]; 2],
        [[Boundary::Periodic; 2], [Boundary::Neumann; 2]],
        [[Boundary::Neumann, zero], [Boundary::Periodic; 2]],
        [[Boundary::Fixed, Boundary::Neumann], [Boundary::Periodic; 2]],
    ];
    for sides in sides {
        let op = StencilOperator::new(nine.clone(), shape, sides);
        let a = CsrMatrix::from_stencil(&op);
        assert_eq!(a.shape(), [63, 63]);
        let x = Array::from_shape_vec(shape, dense::random_vec(63, 11)).unwrap();
        // The operator fills the halo of a padded copy, as the solvers do.
        let halo = LinearOperator::<f64, 2, Cpu>::halo(&op);
        let mut padded = Array::zeros([shape[0] + 2 * halo[0], shape[1] + 2 * halo[1]]);
        padded.slice_mut(s![halo[0]..halo[0] + shape[0], halo[1]..halo[1] + shape[1]]).assign(&x);
        let mut out = Array::zeros(padded.shape());
        op.try_apply(&mut padded, &mut out).unwrap();
        let expected = out.slice(s![halo[0]..halo[0] + shape[0], halo[1]..halo[1] + shape[1]]).to_owned();
        let mut y = Array::zeros([63]);
        a.spmv(&Array::from_shape_vec([63], x.iter().copied().collect()).unwrap(), &mut y);
        let worst = y.iter().zip(expected.iter()).fold(0f64, |m, (p, q)| m.max((p - q).abs()));
        assert!(worst <= 1e-13, "{sides:?}: {worst}");
        // And it equals the dense matrix the test's own assembly builds for the simple cases.
        if sides.iter().all(|s| s[0] == s[1] && s[0] != Boundary::Fixed) {
            let edge = |b: Boundary<f64>| match b {
                Boundary::Periodic => dense::Edge::Wrap,
                Boundary::Neumann => dense::Edge::Mirror,
                _ => dense::Edge::Zero,
            };
            let taps: Vec<([isize; 2], f64)> = nine.taps().to_vec();
            let m = dense::assemble(&taps, shape, [edge(sides[0][0]), edge(sides[1][0])]);
            let d = a.try_to_dense().unwrap();
            assert!((0..63).all(|i| (0..63).all(|j| (d[[i, j]] - m[i][j]).abs() <= 1e-15)), "{sides:?}");
        }
    }
}

#[test]
fn a_matrix_solves_as_its_stencil_does() {
    let shape = [15, 13, 11];
    let op = StencilOperator::new(LinearStencil::laplacian_7pt(0.1), shape, [Boundary::Value(0.0); 3]);
    let a = CsrMatrix::from_stencil(&op);
    assert_eq!(a.nnz(), 7 * 15 * 13 * 11 - 2 * (13 * 11 + 15 * 11 + 15 * 13));
    let b = Array::from_fn(shape, |[i, j, k]| ((i * 7 + j * 3 + k) % 5) as f64 - 2.0);
    let (mut x, mut y) = (Array::zeros(shape), Array::zeros(shape));
    let by_matrix = Cg::new().rtol(1e-12).solve(&a.on_grid(shape), &b, &mut x);
    let by_stencil = Cg::new().rtol(1e-12).solve(&op, &b, &mut y);
    assert_eq!(by_matrix.iterations, by_stencil.iterations);
    assert!(x.iter().zip(y.iter()).all(|(p, q)| (p - q).abs() <= 1e-10));
    // On vectors too.
    let flat_b = Array::from_shape_vec([b.len()], b.iter().copied().collect()).unwrap();
    let mut flat_x = Array::zeros([b.len()]);
    Cg::new().rtol(1e-12).solve(&a, &flat_b, &mut flat_x);
    assert!(flat_x.iter().zip(x.iter()).all(|(p, q)| (p - q).abs() <= 1e-10));
    let e = a.try_on_grid([15, 13, 12]).unwrap_err();
    assert!(matches!(e, Error::ShapeMismatch { .. }), "{e}");
}

#[test]
fn matrix_market_files_round_trip_exactly() {
    let dir = std::env::temp_dir().join(format!("cnda-market-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let op = StencilOperator::new(
        DynStencil::new([([-1, 0], 1.0 / 3.0), ([0, 0], -2.5e-7), ([0, 1], 1e300), ([1, 1], -0.1)]),
        [6, 5],
        [Boundary::Periodic, Boundary::Neumann],
    );
    let a = CsrMatrix::from_stencil(&op);
    let path = dir.join("a.mtx");
    a.write_matrix_market(&path);
    let back = CsrMatrix::<f64>::read_matrix_market(&path);
    assert_eq!(back.shape(), a.shape());
    assert_eq!(back.offsets().as_slice(), a.offsets().as_slice());
    assert_eq!(back.columns().as_slice(), a.columns().as_slice());
    assert_eq!(back.values().as_slice(), a.values().as_slice());
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.starts_with("%%MatrixMarket matrix coordinate real general\n"), "{text}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn matrix_market_symmetric_pattern_and_skew_storage_expand() {
    let read = |text: &str| CsrMatrix::<f64>::try_read_matrix_market_from(text.as_bytes());
    let pattern = read("%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n2 1\n3 3\n").unwrap();
    assert_eq!(pattern.try_to_dense().unwrap().as_slice(), &[0.0, 1.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0]);
    let skew = read("%%MatrixMarket matrix coordinate integer skew-symmetric\n%\n\n2 2 1\n2 1 3\n").unwrap();
    assert_eq!(skew.try_to_dense().unwrap().as_slice(), &[0.0, -3.0, 3.0, 0.0]);
    let cases = [
        ("", "empty"),
        ("%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", "array format"),
        ("%%MatrixMarket vector coordinate real general\n", "not a Matrix Market matrix"),
        ("%%MatrixMarket matrix coordinate real general\n2 2\n", "rows, columns and entries"),
        ("%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 1.0\n", "index 3 outside 1..=2"),
        ("%%MatrixMarket matrix coordinate real general\n2 2 1\n0 1 1.0\n", "index 0"),
        ("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1.0\n", "1 entries follow"),
        ("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1.0\n2 2 1.0\n", "more entries"),
        ("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 x\n", "value \"x\""),
        ("%%MatrixMarket matrix coordinate real symmetric\n2 3 0\n", "cannot be stored symmetric"),
        ("%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n1 1 2\n", "zero diagonal"),
        ("%%MatrixMarket matrix coordinate pattern skew-symmetric\n2 2 0\n", "no signs"),
        ("%%MatrixMarket matrix coordinate real general\n% only a comment\n", "line 3: no size line"),
    ];
    for (text, says) in cases {
        let e = read(text).unwrap_err();
        assert!(matches!(e, Error::Io { .. }) && e.to_string().contains(says), "{text:?}: {e}");
    }
    let e = read("%%MatrixMarket matrix coordinate complex general\n1 1 0\n").unwrap_err();
    assert!(matches!(e, Error::UnsupportedDType { .. }), "{e}");
    let missing = CsrMatrix::<f64>::try_read_matrix_market("/nonexistent/cnda.mtx").unwrap_err();
    assert!(missing.to_string().contains("/nonexistent/cnda.mtx"), "{missing}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Random sparse matrices from random triplets (repeats included): `spmv` equals the dense
    /// product of the matrix the triplets sum to, and the Matrix Market text reads back the same.
    #[test]
    fn spmv_is_the_dense_product_of_the_summed_triplets(
        rows in 0usize..12,
        cols in 0usize..12,
        entries in proptest::collection::vec((0usize..12, 0usize..12, -4i32..5), 0..40),
        seed in any::<u64>(),
    ) {
        let triplets: Vec<(usize, usize, f64)> = entries
            .iter()
            .filter(|&&(r, c, _)| r < rows && c < cols)
            .map(|&(r, c, v)| (r, c, v as f64 * 0.5))
            .collect();
        let mut reference = Array::<f64, 2>::zeros([rows, cols]);
        for &(r, c, v) in &triplets {
            reference[[r, c]] += v;
        }
        let a = CsrMatrix::from_triplets([rows, cols], &triplets);
        prop_assert_eq!(a.try_to_dense().unwrap(), reference.clone());
        let x = dense::random_vec(cols, seed);
        let mut y = Array::full([rows], f64::NAN);
        a.spmv(&Array::from_shape_vec([cols], x.clone()).unwrap(), &mut y);
        let expected = dense_product(&reference, &x);
        prop_assert!(y.iter().zip(&expected).all(|(p, q)| (p - q).abs() <= 1e-12));
        let mut text = Vec::new();
        a.try_write_matrix_market_to(&mut text).unwrap();
        let back = CsrMatrix::<f64>::try_read_matrix_market_from(text.as_slice()).unwrap();
        prop_assert_eq!(back.values().as_slice(), a.values().as_slice());
        prop_assert_eq!(back.columns().as_slice(), a.columns().as_slice());
    }
}
