//! Regression tests for the soundness audit (issue "Soundness and API hardening"): each failed,
//! crashed or was undefined behaviour on the main branch before the fix. They run in debug, in
//! release (`scripts/test` runs both) and under AddressSanitizer.

use std::panic::{catch_unwind, AssertUnwindSafe};

use cnda::prelude::*;
use cnda::stencil;

fn panic_message(f: impl FnOnce()) -> Option<String> {
    let err = catch_unwind(AssertUnwindSafe(f)).err()?;
    Some(err.downcast_ref::<String>().cloned().unwrap_or_else(|| err.downcast_ref::<&str>().unwrap().to_string()))
}

// ---- 1.1 bounds policy on split views --------------------------------------------------------

#[test]
fn unchecked_halves_of_a_split_cannot_reach_each_other() {
    // Before: the flat check accepted any offset inside the half's span, so `left[[0, 2]]` was
    // `right[[0, 0]]`: two live `&mut` to one element.
    let mut a = Array::<i32, 2>::zeros([4, 4]).with_check::<Unchecked>();
    let (mut left, mut right) = a.split_at_mut(1, 2);
    right[[0, 0]] = 7;
    let msg = panic_message(|| left[[0, 2]] = 1).expect("an index past the left half must panic");
    assert!(msg.contains("axis 1 with size 2"), "{msg}");
    assert!(panic_message(|| {
        let _ = right[[3, 2]];
    })
    .is_some());
    assert_eq!(a[[0, 2]], 7);
}

#[test]
fn unchecked_padded_views_never_touch_the_padding() {
    let mut a = Array::<f64, 2, Cpu, Padded>::try_zeros_padded_in(&Cpu, [3, 5]).unwrap().with_check::<Unchecked>();
    assert_eq!(a.pitch(), 8);
    // [0, 6] is inside the allocation (padding of row 0) but not an element.
    assert!(panic_message(|| a[[0, 6]] = 1.0).unwrap().contains("axis 1 with size 5"));
}

#[test]
fn unchecked_strided_views_check_every_axis() {
    let a = Array::from_fn([4, 6], |[i, j]| (10 * i + j) as u32).with_check::<Unchecked>();
    let every_other = a.slice(s![.., ..;2]);
    assert_eq!(every_other[[1, 2]], 14);
    // Offset 2 * 1 + 1 * 6 = 8 lies inside the span but [0, 4] is past axis 1 (size 3).
    assert!(panic_message(|| {
        let _ = every_other[[0, 4]];
    })
    .is_some());
}

#[test]
fn unchecked_dense_views_stay_inside_their_own_rows() {
    // A row range of a row-major array is row-major: the flat test is exact for it.
    let mut a = Array::<u8, 2>::zeros([4, 3]).with_check::<Unchecked>();
    let (mut top, _bottom) = a.view_mut().split_at(0, 2);
    let mut top: ArrayViewMut<u8, 2, RowMajor, Unchecked> = top.view_mut().try_layout().unwrap();
    top[[1, 2]] = 5;
    assert!(panic_message(|| top[[2, 0]] = 1).is_some(), "offset 6 belongs to the bottom half");
}

#[test]
fn default_check_names_the_axis_in_every_build() {
    let a = Array::<f64, 2>::zeros([3, 4]);
    let msg = panic_message(|| {
        let _ = a[[0, 4]];
    });
    assert_eq!(
        msg.as_deref(),
        Some("index 4 is out of bounds for axis 1 with size 4; valid indices on this axis are 0..4")
    );
    // The flat offset 0 * 4 + 4 = 4 is inside the array: before, release builds read a[[1, 0]].
}

// ---- 1.2 view geometry overflow ----------------------------------------------------------------

#[test]
fn huge_slice_steps_give_one_position() {
    let a = Array::from_fn([3, 2], |[i, j]| (2 * i + j) as i64);
    // Before: shape [usize::MAX, 2] and writes outside the allocation.
    let v = a.slice(s![..;isize::MAX, ..]);
    assert_eq!(v.shape(), [1, 2]);
    assert_eq!(v.to_owned().as_slice(), &[0, 1]);
    let v = a.slice(s![..;isize::MIN, ..]);
    assert_eq!(v.shape(), [1, 2]);
    assert_eq!(v.to_owned().as_slice(), &[4, 5]);
    let v = a.slice(s![..;isize::MIN + 1, ..]);
    assert_eq!(v.to_owned().as_slice(), &[4, 5]);
}

#[test]
fn broadcast_to_an_overflowing_shape_is_an_error() {
    let a = Array::<f64, 2>::zeros([1, 2]);
    // Before: `len` wrapped and `to_owned()` wrote past its buffer.
    let err = a.try_broadcast_to([usize::MAX, 2]).unwrap_err();
    assert!(matches!(err, Error::Overflow { .. }), "{err}");
    assert!(matches!(a.try_broadcast_to([1 << 62, 2]), Err(Error::Overflow { .. })));
    let msg = panic_message(|| {
        let _ = a.broadcast_to([usize::MAX, 2]);
    });
    assert_eq!(msg, Some(err.to_string()));
}

#[test]
fn huge_stencil_radii_sweep_nothing() {
    let u = Array::<f64, 2>::ones([5, 5]);
    let mut v = Array::<f64, 2>::zeros([5, 5]);
    // Before: `2 * R` overflowed to 0 and the sweep read outside the grid.
    stencil::sweep2::<{ 1 << 63 }, _, _, _, _, _>(u.view(), v.view_mut(), |o, w| *o = *w.centre());
    stencil::sweep2::<{ usize::MAX }, _, _, _, _, _>(u.view(), v.view_mut(), |o, w| *o = *w.centre());
    assert_eq!(v.sum(), 0.0);
}

#[test]
fn interior_with_a_huge_width_is_an_error() {
    let a = Array::<f64, 2>::zeros([4, 4]);
    assert!(matches!(stencil::try_interior(a.view(), usize::MAX / 2 + 1), Err(Error::Range { .. })));
    assert!(matches!(stencil::try_interior(a.view(), usize::MAX), Err(Error::Range { .. })));
    assert_eq!(stencil::interior(a.view(), 2).shape(), [0, 0]);
}

#[test]
fn views_of_empty_arrays_with_huge_axes() {
    let a = Array::<f64, 2>::zeros([0, 1 << 40]);
    let u = a.unsqueeze::<3>(0);
    assert_eq!(u.shape(), [1, 0, 1 << 40]);
    assert_eq!(a.unsqueeze::<3>(2).shape(), [0, 1 << 40, 1]);
    assert_eq!(a.slice(s![.., 5..;3]).shape(), [0, ((1usize << 40) - 5).div_ceil(3)]);
    assert_eq!(a.narrow(1, (1 << 40) - 1, 1).shape(), [0, 1]);
    assert_eq!(a.flip(1).shape(), [0, 1 << 40]);
    assert_eq!(a.t().to_owned().shape(), [1 << 40, 0]);
    // The largest empty extent NumPy's rule allows: the non-zero axes span isize::MAX bytes.
    let b = Array::<u8, 2>::zeros([isize::MAX as usize, 0]);
    assert_eq!(b.index_axis::<1>(0, isize::MAX as usize - 1).shape(), [0]);
    assert_eq!(b.iter().count(), 0);
}

// ---- Soundness II, item 2: empty arrays with huge axes follow NumPy's size rule -------------

#[test]
fn empty_shapes_whose_other_axes_overflow_are_refused_everywhere() {
    // Before: `[0, 1 << 62]` of f64 was accepted (0 elements), and `to_ndarray` of it broke
    // `ndarray::ArrayView::from_shape_ptr`'s contract (the non-zero axes must span <= isize::MAX
    // bytes). Now every way to make such a shape is `Error::Overflow`.
    let overflow = |r: Result<(), Error>| assert!(matches!(r, Err(Error::Overflow { .. })), "{r:?}");
    overflow(Array::<f64, 2>::try_zeros([0, 1 << 62]).map(drop));
    overflow(Array::<f64, 2>::try_full([1 << 62, 0], 1.0).map(drop));
    overflow(Array::<f64, 2>::from_shape_vec([0, 1 << 62], vec![]).map(drop));
    overflow(ArrayView::<f64, 2, RowMajor>::from_slice([0, 1 << 62], &[]).map(drop));
    let mut none: [f64; 0] = [];
    overflow(ArrayViewMut::<f64, 3, RowMajor>::from_slice([1 << 31, 0, 1 << 31], &mut none).map(drop));
    let empty = Array::<f64, 1>::zeros([0]);
    overflow(empty.try_reshape([0, 1 << 62]).map(drop));
    overflow(empty.try_broadcast_to([1 << 62, 0]).map(drop));
    // The largest allowed: the non-zero axes span isize::MAX bytes exactly.
    let edge = (isize::MAX as usize) / 8;
    assert_eq!(Array::<f64, 2>::zeros([0, edge]).shape(), [0, edge]);
    assert_eq!(empty.try_reshape([edge, 0]).unwrap().shape(), [edge, 0]);
}

// ---- 1.3 / 1.4: sealed traits are compile-time facts (ui-tests); sizes checked at run time ----

cnda::structured! {
    /// A particle.
    #[derive(Debug, PartialEq)]
    pub struct Particle (ParticleSoa) {
        pub x: f32,
        pub y: f32,
        pub id: u32,
    }
}

#[test]
fn field_by_name_checks_types() {
    let a = Array::<Particle, 1>::zeros([3]);
    assert!(a.field_by_name::<f32>("y").is_ok());
    assert!(matches!(a.field_by_name::<f64>("y"), Err(Error::DType { .. })));
    assert!(matches!(a.field_by_name::<u32>("x"), Err(Error::DType { .. })));
}

/// A hand-written packed structured element: its alignment is 1, so a slice of them may start at
/// an odd address, and a field view would hand out misaligned `&f64`s.
#[derive(Clone, Copy)]
#[repr(C, packed)]
struct Packed {
    a: f64,
    b: f64,
}
// SAFETY (test): two f64, no padding; every bit pattern is valid.
unsafe impl cnda::bytemuck::Zeroable for Packed {}
// SAFETY (test): as above.
unsafe impl cnda::bytemuck::Pod for Packed {}
// SAFETY (test): the fields' true offsets, types and sizes (the alignment clause of the contract
// is what it breaks, and what `field_by_name` must catch at run time).
unsafe impl cnda::structured::Structured for Packed {
    const NAME: &'static str = "Packed";
    const FIELDS: &'static [cnda::structured::FieldInfo] = &[
        cnda::structured::FieldInfo {
            name: "a",
            offset: 0,
            dtype: DType::F64,
            size: 8,
            byte_order: cnda::structured::ByteOrder::NATIVE,
        },
        cnda::structured::FieldInfo {
            name: "b",
            offset: 8,
            dtype: DType::F64,
            size: 8,
            byte_order: cnda::structured::ByteOrder::NATIVE,
        },
    ];
}

#[test]
fn field_by_name_refuses_fields_a_packed_element_would_misalign() {
    // Soundness II, review finding: offsets and sizes tile, but the element's alignment (1) is
    // not a multiple of the field's (8).
    let bytes = [0u8; 33];
    let elements: &[Packed] = cnda::bytemuck::cast_slice(&bytes[1..33]); // at an odd address
    let v = ArrayView::<Packed, 1, RowMajor>::from_slice([2], elements).unwrap();
    assert!(matches!(v.field_by_name::<f64>("a"), Err(Error::Structure { .. })));
}

// ---- 1.5 Display of empty arrays with huge axes ------------------------------------------------

#[test]
fn empty_arrays_with_huge_axes_print_as_empty() {
    // Before: one entry per position (abort), or a capacity-overflow panic.
    assert_eq!(Array::<f64, 2>::zeros([0, 1 << 40]).to_string(), "[]");
    assert_eq!(Array::<f64, 2>::zeros([1 << 40, 0]).to_string(), "[]");
    // The largest empty extent NumPy's size rule allows (non-zero axes span isize::MAX bytes).
    assert_eq!(Array::<u8, 2>::zeros([0, isize::MAX as usize]).to_string(), "[]");
    assert!(format!("{:?}", Array::<u8, 2>::zeros([0, isize::MAX as usize])).contains("shape=[0, 9223372036854775807]"));
}

// ---- 1.6 smaller ------------------------------------------------------------------------------

#[test]
fn padded_unsqueeze_at_the_end_is_an_error_not_a_surprise() {
    let a = Array::<f64, 2, Cpu, Padded>::try_zeros_padded_in(&Cpu, [3, 5]).unwrap();
    assert!(matches!(a.view().try_unsqueeze::<3>(2), Err(Error::Layout { .. })));
    assert_eq!(a.view().try_unsqueeze::<3>(0).unwrap().shape(), [1, 3, 5]);
    let msg = panic_message(|| {
        let _ = a.unsqueeze::<3>(2);
    });
    assert!(msg.unwrap().contains("Padded"));
}

#[test]
fn empty_padded_arrays_allocate_nothing() {
    // Before: rows x pitch bytes were asked for, and the allocation failed.
    let a = Array::<f64, 2, Cpu, Padded>::try_zeros_padded_in(&Cpu, [1 << 40, 0]).unwrap();
    assert_eq!((a.shape(), a.len()), ([1 << 40, 0], 0));
    assert_eq!(a.rows().next(), Some(&[][..]));
    let b = Array::<f64, 3, Cpu, Padded>::try_zeros_padded_in(&Cpu, [1 << 20, 1 << 38, 0]).unwrap();
    assert_eq!(b.len(), 0);
}

#[test]
fn clone_of_a_pooled_array_on_a_full_pool_has_a_fallible_form() {
    let pool = Pool::with_byte_cap(1 << 20);
    let a = Array::<u8, 1>::try_zeros_in(&pool, [600 << 10]).unwrap();
    let err = a.try_clone().unwrap_err();
    assert!(matches!(err, Error::Alloc { .. }), "{err}");
    assert_eq!(panic_message(|| drop(a.clone())), Some(err.to_string()));
    let small = Array::<u8, 1>::try_zeros_in(&Pool::new(), [10]).unwrap();
    assert_eq!(small.try_clone().unwrap().as_slice(), small.as_slice());
}

// ---- 5.10 small gaps against NumPy ---------------------------------------------------------

#[test]
fn the_interior_of_a_thin_grid_is_empty_as_in_numpy() {
    let a = Array::<f64, 2>::zeros([1, 5]);
    assert_eq!(a.slice(s![1..-1, 1..-1]).shape(), [0, 3]);
    assert_eq!(Array::<f64, 2>::zeros([2, 2]).slice(s![1..-1, ..]).shape(), [0, 2]);
    // Bounds outside the axis stay errors.
    assert!(a.try_slice(s![0..3, ..]).is_err());
}

#[test]
fn mean_axis_panics_for_a_missing_axis_as_documented() {
    let a = Array::<f64, 2>::ones([2, 3]);
    assert_eq!(a.mean_axis::<1>(1).unwrap().as_slice(), &[1.0, 1.0]);
    let msg = panic_message(|| drop(a.mean_axis::<1>(2))).unwrap();
    assert!(msg.contains("axis 2 does not exist"), "{msg}");
}

#[test]
fn remainder_follows_the_dividend_like_fmod() {
    let a = Array::from_shape_vec([2], vec![-7.0, 7.0]).unwrap();
    assert_eq!((&a % 3.0).as_slice(), &[-1.0, 1.0]);
}

// ---- 4. panics point at the caller's line ------------------------------------------------------

/// The file and line a panic in `f` reports, through a panic hook that records only this
/// thread's panics (the other tests of this binary run in parallel).
fn panic_location(f: impl FnOnce()) -> Option<(String, u32)> {
    use std::sync::{Arc, Mutex};
    let seen: Arc<Mutex<Option<(String, u32)>>> = Arc::default();
    let me = std::thread::current().id();
    let previous = std::panic::take_hook();
    let record = Arc::clone(&seen);
    std::panic::set_hook(Box::new(move |info| {
        if std::thread::current().id() == me {
            if let Some(at) = info.location() {
                *record.lock().unwrap() = Some((at.file().to_string(), at.line()));
            }
        }
    }));
    let _ = catch_unwind(AssertUnwindSafe(f));
    let _ = std::panic::take_hook();
    std::panic::set_hook(previous);
    let at = seen.lock().unwrap().clone();
    at
}

#[test]
fn operators_and_view_ops_panic_at_the_callers_line() {
    let (a, b) = (Array::<f64, 2>::zeros([2, 3]), Array::<f64, 2>::zeros([2, 2]));
    let line = line!() + 1;
    let at = panic_location(|| drop(&a + &b));
    assert_eq!(at, Some((file!().to_string(), line)));
    let line = line!() + 2;
    let at = panic_location(|| {
        let _ = a.permute([0, 0]);
    });
    assert_eq!(at, Some((file!().to_string(), line)));
    let line = line!() + 1;
    let at = panic_location(|| drop(a.zip_with(&b, |x, y| x + y)));
    assert_eq!(at, Some((file!().to_string(), line)));
    let mut c = a.clone();
    let line = line!() + 1;
    let at = panic_location(move || c += &b);
    assert_eq!(at, Some((file!().to_string(), line)));
}

#[test]
fn every_view_and_reduction_op_has_a_try_form_on_arrays() {
    let mut a = Array::<f64, 2>::ones([2, 3]);
    assert!(matches!(a.try_narrow(1, 2, 2), Err(Error::Range { .. })));
    assert!(matches!(a.try_flip(2), Err(Error::AxisOutOfRange { .. })));
    assert!(matches!(a.try_transpose(0, 5), Err(Error::AxisOutOfRange { .. })));
    assert!(matches!(a.try_index_axis::<1>(0, 2), Err(Error::IndexOutOfBounds { .. })));
    assert!(matches!(a.try_split_at(1, 4), Err(Error::Range { .. })));
    assert!(a.try_split_at_mut(1, 3).is_ok());
    assert!(a.try_index_axis_mut::<1>(1, 0).is_ok());
    assert!(matches!(a.try_sum_axis::<1>(2), Err(Error::AxisOutOfRange { op: "sum_axis", .. })));
    assert!(matches!(a.try_mean_axis::<1>(7), Err(Error::AxisOutOfRange { .. })));
    assert!(matches!(a.try_fold_axis::<1>(2, 0.0, |x, y| x + y), Err(Error::AxisOutOfRange { .. })));
    assert_eq!(a.try_sum_axis::<1>(1).unwrap().as_slice(), &[3.0, 3.0]);
    assert_eq!(a.t().try_sum_axis::<1>(1).unwrap().as_slice(), &[2.0, 2.0, 2.0]);
}

#[test]
fn boundary_sweeps_of_empty_grids_with_huge_axes_return_at_once() {
    let u = Array::<f64, 2>::zeros([1 << 40, 0]);
    let mut v = Array::<f64, 2>::zeros([1 << 40, 0]);
    stencil::boundary2::<1, _, _, _, _, _>(u.view(), v.view_mut(), |o, _, _| *o = 1.0);
    stencil::sweep2::<1, _, _, _, _, _>(u.view(), v.view_mut(), |o, _| *o = 1.0);
    let u3 = Array::<f64, 3>::zeros([1 << 29, 1 << 30, 0]);
    let mut v3 = Array::<f64, 3>::zeros([1 << 29, 1 << 30, 0]);
    stencil::boundary3::<1, _, _, _, _, _>(u3.view(), v3.view_mut(), |o, _, _| *o = 1.0);
    stencil::sweep3::<1, _, _, _, _, _>(u3.view(), v3.view_mut(), |o, _| *o = 1.0);
    #[cfg(feature = "rayon")]
    {
        stencil::par_sweep3::<1, _, _, _, _, _>(u3.view(), v3.view_mut(), |o, _| *o = 1.0);
        stencil::par_sweep2::<1, _, _, _, _, _>(u.view(), v.view_mut(), |o, _| *o = 1.0);
    }
}
