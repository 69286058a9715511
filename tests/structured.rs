//! Structured elements: field views, runtime field metadata and its strict checks, SoA round trips.

use cnda::prelude::*;
use cnda::structured::{check_fields, check_layout, ByteOrder, FieldInfo, Structured};

cnda::structured! {
    /// A particle with mixed field types.
    #[derive(Debug, PartialEq)]
    pub struct Body (BodySoa) {
        pub pos: f64,
        pub vel: f64,
        pub id: i64,
        pub charge: f32,
        pub flags: u32,
    }
}

fn bodies() -> Array<Body, 2> {
    Array::from_fn([3, 4], |[i, j]| {
        let k = (i * 4 + j) as f64;
        Body { pos: k, vel: -k, id: (100 + i * 4 + j) as i64, charge: 0.5 * k as f32, flags: j as u32 }
    })
}

#[test]
fn field_views_read_every_element_with_scaled_strides() {
    let b = bodies();
    let pos = b.field(Body::pos);
    assert_eq!(pos.strides(), [16, 4], "32-byte structs, 8-byte field: 4 elements per struct");
    assert_eq!(pos.iter().copied().collect::<Vec<_>>(), (0..12).map(f64::from).collect::<Vec<_>>());
    let charge = b.field(Body::charge);
    assert_eq!(charge.strides(), [32, 8]);
    assert_eq!(charge[[2, 3]], 5.5);
    let ids = b.t().field(Body::id);
    assert_eq!(ids[[3, 0]], 103);
    assert_eq!(b.field(Body::flags).sum(), 3 * 6, "three rows of flags 0, 1, 2, 3");
}

#[test]
fn mutable_field_views_write_only_their_field() {
    let mut b = bodies();
    b.field_mut(Body::vel).fill(7.0);
    b.slice_mut(s![1, ..]).field(Body::flags).map_inplace(|f| *f += 10);
    assert!(b.iter().all(|body| body.vel == 7.0));
    assert_eq!(b[[1, 2]].flags, 12);
    assert_eq!(b[[0, 2]].flags, 2);
    assert_eq!(b[[1, 2]].pos, 6.0, "neighbouring fields untouched");
}

#[test]
fn fields_by_name_are_checked_at_run_time() {
    let b = bodies();
    assert_eq!(b.field_by_name::<i64>("id").unwrap()[[0, 1]], 101);
    let missing = b.field_by_name::<f64>("mass").unwrap_err();
    assert!(matches!(&missing, Error::Structure { name: "Body", .. }));
    assert!(missing
        .to_string()
        .contains(r#"there is no field `mass`; the fields are ["pos", "vel", "id", "charge", "flags"]"#));
    let wrong_type = b.field_by_name::<f32>("pos").unwrap_err();
    assert_eq!(wrong_type, Error::DType { op: "field_by_name", expected: DType::F64, got: DType::F32 });
}

#[test]
fn runtime_description_and_strict_checks() {
    let fields = Body::FIELDS;
    assert_eq!(fields.len(), 5);
    assert_eq!(
        fields[3],
        FieldInfo { name: "charge", offset: 24, dtype: DType::F32, size: 4, byte_order: ByteOrder::NATIVE }
    );
    assert!(check_fields::<Body>(fields).is_ok());
    let mut other = fields.to_vec();
    other.swap(0, 1);
    assert!(check_fields::<Body>(&other).unwrap_err().to_string().contains("field 0 must be `pos`, got `vel`"));
    let mut other = fields.to_vec();
    other[2].dtype = DType::U64;
    assert!(check_fields::<Body>(&other)
        .unwrap_err()
        .to_string()
        .contains("field `id` requires int64 (8 bytes), got uint64 (8 bytes)"));
    let mut other = fields.to_vec();
    other[4].byte_order = ByteOrder::Big;
    assert!(check_fields::<Body>(&other).unwrap_err().to_string().contains("-endian"));
    assert!(check_fields::<Body>(&fields[..4]).unwrap_err().to_string().contains("expected 5 fields, got 4"));
    let mut other = fields.to_vec();
    other[1].offset = 12;
    assert!(check_fields::<Body>(&other)
        .unwrap_err()
        .to_string()
        .contains("field `vel` must sit at byte 8, got byte 12"));
    assert!(check_layout::<Body>(fields, core::mem::size_of::<Body>()).is_ok());
    // Descriptions read from foreign metadata own their names.
    let read: Vec<FieldInfo<String>> = fields
        .iter()
        .map(|f| FieldInfo {
            name: f.name.to_uppercase(),
            offset: f.offset,
            dtype: f.dtype,
            size: f.size,
            byte_order: f.byte_order,
        })
        .collect();
    assert!(check_fields::<Body>(&read).unwrap_err().to_string().contains("field 0 must be `pos`, got `POS`"));
    let padded = check_layout::<Body>(fields, core::mem::size_of::<Body>() + 8).unwrap_err();
    assert!(padded.to_string().contains("elements must be 32 bytes, got 40"), "{padded}");
}

#[test]
fn struct_of_arrays_round_trips_from_any_view() {
    let b = bodies();
    let soa = BodySoa::aos_to_soa(b.flip(1));
    assert_eq!(soa.id.shape(), [3, 4]);
    assert_eq!(soa.id[[0, 0]], 103);
    assert_eq!(soa.soa_to_aos().unwrap(), b.flip(1).to_owned());
    let mut broken = soa.clone();
    broken.charge = Array::zeros([2, 2]);
    assert!(matches!(broken.soa_to_aos(), Err(Error::ShapeMismatch { op: "soa_to_aos", .. })));
}

#[test]
fn all_fields_borrowed_at_once_update_in_place() {
    cnda::structured! {
        /// A body.
        #[derive(Debug, PartialEq)]
        pub struct Body (BodySoa) {
            pub x: f64,
            pub v: f64,
            pub id: i64,
        }
    }
    let mut bodies = Array::from_fn([4], |[k]| Body { x: k as f64, v: 10.0 * k as f64, id: k as i64 });
    let dt = 0.5;
    let (mut x, v, mut id) = Body::fields_mut(bodies.view_mut());
    x.zip_mut_with(&v, |x, v| *x += v * dt);
    id.fill(-1);
    for (k, b) in bodies.iter().enumerate() {
        assert_eq!(*b, Body { x: k as f64 + 5.0 * k as f64, v: 10.0 * k as f64, id: -1 });
    }
    let (x, v, _) = Body::fields(bodies.view());
    assert_eq!(x.sum(), 6.0 * 6.0);
    assert_eq!(v.shape(), [4]);
}
