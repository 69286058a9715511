//! Construction: every constructor against a naive reference, and bad input as typed errors.

use cnda::prelude::*;

#[test]
fn zeros_ones_full_hold_the_promised_values() {
    let z = Array::<f64, 3>::zeros([2, 3, 4]);
    assert_eq!(z.shape(), [2, 3, 4]);
    assert_eq!(z.len(), 24);
    assert!(z.iter().all(|&x| x == 0.0));
    assert!(Array::<i32, 2>::ones([3, 3]).iter().all(|&x| x == 1));
    let f = Array::full([5], 2.5f32);
    assert_eq!(f.as_slice(), &[2.5; 5]);
    assert_eq!(Array::full([2, 2], 7u8).as_slice(), &[7, 7, 7, 7]);
}

#[test]
fn fixed_row_major_strides_and_offsets() {
    assert_eq!(Array::<f32, 3>::zeros([3, 4, 5]).strides(), [20, 5, 1]);
    assert_eq!(Array::<f32, 3>::zeros([2, 3, 4]).strides(), [12, 4, 1]);
    let a = Array::from_shape_vec([3, 4], (0..12).collect()).unwrap();
    for i in 0..3 {
        for j in 0..4 {
            assert_eq!(a[[i, j]], i * 4 + j, "element ({i}, {j}) sits at offset i*4 + j");
        }
    }
}

#[test]
fn from_fn_calls_f_with_each_index() {
    let a = Array::from_fn([3, 2, 4], |[i, j, k]| 100 * i + 10 * j + k);
    let expected: Vec<usize> =
        (0..3).flat_map(|i| (0..2).flat_map(move |j| (0..4).map(move |k| 100 * i + 10 * j + k))).collect();
    assert_eq!(a.as_slice(), expected.as_slice());
}

#[test]
fn col_major_arrays_store_fortran_order() {
    let a = Array::<usize, 2, Cpu, ColMajor>::try_from_fn_in(&Cpu, [2, 3], |[i, j]| 10 * i + j).unwrap();
    assert_eq!(a.as_slice(), &[0, 10, 1, 11, 2, 12]);
    assert_eq!(a.strides(), [1, 2]);
    assert_eq!(a[[1, 2]], 12);
    assert!(a.is_fortran_contiguous());
    assert!(!a.is_contiguous());
    let b = Array::<usize, 2, Cpu, ColMajor>::try_from_shape_vec_in(&Cpu, [2, 3], vec![0, 10, 1, 11, 2, 12]).unwrap();
    assert_eq!(a, b);
}

#[test]
fn rank_zero_arrays_hold_one_element() {
    let mut a = Array::<f64, 0>::full([], 3.0);
    assert_eq!(a.len(), 1);
    assert_eq!(a[[]], 3.0);
    a[[]] = 4.0;
    assert_eq!(a.at([]), Ok(&4.0));
    assert_eq!(a.to_string(), "4");
}

#[test]
fn empty_axes_make_empty_arrays() {
    let a = Array::<f32, 3>::zeros([4, 0, 2]);
    assert!(a.is_empty());
    assert_eq!(a.iter().count(), 0);
    assert_eq!(a.rows().count(), 0);
    assert!(a.get([0, 0, 0]).is_none());
    let b = Array::<f32, 2>::zeros([3, 0]);
    assert_eq!(b.rows().map(<[f32]>::len).collect::<Vec<_>>(), vec![0, 0, 0]);
}

#[test]
fn from_shape_vec_length_mismatch_says_what_why_and_how() {
    let err = Array::from_shape_vec([2, 3], vec![1.0; 5]).unwrap_err();
    assert_eq!(err, Error::LengthMismatch { op: "from_shape_vec", shape: vec![2, 3], expected: 6, got: 5 });
    assert_eq!(
        err.to_string(),
        "from_shape_vec: shape [2, 3] needs 6 elements, got 5; pass 6 elements or change the shape"
    );
}

#[test]
fn from_shape_iter_rejects_short_and_long_iterators() {
    let a = Array::from_shape_iter([2, 2], 0..4).unwrap();
    assert_eq!(a.as_slice(), &[0, 1, 2, 3]);
    assert!(matches!(Array::from_shape_iter([2, 2], 0..3), Err(Error::LengthMismatch { got: 3, expected: 4, .. })));
    // No silent truncation: surplus elements are an error too.
    assert!(matches!(Array::from_shape_iter([2, 2], 0..6), Err(Error::LengthMismatch { got: 6, expected: 4, .. })));
}

#[test]
fn collect_builds_a_vector() {
    let a: Array<i64, 1> = (1..=4).collect();
    assert_eq!(a.shape(), [4]);
    assert_eq!(a.as_slice(), &[1, 2, 3, 4]);
}

#[test]
fn overflowing_shapes_are_errors() {
    let err = Array::<f64, 2>::try_zeros([usize::MAX, 2]).unwrap_err();
    assert!(matches!(err, Error::Overflow { op: "zeros", .. }), "{err}");
    let err = Array::<u8, 3>::try_zeros([1 << 30, 1 << 30, 1 << 10]).unwrap_err();
    assert!(matches!(err, Error::Overflow { .. }), "{err}");
    assert!(err.to_string().contains("use a smaller shape"));
}

#[test]
fn huge_allocations_are_errors_not_aborts() {
    // 2^61 bytes fits isize but no machine's memory: the system allocator must refuse.
    let err = Array::<f64, 1>::try_zeros([1 << 58]).unwrap_err();
    assert!(matches!(err, Error::Alloc { .. }), "{err}");
    let err = Array::<f64, 2>::try_full([1 << 29, 1 << 29], 1.0).unwrap_err();
    assert!(matches!(err, Error::Alloc { .. }), "{err}");
}

#[test]
#[should_panic(expected = "spans more bytes than an allocation may hold")]
fn infallible_constructors_panic_with_the_error_message() {
    let _ = Array::<f64, 2>::zeros([usize::MAX / 2, 4]);
}

#[test]
fn cpu_buffers_are_cache_line_aligned() {
    for n in [1usize, 7, 64, 1000] {
        let a = Array::<u8, 1>::zeros([n]);
        assert_eq!(a.as_slice().as_ptr() as usize % 64, 0);
        let b = Array::from_shape_vec([n], vec![1u16; n]).unwrap();
        assert_eq!(b.as_slice().as_ptr() as usize % 64, 0);
    }
}

#[test]
fn with_check_changes_only_the_type() {
    let a = Array::from_fn([3, 3], |[i, j]| i * 3 + j);
    let ptr = a.as_slice().as_ptr();
    let b = a.with_check::<Checked>();
    assert_eq!(b.as_slice().as_ptr(), ptr);
    let c = b.with_check::<Unchecked>();
    assert_eq!(c[[2, 1]], 7);
}

#[test]
fn dtype_tags_follow_the_element_type() {
    assert_eq!(Array::<f32, 1>::zeros([1]).dtype(), DType::F32);
    assert_eq!(Array::<half::bf16, 1>::zeros([1]).dtype(), DType::BF16);
    assert_eq!(Array::<u16, 1>::zeros([1]).dtype(), DType::U16);
}

#[test]
fn clones_are_deep_copies() {
    let mut a = Array::<i32, 2>::zeros([2, 2]);
    let b = a.clone();
    a[[0, 0]] = 5;
    assert_eq!(b[[0, 0]], 0);
    assert_ne!(a, b);
}

#[test]
fn structured_pod_elements_are_allowed() {
    #[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
    #[repr(C)]
    struct Particle {
        pos: [f32; 3],
        mass: f32,
    }
    let mut p = Array::<Particle, 1>::zeros([8]);
    p[[3]].mass = 2.0;
    assert_eq!(p.iter().map(|q| q.mass).sum::<f32>(), 2.0);
}
