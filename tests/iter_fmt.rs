//! Iteration orders and NumPy-style formatting.

use cnda::prelude::*;

#[test]
fn iter_visits_row_major_order_for_every_layout() {
    let c = Array::from_fn([2, 3], |[i, j]| 10 * i + j);
    let f = Array::<usize, 2, Cpu, ColMajor>::try_from_fn_in(&Cpu, [2, 3], |[i, j]| 10 * i + j).unwrap();
    let expected = vec![0, 1, 2, 10, 11, 12];
    assert_eq!(c.iter().copied().collect::<Vec<_>>(), expected);
    assert_eq!(f.iter().copied().collect::<Vec<_>>(), expected);
    assert_eq!(f.view().into_strided().iter().copied().collect::<Vec<_>>(), expected);
    assert_eq!(f.iter().len(), 6);
    assert_eq!(f.iter().fold(0, |acc, &x| acc * 3 + x), expected.iter().fold(0, |acc, &x| acc * 3 + x));
}

#[test]
fn iter_mut_writes_every_element_once() {
    let mut f = Array::<i32, 2, Cpu, ColMajor>::try_zeros_in(&Cpu, [3, 2]).unwrap();
    for (k, x) in f.iter_mut().enumerate() {
        *x += k as i32;
    }
    assert_eq!(f.as_slice(), &[0, 2, 4, 1, 3, 5]);
    let mut c = Array::<i32, 2>::zeros([2, 2]);
    c.iter_mut().for_each(|x| *x += 1);
    c.fill(9);
    assert!(c.iter().all(|&x| x == 9));
}

#[test]
fn indexed_iter_pairs_indices_with_elements() {
    let a = Array::from_fn([2, 2, 2], |[i, j, k]| 4 * i + 2 * j + k);
    let pairs: Vec<_> = a.indexed_iter().map(|(ix, &x)| (ix, x)).collect();
    assert_eq!(pairs.len(), 8);
    assert_eq!(pairs[5], ([1, 0, 1], 5));
    assert!(pairs.iter().all(|(ix, x)| a[*ix] == *x));
}

#[test]
fn rows_are_slices_of_the_last_axis() {
    let mut a = Array::from_fn([2, 2, 3], |[i, j, k]| 100 * i + 10 * j + k);
    let rows: Vec<&[usize]> = a.rows().collect();
    assert_eq!(rows, vec![&[0, 1, 2][..], &[10, 11, 12], &[100, 101, 102], &[110, 111, 112]]);
    for row in a.rows_mut() {
        row[0] = 0;
    }
    assert_eq!(a[[1, 1, 0]], 0);
    assert_eq!(a[[1, 1, 1]], 111);
}

#[test]
fn display_nests_brackets_and_aligns_columns() {
    let a = Array::from_shape_vec([2, 3], vec![1.5, -20.0, 3.0, 4.0, 5.25, 600.0]).unwrap();
    assert_eq!(a.to_string(), "[[ 1.5,  -20,    3],\n [   4, 5.25,  600]]");
    assert_eq!(format!("{:.2}", a), "[[  1.50, -20.00,   3.00],\n [  4.00,   5.25, 600.00]]");
    let b = Array::from_fn([2, 2, 2], |[i, j, k]| 4 * i + 2 * j + k);
    assert_eq!(b.to_string(), "[[[0, 1],\n  [2, 3]],\n\n [[4, 5],\n  [6, 7]]]");
    assert_eq!(Array::<f32, 1>::zeros([0]).to_string(), "[]");
}

#[test]
fn large_arrays_print_summarized() {
    let a = Array::from_fn([100, 100], |[i, j]| i * 100 + j);
    let s = a.to_string();
    let lines: Vec<&str> = s.lines().collect();
    assert_eq!(lines.len(), 7, "3 rows, a gap line, 3 rows:\n{s}");
    assert_eq!(lines[0], "[[   0,    1,    2, ...,   97,   98,   99],");
    assert_eq!(lines[3], " ...,");
    assert_eq!(lines[6], " [9900, 9901, 9902, ..., 9997, 9998, 9999]]");
    // Small arrays are never summarized.
    assert!(!Array::<u8, 1>::zeros([1000]).to_string().contains("..."));
}

#[test]
fn debug_adds_the_type_facts() {
    let a = Array::from_fn([2, 2], |[i, j]| (i + j) as i8);
    assert_eq!(
        format!("{a:?}"),
        "[[0, 1],\n [1, 2]], shape=[2, 2], strides=[2, 1], layout=RowMajor, check=DefaultCheck, backend=Cpu"
    );
    let v = a.view().with_check::<Checked>().into_strided();
    assert!(format!("{v:?}").ends_with("layout=Strided, check=Checked, backend=Cpu"));
}
