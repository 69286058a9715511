//! Padded row-major arrays: rows on 64-byte boundaries, indexing that skips the padding, views
//! that keep the layout, and stencil sweeps that match unpadded ones.

use cnda::prelude::*;
use cnda::stencil::{self, Window2};

fn padded(shape: [usize; 2]) -> Array<f64, 2, Cpu, Padded> {
    Array::try_from_fn_padded_in(&Cpu, shape, |[i, j]| (i * 1000 + j) as f64).unwrap()
}

#[test]
fn rows_start_on_cache_lines_and_indexing_skips_padding() {
    let a = padded([5, 13]);
    assert_eq!(a.pitch(), 16);
    assert_eq!(a.strides(), [16, 1]);
    assert!(!a.is_contiguous());
    for (i, row) in a.rows().enumerate() {
        assert_eq!(row.as_ptr() as usize % 64, 0, "row {i} is cache-line aligned");
        assert_eq!(row.len(), 13);
        assert_eq!(row[12], (i * 1000 + 12) as f64);
    }
    for i in 0..5 {
        for j in 0..13 {
            assert_eq!(a[[i, j]], (i * 1000 + j) as f64);
            assert_eq!(a.at([i, j]), Ok(&((i * 1000 + j) as f64)));
        }
    }
    assert!(a.at([0, 13]).is_err(), "the padding is not an element");
    let b = Array::from_fn([5, 13], |[i, j]| (i * 1000 + j) as f64);
    assert_eq!(a, b);
    assert_eq!(a.contiguous().as_slice(), b.as_slice());
}

#[test]
fn unchecked_access_on_padded_arrays_checks_every_axis() {
    let a = padded([3, 5]).with_check::<Unchecked>();
    // Pitch 8: column 6 of row 0 is padding and column 9 would land on row 1; a flat test
    // cannot tell either from an element, so `Unchecked` checks every axis on `Padded`.
    assert_eq!(a.pitch(), 8);
    assert_eq!(a[[1, 4]], 1004.0);
    assert!(std::panic::catch_unwind(|| a[[0, 6]]).is_err(), "padding");
    assert!(std::panic::catch_unwind(|| a[[0, 9]]).is_err(), "the next row");
    assert!(std::panic::catch_unwind(|| a[[2, 9]]).is_err(), "past the last row's elements");
}

#[test]
fn row_ranges_keep_the_padded_layout() {
    let a = padded([6, 10]);
    let rows: ArrayView<f64, 2, Padded> = a.slice(s![2..4, ..]);
    assert_eq!(rows.shape(), [2, 10]);
    assert_eq!(rows[[1, 9]], 3009.0);
    let cols: ArrayView<f64, 2, Strided> = a.slice(s![.., 1..3]);
    assert_eq!(cols[[5, 1]], 5002.0);
    let mut m = padded([4, 4]);
    for row in m.rows_mut() {
        row.fill(1.0);
    }
    assert_eq!(m.sum(), 16.0);
    let p3 = Array::<u8, 3, Cpu, Padded>::try_zeros_padded_in(&Cpu, [2, 3, 5]).unwrap();
    assert_eq!((p3.pitch(), p3.strides()), (64, [192, 64, 1]));
}

#[test]
fn stencil_on_padded_grid_matches_unpadded() {
    let jacobi = |o: &mut f64, w: Window2<'_, f64, 1>| *o = 0.25 * (w[(-1, 0)] + w[(1, 0)] + w[(0, -1)] + w[(0, 1)]);
    let u = padded([31, 45]);
    let mut v = Array::<f64, 2, Cpu, Padded>::try_zeros_padded_in(&Cpu, [31, 45]).unwrap();
    stencil::sweep2::<1, _, _, _, _, _>(u.view(), v.view_mut(), jacobi);
    let uu = u.to_owned();
    let mut vv = Array::<f64, 2>::zeros([31, 45]);
    stencil::sweep2::<1, _, _, _, _, _>(uu.view(), vv.view_mut(), jacobi);
    assert_eq!(v, vv);
}

#[test]
fn padded_arrays_come_from_pools_too() {
    let pool = Pool::new();
    let a = Array::<f32, 2, Cpu, Padded>::try_from_fn_padded_in(&pool, [3, 3], |[i, j]| (i + j) as f32).unwrap();
    assert_eq!(a.pitch(), 16);
    assert_eq!(a.sum(), 18.0);
    assert_eq!(pool.stats().allocations, 1);
}

#[test]
fn transposes_of_padded_arrays_reverse_the_strides() {
    let a = padded([3, 5]);
    let t = a.t();
    assert_eq!((t.shape(), t.strides()), ([5, 3], [1, 8]));
    for ([i, j], &x) in t.indexed_iter() {
        assert_eq!(x, a[[j, i]]);
    }
    assert_eq!(t.t().strides(), a.strides());
}
